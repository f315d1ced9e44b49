// The window front ends of ops/window_ops.h: im2col/col2im and max pooling on the backend's
// kernels, and the convolution's GEMM, each recording its gradient.
#include "ops/window_ops.h"

#include "autograd/record.h"
#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/ops.h"
#include "ops/index_grad.h"

namespace ember {

Tensor im2col_columns(const Tensor& x, const Window& g) {
  const int64_t N = x.size(0);
  Tensor in = x.contiguous();
  Tensor cols = make_empty({N, g.columns(), g.positions()}, x.dtype(), x.device());
  if (cols.numel() > 0) backend_for(cols).im2col(cols, in, g);
  if (autograd::needs_grad({x})) {
    autograd::record("Im2ColBackward0", cols, {x},
                     [g, sizes = DimVector(x.sizes())](const autograd::variable_list& grad) {
                       return autograd::variable_list{col2im_columns(grad[0], g).view(sizes)};
                     });
  }
  return cols;
}

Tensor col2im_columns(const Tensor& cols, const Window& g) {
  const int64_t N = cols.size(0);
  Tensor in = cols.contiguous();
  Tensor out = make_empty({N, g.channels, g.plane()}, cols.dtype(), cols.device());
  if (out.numel() > 0) backend_for(out).col2im(out, in, g);
  if (autograd::needs_grad({cols})) {
    autograd::record("Col2ImBackward0", out, {cols}, [g](const autograd::variable_list& grad) {
      return autograd::variable_list{im2col_columns(grad[0], g)};
    });
  }
  return out;
}

std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& planes, const Window& g) {
  const int64_t P = planes.size(0);
  Tensor in = planes.contiguous();
  Tensor values = make_empty({P, g.positions()}, planes.dtype(), planes.device());
  Tensor indices = make_empty({P, g.positions()}, kLong, planes.device());
  if (values.numel() > 0) backend_for(values).max_pool2d(values, indices, in, g);
  if (autograd::needs_grad({planes})) {
    // The maxima are a gather of the input at their indices: the gradient is scattered back
    // to them, by a backend kernel, or with gather's differentiable rule under create_graph.
    autograd::record("MaxPool2DWithIndicesBackward0", values, {planes},
                     [saved = autograd::SavedTensor(indices), g, P,
                      sizes = DimVector(planes.sizes())](const autograd::variable_list& grad) {
                       const Tensor idx = saved.unpack();
                       if (GradMode::is_enabled()) {
                         const Tensor flat =
                             gather_backward(grad[0].reshape({P, g.positions()}), {P, g.plane()}, 1,
                                             idx.view({P, g.positions()}));
                         return autograd::variable_list{flat.view(sizes)};
                       }
                       const Tensor go = grad[0].contiguous();
                       Tensor gin = make_empty(sizes, go.dtype(), go.device());
                       backend_for(gin).max_pool2d_backward(gin, go, idx, g);
                       return autograd::variable_list{gin};
                     });
  }
  return {values, indices};
}

// One GEMM per sample writes the NCHW output directly (as PyTorch's CPU convolution does). The
// weight gradient is the sum of one GEMM per sample.
Tensor conv_gemm(const Tensor& cols, const Tensor& weight, const Tensor& bias) {
  const int64_t N = cols.size(0), K = cols.size(1), L = cols.size(2), O = weight.size(0);
  check_same_device(cols, weight, "conv2d");
  EMBER_CHECK(cols.dtype() == weight.dtype(), TypeError, "conv2d(): Input type (",
              python_name(cols.dtype()), ") and weight type (", python_name(weight.dtype()),
              ") should be the same");
  if (bias.defined()) {
    check_same_device(cols, bias, "conv2d");
    EMBER_CHECK(bias.dtype() == weight.dtype(), TypeError, "conv2d(): Input type (",
                python_name(cols.dtype()), ") and bias type (", python_name(bias.dtype()),
                ") should be the same");
  }
  Tensor out = make_empty({N, O, L}, cols.dtype(), cols.device());
  Backend& be = backend_for(out);
  double beta = 0.0;
  if (bias.defined()) {  // out starts as the bias broadcast over samples and positions
    be.copy(out, make_view(bias, {N, O, L}, {0, bias.stride(0), 0}, bias.storage_offset()), false);
    beta = 1.0;
  }
  be.gemm(out, weight.detach().reshape({1, O, K}), cols.detach(), 1.0, beta);
  if (autograd::needs_grad({cols, weight, bias})) {
    const bool grad_cols = autograd::requires_grad_fast(cols);
    const bool grad_weight = autograd::requires_grad_fast(weight);
    autograd::record(
        "ConvolutionBackward0", out, {cols, weight, bias},
        [scols = grad_weight ? autograd::SavedTensor(cols) : autograd::SavedTensor(),
         sweight = grad_cols ? autograd::SavedTensor(weight) : autograd::SavedTensor(),
         wsizes = DimVector(weight.sizes()), grad_bias = bias.defined(), N, K,
         O](const autograd::variable_list& g) {
          Tensor gcols, gweight, gbias;
          if (sweight.defined()) {  // [N, K, L] = weight^T [K, O] @ g[n] [O, L]
            gcols =
                bmm(sweight.unpack().reshape({1, O, K}).transpose(1, 2).expand({N, K, O}), g[0]);
          }
          if (scols.defined()) {
            const Tensor c = scols.unpack();
            if (GradMode::is_enabled()) {  // create_graph: differentiable ops
              gweight = bmm(g[0], c.transpose(1, 2)).sum({0});
            } else {  // the backend's summed GEMM: no [N, O, K] temporary
              gweight = make_empty({1, O, K}, c.dtype(), c.device());
              backend_for(gweight).gemm(gweight, g[0], c.transpose(1, 2), 1.0, 0.0);
            }
            gweight = gweight.reshape(wsizes);
          }
          if (grad_bias) gbias = g[0].sum({0, 2});
          return autograd::variable_list{gcols, gweight, gbias};
        });
  }
  return out;
}

Tensor grouped_conv_gemm(const Tensor& cols, const Tensor& weight, const Tensor& bias,
                         int64_t groups) {
  if (groups == 1) return conv_gemm(cols, weight, bias);
  const int64_t Kg = cols.size(1) / groups, Og = weight.size(0) / groups;
  std::vector<Tensor> outs;
  outs.reserve(static_cast<size_t>(groups));
  for (int64_t gi = 0; gi < groups; ++gi) {
    outs.push_back(conv_gemm(cols.narrow(1, gi * Kg, Kg), weight.narrow(0, gi * Og, Og),
                             bias.defined() ? bias.narrow(0, gi * Og, Og) : Tensor()));
  }
  return cat(outs, 1);
}

bool has_direct_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Window& g, int64_t groups) {
  if (input.numel() == 0 || weight.numel() == 0 || !input.is_floating_point()) return false;
  if (weight.dtype() != input.dtype() || weight.device() != input.device()) return false;
  if (bias.defined() && (bias.dtype() != input.dtype() || bias.device() != input.device())) {
    return false;  // the composed path raises the error that names the mismatch
  }
  return backend_for(input).has_convolution(input, g, groups);
}

namespace {

// The gradients a create_graph backward asks of a direct convolution: those of `composite`, the
// same function of (x, w, b) composed of differentiable ops, so that they have a graph of their
// own (double backward).
autograd::variable_list composite_grads(const ConvComposite& composite, const Tensor& x,
                                        const Tensor& w, const Tensor& b, const Tensor& grad,
                                        bool want_in, bool want_weight, bool want_bias) {
  autograd::variable_list wanted;
  if (want_in) wanted.push_back(x);
  if (want_weight) wanted.push_back(w);
  if (want_bias) wanted.push_back(b);
  const autograd::variable_list got =
      autograd::grad({composite(x, w, b)}, wanted, {grad}, true, true, true);
  size_t i = 0;
  const Tensor gin = want_in ? got[i++] : Tensor();
  const Tensor gweight = want_weight ? got[i++] : Tensor();
  const Tensor gbias = want_bias ? got[i++] : Tensor();
  return {gin, gweight, gbias};
}

// [N, channels, (D,) H, W]: the shape of g's input for a batch of n.
DimVector window_input_sizes(const Window& g, int64_t n, int64_t dims) {
  DimVector sizes{n, g.channels};
  if (dims == 5) sizes.push_back(g.depth);
  sizes.push_back(g.height);
  sizes.push_back(g.width);
  return sizes;
}

}  // namespace

namespace {

// The backward of a direct convolution or its transpose: under create_graph the composite's
// gradients, else `direct`, the backend's kernels, given the saved (contiguous) input and weight
// and the contiguous output gradient.
using DirectGrads =
    std::function<autograd::variable_list(const Tensor& x, const Tensor& w, const Tensor& grad_out,
                                          bool want_in, bool want_weight, bool want_bias)>;
void record_direct(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const Tensor& in, const Tensor& w, ConvComposite composite, DirectGrads direct) {
  if (!autograd::needs_grad({input, weight, bias})) return;
  const bool want_in = autograd::requires_grad_fast(input);
  const bool want_weight = autograd::requires_grad_fast(weight);
  const bool want_bias = autograd::requires_grad_fast(bias);
  autograd::record("ConvolutionBackward0", out, {input, weight, bias},
                   [sin = autograd::SavedTensor(in), sweight = autograd::SavedTensor(w),
                    sbias = autograd::SavedTensor(bias), want_in, want_weight, want_bias,
                    composite = std::move(composite),
                    direct = std::move(direct)](const autograd::variable_list& grad) {
                     const Tensor x = sin.unpack(), wt = sweight.unpack();
                     if (GradMode::is_enabled()) {
                       return composite_grads(composite, x, wt,
                                              sbias.defined() ? sbias.unpack() : Tensor(), grad[0],
                                              want_in, want_weight, want_bias);
                     }
                     return direct(x, wt, grad[0].contiguous(), want_in, want_weight, want_bias);
                   });
}

}  // namespace

Tensor direct_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const Window& g, int64_t groups, ConvComposite composite) {
  const Tensor in = input.contiguous(), w = weight.contiguous();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  DimVector sizes{in.size(0), w.size(0)};
  if (in.dim() == 5) sizes.push_back(g.out_d);
  sizes.push_back(g.out_h);
  sizes.push_back(g.out_w);
  Tensor out = make_empty(sizes, in.dtype(), in.device());
  backend_for(out).convolution(out, in, w, b, g, groups);
  record_direct(out, input, weight, bias, in, w, std::move(composite),
                [g, groups](const Tensor& x, const Tensor& wt, const Tensor& go, bool want_in,
                            bool want_weight, bool want_bias) {
                  Tensor gin, gweight, gbias;
                  if (want_in) gin = make_empty(x.sizes(), x.dtype(), x.device());
                  if (want_weight) gweight = make_empty(wt.sizes(), wt.dtype(), wt.device());
                  if (want_bias) gbias = make_empty({wt.size(0)}, wt.dtype(), wt.device());
                  backend_for(go).convolution_backward(gin, gweight, gbias, go, x, wt, g, groups);
                  return autograd::variable_list{gin, gweight, gbias};
                });
  return out;
}

Tensor direct_conv_transpose(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             const Window& g, int64_t groups, ConvComposite composite) {
  const Tensor in = input.contiguous(), w = weight.contiguous();
  Tensor out = make_empty(window_input_sizes(g, in.size(0), in.dim()), in.dtype(), in.device());
  // The transposed convolution is the convolution's backward-data with `input` as the gradient
  // of g's output. The backward kernel reads only the shape of its `in` argument when no weight
  // gradient is asked for, so the output itself stands in for it.
  backend_for(out).convolution_backward(out, Tensor(), Tensor(), in, out, w, g, groups);
  if (bias.defined()) {
    NoGradGuard no_grad;
    DimVector bias_shape(static_cast<size_t>(out.dim()), 1);
    bias_shape[1] = bias.size(0);
    out.add_(bias.view(bias_shape));
  }
  // The adjoint's gradients: the input's is the convolution of the output's gradient, the
  // weight's the convolution's weight gradient with the roles of input and output gradient
  // swapped, the bias's the output gradient summed over all but the channels.
  record_direct(out, input, weight, bias, in, w, std::move(composite),
                [g, groups](const Tensor& x, const Tensor& wt, const Tensor& go, bool want_in,
                            bool want_weight, bool want_bias) {
                  Backend& be = backend_for(go);
                  Tensor gin, gweight, gbias;
                  if (want_in) {
                    gin = make_empty(x.sizes(), x.dtype(), x.device());
                    be.convolution(gin, go, wt, Tensor(), g, groups);
                  }
                  if (want_weight) {
                    gweight = make_empty(wt.sizes(), wt.dtype(), wt.device());
                    be.convolution_backward(Tensor(), gweight, Tensor(), x, go, wt, g, groups);
                  }
                  if (want_bias) {
                    DimVector dims{0};
                    for (int64_t d = 2; d < go.dim(); ++d) dims.push_back(d);
                    gbias = go.sum(dims);
                  }
                  return autograd::variable_list{gin, gweight, gbias};
                });
  return out;
}

}  // namespace ember
