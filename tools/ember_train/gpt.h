#pragma once
// The character-level GPT of `ember-train --model gpt`: nanoGPT's model (token and position
// embeddings, pre-norm blocks of causal self-attention and a GELU MLP, a final LayerNorm and a
// linear head), with nanoGPT's parameter names ("wte.weight", "h.0.attn.c_attn.weight", ...) so a
// checkpoint loads into the same model written with PyTorch modules.
//
// Attention calls ember::scaled_dot_product_attention with is_causal=true: the fused kernel (query
// and key blocks, online softmax, blocks above the diagonal skipped), where a stack of
// nn::TransformerEncoderLayer would take a [T, T] float mask, which the kernel must read and
// which makes it visit every block.
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "ember/nn.h"

namespace ember::train {

struct GptConfig {
  int64_t vocab_size = 0;
  int64_t block_size = 64;  // the longest context
  int64_t n_layer = 4;
  int64_t n_head = 4;
  int64_t n_embd = 128;  // the width; a multiple of n_head
  double dropout = 0.0;
};

// The defaults of the training run (nanoGPT's "baby" shakespeare_char settings, scaled so the run
// takes a few minutes on two cores).
struct GptDefaults {
  int64_t steps = 2000;
  int64_t batch_size = 32;
  double lr = 1e-3;
  int64_t eval_interval = 100;
  int64_t eval_batches = 20;
  int64_t warmup_steps = 100;
  double min_lr_fraction = 0.1;  // the cosine schedule ends at lr * this
  double weight_decay = 0.1;
  double beta2 = 0.99;
  double grad_clip = 1.0;
  int64_t sample = 500;
};
GptDefaults gpt_defaults();

// c_attn (width -> 3 x width: query, key, value), the heads through the fused attention,
// c_proj (width -> width).
class CausalSelfAttentionImpl : public nn::Module {
 public:
  explicit CausalSelfAttentionImpl(const GptConfig& config);
  // x [B, T, C] -> [B, T, C]
  Tensor forward(const Tensor& x);
  nn::Linear c_attn{nullptr}, c_proj{nullptr};

 private:
  int64_t n_head_;
  double dropout_;
};
EMBER_MODULE(CausalSelfAttention);

// c_fc (width -> 4 x width), GELU, c_proj (4 x width -> width).
class GptMlpImpl : public nn::Module {
 public:
  explicit GptMlpImpl(const GptConfig& config);
  Tensor forward(const Tensor& x);
  nn::Linear c_fc{nullptr}, c_proj{nullptr};

 private:
  double dropout_;
};
EMBER_MODULE(GptMlp);

// x + attn(ln_1(x)), then x + mlp(ln_2(x)).
class GptBlockImpl : public nn::Module {
 public:
  explicit GptBlockImpl(const GptConfig& config);
  Tensor forward(const Tensor& x);
  nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  CausalSelfAttention attn{nullptr};
  GptMlp mlp{nullptr};
};
EMBER_MODULE(GptBlock);

class GptImpl : public nn::Module {
 public:
  // Weights as nanoGPT draws them: N(0, 0.02), the residual projections (c_proj) N(0, 0.02 /
  // sqrt(2 n_layer)), biases zero, LayerNorms one and zero. Throws ember::ValueError for a width
  // that n_head does not divide or a size below 1.
  explicit GptImpl(const GptConfig& config);
  // Token ids [B, T] (T <= block_size) -> logits [B, T, vocab_size].
  Tensor forward(const Tensor& idx);
  // The mean cross-entropy of the logits of idx against the next tokens `targets` [B, T].
  Tensor loss(const Tensor& idx, const Tensor& targets);
  const GptConfig& config() const { return config_; }

  nn::Embedding wte{nullptr}, wpe{nullptr};
  nn::ModuleList h{nullptr};
  nn::LayerNorm ln_f{nullptr};
  nn::Linear lm_head{nullptr};

 private:
  GptConfig config_;
  std::vector<std::shared_ptr<GptBlockImpl>> blocks_;
};
EMBER_MODULE(Gpt);

// Throws ember::ValueError naming the values for a sampling setting out of range: temperature
// must be positive and finite, top_k (when given) at least 1.
void check_sampling(double temperature, std::optional<int64_t> top_k);

// Extends `context` (token ids, at least one) by `count` tokens, each drawn with ember::multinomial
// from the softmax of the last logits / temperature, restricted to the top_k most likely tokens
// when given; the model sees the last block_size tokens. Runs in eval mode without gradients (and
// restores the training mode). Returns the new tokens only.
std::vector<int64_t> generate(Gpt& model, const std::vector<int64_t>& context, int64_t count,
                              double temperature, std::optional<int64_t> top_k, Device device);

}  // namespace ember::train
