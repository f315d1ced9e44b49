// RMSprop and LBFGS against torch.optim: the same parameters and gradients (RMSprop) or the same
// closure (LBFGS) for several steps, comparing the parameters, the losses and the state after
// every step, on every test device; then state dict round trips and bad options.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace {

using ember::Tensor;
using namespace ember::optim;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::test_devices;
using ember::testing::TorchOracle;

constexpr int kSteps = 5;

Tensor state_of(Optimizer& opt, const Tensor& p, const std::string& name) {
  auto it = opt.state().find(p.unsafeGetTensorImpl());
  if (it == opt.state().end()) return Tensor();
  for (auto& [n, t] : it->second->tensors()) {
    if (n == name) return t;
  }
  return Tensor();
}

void rmsprop_case(const std::string& py, const RMSpropOptions& o,
                  const std::vector<std::string>& state, ember::ScalarType dtype,
                  ember::Device device, double tol) {
  SCOPED_TRACE(py + " " + ember::to_string(dtype) + " on " + device.str());
  ember::manual_seed(ember::testing::seed_for(py));
  const auto opts = ember::TensorOptions().dtype(dtype);
  Tensor w0 = ember::randn({3, 4}, opts), b0 = ember::randn({4}, opts);
  Tensor gw = ember::randn({kSteps, 3, 4}, opts), gb = ember::randn({kSteps, 4}, opts);
  std::string code =
      "ps = [w0.clone().requires_grad_(True), b0.clone().requires_grad_(True)]\n"
      "opt = torch.optim.RMSprop(ps, " +
      py + ")\nW, B = [], []\n";
  for (const auto& s : state) code += s + "_ = []\n";
  code += "for k in range(" + std::to_string(kSteps) +
          "):\n"
          "    ps[0].grad = gw[k].clone()\n"
          "    ps[1].grad = None if k == 1 else gb[k].clone()\n"
          "    opt.step()\n"
          "    W.append(ps[0].detach().clone()); B.append(ps[1].detach().clone())\n";
  for (const auto& s : state) {
    code += "    " + s + "_.append(torch.as_tensor(opt.state[ps[0]]['" + s + "']).clone())\n";
  }
  code += "W = torch.stack(W); B = torch.stack(B)\n";
  std::vector<std::string> outputs = {"W", "B"};
  for (const auto& s : state) {
    code += s + "_ = torch.stack(" + s + "_)\n";
    outputs.push_back(s + "_");
  }
  auto ref =
      TorchOracle::instance().run(code, {{"w0", w0}, {"b0", b0}, {"gw", gw}, {"gb", gb}}, outputs);
  Tensor w = w0.to(device).requires_grad_(), b = b0.to(device).requires_grad_();
  RMSprop opt({w, b}, o);
  for (int k = 0; k < kSteps; ++k) {
    SCOPED_TRACE("step " + std::to_string(k + 1));
    w.mutable_grad() = gw[k].to(device);
    b.mutable_grad() = k == 1 ? Tensor() : gb[k].to(device);
    opt.step();
    EXPECT_EQ(w.device(), device);
    expect_close(w.detach().cpu(), ref.at("W")[k], tol, tol, "w");
    expect_close(b.detach().cpu(), ref.at("B")[k], tol, tol, "b");
    for (const auto& s : state) {
      Tensor st = state_of(opt, w, s);
      ASSERT_TRUE(st.defined()) << "no state " << s;
      Tensor expected = ref.at(s + "_")[k];
      expect_close(st.cpu().to(expected.dtype()), expected, tol, tol, s);
    }
  }
}

// The closure both sides minimise: a least-squares fit with a quartic penalty.
const char* kPyLoss = "((x @ ps[0] + ps[1] - y) ** 2).mean() + 0.01 * (ps[0] ** 4).sum()";
Tensor ember_loss(const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& b) {
  return (ember::matmul(x, w) + b - y).square().mean() + 0.01 * w.pow(4).sum();
}

struct LbfgsData {
  Tensor w0, b0, x, y;
};
LbfgsData lbfgs_data(ember::ScalarType dtype, uint64_t seed) {
  ember::manual_seed(seed);
  const auto opts = ember::TensorOptions().dtype(dtype);
  return {ember::randn({3, 4}, opts), ember::randn({4}, opts), ember::randn({6, 3}, opts),
          ember::randn({6, 4}, opts)};
}

void lbfgs_case(const std::string& py, const LBFGSOptions& o, ember::ScalarType dtype,
                ember::Device device, double tol) {
  SCOPED_TRACE(py + " " + ember::to_string(dtype) + " on " + device.str());
  LbfgsData data = lbfgs_data(dtype, ember::testing::seed_for(py));
  const int steps = 4;
  std::string code =
      "ps = [w0.clone().requires_grad_(True), b0.clone().requires_grad_(True)]\n"
      "opt = torch.optim.LBFGS(ps, " +
      py +
      ")\n"
      "def closure():\n"
      "    opt.zero_grad()\n"
      "    loss = " +
      std::string(kPyLoss) +
      "\n"
      "    loss.backward()\n"
      "    return loss\n"
      "W, B, L, FE, NI = [], [], [], [], []\n"
      "for k in range(" +
      std::to_string(steps) +
      "):\n"
      "    L.append(opt.step(closure).detach().clone())\n"
      "    W.append(ps[0].detach().clone()); B.append(ps[1].detach().clone())\n"
      "    FE.append(opt.state[ps[0]]['func_evals']); NI.append(opt.state[ps[0]]['n_iter'])\n"
      "W = torch.stack(W); B = torch.stack(B); L = torch.stack(L)\n"
      "FE = torch.tensor(FE); NI = torch.tensor(NI)\n";
  auto ref = TorchOracle::instance().run(
      code, {{"w0", data.w0}, {"b0", data.b0}, {"x", data.x}, {"y", data.y}},
      {"W", "B", "L", "FE", "NI"});
  Tensor w = data.w0.to(device).requires_grad_(), b = data.b0.to(device).requires_grad_();
  Tensor x = data.x.to(device), y = data.y.to(device);
  LBFGS opt({w, b}, o);
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = ember_loss(x, y, w, b);
    loss.backward();
    return loss;
  };
  for (int k = 0; k < steps; ++k) {
    SCOPED_TRACE("step " + std::to_string(k + 1));
    Tensor loss = opt.step(closure);
    expect_close(loss.detach().cpu(), ref.at("L")[k], tol, tol, "loss");
    expect_close(w.detach().cpu(), ref.at("W")[k], tol, tol, "w");
    expect_close(b.detach().cpu(), ref.at("B")[k], tol, tol, "b");
    EXPECT_EQ(state_of(opt, w, "func_evals").item<int64_t>(), ref.at("FE")[k].item<int64_t>());
    EXPECT_EQ(state_of(opt, w, "n_iter").item<int64_t>(), ref.at("NI")[k].item<int64_t>());
  }
}

}  // namespace

TEST(OptimRmsprop, MatchesTorchEveryStepOnEveryDevice) {
  struct C {
    std::string py;
    RMSpropOptions o;
    std::vector<std::string> state;
  };
  const std::vector<C> cases = {
      {"lr=0.01", RMSpropOptions(0.01), {"square_avg", "step"}},
      {"lr=0.02, alpha=0.9, eps=1e-6, weight_decay=0.1",
       RMSpropOptions(0.02).alpha(0.9).eps(1e-6).weight_decay(0.1),
       {"square_avg"}},
      {"lr=0.01, momentum=0.9",
       RMSpropOptions(0.01).momentum(0.9),
       {"square_avg", "momentum_buffer"}},
      {"lr=0.01, centered=True", RMSpropOptions(0.01).centered(true), {"square_avg", "grad_avg"}},
      {"lr=0.005, momentum=0.5, centered=True, weight_decay=0.01",
       RMSpropOptions(0.005).momentum(0.5).centered(true).weight_decay(0.01),
       {"square_avg", "momentum_buffer", "grad_avg"}},
  };
  for (const auto& device : test_devices()) {
    for (const auto& c : cases) rmsprop_case(c.py, c.o, c.state, ember::kDouble, device, 1e-10);
  }
  for (const auto& c : cases) rmsprop_case(c.py, c.o, c.state, ember::kFloat, ember::kCPU, 1e-5);
  EXPECT_DOUBLE_EQ(RMSpropOptions().lr(), 1e-2);
  EXPECT_DOUBLE_EQ(RMSpropOptions().alpha(), 0.99);
}

TEST(OptimLbfgs, MatchesTorchEveryStepOnEveryDevice) {
  for (const auto& device : test_devices()) {
    lbfgs_case("lr=1", LBFGSOptions(1), ember::kDouble, device, 1e-9);
    lbfgs_case("lr=0.5, max_iter=5, history_size=2", LBFGSOptions(0.5).max_iter(5).history_size(2),
               ember::kDouble, device, 1e-9);
    lbfgs_case("lr=1, line_search_fn='strong_wolfe'",
               LBFGSOptions(1).line_search_fn("strong_wolfe"), ember::kDouble, device, 1e-9);
    lbfgs_case(
        "lr=1, max_iter=7, max_eval=9, history_size=3, line_search_fn='strong_wolfe'",
        LBFGSOptions(1).max_iter(7).max_eval(9).history_size(3).line_search_fn("strong_wolfe"),
        ember::kDouble, device, 1e-9);
    lbfgs_case("lr=0.8, tolerance_change=1e-3, tolerance_grad=1e-3",
               LBFGSOptions(0.8).tolerance_change(1e-3).tolerance_grad(1e-3), ember::kDouble,
               device, 1e-9);
  }
  // float32 with few iterations per step: the stopping tests compare losses near float32
  // round-off, so long runs may stop one iteration apart.
  lbfgs_case("lr=1, max_iter=3", LBFGSOptions(1).max_iter(3), ember::kFloat, ember::kCPU, 2e-4);
}

TEST(OptimRmspropLbfgs, StateDictRoundTripContinuesTheSameTrajectory) {
  // RMSprop: two steps, then a copy resumes from the state dict.
  {
    ember::manual_seed(5);
    Tensor w = ember::randn({4}, ember::kDouble).requires_grad_();
    Tensor w2 = w.detach().clone().requires_grad_();
    RMSprop a({w}, RMSpropOptions(0.01).momentum(0.9).centered(true));
    RMSprop b({w2}, RMSpropOptions(0.5));
    std::vector<Tensor> grads = {ember::randn({4}, ember::kDouble),
                                 ember::randn({4}, ember::kDouble),
                                 ember::randn({4}, ember::kDouble)};
    for (int k = 0; k < 2; ++k) {
      w.mutable_grad() = grads[k];
      a.step();
    }
    b.load_state_dict(a.state_dict());
    {
      ember::NoGradGuard ng;
      w2.copy_(w);
    }
    EXPECT_DOUBLE_EQ(static_cast<RMSpropOptions&>(b.param_groups()[0].options()).lr(), 0.01);
    w.mutable_grad() = grads[2];
    w2.mutable_grad() = grads[2].clone();
    a.step();
    b.step();
    expect_close(w2.detach(), w.detach(), 0, 0, "RMSprop resumed");
    EXPECT_TRUE(contains(error_of<ember::ValueError>([&] {
                           SGD sgd({w2}, SGDOptions(0.1));
                           sgd.load_state_dict(a.state_dict());
                         }),
                         "optimizer state dict is missing"));
  }
  // LBFGS: one step, then a copy resumes; both take the same second step.
  {
    LbfgsData data = lbfgs_data(ember::kDouble, 9);
    Tensor w = data.w0.clone().requires_grad_(), b = data.b0.clone().requires_grad_();
    Tensor w2 = data.w0.clone().requires_grad_(), b2 = data.b0.clone().requires_grad_();
    const auto o = LBFGSOptions(1).max_iter(3).history_size(4).line_search_fn("strong_wolfe");
    LBFGS first({w, b}, o);
    LBFGS second({w2, b2}, LBFGSOptions(0.1));
    auto closure_for = [&](LBFGS& opt, const Tensor& pw, const Tensor& pb) {
      return [&opt, &data, pw, pb] {
        opt.zero_grad();
        Tensor loss = ember_loss(data.x, data.y, pw, pb);
        loss.backward();
        return loss;
      };
    };
    first.step(closure_for(first, w, b));
    second.load_state_dict(first.state_dict());
    {
      ember::NoGradGuard ng;
      w2.copy_(w);
      b2.copy_(b);
    }
    EXPECT_EQ(state_of(second, w2, "old_dirs").size(0), state_of(first, w, "old_dirs").size(0));
    first.step(closure_for(first, w, b));
    second.step(closure_for(second, w2, b2));
    expect_close(w2.detach(), w.detach(), 1e-12, 1e-14, "LBFGS resumed w");
    expect_close(b2.detach(), b.detach(), 1e-12, 1e-14, "LBFGS resumed b");
  }
}

TEST(OptimRmspropLbfgs, BadOptionsAndMisuseAreNamed) {
  Tensor w = ember::zeros({2}).requires_grad_();
  EXPECT_EQ(error_of<ember::ValueError>([&] { RMSprop({w}, RMSpropOptions(-1)); }),
            "Invalid learning rate: -1");
  EXPECT_EQ(error_of<ember::ValueError>([&] { RMSprop({w}, RMSpropOptions().alpha(-0.5)); }),
            "Invalid alpha value: -0.5");
  EXPECT_EQ(error_of<ember::ValueError>([&] { RMSprop({w}, RMSpropOptions().eps(-1e-3)); }),
            "Invalid epsilon value: -0.001");
  EXPECT_EQ(error_of<ember::ValueError>([&] { RMSprop({w}, RMSpropOptions().momentum(-1)); }),
            "Invalid momentum value: -1");
  EXPECT_TRUE(contains(error_of<ember::ValueError>(
                           [&] { LBFGS({w}, LBFGSOptions().line_search_fn("backtracking")); }),
                       "only 'strong_wolfe' is supported as line_search_fn, got 'backtracking'"));
  EXPECT_TRUE(contains(error_of<ember::ValueError>([&] {
                         Tensor v = ember::zeros({2}).requires_grad_();
                         std::vector<OptimizerParamGroup> groups;
                         groups.emplace_back(std::vector<Tensor>{w});
                         groups.emplace_back(std::vector<Tensor>{v});
                         LBFGS opt(groups, LBFGSOptions());
                       }),
                       "LBFGS doesn't support per-parameter options (parameter groups), got 2"));
  EXPECT_TRUE(contains(error_of<ember::ValueError>([&] {
                         LBFGS opt({w});
                         opt.step(nullptr);
                       }),
                       "LBFGS::step() requires a closure"));
  EXPECT_TRUE(contains(error_of<ember::ValueError>([&] { LBFGS({w}, LBFGSOptions().max_iter(0)); }),
                       "max_iter must be at least 1, got 0"));
}
