// scatter_add, index_add and index_copy (out of place and in place) and operator[](Tensor)
// against PyTorch 1.13 on the same inputs: values, gradients of self and src/source (and a
// second derivative), on every device, and bad input.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::torch_run;
namespace et = ember::testing;

namespace {

Tensor long_tensor(std::vector<int64_t> v, std::vector<int64_t> shape) {
  return tensor(v).reshape(shape);
}

}  // namespace

TEST(ScatterAdd, ValuesRepeatedIndicesGradientsAndInPlaceAsPyTorch) {
  const Tensor x = et::make_input({3, 5}, kDouble, et::seed_for("scatter_add_x"));
  // src larger than index along both dims; index repeats within rows (accumulates).
  const Tensor src = et::make_input({2, 4}, kDouble, et::seed_for("scatter_add_src"));
  const Tensor index = long_tensor({0, 4, 4, 1, 2, 2, 0}, {1, 7}).narrow(1, 0, 3);  // [[0, 4, 4]]
  const Tensor index0 = long_tensor({2, 0, 1, 1, 2, 0}, {2, 3});
  const Tensor g = et::make_input({3, 5}, kDouble, et::seed_for("scatter_add_g"));
  const Tensor xi = et::make_input({3, 5}, kInt, 5), srci = et::make_input({2, 4}, kInt, 6);
  auto r = torch_run(
      "a = x.scatter_add(1, i1, s); b = torch.scatter_add(x, 0, i0, s)\n"
      "c = xi.scatter_add(0, i0, si)\n"
      "s3 = s[:, :3].clone(); x.requires_grad_(True); s3.requires_grad_(True)\n"
      "y = x.scatter_add(0, i0, s3); y.backward(g); gx = x.grad; gs = s3.grad\n"
      "d = x.detach().clone(); d.scatter_add_(1, i1, s.detach())",
      {{"x", x}, {"s", src}, {"i1", index}, {"i0", index0}, {"g", g}, {"xi", xi}, {"si", srci}},
      {"a", "b", "c", "gx", "gs", "d"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = et::non_contiguous(x.to(dev)), sd = src.to(dev);
    expect_close(xd.scatter_add(1, index.to(dev), sd).cpu(), r.at("a"), 1e-12, 1e-12,
                 ctx + " dim 1, repeated index");
    expect_close(ember::scatter_add(xd, 0, index0.to(dev), sd).cpu(), r.at("b"), 1e-12, 1e-12,
                 ctx + " dim 0");
    Tensor c = xi.to(dev).scatter_add(0, index0.to(dev), srci.to(dev));
    EXPECT_EQ(c.dtype(), kInt) << ctx;
    expect_close(c.cpu(), r.at("c"), 0, 0, ctx + " int32");

    Tensor xg = x.to(dev).detach().requires_grad_(),
           sg = src.narrow(1, 0, 3).to(dev).contiguous().detach().requires_grad_();
    xg.scatter_add(0, index0.to(dev), sg).backward(g.to(dev));
    expect_close(xg.grad().cpu(), r.at("gx"), 0, 0, ctx + " grad self");
    expect_close(sg.grad().cpu(), r.at("gs"), 0, 0, ctx + " grad src");
    // A src larger than its index (PyTorch 1.13 raises in backward here): the elements the index
    // does not reach get a zero gradient.
    Tensor big = src.to(dev).detach().requires_grad_();
    xd.scatter_add(0, index0.to(dev), big).backward(g.to(dev));
    expect_close(big.grad().narrow(1, 0, 3).cpu(), r.at("gs"), 0, 0, ctx + " larger src");
    EXPECT_EQ(big.grad().narrow(1, 3, 1).abs().sum().item<double>(), 0.0) << ctx;

    const Tensor d = x.to(dev).clone();  // in place through a const handle, as libtorch allows
    Tensor& same = d.scatter_add_(1, index.to(dev), sd);
    EXPECT_TRUE(same.is_same(d));
    expect_close(d.cpu(), r.at("d"), 1e-12, 1e-12, ctx + " scatter_add_");
  }
}

TEST(ScatterAdd, InPlaceOnANonLeafAndSecondDerivative) {
  const Tensor x = et::make_input({4, 3}, kDouble, et::seed_for("scatter_add_nl"));
  const Tensor s = et::make_input({2, 3}, kDouble, et::seed_for("scatter_add_nl_s"));
  const Tensor i = long_tensor({3, 0, 1, 3, 3, 2}, {2, 3});
  auto r = torch_run(
      "x.requires_grad_(True); s.requires_grad_(True); y = x * 2; y.scatter_add_(0, i, s * s)\n"
      "l = (y * y).sum(); gs, = torch.autograd.grad(l, s, create_graph=True)\n"
      "gx, gss = torch.autograd.grad(gs.sum(), [x, s])",
      {{"x", x}, {"s", s}, {"i", i}}, {"y", "gs", "gx", "gss"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    Tensor xg = x.to(dev).detach().requires_grad_(), sg = s.to(dev).detach().requires_grad_();
    Tensor y = xg * 2;
    y.scatter_add_(0, i.to(dev), sg * sg);
    expect_close(y.detach().cpu(), r.at("y"), 1e-12, 1e-12, ctx + " values");
    auto gs = autograd::grad({(y * y).sum()}, {sg}, {}, std::nullopt, /*create_graph=*/true);
    expect_close(gs[0].detach().cpu(), r.at("gs"), 1e-12, 1e-12, ctx + " first derivative");
    auto second = autograd::grad({gs[0].sum()}, {xg, sg});
    expect_close(second[0].cpu(), r.at("gx"), 1e-12, 1e-12, ctx + " d/dx");
    expect_close(second[1].cpu(), r.at("gss"), 1e-12, 1e-12, ctx + " d/ds");
  }
}

TEST(IndexAdd, AlphaRepeatedIndicesDimsDtypesAndGradients) {
  const Tensor x = et::make_input({4, 3}, kDouble, et::seed_for("index_add_x"));
  const Tensor src0 = et::make_input({5, 3}, kDouble, et::seed_for("index_add_s0"));
  const Tensor src1 = et::make_input({4, 2}, kDouble, et::seed_for("index_add_s1"));
  const Tensor i0 = tensor(std::vector<int64_t>{3, 0, 3, 1, 3});
  const Tensor i1 = tensor(std::vector<int64_t>{2, 0}).to(kInt);  // int32 is allowed, as in PyTorch
  const Tensor g = et::make_input({4, 3}, kDouble, et::seed_for("index_add_g"));
  const Tensor xl = et::make_input({4, 3}, kLong, 7), sl = et::make_input({5, 3}, kLong, 8);
  auto r = torch_run(
      "a = x.index_add(0, i0, s0); b = torch.index_add(x, 1, i1, s1, alpha=-2.5)\n"
      "c = xl.index_add(0, i0, sl, alpha=3)\n"
      "x.requires_grad_(True); s0.requires_grad_(True)\n"
      "x.index_add(0, i0, s0, alpha=0.5).backward(g); gx = x.grad; gs = s0.grad\n"
      "d = x.detach().clone(); d.index_add_(1, i1, s1, alpha=2.0)",
      {{"x", x},
       {"s0", src0},
       {"s1", src1},
       {"i0", i0},
       {"i1", i1},
       {"g", g},
       {"xl", xl},
       {"sl", sl}},
      {"a", "b", "c", "gx", "gs", "d"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = x.to(dev);
    expect_close(
        xd.index_add(0, et::non_contiguous(i0.to(dev)), et::non_contiguous(src0.to(dev))).cpu(),
        r.at("a"), 1e-12, 1e-12, ctx + " strided index and source");
    expect_close(xd.index_add(0, i0.to(dev), src0.to(dev)).cpu(), r.at("a"), 1e-12, 1e-12,
                 ctx + " dim 0, repeated index");
    expect_close(ember::index_add(xd, 1, i1.to(dev), src1.to(dev), -2.5).cpu(), r.at("b"), 1e-12,
                 1e-12, ctx + " dim 1, alpha, int32 index");
    expect_close(xl.to(dev).index_add(0, i0.to(dev), sl.to(dev), 3).cpu(), r.at("c"), 0, 0,
                 ctx + " int64 with integer alpha");
    Tensor xg = x.to(dev).detach().requires_grad_(), sg = src0.to(dev).detach().requires_grad_();
    xg.index_add(0, i0.to(dev), sg, 0.5).backward(g.to(dev));
    expect_close(xg.grad().cpu(), r.at("gx"), 0, 0, ctx + " grad self");
    expect_close(sg.grad().cpu(), r.at("gs"), 1e-12, 1e-12, ctx + " grad source");
    const Tensor d = xd.clone();
    EXPECT_TRUE(d.index_add_(1, i1.to(dev), src1.to(dev), 2.0).is_same(d));
    expect_close(d.cpu(), r.at("d"), 1e-12, 1e-12, ctx + " index_add_");
  }
}

TEST(IndexCopy, SlicesReplacedGradientsZeroWhereReplacedAndInPlace) {
  const Tensor x = et::make_input({5, 3}, kDouble, et::seed_for("index_copy_x"));
  const Tensor src = et::make_input({2, 3}, kDouble, et::seed_for("index_copy_s"));
  const Tensor srcc = et::make_input({5, 2}, kDouble, et::seed_for("index_copy_sc"));
  const Tensor i = tensor(std::vector<int64_t>{4, 1}), ic = tensor(std::vector<int64_t>{0, 2});
  const Tensor g = et::make_input({5, 3}, kDouble, et::seed_for("index_copy_g"));
  auto r = torch_run(
      "a = x.index_copy(0, i, s); b = torch.index_copy(x, 1, ic, sc)\n"
      "x.requires_grad_(True); s.requires_grad_(True)\n"
      "x.index_copy(0, i, s).backward(g); gx = x.grad; gs = s.grad\n"
      "d = x.detach().clone(); d.index_copy_(1, ic, sc)",
      {{"x", x}, {"s", src}, {"sc", srcc}, {"i", i}, {"ic", ic}, {"g", g}},
      {"a", "b", "gx", "gs", "d"});
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor xd = et::non_contiguous(x.to(dev));
    expect_close(xd.index_copy(0, i.to(dev), src.to(dev)).cpu(), r.at("a"), 0, 0, ctx + " dim 0");
    expect_close(ember::index_copy(xd, 1, ic.to(dev), srcc.to(dev)).cpu(), r.at("b"), 0, 0,
                 ctx + " dim 1");
    Tensor xg = x.to(dev).detach().requires_grad_(), sg = src.to(dev).detach().requires_grad_();
    xg.index_copy(0, i.to(dev), sg).backward(g.to(dev));
    expect_close(xg.grad().cpu(), r.at("gx"), 0, 0, ctx + " grad self");
    expect_close(sg.grad().cpu(), r.at("gs"), 0, 0, ctx + " grad source");
    const Tensor d = x.to(dev).clone();
    EXPECT_TRUE(d.index_copy_(1, ic.to(dev), srcc.to(dev)).is_same(d));
    expect_close(d.cpu(), r.at("d"), 0, 0, ctx + " index_copy_");
  }
}

TEST(IndexWrites, ZeroDimOperandsAndEmptyIndices) {
  for (Device dev : et::test_devices()) {
    const std::string ctx = dev.str();
    const Tensor s = tensor(2.0).to(dev);
    const Tensor i0 = tensor(int64_t{0}).to(dev);
    EXPECT_EQ(s.scatter_add(0, i0, tensor(3.0).to(dev)).item<double>(), 5.0) << ctx;
    EXPECT_EQ(s.index_add(0, i0, tensor(3.0).to(dev), 2).item<double>(), 8.0) << ctx;
    EXPECT_EQ(s.index_copy(0, i0, tensor(7.0).to(dev)).item<double>(), 7.0) << ctx;
    const Tensor x = ones({2, 3}).to(dev);
    const Tensor none = empty({0}, kLong).to(dev);
    expect_close(x.index_add(0, none, empty({0, 3}).to(dev)).cpu(), ones({2, 3}), 0, 0,
                 ctx + " index_add, no index");
    expect_close(x.scatter_add(1, empty({2, 0}, kLong).to(dev), ones({2, 2}).to(dev)).cpu(),
                 ones({2, 3}), 0, 0, ctx + " scatter_add, no index");
  }
}

TEST(IndexWrites, BadInputIsNamedAndLeavesSelfUntouched) {
  Tensor x = zeros({3, 4});
  const Tensor i = tensor(std::vector<int64_t>{0, 5});
  std::string msg = error_of<IndexError>([&] { x.index_add_(1, i, ones({3, 2})); });
  EXPECT_TRUE(contains(msg, "index_add") && contains(msg, "index 5 is out of bounds") &&
              contains(msg, "size 4"))
      << msg;
  EXPECT_EQ(x.abs().sum().item<float>(), 0.0f);  // nothing was written
  msg = error_of<IndexError>([&] { x.index_add(0, i.narrow(0, 0, 1), ones({2, 4})); });
  EXPECT_TRUE(contains(msg, "Number of indices (1)") && contains(msg, "source.size(dim) (2)"))
      << msg;
  msg = error_of<ValueError>([&] {
    x.index_add(0, tensor(std::vector<int64_t>{1}), ones({1, 5}));
  });
  EXPECT_TRUE(contains(msg, "source tensor shape must match self tensor shape") &&
              contains(msg, "[3, 4]") && contains(msg, "[1, 5]"))
      << msg;
  msg = error_of<TypeError>([&] {
    x.index_add(0, tensor(std::vector<int64_t>{1}), ones({1, 4}, kDouble));
  });
  EXPECT_TRUE(contains(msg, "torch.float32") && contains(msg, "torch.float64")) << msg;
  msg = error_of<TypeError>([&] {
    zeros({3}, kLong).index_add(0, tensor(std::vector<int64_t>{1}), ones({1}, kLong), 0.5);
  });
  EXPECT_TRUE(contains(msg, "alpha must not be a floating point number")) << msg;
  msg = error_of<IndexError>([&] { x.index_copy(0, zeros({1, 1}, kLong), ones({1, 4})); });
  EXPECT_TRUE(contains(msg, "Index is supposed to be a vector") && contains(msg, "[1, 1]")) << msg;
  msg = error_of<TypeError>([&] { x.index_copy(0, zeros({1}, kInt), ones({1, 4})); });
  EXPECT_TRUE(contains(msg, "index_copy") && contains(msg, "int64") && contains(msg, "torch.int32"))
      << msg;
  msg = error_of<TypeError>([&] { x.scatter_add(0, zeros({1, 1}, kInt), ones({1, 1})); });
  EXPECT_TRUE(contains(msg, "scatter_add") && contains(msg, "int64")) << msg;
  msg = error_of<IndexError>([&] { x.scatter_add(0, zeros({1}, kLong), ones({1})); });
  EXPECT_TRUE(contains(msg, "same number of dimensions") && contains(msg, "[3, 4]")) << msg;
  msg = error_of<ValueError>([&] { x.scatter_add(0, zeros({2, 5}, kLong), ones({2, 5})); });
  EXPECT_TRUE(contains(msg, "Expected index [2, 5] to be smaller than self [3, 4]")) << msg;
  msg = error_of<ValueError>([&] { x.scatter_add(0, zeros({2, 2}, kLong), ones({1, 2})); });
  EXPECT_TRUE(contains(msg, "smaller size than src [1, 2]")) << msg;
  msg = error_of<ValueError>([&] {
    x.scatter_add_(1, tensor(std::vector<int64_t>{1, 4}).reshape({1, 2}), ones({1, 2}));
  });
  EXPECT_TRUE(contains(msg, "index 4 is out of bounds for dimension 1 with size 4")) << msg;
  EXPECT_EQ(x.abs().sum().item<float>(), 0.0f);
  msg = error_of<TypeError>([&] { x.scatter_add(0, zeros({1, 1}, kLong), ones({1, 1}, kDouble)); });
  EXPECT_TRUE(contains(msg, "self.dtype to be equal to src.dtype")) << msg;
  Tensor leaf = zeros({3}).requires_grad_();
  msg = error_of<Error>([&] { leaf.index_add_(0, zeros({1}, kLong), ones({1})); });
  EXPECT_TRUE(contains(msg, "leaf")) << msg;
}

TEST(IndexWrites, IndicesOnAnotherDeviceAreRefused) {
  for (Device dev : et::test_devices()) {
    if (dev.is_cpu()) continue;
    const Tensor x = zeros({3, 4}).to(dev);
    std::string msg = error_of<Error>([&] {
      x.index_add(0, zeros({1}, kLong), ones({1, 4}).to(dev));
    });
    EXPECT_TRUE(contains(msg, "cpu") && contains(msg, dev.str())) << msg;
    msg = error_of<Error>([&] { x.scatter_add(0, zeros({1, 1}, kLong).to(dev), ones({1, 1})); });
    EXPECT_TRUE(contains(msg, "cpu") && contains(msg, dev.str())) << msg;
  }
}

TEST(TensorSubscript, ZeroDimIntegerTensorSelectsAlongDimZero) {
  const Tensor x = arange(12).reshape({3, 4});
  for (Device dev : et::test_devices()) {
    const Tensor xd = x.to(dev);
    expect_close(xd[tensor(int64_t{2})].cpu(), x.select(0, 2), 0, 0, dev.str());
    expect_close(xd[tensor(int32_t{-1})].cpu(), x.select(0, -1), 0, 0, dev.str() + " negative");
    expect_close(xd[1][tensor(int64_t{3})].cpu(), x.select(0, 1).select(0, 3), 0, 0,
                 dev.str() + " chained");
  }
  std::string msg = error_of<IndexError>([&] { x[tensor(std::vector<int64_t>{1, 2})]; });
  EXPECT_TRUE(contains(msg, "zero-dim") && contains(msg, "[2]")) << msg;
  msg = error_of<IndexError>([&] { x[tensor(1.0)]; });
  EXPECT_TRUE(contains(msg, "integer") && contains(msg, "torch.float32")) << msg;
  msg = error_of<IndexError>([&] { x[Tensor()]; });
  EXPECT_TRUE(contains(msg, "defined")) << msg;
}
