#pragma once
// Variable-length sequences for the recurrent layers, as libtorch's torch::nn::utils::rnn:
// PackedSequence holds the time steps of a batch sorted by length, longest first, one after the
// other (step t holds batch_sizes[t] rows), so RNN, LSTM and GRU skip the padding.
//
//   auto packed = ember::nn::utils::rnn::pack_padded_sequence(x, lengths, /*batch_first=*/true,
//                                                              /*enforce_sorted=*/false);
//   auto [out, state] = lstm->forward_with_packed_input(packed);
//   auto [padded, out_lengths] = ember::nn::utils::rnn::pad_packed_sequence(out, true);
#include <optional>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils::rnn {

class EMBER_API PackedSequence {
 public:
  PackedSequence() = default;
  // batch_sizes: int64 on the CPU, one per time step, non-increasing. sorted_indices[i] is the
  // original batch index of the i-th longest sequence; unsorted_indices its inverse.
  PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {},
                 Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }
  bool is_cuda() const { return data_.is_cuda(); }
  bool is_pinned() const { return data_.is_pinned(); }
  // data (and the indices) on another device or dtype; batch_sizes stay on the CPU.
  PackedSequence to(const TensorOptions& options) const;
  PackedSequence cuda() const;
  PackedSequence cpu() const;

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

// The permutation p^-1 with p^-1[p[i]] = i.
EMBER_API Tensor invert_permutation(const Tensor& permutation);

// A padded batch [T, B, *] ([B, T, *] with batch_first) and each sequence's length (int64 on the
// CPU, or a list). With enforce_sorted the lengths must be non-increasing; otherwise the batch is
// sorted and the permutation kept.
EMBER_API PackedSequence pack_padded_sequence(Tensor input, Tensor lengths,
                                              bool batch_first = false, bool enforce_sorted = true);
// The inverse: the padded batch (padding_value past each sequence's end, total_length steps when
// given) and the lengths, in the original batch order.
EMBER_API std::tuple<Tensor, Tensor> pad_packed_sequence(
    const PackedSequence& sequence, bool batch_first = false, double padding_value = 0.0,
    std::optional<int64_t> total_length = std::nullopt);
// Sequences [L_i, *] stacked into [max L, B, *] ([B, max L, *] with batch_first), padded.
EMBER_API Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false,
                              double padding_value = 0.0);
EMBER_API PackedSequence pack_sequence(const std::vector<Tensor>& sequences,
                                       bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
