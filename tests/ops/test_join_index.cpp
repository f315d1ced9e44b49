// cat, stack, index_select, gather and one_hot against PyTorch, with their errors and gradients.
#include <gtest/gtest.h>

#include <functional>
#include <string>

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
using ember::testing::TorchOracle;

TEST(Cat, ValuesAlongEachDim) {
  Tensor a = randn({2, 3, 4}), b = randn({2, 1, 4}), c = randn({2, 5, 4});
  auto r = torch_run("y = torch.cat([a, b, c], 1)", {{"a", a}, {"b", b}, {"c", c}});
  expect_close(cat({a, b, c}, 1), r.at("y"), 0, 0);
  Tensor d = randn({3, 3, 4});
  r = torch_run("y = torch.cat([a, d], -3)", {{"a", a}, {"d", d}});
  expect_close(cat({a, d}, -3), r.at("y"), 0, 0);
  // Non-contiguous inputs.
  Tensor t = randn({4, 3}).t();
  r = torch_run("y = torch.cat([t, t], 1)", {{"t", t}});
  expect_close(cat({t, t}, 1), r.at("y"), 0, 0);
  Tensor single = cat({a});
  EXPECT_FALSE(single.is_same(a));  // always a new tensor
  expect_close(single, a, 0, 0);
}

TEST(Cat, PromotesDtypesAndSkipsEmpty1D) {
  Tensor i = tensor({1, 2, 3});
  Tensor f = tensor({0.5, 1.5});
  Tensor d = randn({2}, kDouble);
  auto r = torch_run("y = torch.cat([i, f, d])", {{"i", i}, {"f", f}, {"d", d}});
  Tensor y = cat({i, f, d});
  EXPECT_EQ(y.dtype(), kDouble);
  expect_close(y, r.at("y"), 0, 0);

  Tensor e = zeros({0}, kDouble);
  Tensor m = randn({2, 3});
  r = torch_run("y = torch.cat([e, m, e], 0)", {{"e", e}, {"m", m}});
  y = cat({e, m, e}, 0);
  EXPECT_EQ(y.dtype(), kDouble);
  expect_close(y, r.at("y"), 0, 0);
  // Empty tensors of the right rank still take part.
  Tensor z = zeros({0, 3});
  expect_close(cat({z, m}), m, 0, 0);
  // An empty 1-D tensor with ints keeps int promotion rules.
  EXPECT_EQ(cat({zeros({0}, kLong), tensor({1, 2})}).dtype(), kLong);
  EXPECT_EQ(cat({tensor({true, false}), tensor({1, 2})}).dtype(), kLong);
}

TEST(Cat, Errors) {
  EXPECT_EQ(error_of<ValueError>([] { cat(std::vector<Tensor>{}); }),
            "torch.cat(): expected a non-empty list of Tensors");
  EXPECT_EQ(error_of<ValueError>([] {
              cat({zeros({2, 3}), zeros({2, 4})});
            }),
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 "
            "for tensor number 1 in the list.");
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         cat({zeros({2, 3}), zeros({3})});
                       }),
                       "Tensors must have same number of dimensions: got 2 and 1"));
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         cat({scalar_tensor(1.0), scalar_tensor(2.0)});
                       }),
                       "zero-dimensional tensor cannot be concatenated"));
  EXPECT_TRUE(contains(error_of<IndexError>([] {
                         cat({zeros({2, 3})}, 2);
                       }),
                       "Dimension out of range"));
}

TEST(Stack, ValuesAndErrors) {
  Tensor a = randn({2, 3}), b = randn({2, 3}), c = randn({2, 3}, kDouble);
  for (int64_t dim : {0, 1, 2, -1}) {
    auto r = torch_run("y = torch.stack([a, b, c], " + std::to_string(dim) + ")",
                       {{"a", a}, {"b", b}, {"c", c}});
    Tensor y = stack({a, b, c}, dim);
    EXPECT_EQ(y.dtype(), kDouble);
    expect_close(y, r.at("y"), 0, 0);
  }
  EXPECT_EQ(stack({scalar_tensor(1.0), scalar_tensor(2.0)}).sizes().vec(),
            (std::vector<int64_t>{2}));
  EXPECT_EQ(error_of<ValueError>([] { stack(std::vector<Tensor>{}); }),
            "stack expects a non-empty TensorList");
  EXPECT_EQ(error_of<ValueError>([] {
              stack({zeros({2, 3}), zeros({2})});
            }),
            "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2] at "
            "entry 1");
  EXPECT_TRUE(
      contains(error_of<IndexError>([] { stack({zeros({2})}, 3); }), "Dimension out of range"));
}

TEST(JoinAutograd, CatAndStackGradients) {
  Tensor a = randn({2, 3}), b = randn({2, 2});
  a.requires_grad_(true);
  b.requires_grad_(true);
  Tensor y = cat({a, b}, 1);
  EXPECT_EQ(y.grad_fn()->name(), "CatBackward0");
  Tensor w = randn({2, 5});
  (y * w).sum().backward();
  auto r = torch_run("(torch.cat([a, b], 1) * w).sum().backward()\nga = a.grad\ngb = b.grad",
                     {{"a", a}, {"b", b}, {"w", w}}, {"ga", "gb"});
  expect_close(a.grad(), r.at("ga"));
  expect_close(b.grad(), r.at("gb"));

  Tensor c = randn({3}), d = randn({3});
  c.requires_grad_(true);
  Tensor s = stack({c, d}, 1);
  EXPECT_EQ(s.grad_fn()->name(), "StackBackward0");
  Tensor w2 = randn({3, 2});
  (s * w2).sum().backward();
  r = torch_run("(torch.stack([c, d], 1) * w).sum().backward()\ngc = c.grad",
                {{"c", c}, {"d", d}, {"w", w2}}, {"gc"});
  expect_close(c.grad(), r.at("gc"));
  EXPECT_FALSE(d.grad().defined());
}

TEST(IndexSelect, ValuesAndIndexDtypes) {
  Tensor x = randn({4, 5});
  Tensor idx = tensor({3, 0, 3});
  auto r = torch_run("y = x.index_select(1, i)", {{"x", x}, {"i", idx}});
  expect_close(x.index_select(1, idx), r.at("y"), 0, 0);
  Tensor idx32 = tensor({2, 1}).to(kInt);
  r = torch_run("y = torch.index_select(x, 0, i)", {{"x", x}, {"i", idx32}});
  expect_close(index_select(x, 0, idx32), r.at("y"), 0, 0);
  // A 0-dim index keeps the dim (size 1).
  Tensor i0 = scalar_tensor(1, kLong);
  r = torch_run("y = x.index_select(0, i)", {{"x", x}, {"i", i0}});
  expect_close(x.index_select(0, i0), r.at("y"), 0, 0);
  // Non-contiguous input.
  Tensor xt = x.t();
  r = torch_run("y = x.t().index_select(0, i)", {{"x", x}, {"i", idx}});
  expect_close(xt.index_select(0, idx), r.at("y"), 0, 0);
  // Empty index.
  EXPECT_EQ(x.index_select(0, zeros({0}, kLong)).sizes().vec(), (std::vector<int64_t>{0, 5}));
  // 0-dim self.
  expect_close(scalar_tensor(5.0).index_select(0, tensor({0})), scalar_tensor(5.0), 0, 0);
}

TEST(IndexSelect, Errors) {
  Tensor x = zeros({3});
  EXPECT_TRUE(contains(error_of<IndexError>([&] { x.index_select(0, tensor({5})); }),
                       "index out of range in self"));
  EXPECT_TRUE(contains(error_of<IndexError>([&] { x.index_select(0, tensor({5})); }),
                       "index 5 is out of bounds for dimension 0 with size 3"));
  EXPECT_TRUE(contains(error_of<IndexError>([&] { x.index_select(0, tensor({-1})); }),
                       "index -1 is out of bounds"));
  EXPECT_TRUE(contains(error_of<IndexError>([&] { x.index_select(0, tensor({{0}})); }),
                       "index_select(): Index is supposed to be a vector"));
  EXPECT_TRUE(contains(error_of<TypeError>([&] { x.index_select(0, tensor({0.0})); }),
                       "index_select(): Expected dtype int32 or int64 for index"));
}

TEST(Gather, ValuesAndErrors) {
  Tensor x = randn({3, 4});
  Tensor idx = tensor({{0, 3}, {1, 1}, {2, 0}});
  auto r = torch_run("y = x.gather(1, i)", {{"x", x}, {"i", idx}});
  expect_close(gather(x, 1, idx), r.at("y"), 0, 0);
  Tensor idx0 = tensor({{2, 0, 1, 1}});
  r = torch_run("y = torch.gather(x, 0, i)", {{"x", x}, {"i", idx0}});
  expect_close(gather(x, 0, idx0), r.at("y"), 0, 0);

  EXPECT_EQ(error_of<ValueError>([&] {  // ATen's RuntimeError, not an IndexError
              gather(zeros({2, 2}), 1, tensor({{0, 5}, {1, 0}}));
            }),
            "gather(): index 5 is out of bounds for dimension 1 with size 2");
  EXPECT_EQ(error_of<ValueError>([&] {
              gather(zeros({2, 2}), 1, zeros({3, 3}, kLong));
            }),
            "Size does not match at dimension 0 expected index [3, 3] to be smaller than self "
            "[2, 2] apart from dimension 1");
  EXPECT_TRUE(contains(error_of<IndexError>([&] {
                         gather(zeros({2, 2}), 1, tensor({0, 1}));
                       }),
                       "Index tensor must have the same number of dimensions as input tensor"));
  EXPECT_TRUE(contains(error_of<TypeError>([&] { gather(zeros({2}), 0, tensor({0}).to(kInt)); }),
                       "gather(): Expected dtype int64 for index"));
}

TEST(IndexAutograd, IndexSelectAndGatherGradients) {
  Tensor x = randn({4, 3});
  x.requires_grad_(true);
  Tensor idx = tensor({2, 0, 2, 2});
  Tensor y = x.index_select(0, idx);
  EXPECT_EQ(y.grad_fn()->name(), "IndexSelectBackward0");
  Tensor w = randn({4, 3});
  (y * w).sum().backward();
  auto r = torch_run("(x.index_select(0, i) * w).sum().backward()\ng = x.grad",
                     {{"x", x}, {"i", idx}, {"w", w}}, {"g"});
  expect_close(x.grad(), r.at("g"));

  Tensor x2 = randn({3, 4});
  x2.requires_grad_(true);
  Tensor gi = tensor({{0, 0, 3}, {1, 2, 1}, {3, 3, 3}});
  Tensor g = gather(x2, 1, gi);
  EXPECT_EQ(g.grad_fn()->name(), "GatherBackward0");
  Tensor w2 = randn({3, 3});
  (g * w2).sum().backward();
  r = torch_run("(x.gather(1, i) * w).sum().backward()\ng = x.grad",
                {{"x", x2}, {"i", gi}, {"w", w2}}, {"g"});
  expect_close(x2.grad(), r.at("g"));
}

TEST(OneHot, ValuesAndErrors) {
  Tensor a = tensor({{0, 2}, {1, 0}});
  auto r = torch_run("y = F.one_hot(a)\nz = F.one_hot(a, 5)", {{"a", a}}, {"y", "z"});
  expect_close(one_hot(a), r.at("y"), 0, 0);
  expect_close(one_hot(a, 5), r.at("z"), 0, 0);
  EXPECT_EQ(one_hot(zeros({0}, kLong), 3).sizes().vec(), (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         one_hot(tensor({0, 3}), 2);
                       }),
                       "Class values must be smaller than num_classes"));
  EXPECT_TRUE(contains(error_of<ValueError>([] {
                         one_hot(tensor({0, -1}));
                       }),
                       "Class values must be non-negative"));
  EXPECT_TRUE(contains(error_of<TypeError>([] {
                         one_hot(tensor({0.0, 1.0}));
                       }),
                       "one_hot is only applicable to index tensor"));
  EXPECT_EQ(error_of<ValueError>([] { one_hot(zeros({0}, kLong)); }),
            "Can not infer total number of classes from empty tensor.");
}

TEST(IndexAutograd, DoubleBackwardThroughIndexSelectAndGather) {
  Tensor x = randn({4, 3});
  x.requires_grad_(true);
  Tensor idx = tensor({1, 3, 1});
  Tensor gi = tensor({{0, 2}, {1, 1}, {2, 0}, {0, 0}});
  Tensor y = x.index_select(0, idx);
  Tensor z = gather(x, 1, gi);
  Tensor g = autograd::grad({(y * y * y).sum() + (z * z).sum()}, {x}, {}, true, true)[0];
  Tensor w = randn({4, 3});
  (g * w).sum().backward();
  auto r = TorchOracle::instance().run(
      "y = x.index_select(0, i)\nz = x.gather(1, gi)\n"
      "g, = torch.autograd.grad((y * y * y).sum() + (z * z).sum(), x, create_graph=True)\n"
      "(g * w).sum().backward()\ngx = x.grad\ngv = g.detach()",
      {{"x", x}, {"i", idx}, {"gi", gi}, {"w", w}}, {"gx", "gv"});
  expect_close(g.detach(), r.at("gv"), 1e-5, 1e-6);
  expect_close(x.grad(), r.at("gx"), 1e-5, 1e-6);
}
