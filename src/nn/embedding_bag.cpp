// embedding_bag, F::embedding_bag and EmbeddingBag.
//
// Sum and mean: every index's row is looked up with ember::embedding (whose backward scatters
// into the weight, with scale_grad_by_freq), scaled by its per-sample weight (0 for an index
// equal to padding_idx or past the last bag), and index_add-ed into its bag; the mean divides by
// the number of indices kept. The bag of each index is a cumulative sum of the bag starts, so
// nothing is read on the host and the same code runs on every device.
// Max: the bags are laid out as [B, longest bag] (built on the host from the offsets), padded
// with -inf, and reduced by max over dim 1, whose gradient goes to the row each maximum came from.
#include <algorithm>
#include <limits>
#include <vector>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"

namespace ember {
namespace {

enum BagMode : int64_t { kBagSum = 0, kBagMean = 1, kBagMax = 2 };

const char* mode_name(int64_t mode) {
  return mode == kBagSum ? "sum" : mode == kBagMean ? "mean" : "max";
}

// The largest of each bag's kept rows; an empty bag gives zeros and max index -1.
std::tuple<Tensor, Tensor> bag_maxima(const Tensor& weight, const Tensor& indices,
                                      const std::vector<int64_t>& offsets, int64_t bags,
                                      int64_t end, const std::vector<int64_t>& kept) {
  std::vector<int64_t> starts(bags), sizes(bags);
  int64_t longest = 0;
  for (int64_t b = 0; b < bags; ++b) {
    starts[b] = offsets[b];
    const int64_t stop = b + 1 < static_cast<int64_t>(offsets.size()) ? offsets[b + 1] : end;
    sizes[b] = std::max<int64_t>(std::min(stop, end) - starts[b], 0);
    longest = std::max(longest, sizes[b]);
  }
  const int64_t width = std::max<int64_t>(longest, 1);
  std::vector<int64_t> position(bags * width, 0), present(bags * width, 0);
  for (int64_t b = 0; b < bags; ++b) {
    for (int64_t i = 0; i < sizes[b]; ++i) {
      position[b * width + i] = starts[b] + i;
      present[b * width + i] = kept[starts[b] + i];
    }
  }
  const Device device = weight.device();
  auto on_device = [&](std::vector<int64_t>& v, IntArrayRef sizes_) {
    return from_blob(v.data(), sizes_, kLong).to(device, false, /*copy=*/true);
  };
  Tensor slot_index = index_select(indices, 0, on_device(position, {bags * width}));
  Tensor slot_present = on_device(present, {bags, width, 1}).to(kBool);
  const int64_t D = weight.size(1);
  Tensor rows = embedding(weight, slot_index).view({bags, width, D});
  rows = where(slot_present, rows, -std::numeric_limits<double>::infinity());
  auto [values, slot] = max(rows, 1);
  Tensor nonempty = slot_present.to(kLong).sum({1}).gt(0);  // [B, 1]
  values = where(nonempty, values, 0.0);
  Tensor max_indices = gather(slot_index.view({bags, width}), 1, slot);
  max_indices = where(nonempty, max_indices, -1);
  return {values, max_indices};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool /*sparse: the gradient is dense*/, const Tensor& per_sample_weights,
    bool include_last_offset, std::optional<int64_t> padding_idx) {
  EMBER_CHECK(weight.dim() == 2, ValueError,
              "embedding_bag(): weight must be 2-D [num_embeddings, embedding_dim], got shape ",
              weight.sizes());
  EMBER_CHECK(indices.dtype() == kLong || indices.dtype() == kInt, TypeError,
              "Expected tensor for argument #1 'indices' to have one of the following scalar "
              "types: Long, Int; but got ",
              to_string(indices.dtype()), " instead (while checking arguments for embedding_bag)");
  EMBER_CHECK(offsets.defined() && (offsets.dtype() == kLong || offsets.dtype() == kInt), TypeError,
              "Expected tensor for argument #2 'offsets' to have one of the following scalar "
              "types: Long, Int; but got ",
              offsets.defined() ? to_string(offsets.dtype()) : std::string("None"),
              " instead (while checking arguments for embedding_bag)");
  EMBER_CHECK(indices.dim() == 1 && offsets.dim() == 1, ValueError,
              "embedding_bag(): indices and offsets must be 1-D, got shapes ", indices.sizes(),
              " and ", offsets.sizes());
  EMBER_CHECK(mode >= kBagSum && mode <= kBagMax, ValueError,
              "embedding_bag(): mode must be 0 (sum), 1 (mean) or 2 (max), got ", mode);
  const int64_t V = weight.size(0), M = indices.size(0);
  int64_t pad = -1;
  if (padding_idx) {
    EMBER_CHECK(*padding_idx >= -V && *padding_idx < V, Error,
                "padding_idx must be within the number of embeddings, -", V, " through ", V - 1,
                ", but got ", *padding_idx);
    pad = *padding_idx < 0 ? *padding_idx + V : *padding_idx;
  }
  if (per_sample_weights.defined()) {
    EMBER_CHECK(mode == kBagSum, NotImplementedError,
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                "supported for mode='sum' (got mode='",
                mode_name(mode), "'). Please open a feature request on GitHub.");
    EMBER_CHECK(per_sample_weights.sizes() == indices.sizes(), ValueError,
                "embedding_bag: If per_sample_weights (", per_sample_weights.sizes(),
                ") is not None, then it must have the same shape as the input (", indices.sizes(),
                ")");
  }
  const int64_t bags =
      include_last_offset ? std::max<int64_t>(offsets.size(0) - 1, 0) : offsets.size(0);
  Tensor offs = offsets.to(kLong);
  Tensor idx = indices.to(kLong);
  // PyTorch checks the offsets where they can be read without a device synchronisation.
  const bool read_offsets = offsets.is_cpu() || (mode == kBagMax && !offsets.is_meta());
  std::vector<int64_t> host_offsets;
  if (read_offsets) {
    host_offsets = offs.to_vector<int64_t>();
    if (!host_offsets.empty()) {
      EMBER_CHECK(host_offsets[0] == 0, Error,
                  "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
                  "start from position 0. However, got ",
                  host_offsets[0]);
      EMBER_CHECK(host_offsets.back() <= M, Error,
                  "offsets[-1] can not be greater than input's length ", M,
                  " but got offsets[-1] of ", host_offsets.back());
    }
  }
  const Device device = weight.device();
  // Each index's bag: the number of bag starts (after the first) at or before its position.
  Tensor starts = zeros({M + 1}, TensorOptions().dtype(kLong).device(device));
  if (bags > 1) {
    Tensor later_starts = offs.narrow(0, 1, bags - 1);
    starts = starts.index_add(0, later_starts, ones_like(later_starts));
  }
  Tensor offset2bag = starts.cumsum(0).narrow(0, 0, M);
  // Indices past the end of the last bag (include_last_offset) belong to no bag.
  Tensor position = arange(M, TensorOptions().dtype(kLong).device(device));
  Tensor in_a_bag =
      include_last_offset && bags > 0 ? position.lt(offs[bags]) : ones_like(position).to(kBool);
  if (bags == 0) in_a_bag = zeros_like(position).to(kBool);
  Tensor kept = pad >= 0 ? in_a_bag.logical_and(idx.ne(pad)) : in_a_bag;
  Tensor bag_of_kept = where(kept, offset2bag, 0).clamp_max(std::max<int64_t>(bags - 1, 0));
  Tensor bag_size = zeros({bags}, TensorOptions().dtype(kLong).device(device))
                        .index_add(0, bag_of_kept, kept.to(kLong));
  const int64_t D = weight.size(1);
  if (mode == kBagMax) {
    EMBER_CHECK(!scale_grad_by_freq, ValueError,
                "max mode does not support scaling the gradient by the frequency");
    if (weight.is_meta()) {
      // Shapes only: the bags' layout needs the offsets' values.
      Tensor out = weight.sum({0}, /*keepdim=*/true).expand({bags, D});
      return {out, offset2bag, bag_size, empty({bags, D}, offs.options())};
    }
    const int64_t end = include_last_offset && bags > 0 ? host_offsets[bags] : M;
    auto [out, max_indices] =
        bag_maxima(weight, idx, host_offsets, bags, end, kept.to_vector<int64_t>());
    return {out, offset2bag, bag_size, max_indices};
  }
  Tensor rows = embedding(weight, idx, -1, scale_grad_by_freq);  // [M, D]
  // Every index counts fully unless padding, a cut-off last bag or per-sample weights say not:
  // then the rows need no scaling pass (forward or backward).
  const bool all_kept = pad < 0 && !include_last_offset && bags > 0;
  if (!all_kept || per_sample_weights.defined()) {
    Tensor scale = kept.to(weight.dtype());
    if (per_sample_weights.defined()) scale = scale * per_sample_weights;
    rows = rows * scale.unsqueeze(1);
  }
  Tensor out = zeros({bags, D}, weight.options()).index_add(0, bag_of_kept, rows);
  if (mode == kBagMean) out = out / bag_size.clamp_min(1).to(out.dtype()).unsqueeze(1);
  return {out, offset2bag, bag_size, Tensor()};
}

namespace nn {
namespace functional {

Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options) {
  Tensor indices = input, offsets = options.offsets(), psw = options.per_sample_weights();
  EMBER_CHECK(!psw.defined() || psw.sizes() == input.sizes(), ValueError,
              "embedding_bag: If per_sample_weights (", psw.defined() ? psw.sizes() : IntArrayRef{},
              ") is not None, then it must have the same shape as the input (", input.sizes(), ")");
  if (input.dim() == 2) {
    EMBER_CHECK(!offsets.defined(), ValueError,
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                "of fixed length sequences. However, found offsets of type Tensor");
    offsets = arange(0, input.numel(), std::max<int64_t>(input.size(1), 1),
                     TensorOptions().dtype(input.dtype()).device(input.device()));
    indices = input.reshape({input.numel()});
    if (psw.defined()) psw = psw.reshape({psw.numel()});
  } else {
    EMBER_CHECK(input.dim() == 1, ValueError,
                "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    EMBER_CHECK(offsets.defined(), ValueError, "offsets has to be a 1D Tensor but got None");
    EMBER_CHECK(offsets.dim() == 1, ValueError, "offsets has to be a 1D Tensor");
  }
  const int64_t mode = std::visit(
      [](const auto& m) -> int64_t {
        using M = std::decay_t<decltype(m)>;
        return std::is_same_v<M, enumtype::kSum> ? 0 : std::is_same_v<M, enumtype::kMean> ? 1 : 2;
      },
      options.mode());
  if (mode == 2) {
    EMBER_CHECK(!options.scale_grad_by_freq(), ValueError,
                "max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK(!options.sparse(), ValueError, "max mode does not support sparse weights");
  }
  if (options.max_norm()) {
    embedding_renorm_(weight, indices, *options.max_norm(), options.norm_type());
  }
  return std::get<0>(ember::embedding_bag(weight, indices, offsets, options.scale_grad_by_freq(),
                                          mode, options.sparse(), psw,
                                          options.include_last_offset(), options.padding_idx()));
}

}  // namespace functional

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& options_) : options(options_) {
  reset();
}

void EmbeddingBagImpl::reset() {
  const int64_t V = options.num_embeddings(), D = options.embedding_dim();
  if (auto& p = options.padding_idx()) {
    EMBER_CHECK(*p < V && *p >= -V, ValueError, "EmbeddingBag: padding_idx (", *p,
                ") must be within num_embeddings (", V, ")");
    if (*p < 0) *p += V;
  }
  if (options._weight().defined() && !weight.defined()) {
    EMBER_CHECK(options._weight().sizes() == IntArrayRef({V, D}), ValueError,
                "Shape of weight does not match num_embeddings and embedding_dim: expected [", V,
                ", ", D, "], got ", options._weight().sizes());
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", empty({V, D}));
    reset_parameters();
  }
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard no_grad;
    weight.select(0, *options.padding_idx()).fill_(0);
  }
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=" << std::boolalpha << true;
  if (options.sparse()) stream << ", sparse=" << std::boolalpha << true;
  if (!std::holds_alternative<enumtype::kMean>(options.mode())) {
    stream << ", mode="
           << (std::holds_alternative<enumtype::kSum>(options.mode()) ? "kSum" : "kMax");
  }
  if (options.include_last_offset()) stream << ", include_last_offset=" << std::boolalpha << true;
  if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings,
                                           const EmbeddingBagFromPretrainedOptions& options) {
  EMBER_CHECK(embeddings.dim() == 2, ValueError,
              "Embeddings parameter is expected to be 2-dimensional, got shape ",
              embeddings.sizes());
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings.detach().clone())
                       .max_norm(options.max_norm())
                       .norm_type(options.norm_type())
                       .scale_grad_by_freq(options.scale_grad_by_freq())
                       .mode(options.mode())
                       .sparse(options.sparse())
                       .include_last_offset(options.include_last_offset())
                       .padding_idx(options.padding_idx()));
  bag->weight.set_requires_grad(!options.freeze());
  return bag;
}

}  // namespace nn
}  // namespace ember
