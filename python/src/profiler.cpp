// ember._C._profiler: the C++ profiler (include/ember/profiler.h) for ember.profiler
// (python/ember/profiler/): a recording session, its events and key averages, record_function.
#include <memory>
#include <string>
#include <vector>

#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;
namespace prof = ember::profiler;

// 0: CPU, 1: CUDA (the values of ember.profiler.ProfilerActivity).
std::vector<prof::ProfilerActivity> activities_arg(const std::vector<int>& a) {
  std::vector<prof::ProfilerActivity> out;
  for (int v : a) {
    EMBER_CHECK(v == 0 || v == 1, ValueError, "profile: unknown ProfilerActivity ", v);
    out.push_back(v == 0 ? prof::ProfilerActivity::CPU : prof::ProfilerActivity::CUDA);
  }
  return out;
}

const char* kind_name(prof::EventKind k) {
  switch (k) {
    case prof::EventKind::Op:
      return "op";
    case prof::EventKind::UserAnnotation:
      return "user_annotation";
    case prof::EventKind::Sync:
      return "sync";
  }
  return "op";
}

// One recording: started by the constructor, ended by stop().
struct Profile {
  std::unique_ptr<prof::profile> p;
};

struct RecordFunction {
  std::unique_ptr<prof::record_function> r;
};

}  // namespace

void init_profiler(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_profiler", "ember.profiler's compiled half");
  m.def("supported_activities", [] {
    std::vector<int> out;
    for (auto a : prof::supported_activities())
      out.push_back(a == prof::ProfilerActivity::CPU ? 0 : 1);
    return out;
  });
  m.def("is_enabled", &prof::is_enabled);

  nb::class_<prof::FunctionEvent>(m, "FunctionEvent")
      .def_ro("id", &prof::FunctionEvent::id)
      .def_ro("parent", &prof::FunctionEvent::parent)
      .def_ro("name", &prof::FunctionEvent::name)
      .def_prop_ro("kind", [](const prof::FunctionEvent& e) { return kind_name(e.kind); })
      .def_ro("thread", &prof::FunctionEvent::thread)
      .def_ro("start_us", &prof::FunctionEvent::start_us)
      .def_ro("end_us", &prof::FunctionEvent::end_us)
      .def_prop_ro("device", [](const prof::FunctionEvent& e) { return e.device.str(); })
      .def_ro("input_shapes", &prof::FunctionEvent::input_shapes)
      .def_ro("input_dtypes", &prof::FunctionEvent::input_dtypes)
      .def_prop_ro("cpu_time", &prof::FunctionEvent::cpu_time_us)
      .def_prop_ro("cuda_time", &prof::FunctionEvent::cuda_time_us)
      .def_ro("sync_reason", &prof::FunctionEvent::sync_reason)
      .def("__repr__", [](const prof::FunctionEvent& e) {
        return "<FunctionEvent name=" + e.name + " device=" + e.device.str() + ">";
      });

  nb::class_<prof::FunctionEventAvg>(m, "FunctionEventAvg")
      .def_ro("key", &prof::FunctionEventAvg::key)
      .def_ro("count", &prof::FunctionEventAvg::count)
      .def_ro("input_shapes", &prof::FunctionEventAvg::input_shapes)
      .def_ro("self_cpu_time_total", &prof::FunctionEventAvg::self_cpu_time_total)
      .def_ro("cpu_time_total", &prof::FunctionEventAvg::cpu_time_total)
      .def_ro("self_cuda_time_total", &prof::FunctionEventAvg::self_cuda_time_total)
      .def_ro("cuda_time_total", &prof::FunctionEventAvg::cuda_time_total)
      .def_ro("self_cpu_memory_usage", &prof::FunctionEventAvg::self_cpu_memory_usage)
      .def_ro("cpu_memory_usage", &prof::FunctionEventAvg::cpu_memory_usage)
      .def_ro("self_cuda_memory_usage", &prof::FunctionEventAvg::self_cuda_memory_usage)
      .def_ro("cuda_memory_usage", &prof::FunctionEventAvg::cuda_memory_usage)
      .def_prop_ro("cpu_time", &prof::FunctionEventAvg::cpu_time)
      .def_prop_ro("cuda_time", &prof::FunctionEventAvg::cuda_time)
      .def("__repr__", [](const prof::FunctionEventAvg& a) {
        return "<FunctionEventAvg key=" + a.key + " count=" + std::to_string(a.count) + ">";
      });

  nb::class_<prof::KeyAverages>(m, "KeyAverages")
      .def("table", &prof::KeyAverages::table, "sort_by"_a = "", "row_limit"_a = 100)
      .def("__len__", &prof::KeyAverages::size)
      .def(
          "__getitem__",
          [](const prof::KeyAverages& k, int64_t i) {
            int64_t n = static_cast<int64_t>(k.size());
            if (i < 0) i += n;
            if (i < 0 || i >= n) throw nb::index_error("key_averages index out of range");
            return k[static_cast<size_t>(i)];
          },
          "i"_a);

  nb::class_<Profile>(m, "_Profile")
      .def(
          "__init__",
          [](Profile* self, const std::vector<int>& activities, bool record_shapes,
             bool profile_memory) {
            new (self) Profile{std::make_unique<prof::profile>(activities_arg(activities),
                                                               record_shapes, profile_memory)};
          },
          "activities"_a, "record_shapes"_a, "profile_memory"_a)
      .def(
          "stop", [](Profile& s) { s.p->stop(); }, RG())
      .def(
          "step", [](Profile& s) { s.p->step(); }, RG())
      .def(
          "events", [](Profile& s) { return s.p->events(); }, RG())
      .def(
          "key_averages",
          [](Profile& s, bool group_by_input_shape) {
            return s.p->key_averages(group_by_input_shape);
          },
          "group_by_input_shape"_a = false, RG())
      .def(
          "export_chrome_trace",
          [](Profile& s, const std::string& path) { s.p->export_chrome_trace(path); }, "path"_a,
          RG())
      .def("close", [](Profile& s) { s.p.reset(); });

  nb::class_<RecordFunction>(m, "_RecordFunction")
      .def(
          "__init__",
          [](RecordFunction* self, const std::string& name) {
            new (self) RecordFunction{std::make_unique<prof::record_function>(name)};
          },
          "name"_a)
      .def("end", [](RecordFunction& r) { r.r.reset(); });
}

}  // namespace ember::python
