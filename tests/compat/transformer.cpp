// MultiheadAttention and the Transformer modules as a libtorch 1.13 program writes them: options,
// forward with every mask kind, need_weights, gradients, parameter names, the causal mask and the
// printouts.
// compat-compare: rtol=1e-5 atol=1e-6
#include <torch/torch.h>

#include "compat_report.h"

int main() {
  namespace nn = torch::nn;

  // MultiheadAttention: self-attention with a causal mask and key padding, cross-attention with
  // kdim = vdim and bias_kv (libtorch 1.13's C++ wants key and value of one shape).
  auto mha = nn::MultiheadAttention(nn::MultiheadAttentionOptions(8, 2));
  fill_deterministic(*mha);
  auto x = torch::sin(torch::arange(4 * 2 * 8, torch::kFloat) * 0.3).reshape({4, 2, 8});
  x.requires_grad_();
  // A float mask: libtorch 1.13's C++ adds a bool attn_mask as 0/1, where PyTorch's Python (and
  // Ember) mask the true positions out.
  auto causal = torch::nn::TransformerImpl::generate_square_subsequent_mask(4);
  auto kpm = torch::zeros({2, 4}, torch::kBool);
  kpm.index_put_({1, 3}, true);
  auto out = mha->forward(x, x, x, kpm, true, causal);
  report("mha_out", std::get<0>(out));
  report("mha_weights", std::get<1>(out));
  (std::get<0>(out).sum() + std::get<1>(out).pow(2).sum()).backward();
  report("mha_grad_x", x.grad());
  report("mha_grad_in_proj", mha->in_proj_weight.grad());
  auto per_head = mha->forward(x, x, x, {}, true, {}, /*average_attn_weights=*/false);
  report("mha_per_head", std::get<1>(per_head));
  auto no_weights = mha->forward(x, x, x, {}, false);
  report("mha_no_weights_defined", std::get<1>(no_weights).defined() ? 1.0 : 0.0);
  report("mha_no_weights_out", std::get<0>(no_weights));

  auto cross = nn::MultiheadAttention(
      nn::MultiheadAttentionOptions(8, 4).kdim(6).vdim(6).add_bias_kv(true).add_zero_attn(true));
  fill_deterministic(*cross, 0.5);
  for (const auto& p : cross->named_parameters())
    report("cross_param_" + p.key(), p.value().numel());
  auto k = torch::cos(torch::arange(3 * 2 * 6, torch::kFloat) * 0.2).reshape({3, 2, 6});
  auto v = torch::sin(torch::arange(3 * 2 * 6, torch::kFloat) * 0.4).reshape({3, 2, 6});
  auto fmask = torch::sin(torch::arange(4 * 3, torch::kFloat)).reshape({4, 3});
  report("cross_out", std::get<0>(cross->forward(x, k, v, {}, true, fmask)));

  // The encoder layer (post-norm, ReLU and GELU), the stack with a final norm, the decoder and the
  // whole Transformer, without dropout.
  auto layer = nn::TransformerEncoderLayer(
      nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0));
  fill_deterministic(*layer, 1.0);
  auto src_mask = nn::TransformerImpl::generate_square_subsequent_mask(4);
  report("square_mask_is_inf", src_mask.isinf());  // -inf above the diagonal, 0 below
  auto y = layer->forward(x, src_mask, kpm);
  report("encoder_layer", y);
  y.pow(2).sum().backward();
  report("encoder_layer_grad_linear1", layer->linear1->weight.grad());
  auto gelu_layer = nn::TransformerEncoderLayer(
      nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0).activation(
          torch::kGELU));
  fill_deterministic(*gelu_layer, 1.5);
  report("encoder_layer_gelu", gelu_layer->forward(x));

  auto encoder = nn::TransformerEncoder(
      nn::TransformerEncoderOptions(
          nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0), 2)
          .norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({8})))));
  fill_deterministic(*encoder, 2.0);
  report("encoder", encoder->forward(x, src_mask));

  auto decoder = nn::TransformerDecoder(nn::TransformerDecoderOptions(
      nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0), 2));
  fill_deterministic(*decoder, 2.5);
  auto tgt = torch::cos(torch::arange(3 * 2 * 8, torch::kFloat) * 0.25).reshape({3, 2, 8});
  report("decoder",
         decoder->forward(tgt, x, nn::TransformerImpl::generate_square_subsequent_mask(3)));

  auto transformer =
      nn::Transformer(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16).dropout(0.0));
  fill_deterministic(*transformer, 3.0);
  auto t_out =
      transformer->forward(x, tgt, {}, nn::TransformerImpl::generate_square_subsequent_mask(3));
  report("transformer", t_out);
  int64_t count = 0;
  for (const auto& p : transformer->named_parameters()) {
    std::cout << p.key() << "\n";
    count += p.value().numel();
  }
  report("transformer_numel", static_cast<double>(count));

  std::cout << *mha << "\n" << *layer << "\n";
  std::cout << *nn::TransformerDecoderLayer(nn::TransformerDecoderLayerOptions(8, 2)) << "\n";
  return 0;
}
