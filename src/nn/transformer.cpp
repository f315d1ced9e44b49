// The Transformer layers and stacks (PyTorch 1.13's torch.nn.Transformer* with libtorch 1.13's C++
// classes): compositions of MultiheadAttention, Linear, Dropout and LayerNorm.
#include "ember/nn/modules/transformer.h"

#include <limits>

#include "ember/nn/init.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"

namespace ember::nn {

activation_t::activation_t(const std::string& name) {
  if (name == "relu") {
    emplace<enumtype::kReLU>();
  } else if (name == "gelu") {
    emplace<enumtype::kGELU>();
  } else {
    EMBER_CHECK(false, ValueError, "activation should be relu/gelu, not ", name);
  }
}

namespace {

Tensor apply_activation(const activation_t& a, const Tensor& x) {
  if (std::holds_alternative<enumtype::kReLU>(a)) return ember::relu(x);
  if (std::holds_alternative<enumtype::kGELU>(a)) return ember::gelu(x);
  const auto& fn = std::get<std::function<Tensor(const Tensor&)>>(a);
  EMBER_CHECK(static_cast<bool>(fn), ValueError, "the activation function is empty");
  return fn(x);
}

void check_key_padding_mask(const Tensor& m) {
  EMBER_CHECK(!m.defined() || m.dtype() == kBool || m.is_floating_point(), ValueError,
              "only bool and floating types of key_padding_mask are supported");
}

MultiheadAttentionOptions attention_options(int64_t d_model, int64_t nhead, double dropout,
                                            bool batch_first) {
  return MultiheadAttentionOptions(d_model, nhead).dropout(dropout).batch_first(batch_first);
}

LayerNorm layer_norm(int64_t d_model, double eps) {
  return LayerNorm(LayerNormOptions({d_model}).eps(eps));
}

// The stack's norm: a fresh clone of the option's, registered as "norm"; `replace` first removes
// the one registered before (reset_parameters), reset() starts from none.
void install_norm(Module& owner, AnyModule& norm, const AnyModule& from, bool replace) {
  if (replace && !norm.is_empty()) owner.unregister_module("norm");
  norm = AnyModule();
  if (!from.is_empty()) {
    norm = from.clone();
    owner.register_module("norm", norm.ptr());
  }
}

}  // namespace

// ---- TransformerEncoderLayer ----

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(
    const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module(
      "self_attn",
      MultiheadAttention(attention_options(o.d_model(), o.nhead(), o.dropout(), o.batch_first())));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o.d_model(), o.layer_norm_eps()));
  norm2 = register_module("norm2", layer_norm(o.d_model(), o.layer_norm_eps()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  check_key_padding_mask(src_key_padding_mask);
  auto sa_block = [&](const Tensor& x) {
    return dropout1(
        std::get<0>(self_attn(x, x, x, src_key_padding_mask, /*need_weights=*/false, src_mask)));
  };
  auto ff_block = [&](const Tensor& x) {
    return dropout2(linear2(dropout(apply_activation(options.activation(), linear1(x)))));
  };
  Tensor x = src;
  if (options.norm_first()) {
    x = x + sa_block(norm1(x));
    x = x + ff_block(norm2(x));
  } else {
    x = norm1(x + sa_block(x));
    x = norm2(x + ff_block(x));
  }
  return x;
}

// ---- TransformerDecoderLayer ----

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(
    const TransformerDecoderLayerOptions& options_)
    : options(options_) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const auto& o = options;
  auto attn = attention_options(o.d_model(), o.nhead(), o.dropout(), o.batch_first());
  self_attn = register_module("self_attn", MultiheadAttention(attn));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(attn));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o.d_model(), o.layer_norm_eps()));
  norm2 = register_module("norm2", layer_norm(o.d_model(), o.layer_norm_eps()));
  norm3 = register_module("norm3", layer_norm(o.d_model(), o.layer_norm_eps()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
  dropout3 = register_module("dropout3", Dropout(o.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  multihead_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::activation(const Tensor& input) {
  return apply_activation(options.activation(), input);
}

Tensor TransformerDecoderLayerImpl::forward(Tensor tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  auto sa_block = [&](const Tensor& x) {
    return dropout1(
        std::get<0>(self_attn(x, x, x, tgt_key_padding_mask, /*need_weights=*/false, tgt_mask)));
  };
  auto mha_block = [&](const Tensor& x) {
    return dropout2(std::get<0>(multihead_attn(x, memory, memory, memory_key_padding_mask,
                                               /*need_weights=*/false, memory_mask)));
  };
  auto ff_block = [&](const Tensor& x) {
    return dropout3(linear2(dropout(activation(linear1(x)))));
  };
  Tensor x = std::move(tgt);
  if (options.norm_first()) {
    x = x + sa_block(norm1(x));
    x = x + mha_block(norm2(x));
    x = x + ff_block(norm3(x));
  } else {
    x = norm1(x + sa_block(x));
    x = norm2(x + mha_block(x));
    x = norm3(x + ff_block(x));
  }
  return x;
}

// ---- TransformerEncoder / TransformerDecoder ----

TransformerEncoderOptions::TransformerEncoderOptions(TransformerEncoderLayer encoder_layer,
                                                     int64_t num_layers)
    : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}

TransformerEncoderOptions::TransformerEncoderOptions(
    const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
    : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}

TransformerDecoderOptions::TransformerDecoderOptions(TransformerDecoderLayer decoder_layer,
                                                     int64_t num_layers)
    : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}

TransformerDecoderOptions::TransformerDecoderOptions(
    const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
    : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  EMBER_CHECK(!options.encoder_layer().is_empty(), ValueError,
              "TransformerEncoder: the encoder_layer is empty");
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    layers->push_back(options.encoder_layer()->clone());
  }
  install_norm(*this, norm, options.norm(), false);
}

void TransformerEncoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) {
    layers->ptr<TransformerEncoderLayerImpl>(i)->reset_parameters();
  }
  // As libtorch: the norm is replaced by a fresh clone of the option's (AnyModule has no
  // reset_parameters to call).
  install_norm(*this, norm, options.norm(), true);
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask,
                                       const Tensor& src_key_padding_mask) {
  check_key_padding_mask(src_key_padding_mask);
  Tensor output = src;
  for (size_t i = 0; i < layers->size(); ++i) {
    output = layers->ptr<TransformerEncoderLayerImpl>(i)->forward(output, src_mask,
                                                                  src_key_padding_mask);
  }
  if (!norm.is_empty()) output = norm.forward(output);
  return output;
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  EMBER_CHECK(!options.decoder_layer().is_empty(), ValueError,
              "TransformerDecoder: the decoder_layer is empty");
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    layers->push_back(options.decoder_layer()->clone());
  }
  install_norm(*this, norm, options.norm(), false);
}

void TransformerDecoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) {
    layers->ptr<TransformerDecoderLayerImpl>(i)->reset_parameters();
  }
  install_norm(*this, norm, options.norm(), true);
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i) {
    x = layers->ptr<TransformerDecoderLayerImpl>(i)->forward(
        x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  }
  if (!norm.is_empty()) x = norm.forward(x);
  return x;
}

// ---- Transformer ----

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) {
  reset();
}

void TransformerImpl::reset() {
  const auto& o = options;
  if (!o.custom_encoder().is_empty()) {
    encoder = o.custom_encoder().clone();
  } else {
    encoder = AnyModule(TransformerEncoder(
        TransformerEncoderOptions(TransformerEncoderLayerOptions(o.d_model(), o.nhead())
                                      .dim_feedforward(o.dim_feedforward())
                                      .dropout(o.dropout())
                                      .activation(o.activation())
                                      .layer_norm_eps(o.layer_norm_eps())
                                      .batch_first(o.batch_first())
                                      .norm_first(o.norm_first()),
                                  o.num_encoder_layers())
            .norm(AnyModule(layer_norm(o.d_model(), o.layer_norm_eps())))));
  }
  register_module("encoder", encoder.ptr());
  if (!o.custom_decoder().is_empty()) {
    decoder = o.custom_decoder().clone();
  } else {
    decoder = AnyModule(TransformerDecoder(
        TransformerDecoderOptions(TransformerDecoderLayerOptions(o.d_model(), o.nhead())
                                      .dim_feedforward(o.dim_feedforward())
                                      .dropout(o.dropout())
                                      .activation(o.activation())
                                      .layer_norm_eps(o.layer_norm_eps())
                                      .batch_first(o.batch_first())
                                      .norm_first(o.norm_first()),
                                  o.num_decoder_layers())
            .norm(AnyModule(layer_norm(o.d_model(), o.layer_norm_eps())))));
  }
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (auto& p : parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) {
  const bool is_batched = src.dim() == 3;
  const int64_t batch_dim = options.batch_first() ? 0 : 1;
  EMBER_CHECK(!is_batched || tgt.dim() < 3 || src.size(batch_dim) == tgt.size(batch_dim),
              ValueError, "the batch number of src and tgt must be equal");
  EMBER_CHECK(src.size(-1) == options.d_model() && tgt.size(-1) == options.d_model(), ValueError,
              "the feature number of src and tgt must be equal to d_model");
  Tensor memory;
  if (auto enc = std::dynamic_pointer_cast<TransformerEncoderImpl>(encoder.ptr())) {
    memory = enc->forward(src, src_mask, src_key_padding_mask);
  } else {
    EMBER_CHECK(!src_mask.defined() && !src_key_padding_mask.defined(), ValueError,
                "Transformer: the custom encoder ", encoder.ptr()->name(),
                " is called with forward(src) and takes no masks");
    memory = encoder.forward(src);
  }
  auto dec = std::dynamic_pointer_cast<TransformerDecoderImpl>(decoder.ptr());
  EMBER_CHECK(dec != nullptr, TypeError, "Transformer: the decoder ", decoder.ptr()->name(),
              " is not a TransformerDecoder (a decoder takes tgt and memory)");
  return dec->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                      memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK(sz > 0, ValueError,
              "Input size must be non-negative to generate a valid square subsequent mask, but "
              "got ",
              sz);
  return ember::triu(ember::full({sz, sz}, -std::numeric_limits<float>::infinity()), 1);
}

}  // namespace ember::nn
