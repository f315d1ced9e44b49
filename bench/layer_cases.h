#pragma once
// The catalogue's layers on the shapes of the models they serve, forward + backward (issue 34's
// speed proof), and the LU-based linalg functions; written once against the libtorch API
// through the namespace alias `tt`, as op_cases.h.
#include <string>

#include "harness.h"

namespace bench {

// Forward, a sum as the loss, backward: what a training step asks of one layer.
template <typename Layer>
void time_layer(Runner& r, const std::string& name, Layer& layer, const tt::Tensor& x) {
  r.time("layers", name, Unit::kMilliseconds, 0, [&] {
    layer->zero_grad();
    tt::Tensor y = layer->forward(x);
    y.sum().backward();
  });
}

inline void layer_rows(Runner& r) {
  if (!r.wants("layers")) return;
  tt::manual_seed(0);
  {  // a DCGAN generator's middle layer: 128 -> 64 channels, 16x16 -> 32x32
    tt::nn::ConvTranspose2d up(tt::nn::ConvTranspose2dOptions(128, 64, 4).stride(2).padding(1));
    tt::Tensor x = tt::randn({16, 128, 16, 16}).requires_grad_();
    time_layer(r, "conv_transpose2d_dcgan_b16", up, x);
  }
  {  // a text CNN's convolution: 128-wide embeddings, 64 tokens, 100 filters of width 3
    tt::nn::Conv1d conv(tt::nn::Conv1dOptions(128, 100, 3));
    tt::Tensor x = tt::randn({32, 128, 64}).requires_grad_();
    time_layer(r, "conv1d_textcnn_b32", conv, x);
  }
  {  // a diffusion UNet's normalisation: 32 groups of 128 channels at 16x16
    tt::nn::GroupNorm norm(tt::nn::GroupNormOptions(32, 128));
    tt::Tensor x = tt::randn({16, 128, 16, 16}).requires_grad_();
    time_layer(r, "group_norm_unet_b16", norm, x);
  }
  {  // a GPT-2 small block's LayerNorm: 8 sequences of 128 tokens, width 768
    tt::nn::LayerNorm norm(tt::nn::LayerNormOptions({768}));
    tt::Tensor x = tt::randn({8, 128, 768}).requires_grad_();
    time_layer(r, "layer_norm_gpt_b8", norm, x);
  }
  {  // a style-transfer network's normalisation: 64 channels at 64x64
    tt::nn::InstanceNorm2d norm(tt::nn::InstanceNorm2dOptions(64).affine(true));
    tt::Tensor x = tt::randn({8, 64, 64, 64}).requires_grad_();
    time_layer(r, "instance_norm2d_style_b8", norm, x);
  }
  {  // an LSTM tagger over a packed batch: 32 sentences of 60 down to 29 tokens
    tt::nn::LSTM lstm(tt::nn::LSTMOptions(64, 128));
    tt::Tensor x = tt::randn({60, 32, 64}).requires_grad_();
    tt::Tensor len = tt::arange(60, 28, -1);  // sorted longest first, as enforce_sorted wants
    r.time("layers", "lstm_packed_b32", Unit::kMilliseconds, 0, [&] {
      lstm->zero_grad();
      auto packed = tt::nn::utils::rnn::pack_padded_sequence(x, len);
      auto out = std::get<0>(lstm->forward_with_packed_input(packed));
      out.data().sum().backward();
    });
  }
  {  // small matrices in a batch (determinants, parametrisations) and one larger solve
    tt::Tensor many = (tt::randn({256, 8, 8}) + tt::eye(8) * 3).requires_grad_();
    r.time("layers", "linalg_inv_256x8x8", Unit::kMilliseconds, 0, [&] {
      many.mutable_grad() = tt::Tensor();
      tt::linalg::inv(many).sum().backward();
    });
    r.time("layers", "linalg_det_256x8x8", Unit::kMilliseconds, 0, [&] {
      many.mutable_grad() = tt::Tensor();
      tt::linalg::det(many).sum().backward();
    });
    tt::Tensor a = tt::randn({512, 512}) + tt::eye(512) * 30, b = tt::randn({512, 64});
    r.time("layers", "linalg_solve_512", Unit::kMilliseconds, 0,
           [&] { tt::Tensor x = tt::linalg::solve(a, b, true); });
  }
}

}  // namespace bench
