// F::multi_head_attention_forward (PyTorch 1.13's F.multi_head_attention_forward, composed from
// differentiable ops) and the MultiheadAttention module that calls it. Nothing here reads tensor
// contents on the host: the packed projection's shortcuts compare tensor identities, not values.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "ember/nn/attention.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/multihead_attention.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"

namespace ember::nn {
namespace functional {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// PyTorch's tuple text of a shape: "(2, 3)".
std::string tuple_str(std::initializer_list<int64_t> dims) {
  std::string s = "(";
  size_t i = 0;
  for (int64_t d : dims) s += (i++ ? ", " : "") + std::to_string(d);
  return s + ")";
}

bool same_shape(const Tensor& t, std::initializer_list<int64_t> dims) {
  if (t.dim() != static_cast<int64_t>(dims.size())) return false;
  int64_t i = 0;
  for (int64_t d : dims) {
    if (t.size(i++) != d) return false;
  }
  return true;
}

void check_mask_dtype(const Tensor& key_padding_mask) {
  EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dtype() == kBool ||
                  key_padding_mask.is_floating_point(),
              ValueError, "only bool and floating types of key_padding_mask are supported");
}

// _mha_shape_check: whether the input is batched, with PyTorch's texts for the bad shapes.
bool mha_shape_check(const Tensor& query, const Tensor& key, const Tensor& value,
                     const Tensor& key_padding_mask, const Tensor& attn_mask, int64_t num_heads) {
  if (query.dim() == 3) {
    EMBER_CHECK(key.dim() == 3 && value.dim() == 3, ValueError,
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ",
                key.dim(), "-D and ", value.dim(), "-D tensors respectively");
    EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 2, ValueError,
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                "found ",
                key_padding_mask.dim(), "-D tensor instead");
    EMBER_CHECK(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3, ValueError,
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                "found ",
                attn_mask.dim(), "-D tensor instead");
    return true;
  }
  EMBER_CHECK(query.dim() == 2, ValueError,
              "query should be unbatched 2D or batched 3D tensor but received ", query.dim(),
              "-D query tensor");
  EMBER_CHECK(key.dim() == 2 && value.dim() == 2, ValueError,
              "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ",
              key.dim(), "-D and ", value.dim(), "-D tensors respectively");
  EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 1, ValueError,
              "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
              "found ",
              key_padding_mask.dim(), "-D tensor instead");
  if (attn_mask.defined()) {
    EMBER_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3, ValueError,
                "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                "found ",
                attn_mask.dim(), "-D tensor instead");
    if (attn_mask.dim() == 3) {
      EMBER_CHECK(same_shape(attn_mask, {num_heads, query.size(0), key.size(0)}), ValueError,
                  "Expected `attn_mask` shape to be ",
                  tuple_str({num_heads, query.size(0), key.size(0)}), " but got ",
                  attn_mask.sizes());
    }
  }
  return false;
}

// [0, 1) padding of the last dim: one more key position, masked or not as the mask says (zero).
Tensor pad_last(const Tensor& mask) {
  return mask.defined() ? ember::pad(mask, {0, 1}) : mask;
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query_in, const Tensor& key_in, const Tensor& value_in,
    const MultiheadAttentionForwardFuncOptions& o) {
  const int64_t num_heads = o.num_heads();
  Tensor key_padding_mask = o.key_padding_mask(), attn_mask = o.attn_mask();
  const bool is_batched =
      mha_shape_check(query_in, key_in, value_in, key_padding_mask, attn_mask, num_heads);
  // The identities PyTorch's packed projection tests with `is` (never the contents).
  const bool k_is_v = key_in.is_same(value_in), q_is_k = query_in.is_same(key_in);
  Tensor query = query_in, key = key_in, value = value_in;
  if (!is_batched) {
    query = query_in.unsqueeze(1);
    key = q_is_k ? query : key_in.unsqueeze(1);
    value = k_is_v ? key : value_in.unsqueeze(1);
    if (key_padding_mask.defined()) key_padding_mask = key_padding_mask.unsqueeze(0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  int64_t src_len = key.size(0);
  check_mask_dtype(key_padding_mask);
  EMBER_CHECK(embed_dim == o.embed_dim_to_check(), ValueError,
              "was expecting embedding dimension of ", o.embed_dim_to_check(), ", but got ",
              embed_dim);
  EMBER_CHECK(num_heads > 0, ValueError, "num_heads must be positive, got ", num_heads);
  const int64_t head_dim = embed_dim / num_heads;
  EMBER_CHECK(head_dim * num_heads == embed_dim, ValueError, "embed_dim ", embed_dim,
              " not divisible by num_heads ", num_heads);
  if (o.use_separate_proj_weight()) {
    EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1), ValueError,
                "key's sequence and batch dims ", tuple_str({key.size(0), key.size(1)}),
                " do not match value's ", tuple_str({value.size(0), value.size(1)}));
  } else {
    EMBER_CHECK(key.sizes() == value.sizes(), ValueError, "key shape ", key.sizes(),
                " does not match value shape ", value.sizes());
  }

  // The input projection.
  Tensor q, k, v;
  const Tensor& b = o.in_proj_bias();
  if (!o.use_separate_proj_weight()) {
    const Tensor& w = o.in_proj_weight();
    EMBER_CHECK(w.defined(), ValueError,
                "use_separate_proj_weight is False but in_proj_weight is None");
    const int64_t E = embed_dim;
    if (k_is_v && q_is_k) {  // self-attention: one matmul
      auto qkv = ember::linear(query, w, b).chunk(3, -1);
      q = qkv[0], k = qkv[1], v = qkv[2];
    } else if (k_is_v) {  // encoder-decoder attention
      auto ws = w.split(IntArrayRef{E, 2 * E});
      Tensor b_q, b_kv;
      if (b.defined()) {
        auto bs = b.split(IntArrayRef{E, 2 * E});
        b_q = bs[0], b_kv = bs[1];
      }
      q = ember::linear(query, ws[0], b_q);
      auto kv = ember::linear(key, ws[1], b_kv).chunk(2, -1);
      k = kv[0], v = kv[1];
    } else {
      auto ws = w.chunk(3);
      std::vector<Tensor> bs(3);
      if (b.defined()) bs = b.chunk(3);
      q = ember::linear(query, ws[0], bs[0]);
      k = ember::linear(key, ws[1], bs[1]);
      v = ember::linear(value, ws[2], bs[2]);
    }
  } else {
    const Tensor &w_q = o.q_proj_weight(), &w_k = o.k_proj_weight(), &w_v = o.v_proj_weight();
    EMBER_CHECK(w_q.defined(), ValueError,
                "use_separate_proj_weight is True but q_proj_weight is None");
    EMBER_CHECK(w_k.defined(), ValueError,
                "use_separate_proj_weight is True but k_proj_weight is None");
    EMBER_CHECK(w_v.defined(), ValueError,
                "use_separate_proj_weight is True but v_proj_weight is None");
    const int64_t Eq = query.size(-1), Ek = key.size(-1), Ev = value.size(-1);
    EMBER_CHECK(same_shape(w_q, {Eq, Eq}), ValueError, "expecting query weights shape of ",
                tuple_str({Eq, Eq}), ", but got ", w_q.sizes());
    EMBER_CHECK(same_shape(w_k, {Eq, Ek}), ValueError, "expecting key weights shape of ",
                tuple_str({Eq, Ek}), ", but got ", w_k.sizes());
    EMBER_CHECK(same_shape(w_v, {Eq, Ev}), ValueError, "expecting value weights shape of ",
                tuple_str({Eq, Ev}), ", but got ", w_v.sizes());
    std::vector<Tensor> bs(3);
    if (b.defined()) bs = b.chunk(3);
    q = ember::linear(query, w_q, bs[0]);
    k = ember::linear(key, w_k, bs[1]);
    v = ember::linear(value, w_v, bs[2]);
  }

  // The attention mask, as [1 or N * heads, L, S].
  if (attn_mask.defined()) {
    if (attn_mask.dtype() == kByte) {
      attn_mask = attn_mask.to(kBool);
    } else {
      EMBER_CHECK(attn_mask.is_floating_point() || attn_mask.dtype() == kBool, TypeError,
                  "Only float, byte, and bool types are supported for attn_mask, not ",
                  attn_mask.dtype());
    }
    if (attn_mask.dim() == 2) {
      EMBER_CHECK(same_shape(attn_mask, {tgt_len, src_len}), ValueError,
                  "The shape of the 2D attn_mask is ", attn_mask.sizes(), ", but should be ",
                  tuple_str({tgt_len, src_len}), ".");
      attn_mask = attn_mask.unsqueeze(0);
    } else if (attn_mask.dim() == 3) {
      EMBER_CHECK(same_shape(attn_mask, {bsz * num_heads, tgt_len, src_len}), ValueError,
                  "The shape of the 3D attn_mask is ", attn_mask.sizes(), ", but should be ",
                  tuple_str({bsz * num_heads, tgt_len, src_len}), ".");
    } else {
      EMBER_CHECK(false, ValueError, "attn_mask's dimension ", attn_mask.dim(),
                  " is not supported");
    }
  }

  // bias_k and bias_v: one more key and value position for every sequence.
  const Tensor &bias_k = o.bias_k(), &bias_v = o.bias_v();
  if (bias_k.defined() && bias_v.defined()) {
    EMBER_CHECK(!o.static_k().defined(), ValueError, "bias cannot be added to static key.");
    EMBER_CHECK(!o.static_v().defined(), ValueError, "bias cannot be added to static value.");
    k = ember::cat({k, bias_k.repeat({1, bsz, 1})});
    v = ember::cat({v, bias_v.repeat({1, bsz, 1})});
    attn_mask = pad_last(attn_mask);
    key_padding_mask = pad_last(key_padding_mask);
  } else {
    EMBER_CHECK(!bias_k.defined() && !bias_v.defined(), ValueError,
                "bias_k and bias_v must both be given or both be empty");
  }

  // [L, N, E] -> [N * heads, L, head_dim].
  q = q.contiguous().view({tgt_len, bsz * num_heads, head_dim}).transpose(0, 1);
  if (!o.static_k().defined()) {
    k = k.contiguous().view({k.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
  } else {
    const Tensor& sk = o.static_k();
    EMBER_CHECK(sk.size(0) == bsz * num_heads, ValueError, "expecting static_k.size(0) of ",
                bsz * num_heads, ", but got ", sk.size(0));
    EMBER_CHECK(sk.size(2) == head_dim, ValueError, "expecting static_k.size(2) of ", head_dim,
                ", but got ", sk.size(2));
    k = sk;
  }
  if (!o.static_v().defined()) {
    v = v.contiguous().view({v.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
  } else {
    const Tensor& sv = o.static_v();
    EMBER_CHECK(sv.size(0) == bsz * num_heads, ValueError, "expecting static_v.size(0) of ",
                bsz * num_heads, ", but got ", sv.size(0));
    EMBER_CHECK(sv.size(2) == head_dim, ValueError, "expecting static_v.size(2) of ", head_dim,
                ", but got ", sv.size(2));
    v = sv;
  }

  if (o.add_zero_attn()) {
    k = ember::cat({k, ember::zeros({bsz * num_heads, 1, head_dim}, k.options())}, 1);
    v = ember::cat({v, ember::zeros({bsz * num_heads, 1, head_dim}, v.options())}, 1);
    attn_mask = pad_last(attn_mask);
    key_padding_mask = pad_last(key_padding_mask);
  }
  src_len = k.size(1);

  // Merge the key padding mask into the attention mask.
  if (key_padding_mask.defined()) {
    EMBER_CHECK(same_shape(key_padding_mask, {bsz, src_len}), ValueError,
                "expecting key_padding_mask shape of ", tuple_str({bsz, src_len}), ", but got ",
                key_padding_mask.sizes());
    Tensor kpm = key_padding_mask.view({bsz, 1, 1, src_len})
                     .expand({bsz, num_heads, 1, src_len})
                     .reshape({bsz * num_heads, 1, src_len});
    if (!attn_mask.defined()) {
      attn_mask = kpm;
    } else if (attn_mask.dtype() == kBool && kpm.dtype() == kBool) {
      attn_mask = attn_mask.logical_or(kpm);
    } else {
      if (attn_mask.dtype() == kBool) {
        attn_mask = ember::zeros(attn_mask.sizes(), q.options()).masked_fill(attn_mask, -kInf);
      }
      attn_mask = kpm.dtype() == kBool ? attn_mask.masked_fill(kpm, -kInf) : attn_mask + kpm;
    }
  }
  // A bool mask (true: not allowed) as the float one added to the scores.
  if (attn_mask.defined() && attn_mask.dtype() == kBool) {
    attn_mask = ember::zeros(attn_mask.sizes(), q.options()).masked_fill(attn_mask, -kInf);
  }
  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  Tensor attn_output, attn_output_weights;
  if (o.need_weights()) {
    Tensor q_scaled = q / std::sqrt(static_cast<double>(head_dim));
    attn_output_weights = ember::bmm(q_scaled, k.transpose(-2, -1));
    if (attn_mask.defined()) attn_output_weights = attn_mask + attn_output_weights;
    attn_output_weights = ember::softmax(attn_output_weights, -1);
    if (dropout_p > 0.0) attn_output_weights = ember::dropout(attn_output_weights, dropout_p, true);
    attn_output = ember::bmm(attn_output_weights, v);
    attn_output = attn_output.transpose(0, 1).contiguous().view({tgt_len * bsz, embed_dim});
  } else {
    // [N * heads, ., .] -> [N, heads, ., .] for scaled_dot_product_attention, which may run the
    // fused kernel (no [L, S] weights in memory).
    if (attn_mask.defined()) {
      attn_mask = attn_mask.size(0) == 1 ? attn_mask.unsqueeze(0)
                                         : attn_mask.view({bsz, num_heads, -1, src_len});
    }
    Tensor q4 = q.reshape({bsz, num_heads, tgt_len, head_dim});
    Tensor k4 = k.reshape({bsz, num_heads, src_len, head_dim});
    Tensor v4 = v.reshape({bsz, num_heads, src_len, head_dim});
    attn_output = ember::scaled_dot_product_attention(q4, k4, v4, attn_mask, dropout_p, false);
    attn_output = attn_output.permute({2, 0, 1, 3}).contiguous().view({bsz * tgt_len, embed_dim});
  }
  attn_output = ember::linear(attn_output, o.out_proj_weight(), o.out_proj_bias());
  attn_output = attn_output.view({tgt_len, bsz, attn_output.size(1)});
  if (o.need_weights()) {
    attn_output_weights = attn_output_weights.view({bsz, num_heads, tgt_len, src_len});
    if (o.average_attn_weights()) {
      attn_output_weights = attn_output_weights.sum(1) / static_cast<double>(num_heads);
    }
    if (!is_batched) attn_output_weights = attn_output_weights.squeeze(0);
  }
  if (!is_batched) attn_output = attn_output.squeeze(1);
  return {attn_output, attn_output_weights};
}

}  // namespace functional

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_)
    : Cloneable("ember::nn::MultiheadAttention"), options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim(), H = options.num_heads();
  EMBER_CHECK(H > 0, ValueError, "num_heads must be positive, got ", H);
  head_dim = E / H;
  EMBER_CHECK(head_dim * H == E, ValueError, "embed_dim must be divisible by num_heads");
  _qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  if (!_qkv_same_embed_dim) {
    q_proj_weight = register_parameter("q_proj_weight", ember::empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", ember::empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", ember::empty({E, options.vdim()}));
  } else {
    in_proj_weight = register_parameter("in_proj_weight", ember::empty({3 * E, E}));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", ember::empty({3 * E}));
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", ember::empty({1, 1, E}));
    bias_v = register_parameter("bias_v", ember::empty({1, 1, E}));
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights) {
  const bool is_batched = query.dim() == 3;
  EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dtype() == kBool ||
                  key_padding_mask.is_floating_point(),
              ValueError, "only bool and floating types of key_padding_mask are supported");
  Tensor q = query, k = key, v = value;
  if (options.batch_first() && is_batched) {
    // Transposed so that the identities query is key is value survive.
    q = query.transpose(1, 0);
    k = key.is_same(query) ? q : key.transpose(1, 0);
    v = value.is_same(key) ? k : value.transpose(1, 0);
  }
  auto fo =
      functional::MultiheadAttentionForwardFuncOptions(
          options.embed_dim(), options.num_heads(), in_proj_weight, in_proj_bias, bias_k, bias_v,
          options.add_zero_attn(), options.dropout(), out_proj->weight, out_proj->bias)
          .training(is_training())
          .key_padding_mask(key_padding_mask)
          .need_weights(need_weights)
          .attn_mask(attn_mask)
          .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim) {
    fo.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  }
  auto [out, weights] = functional::multi_head_attention_forward(q, k, v, fo);
  if (options.batch_first() && is_batched) out = out.transpose(1, 0);
  return {out, weights};
}

}  // namespace ember::nn
