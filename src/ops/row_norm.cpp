// normalize_rows (ops/row_norm.h): the fused normalisation of layer_norm, group_norm and
// instance_norm. The forward and the first backward are the row_norm families' kernels; a
// backward that builds a graph (create_graph) is the same formula written with ember ops, so
// second derivatives work as with PyTorch's.
#include "ops/row_norm.h"

#include <vector>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"

namespace ember::detail {
namespace {

bool is_16_bit(const Tensor& t) {
  return t.dtype() == kHalf || t.dtype() == kBFloat16;
}

// The gradients as ember ops (differentiable again), on the [rows / groups, groups, weights per
// group, inner] view of the input where each weight element is one (group, weight) pair.
autograd::variable_list differentiable_backward(const Tensor& dy, const Tensor& x,
                                                const Tensor& weight,
                                                const std::vector<int64_t>* bias_sizes,
                                                const RowNormGeometry& g) {
  const std::vector<int64_t> view{g.groups == 0 ? 0 : g.rows / g.groups, g.groups,
                                  g.weights_per_group, g.inner()};
  const Tensor x4 = x.reshape(view), dy4 = dy.reshape(view);
  const DimVector row_dims{2, 3};
  const Tensor mean = x4.mean(row_dims, true);
  const Tensor rstd = rsqrt(x4.var(row_dims, false, true) + g.eps);
  const Tensor xhat = (x4 - mean) * rstd;
  const Tensor gg =
      weight.defined() ? dy4 * weight.reshape({1, g.groups, g.weights_per_group, 1}) : dy4;
  const Tensor dx = rstd * (gg - gg.mean(row_dims, true) - xhat * (gg * xhat).mean(row_dims, true));
  const DimVector weight_dims{0, 3};
  return {dx.reshape(x.sizes()),
          weight.defined() ? (dy4 * xhat).sum(weight_dims).reshape(weight.sizes()) : Tensor(),
          bias_sizes ? dy4.sum(weight_dims).reshape(*bias_sizes) : Tensor()};
}

}  // namespace

RowNormResult normalize_rows(const char* op, const char* node_name, const Tensor& input,
                             const RowNormGeometry& g, const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(is_floating_point(input.scalar_type()), TypeError, op,
              "(): expected a floating-point input, got ", input.scalar_type());
  for (const Tensor* t : {&weight, &bias}) {
    if (!t->defined()) continue;
    check_same_device(input, *t, op);
    EMBER_CHECK(t->numel() == g.weight_count(), ValueError, op, "(): expected weight and bias of ",
                g.weight_count(), " elements, got shape ", t->sizes());
  }
  if (is_16_bit(input)) {  // in float32, rounded once, as PyTorch's kernels
    auto as_float = [](const Tensor& t) { return t.defined() ? t.to(kFloat) : t; };
    RowNormResult r =
        normalize_rows(op, node_name, input.to(kFloat), g, as_float(weight), as_float(bias));
    r.out = r.out.to(input.scalar_type());
    return r;
  }
  // Weights of another dtype (a float64 model fed float32) follow the input, as autocast would.
  auto like_input = [&](const Tensor& t) {
    if (!t.defined()) return t;
    return (t.scalar_type() != input.scalar_type() ? t.to(input.scalar_type()) : t).contiguous();
  };
  const Tensor x = input.contiguous(), w = like_input(weight), b = like_input(bias);
  RowNormResult r{make_empty(input.sizes(), input.scalar_type(), input.device()),
                  make_empty({g.rows}, input.scalar_type(), input.device()),
                  make_empty({g.rows}, input.scalar_type(), input.device())};
  backend_for(x).row_norm(r.out, r.mean, r.rstd, x, w, b, g);
  if (autograd::needs_grad({x, w, b})) {
    const bool want_x = autograd::requires_grad_fast(x), want_w = autograd::requires_grad_fast(w),
               want_b = autograd::requires_grad_fast(b);
    std::vector<int64_t> b_sizes;
    if (b.defined()) b_sizes.assign(b.sizes().begin(), b.sizes().end());
    autograd::record(
        node_name, r.out, {x, w, b},
        [sx = autograd::SavedTensor(x), sw = autograd::SavedTensor(w), mean = r.mean, rstd = r.rstd,
         has_b = b.defined(), b_sizes = std::move(b_sizes), g, want_x, want_w,
         want_b](const autograd::variable_list& grads) -> autograd::variable_list {
          if (!grads[0].defined()) return {Tensor(), Tensor(), Tensor()};
          const Tensor x = sx.unpack();
          const Tensor w = sw.defined() ? sw.unpack() : Tensor();
          if (GradMode::is_enabled()) {
            return differentiable_backward(grads[0], x, w, has_b ? &b_sizes : nullptr, g);
          }
          const Tensor dy = grads[0].contiguous();
          auto grad_of = [&](bool wanted, IntArrayRef sizes) {
            return wanted ? make_empty(sizes, x.scalar_type(), x.device()) : Tensor();
          };
          autograd::variable_list out{grad_of(want_x, x.sizes()),
                                      grad_of(want_w, w.defined() ? w.sizes() : IntArrayRef()),
                                      grad_of(want_b, b_sizes)};
          backend_for(dy).row_norm_backward(out[0], out[1], out[2], dy, x, mean, rstd, w, g);
          return out;
        });
  }
  return r;
}

}  // namespace ember::detail
