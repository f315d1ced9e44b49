// Random numbers and arange: the Philox element mapping (shared with CUDA), determinism under
// manual_seed, the statistics of rand/randn/randint, and non-contiguous outputs holding the same
// values as contiguous ones in row-major order.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "core/backend.h"
#include "ember/ops.h"
#include "kernel_math/philox.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::TorchOracle;

namespace {

double mean_of(const Tensor& t) {
  return t.to(kDouble).mean().item<double>();
}
double std_of(const Tensor& t) {
  return t.to(kDouble).std({}).item<double>();
}

// Row-major values of `t` as doubles.
std::vector<double> values(const Tensor& t) {
  return t.contiguous().to(kDouble).to_vector<double>();
}

}  // namespace

TEST(Philox, KnownAnswer) {
  // Random123's known-answer vector for Philox4x32-10 with zero counter and key.
  philox::Block r = philox::philox4x32_10(0, 0);
  EXPECT_EQ(r.v[0], 0x6627e8d5u);
  EXPECT_EQ(r.v[1], 0xe169c58du);
  EXPECT_EQ(r.v[2], 0xbc57ac4cu);
  EXPECT_EQ(r.v[3], 0x9b00dbd8u);
}

TEST(RandomKernel, ElementMappingIsTheDocumentedOne) {
  const uint64_t seed = 1234567, offset = 99;
  Backend& be = cpu_backend();
  Tensor f = empty({3, 5}), d = empty({3, 5}, kDouble), h = empty({3, 5}, kHalf);
  Tensor n = empty({3, 5}, kDouble), k = empty({3, 5}, kLong);
  be.random(f, RandomKind::Uniform, -2.0, 3.0, seed, offset);
  be.random(d, RandomKind::Uniform, -2.0, 3.0, seed, offset);
  be.random(h, RandomKind::Uniform, 0.0, 1.0, seed, offset);
  be.random(n, RandomKind::Normal, 1.5, 2.0, seed, offset);
  be.random(k, RandomKind::RandInt, -4, 9, seed, offset);
  std::vector<float> fv = f.to_vector<float>();
  std::vector<double> dv = d.to_vector<double>(), nv = n.to_vector<double>();
  std::vector<double> hv = values(h);
  std::vector<int64_t> kv = k.to_vector<int64_t>();
  for (int64_t i = 0; i < 15; ++i) {
    const philox::Block blk = philox::philox4x32_10(offset + i, seed);
    EXPECT_EQ(fv[i], static_cast<float>(-2.0 + 5.0 * philox::uniform_float(blk.v[0])));
    EXPECT_EQ(dv[i], -2.0 + 5.0 * philox::uniform_double(blk.v[0], blk.v[1]));
    EXPECT_EQ(hv[i], static_cast<float>(Half(static_cast<float>((blk.v[0] >> 21) / 2048.0))));
    EXPECT_EQ(nv[i], 1.5 + 2.0 * philox::normal_double(blk));
    const uint64_t x = static_cast<uint64_t>(blk.v[0]) << 32 | blk.v[1];
    EXPECT_EQ(kv[i], -4 + static_cast<int64_t>(x % 13));
  }
}

TEST(RandomKernel, NonContiguousOutputsMatchContiguousInRowMajorOrder) {
  Backend& be = cpu_backend();
  for (RandomKind kind : {RandomKind::Uniform, RandomKind::Normal, RandomKind::RandInt}) {
    for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
      const double a = kind == RandomKind::RandInt ? 0 : 0.0,
                   b = kind == RandomKind::RandInt ? 100 : 1.0;
      Tensor ref = empty({6, 7}, dt);
      be.random(ref, kind, a, b, 42, 1000);
      // Transposed storage.
      Tensor t = empty({7, 6}, dt).t();
      be.random(t, kind, a, b, 42, 1000);
      expect_close(t, ref, 0, 0, "transposed");
      // Every other row of a larger tensor, and a size-1 dim in the middle.
      Tensor s = empty({12, 7}, dt).slice(0, 0, 12, 2);
      be.random(s, kind, a, b, 42, 1000);
      expect_close(s, ref, 0, 0, "sliced");
      Tensor u = empty({6, 1, 7}, dt).permute({1, 0, 2});
      be.random(u, kind, a, b, 42, 1000);
      expect_close(u.reshape({6, 7}), ref, 0, 0, "size-1 dim");
    }
  }
}

TEST(RandomKernel, LargeOutputsAreThreadedWithoutChangingValues) {
  Backend& be = cpu_backend();
  Tensor big = empty({300000});
  be.random(big, RandomKind::Uniform, 0, 1, 7, 5);
  // Element 250000 must be the one the mapping gives, whichever thread wrote it.
  const philox::Block blk = philox::philox4x32_10(5 + 250000, 7);
  EXPECT_EQ(big[250000].item<float>(), static_cast<float>(philox::uniform_float(blk.v[0])));
}

TEST(RandomKernel, Errors) {
  Backend& be = cpu_backend();
  Tensor i = empty({3}, kLong);
  EXPECT_THROW(be.random(i, RandomKind::Uniform, 0, 1, 1, 0), TypeError);
  EXPECT_THROW(be.random(i, RandomKind::RandInt, 5, 5, 1, 0), ValueError);
}

// randint's range check is written once (randint_range, core/backend.h) and must stay on every
// path: both overloads of the front end, and each backend's kernel called directly.
TEST(Random, RandIntRangeIsCheckedOnEveryPath) {
  for (const Device& d : ember::testing::test_devices()) {
    const TensorOptions o = TensorOptions(kLong).device(d);
    EXPECT_THROW(randint(5, 5, {2}, o), ValueError) << d;
    EXPECT_THROW(randint(5, 4, {2}, o), ValueError) << d;
    EXPECT_THROW(randint(0, {2}, o), ValueError) << d;
    EXPECT_THROW(randint(-1, {2}, o), ValueError) << d;
    Tensor t = empty({3}, o);
    EXPECT_THROW(backend_for(t).random(t, RandomKind::RandInt, 5, 5, 1, 0), ValueError) << d;
    EXPECT_THROW(backend_for(t).random(t, RandomKind::RandInt, 5, 4, 1, 0), ValueError) << d;
    try {
      randint(3, 1, {1}, o);
      ADD_FAILURE() << "no error on " << d;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "random_ expects 'from' to be less than 'to', but got from=3 >= to=1"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Random, ManualSeedIsDeterministic) {
  manual_seed(2024);
  Tensor a = rand({1000}), an = randn({50, 3}), ai = randint(0, 10, {100});
  manual_seed(2024);
  Tensor b = rand({1000}), bn = randn({50, 3}), bi = randint(0, 10, {100});
  expect_close(a, b, 0, 0);
  expect_close(an, bn, 0, 0);
  expect_close(ai, bi, 0, 0);
  Tensor c = rand({1000});  // the generator moved on
  EXPECT_FALSE(equal(a, c));
  manual_seed(2025);
  EXPECT_FALSE(equal(rand({1000}), a));
  EXPECT_EQ(initial_seed(), 2025u);
}

TEST(Random, Statistics) {
  manual_seed(7);
  const int64_t n = 1 << 20;
  Tensor u = rand({n});
  EXPECT_NEAR(mean_of(u), 0.5, 0.003);
  EXPECT_NEAR(std_of(u), std::sqrt(1.0 / 12.0), 0.003);
  EXPECT_GE(u.min().item<float>(), 0.0f);
  EXPECT_LT(u.max().item<float>(), 1.0f);

  Tensor g = randn({n}, kDouble);
  EXPECT_NEAR(mean_of(g), 0.0, 0.005);
  EXPECT_NEAR(std_of(g), 1.0, 0.005);
  // Tail mass of a standard normal: P(|x| > 2) = 0.0455.
  EXPECT_NEAR(mean_of(abs(g).gt(2.0).to(kDouble)), 0.0455, 0.002);

  Tensor k = randint(3, 10, {n});
  EXPECT_EQ(k.dtype(), kLong);
  EXPECT_EQ(k.min().item<int64_t>(), 3);
  EXPECT_EQ(k.max().item<int64_t>(), 9);
  EXPECT_NEAR(mean_of(k), 6.0, 0.01);
  for (int64_t v = 3; v < 10; ++v) {
    EXPECT_NEAR(mean_of(k.eq(v).to(kDouble)), 1.0 / 7.0, 0.003) << "value " << v;
  }

  // 16-bit uniform values stay below 1.
  for (ScalarType dt : {kHalf, kBFloat16}) {
    Tensor h = rand({n}, dt);
    EXPECT_LT(h.max().item<float>(), 1.0f) << to_string(dt);
    EXPECT_NEAR(mean_of(h), 0.5, 0.005) << to_string(dt);
  }

  Tensor un = empty({n}, kDouble);
  un.uniform_(-3.0, 5.0);
  EXPECT_GE(un.min().item<double>(), -3.0);
  EXPECT_LT(un.max().item<double>(), 5.0);
  EXPECT_NEAR(mean_of(un), 1.0, 0.02);
  Tensor no = empty({n});
  no.normal_(2.0, 0.5);
  EXPECT_NEAR(mean_of(no), 2.0, 0.003);
  EXPECT_NEAR(std_of(no), 0.5, 0.003);
}

TEST(Arange, MatchesPyTorch) {
  auto r = TorchOracle::instance().run(
      "y0 = torch.arange(5); y1 = torch.arange(1, 2.5, 0.5); y2 = torch.arange(0, 10, 3);"
      "y3 = torch.arange(-1.0, 1.0, 0.1, dtype=torch.float64);"
      "y4 = torch.arange(2**40, 2**40 + 5); y5 = torch.arange(0, 1, 0.25, dtype=torch.bfloat16)",
      {}, {"y0", "y1", "y2", "y3", "y4", "y5"});
  expect_close(arange(5), r.at("y0"), 0, 0);
  expect_close(arange(1, 2.5, 0.5), r.at("y1"), 0, 0);
  expect_close(arange(0, 10, 3), r.at("y2"), 0, 0);
  expect_close(arange(-1.0, 1.0, 0.1, kDouble), r.at("y3"), 1e-15, 1e-15);
  const int64_t big = int64_t(1) << 40;
  expect_close(arange(big, big + 5), r.at("y4"), 0, 0);
  expect_close(arange(0, 1, 0.25, kBFloat16), r.at("y5"), 0, 0);
}
