// PackedSequence and its helpers (nn::utils::rnn); errors are PyTorch's words and, where PyTorch
// raises RuntimeError, ember::Error (RuntimeError in Python). packing gathers each time step's live
// rows (narrow + cat), unpacking pads them back (cat with a filled block + stack), so both are
// differentiable and run on every device. batch_sizes and lengths live on the CPU, as in PyTorch,
// so no step needs a device synchronisation.
#include "ember/nn/utils/rnn.h"

#include <algorithm>

#include "ember/ops.h"
#include "ember/tensor_data.h"

namespace ember::nn::utils::rnn {
namespace {

std::vector<int64_t> cpu_values(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// `rows` rows of `value` shaped as the rows of `like` ([rows, *like.sizes()[1:]]).
Tensor filled_rows(const Tensor& like, int64_t rows, double value) {
  std::vector<int64_t> shape = like.sizes().vec();
  shape[0] = rows;
  return full(shape, value, like.options().requires_grad(false));
}

}  // namespace

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  EMBER_CHECK(batch_sizes_.defined() && batch_sizes_.dim() == 1 && batch_sizes_.is_cpu() &&
                  batch_sizes_.dtype() == kLong,
              ValueError, "PackedSequence: batch_sizes must be a 1-D int64 CPU tensor, got ",
              batch_sizes_.defined() ? batch_sizes_.sizes() : IntArrayRef());
  if (sorted_indices_.defined() && !unsorted_indices_.defined()) {
    unsorted_indices_ = invert_permutation(sorted_indices_);
  }
}

PackedSequence PackedSequence::to(const TensorOptions& options) const {
  auto move = [&](const Tensor& t) { return t.defined() ? t.to(options.device()) : t; };
  return PackedSequence(data_.to(options), batch_sizes_, move(sorted_indices_),
                        move(unsorted_indices_));
}

PackedSequence PackedSequence::cuda() const {
  return to(TensorOptions().device(Device(kCUDA)).dtype(data_.dtype()));
}

PackedSequence PackedSequence::cpu() const {
  return to(TensorOptions().device(Device(kCPU)).dtype(data_.dtype()));
}

Tensor invert_permutation(const Tensor& permutation) {
  // The positions that sort a permutation are its inverse.
  return permutation.argsort();
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first,
                                    bool enforce_sorted) {
  EMBER_CHECK(lengths.dim() == 1 && lengths.is_cpu() && lengths.dtype() == kLong, ValueError,
              "'lengths' argument should be a 1D CPU int64 tensor, but got ", lengths.dim(), "D ",
              lengths.device().str(), " ", python_name(lengths.dtype()), " tensor");
  EMBER_CHECK(input.dim() >= 2, ValueError,
              "pack_padded_sequence: expected an input of at least 2 dims, got shape ",
              input.sizes());
  const int64_t batch_dim = batch_first ? 0 : 1;
  EMBER_CHECK(lengths.numel() == input.size(batch_dim), Error,
              "Expected `len(lengths)` to be equal to batch_size, but got ", lengths.numel(),
              " (batch_size=", input.size(batch_dim), ")");
  Tensor sorted_indices;
  if (enforce_sorted) {
    const std::vector<int64_t> l = cpu_values(lengths);
    EMBER_CHECK(std::is_sorted(l.rbegin(), l.rend()), Error,
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.");
  } else {
    auto [sorted, indices] = lengths.sort(/*stable=*/true, 0, /*descending=*/true);
    lengths = sorted;
    sorted_indices = indices;
    input = input.index_select(batch_dim, sorted_indices.to(input.device()));
  }
  if (batch_first) input = input.transpose(0, 1);
  const std::vector<int64_t> l = cpu_values(lengths);
  const int64_t T = input.size(0);
  EMBER_CHECK(l.empty() || l.back() > 0, Error,
              "Length of all samples has to be greater than 0, but found an element in "
              "'lengths' that is <= 0");
  EMBER_CHECK(l.empty() || l.front() <= T, ValueError, "pack_padded_sequence: a length of ",
              l.front(), " exceeds the ", T, " time steps of the input of shape ", input.sizes());
  // batch_sizes[t]: how many sequences are longer than t (lengths are sorted, longest first).
  std::vector<int64_t> batch_sizes;
  std::vector<Tensor> steps;
  // The time steps as one unbind node (a select per step would cost a zeros tensor of the whole
  // input in each step's backward).
  const std::vector<Tensor> all_steps =
      l.empty() || l.front() == 0 ? std::vector<Tensor>() : input.unbind(0);
  for (int64_t t = 0; !l.empty() && t < l.front(); ++t) {
    const int64_t live = std::count_if(l.begin(), l.end(), [t](int64_t n) { return n > t; });
    batch_sizes.push_back(live);
    steps.push_back(all_steps[static_cast<size_t>(t)].narrow(0, 0, live));
  }
  Tensor sizes = tensor(batch_sizes, kLong);
  Tensor data = steps.empty() ? input.flatten(0, 1).narrow(0, 0, 0) : cat(steps, 0);
  return PackedSequence(data, sizes,
                        sorted_indices.defined() ? sorted_indices.to(data.device()) : Tensor());
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first,
                                               double padding_value,
                                               std::optional<int64_t> total_length) {
  const std::vector<int64_t> batch_sizes = cpu_values(sequence.batch_sizes());
  const int64_t T = static_cast<int64_t>(batch_sizes.size());
  const int64_t B = T > 0 ? batch_sizes.front() : 0;
  const int64_t steps_out = total_length.value_or(T);
  EMBER_CHECK(steps_out >= T, ValueError,
              "Expected total_length to be at least the length of the longest sequence in input, "
              "but got total_length=",
              steps_out, " and max sequence length being ", T);
  const Tensor& data = sequence.data();
  std::vector<Tensor> steps;
  // Each step's rows from one split node (one cat in the backward, not a zeros tensor per step).
  int64_t packed_rows = 0;
  for (int64_t n : batch_sizes) packed_rows += n;
  std::vector<Tensor> step_rows;
  if (T > 0 && packed_rows == data.size(0)) step_rows = data.split_with_sizes(batch_sizes, 0);
  int64_t offset = 0;
  for (int64_t t = 0; t < steps_out; ++t) {
    const int64_t live = t < T ? batch_sizes[static_cast<size_t>(t)] : 0;
    Tensor rows = t < static_cast<int64_t>(step_rows.size()) ? step_rows[static_cast<size_t>(t)]
                                                             : data.narrow(0, offset, live);
    offset += live;
    steps.push_back(live == B ? rows : cat({rows, filled_rows(data, B - live, padding_value)}, 0));
  }
  Tensor padded = steps.empty() ? filled_rows(data, 0, padding_value).unsqueeze(0) : stack(steps);
  std::vector<int64_t> lengths(static_cast<size_t>(B), 0);
  for (int64_t b = 0; b < B; ++b) {
    lengths[static_cast<size_t>(b)] =
        std::count_if(batch_sizes.begin(), batch_sizes.end(), [b](int64_t n) { return n > b; });
  }
  Tensor length_tensor = tensor(lengths, kLong);
  if (sequence.unsorted_indices().defined()) {
    padded = padded.index_select(1, sequence.unsorted_indices().to(padded.device()));
    length_tensor = length_tensor.index_select(0, sequence.unsorted_indices().cpu());
  }
  return {batch_first ? padded.transpose(0, 1) : padded, length_tensor};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), Error, "received an empty list of sequences");
  int64_t longest = 0;
  for (const Tensor& s : sequences) {
    EMBER_CHECK(s.dim() >= 1, ValueError, "pad_sequence: expected sequences of at least 1 dim");
    longest = std::max(longest, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) {
    padded.push_back(
        s.size(0) == longest ? s : cat({s, filled_rows(s, longest - s.size(0), padding_value)}, 0));
  }
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(pad_sequence(sequences), tensor(lengths, kLong), false,
                              enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
