// Module::clone (libtorch's Cloneable): deep copies of every built-in module and of user modules
// deriving Cloneable<Self>, to another device, without touching the random numbers drawn after;
// a module that is not Cloneable is named.
#include <gtest/gtest.h>

#include "ember/cuda.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace nn = ember::nn;
using ember::Tensor;
using ember::testing::contains;
using ember::testing::error_of;

namespace {

// Every tensor of `copy` equals `original`'s in value but is its own storage.
void expect_deep_copy(const nn::Module& original, const nn::Module& copy) {
  auto a = original.named_parameters(), b = copy.named_parameters();
  ASSERT_EQ(a.keys(), b.keys());
  for (size_t i = 0; i < a.size(); ++i) {
    const Tensor& x = a[i].value();
    const Tensor& y = b[i].value();
    EXPECT_TRUE(x.cpu().equal(y.cpu())) << a[i].key();
    EXPECT_NE(x.data_ptr(), y.data_ptr()) << a[i].key() << " shares storage";
    EXPECT_EQ(x.requires_grad(), y.requires_grad()) << a[i].key();
  }
  auto c = original.named_buffers(), d = copy.named_buffers();
  ASSERT_EQ(c.keys(), d.keys());
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_TRUE(c[i].value().cpu().equal(d[i].value().cpu())) << c[i].key();
    EXPECT_NE(c[i].value().data_ptr(), d[i].value().data_ptr()) << c[i].key();
  }
}

TEST(Clone, BuiltInModulesInASequential) {
  ember::manual_seed(1);
  auto model = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 4, 3)), nn::BatchNorm2d(4),
                              nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten(),
                              nn::Linear(4 * 3 * 3, 8), nn::LayerNorm(std::vector<int64_t>{8}),
                              nn::Dropout(0.0), nn::Linear(8, 3));
  model->eval();
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(model->clone());
  ASSERT_NE(copy, nullptr);
  expect_deep_copy(*model, *copy);
  EXPECT_FALSE(copy->is_training());
  Tensor x = ember::randn({2, 1, 8, 8});
  EXPECT_TRUE(model->forward(x).equal(copy->forward(x)));
  // Training the copy leaves the original alone.
  {
    ember::NoGradGuard no_grad;
    copy->parameters()[0].add_(1.0);
  }
  EXPECT_FALSE(model->forward(x).equal(copy->forward(x)));
}

TEST(Clone, DrawsNoRandomNumbers) {
  ember::manual_seed(5);
  auto model = nn::Sequential(nn::Linear(16, 16), nn::Linear(16, 4));
  Tensor before = ember::rand({3});
  ember::manual_seed(5);
  model = nn::Sequential(nn::Linear(16, 16), nn::Linear(16, 4));
  auto copy = model->clone();
  EXPECT_TRUE(ember::rand({3}).equal(before));
}

struct NetImpl : nn::Cloneable<NetImpl> {
  explicit NetImpl(int64_t hidden) : hidden(hidden) { reset(); }
  void reset() override {
    fc1 = register_module("fc1", nn::Linear(4, hidden));
    fc2 = register_module("fc2", nn::Linear(hidden, 2));
    scale = register_parameter("scale", ember::ones({1}));
    steps = register_buffer("steps", ember::zeros({}, ember::kLong));
  }
  Tensor forward(const Tensor& x) { return fc2->forward(fc1->forward(x).tanh()) * scale; }
  int64_t hidden;
  nn::Linear fc1{nullptr}, fc2{nullptr};
  Tensor scale, steps;
};
EMBER_MODULE(Net);

TEST(Clone, UserModulesDerivingCloneable) {
  ember::manual_seed(2);
  Net net(6);
  {
    ember::NoGradGuard no_grad;
    net->scale.fill_(3.0);
    net->steps.fill_(7);
  }
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  expect_deep_copy(*net, *copy);
  // The copy's members point at its own tensors and submodules.
  EXPECT_EQ(copy->fc1.get(), copy->named_children()[0].value().get());
  EXPECT_NE(copy->fc1.get(), net->fc1.get());
  EXPECT_EQ(copy->scale.data_ptr(), copy->named_parameters()["scale"].data_ptr());
  EXPECT_EQ(copy->steps.item<int64_t>(), 7);
  Tensor x = ember::randn({3, 4});
  EXPECT_TRUE(net->forward(x).equal(copy->forward(x)));
}

TEST(Clone, ToAnotherDevice) {
  EMBER_SKIP_WITHOUT_CUDA();
  ember::manual_seed(3);
  auto model = nn::Sequential(nn::Linear(5, 5), nn::BatchNorm1d(5), nn::Linear(5, 2));
  const ember::Device dev(ember::kCUDA,
                          static_cast<ember::DeviceIndex>(ember::cuda::device_count() - 1));
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(model->clone(dev));
  for (const auto& p : copy->parameters()) EXPECT_EQ(p.device(), dev);
  for (const auto& b : copy->buffers()) EXPECT_EQ(b.device(), dev);
  for (const auto& p : model->parameters()) EXPECT_TRUE(p.is_cpu());
  model->eval();
  copy->eval();
  Tensor x = ember::randn({4, 5});
  ember::testing::expect_close(copy->forward(x.to(dev)).cpu(), model->forward(x), 1e-5, 1e-6,
                               "clone on " + dev.str());
}

struct Plain : nn::Module {
  Plain() { register_parameter("w", ember::zeros({2})); }
};

TEST(Clone, NotCloneableIsNamed) {
  auto plain = std::make_shared<Plain>();
  std::string msg = error_of<ember::NotImplementedError>([&] { plain->clone(); });
  EXPECT_TRUE(contains(msg, "clone() has not been implemented for")) << msg;
  EXPECT_TRUE(contains(msg, "Subclass ember::nn::Cloneable<")) << msg;
  // Inside a Sequential too.
  auto seq = nn::Sequential();
  seq->push_back("plain", plain);
  EXPECT_TRUE(contains(error_of<ember::NotImplementedError>([&] { seq->clone(); }),
                       "clone() has not been implemented for"));
}

}  // namespace
