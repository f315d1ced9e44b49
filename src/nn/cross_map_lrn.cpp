// CrossMapLRN2d: PyTorch's legacy cross-channel normalisation, reproduced with its quirks so that
// outputs and gradients match. Each output channel c divides by (k + alpha / size * s_c)^beta,
// s_c summing x^2 over the channels PyTorch's running-sum loop leaves in c's window (channel 0 is
// never taken out of it); the backward is PyTorch's hand-written one, whose window differs from
// the forward's, so it is recorded by hand. Both windows are 0/1 matrices over the channels,
// applied with one matmul, so every device runs it.
#include <algorithm>
#include <vector>

#include "autograd/record.h"
#include "ember/nn/modules/cross_map_lrn.h"
#include "ember/ops.h"

namespace ember::nn {
namespace {

// [C, C] of `dtype` on `device` from row-major host values.
Tensor channel_matrix(std::vector<double> values, int64_t C, const Tensor& like) {
  return from_blob(values.data(), {C, C}, kDouble)
      .to(like.device(), like.scalar_type(), false,
          /*copy=*/true);
}

// The forward window: PyTorch's loop starts channel 0 at channels [0, pre_pad) and then, per
// channel, adds the channel pre_pad - 1 ahead and (past pre_pad) drops the one pre_pad behind.
std::vector<double> forward_window(int64_t C, int64_t size) {
  const int64_t pre_pad = static_cast<int64_t>((size - 1) / 2.0 + 1);
  std::vector<double> w(C * C, 0.0);
  for (int64_t j = 0; j < std::min(pre_pad, C); ++j) w[j] = 1;
  for (int64_t c = 1; c < C; ++c) {
    std::copy(w.begin() + (c - 1) * C, w.begin() + c * C, w.begin() + c * C);
    if (c < C - pre_pad + 1) w[c * C + c + pre_pad - 1] += 1;
    if (c > pre_pad) w[c * C + c - pre_pad] -= 1;
  }
  return w;
}

// The backward window: channel c accumulates channels [c - p, c + size - 1 - p] with PyTorch's
// p = int(size - (size - 1) / 2).
std::vector<double> backward_window(int64_t C, int64_t size) {
  const int64_t p = static_cast<int64_t>(size - (size - 1) / 2.0);
  std::vector<double> w(C * C, 0.0);
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t j = std::max<int64_t>(c - p, 0); j <= std::min(c + size - 1 - p, C - 1); ++j) {
      w[c * C + j] = 1;
    }
  }
  return w;
}

// x [N, C, H, W] mixed over its channels by m [C, C]: out[:, c] = sum_j m[c, j] x[:, j].
Tensor mix_channels(const Tensor& x, const Tensor& m) {
  return matmul(x.permute({0, 2, 3, 1}), m.t()).permute({0, 3, 1, 2});
}

}  // namespace

namespace functional {

Tensor cross_map_lrn2d(const Tensor& input, const CrossMapLRN2dOptions& options) {
  EMBER_CHECK(input.dim() == 4, ValueError, "CrossMapLRN2d: Expected input to be 4D, got ",
              input.dim(), "D instead.");
  EMBER_CHECK(input.is_floating_point(), TypeError,
              "CrossMapLRN2d: expected a floating input, got ", to_string(input.dtype()));
  const int64_t C = input.size(1), size = options.size();
  EMBER_CHECK(size >= 2, ValueError, "CrossMapLRN2d: size must be at least 2, got ", size,
              " (PyTorch's backward cannot take 1)");
  const double alpha = options.alpha(), beta = options.beta(), k = options.k();
  Tensor x = input.detach();
  Tensor scale, out;
  {
    NoGradGuard no_grad;
    Tensor window = channel_matrix(forward_window(C, size), C, x);
    scale = mix_channels(x * x, window) * (alpha / size) + k;
    out = x * scale.pow(-beta);
  }
  if (autograd::needs_grad({input})) {
    autograd::record("CrossMapLRN2dBackward", out, {input},
                     [x, scale, out, C, size, alpha, beta](const autograd::variable_list& g) {
                       NoGradGuard no_grad;
                       Tensor window = channel_matrix(backward_window(C, size), C, x);
                       Tensor ratio = g[0] * out / scale;
                       Tensor accum = mix_channels(ratio, window);
                       Tensor grad =
                           scale.pow(-beta) * g[0] - x * accum * (2 * alpha * beta / size);
                       return autograd::variable_list{grad};
                     });
  }
  return out;
}

}  // namespace functional

Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  return functional::cross_map_lrn2d(input, options);
}

void CrossMapLRN2dImpl::pretty_print(std::ostream& stream) const {
  // libtorch's printout leaves boolalpha set.
  stream << std::boolalpha << "ember::nn::CrossMapLRN2d(" << options.size()
         << ", alpha=" << options.alpha() << ", beta=" << options.beta() << ", k=" << options.k()
         << ")";
}

}  // namespace ember::nn
