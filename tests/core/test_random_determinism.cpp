// Random numbers and arange are bit-identical on every device (src/kernel_math/philox.h):
// Box-Muller uses philox::det_log / det_cos (+ - * / only, no libm or libdevice), and every
// multiply-add is rounded twice (mul_rn / add_rn), never fused into an FMA. Checks the accuracy of
// det_log and det_cos against long double, golden float64 values computed here step by step, and
// CPU vs CUDA equality bit for bit on every device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ember/ops.h"
#include "kernel_math/philox.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

uint64_t bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
}

// |got - exact| in units of the last place of the exact value's binade.
double ulp_error(double got, long double exact) {
  int e;
  std::frexp(static_cast<double>(exact), &e);
  long double ulp = std::ldexp(1.0L, e - 53);
  if (fabsl(exact) < std::ldexp(1.0L, e - 1)) ulp /= 2;  // rounded up into the next binade
  return static_cast<double>(fabsl(static_cast<long double>(got) - exact) / ulp);
}

// What uniform_double gives for the lanes (a, b): their top 53 bits times 2^-53.
double u53(uint32_t a, uint32_t b) {
  return std::ldexp(static_cast<double>((static_cast<uint64_t>(a) << 32 | b) >> 11), -53);
}

struct ErrorStats {
  double max = 0;
  double worst_x = 0;
  long misrounded = 0;  // differs from long double rounded to double (which itself may be off)
  long n = 0;
  void add(double x, double got, long double exact) {
    const double err = ulp_error(got, exact);
    if (err > max) max = err, worst_x = x;
    misrounded += got != static_cast<double>(exact);
    ++n;
  }
  std::string str() const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "max %.4f ulp at %a, %ld of %ld not the rounded long double",
                  max, worst_x, misrounded, n);
    return buf;
  }
};

TEST(DetLog, WithinOneUlpOverTheBoxMullerRange) {
  std::mt19937_64 gen(12345);
  std::uniform_real_distribution<double> exponent(-690.0, 0.0);
  ErrorStats s;
  for (int i = 0; i < 1000000; ++i) {
    // Half the points as Box-Muller draws them (multiples of 2^-53), half log-uniform down to
    // 1e-300 (every binade the clamp allows).
    double x = i % 2 ? std::ldexp(static_cast<double>(gen() >> 11), -53) : std::exp(exponent(gen));
    if (x < 1e-300) x = 1e-300;
    s.add(x, philox::det_log(x), logl(static_cast<long double>(x)));
  }
  std::printf("det_log: %s\n", s.str().c_str());
  EXPECT_LE(s.max, 1.0) << s.str();
}

TEST(DetCos, WithinOneUlpOverZeroToTwoPi) {
  std::mt19937_64 gen(678);
  ErrorStats s;
  for (int i = 0; i < 1000000; ++i) {
    const double x = 6.283185307179586476925 * std::ldexp(static_cast<double>(gen() >> 11), -53);
    s.add(x, philox::det_cos(x), cosl(static_cast<long double>(x)));
  }
  // Next to the zeros and extremes of cos, where the argument reduction cancels.
  for (double k : {1.0, 2.0, 3.0, 4.0}) {
    double x = static_cast<double>(k * 1.5707963267948966192313216916397514L);
    for (int j = 0; j < 2000; ++j) x = std::nextafter(x, 0.0);
    for (int j = 0; j < 4000; ++j, x = std::nextafter(x, 10.0)) {
      s.add(x, philox::det_cos(x), cosl(static_cast<long double>(x)));
    }
  }
  std::printf("det_cos: %s\n", s.str().c_str());
  EXPECT_LE(s.max, 1.0) << s.str();
}

TEST(DetLogCos, EdgeCases) {
  const double tiny = 1e-300, below_one = 1.0 - 0x1p-53;
  EXPECT_EQ(philox::det_log(tiny), static_cast<double>(logl(static_cast<long double>(tiny))));
  EXPECT_EQ(philox::det_log(below_one), -0x1p-53);
  EXPECT_EQ(philox::det_log(0x1p-53), static_cast<double>(-53 * logl(2.0L)));
  EXPECT_EQ(bits(philox::det_log(1.0)), bits(0.0));
  EXPECT_EQ(philox::det_log(0.5), static_cast<double>(-logl(2.0L)));
  for (double sub : {0x1p-1074, 0x1.8p-1070, 0x1.fffffffffffffp-1023}) {  // subnormals
    EXPECT_LE(ulp_error(philox::det_log(sub), logl(static_cast<long double>(sub))), 1.0) << sub;
  }
  EXPECT_EQ(philox::det_log(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(philox::det_log(-1.0)));
  EXPECT_TRUE(std::isnan(philox::det_log(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_EQ(philox::det_log(std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());

  EXPECT_EQ(philox::det_cos(0.0), 1.0);
  EXPECT_EQ(philox::det_cos(-2.5), philox::det_cos(2.5));
  const double last = 6.283185307179586476925 * below_one;  // largest 2 pi u2
  EXPECT_LE(ulp_error(philox::det_cos(last), cosl(static_cast<long double>(last))), 1.0);
  EXPECT_TRUE(std::isnan(philox::det_cos(std::numeric_limits<double>::infinity())));

  // Box-Muller at the ends: u1 = 0 (clamped to 1e-300) and u2 = 0; u1 = 1 - 2^-53.
  EXPECT_EQ(philox::normal_double(philox::Block{{0, 0, 0, 0}}),
            std::sqrt(-2.0 * static_cast<double>(logl(static_cast<long double>(tiny)))));
  const double top = philox::normal_double(philox::Block{{0xffffffffu, 0xffffffffu, 0, 0}});
  EXPECT_EQ(top, 0x1p-26);  // sqrt(-2 log(1 - 2^-53)) = sqrt(2^-52)
}

TEST(NormalElement, Statistics) {
  const int n = 1000000;
  double sum = 0, sum2 = 0, tail = 0;
  for (int i = 0; i < n; ++i) {
    const double x = philox::normal_element<double>(philox::philox4x32_10(i, 2024), 0.0, 1.0);
    sum += x;
    sum2 += x * x;
    tail += std::fabs(x) > 2.0;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(sd, 1.0, 0.005);
  EXPECT_NEAR(tail / n, 0.0455, 0.002);  // P(|x| > 2)
}

// Golden values: each step rounded to double from long double (or done in double where it is
// exact), independently of philox.h's code; the library must give exactly these bits.
TEST(RandomGolden, RandnFloat64MatchesStepwiseRoundedMath) {
  const uint64_t seed = 20240611;
  manual_seed(seed);
  const std::vector<double> got = randn({16}, kDouble).to_vector<double>();
  manual_seed(seed);
  Tensor scaled = empty({16}, kDouble);
  scaled.normal_(0.25, 3.0);
  const std::vector<double> got_scaled = scaled.to_vector<double>();
  for (int i = 0; i < 16; ++i) {
    const philox::Block b = philox::philox4x32_10(static_cast<uint64_t>(i), seed);
    double u1 = u53(b.v[0], b.v[1]);
    const double u2 = u53(b.v[2], b.v[3]);
    if (u1 < 1e-300) u1 = 1e-300;
    const double log_u1 = static_cast<double>(logl(static_cast<long double>(u1)));
    const double radius = std::sqrt(-2.0 * log_u1);  // sqrt is correctly rounded
    const volatile double theta = 6.283185307179586476925 * u2;
    const double cos_theta = static_cast<double>(cosl(static_cast<long double>(theta)));
    const volatile double v = radius * cos_theta;  // volatile: no FMA in the test either
    const volatile double sv = 3.0 * v;
    const double expected_scaled = 0.25 + sv;
    EXPECT_EQ(bits(got[i]), bits(v)) << "element " << i << ": " << got[i] << " vs " << v;
    EXPECT_EQ(bits(got_scaled[i]), bits(expected_scaled)) << "element " << i;
  }
}

TEST(RandomGolden, UniformAndArangeFloat64AreNeverFused) {
  // uniform_(a, b) = a + (b - a) * u with two roundings; with an FMA some elements would differ
  // (checked below, so this test can see contraction).
  const uint64_t seed = 99;
  const double a = -2.5, b = 7.25;
  manual_seed(seed);
  Tensor u = empty({64}, kDouble);
  u.uniform_(a, b);
  const std::vector<double> got = u.to_vector<double>();
  int fused_differs = 0;
  for (int i = 0; i < 64; ++i) {
    const philox::Block blk = philox::philox4x32_10(static_cast<uint64_t>(i), seed);
    const double x = u53(blk.v[0], blk.v[1]);
    const volatile double p = (b - a) * x;
    const double expected = a + p;
    EXPECT_EQ(bits(got[i]), bits(expected)) << "element " << i;
    fused_differs += std::fma(b - a, x, a) != expected;
  }
  EXPECT_GT(fused_differs, 0);

  // arange(start, end, step) = start + step * i, two roundings.
  const double start = 0.1, step = 0.3;
  const std::vector<double> r = arange(start, 30.0, step, kDouble).to_vector<double>();
  ASSERT_EQ(r.size(), 100u);
  fused_differs = 0;
  for (int i = 0; i < 100; ++i) {
    const volatile double p = step * i;
    const double expected = start + p;
    EXPECT_EQ(bits(r[i]), bits(expected)) << "arange element " << i;
    fused_differs += std::fma(step, static_cast<double>(i), start) != expected;
  }
  EXPECT_GT(fused_differs, 0);
}

// Index of the first differing element of two same-shape tensors' bytes, or -1.
int64_t first_difference(const Tensor& a, const Tensor& b) {
  const std::vector<char> x = contiguous_bytes(a), y = contiguous_bytes(b);
  if (x.size() != y.size()) return 0;
  const size_t item = a.element_size();
  for (size_t i = 0; i < x.size(); i += item) {
    if (std::memcmp(&x[i], &y[i], item) != 0) return static_cast<int64_t>(i / item);
  }
  return -1;
}

void expect_same_bits(const Tensor& on_device, const Tensor& on_cpu, const std::string& what) {
  const Tensor d = on_device.cpu();
  ASSERT_EQ(d.sizes(), on_cpu.sizes()) << what;
  ASSERT_EQ(d.dtype(), on_cpu.dtype()) << what;
  const int64_t i = first_difference(d, on_cpu);
  EXPECT_EQ(i, -1) << what << ": first difference at element " << i << ": "
                   << (i >= 0 ? d.reshape({-1})[i].to(kDouble).item<double>() : 0.0) << " vs "
                   << (i >= 0 ? on_cpu.reshape({-1})[i].to(kDouble).item<double>() : 0.0);
}

TEST(RandomAcrossDevices, RandRandnArangeAreBitIdenticalToTheCpu) {
  const int64_t n = 100003;  // several blocks and a ragged tail
  for (const Device& dev : test_devices()) {
    for (ScalarType dt : {kDouble, kFloat, kHalf, kBFloat16}) {
      const std::string ctx = std::string(to_string(dt)) + " on " + dev.str();
      const TensorOptions cpu = TensorOptions().dtype(dt), on = cpu.device(dev);
      manual_seed(31337);
      const Tensor randn_cpu = randn({n}, cpu), rand_cpu = rand({n}, cpu);
      Tensor normal_cpu = empty({n}, cpu), uniform_cpu = empty({n}, cpu);
      normal_cpu.normal_(0.3, 1.7);
      uniform_cpu.uniform_(-2.5, 7.25);
      manual_seed(31337);
      const Tensor randn_dev = randn({n}, on), rand_dev = rand({n}, on);
      Tensor normal_dev = empty({n}, on), uniform_dev = empty({n}, on);
      normal_dev.normal_(0.3, 1.7);
      uniform_dev.uniform_(-2.5, 7.25);
      expect_same_bits(randn_dev, randn_cpu, "randn " + ctx);
      expect_same_bits(rand_dev, rand_cpu, "rand " + ctx);
      expect_same_bits(normal_dev, normal_cpu, "normal_(0.3, 1.7) " + ctx);
      expect_same_bits(uniform_dev, uniform_cpu, "uniform_(-2.5, 7.25) " + ctx);
      expect_same_bits(arange(0.1, 3000.0, 0.3, on), arange(0.1, 3000.0, 0.3, cpu),
                       "arange " + ctx);
      expect_same_bits(arange(-7.0, 5.0, 1e-3, on), arange(-7.0, 5.0, 1e-3, cpu),
                       "arange fine " + ctx);
    }
    // Fractional steps into integer dtypes convert as copy_ does (uint8 wraps, as on the CPU).
    for (ScalarType dt : {kByte, kChar, kInt, kLong}) {
      const TensorOptions cpu = TensorOptions().dtype(dt), on = cpu.device(dev);
      expect_same_bits(arange(-3.5, 3.0, 0.5, on), arange(-3.5, 3.0, 0.5, cpu),
                       std::string("arange ") + to_string(dt) + " on " + dev.str());
    }
  }
}

}  // namespace
}  // namespace ember::testing
