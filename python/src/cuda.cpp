// ember._C._cuda: what ember.cuda (python/ember/cuda/__init__.py) exposes of ember::cuda
// (availability, devices and properties, synchronize, the caching allocator's statistics).
#include <string>
#include <string_view>

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>

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

// The transfer audit's location hook (cuda::set_audit_location_hook): the innermost Python frame
// of the calling thread outside the ember package, as "file:line". Ember's bindings release the
// GIL around copies and waits, so the hook takes it back; a thread Python never ran on (a
// DataLoader's pin-memory thread, a C++ extension's own) has no such frame and gets
// "(not called from Python)". Called only while a TransferAudit is open.
std::string g_package_dir;  // ".../ember/", set before the hook is

std::string python_location() {
  static const std::string kNoFrame = "(not called from Python)";
  if (!Py_IsInitialized() || PyGILState_GetThisThreadState() == nullptr) return kNoFrame;
  nb::gil_scoped_acquire gil;
  std::string out;
  PyFrameObject* frame = PyThreadState_GetFrame(PyThreadState_Get());  // a new reference
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    if (file == nullptr) PyErr_Clear();
    const bool ours = file != nullptr && !g_package_dir.empty() &&
                      std::string_view(file).substr(0, g_package_dir.size()) == g_package_dir;
    if (file != nullptr && !ours)
      out = std::string(file) + ":" + std::to_string(PyFrame_GetLineNumber(frame));
    Py_DECREF(code);
    if (!out.empty()) {
      Py_DECREF(frame);
      break;
    }
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  return out.empty() ? kNoFrame : out;
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
  m.def(
      "memory_stats", [](nb::handle d) { return cuda::memory_stats(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "mem_get_info", [](nb::handle d) { return cuda::mem_get_info(index_arg(d)); },
      "device"_a = nb::none());
  m.def(
      "set_per_process_memory_fraction",
      [](double fraction, nb::handle d) {
        cuda::set_per_process_memory_fraction(fraction, index_arg(d));
      },
      "fraction"_a, "device"_a = nb::none());
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
  m.def(
      "_enable_audit_locations",
      [](std::string package_dir) {
        if (!package_dir.empty() && package_dir.back() != '/') package_dir += '/';
        if (g_package_dir.empty()) g_package_dir = package_dir;
        cuda::set_audit_location_hook(&python_location);
      },
      "package_dir"_a);
  nb::class_<cuda::TransferAudit>(m, "_TransferAudit")
      .def(nb::init<>())
      .def("events",
           [](const cuda::TransferAudit& a) {
             nb::list out;
             for (const cuda::TransferEvent& e : a.events()) {
               nb::dict d;
               d["kind"] = e.kind;
               d["location"] = e.location;
               d["bytes"] = e.bytes;
               out.append(d);
             }
             return out;
           })
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
