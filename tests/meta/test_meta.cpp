// Meta tensors (kMeta): sizes, strides and a dtype without data, as libtorch's. Shapes of
// results are checked against PyTorch's meta device; what needs data fails by name, as in
// libtorch 1.13 (the per-op shapes run in test_op_devices, OpDevices.Meta, over every row).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "ember/ember.h"
#include "ember/nn.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::TorchOracle;

namespace {

const TensorOptions kMetaFloat = TensorOptions().device(kMeta);

}  // namespace

TEST(Meta, DeviceParsesAndPrints) {
  EXPECT_EQ(Device("meta").type(), kMeta);
  EXPECT_TRUE(Device("meta").is_meta());
  EXPECT_FALSE(Device("meta").is_cpu() || Device("meta").is_cuda());
  EXPECT_EQ(Device("meta:0").index(), 0);
  EXPECT_THROW(Device("meta:1"), DeviceError);
  EXPECT_THROW(Device(kMeta, 1), DeviceError);
  std::ostringstream os;
  os << Device(kMeta) << " " << kMeta;
  EXPECT_EQ(os.str(), "meta meta");
}

TEST(Meta, FactoriesMakeShapesWithoutData) {
  Tensor m = empty({2, 3}, kMeta);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.device(), Device(kMeta));
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(m.strides(), IntArrayRef({3, 1}));
  EXPECT_EQ(m.scalar_type(), kFloat);
  EXPECT_EQ(m.toString(), "MetaFloatType");
  // A meta tensor of any size costs no memory: 2^40 floats.
  Tensor huge = zeros({1 << 20, 1 << 20}, kMetaFloat);
  EXPECT_EQ(huge.numel(), int64_t(1) << 40);
  EXPECT_EQ(ones({4}, TensorOptions().dtype(kLong).device(kMeta)).scalar_type(), kLong);
  EXPECT_TRUE(arange(10, TensorOptions().device(kMeta)).is_meta());
  EXPECT_TRUE(rand({3}, kMetaFloat).is_meta());
  EXPECT_TRUE(full({2}, 1.5, kMetaFloat).is_meta());
  EXPECT_TRUE(empty_like(m).is_meta());
  EXPECT_TRUE(ones({2, 3}).to(kMeta).is_meta());  // into meta: a shape-only copy
}

TEST(Meta, OpsComputeShapesAsPyTorch) {
  Tensor a = empty({4, 1, 5}, kMetaFloat), b = empty({3, 5}, kMetaFloat);
  Tensor w = empty({6, 5}, kMetaFloat), img = empty({2, 3, 16, 16}, kMetaFloat);
  Tensor k = empty({8, 3, 3, 3}, kMetaFloat);
  Tensor sum = (a + b).sum(-1);
  Tensor mm = matmul(b, w.t());
  Tensor conv = conv2d(img, k, {}, 2, 1);
  Tensor pooled = max_pool2d(conv, 2);
  Tensor soft = softmax(b, 1).to(kDouble);
  Tensor cat_ = cat({b, b}, 0).view({2, 15});
  auto torch = TorchOracle::instance().run(
      "def meta(*s): return torch.empty(*s, device='meta')\n"
      "a, b, w = meta(4, 1, 5), meta(3, 5), meta(6, 5)\n"
      "img, k = meta(2, 3, 16, 16), meta(8, 3, 3, 3)\n"
      "conv = torch.nn.functional.conv2d(img, k, None, 2, 1)\n"
      "shapes = [list((a + b).sum(-1).shape), list((b @ w.t()).shape), list(conv.shape),\n"
      "          list(torch.nn.functional.max_pool2d(conv, 2).shape),\n"
      "          list(torch.cat([b, b]).view(2, 15).shape)]\n"
      "sizes = torch.tensor([d for s in shapes for d in s])\n"
      "ok = torch.tensor(conv.is_meta and torch.softmax(b, 1).double().dtype == torch.float64)",
      {}, {"sizes", "ok"});
  std::vector<int64_t> ours;
  for (const Tensor& t : {sum, mm, conv, pooled, cat_}) {
    EXPECT_TRUE(t.is_meta());
    for (int64_t s : t.sizes()) ours.push_back(s);
  }
  EXPECT_EQ(ours, torch.at("sizes").to_vector<int64_t>());
  EXPECT_TRUE(torch.at("ok").item<bool>());
  EXPECT_EQ(soft.scalar_type(), kDouble);
  EXPECT_TRUE(soft.is_meta());
}

TEST(Meta, AModuleMovesToMetaAndTrainsShapes) {
  // libtorch 1.13 cannot move a module to meta (set_data refuses); PyTorch 2 can, and Ember does:
  // the way to learn a model's activation and gradient shapes without memory.
  nn::Sequential net(nn::Linear(5, 7), nn::ReLU(), nn::Linear(7, 3));
  net->to(kMeta);
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.is_meta());
  Tensor y = net->forward(empty({10, 5}, kMetaFloat));
  EXPECT_EQ(y.sizes(), IntArrayRef({10, 3}));
  Tensor loss =
      nn::functional::cross_entropy(y, zeros({10}, TensorOptions().dtype(kLong).device(kMeta)));
  EXPECT_EQ(loss.dim(), 0);
  loss.backward();
  for (const Tensor& p : net->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_TRUE(p.grad().is_meta());
    EXPECT_EQ(p.grad().sizes(), p.sizes());
  }
  optim::SGD sgd(net->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  sgd.step();  // runs no kernel, and keeps every parameter on meta
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.is_meta());
}

TEST(Meta, WhatNeedsDataFailsByName) {
  Tensor m = empty({2, 3}, kMetaFloat);
  EXPECT_TRUE(contains(error_of<NotImplementedError>([&] { m.to(kCPU); }),
                       "Cannot copy out of meta tensor; no data!"));
  EXPECT_TRUE(contains(error_of<NotImplementedError>([&] { m.sum().item<float>(); }),
                       "Cannot copy out of meta tensor; no data!"));
  EXPECT_TRUE(contains(error_of<ValueError>([&] { m.item<float>(); }),
                       "a Tensor with 6 elements cannot be converted to Scalar"));
  EXPECT_TRUE(contains(error_of<NotImplementedError>([&] { m.data_ptr<float>(); }),
                       "Cannot access the data of a meta tensor (sizes [2, 3])"));
  EXPECT_TRUE(
      contains(error_of<NotImplementedError>([&] { nonzero(m); }), "nonzero is not supported"));
  EXPECT_TRUE(contains(error_of<NotImplementedError>([&] {
                         std::ostringstream os;
                         os << m;
                       }),
                       "Cannot copy out of meta tensor; no data!"));
  EXPECT_TRUE(contains(error_of<Error>([&] { m + ones({2, 3}); }), "meta"));
  EXPECT_TRUE(contains(error_of<DeviceError>([&] {
                         static float data[6];
                         from_blob(data, {2, 3}, kMetaFloat);
                       }),
                       "from_blob: a meta tensor has no data"));
  EXPECT_THROW(m.pin_memory(), ValueError);
  // The process keeps working.
  EXPECT_EQ(ones({2}).sum().item<float>(), 2.f);
}
