// ember::indexing against PyTorch: Tensor::index (x[...]) and index_put_ (x[...] = v) with
// integers, slices, None, Ellipsis, bools, int64 index tensors and bool masks, forward and
// backward, on every device; t[i][j] = v, accessor<T, N>(), data(), print(); and the errors of
// bad subscripts.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using namespace ember::indexing;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;
using ember::testing::test_devices;
using ember::testing::torch_run;

namespace {

Tensor longs(std::vector<int64_t> v) {
  return tensor(v, kLong);
}

// The inputs every case may use: x [3, 4, 5]; i, j int64 indices; m a [3, 4] mask, r a [3] mask.
std::map<std::string, Tensor> inputs() {
  manual_seed(7);
  return {
      {"x", randn({3, 4, 5})},
      {"i", longs({2, 0, -1, 0})},
      {"j", longs({1, 3, 3, -4})},
      {"m", tensor({true, false, true, true, false, false, true, false, true, true, false, false})
                .view({3, 4})},
      {"r", tensor({true, false, true})}};
}

using IndexFn = std::function<Tensor(const Tensor& x, const std::map<std::string, Tensor>& in)>;

struct Case {
  const char* python;  // y from x and the inputs
  IndexFn ember;
};

const std::vector<Case>& index_cases() {
  static const std::vector<Case> cases = {
      {"y = x[1]", [](auto& x, auto&) { return x.index({1}); }},
      {"y = x[-1, 2]",
       [](auto& x, auto&) {
         return x.index({-1, 2});
       }},
      {"y = x[:, 0]",
       [](auto& x, auto&) {
         return x.index({Slice(), 0});
       }},
      {"y = x[1:, ::2, -3:]",
       [](auto& x, auto&) {
         return x.index({Slice(1, None), Slice(None, None, 2), Slice(-3, None)});
       }},
      {"y = x[0:100, -100:2]",
       [](auto& x, auto&) {
         return x.index({Slice(0, 100), Slice(-100, 2)});
       }},
      {"y = x[2:1]", [](auto& x, auto&) { return x.index({Slice(2, 1)}); }},
      {"y = x[None, :, None]",
       [](auto& x, auto&) {
         return x.index({None, Slice(), None});
       }},
      {"y = x[..., 1]",
       [](auto& x, auto&) {
         return x.index({"...", 1});
       }},
      {"y = x[1, ..., None]",
       [](auto& x, auto&) {
         return x.index({1, Ellipsis, None});
       }},
      {"y = x[...]", [](auto& x, auto&) { return x.index({Ellipsis}); }},
      {"y = x[True]", [](auto& x, auto&) { return x.index({true}); }},
      {"y = x[0, False]",
       [](auto& x, auto&) {
         return x.index({0, false});
       }},
      {"y = x[i]", [](auto& x, auto& in) { return x.index({in.at("i")}); }},
      {"y = x[:, j]",
       [](auto& x, auto& in) {
         return x.index({Slice(), in.at("j")});
       }},
      {"y = x[i, j]",
       [](auto& x, auto& in) {
         return x.index({in.at("i"), in.at("j")});
       }},
      {"y = x[i, :, j]",
       [](auto& x, auto& in) {
         return x.index({in.at("i"), Slice(), in.at("j")});
       }},
      {"y = x[1:, j, i.view(4, 1)]",
       [](auto& x, auto& in) {
         return x.index({Slice(1, None), in.at("j"), in.at("i").view({4, 1})});
       }},
      {"y = x[torch.tensor(2)]", [](auto& x, auto&) { return x.index({tensor(int64_t(2))}); }},
      {"y = x[m]", [](auto& x, auto& in) { return x.index({in.at("m")}); }},
      {"y = x[r]", [](auto& x, auto& in) { return x.index({in.at("r")}); }},
      {"y = x[r, 1:, 0]",
       [](auto& x, auto& in) {
         return x.index({in.at("r"), Slice(1), 0});
       }},
      {"y = x[..., m[:, :1].squeeze(1).nonzero().squeeze(1)[:2]]",
       [](auto& x, auto& in) {
         return x.index(
             {"...", in.at("m").index({Slice(), 0}).nonzero().squeeze(1).index({Slice(None, 2)})});
       }},
      // PyTorch 1.13 (and libtorch) reject a 2-D mask followed by an index; Ember takes it as
      // the mask's dims then the next dim, as x[m][:, 0] (docs/tensors.md).
      {"y = x[m][:, 0]",
       [](auto& x, auto& in) {
         return x.index({in.at("m"), 0});
       }},
      {"y = x[x > 0]", [](auto& x, auto&) { return x.index({x > 0}); }},
  };
  return cases;
}

}  // namespace

TEST(Indexing, IndexMatchesTorchOnEveryDevice) {
  auto in = inputs();
  for (const Case& c : index_cases()) {
    auto r = torch_run(c.python, in);
    for (const Device& dev : test_devices()) {
      std::map<std::string, Tensor> on;
      for (auto& [k, v] : in) on[k] = v.to(dev);
      Tensor y = c.ember(on.at("x"), on);
      EXPECT_EQ(y.device(), dev) << c.python;
      expect_close(y.cpu(), r.at("y"), 0, 0, std::string(c.python) + " on " + dev.str());
      // The same subscript on a non-contiguous x.
      Tensor xt = on.at("x").transpose(0, 2).contiguous().transpose(0, 2);
      expect_close(c.ember(xt, on).cpu(), r.at("y"), 0, 0,
                   std::string(c.python) + " (non-contiguous) on " + dev.str());
    }
  }
}

TEST(Indexing, IndexGradientsMatchTorch) {
  auto in = inputs();
  for (const Case& c : index_cases()) {
    for (const Device& dev : test_devices()) {
      std::map<std::string, Tensor> on;
      for (auto& [k, v] : in) on[k] = v.to(dev);
      Tensor x = on.at("x").detach().requires_grad_();
      Tensor y = c.ember(x, on);
      ASSERT_TRUE(y.requires_grad()) << c.python;
      manual_seed(3);
      Tensor w = randn(y.sizes()).to(dev);
      (y * w).sum().backward();
      std::map<std::string, Tensor> py_in = in;
      py_in["w"] = w.cpu();
      py_in["x"] = in.at("x").detach().requires_grad_();
      auto r = torch_run(std::string(c.python) + "\n(y * w).sum().backward()\ngx = x.grad", py_in,
                         {"gx"});
      expect_close(x.grad().cpu(), r.at("gx"), 1e-6, 1e-6,
                   std::string("grad of ") + c.python + " on " + dev.str());
    }
  }
}

TEST(Indexing, BasicIndexingIsAView) {
  Tensor x = zeros({3, 4});
  Tensor v = x.index({Slice(), 1});
  v.fill_(2);
  EXPECT_EQ(x.index({2, 1}).item<float>(), 2.0f);
  Tensor e = x.index({"..."});
  EXPECT_FALSE(e.is_same(x));
  EXPECT_EQ(e.data_ptr(), x.data_ptr());
  // Index tensors copy, as in PyTorch.
  Tensor c = x.index({longs({0})});
  c.fill_(5);
  EXPECT_EQ(x.sum().item<float>(), 6.0f);
}

namespace {

struct PutCase {
  const char* python;  // modifies y (a clone of x) from the inputs
  std::function<void(const Tensor& y, const std::map<std::string, Tensor>& in)> ember;
};

const std::vector<PutCase>& put_cases() {
  static const std::vector<PutCase> cases = {
      {"y[1] = v[0]", [](auto& y, auto& in) { y.index_put_({1}, in.at("v").index({0})); }},
      {"y[:, 0] = 2.5",
       [](auto& y, auto&) {
         y.index_put_({Slice(), 0}, 2.5);
       }},
      {"y[..., 1:3] = v[0, 0, :2]",
       [](auto& y, auto& in) {
         y.index_put_({"...", Slice(1, 3)}, in.at("v").index({0, 0, Slice(None, 2)}));
       }},
      {"y[m] = 0", [](auto& y, auto& in) { y.index_put_({in.at("m")}, 0); }},
      {"y[m] = v[0, 0, :1]",
       [](auto& y, auto& in) {
         y.index_put_({in.at("m")}, in.at("v").index({0, 0, Slice(None, 1)}));
       }},
      {"y[y > 0] = -1.0", [](auto& y, auto&) { y.index_put_({y > 0}, -1.0); }},
      {"y[r, 2] = v[:2, 0]",
       [](auto& y, auto& in) {
         y.index_put_({in.at("r"), 2}, in.at("v").index({Slice(None, 2), 0}));
       }},
      {"y[torch.tensor([2, 0])] = v[:2]",
       [](auto& y, auto& in) {
         y.index_put_({longs({2, 0})}, in.at("v").index({Slice(None, 2)}));
       }},
      {"y[torch.tensor([0, -1]), :, torch.tensor([4, 1])] = v[0, :2, 0].unsqueeze(1)",
       [](auto& y, auto& in) {
         y.index_put_({longs({0, -1}), Slice(), longs({4, 1})},
                      in.at("v").index({0, Slice(None, 2), 0}).unsqueeze(1));
       }},
      {"y.index_put_((i,), v[:4], accumulate=True)",
       [](auto& y, auto& in) {
         y.index_put_(std::vector<std::optional<Tensor>>{in.at("i")},
                      in.at("v").index({Slice(None, 4)}), true);
       }},
      {"y.index_put_((torch.arange(3).view(3, 1), j), v[0, 0, 0], accumulate=True)",
       [](auto& y, auto& in) {
         y.index_put_(std::vector<std::optional<Tensor>>{std::nullopt, in.at("j")},
                      in.at("v").index({0, 0, 0}), true);
       }},
  };
  return cases;
}

}  // namespace

TEST(Indexing, IndexPutMatchesTorchOnEveryDevice) {
  auto in = inputs();
  manual_seed(5);
  in["v"] = randn({4, 4, 5});
  for (const PutCase& c : put_cases()) {
    auto r = torch_run("y = x.clone()\n" + std::string(c.python), in);
    for (const Device& dev : test_devices()) {
      std::map<std::string, Tensor> on;
      for (auto& [k, v] : in) on[k] = v.to(dev);
      Tensor y = on.at("x").clone();
      c.ember(y, on);
      expect_close(y.cpu(), r.at("y"), 1e-6, 1e-6, std::string(c.python) + " on " + dev.str());
      // Into a non-contiguous tensor (its indexed dims cannot be flattened in place).
      Tensor yt = on.at("x").transpose(0, 2).contiguous().transpose(0, 2);
      c.ember(yt, on);
      expect_close(yt.cpu(), r.at("y"), 1e-6, 1e-6,
                   std::string(c.python) + " (non-contiguous) on " + dev.str());
    }
  }
}

TEST(Indexing, IndexPutGradientsMatchTorch) {
  auto in = inputs();
  manual_seed(5);
  Tensor v0 = randn({4, 4, 5});
  for (const PutCase& c : put_cases()) {
    for (const Device& dev : test_devices()) {
      std::map<std::string, Tensor> on;
      for (auto& [k, v] : in) on[k] = v.to(dev);
      Tensor x = on.at("x").detach().requires_grad_();
      Tensor v = v0.to(dev).clone().requires_grad_();  // a fresh leaf for every case
      on["v"] = v;
      Tensor y = x * 1;  // not a leaf, so it may be written in place
      c.ember(y, on);
      manual_seed(3);
      Tensor w = randn(y.sizes()).to(dev);
      (y * w).sum().backward();
      auto r = torch_run("y = x * 1\n" + std::string(c.python) +
                             "\n(y * w).sum().backward()\ngx = x.grad\n"
                             "gv = v.grad if v.grad is not None else torch.zeros_like(v)",
                         {{"x", in.at("x").detach().requires_grad_()},
                          {"v", v0.detach().requires_grad_()},
                          {"w", w.cpu()},
                          {"i", in.at("i")},
                          {"j", in.at("j")},
                          {"m", in.at("m")},
                          {"r", in.at("r")}},
                         {"gx", "gv"});
      const std::string ctx = std::string("grad of ") + c.python + " on " + dev.str();
      expect_close(x.grad().cpu(), r.at("gx"), 1e-6, 1e-6, ctx + " (self)");
      Tensor gv = v.grad().defined() ? v.grad().cpu() : zeros_like(v0);
      expect_close(gv, r.at("gv"), 1e-5, 1e-6, ctx + " (values)");
    }
  }
}

TEST(Indexing, AdvancedFormsWithOptionalTensors) {
  Tensor x = arange(12, kFloat).view({3, 4});
  Tensor i = longs({2, 0});
  EXPECT_TRUE(
      x.index(std::vector<std::optional<Tensor>>{std::nullopt, i}).equal(x.index({Slice(), i})));
  Tensor y = zeros({3});
  y.index_put_(std::vector<std::optional<Tensor>>{longs({0, 0, 2, 0})}, ones({4}), true);
  EXPECT_TRUE(y.equal(tensor({3.0f, 0.0f, 1.0f})));
  y.index_put_(std::vector<std::optional<Tensor>>{longs({1})}, full({1}, 7.0));
  EXPECT_TRUE(y.equal(tensor({3.0f, 7.0f, 1.0f})));
}

TEST(Indexing, AssignmentThroughSubscriptsWrites) {
  for (const Device& dev : test_devices()) {
    Tensor z = zeros({3, 3}, TensorOptions().device(dev));
    z[1][2] = 5;
    z[0] = ones({3});
    z.index({2, Slice(None, 2)}) = tensor({7.0f, 8.0f});
    auto r = torch_run(
        "y = torch.zeros(3, 3)\ny[1][2] = 5\ny[0] = torch.ones(3)\ny[2, :2] = "
        "torch.tensor([7., 8.])",
        {});
    expect_close(z.cpu(), r.at("y"), 0, 0, "t[i][j] = v on " + dev.str());
  }
  // A named tensor is rebound, not written.
  Tensor a = zeros({2});
  Tensor b = ones({2});
  Tensor keep = a;
  a = b;
  EXPECT_TRUE(a.is_same(b));
  EXPECT_TRUE(keep.equal(zeros({2})));
}

TEST(Indexing, ConstHandlesIndexPut) {
  Tensor x = zeros({2, 2});
  const Tensor& c = x;
  c.index_put_({0, 1}, 3.0);
  EXPECT_EQ(x.index({0, 1}).item<float>(), 3.0f);
}

TEST(Indexing, AccessorReadsAndWritesCpuTensors) {
  Tensor x = arange(12, kFloat).view({3, 4});
  auto a = x.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 3);
  EXPECT_EQ(a.size(1), 4);
  EXPECT_EQ(a[2][1], 9.0f);
  a[0][3] = -1;
  EXPECT_EQ(x.index({0, 3}).item<float>(), -1.0f);
  // Strided: a transposed view reads through its strides.
  Tensor xt = x.t();  // accessor() is deleted on a temporary, whose sizes it would point into
  auto t = xt.accessor<float, 2>();
  EXPECT_EQ(t[1][2], 9.0f);
  EXPECT_EQ(t.stride(0), 1);

  std::string msg = error_of<IndexError>([&] { x.accessor<float, 3>(); });
  EXPECT_TRUE(contains(msg, "TensorAccessor expected 3 dims but tensor has 2")) << msg;
  msg = error_of<TypeError>([&] { x.accessor<double, 2>(); });
  EXPECT_TRUE(contains(msg, "expected scalar type Double but found Float")) << msg;
  for (const Device& dev : ember::testing::cuda_devices()) {
    Tensor g = x.to(dev);
    msg = error_of<DeviceError>([&] { g.accessor<float, 2>(); });
    EXPECT_TRUE(contains(msg, "needs a CPU tensor") && contains(msg, dev.str())) << msg;
  }
}

TEST(Indexing, DataIsADetachedAliasAndPrintShowsTheType) {
  Tensor w = ones({2, 3}).requires_grad_();
  Tensor d = w.data();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_EQ(d.data_ptr(), w.data_ptr());
  d.mul_(2);  // no leaf check: d does not require grad
  EXPECT_TRUE(w.detach().equal(full({2, 3}, 2.0)));

  ::testing::internal::CaptureStderr();
  zeros({3, 3}).print();
  zeros({2}, kLong).print();
  Tensor().print();
  std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "[CPUFloatType [3, 3]]\n[CPULongType [2]]\n[UndefinedTensor]\n");
  for (const Device& dev : ember::testing::cuda_devices()) {
    ::testing::internal::CaptureStderr();
    zeros({1}, TensorOptions().dtype(kHalf).device(dev)).print();
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "[CUDAHalfType [1]]\n");
  }
}

TEST(Indexing, BadSubscriptsSayWhatIsWrong) {
  Tensor x = zeros({3, 4});
  auto msg = error_of<IndexError>([&] { x.index({5}); });
  EXPECT_TRUE(contains(msg, "index 5 is out of bounds for dimension 0 with size 3")) << msg;
  msg = error_of<IndexError>([&] { x.index({Slice(), -5}); });
  EXPECT_TRUE(contains(msg, "index -5 is out of bounds for dimension 1 with size 4")) << msg;
  msg = error_of<IndexError>([&] { x.index({Slice(), longs({0, 4})}); });
  EXPECT_TRUE(contains(msg, "index 4 is out of bounds for dimension 1 with size 4")) << msg;
  msg = error_of<IndexError>([&] { x.index({longs({-4})}); });
  EXPECT_TRUE(contains(msg, "index -4 is out of bounds for dimension 0 with size 3")) << msg;
  msg = error_of<IndexError>([&] { x.index({0, 0, 0}); });
  EXPECT_TRUE(contains(msg, "too many indices for tensor of dimension 2")) << msg;
  msg = error_of<IndexError>([&] { x.index({tensor({true, false})}); });
  EXPECT_TRUE(contains(msg,
                       "The shape of the mask [2] at index 0 does not match the shape of "
                       "the indexed tensor [3, 4] at index 0"))
      << msg;
  msg = error_of<IndexError>([&] { x.index({zeros({2}, kFloat)}); });
  EXPECT_TRUE(contains(msg, "tensors used as indices must be long, int, byte or bool tensors") &&
              contains(msg, "torch.float32"))
      << msg;
  msg = error_of<IndexError>([&] { x.index({longs({0, 1}), longs({0, 1, 2})}); });
  EXPECT_TRUE(contains(msg,
                       "shape mismatch: indexing tensors could not be broadcast together "
                       "with shapes [2], [3]"))
      << msg;
  msg = error_of<IndexError>([&] { x.index({"...", 0, "..."}); });
  EXPECT_TRUE(contains(msg, "an index can only have a single ellipsis")) << msg;
  msg = error_of<ValueError>([&] { x.index({".."}); });
  EXPECT_TRUE(contains(msg, "Expected \"...\" to represent an ellipsis index")) << msg;
  msg = error_of<ValueError>([&] { x.index({Slice(0, 2, 0)}); });
  EXPECT_TRUE(contains(msg, "slice step cannot be zero")) << msg;
  msg = error_of<ValueError>([&] { x.index({Slice(2, 0, -1)}); });
  EXPECT_TRUE(contains(msg, "step must be greater than zero")) << msg;
  msg = error_of<ValueError>([&] { x.index_put_({longs({0, 1})}, ones({3})); });
  EXPECT_TRUE(contains(msg,
                       "shape mismatch: value tensor of shape [3] cannot be broadcast to "
                       "indexing result of shape [2, 4]"))
      << msg;
  msg = error_of<ValueError>([&] { x.index_put_({Slice(), 0}, ones({4})); });
  EXPECT_TRUE(contains(msg,
                       "value tensor of shape [4] cannot be broadcast to indexing result of "
                       "shape [3]"))
      << msg;
  msg = error_of<IndexError>([&] { x.index_put_({tensor({true, false, true, true})}, 1.0); });
  EXPECT_TRUE(contains(msg, "The shape of the mask [4] at index 0")) << msg;
  // Nothing was written by the failed calls, and x still works.
  EXPECT_TRUE(x.equal(zeros({3, 4})));
  Tensor leaf = zeros({2}).requires_grad_();
  msg = error_of([&] { leaf.index_put_({0}, 1.0); });
  EXPECT_TRUE(contains(msg, "a leaf Variable that requires grad")) << msg;
}
