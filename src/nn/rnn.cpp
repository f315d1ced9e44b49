// RNN, LSTM, GRU and their cells. A layer first projects the whole sequence by W_ih (one GEMM),
// then steps through time with h @ W_hh^T and the gate math of PyTorch's cells (ATen's
// RNN.cpp), so autograd differentiates everything and every device runs it.
#include "ember/nn/modules/rnn.h"

#include <cmath>
#include <string>

#include "ember/nn/init.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"

namespace ember::nn {
namespace {

enum class Cell { LSTM, GRU, Tanh, ReLU };

Cell cell_of(const detail::RNNOptionsBase& o) {
  if (std::holds_alternative<enumtype::kLSTM>(o.mode())) return Cell::LSTM;
  if (std::holds_alternative<enumtype::kGRU>(o.mode())) return Cell::GRU;
  if (std::holds_alternative<enumtype::kRNN_RELU>(o.mode())) return Cell::ReLU;
  return Cell::Tanh;
}

int64_t gate_count(Cell cell) {
  return cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
}

const char* cell_name(Cell cell) {
  return cell == Cell::LSTM ? "LSTM" : cell == Cell::GRU ? "GRU" : "RNN";
}

// One time step: the new h (and c for LSTM) from the projected input xw = x W_ih^T + b_ih.
void step(Cell cell, const Tensor& xw, Tensor& h, Tensor& c, const Tensor& w_hh, const Tensor& b_hh,
          int64_t H) {
  Tensor hw = ember::linear(h, w_hh, b_hh);
  switch (cell) {
    case Cell::LSTM: {
      // One split node: its backward is one cat of the four gates' gradients.
      const std::vector<Tensor> gates = (xw + hw).split(H, -1);
      Tensor in = sigmoid(gates[0]);
      Tensor forget = sigmoid(gates[1]);
      Tensor cell_gate = tanh(gates[2]);
      Tensor out = sigmoid(gates[3]);
      c = forget * c + in * cell_gate;
      h = out * tanh(c);
      return;
    }
    case Cell::GRU: {
      const std::vector<Tensor> x3 = xw.split(H, -1), h3 = hw.split(H, -1);
      Tensor reset = sigmoid(x3[0] + h3[0]);
      Tensor update = sigmoid(x3[1] + h3[1]);
      Tensor candidate = tanh(x3[2] + reset * h3[2]);
      h = (h - candidate) * update + candidate;
      return;
    }
    case Cell::Tanh:
      h = tanh(xw + hw);
      return;
    case Cell::ReLU:
      h = relu(xw + hw);
      return;
  }
}

// The checks of ATen's cell functions: 2-D input and state of matching batch and widths.
void check_cell(const char* name, const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                const Tensor& w_hh, int64_t gates) {
  EMBER_CHECK(input.dim() == 2 && hx.dim() == 2, ValueError, name,
              ": expected 2-D input and hidden state, got input of shape ", input.sizes(),
              " and hidden of shape ", hx.sizes());
  EMBER_CHECK(input.size(0) == hx.size(0), ValueError, name, ": Input batch size ", input.size(0),
              " doesn't match hidden0 batch size ", hx.size(0));
  EMBER_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2 && w_ih.size(1) == input.size(1) &&
                  w_hh.size(1) == hx.size(1) && w_ih.size(0) == gates * hx.size(1) &&
                  w_hh.size(0) == gates * hx.size(1),
              ValueError, name, ": weights of shape ", w_ih.sizes(), " and ", w_hh.sizes(),
              " do not fit input of shape ", input.sizes(), " and hidden of shape ", hx.sizes(),
              " (expected [", gates * hx.size(1), ", ", input.size(1), "] and [",
              gates * hx.size(1), ", ", hx.size(1), "])");
}

Tensor one_step(Cell cell, const char* name, const Tensor& input, const Tensor& hx,
                const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  check_cell(name, input, hx, w_ih, w_hh, gate_count(cell));
  Tensor h = hx, c;
  step(cell, ember::linear(input, w_ih, b_ih), h, c, w_hh, b_hh, hx.size(1));
  return h;
}

std::string layer_suffix(int64_t layer, int64_t direction) {
  return "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
}

void check_options(const detail::RNNOptionsBase& o, const char* name) {
  EMBER_CHECK(o.input_size() > 0 && o.hidden_size() > 0, ValueError, name,
              ": input_size and hidden_size must be positive, got input_size=", o.input_size(),
              ", hidden_size=", o.hidden_size());
  EMBER_CHECK(o.num_layers() >= 1, ValueError, name, ": num_layers must be at least 1, got ",
              o.num_layers());
  EMBER_CHECK(o.dropout() >= 0 && o.dropout() <= 1, ValueError, name,
              ": dropout should be a number in range [0, 1] representing the probability of an "
              "element being zeroed, got ",
              o.dropout());
  EMBER_CHECK(o.proj_size() >= 0 && o.proj_size() < o.hidden_size(), ValueError, name,
              ": proj_size has to be a positive integer, smaller than hidden_size or zero to "
              "disable projections, got proj_size=",
              o.proj_size(), ", hidden_size=", o.hidden_size());
  EMBER_CHECK(o.proj_size() == 0 || std::holds_alternative<enumtype::kLSTM>(o.mode()), ValueError,
              name, ": proj_size argument is only supported for LSTM, not RNN or GRU");
}

// The width of h: proj_size for a projected LSTM, else hidden_size (c keeps hidden_size).
int64_t state_width(const detail::RNNOptionsBase& o) {
  return o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
}

// Parameters per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr].
int64_t weights_per_layer(const detail::RNNOptionsBase& o) {
  return (o.bias() ? 4 : 2) + (o.proj_size() > 0 ? 1 : 0);
}

}  // namespace

namespace detail {

std::vector<Tensor> register_rnn_parameters(Module& module, const RNNOptionsBase& o) {
  const Cell cell = cell_of(o);
  check_options(o, cell_name(cell));
  const int64_t G = gate_count(cell) * o.hidden_size();
  const int64_t directions = o.bidirectional() ? 2 : 1;
  std::vector<Tensor> weights;
  const int64_t width = state_width(o);
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    const int64_t in = layer == 0 ? o.input_size() : width * directions;
    for (int64_t d = 0; d < directions; ++d) {
      const std::string s = layer_suffix(layer, d);
      weights.push_back(module.register_parameter("weight_ih" + s, empty({G, in})));
      weights.push_back(module.register_parameter("weight_hh" + s, empty({G, width})));
      if (o.bias()) {
        weights.push_back(module.register_parameter("bias_ih" + s, empty({G})));
        weights.push_back(module.register_parameter("bias_hh" + s, empty({G})));
      }
      if (o.proj_size() > 0) {  // h = (o * tanh(c)) @ W_hr^T
        weights.push_back(
            module.register_parameter("weight_hr" + s, empty({o.proj_size(), o.hidden_size()})));
      }
    }
  }
  reset_rnn_parameters(weights, o.hidden_size());
  return weights;
}

void reset_rnn_parameters(const std::vector<Tensor>& weights, int64_t hidden_size) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (const Tensor& w : weights) {
    if (w.defined()) init::uniform_(w, -bound, bound);
  }
}

void print_rnn(std::ostream& stream, const std::string& name, const RNNOptionsBase& o) {
  std::string n = name.substr(name.rfind("::") == std::string::npos ? 0 : name.rfind("::") + 2);
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "Impl") == 0) n.resize(n.size() - 4);
  stream << std::boolalpha << "ember::nn::" << n << "(input_size=" << o.input_size()
         << ", hidden_size=" << o.hidden_size() << ", num_layers=" << o.num_layers()
         << ", bias=" << o.bias() << ", batch_first=" << o.batch_first()
         << ", dropout=" << o.dropout() << ", bidirectional=" << o.bidirectional();
  if (o.proj_size() > 0) stream << ", proj_size=" << o.proj_size();
  stream << ")";
}

std::tuple<Tensor, Tensor, Tensor> run_rnn(const RNNOptionsBase& o,
                                           const std::vector<Tensor>& weights, bool training,
                                           const Tensor& input, const Tensor& h0, const Tensor& c0,
                                           const std::vector<int64_t>& batch_sizes) {
  const Cell cell = cell_of(o);
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const int64_t per = weights_per_layer(o);
  const int64_t T = input.size(0);
  const int64_t H = o.hidden_size(), width = state_width(o);
  Tensor layer_input = input;
  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    std::vector<Tensor> direction_outputs;
    for (int64_t d = 0; d < directions; ++d) {
      const int64_t index = layer * directions + d;
      const Tensor& w_ih = weights[index * per];
      const Tensor& w_hh = weights[index * per + 1];
      const Tensor b_ih = o.bias() ? weights[index * per + 2] : Tensor();
      const Tensor b_hh = o.bias() ? weights[index * per + 3] : Tensor();
      const Tensor w_hr = o.proj_size() > 0 ? weights[index * per + per - 1] : Tensor();
      // One step, then the projection of h when there is one.
      auto advance = [&](const Tensor& xw, Tensor& h_step, Tensor& c_step) {
        step(cell, xw, h_step, c_step, w_hh, b_hh, H);
        if (w_hr.defined()) h_step = ember::linear(h_step, w_hr);
      };
      // Every time step's input projection at once: [T, B, G * H], unbound into steps by one
      // node (a select per step would fill a zeros tensor of all T steps in each backward).
      Tensor projected = ember::linear(layer_input, w_ih, b_ih);
      const std::vector<Tensor> projected_steps =
          T > 0 ? projected.unbind(0) : std::vector<Tensor>();
      Tensor h = h0.select(0, index);
      Tensor c = cell == Cell::LSTM ? c0.select(0, index) : Tensor();
      std::vector<Tensor> outputs(static_cast<size_t>(T));
      const int64_t B = input.size(1);
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = d == 0 ? s : T - 1 - s;
        const int64_t live = batch_sizes.empty() ? B : batch_sizes[static_cast<size_t>(t)];
        if (live == B) {
          advance(projected_steps[static_cast<size_t>(t)], h, c);
          outputs[static_cast<size_t>(t)] = h;
          continue;
        }
        // Packed input: only the first `live` sequences have step t. The others keep their
        // state (finished ones going forward; not yet started ones, still h0, going backward).
        Tensor h_live = h.narrow(0, 0, live);
        Tensor c_live = c.defined() ? c.narrow(0, 0, live) : Tensor();
        advance(projected_steps[static_cast<size_t>(t)].narrow(0, 0, live), h_live, c_live);
        h = cat({h_live, h.narrow(0, live, B - live)}, 0);
        if (c.defined()) c = cat({c_live, c.narrow(0, live, B - live)}, 0);
        outputs[static_cast<size_t>(t)] = cat({h_live, zeros({B - live, width}, h.options())}, 0);
      }
      direction_outputs.push_back(T > 0 ? stack(outputs, 0) : projected.narrow(-1, 0, width));
      h_n.push_back(h);
      if (cell == Cell::LSTM) c_n.push_back(c);
    }
    layer_input = directions == 2 ? cat(direction_outputs, -1) : direction_outputs[0];
    if (o.dropout() > 0 && training && layer + 1 < o.num_layers()) {
      layer_input = ember::dropout(layer_input, o.dropout(), true);
    }
  }
  return {layer_input, stack(h_n, 0), cell == Cell::LSTM ? stack(c_n, 0) : Tensor()};
}

void register_cell_parameters(Module& module, const RNNCellOptionsBase& o, Tensor& weight_ih,
                              Tensor& weight_hh, Tensor& bias_ih, Tensor& bias_hh) {
  EMBER_CHECK(o.input_size() > 0 && o.hidden_size() > 0, ValueError,
              "RNN cell: input_size and hidden_size must be positive, got input_size=",
              o.input_size(), ", hidden_size=", o.hidden_size());
  const int64_t G = o.num_chunks() * o.hidden_size();
  weight_ih = module.register_parameter("weight_ih", empty({G, o.input_size()}));
  weight_hh = module.register_parameter("weight_hh", empty({G, o.hidden_size()}));
  bias_ih = module.register_parameter("bias_ih", o.bias() ? empty({G}) : Tensor(), o.bias());
  bias_hh = module.register_parameter("bias_hh", o.bias() ? empty({G}) : Tensor(), o.bias());
  reset_rnn_parameters({weight_ih, weight_hh, bias_ih, bias_hh}, o.hidden_size());
}

}  // namespace detail

namespace {

// The sequence as [T, B, I] and whether it was unbatched, after libtorch's checks.
std::pair<Tensor, bool> time_major(const detail::RNNOptionsBase& o, const Tensor& input,
                                   const char* name) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, ValueError, name,
              ": Expected input to be 2-D or 3-D but received ", input.dim(), "-D tensor of shape ",
              input.sizes());
  EMBER_CHECK(input.size(-1) == o.input_size(), ValueError, name,
              ": input.size(-1) must be equal to input_size. Expected ", o.input_size(), ", got ",
              input.size(-1), " (input of shape ", input.sizes(), ")");
  EMBER_CHECK(input.is_floating_point(), TypeError, name, ": expected a floating point input, got ",
              python_name(input.dtype()));
  if (input.dim() == 2) return {input.unsqueeze(1), true};
  return {o.batch_first() ? input.transpose(0, 1) : input, false};
}

// The initial state as [L * D, B, width]: zeros when undefined, else checked against that shape
// (unbatched: [L * D, width]). The width is hidden_size, or proj_size for a projected LSTM's h.
Tensor initial_state(const detail::RNNOptionsBase& o, const Tensor& hx, const Tensor& x,
                     bool unbatched, const char* name, const char* which) {
  const int64_t rows = o.num_layers() * (o.bidirectional() ? 2 : 1);
  const int64_t B = x.size(1);
  const int64_t width = std::string(which) == "hidden[1]" ? o.hidden_size() : state_width(o);
  if (!hx.defined()) return zeros({rows, B, width}, x.options().requires_grad(false));
  std::vector<int64_t> expected =
      unbatched ? std::vector<int64_t>{rows, width} : std::vector<int64_t>{rows, B, width};
  EMBER_CHECK(hx.sizes() == IntArrayRef(expected), ValueError, name, ": Expected ", which, " size ",
              IntArrayRef(expected), ", got ", hx.sizes());
  return unbatched ? hx.unsqueeze(1) : hx;
}

Tensor batch_output(const detail::RNNOptionsBase& o, const Tensor& out, bool unbatched) {
  if (unbatched) return out.squeeze(1);
  return o.batch_first() ? out.transpose(0, 1) : out;
}

}  // namespace

namespace detail {
std::tuple<utils::rnn::PackedSequence, Tensor, Tensor> run_rnn_packed(
    const detail::RNNOptionsBase& o, const std::vector<Tensor>& weights, bool training,
    const utils::rnn::PackedSequence& packed, const Tensor& hx, const Tensor& cx,
    const char* name) {
  using utils::rnn::PackedSequence;
  const Tensor& data = packed.data();
  EMBER_CHECK(data.dim() == 2 && data.size(1) == o.input_size(), ValueError, name,
              ": expected packed data of shape [*, ", o.input_size(), "], got ", data.sizes());
  Tensor sizes = packed.batch_sizes().contiguous();
  const std::vector<int64_t> batch_sizes(sizes.data_ptr<int64_t>(),
                                         sizes.data_ptr<int64_t>() + sizes.numel());
  // The batch in packed (longest first) order, padded: [T, B, I].
  Tensor padded = std::get<0>(utils::rnn::pad_packed_sequence(PackedSequence(data, sizes)));
  const Tensor& sorted = packed.sorted_indices();
  auto in_packed_order = [&](const Tensor& state, const char* which) {
    Tensor s = initial_state(o, state, padded, false, name, which);
    return sorted.defined() ? s.index_select(1, sorted) : s;
  };
  const bool lstm = std::holds_alternative<enumtype::kLSTM>(o.mode());
  Tensor h0 = in_packed_order(hx, lstm ? "hidden[0]" : "hidden");
  Tensor c0 = lstm ? in_packed_order(cx, "hidden[1]") : Tensor();
  auto [out, h_n, c_n] = detail::run_rnn(o, weights, training, padded, h0, c0, batch_sizes);
  std::vector<Tensor> steps;
  const std::vector<Tensor> out_steps = batch_sizes.empty() ? std::vector<Tensor>() : out.unbind(0);
  for (size_t t = 0; t < batch_sizes.size(); ++t) {
    steps.push_back(out_steps[t].narrow(0, 0, batch_sizes[t]));
  }
  PackedSequence result(steps.empty() ? out.flatten(0, 1) : cat(steps, 0), sizes, sorted,
                        packed.unsorted_indices());
  if (packed.unsorted_indices().defined()) {
    h_n = h_n.index_select(1, packed.unsorted_indices());
    if (c_n.defined()) c_n = c_n.index_select(1, packed.unsorted_indices());
  }
  return {result, h_n, c_n};
}
}  // namespace detail

namespace {

detail::RNNOptionsBase base_options(const RNNOptions& o) {
  detail::RNNOptionsBase b(std::holds_alternative<enumtype::kReLU>(o.nonlinearity())
                               ? detail::RNNOptionsBase::rnn_options_base_mode_t(kRNN_RELU)
                               : detail::RNNOptionsBase::rnn_options_base_mode_t(kRNN_TANH),
                           o.input_size(), o.hidden_size());
  return b.num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}
detail::RNNOptionsBase base_options(const LSTMOptions& o) {
  return detail::RNNOptionsBase(kLSTM, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional())
      .proj_size(o.proj_size());
}
detail::RNNOptionsBase base_options(const GRUOptions& o) {
  return detail::RNNOptionsBase(kGRU, o.input_size(), o.hidden_size())
      .num_layers(o.num_layers())
      .bias(o.bias())
      .batch_first(o.batch_first())
      .dropout(o.dropout())
      .bidirectional(o.bidirectional());
}

}  // namespace

RNNImpl::RNNImpl(const RNNOptions& options_)
    : RNNImplBase(base_options(options_)), options(options_) {
  reset();
}
std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, unbatched] = time_major(options_base, input, "RNN");
  Tensor h0 = initial_state(options_base, hx, x, unbatched, "RNN", "hidden");
  auto [out, h_n, unused] = detail::run_rnn(options_base, flat_weights_, is_training(), x, h0, {});
  return {batch_output(options_base, out, unbatched), unbatched ? h_n.squeeze(1) : h_n};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : RNNImplBase(base_options(options_)), options(options_) {
  reset();
}
std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  auto [x, unbatched] = time_major(options_base, input, "LSTM");
  Tensor h0 = initial_state(options_base, hx_opt ? std::get<0>(*hx_opt) : Tensor(), x, unbatched,
                            "LSTM", "hidden[0]");
  Tensor c0 = initial_state(options_base, hx_opt ? std::get<1>(*hx_opt) : Tensor(), x, unbatched,
                            "LSTM", "hidden[1]");
  auto [out, h_n, c_n] = detail::run_rnn(options_base, flat_weights_, is_training(), x, h0, c0);
  if (unbatched) {
    h_n = h_n.squeeze(1);
    c_n = c_n.squeeze(1);
  }
  return {batch_output(options_base, out, unbatched), {h_n, c_n}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>>
LSTMImpl::forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                                    std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  auto [out, h_n, c_n] = detail::run_rnn_packed(
      options_base, flat_weights_, is_training(), packed_input,
      hx_opt ? std::get<0>(*hx_opt) : Tensor(), hx_opt ? std::get<1>(*hx_opt) : Tensor(), "LSTM");
  return {out, {h_n, c_n}};
}

GRUImpl::GRUImpl(const GRUOptions& options_)
    : RNNImplBase(base_options(options_)), options(options_) {
  reset();
}
std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, unbatched] = time_major(options_base, input, "GRU");
  Tensor h0 = initial_state(options_base, hx, x, unbatched, "GRU", "hidden");
  auto [out, h_n, unused] = detail::run_rnn(options_base, flat_weights_, is_training(), x, h0, {});
  return {batch_output(options_base, out, unbatched), unbatched ? h_n.squeeze(1) : h_n};
}

std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h_n, unused] = detail::run_rnn_packed(options_base, flat_weights_, is_training(),
                                                   packed_input, hx, {}, "RNN");
  return {out, h_n};
}

std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  auto [out, h_n, unused] = detail::run_rnn_packed(options_base, flat_weights_, is_training(),
                                                   packed_input, hx, {}, "GRU");
  return {out, h_n};
}

// ---- cells ----

namespace {

// The input as [B, I] and whether it was unbatched.
std::pair<Tensor, bool> cell_input(const detail::RNNCellOptionsBase& o, const Tensor& input,
                                   const char* name) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, ValueError, name,
              ": Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor of shape ",
              input.sizes());
  EMBER_CHECK(input.size(-1) == o.input_size(), ValueError, name,
              ": input has inconsistent input_size: got ", input.size(-1), " expected ",
              o.input_size());
  return {input.dim() == 1 ? input.unsqueeze(0) : input, input.dim() == 1};
}

Tensor cell_state(const detail::RNNCellOptionsBase& o, const Tensor& hx, const Tensor& x,
                  bool unbatched, const char* name, const char* which) {
  if (!hx.defined()) return zeros({x.size(0), o.hidden_size()}, x.options().requires_grad(false));
  std::vector<int64_t> expected = unbatched ? std::vector<int64_t>{o.hidden_size()}
                                            : std::vector<int64_t>{x.size(0), o.hidden_size()};
  EMBER_CHECK(hx.sizes() == IntArrayRef(expected), ValueError, name, ": Expected ", which,
              " of shape ", IntArrayRef(expected), ", got ", hx.sizes());
  return unbatched ? hx.unsqueeze(0) : hx;
}

void print_cell(std::ostream& stream, const char* name, const detail::RNNCellOptionsBase& o,
                const char* extra = "") {
  stream << "ember::nn::" << name << "(" << o.input_size() << ", " << o.hidden_size();
  if (!o.bias()) stream << std::boolalpha << ", bias=" << o.bias();
  stream << extra << ")";
}

}  // namespace

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(),
                                                 options_.bias(), 1)),
      options(options_) {
  reset();
}
Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, unbatched] = cell_input(options_base, input, "RNNCell");
  Tensor h = cell_state(options_base, hx, x, unbatched, "RNNCell", "hidden");
  h = std::holds_alternative<enumtype::kReLU>(options.nonlinearity())
          ? rnn_relu_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh)
          : rnn_tanh_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh);
  return unbatched ? h.squeeze(0) : h;
}
void RNNCellImpl::pretty_print(std::ostream& stream) const {
  print_cell(stream, "RNNCell", options_base,
             std::holds_alternative<enumtype::kReLU>(options.nonlinearity())
                 ? ", nonlinearity=kReLU"
                 : "");
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(),
                                                 options_.bias(), 4)),
      options(options_) {
  reset();
}
std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  auto [x, unbatched] = cell_input(options_base, input, "LSTMCell");
  Tensor h = cell_state(options_base, hx_opt ? std::get<0>(*hx_opt) : Tensor(), x, unbatched,
                        "LSTMCell", "hidden[0]");
  Tensor c = cell_state(options_base, hx_opt ? std::get<1>(*hx_opt) : Tensor(), x, unbatched,
                        "LSTMCell", "hidden[1]");
  std::tie(h, c) = lstm_cell(x, {h, c}, weight_ih, weight_hh, bias_ih, bias_hh);
  if (unbatched) return {h.squeeze(0), c.squeeze(0)};
  return {h, c};
}
void LSTMCellImpl::pretty_print(std::ostream& stream) const {
  print_cell(stream, "LSTMCell", options_base);
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(),
                                                 options_.bias(), 3)),
      options(options_) {
  reset();
}
Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  auto [x, unbatched] = cell_input(options_base, input, "GRUCell");
  Tensor h = cell_state(options_base, hx, x, unbatched, "GRUCell", "hidden");
  h = gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh);
  return unbatched ? h.squeeze(0) : h;
}
void GRUCellImpl::pretty_print(std::ostream& stream) const {
  print_cell(stream, "GRUCell", options_base);
}

}  // namespace ember::nn

namespace ember {

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, const std::vector<Tensor>& hx,
                                     const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                                     const Tensor& b_hh) {
  EMBER_CHECK(hx.size() == 2, ValueError, "lstm_cell: expected hx to be (h, c), got ", hx.size(),
              " tensors");
  nn::check_cell("lstm_cell", input, hx[0], w_ih, w_hh, 4);
  EMBER_CHECK(hx[1].sizes() == hx[0].sizes(), ValueError, "lstm_cell: c of shape ", hx[1].sizes(),
              " differs from h of shape ", hx[0].sizes());
  Tensor h = hx[0], c = hx[1];
  nn::step(nn::Cell::LSTM, linear(input, w_ih, b_ih), h, c, w_hh, b_hh, h.size(1));
  return {h, c};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih, const Tensor& b_hh) {
  return nn::one_step(nn::Cell::GRU, "gru_cell", input, hx, w_ih, w_hh, b_ih, b_hh);
}

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  return nn::one_step(nn::Cell::Tanh, "rnn_tanh_cell", input, hx, w_ih, w_hh, b_ih, b_hh);
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                     const Tensor& b_ih, const Tensor& b_hh) {
  return nn::one_step(nn::Cell::ReLU, "rnn_relu_cell", input, hx, w_ih, w_hh, b_ih, b_hh);
}

}  // namespace ember
