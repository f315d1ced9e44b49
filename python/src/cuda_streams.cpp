// ember._C._cuda's streams and events (ember/cuda/streams.py wraps them as torch.cuda.Stream and
// torch.cuda.Event). Every wait releases the GIL.
#include <nanobind/stl/pair.h>

#include "common.h"

namespace ember::python {

void init_cuda_streams(nb::module_& parent) {
  using RG = nb::call_guard<nb::gil_scoped_release>;
  nb::module_ m = nb::borrow<nb::module_>(parent.attr("_cuda"));
  nb::class_<cuda::Stream>(m, "_Stream")
      .def_prop_ro("device_index", [](const cuda::Stream& s) { return int(s.device_index()); })
      .def_prop_ro("cuda_stream",
                   [](const cuda::Stream& s) { return reinterpret_cast<uintptr_t>(s.stream()); })
      .def_prop_ro("priority", &cuda::Stream::priority)
      .def("query", &cuda::Stream::query, RG())
      .def("synchronize", &cuda::Stream::synchronize, RG())
      .def("__eq__", [](const cuda::Stream& a, const cuda::Stream& b) { return a == b; })
      .def("__hash__", [](const cuda::Stream& s) {
        return static_cast<int64_t>(s.id() ^ (int64_t(s.device_index()) << 48));
      });
  m.def(
      "_stream_create",
      [](int priority, int device) { return cuda::Stream::create(priority, device); }, "priority"_a,
      "device"_a);
  m.def("_current_stream", &cuda::current_stream, "device"_a);
  m.def("_default_stream", &cuda::default_stream, "device"_a);
  m.def("_set_current_stream", &cuda::set_current_stream, "stream"_a);
  m.def("_stream_priority_range", &cuda::stream_priority_range);
  nb::class_<cuda::Event>(m, "_Event")
      .def(nb::init<bool, bool>(), "enable_timing"_a, "blocking"_a)
      .def(
          "record", [](cuda::Event& e, const cuda::Stream& s) { e.record(s); }, "stream"_a, RG())
      .def("query", &cuda::Event::query, RG())
      .def("synchronize", &cuda::Event::synchronize, RG())
      .def("wait", &cuda::Event::wait, "stream"_a, RG())
      .def("elapsed_time", &cuda::Event::elapsed_time, "end"_a, RG())
      .def_prop_ro("is_created", &cuda::Event::isCreated)
      .def_prop_ro("cuda_event",
                   [](const cuda::Event& e) { return reinterpret_cast<uintptr_t>(e.event()); });
}

}  // namespace ember::python
