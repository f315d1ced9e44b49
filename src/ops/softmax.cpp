// softmax and log_softmax: one backend kernel each way (kernel_math/softmax_row.h has the math),
// with the row maximum subtracted first so exp cannot overflow. The composite of primitives (amax,
// sub, exp, sum, div) stays as the reference in the tests and as the gradient rule when a graph
// of the backward is asked for (create_graph).
#include "autograd/record.h"
#include "core/autocast_hook.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember {
namespace {

// a seen as [outer, D, inner] around dim d.
struct RowLayout {
  int64_t outer = 1, D = 1, inner = 1;
};
RowLayout rows_around(const Tensor& a, int64_t d) {
  RowLayout r;
  for (int64_t i = 0; i < a.dim(); ++i) {
    if (i < d) r.outer *= a.size(i);
    if (i > d) r.inner *= a.size(i);
  }
  r.D = a.dim() == 0 ? 1 : a.size(d);
  return r;
}

// The gradient as ember ops, differentiable again.
Tensor softmax_backward_composite(const Tensor& g, const Tensor& y, int64_t d, bool log_space) {
  if (log_space) return g - exp(y) * sum(g, {d}, /*keepdim=*/true);
  return y * (g - sum(g * y, {d}, /*keepdim=*/true));
}

Tensor softmax_backward(const Tensor& g, const Tensor& y, int64_t d, bool log_space) {
  if (GradMode::is_enabled()) return softmax_backward_composite(g, y, d, log_space);
  const RowLayout r = rows_around(y, d);
  Tensor gc = g.contiguous().to(y.dtype());
  Tensor gx = make_empty(y.sizes(), y.dtype(), y.device());
  backend_for(gx).softmax_backward(gx, gc, y, r.outer, r.D, r.inner, log_space);
  return gx;
}

Tensor softmax_impl(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype, bool log_space) {
  const char* op = log_space ? "log_softmax" : "softmax";
  const Tensor x0 = (dtype && *dtype != a.dtype()) ? a.to(*dtype) : a;
  EMBER_CHECK(is_floating_point(x0.dtype()), TypeError, op, "(): does not support dtype ",
              to_string(x0.dtype()), " (expected a floating point dtype)");
  const int64_t d = wrap_dim(dim, x0.dim(), op);
  if (x0.numel() == 0) return x0.clone();
  const Tensor x = x0.contiguous();
  const RowLayout r = rows_around(x, x.dim() == 0 ? 0 : d);
  Tensor y = make_empty(x.sizes(), x.dtype(), x.device());
  backend_for(y).softmax(y, x, r.outer, r.D, r.inner, log_space);
  if (autograd::needs_grad({x0})) {
    const int64_t gd = x.dim() == 0 ? 0 : d;
    autograd::record(
        log_space ? "LogSoftmaxBackward0" : "SoftmaxBackward0", y, {x0},
        [sy = autograd::SavedTensor(y, true), gd, log_space](const autograd::variable_list& g) {
          const Tensor yv = sy.unpack();
          // A 0-dim input is a row of one element.
          if (yv.dim() == 0) {
            return autograd::variable_list{
                softmax_backward(g[0].reshape({1}), yv.reshape({1}), 0, log_space).reshape({})};
          }
          return autograd::variable_list{softmax_backward(g[0], yv, gd, log_space)};
        });
  }
  return y;
}

}  // namespace

Tensor softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::softmax, a);
    return softmax(a, dim, ac.output_dtype(dtype, a));
  }
  return softmax_impl(a, dim, dtype, false);
}
Tensor log_softmax(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  if (amp::autocast_applies(a)) {
    amp::AutocastScope ac(amp::AutocastOp::log_softmax, a);
    return log_softmax(a, dim, ac.output_dtype(dtype, a));
  }
  return softmax_impl(a, dim, dtype, true);
}
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}

}  // namespace ember
