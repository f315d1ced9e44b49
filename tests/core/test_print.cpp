// Printing. operator<<, print() and toString() give libtorch's C++ text (the strings below were
// printed by libtorch 1.13; tests/compat/print_tensors.cpp compares many more against libtorch
// itself). detail::python_repr, kept for the Python bindings, must give exactly the string
// Python's str(tensor) gives for the same tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/cuda_skip.h"
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
  EXPECT_EQ(detail::python_repr(x), torch_str(x)) << what;
}

std::string printed(const Tensor& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(PythonRepr, KnownStrings) {
  EXPECT_EQ(detail::python_repr(tensor({{1.0, -2.5}, {3.0, 4.0}})),
            "tensor([[ 1.0000, -2.5000],\n        [ 3.0000,  4.0000]])");
  EXPECT_EQ(detail::python_repr(tensor({1.0, 2.0})), "tensor([1., 2.])");
  EXPECT_EQ(detail::python_repr(tensor({true, false})), "tensor([ True, False])");
  EXPECT_EQ(detail::python_repr(scalar_tensor(3.0)), "tensor(3.)");
  EXPECT_EQ(detail::python_repr(zeros({0, 3})), "tensor([], size=(0, 3))");
  EXPECT_EQ(detail::python_repr(tensor({1, 2}).to(kInt)), "tensor([1, 2], dtype=torch.int32)");
  EXPECT_EQ(detail::python_repr(Tensor()), "[ Tensor (undefined) ]");
}

TEST(PythonRepr, FloatLayouts) {
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

TEST(PythonRepr, Dtypes) {
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

TEST(PythonRepr, ZeroDimAndEmpty) {
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

TEST(PythonRepr, LineWrapping) {
  manual_seed(2);
  expect_same_as_torch(randn({30}), "30 floats");
  expect_same_as_torch(arange(40), "40 ints");
  expect_same_as_torch(randn({25}, kDouble), "25 doubles with dtype suffix");
  expect_same_as_torch(randn({3, 20}) * 1000, "wide rows");
  expect_same_as_torch(tensor({1e-20, 1.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0}),
                       "scientific, wrapped");
}

TEST(PythonRepr, Summarised) {
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

TEST(PythonRepr, NonContiguousAndHigherRank) {
  manual_seed(4);
  Tensor x = randn({3, 4, 2});
  expect_same_as_torch(x.permute({2, 0, 1}), "permuted");
  expect_same_as_torch(x.slice(1, 0, 4, 2), "sliced");
  expect_same_as_torch(randn({2, 2, 2, 2}), "4-D");
  expect_same_as_torch(tensor({1.0, 2.0}).expand({3, 2}), "expanded");
}

TEST(PythonRepr, AutogradSuffixes) {
  manual_seed(5);
  Tensor x = randn({2, 3});
  x.requires_grad_(true);
  expect_same_as_torch(x, "leaf requires_grad");
  EXPECT_EQ(detail::python_repr(x.t()), torch_str(x, "x.t()"));
  EXPECT_EQ(detail::python_repr(x.view({3, 2})), torch_str(x, "x.view(3, 2)"));
  EXPECT_EQ(detail::python_repr(x.expand({2, 2, 3})), torch_str(x, "x.expand(2, 2, 3)"));
  EXPECT_EQ(detail::python_repr(cat({x, x})), torch_str(x, "torch.cat([x, x])"));
  Tensor d = randn({2, 7}, kDouble);
  d.requires_grad_(true);
  // The suffixes do not fit on the last line and wrap as in PyTorch.
  EXPECT_EQ(detail::python_repr(d.transpose(0, 1)), torch_str(d, "x.transpose(0, 1)"));
  EXPECT_EQ(detail::python_repr(d), torch_str(d));
  EXPECT_NE(detail::python_repr(d).find("]],\n       dtype=torch.float64, requires_grad=True)"),
            std::string::npos)
      << detail::python_repr(d);
  Tensor e = zeros({0, 2});
  e.requires_grad_(true);
  expect_same_as_torch(e, "empty requires_grad");
}

TEST(PythonRepr, CudaTensorsPrintLikeCpuWithDeviceSuffix) {
  EMBER_SKIP_WITHOUT_CUDA();
  Tensor x = tensor({{1.0, -2.5}, {3.0, 4.0}});
  EXPECT_EQ(detail::python_repr(x.cuda()),
            "tensor([[ 1.0000, -2.5000],\n        [ 3.0000,  4.0000]], device='cuda:0')");
  EXPECT_EQ(detail::python_repr(tensor({1, 2}).to(Device("cuda:0"))),
            "tensor([1, 2], device='cuda:0')");
  EXPECT_EQ(detail::python_repr(zeros({0}, TensorOptions().device(Device("cuda:0")))),
            "tensor([], device='cuda:0')");
  Tensor y = randn({2, 3}, kDouble);
  std::string cpu = detail::python_repr(y);
  std::string expected = cpu.substr(0, cpu.size() - 1);
  expected.insert(expected.find(", dtype="), ", device='cuda:0'");
  EXPECT_EQ(detail::python_repr(y.cuda()), expected + ")");
}

// ---- libtorch's C++ layout (operator<<, print, toString) ----

TEST(Print, LibtorchLayouts) {
  EXPECT_EQ(printed(tensor({{1.5, -2.0}, {3.25, 4.0}})),
            " 1.5000 -2.0000\n 3.2500  4.0000\n[ CPUFloatType{2,2} ]");
  EXPECT_EQ(printed(tensor({1.0, 2.0, -3.0})), " 1\n 2\n-3\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({1.0, 2000000.0, -3.0})),
            "       1\n   2e+06\n      -3\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({1e-5, 2e-5, 3.5e-5})),
            "1e-05 *\n 1.0000\n 2.0000\n 3.5000\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({1e-5, 1.0, 3.5})),
            " 1.0000e-05\n 1.0000e+00\n 3.5000e+00\n[ CPUFloatType{3} ]");
  EXPECT_EQ(printed(tensor({12345.6, 2.5, 100.0})),
            " 12345.5996\n     2.5000\n   100.0000\n[ CPUFloatType{3} ]");
  // Under a scale factor, rows after the first stand one space further in (libtorch's layout).
  EXPECT_EQ(printed(tensor({{1e-5, 2e-5}, {3e-5, 4.5e-5}})),
            "1e-05 *\n 1.0000  2.0000\n  3.0000  4.5000\n[ CPUFloatType{2,2} ]");
  // Only the first element's magnitude counts for negative values, as in libtorch.
  EXPECT_EQ(printed(tensor({2.0, -1000.5})), " 2.0000\n-1000.5000\n[ CPUFloatType{2} ]");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(printed(tensor({1.5, nan, inf, -inf})),
            " 1.5000\n    nan\n    inf\n   -inf\n[ CPUFloatType{4} ]");
  EXPECT_EQ(printed(tensor({1e100, 1.5}, kDouble)),
            " 1.0000e+100\n  1.5000e+00\n[ CPUDoubleType{2} ]");
}

TEST(Print, LibtorchDtypesAndShapes) {
  EXPECT_EQ(printed(scalar_tensor(3.5)), "3.5\n[ CPUFloatType{} ]");
  EXPECT_EQ(printed(scalar_tensor(7, kLong)), "7\n[ CPULongType{} ]");
  EXPECT_EQ(printed(scalar_tensor(true, kBool)), "1\n[ CPUBoolType{} ]");
  EXPECT_EQ(printed(tensor({true, false}).reshape({1, 2})), " 1  0\n[ CPUBoolType{1,2} ]");
  EXPECT_EQ(printed(arange(250, 253).to(kByte)), " 250\n 251\n 252\n[ CPUByteType{3} ]");
  EXPECT_EQ(printed(tensor({1.5, -2.25}).to(kHalf)), " 1.5000\n-2.2500\n[ CPUHalfType{2} ]");
  EXPECT_EQ(printed(tensor({3.1}).to(kBFloat16)), " 3.0938\n[ CPUBFloat16Type{1} ]");
  EXPECT_EQ(printed(tensor({int64_t(12345678901), int64_t(2)})),
            " 1.2346e+10\n 2.0000e+00\n[ CPULongType{2} ]");
  EXPECT_EQ(printed(zeros({0})), "[ CPUFloatType{0} ]");
  EXPECT_EQ(printed(zeros({2, 0, 3}, kLong)), "[ CPULongType{2,0,3} ]");
  // Higher dims: slices with the first index running fastest, each formatted on its own.
  EXPECT_EQ(printed(arange(8).reshape({2, 2, 2})),
            "(1,.,.) = \n  0  1\n  2  3\n\n(2,.,.) = \n  4  5\n  6  7\n[ CPULongType{2,2,2} ]");
  EXPECT_EQ(printed(arange(8).reshape({2, 2, 1, 2})),
            "(1,1,.,.) = \n  0  1\n\n(2,1,.,.) = \n  4  5\n\n(1,2,.,.) = \n  2  3\n\n"
            "(2,2,.,.) = \n  6  7\n[ CPULongType{2,2,1,2} ]");
  EXPECT_EQ(printed(Tensor()), "[ Tensor (undefined) ]");
  EXPECT_EQ(Tensor().toString(), "UndefinedType");
  EXPECT_EQ(zeros({2}, kInt).toString(), "CPUIntType");
}

TEST(Print, LibtorchColumnBlocksAndNoSummary) {
  // Columns that do not fit in 80 characters go to further blocks; libtorch writes each header
  // and the block's first row on one line.
  EXPECT_EQ(printed(arange(30, kFloat).reshape({1, 30}) * 1.5),
            "Columns 1 to 8  0.0000   1.5000   3.0000   4.5000   6.0000   7.5000   9.0000  "
            "10.5000\n\nColumns 9 to 16 12.0000  13.5000  15.0000  16.5000  18.0000  19.5000  "
            "21.0000  22.5000\n\nColumns 17 to 24 24.0000  25.5000  27.0000  28.5000  30.0000  "
            "31.5000  33.0000  34.5000\n\nColumns 25 to 30 36.0000  37.5000  39.0000  40.5000  "
            "42.0000  43.5000\n[ CPUFloatType{1,30} ]");
  std::ostringstream narrow;
  print(narrow, arange(12, kFloat).reshape({1, 12}), 40);
  EXPECT_EQ(narrow.str(),
            "Columns 1 to 10  0   1   2   3   4   5   6   7   8   9\n\nColumns 11 to 12 10  "
            "11\n[ CPUFloatType{1,12} ]");
  // Nothing is summarised: every one of 1100 elements is printed, one per line.
  const std::string big = printed(arange(1100));
  EXPECT_EQ(std::count(big.begin(), big.end(), '\n'), 1100);
  EXPECT_EQ(big.find("..."), std::string::npos);
}

TEST(Print, LibtorchKeepsTheStreamSettings) {
  std::ostringstream os;
  os << std::setprecision(2) << tensor({1.0, 123456.0}) << "|" << 1.23456;
  EXPECT_EQ(os.str(), "      1\n1.2e+05\n[ CPUFloatType{2} ]|1.2");
  std::ostringstream fixed;
  fixed << std::fixed << scalar_tensor(2.5) << "|" << 2.5;
  EXPECT_EQ(fixed.str(), "2.5\n[ CPUFloatType{} ]|2.500000");
  std::ostringstream width;
  width << std::setw(4) << tensor({1.5}) << "|";
  EXPECT_EQ(width.str(), " 1.5000\n[ CPUFloatType{1} ]   |");
}

TEST(Print, LibtorchPrintAndRequiresGrad) {
  Tensor x = ones({2}, TensorOptions().requires_grad(true));
  EXPECT_EQ(printed(x * 3), " 3\n 3\n[ CPUFloatType{2} ]");
  ::testing::internal::CaptureStderr();
  ones({2, 2}).print();
  Tensor().print();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "[CPUFloatType [2, 2]]\n[UndefinedTensor]\n");
  ::testing::internal::CaptureStdout();
  print(tensor({1.0, 2.0}));
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), " 1\n 2\n[ CPUFloatType{2} ]");
}

TEST(Print, LibtorchCudaTensors) {
  EMBER_SKIP_WITHOUT_CUDA();
  Tensor x = tensor({{1.5, -2.0}, {3.25, 4.0}}).cuda();
  EXPECT_EQ(printed(x), " 1.5000 -2.0000\n 3.2500  4.0000\n[ CUDAFloatType{2,2} ]");
  EXPECT_EQ(x.toString(), "CUDAFloatType");
  EXPECT_EQ(printed(arange(3).cuda()), " 0\n 1\n 2\n[ CUDALongType{3} ]");
}
