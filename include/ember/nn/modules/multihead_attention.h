#pragma once
// MultiheadAttention: libtorch 1.13's module, with PyTorch's batch_first. Its forward is
// F::multi_head_attention_forward (ember/nn/functional.h), the one implementation the module and
// the Transformer layers call.
#include <tuple>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/options/transformer.h"
#include "ember/nn/pimpl.h"

namespace ember {
namespace nn {
class EMBER_API MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options_);

  // query/key/value [L|S, N, E] ([N, L|S, E] with batch_first) or unbatched [L|S, E];
  // key_padding_mask [N, S] (true or -inf: ignore that key); attn_mask [L, S] or
  // [N * num_heads, L, S] (bool true: not allowed, or float added to the scores). Returns the
  // output and the weights ([N, L, S], or [N, num_heads, L, S] without average_attn_weights;
  // undefined without need_weights).
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {},
                                     bool average_attn_weights = true);

  void reset() override;
  // PyTorch's initialisation: xavier_uniform_ on the input projection, zero biases, xavier_normal_
  // on bias_k and bias_v.
  void _reset_parameters();

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Tensor in_proj_weight;  // [3 * embed_dim, embed_dim] when kdim == vdim == embed_dim
  Tensor in_proj_bias;    // [3 * embed_dim], with bias
  Tensor bias_k, bias_v;  // [1, 1, embed_dim], with add_bias_kv
  Linear out_proj = nullptr;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;  // when kdim or vdim differ from embed_dim
  int64_t head_dim = 0;
};
EMBER_MODULE(MultiheadAttention);

}  // namespace nn
}  // namespace ember
