#pragma once
// The Transformer of "Attention Is All You Need": TransformerEncoderLayer, TransformerDecoderLayer,
// their stacks TransformerEncoder and TransformerDecoder, and Transformer; libtorch 1.13's classes
// and options, with PyTorch's batch_first, norm_first and layer_norm_eps. Submodules are named as
// in PyTorch, so state_dict names match.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/multihead_attention.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/options/transformer.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_);
  // src [S, N, E] ([N, S, E] with batch_first) or [S, E]; src_mask [S, S] or [N * nhead, S, S];
  // src_key_padding_mask [N, S].
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

class EMBER_API TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options_);
  void reset() override;
  void reset_parameters();
  // tgt [T, N, E], memory [S, N, E] ([N, ., E] with batch_first); tgt_mask [T, T], memory_mask
  // [T, S]; the padding masks [N, T] and [N, S].
  Tensor forward(Tensor tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Dropout dropout1{nullptr};
  LayerNorm norm1{nullptr};
  MultiheadAttention multihead_attn{nullptr};
  Dropout dropout2{nullptr};
  LayerNorm norm2{nullptr};
  Linear linear1{nullptr};
  Dropout dropout{nullptr};
  Linear linear2{nullptr};
  Dropout dropout3{nullptr};
  LayerNorm norm3{nullptr};

 protected:
  Tensor activation(const Tensor& input);
};
EMBER_MODULE(TransformerDecoderLayer);

// libtorch 1.13's options of the stacks (in libtorch's transformercoder.h: they hold a layer).
struct EMBER_API TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers);
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options,
                            int64_t num_layers);
  EMBER_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  // The final normalisation (PyTorch's norm=), a module with forward(Tensor); empty: none.
  EMBER_ARG(AnyModule, norm);
};

struct EMBER_API TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers);
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options,
                            int64_t num_layers);
  EMBER_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);
};

struct EMBER_API TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers,
                     int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  EMBER_ARG(int64_t, d_model) = 512;
  EMBER_ARG(int64_t, nhead) = 8;
  EMBER_ARG(int64_t, num_encoder_layers) = 6;
  EMBER_ARG(int64_t, num_decoder_layers) = 6;
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = kReLU;
  // A TransformerEncoder / TransformerDecoder to use instead of the default stacks (another
  // module type is called with forward(Tensor) and takes no masks).
  EMBER_ARG(AnyModule, custom_encoder);
  EMBER_ARG(AnyModule, custom_decoder);
  // PyTorch's later options (not in libtorch 1.13).
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
};

class EMBER_API TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options_);
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;  // num_layers clones of options.encoder_layer
  AnyModule norm;
};
EMBER_MODULE(TransformerEncoder);

class EMBER_API TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options_);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  TransformerDecoderOptions options;
  ModuleList layers{nullptr};
  AnyModule norm;
};
EMBER_MODULE(TransformerDecoder);

class EMBER_API TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options_);
  // src [S, N, E], tgt [T, N, E] ([N, ., E] with batch_first); returns [T, N, E].
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  // xavier_uniform_ on every parameter of more than one dim, as PyTorch's Transformer.
  void reset_parameters();
  // [sz, sz] float: -inf above the diagonal, 0 elsewhere (the causal mask).
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
EMBER_MODULE(Transformer);

}  // namespace ember::nn
