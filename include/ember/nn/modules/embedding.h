#pragma once
// Embedding: a lookup table of num_embeddings rows of size embedding_dim.
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

}  // namespace ember::nn
