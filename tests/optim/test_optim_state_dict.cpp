// Optimizer state dicts: a save/load round trip (through ember::save) resumes bit-identically,
// and every malformed dict is rejected with a ValueError before anything changes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ember/ember.h"
#include "ember/serialize.h"
#include "support/torch_oracle.h"

namespace {

using ember::Tensor;
using namespace ember::optim;
using ember::testing::expect_close;

struct Params {
  Tensor w, b;
};

Params make_params() {
  ember::manual_seed(7);
  return {ember::randn({3, 4}).requires_grad_(), ember::randn({4}).requires_grad_()};
}

Params copy_params(const Params& p) {
  return {p.w.detach().clone().requires_grad_(), p.b.detach().clone().requires_grad_()};
}

// Sets deterministic gradients for step k.
void set_grads(Params& p, int k) {
  ember::manual_seed(100 + k);
  p.w.mutable_grad() = ember::randn({3, 4});
  p.b.mutable_grad() = ember::randn({4});
}

template <typename Opt, typename Options>
void expect_resumes_identically(const Options& options, const std::string& name) {
  SCOPED_TRACE(name);
  Params a = make_params();
  Opt opt_a({a.w, a.b}, options);
  for (int k = 0; k < 3; ++k) {
    set_grads(a, k);
    opt_a.step();
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ember_optim_" + name + ".safetensors")).string();
  ember::save(opt_a.state_dict(), path);

  // A fresh optimizer over copies of the parameters, with other hyper-parameters, picks up the
  // saved options and state and then follows the original exactly.
  Params b = copy_params(a);
  Opt opt_b({b.w, b.b}, Options(123.0));
  opt_b.load_state_dict(ember::load(path));
  std::filesystem::remove(path);
  EXPECT_DOUBLE_EQ(opt_b.param_groups()[0].options().get_lr(), options.lr());
  for (int k = 3; k < 6; ++k) {
    set_grads(a, k);
    set_grads(b, k);
    opt_a.step();
    opt_b.step();
    expect_close(b.w.detach(), a.w.detach(), 0, 0, "w after step " + std::to_string(k));
    expect_close(b.b.detach(), a.b.detach(), 0, 0, "b after step " + std::to_string(k));
  }
}

TEST(OptimStateDict, RoundTripResumesIdentically) {
  expect_resumes_identically<SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true), "sgd");
  expect_resumes_identically<Adam>(AdamOptions(0.01).amsgrad(true).weight_decay(0.1), "adam");
  expect_resumes_identically<AdamW>(AdamWOptions(0.01).betas({0.8, 0.9}), "adamw");
  expect_resumes_identically<SGD>(SGDOptions(0.1).momentum(0.5).maximize(true), "sgd_maximize");
  expect_resumes_identically<Adagrad>(AdagradOptions(0.1).lr_decay(0.1).maximize(true), "adagrad");
  expect_resumes_identically<RAdam>(RAdamOptions(0.01).weight_decay(0.1), "radam");
  expect_resumes_identically<NAdam>(NAdamOptions(0.01).momentum_decay(0.1), "nadam");
  expect_resumes_identically<Adamax>(AdamaxOptions(0.01).betas({0.8, 0.9}), "adamax");
  expect_resumes_identically<Adadelta>(AdadeltaOptions(0.5).rho(0.8), "adadelta");
  expect_resumes_identically<Rprop>(RpropOptions(0.01).etas({0.4, 1.3}), "rprop");
  expect_resumes_identically<ASGD>(ASGDOptions(0.05).t0(1), "asgd");
}

// A dict written before the maximize option existed loads as a minimizing optimizer.
TEST(OptimStateDict, DictWithoutMaximizeLoadsAsMinimizing) {
  Params p = make_params();
  SGD src({p.w, p.b}, SGDOptions(0.1).momentum(0.9));
  set_grads(p, 0);
  src.step();
  auto sd = src.state_dict();
  ASSERT_EQ(sd.erase("param_groups.0.maximize"), 1u);
  Params q = make_params();
  SGD opt({q.w, q.b}, SGDOptions(0.5).maximize(true));
  opt.load_state_dict(sd);
  const auto& o = static_cast<const SGDOptions&>(opt.param_groups()[0].options());
  EXPECT_FALSE(o.maximize());
  EXPECT_DOUBLE_EQ(o.lr(), 0.1);
}

TEST(OptimStateDict, LayoutFollowsPyTorch) {
  Params p = make_params();
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{p.w});
  groups.emplace_back(std::vector<Tensor>{p.b}, std::make_unique<AdamOptions>(0.5));
  Adam opt(groups, AdamOptions(0.01));
  set_grads(p, 0);
  p.b.mutable_grad() = Tensor();  // only w gets state
  opt.step();
  auto sd = opt.state_dict();
  expect_close(sd.at("param_groups.0.params"), ember::tensor({int64_t(0)}));
  expect_close(sd.at("param_groups.1.params"), ember::tensor({int64_t(1)}));
  EXPECT_DOUBLE_EQ(sd.at("param_groups.1.lr").item<double>(), 0.5);
  EXPECT_DOUBLE_EQ(sd.at("param_groups.0.beta2").item<double>(), 0.999);
  EXPECT_EQ(sd.at("state.0.step").item<int64_t>(), 1);
  EXPECT_EQ(sd.at("state.0.exp_avg").sizes(), p.w.sizes());
  EXPECT_EQ(sd.count("state.1.exp_avg"), 0u);
  EXPECT_EQ(sd.count("state.0.max_exp_avg_sq"), 0u);
  // The dict holds copies: stepping again does not change it.
  Tensor saved = sd.at("state.0.exp_avg").clone();
  set_grads(p, 1);
  opt.step();
  expect_close(sd.at("state.0.exp_avg"), saved, 0, 0);
}

// Loads `sd` into `opt` expecting a ValueError whose message contains every part of `needles`,
// and checks the optimizer's options were left alone.
void expect_rejected(Optimizer& opt, const OptimizerStateDict& sd,
                     const std::vector<std::string>& needles) {
  const double lr = opt.param_groups()[0].options().get_lr();
  try {
    opt.load_state_dict(sd);
    ADD_FAILURE() << "load_state_dict accepted a bad dict (expected " << needles[0] << ")";
  } catch (const ember::ValueError& e) {
    for (const auto& n : needles) {
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
          << "message '" << e.what() << "' lacks '" << n << "'";
    }
  }
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), lr);
}

TEST(OptimStateDict, BadDictsAreRejectedWithClearErrors) {
  Params p = make_params();
  Adam src({p.w, p.b}, AdamOptions(0.5));
  set_grads(p, 0);
  src.step();
  const auto good = src.state_dict();

  Params q = make_params();
  Adam opt({q.w, q.b}, AdamOptions(0.01));

  auto sd = good;
  sd["state.0.exp_avg"] = ember::zeros({4, 3});
  expect_rejected(opt, sd, {"state.0.exp_avg", "[4, 3]", "[3, 4]"});

  sd = good;
  sd.erase("state.1.exp_avg_sq");
  expect_rejected(opt, sd, {"missing", "state.1.exp_avg_sq"});

  sd = good;
  sd["state.0.momentum"] = ember::zeros({3, 4});
  expect_rejected(opt, sd, {"unexpected", "state.0.momentum"});

  sd = good;
  sd["bogus"] = ember::zeros({1});
  expect_rejected(opt, sd, {"unexpected", "bogus"});

  sd = good;
  sd.erase("param_groups.0.beta1");
  expect_rejected(opt, sd, {"missing", "param_groups.0.beta1"});

  sd = good;
  sd["state.5.exp_avg"] = ember::zeros({3, 4});
  expect_rejected(opt, sd, {"parameter 5"});

  sd = good;
  sd["param_groups.0.params"] = ember::tensor({int64_t(0)});
  expect_rejected(opt, sd, {"1 parameter(s)", "has 2"});

  sd = good;
  sd["param_groups.0.beta1"] = ember::scalar_tensor(1.5, ember::kFloat64);
  expect_rejected(opt, sd, {"beta", "1.5"});

  // An SGD dict into Adam, and a dict with another number of groups.
  Params r = make_params();
  SGD sgd({r.w, r.b}, SGDOptions(0.1).momentum(0.9));
  expect_rejected(opt, sgd.state_dict(), {"missing", "param_groups.0.", "AdamOptions"});
  Adam one({r.w}, AdamOptions(0.1));
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{r.w});
  groups.emplace_back(std::vector<Tensor>{r.b});
  Adam two(groups, AdamOptions(0.1));
  expect_rejected(two, one.state_dict(), {"1 parameter group", "has 2"});

  // The optimizer still works and still loads a good dict after all that.
  opt.load_state_dict(good);
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.5);
}

}  // namespace
