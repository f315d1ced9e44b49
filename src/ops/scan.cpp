// cumsum and cumprod: the backend scans the input (cast to the result dtype, made contiguous)
// along the middle dim of [outer, D, inner]. Integers and bool accumulate in int64, as PyTorch.
// Gradients are written with ordinary ops (so they are differentiable again): cumsum's is the
// reversed cumsum of the gradient; cumprod's follows PyTorch's rule for inputs with zeros.
#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember {

using autograd::variable_list;

namespace {

// sum over j >= i of g[j] along d.
Tensor reversed_cumsum(const Tensor& g, int64_t d) {
  return g.flip({d}).cumsum(d).flip({d});
}

Tensor scan(ScanOp op, const char* name, const Tensor& a, int64_t dim,
            std::optional<ScalarType> dtype) {
  const ScalarType out_dtype = dtype ? *dtype : is_integral(a.dtype(), true) ? kLong : a.dtype();
  const int64_t d = wrap_dim(dim, a.dim(), name);
  Tensor x = a.detach().to(out_dtype).contiguous();
  Tensor out = make_empty(a.sizes(), out_dtype, a.device());
  if (out.numel() > 0) {
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < d; ++k) outer *= a.size(k);
    for (int64_t k = d + 1; k < a.dim(); ++k) inner *= a.size(k);
    const int64_t D = a.dim() == 0 ? 1 : a.size(d);
    backend_for(out).scan(op, out, x, outer, D, inner);
  }
  return out;
}

// cumprod's gradient. Before a line's first zero (at k): reversed_cumsum(g * y) / x. At k:
// reversed_cumsum(g * cumprod(x1)), x1 being x with that zero replaced by 1. After k the value is
// 0, written as x_k times the gradient for x1 (recursively: x1 has one zero less per line), so
// that double backward still sees its derivative in x_k, as PyTorch's formula does.
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& y, int64_t d) {
  // Meta tensors have no zeros to look for: the zero-free formula gives the shape.
  if (x.is_meta()) return reversed_cumsum(g * y, d) / x;
  Tensor zero = x.eq(0);
  if (!zero.any().item<bool>()) return reversed_cumsum(g * y, d) / x;
  Tensor zeros_so_far = zero.cumsum(d);
  Tensor before = zeros_so_far.eq(0);
  Tensor first_zero = logical_and(zero, zeros_so_far.eq(1));
  Tensor grad_before = reversed_cumsum(g * y, d) / where(before, x, ones_like(x));
  Tensor x1 = where(first_zero, ones_like(x), x);
  Tensor y1 = x1.cumprod(d);
  Tensor grad_first = reversed_cumsum(g * y1, d);
  Tensor x_k = where(first_zero, x, zeros_like(x)).sum({d}, true);
  Tensor grad_after = x_k * cumprod_backward(g, x1, y1, d);
  return where(before, grad_before, where(first_zero, grad_first, grad_after));
}

}  // namespace

Tensor cumsum(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor out = scan(ScanOp::Sum, "cumsum", a, dim, dtype);
  if (autograd::needs_grad({a})) {
    const int64_t d = wrap_dim(dim, a.dim());
    const ScalarType in_dtype = a.dtype();
    autograd::record("CumsumBackward0", out, {a}, [d, in_dtype](const variable_list& g) {
      if (g[0].dim() == 0) return variable_list{g[0].to(in_dtype)};
      return variable_list{reversed_cumsum(g[0], d).to(in_dtype)};
    });
  }
  return out;
}

Tensor cumprod(const Tensor& a, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor out = scan(ScanOp::Prod, "cumprod", a, dim, dtype);
  if (autograd::needs_grad({a})) {
    const int64_t d = wrap_dim(dim, a.dim());
    const ScalarType in_dtype = a.dtype();
    autograd::record("CumprodBackward0", out, {a},
                     [d, in_dtype, sx = autograd::SavedTensor(a),
                      sy = autograd::SavedTensor(out, true)](const variable_list& g) {
                       Tensor x = sx.unpack(), y = sy.unpack();
                       if (g[0].dim() == 0) return variable_list{g[0].to(in_dtype)};
                       Tensor xd = x.to(y.dtype());
                       return variable_list{cumprod_backward(g[0], xd, y, d).to(in_dtype)};
                     });
  }
  return out;
}

Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumsum(*this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumprod(*this, dim, dtype);
}

}  // namespace ember
