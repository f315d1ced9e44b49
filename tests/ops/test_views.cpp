// View ops against PyTorch: values, shapes, strides, storage sharing, error messages, gradients.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::TorchOracle;

namespace {

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage().get() == b.impl()->storage().get();
}

std::vector<int64_t> vec(IntArrayRef a) {
  return a.vec();
}

// Runs `py` (which defines y from x) in PyTorch and checks y's values and shape.
void check_forward(const Tensor& x, const Tensor& y, const std::string& py) {
  auto r = TorchOracle::instance().run(py, {{"x", x}}, {"y"});
  expect_close(y, r.at("y"), 0, 0, py);
}

// Checks f(x) and d(sum(f(x) * w))/dx against `py`, PyTorch code defining y from x.
void check_grad(const Tensor& x0, const std::function<Tensor(const Tensor&)>& f,
                const std::string& py) {
  Tensor x = x0.clone();
  x.requires_grad_(true);
  Tensor y = f(x);
  ASSERT_TRUE(y.requires_grad()) << py;
  Tensor w = randn(y.sizes(), y.options());
  (y * w).sum().backward();
  auto r =
      TorchOracle::instance().run(py + "\n(y * w).sum().backward()\ngx = x.grad\nyv = y.detach()",
                                  {{"x", x}, {"w", w}}, {"gx", "yv"});
  expect_close(y.detach(), r.at("yv"), 1e-6, 1e-6, py);
  ASSERT_TRUE(x.grad().defined()) << py;
  expect_close(x.grad(), r.at("gx"), 1e-5, 1e-6, py);
}

}  // namespace

TEST(Views, ViewSharesStorageAndMatchesTorch) {
  Tensor x = arange(12, kFloat);
  Tensor y = x.view({3, 4});
  EXPECT_EQ(vec(y.sizes()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{4, 1}));
  EXPECT_TRUE(shares_storage(x, y));
  check_forward(x, y, "y = x.view(3, 4)");
  check_forward(x, x.view({2, -1, 3}), "y = x.view(2, -1, 3)");
  // Writing through the view changes the base.
  y.select(0, 1).fill_(-1);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, -1, -1, -1, -1, 8, 9, 10, 11}));
}

TEST(Views, ViewOfNonContiguousWhenStridesAllow) {
  // A transposed tensor can still split or merge dims inside one contiguous chunk.
  Tensor x = arange(24, kFloat).view({2, 3, 4}).permute({1, 0, 2});  // (3, 2, 4)
  Tensor y = x.view({3, 2, 2, 2});
  EXPECT_TRUE(shares_storage(x, y));
  check_forward(arange(24, kFloat), y, "y = x.view(2, 3, 4).permute(1, 0, 2).view(3, 2, 2, 2)");
  Tensor z = x.view({3, 8 / 4, 4});
  EXPECT_EQ(vec(z.strides()), vec(x.strides()));
}

TEST(Views, ViewErrors) {
  Tensor x = zeros({6});
  EXPECT_EQ(error_of<ValueError>([&] {
              x.view({2, 5});
            }),
            "shape '[2, 5]' is invalid for input of size 6");
  EXPECT_EQ(error_of<ValueError>([&] {
              x.view({-1, 4});
            }),
            "shape '[-1, 4]' is invalid for input of size 6");
  EXPECT_EQ(error_of<ValueError>([&] { x.view({-1, -1}); }), "only one dimension can be inferred");
  EXPECT_NE(error_of<ValueError>([&] {
              zeros({0}).view({-1, 0});
            }).find("ambiguous"),
            std::string::npos);
  Tensor t = zeros({2, 3}).t();
  EXPECT_EQ(error_of<Error>([&] { t.view({6}); }),
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  // The process keeps working after an error.
  EXPECT_EQ(vec(x.view({3, 2}).sizes()), (std::vector<int64_t>{3, 2}));
}

TEST(Views, ReshapeViewsWhenPossibleElseCopies) {
  Tensor x = arange(6, kFloat);
  Tensor v = x.reshape({2, 3});
  EXPECT_TRUE(shares_storage(x, v));
  Tensor t = v.t();
  Tensor r = t.reshape({6});
  EXPECT_FALSE(shares_storage(x, r));
  EXPECT_TRUE(r.is_contiguous());
  check_forward(x, r, "y = x.reshape(2, 3).t().reshape(6)");
  check_forward(x, reshape(x, {-1, 2}), "y = torch.reshape(x, (-1, 2))");
  EXPECT_EQ(vec(zeros({}).reshape({1, 1}).sizes()), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(zeros({1, 1}).reshape({}).dim(), 0);
}

TEST(Views, TransposeAndT) {
  Tensor x = randn({2, 3, 4});
  Tensor y = x.transpose(0, 2);
  EXPECT_EQ(vec(y.sizes()), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{1, 4, 12}));
  EXPECT_TRUE(shares_storage(x, y));
  check_forward(x, y, "y = x.transpose(0, 2)");
  check_forward(x, transpose(x, -1, 1), "y = x.transpose(-1, 1)");
  Tensor m = randn({3, 5});
  check_forward(m, m.t(), "y = x.t()");
  Tensor v = randn({4});
  check_forward(v, v.t(), "y = x.t()");
  EXPECT_EQ(error_of<ValueError>([&] { x.t(); }),
            "t() expects a tensor with <= 2 dimensions, but self is 3D");
  EXPECT_NE(error_of<IndexError>([&] { x.transpose(0, 3); }).find("Dimension out of range"),
            std::string::npos);
}

TEST(Views, Permute) {
  Tensor x = randn({2, 3, 4});
  Tensor y = x.permute({2, 0, 1});
  EXPECT_EQ(vec(y.sizes()), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{1, 12, 4}));
  check_forward(x, y, "y = x.permute(2, 0, 1)");
  check_forward(x, permute(x, {-1, 1, 0}), "y = x.permute(-1, 1, 0)");
  EXPECT_EQ(error_of<ValueError>([&] {
              x.permute({0, 0, 1});
            }),
            "permute(): duplicate dims are not allowed (dims [0, 0, 1])");
  EXPECT_NE(error_of<ValueError>([&] {
              x.permute({0, 1});
            }).find("input.dim() = 3 is not equal to len(dims) = 2"),
            std::string::npos);
}

TEST(Views, UnsqueezeSqueezeFlatten) {
  Tensor x = randn({2, 3});
  EXPECT_EQ(vec(x.unsqueeze(0).sizes()), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(vec(x.unsqueeze(-1).sizes()), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(vec(unsqueeze(x, 1).strides()), (std::vector<int64_t>{3, 3, 1}));
  check_forward(x, x.unsqueeze(1), "y = x.unsqueeze(1)");
  EXPECT_NE(error_of<IndexError>([&] {
              x.unsqueeze(3);
            }).find("expected to be in range of [-3, 2], but got 3"),
            std::string::npos);

  Tensor s = randn({1, 3, 1, 2});
  EXPECT_EQ(vec(s.squeeze().sizes()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(vec(squeeze(s, 2).sizes()), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(vec(s.squeeze(1).sizes()), (std::vector<int64_t>{1, 3, 1, 2}));  // not size 1: kept
  EXPECT_TRUE(shares_storage(s, s.squeeze()));
  check_forward(s, squeeze(s), "y = x.squeeze()");
  EXPECT_EQ(zeros({1, 1}).squeeze().dim(), 0);

  Tensor f = randn({2, 3, 4, 5});
  EXPECT_EQ(vec(f.flatten().sizes()), (std::vector<int64_t>{120}));
  EXPECT_EQ(vec(f.flatten(1, 2).sizes()), (std::vector<int64_t>{2, 12, 5}));
  EXPECT_EQ(vec(flatten(f, -2).sizes()), (std::vector<int64_t>{2, 3, 20}));
  EXPECT_EQ(vec(zeros({}).flatten().sizes()), (std::vector<int64_t>{1}));
  check_forward(f, f.transpose(1, 3).flatten(1), "y = x.transpose(1, 3).flatten(1)");
  EXPECT_NE(
      error_of<ValueError>([&] { f.flatten(2, 1); }).find("start_dim cannot come after end_dim"),
      std::string::npos);
}

TEST(Views, Expand) {
  Tensor x = tensor({1.f, 2.f, 3.f});
  Tensor y = x.expand({2, 3});
  EXPECT_EQ(vec(y.strides()), (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(shares_storage(x, y));
  check_forward(x, y, "y = x.expand(2, 3)");
  Tensor c = randn({3, 1});
  check_forward(c, c.expand({2, -1, 4}), "y = x.expand(2, -1, 4)");
  check_forward(c, c.expand_as(zeros({3, 5})), "y = x.expand(3, 5)");
  EXPECT_EQ(error_of<ValueError>([&] {
              x.expand({2, 4});
            }),
            "The expanded size of the tensor (4) must match the existing size (3) at "
            "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]");
  EXPECT_EQ(error_of<ValueError>([&] {
              x.expand({-1, 3});
            }),
            "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
            "dimension 0");
  EXPECT_NE(error_of<ValueError>([&] { x.expand(IntArrayRef{}); })
                .find("the number of sizes provided (0) must be greater or equal to the number "
                      "of dimensions in the tensor (1)"),
            std::string::npos);
  EXPECT_EQ(vec(scalar_tensor(2.0).expand({2, 2}).sizes()), (std::vector<int64_t>{2, 2}));
}

TEST(Views, Slice) {
  Tensor x = arange(10, kFloat);
  check_forward(x, x.slice(0, 2, 8, 3), "y = x[2:8:3]");
  check_forward(x, x.slice(0, -3), "y = x[-3:]");
  check_forward(x, x.slice(0, std::nullopt, -2), "y = x[:-2]");
  check_forward(x, x.slice(0, -100, 100), "y = x[-100:100]");
  check_forward(x, x.slice(0, 7, 3), "y = x[7:3]");
  Tensor m = randn({4, 6});
  Tensor s = m.slice(1, 1, 6, 2);
  EXPECT_EQ(vec(s.strides()), (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(s.storage_offset(), 1);
  EXPECT_TRUE(shares_storage(m, s));
  check_forward(m, s, "y = x[:, 1:6:2]");
  EXPECT_NE(error_of<ValueError>([&] { x.slice(0, 0, 5, 0); }).find("slice step must be positive"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([&] { x.slice(0, 0, 5, -1); }).find("got -1"), std::string::npos);
}

TEST(Views, SelectNarrowIndex) {
  Tensor m = randn({3, 4});
  check_forward(m, m.select(1, -1), "y = x[:, -1]");
  check_forward(m, m[2], "y = x[2]");
  check_forward(m, select(m, 0, -3), "y = x[-3]");
  EXPECT_EQ(m[1].dim(), 1);
  EXPECT_EQ(m[1][2].dim(), 0);
  EXPECT_EQ(error_of<IndexError>([&] { zeros({3})[5]; }),
            "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(error_of<IndexError>([&] { m.select(1, -5); }),
            "index -5 is out of bounds for dimension 1 with size 4");
  EXPECT_EQ(error_of<IndexError>([&] { scalar_tensor(1.0).select(0, 0); }),
            "select() cannot be applied to a 0-dim tensor.");

  check_forward(m, m.narrow(1, 1, 2), "y = x.narrow(1, 1, 2)");
  check_forward(m, narrow(m, 0, -2, 2), "y = x.narrow(0, -2, 2)");
  EXPECT_EQ(error_of<ValueError>([&] { zeros({5}).narrow(0, 4, 2); }),
            "start (4) + length (2) exceeds dimension size (5).");
  EXPECT_NE(error_of<IndexError>([&] { zeros({5}).narrow(0, 7, 0); }).find("but got 7"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([&] { zeros({5}).narrow(0, 1, -1); }).find("non-negative"),
            std::string::npos);

  // Writes through select/narrow views land in the base.
  Tensor z = zeros({2, 3});
  z[1].narrow(0, 1, 2).fill_(5);
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 5, 5}));
}

TEST(Views, ChunkSplitUnbind) {
  Tensor x = arange(10, kFloat);
  auto c = x.chunk(3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].numel(), 4);
  EXPECT_EQ(c[2].numel(), 2);
  EXPECT_TRUE(shares_storage(x, c[1]));
  check_forward(x, cat({c[2], c[0]}), "c = x.chunk(3)\ny = torch.cat([c[2], c[0]])");
  EXPECT_EQ(zeros({5}).chunk(3).size(), 3u);  // sizes 2, 2, 1
  EXPECT_EQ(zeros({2}).chunk(5).size(), 2u);
  EXPECT_EQ(zeros({0}).chunk(3).size(), 3u);

  auto s = x.split(4);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2].numel(), 2);
  Tensor m = randn({3, 5});
  auto ms = m.split(2, 1);
  ASSERT_EQ(ms.size(), 3u);
  check_forward(m, ms[1], "y = x.split(2, 1)[1]");

  auto u = m.unbind(1);
  ASSERT_EQ(u.size(), 5u);
  check_forward(m, u[3], "y = x.unbind(1)[3]");

  EXPECT_EQ(error_of<ValueError>([&] { x.chunk(0); }),
            "chunk expects `chunks` to be greater than 0, got: 0");
  EXPECT_EQ(error_of<ValueError>([&] { x.split(-1); }),
            "split expects split_size be non-negative, but got split_size=-1");
  EXPECT_EQ(error_of<ValueError>([&] { x.split(0); }),
            "split_size can only be 0 if dimension size is 0, but got dimension size of 10");
}

TEST(Views, BroadcastShapes) {
  EXPECT_EQ(broadcast_shapes({2, 1, 3}, {4, 1}), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(broadcast_shapes({}, {5}), (std::vector<int64_t>{5}));
  std::string msg = error_of<ValueError>([] { broadcast_shapes({2, 3}, {2, 4}); });
  EXPECT_NE(msg.find("The size of tensor a (3) must match the size of tensor b (4) at "
                     "non-singleton dimension 1"),
            std::string::npos);
  EXPECT_NE(msg.find("[2, 3]"), std::string::npos);
  EXPECT_NE(msg.find("[2, 4]"), std::string::npos);
}

TEST(ViewsAutograd, ViewsOfGradTensorsRequireGrad) {
  Tensor x = randn({2, 3});
  x.requires_grad_(true);
  EXPECT_TRUE(x.view({6}).requires_grad());
  EXPECT_EQ(x.view({6}).grad_fn()->name(), "ViewBackward0");
  EXPECT_EQ(x.t().grad_fn()->name(), "TBackward0");
  EXPECT_EQ(x.transpose(0, 1).grad_fn()->name(), "TransposeBackward0");
  EXPECT_EQ(x.permute({1, 0}).grad_fn()->name(), "PermuteBackward0");
  EXPECT_EQ(x.unsqueeze(0).grad_fn()->name(), "UnsqueezeBackward0");
  EXPECT_EQ(x.reshape({3, 2}).grad_fn()->name(), "ReshapeAliasBackward0");
  EXPECT_EQ(x.t().reshape({6}).grad_fn()->name(), "UnsafeViewBackward0");
  EXPECT_EQ(x.expand({4, 2, 3}).grad_fn()->name(), "ExpandBackward0");
  EXPECT_EQ(x[0].grad_fn()->name(), "SelectBackward0");
  EXPECT_EQ(x.slice(1, 1).grad_fn()->name(), "SliceBackward0");
  EXPECT_EQ(x.chunk(2, 1)[0].grad_fn()->name(), "SplitBackward0");
  EXPECT_EQ(x.unbind()[0].grad_fn()->name(), "UnbindBackward0");
  {
    NoGradGuard guard;
    EXPECT_FALSE(x.view({6}).requires_grad());
  }
  EXPECT_FALSE(x.detach().t().requires_grad());
}

// split, split_with_sizes and unbind record one node for all their pieces, as PyTorch does: the
// pieces share a grad_fn and differ in output_nr, and a backward through some of the pieces fills
// zeros for the others (one cat or stack, not a whole-size zeros tensor per piece).
TEST(ViewsAutograd, PiecesOfASplitShareOneNode) {
  Tensor x = arange(12, kFloat).reshape({3, 4});
  x.requires_grad_(true);
  std::vector<Tensor> rows = x.unbind(0);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].grad_fn(), rows[2].grad_fn());
  EXPECT_EQ(rows[2].output_nr(), 2u);
  std::vector<Tensor> cols = x.split_with_sizes({1, 3}, 1);
  EXPECT_EQ(cols[0].grad_fn(), cols[1].grad_fn());
  EXPECT_EQ(cols[0].grad_fn()->name(), "SplitWithSizesBackward0");
  std::vector<Tensor> halves = x.split(2, 1);
  EXPECT_EQ(halves[0].grad_fn(), halves[1].grad_fn());

  // Only row 1 and the second half reach the loss.
  (rows[1] * 3).sum().add(halves[1].sum() * 2).backward();
  Tensor expected =
      tensor({0.f, 0.f, 2.f, 2.f, 3.f, 3.f, 5.f, 5.f, 0.f, 0.f, 2.f, 2.f}).reshape({3, 4});
  EXPECT_TRUE(x.grad().equal(expected)) << x.grad();

  // unbind along dim 1 stacks the gradient back along dim 1.
  x.mutable_grad() = Tensor();
  x.unbind(1)[3].sum().backward();
  Tensor column = zeros({3, 4});
  column.select(1, 3).fill_(1);
  EXPECT_TRUE(x.grad().equal(column)) << x.grad();
}

TEST(ViewsAutograd, GradientsMatchTorch) {
  Tensor x = randn({2, 3, 4});
  check_grad(
      x,
      [](const Tensor& t) {
        return t.view({6, 4});
      },
      "y = x.view(6, 4)");
  check_grad(
      x, [](const Tensor& t) { return t.transpose(0, 2).reshape({-1}); },
      "y = x.transpose(0, 2).reshape(-1)");
  check_grad(
      x,
      [](const Tensor& t) {
        return t.permute({1, 2, 0});
      },
      "y = x.permute(1, 2, 0)");
  check_grad(
      x, [](const Tensor& t) { return t[1].t(); }, "y = x[1].t()");
  check_grad(
      x, [](const Tensor& t) { return t.unsqueeze(1).squeeze(); }, "y = x.unsqueeze(1).squeeze()");
  check_grad(
      x, [](const Tensor& t) { return t.flatten(0, 1); }, "y = x.flatten(0, 1)");
  check_grad(
      x, [](const Tensor& t) { return t.slice(2, 1, 4, 2); }, "y = x[:, :, 1:4:2]");
  check_grad(
      x, [](const Tensor& t) { return t.select(1, -1); }, "y = x.select(1, -1)");
  check_grad(
      x, [](const Tensor& t) { return t.narrow(2, 1, 2); }, "y = x.narrow(2, 1, 2)");
  check_grad(
      x,
      [](const Tensor& t) {
        return t.slice(0, 0, 1).expand({3, 3, 4});
      },
      "y = x[0:1].expand(3, 3, 4)");
  Tensor v = randn({3, 1});
  check_grad(
      v,
      [](const Tensor& t) {
        return t.expand({2, 3, 5});
      },
      "y = x.expand(2, 3, 5)");
  check_grad(
      x,
      [](const Tensor& t) {
        auto p = t.split(1, 2);
        return cat({p[3], p[0]}, 2);
      },
      "p = x.split(1, 2)\ny = torch.cat([p[3], p[0]], 2)");
  check_grad(
      x,
      [](const Tensor& t) {
        auto p = t.unbind(1);
        return stack({p[2], p[2], p[0]});
      },
      "p = x.unbind(1)\ny = torch.stack([p[2], p[2], p[0]])");
  check_grad(
      x, [](const Tensor& t) { return t.chunk(2, 0)[1].squeeze(0); },
      "y = x.chunk(2, 0)[1].squeeze(0)");
}

TEST(ViewsAutograd, DoubleBackwardThroughSliceAndSelect) {
  Tensor x = randn({5, 2});
  x.requires_grad_(true);
  Tensor y = x.narrow(0, 1, 3).select(1, 0);
  Tensor g = autograd::grad({(y * y * y).sum()}, {x}, {}, true, true)[0];
  ASSERT_TRUE(g.requires_grad());
  Tensor w = randn({5, 2});
  (g * w).sum().backward();
  auto r = TorchOracle::instance().run(
      "y = x.narrow(0, 1, 3).select(1, 0)\n"
      "g, = torch.autograd.grad((y * y * y).sum(), x, create_graph=True)\n"
      "(g * w).sum().backward()\ngx = x.grad\ngv = g.detach()",
      {{"x", x}, {"w", w}}, {"gx", "gv"});
  expect_close(g.detach(), r.at("gv"), 1e-5, 1e-6);
  expect_close(x.grad(), r.at("gx"), 1e-5, 1e-6);
}

// contiguous() of a transposed matrix (or a batch of them) takes the CPU's tiled transpose: every
// element lands where the element-by-element definition puts it, for every element size, odd
// sizes and tile remainders, batches, and a source that is itself a slice.
TEST(Views, TransposedCopiesMatchElementByElement) {
  struct Case {
    std::vector<int64_t> shape;  // of the contiguous source, transposed on its last two dims
    ScalarType dtype;
  };
  const std::vector<Case> cases = {
      {{17, 16}, kFloat},    {{16, 17}, kDouble},     {{33, 70}, kHalf},    {{64, 40}, kByte},
      {{3, 31, 45}, kFloat}, {{2, 1, 40, 33}, kLong}, {{1, 50, 20}, kBool}, {{100, 1000}, kFloat}};
  for (const Case& c : cases) {
    Tensor base = ember::testing::make_input(c.shape, kDouble, 5).mul(10).to(c.dtype);
    const int64_t d = base.dim();
    Tensor t = base.transpose(d - 2, d - 1);
    Tensor got = t.contiguous();
    ASSERT_TRUE(got.is_contiguous());
    // Reference: through float64 and a flat index, one element at a time.
    Tensor flat_src = base.to(kDouble).contiguous();
    Tensor flat_got = got.to(kDouble).contiguous();
    const double* src = flat_src.data_ptr<double>();
    const double* out = flat_got.data_ptr<double>();
    const int64_t R = t.size(d - 2), C = t.size(d - 1), B = t.numel() / (R * C);
    int64_t wrong = 0;
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t r = 0; r < R; ++r) {
        for (int64_t col = 0; col < C; ++col) {
          wrong += out[b * R * C + r * C + col] != src[b * R * C + col * R + r];
        }
      }
    }
    EXPECT_EQ(wrong, 0) << "shape " << t.sizes() << " dtype " << to_string(c.dtype);
  }
  // A transposed slice whose rows are further apart than its width is not the tiled case, and
  // is still right.
  Tensor wide = ember::testing::make_input({40, 60}, kFloat, 6);
  Tensor part = wide.narrow(1, 0, 30).t();  // [30, 40], strides (1, 60)
  Tensor got = part.contiguous();
  for (int64_t r = 0; r < 30; ++r) {
    for (int64_t col = 0; col < 40; ++col) {
      ASSERT_EQ(got[r][col].item<float>(), wide[col][r].item<float>());
    }
  }
}
