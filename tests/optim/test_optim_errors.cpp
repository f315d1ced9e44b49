// Bad optimizer options and parameter lists: each a ValueError (or TypeError) naming the value.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ember/ember.h"

namespace {

using ember::Tensor;
using namespace ember::optim;

template <typename E>
void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' lacks '" << needle << "'";
  }
}

Tensor param() {
  return ember::zeros({2}).requires_grad_();
}

TEST(OptimErrors, BadSGDOptions) {
  expect_error<ember::ValueError>([] { SGD({param()}, SGDOptions(-0.1)); },
                                  "Invalid learning rate: -0.1");
  expect_error<ember::ValueError>([] { SGD({param()}, SGDOptions(0.1).momentum(-0.5)); },
                                  "Invalid momentum value: -0.5");
  expect_error<ember::ValueError>([] { SGD({param()}, SGDOptions(0.1).weight_decay(-1)); },
                                  "Invalid weight_decay value: -1");
  expect_error<ember::ValueError>([] { SGD({param()}, SGDOptions(0.1).nesterov(true)); },
                                  "Nesterov momentum requires a momentum and zero dampening");
  expect_error<ember::ValueError>(
      [] { SGD({param()}, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)); },
      "dampening 0.1");
}

TEST(OptimErrors, BadAdamOptions) {
  expect_error<ember::ValueError>([] { Adam({param()}, AdamOptions(-1e-3)); },
                                  "Invalid learning rate: -0.001");
  expect_error<ember::ValueError>(
      [] {
        Adam({param()}, AdamOptions().betas({1.0, 0.999}));
      },
      "Invalid beta parameter at index 0: 1");
  expect_error<ember::ValueError>(
      [] {
        AdamW({param()}, AdamWOptions().betas({0.9, -0.1}));
      },
      "Invalid beta parameter at index 1: -0.1");
  expect_error<ember::ValueError>([] { Adam({param()}, AdamOptions().eps(-1e-8)); },
                                  "Invalid epsilon value: -1e-08");
  expect_error<ember::ValueError>([] { AdamW({param()}, AdamWOptions().weight_decay(-0.01)); },
                                  "Invalid weight_decay value: -0.01");
}

// The optimizers added for PyTorch 1.13's list: its checks, its messages.
TEST(OptimErrors, BadOptionsOfTheOtherOptimizers) {
  using ember::ValueError;
  expect_error<ValueError>([] { Adagrad({param()}, AdagradOptions(-0.1)); },
                           "Invalid learning rate: -0.1");
  expect_error<ValueError>([] { Adagrad({param()}, AdagradOptions().lr_decay(-1)); },
                           "Invalid lr_decay value: -1");
  expect_error<ValueError>(
      [] { Adagrad({param()}, AdagradOptions().initial_accumulator_value(-0.5)); },
      "Invalid initial_accumulator_value value: -0.5");
  expect_error<ValueError>([] { Adagrad({param()}, AdagradOptions().eps(-1)); },
                           "Invalid epsilon value: -1");
  expect_error<ValueError>([] { Adagrad({param()}, AdagradOptions().weight_decay(-2)); },
                           "Invalid weight_decay value: -2");
  expect_error<ValueError>(
      [] {
        RAdam({param()}, RAdamOptions().betas({0.9, 1.0}));
      },
      "Invalid beta parameter at index 1: 1");
  expect_error<ValueError>([] { NAdam({param()}, NAdamOptions().momentum_decay(-0.1)); },
                           "Invalid momentum_decay value: -0.1");
  expect_error<ValueError>([] { NAdam({param()}, NAdamOptions(-1)); }, "Invalid learning rate: -1");
  expect_error<ValueError>(
      [] {
        Adamax({param()}, AdamaxOptions().betas({-0.1, 0.9}));
      },
      "Invalid beta parameter at index 0: -0.1");
  expect_error<ValueError>([] { Adadelta({param()}, AdadeltaOptions().rho(1.5)); },
                           "Invalid rho value: 1.5");
  expect_error<ValueError>([] { Adadelta({param()}, AdadeltaOptions().eps(-1e-6)); },
                           "Invalid epsilon value: -1e-06");
  expect_error<ValueError>(
      [] {
        Rprop({param()}, RpropOptions().etas({1.5, 1.2}));
      },
      "Invalid eta values: 1.5, 1.2");
  expect_error<ValueError>([] { Rprop({param()}, RpropOptions(-0.01)); },
                           "Invalid learning rate: -0.01");
  expect_error<ValueError>([] { ASGD({param()}, ASGDOptions().weight_decay(-0.1)); },
                           "Invalid weight_decay value: -0.1");
}

TEST(OptimErrors, BadGroupOptionsAreCheckedToo) {
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{param()}, std::make_unique<AdamOptions>(-2.0));
  expect_error<ember::ValueError>([&] { Adam(groups, AdamOptions()); },
                                  "Invalid learning rate: -2");
  // Options of another optimizer.
  std::vector<OptimizerParamGroup> mixed;
  mixed.emplace_back(std::vector<Tensor>{param()}, std::make_unique<SGDOptions>(0.1));
  expect_error<ember::TypeError>([&] { Adam(mixed, AdamOptions()); },
                                 "parameter group options are SGDOptions but this optimizer takes "
                                 "AdamOptions");
}

TEST(OptimErrors, BadParameterLists) {
  expect_error<ember::ValueError>([] { SGD(std::vector<Tensor>{}, SGDOptions(0.1)); },
                                  "empty parameter list");
  expect_error<ember::ValueError>(
      [] {
        SGD({param(), Tensor()}, SGDOptions(0.1));
      },
      "parameter 1 of the new parameter group is an undefined tensor");
  Tensor w = param();
  expect_error<ember::ValueError>([&] { SGD({w * 2}, SGDOptions(0.1)); },
                                  "can't optimize a non-leaf Tensor");
  expect_error<ember::ValueError>(
      [&] {
        Adam({w, w});
      },
      "some parameters appear in more than one parameter group");
  Adam opt({w});
  expect_error<ember::ValueError>(
      [&] {
        opt.add_param_group(OptimizerParamGroup({param(), w}));
      },
      "parameter 1 of the new group, shape [2]");
  EXPECT_EQ(opt.param_groups().size(), 1u);  // the failed group was not added
}

}  // namespace
