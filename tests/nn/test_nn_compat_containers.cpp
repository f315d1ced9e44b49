// libtorch names of issue 16 around modules: nn::ModuleDict, nn::Functional,
// Conv2dOptions::padding({a, b}), Module::to(dtype) on parameters and buffers, and
// Device("cpu:0") keeping its index.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

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

std::string printed(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

std::vector<std::string> parameter_names(const nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& p : m.named_parameters()) out.push_back(p.key());
  return out;
}

struct Holder : nn::Module {
  Holder() {
    dict = register_module(
        "dict", nn::ModuleDict(std::vector<std::pair<std::string, std::shared_ptr<Module>>>{
                    {"fc", nn::Linear(3, 4).ptr()},
                    {"act", nn::ReLU().ptr()},
                    {"out", nn::Linear(4, 2).ptr()},
                }));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = x;
    for (const auto& key : {"fc", "act", "out"}) {
      auto m = dict[key];
      if (auto* fc = m->as<nn::Linear>()) {
        h = fc->forward(h);
      } else {
        h = m->as<nn::ReLU>()->forward(h);
      }
    }
    return h;
  }
  nn::ModuleDict dict{nullptr};
};

}  // namespace

TEST(NnCompatContainers, ModuleDictKeepsOrderAndRegistersItsModules) {
  Holder h;
  EXPECT_EQ(h.dict->keys(), (std::vector<std::string>{"fc", "act", "out"}));
  EXPECT_EQ(parameter_names(h), (std::vector<std::string>{"dict.fc.weight", "dict.fc.bias",
                                                          "dict.out.weight", "dict.out.bias"}));
  EXPECT_EQ(h.dict->size(), 3u);
  EXPECT_TRUE(h.dict->contains("act"));
  EXPECT_FALSE(h.dict->empty());
  EXPECT_EQ(h.dict->at<nn::LinearImpl>("out").options.out_features(), 2);
  // Iteration yields items with key() and value(), as libtorch's OrderedDict.
  std::string keys;
  for (const auto& item : *h.dict) keys += item.key() + (item.value() ? "," : "!");
  EXPECT_EQ(keys, "fc,act,out,");
  // Replacing a key keeps its place and re-registers the new module.
  h.dict->insert("out", nn::Linear(4, 5));
  EXPECT_EQ(h.dict->keys(), (std::vector<std::string>{"fc", "act", "out"}));
  EXPECT_EQ(h.forward(randn({2, 3})).sizes(), IntArrayRef({2, 5}));
  EXPECT_EQ(h.named_parameters()["dict.out.weight"].sizes(), IntArrayRef({5, 4}));
  // pop removes the module and its parameters; clear removes the rest.
  auto popped = h.dict->pop("fc");
  EXPECT_NE(popped->as<nn::Linear>(), nullptr);
  EXPECT_EQ(parameter_names(h), (std::vector<std::string>{"dict.out.weight", "dict.out.bias"}));
  h.dict->insert("fc", popped);  // a popped key can be inserted again
  EXPECT_EQ(h.dict->keys(), (std::vector<std::string>{"act", "out", "fc"}));
  h.dict->clear();
  EXPECT_TRUE(h.dict->empty());
  EXPECT_TRUE(h.parameters().empty());
  // update from another ModuleDict and from pairs.
  nn::ModuleDict other(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{
      {"a", nn::Linear(1, 1).ptr()}});
  h.dict->update(*other);
  h.dict->update(
      std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{{"b", nn::Tanh().ptr()}});
  EXPECT_EQ(h.dict->keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(printed(*h.dict),
            "ember::nn::ModuleDict(\n"
            "  (a): ember::nn::Linear(in_features=1, out_features=1, bias=true)\n"
            "  (b): ember::nn::Tanh()\n)");
}

TEST(NnCompatContainers, ModuleDictClonesAndMovesToEveryDevice) {
  for (const Device& device : test_devices()) {
    Holder h;
    manual_seed(1);
    Tensor x = randn({5, 3});
    Tensor expected = h.forward(x);
    auto copy = std::dynamic_pointer_cast<nn::ModuleDictImpl>(h.dict->clone(device));
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->keys(), h.dict->keys());
    auto w = copy->at<nn::LinearImpl>("fc").weight;
    EXPECT_EQ(w.device(), device);
    EXPECT_FALSE(w.is_same(h.dict->at<nn::LinearImpl>("fc").weight));
    h.to(device);
    expect_close(h.forward(x.to(device)).cpu(), expected, 1e-6, 1e-7, "ModuleDict on device");
  }
}

TEST(NnCompatContainers, ModuleDictBadKeysAreNamed) {
  nn::ModuleDict d;
  d->insert("fc", nn::Linear(2, 2));
  EXPECT_TRUE(contains(error_of<IndexError>([&] { (*d)["conv"]; }),
                       "ModuleDict: no module under the key 'conv' (1 keys)"));
  EXPECT_TRUE(contains(error_of<TypeError>([&] { d->at<nn::ReLUImpl>("fc"); }),
                       "the module under 'fc' is a ember::nn::LinearImpl, not the requested type"));
  EXPECT_TRUE(contains(error_of<IndexError>([&] { d->pop("x"); }), "'x'"));
  EXPECT_TRUE(
      contains(error_of<ValueError>([&] { d->insert("bad.key", nn::Linear(1, 1)); }), "bad.key"));
}

TEST(NnCompatContainers, FunctionalInSequentialOnEveryDevice) {
  for (const Device& device : test_devices()) {
    manual_seed(2);
    nn::Sequential seq(nn::Linear(4, 6), nn::Functional(ember::relu),
                       nn::Functional(ember::leaky_relu, 0.2), nn::Linear(6, 3),
                       nn::Functional([](Tensor t) { return t * 2; }));
    seq->to(device);
    Tensor x = randn({5, 4}).to(device);
    auto& fc1 = seq->at<nn::LinearImpl>(0);
    auto& fc2 = seq->at<nn::LinearImpl>(3);
    Tensor expected = fc2.forward(ember::leaky_relu(ember::relu(fc1.forward(x)), 0.2)) * 2;
    Tensor y = seq->forward(x);
    EXPECT_EQ(y.device(), device);
    expect_close(y.cpu(), expected.cpu(), 0, 0, "Functional chain");
    EXPECT_EQ(parameter_names(*seq),
              (std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"}));
    // A clone keeps the function.
    auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
    expect_close(copy->forward(x).cpu(), expected.cpu(), 0, 0, "cloned Functional chain");
  }
  nn::Functional f(ember::softplus, 2.0, 10.0);
  Tensor x = randn({3});
  expect_close(f(x), ember::softplus(x, 2.0, 10.0), 0, 0, "bound arguments");
  EXPECT_EQ(printed(*f), "ember::nn::Functional()");
  EXPECT_TRUE(contains(error_of<ValueError>([] { nn::Functional(nn::FunctionalImpl::Function()); }),
                       "Functional: the function is empty"));
}

TEST(NnCompatContainers, Conv2dPaddingFromABracedList) {
  auto conv = nn::Conv2d(nn::Conv2dOptions(2, 3, {3, 5}).padding({1, 2}).stride({2, 1}));
  conv->to(kDouble);
  manual_seed(4);
  Tensor x = randn({2, 2, 6, 7}, kDouble).requires_grad_();
  Tensor y = conv->forward(x);
  Tensor gy = randn(y.sizes(), kDouble);
  y.backward(gy);
  auto r = TorchOracle::instance().run(
      "x.requires_grad_(True)\ny = F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2))\n"
      "y.backward(gy)\ngx = x.grad\ngw = w.grad",
      {{"x", x.detach()},
       {"w", conv->weight.detach().requires_grad_()},
       {"b", conv->bias.detach()},
       {"gy", gy}},
      {"y", "gx", "gw"});
  expect_close(y, r.at("y"), 1e-10, 1e-12, "conv padding {1, 2}");
  expect_close(x.grad(), r.at("gx"), 1e-10, 1e-12, "conv padding {1, 2}: input gradient");
  expect_close(conv->weight.grad(), r.at("gw"), 1e-10, 1e-12, "conv padding {1, 2}: weight grad");
  EXPECT_TRUE(contains(printed(*conv), "padding=[1, 2]"));
  // The functional options take the same forms.
  Tensor w = randn({3, 2, 3, 3}, kDouble);
  expect_close(
      nn::functional::conv2d(x.detach(), w, nn::functional::Conv2dFuncOptions().padding({2, 0})),
      nn::functional::conv2d(
          x.detach(), w, nn::functional::Conv2dFuncOptions().padding(ExpandingArray<2>({2, 0}))),
      0, 0, "F::conv2d padding {2, 0}");
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         nn::Conv2dOptions(1, 1, 3).padding({1, 2, 3});
                       }),
                       "Expected 2 values for this size argument, but got 3"));
}

TEST(NnCompatContainers, ToDtypeConvertsFloatingParametersBuffersAndGradients) {
  struct WithBuffers : nn::Module {
    WithBuffers() {
      w = register_parameter("w", ones({2}));
      running = register_buffer("running", ones({2}));
      count = register_buffer("count", zeros({1}, kLong));
      bn = register_module("bn", nn::BatchNorm1d(2));
    }
    Tensor w, running, count;
    nn::BatchNorm1d bn{nullptr};
  };
  WithBuffers m;
  (m.w * 3).sum().backward();
  Tensor w_handle = m.w;
  m.to(kDouble);
  EXPECT_EQ(m.w.dtype(), kDouble);
  EXPECT_EQ(w_handle.dtype(), kDouble);  // handles stay valid: the tensor is converted in place
  EXPECT_EQ(m.w.grad().dtype(), kDouble);
  EXPECT_EQ(m.running.dtype(), kDouble);
  EXPECT_EQ(m.bn->running_mean.dtype(), kDouble);
  EXPECT_EQ(m.bn->running_var.dtype(), kDouble);
  EXPECT_EQ(m.bn->weight.dtype(), kDouble);
  EXPECT_EQ(m.count.dtype(), kDouble);  // integer buffers too, as in libtorch 1.13's C++
  EXPECT_EQ(m.bn->num_batches_tracked.dtype(), kDouble);
  for (const auto& b : m.named_buffers()) EXPECT_EQ(b.value().dtype(), kDouble) << b.key();
  // The batch count still counts once it is a double, and momentum=None still reads it.
  m.bn->train();
  m.bn->forward(ones({3, 2}, kDouble));
  EXPECT_EQ(m.bn->num_batches_tracked.item<double>(), 1.0);
  m.to(kHalf);
  EXPECT_EQ(m.running.dtype(), kHalf);
  EXPECT_EQ(m.bn->running_var.dtype(), kHalf);
  EXPECT_TRUE(contains(error_of<TypeError>([&] { m.to(kLong); }),
                       "nn.Module.to only accepts floating point dtypes, but got desired "
                       "dtype=torch.int64"));
}

TEST(NnCompatContainers, CpuZeroKeepsItsIndex) {
  Device d("cpu:0");
  EXPECT_TRUE(d.is_cpu());
  EXPECT_TRUE(d.has_index());
  EXPECT_EQ(d.index(), 0);
  EXPECT_EQ(d.str(), "cpu:0");
  std::ostringstream os;
  os << d << " " << Device("cpu") << " " << Device(kCPU, 0);
  EXPECT_EQ(os.str(), "cpu:0 cpu cpu:0");
  // As in libtorch: cpu:0 is not the index-less cpu, and tensors report the index-less one.
  EXPECT_EQ(d, Device(kCPU, 0));
  EXPECT_NE(d, Device(kCPU));
  Tensor t = ones({2}, TensorOptions().device(d));
  EXPECT_EQ(t.device(), Device(kCPU));
  EXPECT_EQ(t.device().str(), "cpu");
  auto fc = nn::Linear(2, 2);
  fc->to(d);
  EXPECT_TRUE(fc->weight.is_cpu());
  EXPECT_TRUE(contains(error_of<DeviceError>([] { Device("cpu:1"); }), "'cpu:1'"));
}

// ParameterList / ParameterDict: libtorch's API and printout, registration under "0", "1", ...
// or the key (so a parent's state dict names them as PyTorch does), deep clones, bad input.
TEST(NnCompatContainers, ParameterListRegistersItsTensorsInOrder) {
  nn::ParameterList list(ones({2, 3}), zeros({4}, kDouble).requires_grad_(true));
  list->append(full({1}, 2.0).requires_grad_(true));
  list->extend(std::vector<Tensor>{ones({2})});
  ASSERT_EQ(list->size(), 4u);
  EXPECT_FALSE(list->is_empty());
  EXPECT_EQ(parameter_names(*list), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_FALSE(list[0].requires_grad()) << "append keeps the tensor's requires_grad, as libtorch";
  EXPECT_TRUE(list->at(1).requires_grad());
  EXPECT_EQ(list[2].item<float>(), 2.0f);
  EXPECT_EQ(printed(*list),
            "ember::nn::ParameterList(\n"
            "(0): Parameter containing: [Float of size [2, 3]]\n"
            "(1): Parameter containing: [Double of size [4]]\n"
            "(2): Parameter containing: [Float of size [1]]\n"
            "(3): Parameter containing: [Float of size [2]]\n"
            ")");
  EXPECT_EQ(error_of<IndexError>([&] { list->at(4); }),
            "ParameterList: index 4 is out of range (size 4)");
  size_t n = 0;
  for (const auto& item : *list) n += item.value().numel();
  EXPECT_EQ(n, 6u + 4u + 1u + 2u);
  // A parent names them "<name>.<index>"; a clone is deep and keeps requires_grad.
  Holder parent;
  parent.register_module("weights", list.ptr());
  EXPECT_TRUE(parent.named_parameters().contains("weights.1"));
  auto copy = std::dynamic_pointer_cast<nn::ParameterListImpl>(list->clone());
  ASSERT_TRUE(copy);
  copy->at(2).detach().fill_(5.0);
  EXPECT_EQ(list[2].item<float>(), 2.0f);
  EXPECT_TRUE(copy->at(1).requires_grad());
  EXPECT_EQ(copy->at(1).scalar_type(), kDouble);
}

TEST(NnCompatContainers, ParameterDictInsertsPopsAndUpdates) {
  nn::ParameterDict dict;
  dict->insert("scale", ones({3}).requires_grad_(true));
  dict->insert("shift", zeros({3}));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"scale", "shift"}));
  EXPECT_TRUE(dict->contains("shift"));
  EXPECT_EQ(dict->size(), 2u);
  EXPECT_TRUE(dict["scale"].requires_grad());
  EXPECT_EQ(printed(*dict),
            "ember::nn::ParameterDict(\n"
            "(scale): Parameter containing: [Float of size [3]]\n"
            "(shift): Parameter containing: [Float of size [3]]\n"
            ")");
  EXPECT_TRUE(contains(error_of<ValueError>([&] { dict->insert("scale", ones({1})); }),
                       "'scale' already defined"));
  OrderedDict<std::string, Tensor> more;
  more.insert("shift", full({3}, 7.0));
  more.insert("bias", ones({2}));
  dict->update(more);
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"scale", "shift", "bias"}));
  EXPECT_EQ(dict->get("shift")[0].item<float>(), 7.0f);
  const Tensor popped = dict->pop("scale");
  EXPECT_EQ(popped.sizes(), (std::vector<int64_t>{3}));
  EXPECT_FALSE(dict->contains("scale"));
  EXPECT_EQ(parameter_names(*dict), (std::vector<std::string>{"shift", "bias"}));
  EXPECT_TRUE(contains(error_of<IndexError>([&] { dict->pop("scale"); }), "'scale'"));
  auto copy = std::dynamic_pointer_cast<nn::ParameterDictImpl>(dict->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->keys(), dict->keys());
  copy->get("bias").detach().fill_(0.0);
  EXPECT_EQ(dict->get("bias")[0].item<float>(), 1.0f);
  dict->clear();
  EXPECT_TRUE(dict->empty());
}
