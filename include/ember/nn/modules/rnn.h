#pragma once
// Recurrent layers as libtorch 1.13 has them: RNN, LSTM, GRU (multi-layer, bidirectional,
// batch_first, inter-layer dropout) and RNNCell, LSTMCell, GRUCell. Parameters carry PyTorch's
// names (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, ..._reverse), so state dicts line up
// with PyTorch's. Each step is composed from linear, sigmoid and tanh.
//
//   auto lstm = ember::nn::LSTM(ember::nn::LSTMOptions(8, 16).num_layers(2).batch_first(true));
//   auto [output, state] = lstm->forward(x);   // output [B, T, 16]
//   auto [h_n, c_n] = state;                   // each [2, B, 16]
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module.h"
#include "ember/nn/options/rnn.h"
#include "ember/nn/pimpl.h"
#include "ember/nn/utils/rnn.h"

namespace ember::nn {

namespace detail {

// Registers every layer's and direction's weights (and biases) under PyTorch's names and returns
// them in that order: w_ih, w_hh[, b_ih, b_hh] per layer and direction.
EMBER_API std::vector<Tensor> register_rnn_parameters(Module& module,
                                                      const RNNOptionsBase& options);
// U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) for every weight and bias, as PyTorch.
EMBER_API void reset_rnn_parameters(const std::vector<Tensor>& weights, int64_t hidden_size);
EMBER_API void print_rnn(std::ostream& stream, const std::string& name,
                         const RNNOptionsBase& options);

// The shared body of RNN/LSTM/GRU (libtorch's detail::RNNImplBase).
template <typename Derived>
class RNNImplBase : public Cloneable<Derived> {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options) : options_base(options) {}
  void reset() override { flat_weights_ = register_rnn_parameters(*this, options_base); }
  void reset_parameters() { reset_rnn_parameters(flat_weights_, options_base.hidden_size()); }
  void pretty_print(std::ostream& stream) const override {
    print_rnn(stream, Module::name(), options_base);
  }
  // cuDNN's packed weights in libtorch; nothing to do here.
  void flatten_parameters() {}
  std::vector<Tensor> all_weights() const { return flat_weights_; }

  RNNOptionsBase options_base;

 protected:
  std::vector<Tensor> flat_weights_;
};

// The sequence [T, B, I] (time-major, batched) through every layer and direction from the
// initial states h0 (and c0 for LSTM), each [layers * directions, B, H]. Returns the last layer's
// output [T, B, H * directions] and the final states. With batch_sizes (a packed batch, sorted
// longest first, padded), step t runs the first batch_sizes[t] sequences only; the output is zero
// past each sequence's end and the final states are each sequence's own last ones.
EMBER_API std::tuple<Tensor, Tensor, Tensor> run_rnn(const RNNOptionsBase& options,
                                                     const std::vector<Tensor>& weights,
                                                     bool training, const Tensor& input,
                                                     const Tensor& h0, const Tensor& c0,
                                                     const std::vector<int64_t>& batch_sizes = {});
// A packed batch through run_rnn: the output packed as the input, and the final states in the
// caller's batch order (hx and cx, when given, are in that order too, as PyTorch's).
EMBER_API std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> run_rnn_packed(
    const RNNOptionsBase& options, const std::vector<Tensor>& weights, bool training,
    const utils::rnn::PackedSequence& packed, const Tensor& hx, const Tensor& cx, const char* name);

// The base of the cells: weight_ih, weight_hh, bias_ih, bias_hh.
template <typename Derived>
class RNNCellImplBase : public Cloneable<Derived> {
 public:
  explicit RNNCellImplBase(const RNNCellOptionsBase& options) : options_base(options) {}
  void reset() override;
  void reset_parameters() {
    reset_rnn_parameters({weight_ih, weight_hh, bias_ih, bias_hh}, options_base.hidden_size());
  }

  RNNCellOptionsBase options_base;
  Tensor weight_ih;  // [num_chunks * hidden_size, input_size]
  Tensor weight_hh;  // [num_chunks * hidden_size, hidden_size]
  Tensor bias_ih;    // [num_chunks * hidden_size], undefined without bias
  Tensor bias_hh;
};

EMBER_API void register_cell_parameters(Module& module, const RNNCellOptionsBase& options,
                                        Tensor& weight_ih, Tensor& weight_hh, Tensor& bias_ih,
                                        Tensor& bias_hh);

template <typename Derived>
void RNNCellImplBase<Derived>::reset() {
  register_cell_parameters(*this, options_base, weight_ih, weight_hh, bias_ih, bias_hh);
}

}  // namespace detail

class EMBER_API RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  // (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  // A packed batch: the output packed the same way; h_n in the caller's batch order.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  RNNOptions options;
};
EMBER_MODULE(RNN);

class EMBER_API LSTMImpl : public detail::RNNImplBase<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  // (output, (h_n, c_n)); hx_opt is (h_0, c_0), zeros when not given.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input,
      std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  LSTMOptions options;
};
EMBER_MODULE(LSTM);

class EMBER_API GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  // (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});
  GRUOptions options;
};
EMBER_MODULE(GRU);

class EMBER_API RNNCellImpl : public detail::RNNCellImplBase<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  // h' for input [B, I] (or [I]) and hx [B, H] (zeros when not given).
  Tensor forward(const Tensor& input, Tensor hx = {});
  void pretty_print(std::ostream& stream) const override;
  RNNCellOptions options;
};
EMBER_MODULE(RNNCell);

class EMBER_API LSTMCellImpl : public detail::RNNCellImplBase<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  // (h', c') for input [B, I] (or [I]) and hx_opt (h, c), zeros when not given.
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  void pretty_print(std::ostream& stream) const override;
  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

class EMBER_API GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});
  void pretty_print(std::ostream& stream) const override;
  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
