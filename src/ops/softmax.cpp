// softmax and log_softmax, composed from primitives (DESIGN.md section 3): the row maximum is
// subtracted first so exp cannot overflow; autograd follows from the primitives' rules.
// A fused kernel may replace this later, with this version kept as its reference.
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember {
namespace {

Tensor softmax_impl(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype, bool log_space) {
  const char* op = log_space ? "log_softmax" : "softmax";
  const Tensor x0 = (dtype && *dtype != a.dtype()) ? a.to(*dtype) : a;
  EMBER_CHECK(is_floating_point(x0.dtype()), TypeError, op, "(): does not support dtype ",
              to_string(x0.dtype()), " (expected a floating point dtype)");
  const int64_t d = wrap_dim(dim, x0.dim(), op);
  if (x0.numel() == 0) return x0.clone();
  // 16-bit inputs are computed in float and rounded once at the end.
  const bool narrow = x0.dtype() == kHalf || x0.dtype() == kBFloat16;
  const Tensor x = narrow ? x0.to(kFloat) : x0;
  Tensor m;
  {
    NoGradGuard no_grad;  // the shift cancels out of the result: no gradient through it
    m = amax(x, {d}, /*keepdim=*/true);
  }
  Tensor z = x - m;
  Tensor r;
  if (log_space) {
    r = z - log(sum(exp(z), {d}, /*keepdim=*/true));
  } else {
    Tensor e = exp(z);
    r = e / sum(e, {d}, /*keepdim=*/true);
  }
  return narrow ? r.to(x0.dtype()) : r;
}

}  // namespace

Tensor softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(a, dim, dtype, false);
}
Tensor log_softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(a, dim, dtype, true);
}
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}

}  // namespace ember
