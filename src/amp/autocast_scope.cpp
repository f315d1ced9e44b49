// AutocastScope: one listed op's casts (PyTorch's cached_cast / promote_type / set_opt_dtype).
#include "amp/autocast_hook.h"
#include "amp/cast_cache.h"
#include "ember/amp/autocast.h"

namespace ember::amp {

AutocastScope::AutocastScope(AutocastOp op, const Tensor& first)
    : policy_(cast_policy(op, first.device().is_cuda())),
      device_type_(first.device().type()),
      lower_(get_autocast_dtype(first.device().type())),
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
  if (policy_ == CastPolicy::LowerPrecision && is_autocast_cache_enabled() &&
      detail::is_cacheable(t)) {
    return detail::cached_cast(t, target_);
  }
  return t.to(target_);
}

std::optional<ScalarType> AutocastScope::output_dtype(std::optional<ScalarType> requested,
                                                      const Tensor& first) const {
  if (policy_ != CastPolicy::Float32OptDtype || requested || !eligible(first)) return requested;
  return kFloat;
}

}  // namespace ember::amp
