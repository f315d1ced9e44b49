// AutocastScope: one listed op's casts (PyTorch's cached_cast / promote_type / set_opt_dtype),
// with what src/amp attaches.
#include "core/autocast_hook.h"

#include <atomic>

namespace ember::amp {
namespace detail {
thread_local uint8_t t_active = 0;
}  // namespace detail

namespace {

// PyTorch's default region dtypes and plain casts: what a scope would use if autocast were
// switched on without src/amp attached (it always attaches first).
ScalarType default_region_dtype(DeviceType device_type) {
  return device_type == DeviceType::CUDA ? kHalf : kBFloat16;
}
Tensor plain_cast(const Tensor& t, ScalarType dtype) {
  return t.to(dtype);
}
constexpr AutocastHooks kDefaultHooks{default_region_dtype, plain_cast};
std::atomic<const AutocastHooks*> g_hooks{&kDefaultHooks};

}  // namespace

void attach_autocast(const AutocastHooks* hooks) {
  g_hooks.store(hooks ? hooks : &kDefaultHooks, std::memory_order_release);
}

AutocastScope::AutocastScope(AutocastOp op, const Tensor& first)
    : hooks_(g_hooks.load(std::memory_order_acquire)),
      policy_(cast_policy(op, first.device().is_cuda())),
      device_type_(first.device().type()),
      lower_(hooks_->region_dtype(first.device().type())),
      target_(policy_ == CastPolicy::LowerPrecision || policy_ == CastPolicy::Promote ? lower_
                                                                                      : kFloat) {}

// Floating tensors of the region's device type take part; float64 is never cast.
bool AutocastScope::eligible(const Tensor& t) const {
  return t.defined() && t.device().type() == device_type_ && is_floating_point(t.dtype()) &&
         t.dtype() != kDouble;
}

// PyTorch's prioritize(): float32 wins over the region's dtype; float64 operands are ignored
// (they promote by the ordinary rules inside the op).
void AutocastScope::include(const Tensor& t) {
  if (policy_ != CastPolicy::Promote || !eligible(t)) return;
  if (t.dtype() != target_) target_ = kFloat;
}

Tensor AutocastScope::cast(const Tensor& t) const {
  if (policy_ == CastPolicy::Native || !eligible(t) || t.dtype() == target_) return t;
  if (policy_ == CastPolicy::LowerPrecision) return hooks_->cast_lower(t, target_);
  return t.to(target_);
}

std::optional<ScalarType> AutocastScope::output_dtype(std::optional<ScalarType> requested,
                                                      const Tensor& first) const {
  if (policy_ != CastPolicy::Float32OptDtype || requested || !eligible(first)) return requested;
  return kFloat;
}

}  // namespace ember::amp
