#pragma once
// How an op front end applies autocast (core/autocast_policy.h says what each op does):
//
//   Tensor mm(const Tensor& a, const Tensor& b) {
//     if (amp::autocast_applies(a)) {
//       amp::AutocastScope ac(amp::AutocastOp::mm, a);
//       return mm(ac.cast(a), ac.cast(b));
//     }
//     ...
//
// The scope turns autocast off until the op returns, so its inner ops (linear -> addmm,
// cross_entropy -> log_softmax) run in the types it chose, as a listed op excludes the autocast
// dispatch key in PyTorch. When autocast is off the cost is one thread-local load.
//
// The hook sits in core, below the front ends (src/ops, src/nn) and the autograd engine that use
// it; src/amp, above them, owns the regions: it sets t_active and attaches AutocastHooks, the two
// things only it knows (the region's dtype, the cast cache).
#include <optional>

#include "core/autocast_policy.h"
#include "ember/tensor.h"

namespace ember::amp {
namespace detail {
// Bit (1 << device type) is set while autocast applies to ops on that device type: enabled,
// and not inside an op that already applied it, nor inside backward.
extern thread_local uint8_t t_active;
}  // namespace detail

inline bool autocast_applies(const Tensor& t) {
  const uint8_t active = detail::t_active;
  return active != 0 && t.defined() && ((active >> static_cast<int>(t.device().type())) & 1);
}

// What src/amp attaches (before it first sets t_active, so every AutocastScope sees it).
struct AutocastHooks {
  // The thread's autocast dtype on `device_type` (set_autocast_dtype).
  ScalarType (*region_dtype)(DeviceType device_type);
  // `t` in `dtype` for a LowerPrecision op: through the region's cast cache where it applies.
  Tensor (*cast_lower)(const Tensor& t, ScalarType dtype);
};
void attach_autocast(const AutocastHooks* hooks);

// Autocast off for a scope (backward runs under one).
class AutocastOffGuard {
 public:
  AutocastOffGuard() : saved_(detail::t_active) { detail::t_active = 0; }
  ~AutocastOffGuard() { detail::t_active = saved_; }
  AutocastOffGuard(const AutocastOffGuard&) = delete;
  AutocastOffGuard& operator=(const AutocastOffGuard&) = delete;

 private:
  uint8_t saved_;
};

// One op's policy on the device type of `first` (its first tensor argument), for the op's
// duration; cast() gives each operand in the dtype the policy wants.
class AutocastScope {
 public:
  AutocastScope(AutocastOp op, const Tensor& first);
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

  // Promote: widens the target over every operand before any cast().
  void include(const Tensor& t);
  Tensor cast(const Tensor& t) const;
  // Float32OptDtype: the dtype argument to call the op with (float32 unless one was given).
  std::optional<ScalarType> output_dtype(std::optional<ScalarType> requested,
                                         const Tensor& first) const;

 private:
  bool eligible(const Tensor& t) const;

  AutocastOffGuard off_;
  const AutocastHooks* hooks_;
  CastPolicy policy_;
  DeviceType device_type_;
  ScalarType lower_;   // the region's dtype on this device type
  ScalarType target_;  // what cast() casts eligible operands to
};

}  // namespace ember::amp
