// Floating -> integer and -> bool casts follow PyTorch's CPU semantics on every device
// (src/kernel_math/cast_value.h): truncate to int64, then wrap into the narrow type, so -1.0 ->
// uint8 is 255 on CUDA too (a GPU's own conversion saturates it to 0). Values outside int64 (and
// NaN, inf) are implementation defined in PyTorch as well: for them only well-definedness (UBSan
// build) and agreement between devices are checked.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/tensor_data.h"
#include "kernel_math/cast_value.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

// Inside the int32 range, where PyTorch's x86 CPU result is defined by its int64 (uint8) or
// 32-bit (int8/int16/int32) truncation and the two agree.
const std::vector<double> kValues = {-1.0,  -128.5,  255.0,     256.0, 300.7,         -0.5,
                                     1e9,   0.0,     -0.0,      0.5,   127.9,         -129.0,
                                     -1e-3, 65535.5, -32769.25, 1e5,   -2147483648.0, 2147483520.0};

const std::vector<ScalarType> kSources = {kFloat, kDouble, kHalf, kBFloat16};
const std::vector<ScalarType> kTargets = {kByte, kChar, kShort, kInt, kLong, kBool};

// The values of kValues that `src` holds as finite numbers (half tops out at 65504).
Tensor source_values(ScalarType src) {
  std::vector<double> v;
  for (double x : kValues) {
    if (src == kHalf && std::fabs(x) >= 65504.0) continue;
    v.push_back(x);
  }
  return tensor(v, TensorOptions().dtype(kDouble)).to(src);
}

std::string torch_dtype(ScalarType t) {
  return python_name(t);
}

TEST(CastSemantics, FloatingToIntegerAndBoolMatchPyTorchOnEveryDevice) {
  for (ScalarType src : kSources) {
    const Tensor x = source_values(src);
    for (ScalarType dst : kTargets) {
      const Tensor expected = torch_run("y = x.to(" + torch_dtype(dst) + ")", {{"x", x}}).at("y");
      for (const Device& dev : test_devices()) {
        const std::string ctx =
            std::string(to_string(src)) + " -> " + to_string(dst) + " on " + dev.str();
        const Tensor xd = x.to(dev);
        // Contiguous.
        expect_close(xd.to(dst).cpu(), expected, 0, 0, ctx);
        // Strided: every other element of a longer tensor.
        Tensor spread = empty({x.numel() * 2}, xd.options()).slice(0, 0, x.numel() * 2, 2);
        spread.copy_(xd);
        expect_close(spread.to(dst).cpu(), expected, 0, 0, ctx + " (strided)");
        // A broadcast source (one value filled into the whole destination).
        for (int64_t i = 0; i < x.numel(); ++i) {
          Tensor out = empty({5}, TensorOptions().dtype(dst).device(dev));
          out.copy_(xd[i].expand({5}));
          expect_close(out.cpu(), expected[i].expand({5}).contiguous(), 0, 0,
                       ctx + " (broadcast, element " + std::to_string(i) + ")");
        }
        // Device and dtype in one step (the cast may run on either side of the transfer).
        expect_close(x.to(dev, dst).cpu(), expected, 0, 0, ctx + " (to(device, dtype))");
      }
    }
  }
}

TEST(CastSemantics, NegativeOneToUint8IsTwoFiftyFiveEverywhere) {
  for (const Device& dev : test_devices()) {
    for (ScalarType src : kSources) {
      const Tensor x = full({3}, -1.0, TensorOptions().dtype(src).device(dev));
      EXPECT_EQ(x.to(kByte).cpu().to_vector<uint8_t>(), std::vector<uint8_t>(3, 255))
          << to_string(src) << " on " << dev.str();
    }
  }
}

TEST(CastSemantics, OutOfRangeValuesAreDefinedAndAgreeAcrossDevices) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // The function itself: NaN -> 0, beyond int64 saturates, then the integer conversion wraps.
  EXPECT_EQ(float_to_int64(nan), 0);
  EXPECT_EQ(float_to_int64(inf), INT64_MAX);
  EXPECT_EQ(float_to_int64(-inf), INT64_MIN);
  EXPECT_EQ(float_to_int64(1e30f), INT64_MAX);
  EXPECT_EQ(float_to_int64(-9223372036854775808.0), INT64_MIN);
  EXPECT_EQ(float_to_int64(9223372036854774784.0), 9223372036854774784);  // largest double < 2^63
  EXPECT_EQ((cast_value<uint8_t, double>(1e30)), 255);
  EXPECT_EQ((cast_value<int32_t, float>(-inf)), 0);
  EXPECT_EQ((cast_value<int16_t, Half>(Half(nan))), 0);
  EXPECT_TRUE((cast_value<bool, double>(nan)));
  EXPECT_FALSE((cast_value<bool, float>(-0.0f)));
  EXPECT_EQ((cast_value<uint8_t, BFloat16>(BFloat16(-2.0f))), 254);

  const std::vector<double> odd = {nan, inf, -inf, 1e19, -1e19, 1e30, -1e300, 3e9, -5e9};
  for (ScalarType src : {kFloat, kDouble, kHalf, kBFloat16}) {
    const Tensor x = tensor(odd, TensorOptions().dtype(kDouble)).to(src);
    for (ScalarType dst : kTargets) {
      const Tensor ref = x.to(dst);
      for (const Device& dev : test_devices()) {
        expect_close(x.to(dev).to(dst).cpu(), ref, 0, 0,
                     std::string(to_string(src)) + " -> " + to_string(dst) + " on " + dev.str());
      }
    }
  }
}

}  // namespace
}  // namespace ember::testing
