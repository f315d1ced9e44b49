// swa_utils in C++ against torch.optim.swa_utils run by the oracle: AveragedModel's equal and
// EMA averages (with and without buffers) over the same sequence of model states, update_bn's
// running statistics on the same batches, SWALR's lrs (counted in libtorch's steps), errors.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/torch_oracle.h"

namespace {

using ember::Tensor;
using namespace ember::optim;
using namespace ember::optim::swa_utils;
using ember::testing::expect_close;
using ember::testing::TorchOracle;
namespace nn = ember::nn;

// A deterministic tensor: sin(0.37 * i + offset) * scale.
Tensor wave(const std::vector<int64_t>& shape, double scale, double offset) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return (ember::arange(n, ember::kFloat64) * 0.37 + offset).sin().mul(scale).view(shape);
}

nn::Sequential make_model() {
  nn::Sequential model(nn::Linear(4, 6), nn::BatchNorm1d(6), nn::ReLU(), nn::Linear(6, 3));
  model->to(ember::kFloat64);
  ember::NoGradGuard no_grad;
  int i = 0;
  for (auto& p : model->parameters()) p.copy_(wave(p.sizes().vec(), 0.5, i++));
  return model;
}

const char* kTorchModel =
    "def make():\n"
    "    m = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), "
    "torch.nn.ReLU(), torch.nn.Linear(6, 3)).double()\n"
    // libtorch's C++ to(kFloat64), which make_model() mirrors, converts the batch counter too.
    "    m[1].num_batches_tracked = m[1].num_batches_tracked.double()\n"
    "    return m\n";

// Python's name for a state entry passed to the oracle.
std::string key(int k, const std::string& name) {
  std::string s = "s" + std::to_string(k) + "_" + name;
  for (char& c : s) {
    if (c == '.') c = '_';
  }
  return s;
}

TEST(SwaUtils, AveragedModelMatchesTorch) {
  const std::vector<std::pair<std::string, AvgFn>> fns = {
      {"None", nullptr},
      {"lambda avg, p, n: 0.9 * avg + 0.1 * p",
       [](const Tensor& avg, const Tensor& p, const Tensor&) { return avg * 0.9 + p * 0.1; }}};
  for (const auto& [python_fn, fn] : fns) {
    for (bool use_buffers : {false, true}) {
      SCOPED_TRACE(python_fn + (use_buffers ? " with buffers" : ""));
      nn::Sequential model = make_model();
      AveragedModel<nn::Sequential> avg(model, fn, use_buffers);
      std::map<std::string, Tensor> states;
      constexpr int kUpdates = 6;
      for (int k = 0; k < kUpdates; ++k) {
        {
          ember::NoGradGuard no_grad;
          int i = 0;
          for (auto& p : model->parameters()) p.add_(wave(p.sizes().vec(), 0.1, k + i++));
        }
        model->forward(wave({8, 4}, 1.5, k));  // train mode: moves the BatchNorm buffers
        avg.update_parameters(*model);
        // state_dict() shares the model's storage: keep a copy of this state.
        for (const auto& item : model->state_dict()) {
          states[key(k, item.key())] = item.value().clone();
        }
      }
      EXPECT_EQ(avg.n_averaged().item<int64_t>(), kUpdates);
      // The same model states, averaged by PyTorch.
      std::string code = std::string(kTorchModel) +
                         "m = make()\nfrom torch.optim.swa_utils import "
                         "AveragedModel\navg = AveragedModel(m, avg_fn=" +
                         python_fn + ", use_buffers=" + (use_buffers ? "True" : "False") + ")\n" +
                         "for k in range(" + std::to_string(kUpdates) +
                         "):\n"
                         "    m.load_state_dict({n: globals()[('s%d_' % k) + n.replace('.', '_')] "
                         "for n in m.state_dict()})\n"
                         "    avg.update_parameters(m)\n"
                         "out = {n.replace('.', '_'): v for n, v in avg.state_dict().items()}\n"
                         "globals().update(out)\n";
      std::vector<std::string> names;
      for (const auto& item : avg.state_dict()) {
        std::string n = item.key();
        for (char& c : n) {
          if (c == '.') c = '_';
        }
        names.push_back(n);
      }
      auto ref = TorchOracle::instance().run(code, states, names);
      for (const auto& item : avg.state_dict()) {
        std::string n = item.key();
        for (char& c : n) {
          if (c == '.') c = '_';
        }
        SCOPED_TRACE(item.key());
        expect_close(item.value(), ref.at(n), 1e-12, 1e-14);
      }
      // PyTorch's names: the copy under "module", the count as "n_averaged".
      auto sd = avg.state_dict();
      EXPECT_TRUE(sd.contains("n_averaged"));
      EXPECT_TRUE(sd.contains("module.0.weight"));
      EXPECT_TRUE(sd.contains("module.1.running_var"));
      // forward runs the averaged copy.
      avg.eval();
      Tensor x = wave({5, 4}, 1.0, 0.5);
      expect_close(avg.forward(x), avg.module->forward(x), 0, 0);
    }
  }
}

TEST(SwaUtils, UpdateBnMatchesTorch) {
  nn::Sequential model = make_model();
  std::map<std::string, Tensor> inputs;
  for (const auto& item : model->state_dict()) inputs[key(0, item.key())] = item.value();
  std::vector<Tensor> batches;
  for (int k = 0; k < 5; ++k) {
    batches.push_back(wave({8, 4}, 2.0, k) + k);
    inputs["b" + std::to_string(k)] = batches.back();
  }
  model->eval();
  update_bn(batches, model);
  const std::string code = std::string(kTorchModel) +
                           "m = make()\n"
                           "m.load_state_dict({n: globals()['s0_' + n.replace('.', '_')] for n in "
                           "m.state_dict()})\nm.eval()\n"
                           "torch.optim.swa_utils.update_bn([b0, b1, b2, b3, b4], m)\n"
                           "mean, var = m[1].running_mean, m[1].running_var\n"
                           "count = m[1].num_batches_tracked.double()\n";
  auto ref = TorchOracle::instance().run(code, inputs, {"mean", "var", "count"});
  auto* bn = model[1]->as<nn::BatchNorm1dImpl>();
  expect_close(bn->running_mean, ref.at("mean"), 1e-12, 1e-14);
  expect_close(bn->running_var, ref.at("var"), 1e-12, 1e-14);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), ref.at("count").item<double>());
  // The momentum and the training flag are restored.
  EXPECT_EQ(bn->options.momentum(), std::optional<double>(0.1));
  EXPECT_FALSE(model->is_training());
  EXPECT_FALSE(bn->is_training());

  // Examples (their data) give the same statistics; an AveragedModel is updated through forward.
  nn::Sequential other = make_model();
  AveragedModel<nn::Sequential> avg(other);
  avg.update_parameters(*other);
  std::vector<ember::data::Example<>> examples;
  for (const Tensor& b : batches) examples.emplace_back(b, ember::zeros({8}));
  update_bn(examples, &avg);
  auto* avg_bn = avg.module[1]->as<nn::BatchNorm1dImpl>();
  expect_close(avg_bn->running_mean, ref.at("mean"), 1e-12, 1e-14);
  expect_close(avg_bn->running_var, ref.at("var"), 1e-12, 1e-14);
}

TEST(SwaUtils, SWALRMatchesTorch) {
  struct Case {
    std::vector<double> swa_lr;
    int64_t anneal_epochs;
    std::string strategy, torch_args;
  };
  const std::vector<Case> cases = {
      {{0.05}, 10, "cos", "swa_lr=0.05"},
      {{0.05, 0.01}, 7, "linear", "swa_lr=[0.05, 0.01], anneal_epochs=7, anneal_strategy='linear'"},
      {{0.02}, 0, "cos", "swa_lr=0.02, anneal_epochs=0"},
  };
  constexpr int kSteps = 20;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.torch_args);
    const std::string code =
        "p = torch.zeros(2, requires_grad=True); q = torch.zeros(2, requires_grad=True)\n"
        "opt = torch.optim.SGD([{'params': [p]}, {'params': [q], 'lr': 0.3}], lr=0.5)\n"
        "sched = torch.optim.swa_utils.SWALR(opt, " +
        c.torch_args + ")\nL = [sched.get_last_lr()]\nfor _ in range(" + std::to_string(kSteps) +
        "):\n    opt.step()\n    sched.step()\n    L.append(sched.get_last_lr())\n"
        "L = torch.tensor(L, dtype=torch.float64)\n";
    Tensor ref = TorchOracle::instance().run(code, {}, {"L"}).at("L");
    Tensor p = ember::zeros({2}).requires_grad_(), q = ember::zeros({2}).requires_grad_();
    std::vector<OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{p});
    groups.emplace_back(std::vector<Tensor>{q}, std::make_unique<SGDOptions>(0.3));
    SGD opt(groups, SGDOptions(0.5));
    SWALR sched(opt, c.swa_lr, c.anneal_epochs, c.strategy);
    std::vector<double> flat;
    // Ember's (n + 1)-th step() sets PyTorch's lrs after n steps (its constructor is a step).
    for (int n = 0; n <= kSteps; ++n) {
      opt.step();
      sched.step();
      flat.insert(flat.end(), sched.get_last_lr().begin(), sched.get_last_lr().end());
    }
    expect_close(ember::tensor(flat, ember::kFloat64).view({kSteps + 1, 2}), ref, 1e-12, 0);
  }
}

TEST(SwaUtils, ErrorsCarryPyTorchsTexts) {
  Tensor p = ember::zeros({1}).requires_grad_();
  SGD opt({p}, SGDOptions(0.1));
  auto message = [](const std::function<void()>& fn) -> std::string {
    try {
      fn();
    } catch (const ember::ValueError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message([&] {
              SWALR(opt, {0.01}, 10, "step");
            }).find("anneal_strategy must by one of 'cos' or 'linear', instead got step"),
            std::string::npos);
  EXPECT_NE(message([&] {
              SWALR(opt, {0.01}, -1);
            }).find("anneal_epochs must be equal or greater than 0, got -1"),
            std::string::npos);
  EXPECT_NE(message([&] {
              SWALR(opt, {0.01, 0.02});
            })
                .find("swa_lr must have the same length as optimizer.param_groups: swa_lr has 2, "
                      "optimizer.param_groups has 1"),
            std::string::npos);
  // A model whose parameters do not pair with the averaged copy's.
  nn::Sequential model = make_model();
  AveragedModel<nn::Sequential> avg(model);
  nn::Linear other(4, 6);
  EXPECT_NE(message([&] { avg.update_parameters(*other); })
                .find("AveragedModel: the model has 2 tensors to average but the averaged copy "
                      "has 6"),
            std::string::npos);
}

}  // namespace
