// embedding and Embedding. The lookup is index_select; it records its own backward so that
// the padding_idx row gets no gradient (an index_add of the other rows' gradients).
#include "ember/nn/modules/embedding.h"

#include "autograd/record.h"
#include "ember/nn/init.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"
#include "ops/index_grad.h"

namespace ember {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  EMBER_CHECK(weight.dim() == 2, ValueError,
              "embedding(): weight must be 2-D [num_embeddings, embedding_dim], got shape ",
              weight.sizes());
  EMBER_CHECK(indices.dtype() == kLong || indices.dtype() == kInt, TypeError,
              "embedding(): Expected tensor for argument #1 'indices' to have one of the "
              "following scalar types: Long, Int; but got ",
              to_string(indices.dtype()), " instead");
  const int64_t D = weight.size(1);
  Tensor flat = indices.reshape({indices.numel()});
  if (flat.dtype() != kLong) flat = flat.to(kLong);
  Tensor rows;
  {
    NoGradGuard no_grad;
    rows = index_select(weight, 0, flat);
  }
  DimVector shape(indices.sizes());
  shape.push_back(D);
  Tensor out = rows.view(shape);
  if (autograd::needs_grad({weight})) {
    autograd::record(
        "EmbeddingBackward0", out, {weight},
        [flat, padding_idx, V = weight.size(0), D](const autograd::variable_list& g) {
          Tensor grad = g[0].reshape({flat.numel(), D});
          if (padding_idx >= 0) {
            grad = grad * flat.ne(padding_idx).unsqueeze(1).to(grad.dtype());
          }
          return autograd::variable_list{index_select_backward(grad.contiguous(), {V, D}, 0, flat)};
        });
  }
  return out;
}

namespace nn {

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_) : options(options_) {
  reset();
}

void EmbeddingImpl::reset() {
  const int64_t V = options.num_embeddings(), D = options.embedding_dim();
  if (auto& p = options.padding_idx()) {
    EMBER_CHECK(*p < V && *p >= -V, ValueError, "Embedding: padding_idx (", *p,
                ") must be within num_embeddings (", V, ")");
    if (*p < 0) *p += V;
  }
  // A given _weight becomes the parameter itself, once: a clone gets a tensor of its own.
  if (options._weight().defined() && !weight.defined()) {
    EMBER_CHECK(options._weight().sizes() == IntArrayRef({V, D}), ValueError,
                "Shape of _weight does not match num_embeddings and embedding_dim: expected [", V,
                ", ", D, "], got ", options._weight().sizes());
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", empty({V, D}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return ember::embedding(weight, indices, options.padding_idx().value_or(-1));
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK(embeddings.dim() == 2, ValueError,
              "Embeddings parameter is expected to be 2-dimensional, got shape ",
              embeddings.sizes());
  Embedding e(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                  ._weight(embeddings.detach().clone())
                  .padding_idx(options.padding_idx()));
  e->weight.set_requires_grad(!options.freeze());
  return e;
}

}  // namespace nn
}  // namespace ember
