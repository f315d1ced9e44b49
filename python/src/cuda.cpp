// ember._C._cuda: what ember.cuda (python/ember/cuda/__init__.py) exposes of ember::cuda
// (availability, devices and properties, synchronize, the caching allocator's statistics).
#include <string>

#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;

// A device argument of torch.cuda's functions: None (the current device), an int, "cuda:1" or
// an ember.device of type cuda.
int index_arg(nb::handle h) {
  if (h.is_none()) return -1;
  if (PyLong_Check(h.ptr())) return nb::cast<int>(h);
  Device d = *device_arg(h);
  EMBER_CHECK(d.is_cuda(), ValueError, "Expected a cuda device, but got: ", d.str());
  return d.index();
}

std::string properties_repr(const cuda::DeviceProperties& p) {
  return "_CudaDeviceProperties(name='" + p.name + "', major=" + std::to_string(p.major) +
         ", minor=" + std::to_string(p.minor) +
         ", total_memory=" + std::to_string(p.total_memory / (1024 * 1024)) +
         "MB, multi_processor_count=" + std::to_string(p.multi_processor_count) + ")";
}

}  // namespace

void init_cuda(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_cuda", "ember.cuda's compiled half");
  nb::class_<cuda::DeviceProperties>(m, "_CudaDeviceProperties")
      .def_ro("name", &cuda::DeviceProperties::name)
      .def_ro("total_memory", &cuda::DeviceProperties::total_memory)
      .def_ro("multi_processor_count", &cuda::DeviceProperties::multi_processor_count)
      .def_ro("major", &cuda::DeviceProperties::major)
      .def_ro("minor", &cuda::DeviceProperties::minor)
      .def("__repr__", &properties_repr);
  m.def("is_available", &cuda::is_available);
  m.def("is_simulated", &cuda::is_simulated);
  m.def("device_count", &cuda::device_count);
  m.def("unavailable_reason", &cuda::unavailable_reason);
  m.def("current_device", &cuda::current_device);
  m.def(
      "set_device", [](nb::handle d) { cuda::set_device(index_arg(d)); }, "device"_a);
  m.def(
      "get_device_name", [](nb::handle d) { return cuda::get_device_name(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "get_device_properties",
      [](nb::handle d) { return cuda::get_device_properties(index_arg(d)); }, "device"_a);
  m.def(
      "synchronize",
      [](nb::handle d) {
        int i = index_arg(d);
        nb::gil_scoped_release release;
        cuda::synchronize(i);
      },
      "device"_a = nb::none());
  m.def(
      "memory_allocated", [](nb::handle d) { return cuda::memory_allocated(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "max_memory_allocated", [](nb::handle d) { return cuda::max_memory_allocated(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "memory_reserved", [](nb::handle d) { return cuda::memory_reserved(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "max_memory_reserved", [](nb::handle d) { return cuda::max_memory_reserved(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "reset_peak_memory_stats", [](nb::handle d) { cuda::reset_peak_memory_stats(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "memory_summary",
      [](nb::handle d, bool abbreviated) {
        return cuda::memory_summary(index_arg(d), abbreviated);
      },
      "device"_a = nb::none(), "abbreviated"_a = false);
  m.def("empty_cache", &cuda::empty_cache, RG());
  m.def("manual_seed", &cuda::manual_seed, "seed"_a);
  m.def("manual_seed_all", &cuda::manual_seed_all, "seed"_a);
  // The doctor: the sync debug mode and the transfer audit (include/ember/cuda.h).
  m.def(
      "set_sync_debug_mode",
      [](nb::handle mode) {
        if (PyUnicode_Check(mode.ptr()))
          return cuda::set_sync_debug_mode(nb::cast<std::string>(mode));
        EMBER_CHECK(PyLong_Check(mode.ptr()) && !PyBool_Check(mode.ptr()), ArgumentTypeError,
                    "set_sync_debug_mode: expected an int or a str, got ",
                    nb::type_name(mode.type()).c_str());
        cuda::set_sync_debug_mode(nb::cast<int>(mode));
      },
      "debug_mode"_a);
  m.def("get_sync_debug_mode", [] { return cuda::get_sync_debug_mode(); });
  nb::class_<cuda::TransferAudit>(m, "_TransferAudit")
      .def(nb::init<>())
      .def("step", &cuda::TransferAudit::step)
      .def("findings", &cuda::TransferAudit::findings)
      .def("report", &cuda::TransferAudit::report)
      .def("stats", [](const cuda::TransferAudit& a) {
        cuda::TransferStats s = a.stats();
        nb::dict d;
        d["steps"] = s.steps;
        d["h2d_pageable"] = s.h2d_pageable;
        d["h2d_pinned"] = s.h2d_pinned;
        d["h2d_blocking"] = s.h2d_blocking;
        d["h2d_bytes"] = s.h2d_bytes;
        d["d2h_pageable"] = s.d2h_pageable;
        d["d2h_pinned"] = s.d2h_pinned;
        d["d2h_small"] = s.d2h_small;
        d["d2h_bytes"] = s.d2h_bytes;
        d["d2d"] = s.d2d;
        d["implicit_syncs"] = s.implicit_syncs;
        d["explicit_syncs"] = s.explicit_syncs;
        d["sync_wait_ms"] = s.sync_wait_ms;
        d["kernel_launches"] = s.kernel_launches;
        d["cpu_ops"] = s.cpu_ops;
        return d;
      });
}

}  // namespace ember::python
