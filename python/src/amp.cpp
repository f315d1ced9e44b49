// ember._C._amp: the C++ autocast state (include/ember/amp/autocast.h) and the two device ops
// GradScaler is built from (include/ember/amp/scaling_ops.h). python/ember/amp/ adds the context
// managers and the GradScaler's per-optimizer bookkeeping; the policy table stays in C++.
#include <memory>
#include <string>

#include "common.h"

namespace ember::python {
namespace {

using RG = nb::call_guard<nb::gil_scoped_release>;

// "cpu" or "cuda" (torch.autocast's device_type); ember.autocast checks the spelling first.
DeviceType device_type_arg(const std::string& s) {
  if (s == "cpu") return DeviceType::CPU;
  if (s == "cuda") return DeviceType::CUDA;
  throw ValueError(detail::str_cat("autocast: device_type must be 'cuda' or 'cpu', got '", s, "'"));
}

// One entered region: the C++ RAII guard, alive from construction to exit().
struct AutocastGuard {
  std::unique_ptr<amp::autocast> guard;
};

}  // namespace

void init_amp(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_amp", "ember.amp's compiled half");
  nb::class_<AutocastGuard>(m, "_AutocastGuard")
      .def(
          "__init__",
          [](AutocastGuard* self, const std::string& device_type, nb::handle dtype, bool enabled,
             bool cache_enabled) {
            new (self) AutocastGuard{std::make_unique<amp::autocast>(
                device_type_arg(device_type), dtype_arg(dtype), enabled, cache_enabled)};
          },
          "device_type"_a, "dtype"_a.none(), "enabled"_a, "cache_enabled"_a)
      .def("exit", [](AutocastGuard& self) { self.guard.reset(); });
  m.def(
      "is_autocast_enabled",
      [](const std::string& d) { return amp::is_autocast_enabled(device_type_arg(d)); },
      "device_type"_a);
  m.def(
      "set_autocast_enabled",
      [](const std::string& d, bool on) { amp::set_autocast_enabled(device_type_arg(d), on); },
      "device_type"_a, "enabled"_a);
  m.def(
      "get_autocast_dtype",
      [](const std::string& d) {
        return dtype_object(amp::get_autocast_dtype(device_type_arg(d)));
      },
      "device_type"_a);
  m.def(
      "set_autocast_dtype",
      [](const std::string& d, nb::handle dtype) {
        auto t = dtype_arg(dtype);
        EMBER_CHECK(t.has_value(), ArgumentTypeError,
                    "set_autocast_dtype: expected a dtype, got None");
        amp::set_autocast_dtype(device_type_arg(d), *t);
      },
      "device_type"_a, "dtype"_a.none());
  m.def("is_autocast_cache_enabled", &amp::is_autocast_cache_enabled);
  m.def("set_autocast_cache_enabled", &amp::set_autocast_cache_enabled, "enabled"_a);
  m.def("clear_autocast_cache", &amp::clear_autocast_cache);
  m.def(
      "_amp_foreach_non_finite_check_and_unscale_",
      [](std::vector<Tensor> grads, const Tensor& found_inf, const Tensor& inv_scale) {
        amp::non_finite_check_and_unscale_(grads, found_inf, inv_scale);
      },
      "grads"_a, "found_inf"_a, "inv_scale"_a, RG());
  m.def(
      "_amp_update_scale_",
      [](Tensor scale, Tensor growth_tracker, const Tensor& found_inf, double growth_factor,
         double backoff_factor, int64_t growth_interval) {
        amp::update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                           growth_interval);
        return scale;
      },
      "scale"_a, "growth_tracker"_a, "found_inf"_a, "growth_factor"_a, "backoff_factor"_a,
      "growth_interval"_a, RG());
}

}  // namespace ember::python
