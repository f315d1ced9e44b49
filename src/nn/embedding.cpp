// embedding, embedding_renorm_, F::embedding and Embedding. The lookup is index_select; it
// records its own backward so that the padding_idx row gets no gradient (an index_add of the other
// rows' gradients) and scale_grad_by_freq can divide by each row's count.
#include "ember/nn/modules/embedding.h"

#include <cmath>

#include "autograd/record.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "nn/describe.h"
#include "ops/index_grad.h"

namespace ember {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq, bool /*sparse: the gradient is dense*/) {
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
        [flat, padding_idx, scale_grad_by_freq, V = weight.size(0),
         D](const autograd::variable_list& g) {
          Tensor grad = g[0].reshape({flat.numel(), D});
          if (padding_idx >= 0) {
            grad = grad * flat.ne(padding_idx).unsqueeze(1).to(grad.dtype());
          }
          if (scale_grad_by_freq) {
            // Each occurrence of a row gets its gradient divided by the row's count in indices.
            Tensor ones_each = ones({flat.numel()}, grad.options());
            Tensor counts = zeros({V}, grad.options()).index_add(0, flat, ones_each);
            grad = grad / index_select(counts, 0, flat).unsqueeze(1);
          }
          return autograd::variable_list{index_select_backward(grad.contiguous(), {V, D}, 0, flat)};
        });
  }
  return out;
}

Tensor embedding_renorm_(const Tensor& self, const Tensor& indices, double max_norm,
                         double norm_type) {
  EMBER_CHECK(self.dim() == 2, ValueError,
              "embedding_renorm_(): weight must be 2-D [num_embeddings, embedding_dim], got shape ",
              self.sizes());
  EMBER_CHECK(indices.dtype() == kLong || indices.dtype() == kInt, TypeError,
              "embedding_renorm_(): Expected tensor for argument #2 'indices' to have one of the "
              "following scalar types: Long, Int; but got ",
              to_string(indices.dtype()), " instead");
  NoGradGuard no_grad;
  Tensor flat = indices.reshape({indices.numel()}).to(kLong);
  Tensor rows = index_select(self, 0, flat);
  Tensor magnitude = rows.abs();
  Tensor norms = std::isinf(norm_type) ? magnitude.amax({1}, /*keepdim=*/true)
                 : norm_type == 1.0
                     ? magnitude.sum({1}, /*keepdim=*/true)
                     : magnitude.pow(norm_type).sum({1}, /*keepdim=*/true).pow(1.0 / norm_type);
  // PyTorch's factor; a row named twice gets the same value written twice.
  Tensor scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0);
  self.index_copy_(0, flat, rows * scale);
  return self;
}

namespace nn {
namespace functional {

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  int64_t padding_idx = -1;
  if (auto p = options.padding_idx()) {
    const int64_t V = weight.dim() > 0 ? weight.size(0) : 0;
    EMBER_CHECK(*p < V && *p >= -V, ValueError, "Padding_idx must be within num_embeddings");
    padding_idx = *p < 0 ? *p + V : *p;
  }
  if (options.max_norm()) {
    embedding_renorm_(weight, input, *options.max_norm(), options.norm_type());
  }
  return ember::embedding(weight, input, padding_idx, options.scale_grad_by_freq(),
                          options.sparse());
}

}  // namespace functional

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
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq())
                                   .sparse(options.sparse()));
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=" << std::boolalpha << true;
  if (options.sparse()) stream << ", sparse=" << std::boolalpha << true;
  stream << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK(embeddings.dim() == 2, ValueError,
              "Embeddings parameter is expected to be 2-dimensional, got shape ",
              embeddings.sizes());
  Embedding e(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                  ._weight(embeddings.detach().clone())
                  .padding_idx(options.padding_idx())
                  .max_norm(options.max_norm())
                  .norm_type(options.norm_type())
                  .scale_grad_by_freq(options.scale_grad_by_freq())
                  .sparse(options.sparse()));
  e->weight.set_requires_grad(!options.freeze());
  return e;
}

}  // namespace nn
}  // namespace ember
