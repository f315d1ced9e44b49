// AdaptiveLogSoftmaxWithLoss against PyTorch 1.13 (weights copied in by name) on every test
// device: output, loss, the gradients of input and every parameter, log_prob and predict;
// libtorch's submodule names, printing and PyTorch's errors.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

Tensor wave(std::vector<int64_t> shape, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (arange(n, TensorOptions(kDouble)) * 0.37 + phase).sin().reshape(shape);
}

TEST(AdaptiveLogSoftmaxWithLoss, MatchesTorchOnEveryDevice) {
  nn::AdaptiveLogSoftmaxWithLoss reference(
      nn::AdaptiveLogSoftmaxWithLossOptions(12, 15, {3, 8}).div_value(2.0).head_bias(true));
  reference->to(kDouble);
  std::map<std::string, Tensor> inputs;
  std::string load =
      "m = torch.nn.AdaptiveLogSoftmaxWithLoss(12, 15, [3, 8], div_value=2.0, "
      "head_bias=True).double()\nsd = m.state_dict()\nwith torch.no_grad():\n";
  int k = 0;
  std::vector<std::string> names;
  for (const auto& p : reference->named_parameters()) {
    const std::string var = "p" + std::to_string(k++);
    inputs[var] = p.value().detach().clone();
    load += "    sd['" + p.key() + "'].copy_(" + var + ")\n";
    names.push_back(p.key());
  }
  const Tensor x = wave({6, 12}, 0.3);
  const Tensor target = tensor({0, 14, 4, 9, 2, 7}).to(kLong);
  inputs["x"] = x.clone().requires_grad_();
  inputs["t"] = target;
  std::string code = load +
                     "out = m(x, t)\nout.loss.backward()\ny, loss, gx = out.output, out.loss, "
                     "x.grad\nlp = m.log_prob(x)\npred = m.predict(x)\n";
  std::vector<std::string> outputs = {"y", "loss", "gx", "lp", "pred"};
  for (size_t i = 0; i < names.size(); ++i) {
    code += "g" + std::to_string(i) + " = dict(m.named_parameters())['" + names[i] + "'].grad\n";
    outputs.push_back("g" + std::to_string(i));
  }
  auto r = TorchOracle::instance().run(code, inputs, outputs);
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    auto m = std::dynamic_pointer_cast<nn::AdaptiveLogSoftmaxWithLossImpl>(reference->clone(dev));
    Tensor xd = x.to(dev).detach().requires_grad_();
    nn::ASMoutput out = m->forward(xd, target.to(dev));
    (-out.output).mean().backward();
    expect_close(out.output.cpu(), r.at("y"), 1e-10, 1e-10);
    EXPECT_NEAR(out.loss, r.at("loss").item<double>(), 1e-10);
    expect_close(xd.grad().cpu(), r.at("gx"), 1e-10, 1e-10);
    size_t i = 0;
    for (const auto& p : m->named_parameters()) {
      expect_close(p.value().grad().cpu(), r.at("g" + std::to_string(i++)), 1e-10, 1e-10, p.key());
    }
    NoGradGuard no_grad;
    expect_close(m->log_prob(x.to(dev)).cpu(), r.at("lp"), 1e-10, 1e-10);
    EXPECT_TRUE(equal(m->predict(x.to(dev)).cpu(), r.at("pred")));
  }
}

TEST(AdaptiveLogSoftmaxWithLoss, NamesPrintingAndErrors) {
  nn::AdaptiveLogSoftmaxWithLoss m(nn::AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 6}));
  std::vector<std::string> keys;
  for (const auto& p : m->named_parameters()) keys.push_back(p.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"head.weight", "tail.0.0.weight", "tail.0.1.weight",
                                            "tail.1.0.weight", "tail.1.1.weight"}));
  EXPECT_EQ(m->head->weight.sizes(), (std::vector<int64_t>{5, 8}));
  EXPECT_EQ(m->shortlist_size, 3);
  EXPECT_EQ(m->n_clusters, 2);
  std::ostringstream os;
  os << *m;
  EXPECT_NE(os.str().find("ember::nn::AdaptiveLogSoftmaxWithLoss"), std::string::npos);
  auto message = [](auto f) { return error_of<ValueError>(f); };
  EXPECT_NE(message([] {
              nn::AdaptiveLogSoftmaxWithLoss(nn::AdaptiveLogSoftmaxWithLossOptions(8, 10, {3, 3}));
            }).find("cutoffs should be a sequence of unique, positive integers"),
            std::string::npos);
  EXPECT_NE(message([&] {
              m->forward(zeros({2, 8}), tensor({1, 12}).to(kLong));
            }).find("Target values should be in [0, 9], but values in range [1, 12] were found"),
            std::string::npos);
  EXPECT_NE(message([&] {
              m->forward(zeros({3, 8}), tensor({1, 2}).to(kLong));
            }).find("Input and target should have the same size in the batch dimension."),
            std::string::npos);
  // Unbatched: a 0-dim target with a 1-D input gives a 0-dim output.
  EXPECT_EQ(m->forward(zeros({8}), full({}, 4, kLong)).output.dim(), 0);
}

}  // namespace
}  // namespace ember::testing
