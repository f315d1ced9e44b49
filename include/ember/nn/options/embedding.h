#pragma once
// Options of Embedding and F::embedding.
#include <cstdint>
#include <optional>

#include "ember/nn/arg.h"
#include "ember/tensor.h"

namespace ember::nn {

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  // This row gets no gradient (and starts as zeros).
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  // Initial weights instead of N(0, 1).
  EMBER_ARG(Tensor, _weight);
};

struct EmbeddingFromPretrainedOptions {
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
struct EmbeddingFuncOptions {
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
}  // namespace functional

}  // namespace ember::nn
