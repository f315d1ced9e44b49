#pragma once
// Options of MultiheadAttention, the Transformer layers and stacks, and
// F::multi_head_attention_forward: libtorch 1.13's structs (names, constructors, defaults), plus
// the options PyTorch added later that libtorch lacks (batch_first, norm_first, layer_norm_eps, an
// activation given by name).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "ember/nn/arg.h"
#include "ember/nn/enum.h"
#include "ember/tensor.h"

namespace ember {

namespace enumtype {
// libtorch's torch::kGELU, the second activation tag of activation_t.
struct kGELU {
  static constexpr const char* name() { return "gelu"; }
};
}  // namespace enumtype
constexpr enumtype::kGELU kGELU{};

namespace nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, add_bias_kv) = false;
  EMBER_ARG(bool, add_zero_attn) = false;
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
  // PyTorch's batch_first (not in libtorch 1.13): batched inputs and the output are
  // [batch, seq, feature] instead of [seq, batch, feature].
  EMBER_ARG(bool, batch_first) = false;
};

// The feed-forward activation: libtorch's kReLU / kGELU / a function. PyTorch's names "relu" and
// "gelu" convert to the tags (a C++ string literal too, as an extension).
struct EMBER_API activation_t
    : std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>> {
  using base = std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;
  using base::base;
  activation_t(const std::string& name);  // NOLINT: implicit, "relu" or "gelu"
  activation_t(const char* name) : activation_t(std::string(name)) {}  // NOLINT
  activation_t(Tensor (*fn)(const Tensor&))                            // NOLINT: a plain function
      : base(std::function<Tensor(const Tensor&)>(fn)) {}
};

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)  // NOLINT: implicit in libtorch
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = kReLU;
  // PyTorch's later options (not in libtorch 1.13).
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
};

struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = kReLU;
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
};

namespace functional {

// libtorch 1.13's options of F::multi_head_attention_forward (PyTorch 1.13's arguments).
struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads,
                                       Tensor in_proj_weight, Tensor in_proj_bias, Tensor bias_k,
                                       Tensor bias_v, bool add_zero_attn, double dropout_p,
                                       Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  EMBER_ARG(Tensor, attn_mask) = {};
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;
};

}  // namespace functional
}  // namespace nn
}  // namespace ember
