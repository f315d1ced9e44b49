// The PyTorch oracle itself: byte-exact round trips of every dtype, autograd inside Python, errors,
// and expect_close's verdicts. Built only on core allocation so it works before the ops exist.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/tensor_factory.h"
#include "ember/autograd.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

// A CPU tensor holding `values` converted to T.
template <typename T>
Tensor make(std::vector<int64_t> shape, const std::vector<double>& values) {
  Tensor t = make_empty(shape, CppTypeToScalarType<T>::value, Device(kCPU));
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  T* p = static_cast<T*>(t.data_ptr());
  for (size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      p[i] = T(static_cast<float>(values[i]));
    } else {
      p[i] = static_cast<T>(values[i]);
    }
  }
  return t;
}

void set_requires_grad(const Tensor& t) {
  t.impl()->ensure_autograd_meta().requires_grad = true;
}

TorchOracle& oracle() {
  return TorchOracle::instance();
}

TEST(TorchOracle, ReportsTorchVersion) {
  EXPECT_EQ(oracle().torch_version().rfind("1.", 0), 0u) << oracle().torch_version();
}

template <typename T>
void round_trip(const std::vector<double>& values, const char* torch_dtype) {
  Tensor x = make<T>({2, 3}, values);
  auto r = oracle().run(std::string("assert x.dtype == ") + torch_dtype +
                            ", x.dtype\nassert tuple(x.shape) == (2, 3)\ny = x.clone()\n"
                            "dt = x.dtype\nrg = x.requires_grad\nleaf = x.is_leaf",
                        {{"x", x}}, {"y", "dt", "rg", "leaf"});
  ASSERT_EQ(r.count("y"), 1u);
  const Tensor& y = r.at("y");
  EXPECT_EQ(y.dtype(), x.dtype());
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_EQ(std::memcmp(y.data_ptr(), x.data_ptr(), x.nbytes()), 0) << torch_dtype;
  EXPECT_EQ(r.at("dt").dtype(), x.dtype());  // a torch.dtype comes back as a 0-dim tensor
  EXPECT_EQ(r.at("dt").dim(), 0);
  EXPECT_EQ(r.at("rg").dtype(), kBool);
  EXPECT_FALSE(*static_cast<bool*>(r.at("rg").data_ptr()));
  EXPECT_TRUE(*static_cast<bool*>(r.at("leaf").data_ptr()));
}

TEST(TorchOracle, RoundTripsEveryDtypeBitExactly) {
  const double inf = std::numeric_limits<double>::infinity();
  round_trip<float>({1.5, -2.25, 0, 1e-30, inf, 3.0e38}, "torch.float32");
  round_trip<double>({1.0 / 3, -2.25, 0, 1e-300, -inf, 1e300}, "torch.float64");
  round_trip<Half>({1.5, -2.25, 0, 6e-8, 65504, -inf}, "torch.float16");
  round_trip<BFloat16>({1.5, -2.25, 0, 1e-30, 3e38, inf}, "torch.bfloat16");
  round_trip<int64_t>({1, -2, 0, 9007199254740993.0, -4e18, 7}, "torch.int64");
  round_trip<int32_t>({1, -2, 0, 2147483647, -2147483648.0, 7}, "torch.int32");
  round_trip<int16_t>({1, -2, 0, 32767, -32768, 7}, "torch.int16");
  round_trip<int8_t>({1, -2, 0, 127, -128, 7}, "torch.int8");
  round_trip<uint8_t>({1, 2, 0, 255, 128, 7}, "torch.uint8");
  round_trip<bool>({1, 0, 0, 1, 1, 0}, "torch.bool");
}

TEST(TorchOracle, Int64KeepsAllBits) {
  Tensor x = make_empty({1}, kLong, Device(kCPU));
  *static_cast<int64_t*>(x.data_ptr()) = (int64_t{1} << 62) + 1;
  auto r = oracle().run("ok = bool(x[0].item() == 2**62 + 1)\ny = x + 1", {{"x", x}}, {"ok", "y"});
  EXPECT_TRUE(*static_cast<bool*>(r.at("ok").data_ptr()));
  EXPECT_EQ(*static_cast<int64_t*>(r.at("y").data_ptr()), (int64_t{1} << 62) + 2);
}

TEST(TorchOracle, ZeroDimAndEmptyTensors) {
  Tensor s = make<double>({}, {2.5});
  Tensor e = make_empty({0, 3}, kFloat, Device(kCPU));
  auto r = oracle().run("s2 = s * 2\ne2 = e.sum(0)\nn = e.numel()", {{"s", s}, {"e", e}},
                        {"s2", "e2", "n"});
  EXPECT_EQ(r.at("s2").dim(), 0);
  EXPECT_EQ(*static_cast<double*>(r.at("s2").data_ptr()), 5.0);
  EXPECT_EQ(r.at("e2").sizes(), IntArrayRef({3}));
  EXPECT_EQ(r.at("n").dtype(), kLong);
  EXPECT_EQ(*static_cast<int64_t*>(r.at("n").data_ptr()), 0);
}

TEST(TorchOracle, NonContiguousInputsArriveInLogicalOrder) {
  Tensor base = make<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor t = make_view(base, {3, 2}, {1, 3}, 0);  // base.t()
  ASSERT_FALSE(t.is_contiguous());
  auto r =
      oracle().run("y = x.contiguous()\nok = torch.equal(x, torch.arange(6.).reshape(2, 3).t())",
                   {{"x", t}}, {"y", "ok"});
  EXPECT_TRUE(*static_cast<bool*>(r.at("ok").data_ptr()));
  const float* y = static_cast<const float*>(r.at("y").data_ptr());
  EXPECT_EQ(std::vector<float>(y, y + 6), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TorchOracle, PythonScalarsBecomeZeroDimTensors) {
  auto r = oracle().run("b = True\ni = -7\nf = 0.1", {}, {"b", "i", "f"});
  EXPECT_EQ(r.at("b").dtype(), kBool);
  EXPECT_EQ(r.at("i").dtype(), kLong);
  EXPECT_EQ(*static_cast<int64_t*>(r.at("i").data_ptr()), -7);
  EXPECT_EQ(r.at("f").dtype(), kDouble);
  EXPECT_EQ(*static_cast<double*>(r.at("f").data_ptr()), 0.1);
}

TEST(TorchOracle, RequiresGradIsPreservedAndBackwardRuns) {
  Tensor x = make<double>({3}, {1, 2, 3});
  set_requires_grad(x);
  Tensor w = make<double>({3}, {4, 5, 6});
  auto r = oracle().run(
      "assert x.requires_grad and x.is_leaf and not w.requires_grad\n"
      "y = (x * x * w).sum()\ny.backward()\ngx = x.grad",
      {{"x", x}, {"w", w}}, {"y", "gx"});
  EXPECT_EQ(*static_cast<double*>(r.at("y").data_ptr()), 4 + 20 + 54);
  expect_close(r.at("gx"), make<double>({3}, {8, 20, 36}));  // 2 * x * w
}

TEST(TorchOracle, PythonExceptionsBecomeErrorsWithTraceback) {
  Tensor x = make<float>({2}, {1, 2});
  try {
    oracle().run("y = x @ torch.ones(3)", {{"x", x}}, {"y"});
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Traceback"), std::string::npos) << msg;
    EXPECT_NE(msg.find("RuntimeError"), std::string::npos) << msg;
    EXPECT_NE(msg.find("y = x @ torch.ones(3)"), std::string::npos) << msg;
  }
  // The process survives a Python exception.
  auto r = oracle().run("y = x + 1", {{"x", x}}, {"y"});
  expect_close(r.at("y"), make<float>({2}, {2, 3}));
}

TEST(TorchOracle, MissingOutputAndUnsupportedOutputAreErrors) {
  EXPECT_THROW(
      {
        try {
          oracle().run("a = 1", {}, {"b"});
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("did not define output 'b'"), std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
  EXPECT_THROW(oracle().run("s = 'text'", {}, {"s"}), Error);
  EXPECT_THROW(oracle().run("c = torch.ones(2, dtype=torch.complex64)", {}, {"c"}), Error);
}

TEST(TorchOracle, RestartsAfterTheProcessDies) {
  EXPECT_THROW(oracle().run("import os\nos._exit(3)", {}, {}), Error);
  auto r = oracle().run("v = 41 + 1", {}, {"v"});
  EXPECT_EQ(*static_cast<int64_t*>(r.at("v").data_ptr()), 42);
}

TEST(TorchOracle, PrintingInPythonDoesNotBreakTheProtocol) {
  auto r = oracle().run("print('hello from the oracle')\nv = 1", {}, {"v"});
  EXPECT_EQ(*static_cast<int64_t*>(r.at("v").data_ptr()), 1);
}

TEST(ExpectClose, AcceptsWithinToleranceAndNanMatchesNan) {
  const double nan = std::nan("");
  expect_close(make<float>({3}, {1, nan, 3}), make<float>({3}, {1.000001, nan, 3}), 1e-5, 0);
  expect_close(make<int64_t>({2}, {5, -5}), make<int64_t>({2}, {5, -5}));
}

TEST(ExpectClose, ReportsMaxDiffAndFirstIndex) {
  Tensor a = make<double>({2, 2}, {1, 2, 3.5, 4});
  Tensor b = make<double>({2, 2}, {1, 2, 3, 4.25});
  EXPECT_NONFATAL_FAILURE(expect_close(a, b, 0, 0, "ctx"), "[1, 0]");
  EXPECT_NONFATAL_FAILURE(expect_close(a, b, 0, 0, "ctx"), "max abs diff 0.5");
  EXPECT_NONFATAL_FAILURE(expect_close(a, b, 0, 0, "ctx"), "2 of 4 elements differ");
  EXPECT_NONFATAL_FAILURE(expect_close(a, b, 0, 0, "ctx"), "[ctx]");
}

TEST(ExpectClose, DtypeShapeNanAndInfMismatchesFail) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NONFATAL_FAILURE(expect_close(make<float>({1}, {1}), make<double>({1}, {1})), "dtype");
  EXPECT_NONFATAL_FAILURE(expect_close(make<float>({2}, {1, 1}), make<float>({1, 2}, {1, 1})),
                          "shape");
  EXPECT_NONFATAL_FAILURE(expect_close(make<float>({1}, {std::nan("")}), make<float>({1}, {1})),
                          "1 of 1");
  EXPECT_NONFATAL_FAILURE(expect_close(make<float>({1}, {inf}), make<float>({1}, {-inf})),
                          "1 of 1");
  // Differ only in the lowest bit, which a comparison through double would lose.
  Tensor big = make<int64_t>({1}, {0});
  *static_cast<int64_t*>(big.data_ptr()) = (int64_t{1} << 60) + 1;
  EXPECT_NONFATAL_FAILURE(
      expect_close(big, make<int64_t>({1}, {static_cast<double>(int64_t{1} << 60)})), "1 of 1");
}

}  // namespace
}  // namespace ember::testing
