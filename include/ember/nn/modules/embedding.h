#pragma once
// Embedding: a lookup table of num_embeddings rows of size embedding_dim; EmbeddingBag: the
// sum, mean or maximum of the rows of each bag of indices.
#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/embedding.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  // Creates the parameters (the constructor calls it; clone() too).
  void reset() override;
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  // N(0, 1) weights, with the padding_idx row zeroed.
  void reset_parameters();
  // With max_norm, first renormalises the rows looked up, in place.
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& stream) const override;

  EmbeddingOptions options;
  Tensor weight;  // [num_embeddings, embedding_dim]
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  // An Embedding whose weight is (a copy of) `embeddings`, frozen unless options.freeze(false).
  static EMBER_API Embedding from_pretrained(const Tensor& embeddings,
                                             const EmbeddingFromPretrainedOptions& options = {});
};

class EMBER_API EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);
  void reset() override;
  // N(0, 1) weights, with the padding_idx row zeroed.
  void reset_parameters();
  // input: 1-d with offsets (the start of each bag), or 2-d [B, L] without; per_sample_weights
  // (mode kSum) has input's shape. Returns [B, embedding_dim].
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});
  void pretty_print(std::ostream& stream) const override;

  EmbeddingBagOptions options;
  Tensor weight;  // [num_embeddings, embedding_dim]
};

class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  // An EmbeddingBag whose weight is (a copy of) `embeddings`, frozen unless options.freeze(false).
  static EMBER_API EmbeddingBag
  from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
