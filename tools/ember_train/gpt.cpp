#include "ember_train/gpt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ember/ember.h"
#include "ember/error.h"
#include "ember/nn/attention.h"

namespace ember::train {

GptDefaults gpt_defaults() {
  return {};
}

CausalSelfAttentionImpl::CausalSelfAttentionImpl(const GptConfig& config)
    : n_head_(config.n_head), dropout_(config.dropout) {
  c_attn = register_module("c_attn", nn::Linear(config.n_embd, 3 * config.n_embd));
  c_proj = register_module("c_proj", nn::Linear(config.n_embd, config.n_embd));
}

Tensor CausalSelfAttentionImpl::forward(const Tensor& x) {
  const int64_t b = x.size(0), t = x.size(1), c = x.size(2), hs = c / n_head_;
  // [B, T, 3C] -> query, key and value [B, H, T, hs].
  const std::vector<Tensor> qkv = c_attn->forward(x).split(c, 2);
  auto heads = [&](const Tensor& a) { return a.reshape({b, t, n_head_, hs}).transpose(1, 2); };
  const double p = is_training() ? dropout_ : 0.0;
  Tensor y = scaled_dot_product_attention(heads(qkv[0]), heads(qkv[1]), heads(qkv[2]), {}, p,
                                          /*is_causal=*/true);
  y = c_proj->forward(y.transpose(1, 2).reshape({b, t, c}));
  return p > 0 ? ember::dropout(y, p, true) : y;
}

GptMlpImpl::GptMlpImpl(const GptConfig& config) : dropout_(config.dropout) {
  c_fc = register_module("c_fc", nn::Linear(config.n_embd, 4 * config.n_embd));
  c_proj = register_module("c_proj", nn::Linear(4 * config.n_embd, config.n_embd));
}

Tensor GptMlpImpl::forward(const Tensor& x) {
  Tensor y = c_proj->forward(ember::gelu(c_fc->forward(x)));
  return is_training() && dropout_ > 0 ? ember::dropout(y, dropout_, true) : y;
}

GptBlockImpl::GptBlockImpl(const GptConfig& config) {
  ln_1 = register_module("ln_1", nn::LayerNorm(nn::LayerNormOptions({config.n_embd})));
  attn = register_module("attn", CausalSelfAttention(config));
  ln_2 = register_module("ln_2", nn::LayerNorm(nn::LayerNormOptions({config.n_embd})));
  mlp = register_module("mlp", GptMlp(config));
}

Tensor GptBlockImpl::forward(const Tensor& x) {
  Tensor y = x + attn->forward(ln_1->forward(x));
  return y + mlp->forward(ln_2->forward(y));
}

GptImpl::GptImpl(const GptConfig& config) : config_(config) {
  EMBER_CHECK(config.vocab_size >= 1 && config.block_size >= 1 && config.n_layer >= 1 &&
                  config.n_head >= 1 && config.n_embd >= 1,
              ValueError, "GPT sizes must be at least 1: vocab_size ", config.vocab_size,
              ", block_size ", config.block_size, ", n_layer ", config.n_layer, ", n_head ",
              config.n_head, ", n_embd ", config.n_embd);
  EMBER_CHECK(config.n_embd % config.n_head == 0, ValueError, "the width (--width) ", config.n_embd,
              " is not divisible by the number of heads (--heads) ", config.n_head);
  EMBER_CHECK(config.dropout >= 0 && config.dropout < 1, ValueError,
              "dropout probability has to be in [0, 1), but got ", config.dropout);
  wte = register_module("wte", nn::Embedding(config.vocab_size, config.n_embd));
  wpe = register_module("wpe", nn::Embedding(config.block_size, config.n_embd));
  h = register_module("h", nn::ModuleList());
  for (int64_t i = 0; i < config.n_layer; ++i) {
    auto block = std::make_shared<GptBlockImpl>(config);
    h->push_back(block);
    blocks_.push_back(block);
  }
  ln_f = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({config.n_embd})));
  lm_head = register_module(
      "lm_head", nn::Linear(nn::LinearOptions(config.n_embd, config.vocab_size).bias(false)));

  NoGradGuard no_grad;
  const double residual_std = 0.02 / std::sqrt(2.0 * static_cast<double>(config.n_layer));
  for (const auto& item : named_parameters()) {
    const std::string& name = item.key();
    const Tensor& p = item.value();
    const bool is_bias = name.size() >= 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
    if (name.find("ln_") != std::string::npos) {
      is_bias ? p.zero_() : p.fill_(1.0);
    } else if (is_bias) {
      p.zero_();
    } else {
      const bool residual = name.find("c_proj.weight") != std::string::npos;
      p.normal_(0.0, residual ? residual_std : 0.02);
    }
  }
}

Tensor GptImpl::forward(const Tensor& idx) {
  EMBER_CHECK(idx.dim() == 2, ValueError, "GPT: expected token ids [batch, time], got ", idx.dim(),
              " dims");
  const int64_t t = idx.size(1);
  EMBER_CHECK(t >= 1 && t <= config_.block_size, ValueError, "GPT: a sequence of ", t,
              " tokens, but the block size is ", config_.block_size);
  const Tensor pos = arange(t, TensorOptions().dtype(kLong).device(idx.device()));
  Tensor x = wte->forward(idx) + wpe->forward(pos);
  if (is_training() && config_.dropout > 0) x = ember::dropout(x, config_.dropout, true);
  for (const auto& block : blocks_) x = block->forward(x);
  return lm_head->forward(ln_f->forward(x));
}

Tensor GptImpl::loss(const Tensor& idx, const Tensor& targets) {
  const Tensor logits = forward(idx);
  return nn::functional::cross_entropy(logits.reshape({-1, config_.vocab_size}),
                                       targets.reshape({-1}));
}

void check_sampling(double temperature, std::optional<int64_t> top_k) {
  EMBER_CHECK(std::isfinite(temperature) && temperature > 0, ValueError,
              "--temperature must be a positive finite number, got ", temperature);
  EMBER_CHECK(!top_k || *top_k >= 1, ValueError, "--top-k must be at least 1, got ",
              top_k.value_or(0));
}

std::vector<int64_t> generate(Gpt& model, const std::vector<int64_t>& context, int64_t count,
                              double temperature, std::optional<int64_t> top_k, Device device) {
  check_sampling(temperature, top_k);
  EMBER_CHECK(!context.empty(), ValueError, "generate: the context must have a token");
  NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const int64_t block = model->config().block_size, vocab = model->config().vocab_size;
  std::vector<int64_t> ids = context, out;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t t = std::min<int64_t>(block, static_cast<int64_t>(ids.size()));
    Tensor idx = empty({1, t}, kLong);
    std::copy(ids.end() - t, ids.end(), idx.data_ptr<int64_t>());
    Tensor logits = model->forward(idx.to(device)).select(1, t - 1).to(kFloat) / temperature;
    if (top_k && *top_k < vocab) {
      const Tensor kth = std::get<0>(logits.topk(*top_k, -1)).narrow(1, *top_k - 1, 1);
      logits = logits.masked_fill(logits < kth, -std::numeric_limits<double>::infinity());
    }
    const Tensor probs = ember::softmax(logits, -1);
    const int64_t next = multinomial(probs, 1).item<int64_t>();
    ids.push_back(next);
    out.push_back(next);
  }
  model->train(was_training);
  return out;
}

}  // namespace ember::train
