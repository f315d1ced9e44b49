// RNN, LSTM, GRU and their cells against PyTorch: the same weights copied into torch.nn modules
// by name (so the state dict keys must be PyTorch's), then the outputs and final states and, after
// backpropagating the same upstream gradients, the gradients of the input, the initial states and
// every parameter; on every test device. Then dropout, printing and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::test_devices;
using ember::testing::TorchOracle;

namespace {

struct Inputs {
  Tensor x;                    // the sequence (or the cell's input)
  std::vector<Tensor> states;  // initial states given to forward, possibly none
};

// Runs `forward` on `module` (already on `device`) and `py_module` / `py_forward` in PyTorch with
// the module's parameters copied by name. `py_forward` reads x and s0, s1 and sets `outs` to the
// list of outputs in the order `forward` returns them.
void compare(const std::string& ctx, nn::Module& module, const std::string& py_module,
             const std::function<std::vector<Tensor>(const Inputs&)>& forward,
             const std::string& py_forward, const Inputs& cpu_inputs, Device device) {
  Inputs in{cpu_inputs.x.to(device).detach().requires_grad_(), {}};
  for (const Tensor& s : cpu_inputs.states)
    in.states.push_back(s.to(device).detach().requires_grad_());
  std::vector<Tensor> outs = forward(in);
  std::map<std::string, Tensor> py_in{{"x", cpu_inputs.x.clone().requires_grad_()}};
  std::string code = "m = " + py_module + ".double()\nnames = [";
  Tensor total;
  std::vector<std::string> out_names;
  for (size_t i = 0; i < outs.size(); ++i) {
    ASSERT_EQ(outs[i].device(), device) << ctx;
    manual_seed(ember::testing::seed_for(ctx) + i);
    Tensor g = randn(outs[i].sizes(), kDouble);
    py_in["g" + std::to_string(i)] = g;
    Tensor term = (outs[i] * g.to(device)).sum();
    total = total.defined() ? total + term : term;
    out_names.push_back("o" + std::to_string(i));
  }
  total.backward();
  auto params = module.named_parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    code += "'" + params[i].key() + "', ";
    py_in["p" + std::to_string(i)] = params[i].value().detach().cpu();
  }
  code += "]\nvalues = [";
  for (size_t i = 0; i < params.size(); ++i) code += "p" + std::to_string(i) + ", ";
  code += "]\nnames_ok = sorted(names) == sorted(n for n, _ in m.named_parameters())\n";
  code += "with torch.no_grad():\n  for n, v in zip(names, values): getattr(m, n).copy_(v)\n";
  for (size_t i = 0; i < cpu_inputs.states.size(); ++i) {
    py_in["s" + std::to_string(i)] = cpu_inputs.states[i].clone().requires_grad_();
  }
  code += py_forward + "\n";
  code += "total = sum((o * g).sum() for o, g in zip(outs, [";
  for (size_t i = 0; i < outs.size(); ++i) code += "g" + std::to_string(i) + ", ";
  code += "]))\ntotal.backward()\n";
  std::vector<std::string> wanted{"names_ok", "gx"};
  code += "gx = x.grad\n";
  for (size_t i = 0; i < outs.size(); ++i) {
    code += "o" + std::to_string(i) + " = outs[" + std::to_string(i) + "]\n";
    wanted.push_back("o" + std::to_string(i));
  }
  for (size_t i = 0; i < cpu_inputs.states.size(); ++i) {
    code += "gs" + std::to_string(i) + " = s" + std::to_string(i) + ".grad\n";
    wanted.push_back("gs" + std::to_string(i));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    code += "gp" + std::to_string(i) + " = getattr(m, names[" + std::to_string(i) + "]).grad\n";
    wanted.push_back("gp" + std::to_string(i));
  }
  auto r = TorchOracle::instance().run(code, py_in, wanted);
  ASSERT_TRUE(r.at("names_ok").item<bool>()) << ctx << ": parameter names differ from PyTorch's";
  const double rtol = 1e-9, atol = 1e-11;
  for (size_t i = 0; i < outs.size(); ++i) {
    expect_close(outs[i].cpu(), r.at("o" + std::to_string(i)), rtol, atol,
                 ctx + ": output " + std::to_string(i));
  }
  expect_close(in.x.grad().cpu(), r.at("gx"), rtol, atol, ctx + ": input gradient");
  for (size_t i = 0; i < in.states.size(); ++i) {
    expect_close(in.states[i].grad().cpu(), r.at("gs" + std::to_string(i)), rtol, atol,
                 ctx + ": initial state gradient " + std::to_string(i));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    ASSERT_TRUE(params[i].value().grad().defined())
        << ctx << ": no gradient for " << params[i].key();
    expect_close(params[i].value().grad().cpu(), r.at("gp" + std::to_string(i)), rtol, atol,
                 ctx + ": gradient of " + params[i].key());
  }
}

Tensor seq(std::vector<int64_t> shape, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, kDouble);
}

std::string py_bool(bool b) {
  return b ? "True" : "False";
}

}  // namespace

TEST(NnRnn, LstmMatchesTorchOnEveryDevice) {
  struct Case {
    int64_t layers;
    bool bias, batch_first, bidirectional, give_state, unbatched;
    int64_t proj_size = 0;  // h projected to this width by weight_hr (LSTM's proj_size)
  };
  const std::vector<Case> cases = {
      {1, true, false, false, false, false},  {2, true, true, true, true, false},
      {1, false, false, true, true, false},   {3, true, false, false, true, false},
      {2, true, false, true, false, true},    {1, true, false, false, true, false, 2},
      {2, false, true, true, true, false, 3}, {2, true, false, true, false, true, 1},
  };
  for (const Device& device : test_devices()) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      const int64_t I = 3, H = 4, T = 5, B = 2, D = c.bidirectional ? 2 : 1;
      manual_seed(100 + i);
      auto lstm = nn::LSTM(nn::LSTMOptions(I, H)
                               .num_layers(c.layers)
                               .bias(c.bias)
                               .batch_first(c.batch_first)
                               .bidirectional(c.bidirectional)
                               .proj_size(c.proj_size));
      const int64_t P = c.proj_size > 0 ? c.proj_size : H;  // the width of h
      lstm->to(device, kDouble);
      Inputs in;
      in.x = c.unbatched ? seq({T, I}, i) : c.batch_first ? seq({B, T, I}, i) : seq({T, B, I}, i);
      if (c.give_state) {
        std::vector<int64_t> s = c.unbatched ? std::vector<int64_t>{c.layers * D, H}
                                             : std::vector<int64_t>{c.layers * D, B, H};
        std::vector<int64_t> sh = s;
        sh.back() = P;
        in.states = {seq(sh, 50 + i), seq(s, 60 + i)};
      }
      const std::string py = "torch.nn.LSTM(" + std::to_string(I) + ", " + std::to_string(H) +
                             ", num_layers=" + std::to_string(c.layers) +
                             ", bias=" + py_bool(c.bias) +
                             ", batch_first=" + py_bool(c.batch_first) +
                             ", bidirectional=" + py_bool(c.bidirectional) +
                             ", proj_size=" + std::to_string(c.proj_size) + ")";
      compare(
          "LSTM case " + std::to_string(i) + " on " + device.str(), *lstm, py,
          [&](const Inputs& x) {
            auto [out, state] = x.states.empty()
                                    ? lstm->forward(x.x)
                                    : lstm->forward(x.x, std::make_tuple(x.states[0], x.states[1]));
            auto [h, cell] = state;
            return std::vector<Tensor>{out, h, cell};
          },
          c.give_state ? "y, (h, c) = m(x, (s0, s1))\nouts = [y, h, c]"
                       : "y, (h, c) = m(x)\nouts = [y, h, c]",
          in, device);
    }
  }
}

TEST(NnRnn, GruAndRnnMatchTorchOnEveryDevice) {
  for (const Device& device : test_devices()) {
    for (int i = 0; i < 4; ++i) {
      const bool bidirectional = i % 2 == 1, batch_first = i >= 2, give_state = i != 0;
      const int64_t layers = i == 3 ? 1 : 2, I = 3, H = 5, T = 4, B = 3;
      const int64_t rows = layers * (bidirectional ? 2 : 1);
      manual_seed(200 + i);
      auto gru = nn::GRU(nn::GRUOptions(I, H)
                             .num_layers(layers)
                             .batch_first(batch_first)
                             .bidirectional(bidirectional));
      gru->to(device, kDouble);
      Inputs in{batch_first ? seq({B, T, I}, i) : seq({T, B, I}, i), {}};
      if (give_state) in.states = {seq({rows, B, H}, 70 + i)};
      const std::string opts = ", num_layers=" + std::to_string(layers) +
                               ", batch_first=" + py_bool(batch_first) +
                               ", bidirectional=" + py_bool(bidirectional) + ")";
      compare(
          "GRU case " + std::to_string(i) + " on " + device.str(), *gru, "torch.nn.GRU(3, 5" + opts,
          [&](const Inputs& x) {
            auto [out, h] = gru->forward(x.x, x.states.empty() ? Tensor() : x.states[0]);
            return std::vector<Tensor>{out, h};
          },
          give_state ? "y, h = m(x, s0)\nouts = [y, h]" : "y, h = m(x)\nouts = [y, h]", in, device);
      auto rnn = nn::RNN(nn::RNNOptions(I, H)
                             .num_layers(layers)
                             .nonlinearity(i % 2 ? nn::RNNOptions::nonlinearity_t(kReLU)
                                                 : nn::RNNOptions::nonlinearity_t(kTanh))
                             .batch_first(batch_first)
                             .bidirectional(bidirectional));
      rnn->to(device, kDouble);
      compare(
          "RNN case " + std::to_string(i) + " on " + device.str(), *rnn,
          std::string("torch.nn.RNN(3, 5, nonlinearity='") + (i % 2 ? "relu" : "tanh") + "'" + opts,
          [&](const Inputs& x) {
            auto [out, h] = rnn->forward(x.x, x.states.empty() ? Tensor() : x.states[0]);
            return std::vector<Tensor>{out, h};
          },
          give_state ? "y, h = m(x, s0)\nouts = [y, h]" : "y, h = m(x)\nouts = [y, h]", in, device);
    }
  }
}

TEST(NnRnn, CellsMatchTorchOnEveryDevice) {
  for (const Device& device : test_devices()) {
    for (bool unbatched : {false, true}) {
      for (bool bias : {true, false}) {
        const std::string tag = std::string(unbatched ? " unbatched" : "") +
                                (bias ? "" : " no bias") + " on " + device.str();
        std::vector<int64_t> xs = unbatched ? std::vector<int64_t>{4} : std::vector<int64_t>{3, 4};
        std::vector<int64_t> hs = unbatched ? std::vector<int64_t>{6} : std::vector<int64_t>{3, 6};
        const std::string py_bias = std::string(", bias=") + py_bool(bias) + ")";
        manual_seed(300);
        auto lstm = nn::LSTMCell(nn::LSTMCellOptions(4, 6).bias(bias));
        lstm->to(device, kDouble);
        compare(
            "LSTMCell" + tag, *lstm, "torch.nn.LSTMCell(4, 6" + py_bias,
            [&](const Inputs& x) {
              auto [h, c] = lstm->forward(x.x, std::make_tuple(x.states[0], x.states[1]));
              return std::vector<Tensor>{h, c};
            },
            "h, c = m(x, (s0, s1))\nouts = [h, c]", {seq(xs, 1), {seq(hs, 2), seq(hs, 3)}}, device);
        auto gru = nn::GRUCell(nn::GRUCellOptions(4, 6).bias(bias));
        gru->to(device, kDouble);
        compare(
            "GRUCell" + tag, *gru, "torch.nn.GRUCell(4, 6" + py_bias,
            [&](const Inputs& x) { return std::vector<Tensor>{gru->forward(x.x, x.states[0])}; },
            "outs = [m(x, s0)]", {seq(xs, 4), {seq(hs, 5)}}, device);
        auto rnn = nn::RNNCell(nn::RNNCellOptions(4, 6).bias(bias).nonlinearity(kReLU));
        rnn->to(device, kDouble);
        compare(
            "RNNCell" + tag, *rnn, "torch.nn.RNNCell(4, 6, nonlinearity='relu'" + py_bias,
            [&](const Inputs& x) { return std::vector<Tensor>{rnn->forward(x.x)}; },
            "outs = [m(x)]", {seq(xs, 6), {}}, device);
      }
    }
  }
}

TEST(NnRnn, StateDictKeysAreTorchs) {
  auto lstm = nn::LSTM(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  std::vector<std::string> keys;
  for (const auto& item : lstm->state_dict()) keys.push_back(item.key());
  auto r = TorchOracle::instance().run(
      "m = torch.nn.LSTM(2, 3, num_layers=2, bidirectional=True)\n"
      "n = len(list(m.state_dict().keys()))",
      {}, {"n"});
  EXPECT_EQ(static_cast<int64_t>(keys.size()), r.at("n").item<int64_t>());
  EXPECT_EQ(keys.front(), "weight_ih_l0");
  EXPECT_EQ(keys[4], "weight_ih_l0_reverse");
  EXPECT_EQ(keys.back(), "bias_hh_l1_reverse");
  EXPECT_EQ(lstm->named_parameters()["weight_ih_l1"].sizes(), IntArrayRef({12, 6}));
  EXPECT_EQ(lstm->all_weights().size(), 16u);
  auto cell = nn::GRUCell(nn::GRUCellOptions(2, 3).bias(false));
  EXPECT_EQ(cell->named_parameters().keys(), (std::vector<std::string>{"weight_ih", "weight_hh"}));
  // Initialisation as PyTorch: U(-1/sqrt(H), 1/sqrt(H)).
  for (const Tensor& p : lstm->parameters()) {
    EXPECT_LE(p.abs().max().item<double>(), 1 / std::sqrt(3.0));
  }
}

TEST(NnRnn, DropoutBetweenLayersOnlyInTraining) {
  for (const Device& device : test_devices()) {
    manual_seed(7);
    auto lstm = nn::LSTM(nn::LSTMOptions(3, 8).num_layers(2).dropout(0.5));
    lstm->to(device);
    Tensor x = randn({4, 2, 3}).to(device);
    lstm->eval();
    Tensor eval1 = std::get<0>(lstm->forward(x));
    Tensor eval2 = std::get<0>(lstm->forward(x));
    expect_close(eval1.cpu(), eval2.cpu(), 0, 0, "eval is deterministic");
    // The same weights with dropout 0 give the eval result.
    auto plain = nn::LSTM(nn::LSTMOptions(3, 8).num_layers(2));
    plain->to(device);
    plain->load_state_dict(lstm->state_dict());
    expect_close(std::get<0>(plain->forward(x)).cpu(), eval1.cpu(), 0, 0, "eval ignores dropout");
    lstm->train();
    Tensor train = std::get<0>(lstm->forward(x));
    EXPECT_GT((train - eval1).abs().max().item<double>(), 1e-3) << "training applies dropout";
  }
}

TEST(NnRnn, PrintsAsLibtorch) {
  auto str = [](const auto& m) {
    std::ostringstream os;
    os << *m;
    return os.str();
  };
  EXPECT_EQ(str(nn::LSTM(nn::LSTMOptions(4, 5).num_layers(2).bidirectional(true))),
            "ember::nn::LSTM(input_size=4, hidden_size=5, num_layers=2, bias=true, "
            "batch_first=false, "
            "dropout=0, bidirectional=true)");
  EXPECT_EQ(str(nn::LSTM(nn::LSTMOptions(3, 4).proj_size(2))),
            "ember::nn::LSTM(input_size=3, hidden_size=4, num_layers=1, bias=true, "
            "batch_first=false, dropout=0, bidirectional=false, proj_size=2)");
  EXPECT_EQ(str(nn::GRU(nn::GRUOptions(4, 5).dropout(0.25).batch_first(true))),
            "ember::nn::GRU(input_size=4, hidden_size=5, num_layers=1, bias=true, "
            "batch_first=true, "
            "dropout=0.25, bidirectional=false)");
  EXPECT_EQ(str(nn::LSTMCell(4, 5)), "ember::nn::LSTMCell(4, 5)");
  EXPECT_EQ(str(nn::GRUCell(nn::GRUCellOptions(4, 5).bias(false))),
            "ember::nn::GRUCell(4, 5, bias=false)");
}

TEST(NnRnn, BadInputsNameTheShapes) {
  auto lstm = nn::LSTM(nn::LSTMOptions(3, 4).num_layers(2));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         lstm->forward(randn({2, 3, 4, 3}));
                       }),
                       "LSTM: Expected input to be 2-D or 3-D but received 4-D tensor of shape "
                       "[2, 3, 4, 3]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         lstm->forward(randn({5, 2, 6}));
                       }),
                       "input.size(-1) must be equal to input_size. Expected 3, got 6"));
  EXPECT_TRUE(contains(
      error_of<ValueError>([&] {
        lstm->forward(randn({5, 2, 3}), std::make_tuple(zeros({1, 2, 4}), zeros({2, 2, 4})));
      }),
      "LSTM: Expected hidden[0] size [2, 2, 4], got [1, 2, 4]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         nn::GRU(nn::GRUOptions(3, 4))->forward(randn({5, 2, 3}), zeros({1, 3, 4}));
                       }),
                       "GRU: Expected hidden size [1, 2, 4], got [1, 3, 4]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { nn::LSTM(nn::LSTMOptions(3, 4).dropout(1.5)); }),
                       "dropout should be a number in range [0, 1]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { nn::GRU(nn::GRUOptions(3, 4).num_layers(0)); }),
                       "GRU: num_layers must be at least 1, got 0"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] { nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)); }),
               "LSTM: proj_size has to be a positive integer, smaller than hidden_size or zero to "
               "disable projections, got proj_size=4, hidden_size=4"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { nn::LSTM(nn::LSTMOptions(3, 4).proj_size(-1)); }),
                       "got proj_size=-1"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         nn::LSTM(nn::LSTMOptions(3, 4).proj_size(2))
                             ->forward(randn({5, 2, 3}),
                                       std::make_tuple(zeros({1, 2, 4}), zeros({1, 2, 4})));
                       }),
                       "LSTM: Expected hidden[0] size [1, 2, 2], got [1, 2, 4]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         nn::LSTMCell(3, 4)->forward(randn({2, 5}));
                       }),
                       "LSTMCell: input has inconsistent input_size: got 5 expected 3"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         nn::GRUCell(3, 4)->forward(randn({2, 3}), zeros({3, 4}));
                       }),
                       "GRUCell: Expected hidden of shape [2, 4], got [3, 4]"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] {
                         nn::RNNCell(3, 4)->forward(randn({1, 2, 3}));
                       }),
                       "RNNCell: Expected input to be 1-D or 2-D but received 3-D tensor"));
}

// Packed batches of different lengths (unsorted, so the permutation is exercised) through LSTM,
// GRU and RNN, against PyTorch's pack_padded_sequence / packed forward / pad_packed_sequence:
// outputs, final states, and the gradients of the input, the states and every parameter.
TEST(NnRnn, PackedSequencesMatchTorchOnEveryDevice) {
  namespace rnn = nn::utils::rnn;
  const int64_t I = 3, H = 4, T = 5, B = 3;
  const std::string pack =
      "p = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor([3, 5, 2]), batch_first=True, "
      "enforce_sorted=False)\n";
  const std::string unpack = "y = torch.nn.utils.rnn.pad_packed_sequence(y, batch_first=True)[0]\n";
  auto packed = [&](const Tensor& x) {
    return rnn::pack_padded_sequence(x, ember::tensor({3, 5, 2}, kLong), true, false);
  };
  auto padded = [](const rnn::PackedSequence& y) {
    return std::get<0>(rnn::pad_packed_sequence(y, true));
  };
  for (const Device& device : test_devices()) {
    manual_seed(200);
    auto lstm = nn::LSTM(nn::LSTMOptions(I, H).num_layers(2).batch_first(true).bidirectional(true));
    lstm->to(device, kDouble);
    Inputs in{seq({B, T, I}, 1), {seq({4, B, H}, 2), seq({4, B, H}, 3)}};
    compare(
        "packed LSTM on " + device.str(), *lstm,
        "torch.nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)",
        [&](const Inputs& x) {
          auto [y, state] = lstm->forward_with_packed_input(
              packed(x.x), std::make_tuple(x.states[0], x.states[1]));
          return std::vector<Tensor>{padded(y), std::get<0>(state), std::get<1>(state)};
        },
        pack + "y, (h, c) = m(p, (s0, s1))\n" + unpack + "outs = [y, h, c]", in, device);

    auto projected = nn::LSTM(
        nn::LSTMOptions(I, H).num_layers(2).batch_first(true).bidirectional(true).proj_size(2));
    projected->to(device, kDouble);
    compare(
        "packed projected LSTM on " + device.str(), *projected,
        "torch.nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True, proj_size=2)",
        [&](const Inputs& x) {
          auto [y, state] = projected->forward_with_packed_input(
              packed(x.x), std::make_tuple(x.states[0], x.states[1]));
          return std::vector<Tensor>{padded(y), std::get<0>(state), std::get<1>(state)};
        },
        pack + "y, (h, c) = m(p, (s0, s1))\n" + unpack + "outs = [y, h, c]",
        Inputs{seq({B, T, I}, 7), {seq({4, B, 2}, 8), seq({4, B, H}, 9)}}, device);

    auto gru = nn::GRU(nn::GRUOptions(I, H).batch_first(true));
    gru->to(device, kDouble);
    compare(
        "packed GRU on " + device.str(), *gru, "torch.nn.GRU(3, 4, batch_first=True)",
        [&](const Inputs& x) {
          auto [y, h] = gru->forward_with_packed_input(packed(x.x));
          return std::vector<Tensor>{padded(y), h};
        },
        pack + "y, h = m(p)\n" + unpack + "outs = [y, h]", Inputs{seq({B, T, I}, 4), {}}, device);

    auto relu_rnn =
        nn::RNN(nn::RNNOptions(I, H).batch_first(true).bidirectional(true).nonlinearity(kReLU));
    relu_rnn->to(device, kDouble);
    compare(
        "packed RNN on " + device.str(), *relu_rnn,
        "torch.nn.RNN(3, 4, batch_first=True, bidirectional=True, nonlinearity='relu')",
        [&](const Inputs& x) {
          auto [y, h] = relu_rnn->forward_with_packed_input(packed(x.x), x.states[0]);
          return std::vector<Tensor>{padded(y), h};
        },
        pack + "y, h = m(p, s0)\n" + unpack + "outs = [y, h]",
        Inputs{seq({B, T, I}, 5), {seq({2, B, H}, 6)}}, device);
  }
}

TEST(NnRnn, PackingHelpersMatchTorch) {
  namespace rnn = nn::utils::rnn;
  Tensor a = seq({4, 2}, 10), b = seq({2, 2}, 11), c = seq({5, 2}, 12);
  rnn::PackedSequence p = rnn::pack_sequence({a, b, c}, /*enforce_sorted=*/false);
  Tensor padded = rnn::pad_sequence({a, b, c}, /*batch_first=*/true, -1.0);
  auto [unpacked, lengths] = rnn::pad_packed_sequence(p, false, 0.5, 7);
  auto r = TorchOracle::instance().run(
      "from torch.nn.utils.rnn import pack_sequence, pad_sequence, pad_packed_sequence\n"
      "p = pack_sequence([a, b, c], enforce_sorted=False)\n"
      "data, sizes, sorted_i, unsorted_i = p.data, p.batch_sizes, p.sorted_indices, "
      "p.unsorted_indices\n"
      "padded = pad_sequence([a, b, c], batch_first=True, padding_value=-1.0)\n"
      "unpacked, lengths = pad_packed_sequence(p, padding_value=0.5, total_length=7)\n",
      {{"a", a}, {"b", b}, {"c", c}},
      {"data", "sizes", "sorted_i", "unsorted_i", "padded", "unpacked", "lengths"});
  expect_close(p.data(), r.at("data"), 0, 0, "packed data");
  EXPECT_TRUE(equal(p.batch_sizes(), r.at("sizes")));
  EXPECT_TRUE(equal(p.sorted_indices(), r.at("sorted_i")));
  EXPECT_TRUE(equal(p.unsorted_indices(), r.at("unsorted_i")));
  expect_close(padded, r.at("padded"), 0, 0, "pad_sequence");
  expect_close(unpacked, r.at("unpacked"), 0, 0, "pad_packed_sequence");
  EXPECT_TRUE(equal(lengths, r.at("lengths")));

  // PyTorch's errors, and the helpers still work after them.
  std::string e = error_of([&] {
    rnn::pack_padded_sequence(seq({5, 3, 2}, 13), ember::tensor({2, 5, 1}, kLong));
  });
  EXPECT_TRUE(contains(e, "must be sorted in decreasing order when `enforce_sorted` is True")) << e;
  e = error_of([&] {
    rnn::pack_padded_sequence(seq({5, 2, 2}, 13), ember::tensor({3, 0}, kLong));
  });
  EXPECT_TRUE(contains(e, "Length of all samples has to be greater than 0")) << e;
  e = error_of([&] {
    rnn::pack_padded_sequence(seq({5, 2, 2}, 13), ember::tensor({3, 2, 1}, kLong));
  });
  EXPECT_TRUE(
      contains(e, "Expected `len(lengths)` to be equal to batch_size, but got 3 (batch_size=2)"))
      << e;
  e = error_of([&] { rnn::pad_packed_sequence(p, false, 0.0, 3); });
  EXPECT_TRUE(contains(e,
                       "Expected total_length to be at least the length of the longest sequence "
                       "in input, but got total_length=3 and max sequence length being 5"))
      << e;
  EXPECT_EQ(rnn::pack_sequence({c, a, b}).batch_sizes().numel(), 5);
}
