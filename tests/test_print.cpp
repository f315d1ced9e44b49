// Printing must give exactly the string Python's str(tensor) gives for the same tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::TorchOracle;

namespace {

// str(expr) in PyTorch, with `x` bound to the tensor (the string travels back as uint8 bytes).
std::string torch_str(const Tensor& x, const std::string& expr = "x") {
  auto r = TorchOracle::instance().run(
      "s = torch.tensor(list(str(" + expr + ").encode()), dtype=torch.uint8)", {{"x", x}}, {"s"});
  const Tensor& s = r.at("s");
  return std::string(static_cast<const char*>(s.data_ptr()), static_cast<size_t>(s.numel()));
}

void expect_same_as_torch(const Tensor& x, const std::string& what) {
  std::string expected = torch_str(x);
  EXPECT_EQ(x.toString(), expected) << what;
  std::ostringstream os;
  os << x;
  EXPECT_EQ(os.str(), expected) << what;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(Print, KnownStrings) {
  EXPECT_EQ(tensor({{1.0, -2.5}, {3.0, 4.0}}).toString(),
            "tensor([[ 1.0000, -2.5000],\n        [ 3.0000,  4.0000]])");
  EXPECT_EQ(tensor({1.0, 2.0}).toString(), "tensor([1., 2.])");
  EXPECT_EQ(tensor({true, false}).toString(), "tensor([ True, False])");
  EXPECT_EQ(scalar_tensor(3.0).toString(), "tensor(3.)");
  EXPECT_EQ(zeros({0, 3}).toString(), "tensor([], size=(0, 3))");
  EXPECT_EQ(tensor({1, 2}).to(kInt).toString(), "tensor([1, 2], dtype=torch.int32)");
  EXPECT_EQ(Tensor().toString(), "[ Tensor (undefined) ]");
}

TEST(Print, FloatLayouts) {
  manual_seed(0);
  expect_same_as_torch(randn({2, 3}), "randn 2x3");
  expect_same_as_torch(randn({5}) * 100, "randn * 100");
  expect_same_as_torch(tensor({1.0, -2.0, 30.0}), "integral floats");
  expect_same_as_torch(tensor({1e10, 1.0}), "large ratio, integral -> scientific");
  expect_same_as_torch(tensor({123456789.0, 2.0}), "integral, > 1e8");
  expect_same_as_torch(tensor({1e9, 2e9}), "integral, all > 1e8");
  expect_same_as_torch(tensor({1e-5, 1.0}), "small -> scientific");
  expect_same_as_torch(tensor({1e-5, 2.5e-5}), "all small");
  expect_same_as_torch(tensor({0.1, 1000.5}), "ratio just above 1000");
  expect_same_as_torch(tensor({0.5, 400.25}), "fixed, wide");
  expect_same_as_torch(tensor({-1e-3, 2e5}), "negative scientific");
  expect_same_as_torch(tensor({0.0, 0.0}), "all zero");
  expect_same_as_torch(tensor({-0.0, 1.0}), "negative zero");
  expect_same_as_torch(tensor({kNaN, kInf, -kInf, 1.5}), "non-finite");
  expect_same_as_torch(tensor({kNaN, 1.0}), "nan with integral");
  expect_same_as_torch(tensor({kNaN, kInf}), "only non-finite");
  expect_same_as_torch(tensor({kNaN, 1e-7, 3.0}), "nan in scientific");
  expect_same_as_torch(tensor({0.00015, 0.1235, 0.5}), "rounding");
  expect_same_as_torch(tensor({2.5, 0.125, 1e4}), "ties");
}

TEST(Print, Dtypes) {
  manual_seed(1);
  expect_same_as_torch(randn({3, 2}, kDouble), "float64");
  expect_same_as_torch(tensor({1.0, 2.0}).to(kDouble), "float64 integral");
  expect_same_as_torch(randn({4}).to(kHalf), "float16");
  expect_same_as_torch(randn({4}).to(kBFloat16), "bfloat16");
  expect_same_as_torch(tensor({1, -20, 300}), "int64");
  expect_same_as_torch(tensor({1, -20, 300}).to(kInt), "int32");
  expect_same_as_torch(tensor({1, -20, 30}).to(kShort), "int16");
  expect_same_as_torch(tensor({1, -20, 30}).to(kChar), "int8");
  expect_same_as_torch(tensor({1, 20, 255}).to(kByte), "uint8");
  expect_same_as_torch(tensor({{true, false}, {false, false}}), "bool 2-D");
  expect_same_as_torch(tensor({int64_t(-9223372036854775807LL), int64_t(5)}), "int64 extremes");
}

TEST(Print, ZeroDimAndEmpty) {
  expect_same_as_torch(scalar_tensor(3.5), "0-dim fixed");
  expect_same_as_torch(scalar_tensor(-3.0), "0-dim integral");
  expect_same_as_torch(scalar_tensor(1e-9), "0-dim scientific");
  expect_same_as_torch(scalar_tensor(kNaN), "0-dim nan");
  expect_same_as_torch(scalar_tensor(7, kLong), "0-dim int");
  expect_same_as_torch(scalar_tensor(true, kBool), "0-dim bool");
  expect_same_as_torch(scalar_tensor(2.0, kDouble), "0-dim double");
  expect_same_as_torch(zeros({0}), "empty 1-D");
  expect_same_as_torch(zeros({0}, kLong), "empty int64");
  expect_same_as_torch(zeros({0, 3}), "empty 2-D");
  expect_same_as_torch(zeros({2, 0, 3}, kDouble), "empty 3-D double");
  expect_same_as_torch(zeros({0}, kBool), "empty bool");
}

TEST(Print, LineWrapping) {
  manual_seed(2);
  expect_same_as_torch(randn({30}), "30 floats");
  expect_same_as_torch(arange(40), "40 ints");
  expect_same_as_torch(randn({25}, kDouble), "25 doubles with dtype suffix");
  expect_same_as_torch(randn({3, 20}) * 1000, "wide rows");
  expect_same_as_torch(tensor({1e-20, 1.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0}),
                       "scientific, wrapped");
}

TEST(Print, Summarised) {
  manual_seed(3);
  expect_same_as_torch(arange(2000), "1-D int, 2000");
  expect_same_as_torch(arange(1001, kFloat), "1-D float, 1001");
  expect_same_as_torch(arange(1000, kFloat), "1-D float, 1000: not summarised");
  expect_same_as_torch(randn({2000}), "1-D randn");
  expect_same_as_torch(randn({40, 50}), "2-D");
  expect_same_as_torch(randn({4, 300}), "2-D few rows");
  expect_same_as_torch(randn({300, 4}), "2-D few columns");
  expect_same_as_torch(randn({12, 10, 12}), "3-D");
  expect_same_as_torch(randn({10, 10, 11}, kDouble), "3-D double");
  expect_same_as_torch(randn({2, 3, 13, 13}) * 1e6, "4-D scientific");
  Tensor big = zeros({1100});
  big.narrow(0, 500, 100).fill_(1e-9);  // hidden by summarisation: does not force sci mode
  expect_same_as_torch(big, "summary ignores hidden values");
}

TEST(Print, NonContiguousAndHigherRank) {
  manual_seed(4);
  Tensor x = randn({3, 4, 2});
  expect_same_as_torch(x.permute({2, 0, 1}), "permuted");
  expect_same_as_torch(x.slice(1, 0, 4, 2), "sliced");
  expect_same_as_torch(randn({2, 2, 2, 2}), "4-D");
  expect_same_as_torch(tensor({1.0, 2.0}).expand({3, 2}), "expanded");
}

TEST(Print, AutogradSuffixes) {
  manual_seed(5);
  Tensor x = randn({2, 3});
  x.requires_grad_(true);
  expect_same_as_torch(x, "leaf requires_grad");
  EXPECT_EQ(x.t().toString(), torch_str(x, "x.t()"));
  EXPECT_EQ(x.view({3, 2}).toString(), torch_str(x, "x.view(3, 2)"));
  EXPECT_EQ(x.expand({2, 2, 3}).toString(), torch_str(x, "x.expand(2, 2, 3)"));
  EXPECT_EQ(cat({x, x}).toString(), torch_str(x, "torch.cat([x, x])"));
  Tensor d = randn({2, 7}, kDouble);
  d.requires_grad_(true);
  // The suffixes do not fit on the last line and wrap as in PyTorch.
  EXPECT_EQ(d.transpose(0, 1).toString(), torch_str(d, "x.transpose(0, 1)"));
  EXPECT_EQ(d.toString(), torch_str(d));
  EXPECT_NE(d.toString().find("]],\n       dtype=torch.float64, requires_grad=True)"),
            std::string::npos)
      << d.toString();
  Tensor e = zeros({0, 2});
  e.requires_grad_(true);
  expect_same_as_torch(e, "empty requires_grad");
}

TEST(Print, CudaTensorsPrintLikeCpuWithDeviceSuffix) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device: " << cuda::unavailable_reason();
  Tensor x = tensor({{1.0, -2.5}, {3.0, 4.0}});
  EXPECT_EQ(x.cuda().toString(),
            "tensor([[ 1.0000, -2.5000],\n        [ 3.0000,  4.0000]], device='cuda:0')");
  EXPECT_EQ(tensor({1, 2}).to(Device("cuda:0")).toString(), "tensor([1, 2], device='cuda:0')");
  EXPECT_EQ(zeros({0}, TensorOptions().device(Device("cuda:0"))).toString(),
            "tensor([], device='cuda:0')");
  Tensor y = randn({2, 3}, kDouble);
  std::string cpu = y.toString();
  std::string expected = cpu.substr(0, cpu.size() - 1);
  expected.insert(expected.find(", dtype="), ", device='cuda:0'");
  EXPECT_EQ(y.cuda().toString(), expected + ")");
}
