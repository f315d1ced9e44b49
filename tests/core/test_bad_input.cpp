// Bad input at the public API (issue 26): sizes whose element or byte count overflows, strides
// that point before or beyond their buffer, values a dtype cannot hold. Each is an ember::Error
// naming the values, and the process keeps working afterwards.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ember/ember.h"

using namespace ember;

// Under ASan a failed huge allocation returns nullptr (an OutOfMemoryError here), as glibc's
// does, instead of aborting the process.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}

namespace {

// Runs `f`, which must throw E whose message contains `needle`.
template <typename E, typename F>
void expect_error(F&& f, const std::string& needle, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << what << ": no error";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << what << ": message \"" << e.what() << "\" lacks \"" << needle << "\"";
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": wrong exception type: " << e.what();
  }
}

// The process goes on after the errors: a small computation still works.
void expect_still_working() {
  Tensor x = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(x.sum().item<float>(), 15.f);
  EXPECT_EQ(zeros({3}).fill_(2).sum().item<float>(), 6.f);
}

constexpr int64_t k2e32 = int64_t(1) << 32;
constexpr int64_t k2e62 = int64_t(1) << 62;

}  // namespace

TEST(SizeOverflow, FactoriesRefuseCountsBeyondInt64) {
  const std::string kStorage = "Storage size calculation overflowed with sizes=";
  expect_error<ValueError>([] { zeros({k2e62}); }, kStorage + "[4611686018427387904]",
                           "zeros({2^62})");
  expect_error<ValueError>([] { empty({k2e62}).sum(); }, kStorage + "[4611686018427387904]",
                           "empty({2^62}).sum()");
  expect_error<ValueError>([] { empty({(int64_t(1) << 61) - 1}, kDouble).fill_(1); },
                           kStorage + "[2305843009213693951]", "empty({2^61-1}, kDouble)");
  expect_error<ValueError>(
      [] {
        ones({k2e62, 4}, kByte);
      },
      kStorage + "[4611686018427387904, 4]", "ones({2^62, 4}, kByte)");
  expect_error<ValueError>([] { eye(k2e32); }, "sizes=[4294967296, 4294967296]", "eye(2^32)");
  expect_error<ValueError>([] { linspace(0, 1, k2e62); }, kStorage + "[4611686018427387904]",
                           "linspace(0, 1, 2^62)");
  expect_error<ValueError>([] { arange(0., 4.6e18); }, kStorage + "[4600000000000000000]",
                           "arange(0., 4.6e18)");
  expect_error<ValueError>(
      [] {
        rand({k2e32, k2e32});
      },
      "sizes=[4294967296, 4294967296]", "rand({2^32, 2^32})");
  expect_still_working();
}

TEST(SizeOverflow, EmptyShapesNeedRepresentableStrides) {
  // numel 0, but contiguous strides would be 2^124: refused rather than wrapped.
  expect_error<ValueError>(
      [] {
        empty({0, k2e62, k2e62});
      },
      "sizes=[0, 4611686018427387904, 4611686018427387904]", "empty({0, 2^62, 2^62})");
  // Representable: an empty tensor of huge other dims is fine (as in PyTorch).
  Tensor e = empty({0, k2e62});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.stride(0), k2e62);
  EXPECT_EQ(e.sum().item<float>(), 0.f);
  expect_still_working();
}

TEST(SizeOverflow, ViewsRefuseNumelBeyondInt64) {
  expect_error<ValueError>(
      [] {
        ones({1, 1}).expand({k2e32, k2e32});
      },
      "sizes=[4294967296, 4294967296]", "expand({2^32, 2^32})");
  expect_error<ValueError>(
      [] {
        ones({1, 1}).expand({k2e32, k2e32}).numel();
      },
      "sizes=[4294967296, 4294967296]", "expand(..).numel()");
  // Large but representable expansions stay views.
  Tensor x = ones({1, 1}).expand({k2e32, 4});
  EXPECT_EQ(x.numel(), k2e32 * 4);
  expect_error<ValueError>(
      [] {
        zeros({0}).view({k2e62, k2e62, 0});
      },
      "[4611686018427387904, 4611686018427387904, 0]", "view({2^62, 2^62, 0})");
  expect_error<ValueError>(
      [] {
        zeros({0}).reshape({k2e62, k2e62, 0});
      },
      "[4611686018427387904, 4611686018427387904, 0]", "reshape({2^62, 2^62, 0})");
  expect_still_working();
}

TEST(SizeOverflow, ArangeCountsWithoutOverflow) {
  // The element count of a floating range beyond int64 (the cast from double was undefined).
  expect_error<ValueError>([] { arange(0., 1e300); }, "invalid size, possible overflow?",
                           "arange(0., 1e300)");
  expect_error<ValueError>([] { arange(0., 1e300); }, "end=1e+300", "arange(0., 1e300)");
  expect_error<ValueError>([] { arange(0., 1e19, 1.); }, "invalid size, possible overflow?",
                           "arange(0., 1e19, 1.)");
  // Integer ranges are counted exactly, also where end - start overflows int64.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  expect_error<ValueError>([=] { arange(lo, hi); }, "invalid size, possible overflow?",
                           "arange(INT64_MIN, INT64_MAX)");
  Tensor q = arange(lo, hi, k2e62);
  ASSERT_EQ(q.numel(), 4);
  EXPECT_EQ(q[0].item<int64_t>(), lo);
  EXPECT_EQ(q[3].item<int64_t>(), k2e62);
  // The elements too: start + step * i passes 2^63 on the way to an element that fits, and a
  // start beyond 2^53 is taken as the int64 given, not as its nearest double.
  EXPECT_EQ(q[2].item<int64_t>(), 0);
  Tensor r = arange(hi, lo, -k2e62);
  ASSERT_EQ(r.numel(), 4);
  EXPECT_EQ(r[0].item<int64_t>(), hi);
  EXPECT_EQ(r[3].item<int64_t>(), -k2e62 - 1);  // hi - 3 * 2^62
  Tensor big = arange(hi - 2, hi);
  EXPECT_EQ(big[1].item<int64_t>(), hi - 1);
  EXPECT_EQ(arange(0, 10, hi).numel(), 1);
  EXPECT_EQ(arange(-5, hi, hi).numel(), 2);
  expect_still_working();
}

TEST(SizeOverflow, CpuAllocatorRefusesByteCountsItCannotRound) {
  // Rounding to the 64-byte alignment and the large-block granule wrapped: a 256 KiB block was
  // handed out for a request of 2^64 - 9 bytes.
  for (size_t n : {SIZE_MAX, SIZE_MAX - 8, SIZE_MAX - (size_t(1) << 20)}) {
    expect_error<OutOfMemoryError>([=] { cpu_allocator()->allocate(n); },
                                   "CPU out of memory: tried to allocate " + std::to_string(n),
                                   "cpu_allocator()->allocate(" + std::to_string(n) + ")");
  }
  expect_still_working();
}

TEST(Strides, EmptyStridedRefusesNegativeAndOverflowingStrides) {
  // A negative stride put elements before the buffer (fill_ wrote there: glibc aborted).
  expect_error<ValueError>(
      [] {
        empty_strided({4, 4}, {-1, 10}).fill_(1);
      },
      "empty_strided: Negative strides are not supported at the moment, got strides: [-1, 10]",
      "empty_strided({4, 4}, {-1, 10})");
  // The byte count of the furthest element wrapped (2^62 floats).
  expect_error<ValueError>(
      [] { empty_strided({2}, {k2e62}); },
      "Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]",
      "empty_strided({2}, {2^62})");
  expect_error<ValueError>(
      [] {
        empty_strided({k2e32, k2e32}, {0, 0});
      },
      "sizes=[4294967296, 4294967296]", "empty_strided({2^32, 2^32}, {0, 0})");
  expect_error<ValueError>(
      [] {
        empty_strided({2, -1}, {1, 1});
      },
      "negative dimension -1", "empty_strided({2, -1})");
  // Gaps, overlaps and empty shapes stay fine, and the storage holds the furthest element.
  Tensor t = empty_strided({2, 3}, {1, 2});
  EXPECT_GE(t.impl()->storage()->nbytes, (1 + 1 + 2 * 2) * sizeof(float));
  t.fill_(1);
  EXPECT_EQ(t.sum().item<float>(), 6.f);
  Tensor e = empty_strided({0, 3}, {k2e62, 1});
  EXPECT_EQ(e.numel(), 0);
  expect_still_working();
}

TEST(Strides, FromBlobRefusesNegativeAndOverflowingStrides) {
  float buf[16] = {};
  expect_error<ValueError>(
      [&] {
        from_blob(buf, {4, 4}, {-1, 4});
      },
      "from_blob: Negative strides are not supported at the moment, got "
      "strides: [-1, 4]",
      "from_blob({4, 4}, {-1, 4})");
  expect_error<ValueError>(
      [&] { from_blob(buf, {2}, {k2e62}); },
      "Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]",
      "from_blob({2}, {2^62})");
  Tensor t = from_blob(buf, {2, 2}, {4, 1});
  EXPECT_EQ(t.impl()->storage()->nbytes, (1 + 4 + 1) * sizeof(float));
  expect_still_working();
}

TEST(ScalarRange, FullAndFillRefuseValuesTheDtypeCannotHold) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::string kPhrase = "value cannot be converted to type ";
  // full(NaN, kLong) gave INT64_MIN silently.
  expect_error<ValueError>([=] { full({2}, nan, kLong); },
                           kPhrase + "int64_t without overflow: nan", "full({2}, NAN, kLong)");
  expect_error<ValueError>([] { full({2}, 1e30, kInt); }, kPhrase + "int without overflow: 1e+30",
                           "full({2}, 1e30, kInt)");
  expect_error<ValueError>([=] { full({2}, inf, kLong); }, kPhrase + "int64_t without overflow",
                           "full({2}, inf, kLong)");
  expect_error<ValueError>([] { full({2}, 9.3e18, kLong); }, kPhrase + "int64_t", "9.3e18");
  // 2^63 itself: PyTorch lets it through and wraps to INT64_MIN.
  expect_error<ValueError>([] { full({2}, 9223372036854775808.0, kLong); }, kPhrase + "int64_t",
                           "2^63 to kLong");
  expect_error<ValueError>([] { full({2}, int64_t(1) << 40, kInt); }, kPhrase + "int without",
                           "2^40 to kInt");
  expect_error<ValueError>([] { full({2}, 40000, kShort); }, kPhrase + "int16_t",
                           "40000 to kShort");
  expect_error<ValueError>([] { full({2}, 200, kChar); }, kPhrase + "int8_t", "200 to kChar");
  expect_error<ValueError>([] { full({2}, -129.0, kChar); }, kPhrase + "int8_t", "-129. to kChar");
  expect_error<ValueError>([] { full({2}, 300, kByte); }, kPhrase + "uint8_t", "300 to kByte");
  expect_error<ValueError>([] { full({2}, -256, kByte); }, kPhrase + "uint8_t", "-256 to kByte");
  expect_error<ValueError>([] { full({2}, -1.0, kByte); }, kPhrase + "uint8_t", "-1. to kByte");
  expect_error<ValueError>([] { full({2}, 1e300, kFloat); }, kPhrase + "float", "1e300 to kFloat");
  expect_error<ValueError>([] { full({2}, 1e5, kHalf); }, kPhrase + "at::Half", "1e5 to kHalf");
  expect_error<ValueError>([] { full({2}, 70000, kHalf); }, kPhrase + "at::Half", "70000 to kHalf");
  expect_error<ValueError>([] { full({2}, 1e300, kBFloat16); }, kPhrase + "at::BFloat16",
                           "1e300 to kBFloat16");
  // The same for fill_, zeros_like/full_like, scalar_tensor and masked_fill (a 0-dim full).
  expect_error<ValueError>([=] { zeros({2}, kLong).fill_(nan); }, kPhrase + "int64_t",
                           "fill_(NAN) on kLong");
  expect_error<ValueError>([] { zeros({2}, kInt).fill_(1e30); }, "fill_: " + kPhrase + "int",
                           "fill_(1e30) on kInt");
  expect_error<ValueError>([] { full_like(zeros({2}, kInt), 1e30); }, kPhrase + "int",
                           "full_like(1e30)");
  expect_error<ValueError>([] { scalar_tensor(1e30, kInt); }, kPhrase + "int", "scalar_tensor");
  expect_error<ValueError>([] { zeros({2}, kInt).masked_fill_(ones({2}, kBool), 1e30); },
                           kPhrase + "int", "masked_fill_(1e30) on kInt");
  Tensor unchanged = zeros({2}, kInt);
  EXPECT_THROW(unchanged.fill_(1e30), ValueError);
  EXPECT_EQ(unchanged.abs().sum().item<int64_t>(), 0);  // nothing was written

  // What PyTorch accepts stays accepted, with its values.
  EXPECT_EQ(full({2}, -255, kByte)[0].item<int64_t>(), 1);  // integers wrap into uint8
  EXPECT_EQ(zeros({2}, kByte).fill_(-1)[0].item<int64_t>(), 255);
  EXPECT_EQ(full({2}, 2.9, kLong)[0].item<int64_t>(), 2);  // truncated
  EXPECT_EQ(full({2}, -9223372036854775808.0, kLong)[0].item<int64_t>(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(full({2}, 255.0, kByte)[0].item<int64_t>(), 255);
  EXPECT_EQ(full({2}, 65504.0, kHalf)[0].item<float>(), 65504.f);
  EXPECT_TRUE(std::isinf(full({2}, inf, kFloat)[0].item<float>()));
  EXPECT_TRUE(std::isnan(full({2}, nan, kHalf)[0].item<float>()));
  EXPECT_TRUE(full({2}, nan, kBool)[0].item<bool>());  // anything converts to bool
  EXPECT_TRUE(full({2}, 5, kBool)[0].item<bool>());
  EXPECT_EQ(full({2}, true, kLong)[0].item<int64_t>(), 1);
  EXPECT_EQ(full({2}, std::numeric_limits<int64_t>::max(), kFloat)[0].item<float>(), 9.223372e18f);
  EXPECT_EQ(full({2}, 1e300, kDouble)[0].item<double>(), 1e300);
  expect_still_working();
}

TEST(ScalarRange, IndexPutOfAScalarIsChecked) {
  using namespace ember::indexing;
  Tensor t = zeros({3}, kInt);
  expect_error<ValueError>([&] { t.index_put_({0}, 1e30); },
                           "index_put_: value cannot be converted to type int without overflow",
                           "index_put_({0}, 1e30) on kInt");
  t.index_put_({Slice(1, None)}, 7);
  EXPECT_EQ(t.sum().item<int64_t>(), 14);
}

TEST(SizeOverflow, LoadedShapesGoThroughTheSameCheck) {
  // A safetensors header whose empty tensor has sizes with no representable strides: the loader
  // and make_empty refuse it (UBSan aborted on the stride product before).
  const std::string json =
      R"({"t":{"dtype":"F32","shape":[0,4611686018427387904,4611686018427387904],)"
      R"("data_offsets":[0,0]}})";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((json.size() >> (8 * i)) & 0xff);
  bytes += json;
  try {
    safetensors::load(bytes);
    ADD_FAILURE() << "loaded a shape whose strides overflow";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4611686018427387904"), std::string::npos) << e.what();
  }
  // Its sibling with representable strides loads.
  const std::string ok_json =
      R"({"t":{"dtype":"F32","shape":[0,4611686018427387904,1],"data_offsets":[0,0]}})";
  std::string ok(8, '\0');
  for (int i = 0; i < 8; ++i) ok[i] = static_cast<char>((ok_json.size() >> (8 * i)) & 0xff);
  ok += ok_json;
  EXPECT_EQ(safetensors::load(ok).at("t").numel(), 0);
  expect_still_working();
}

TEST(Strides, AsStridedChecksStridesOffsetAndBounds) {
  Tensor base = arange(6, kFloat);
  expect_error<ValueError>(
      [&] {
        base.as_strided({4, 4}, {-1, 10});
      },
      "as_strided: Negative strides are not supported at the moment, got strides: [-1, 10]",
      "as_strided({4, 4}, {-1, 10})");
  expect_error<ValueError>(
      [&] {
        base.as_strided({4, 4}, {1, 10});
      },
      "as_strided: sizes [4, 4], strides [1, 10], storage offset 0, and "
      "itemsize 4 requiring a storage size of 136 are out of bounds for "
      "storage of size 24",
      "as_strided({4, 4}, {1, 10})");
  expect_error<ValueError>(
      [&] { base.as_strided({2}, {1}, 5); },
      "requiring a storage size of 28 are out of bounds for storage of size 24",
      "as_strided({2}, {1}, 5)");
  expect_error<ValueError>([&] { base.as_strided({2}, {1}, -1); },
                           "as_strided: invalid storage offset -1", "as_strided(.., -1)");
  expect_error<ValueError>(
      [&] {
        base.as_strided({2}, {1, 1});
      },
      "must have the same length", "as_strided({2}, {1, 1})");
  expect_error<ValueError>(
      [&] { base.as_strided({2}, {k2e62}); },
      "Storage size calculation overflowed with sizes=[2] and strides=[4611686018427387904]",
      "as_strided({2}, {2^62})");
  expect_error<ValueError>(
      [] {
        zeros({0}).as_strided({k2e62, k2e62}, {0, 0});
      },
      "sizes=[4611686018427387904, 4611686018427387904]", "as_strided({2^62, 2^62}, {0, 0})");
  expect_error<ValueError>([&] { base.as_strided({-1}, {1}); }, "negative dimension -1",
                           "as_strided({-1}, {1})");

  // Views of the same storage: gaps, overlapping windows, a view's own offset as the default.
  Tensor w = base.as_strided({2, 2}, {1, 2}, 1);  // [[1, 3], [2, 4]]
  EXPECT_EQ(w[1][1].item<float>(), 4.f);
  EXPECT_EQ(w.storage_offset(), 1);
  Tensor windows = ember::as_strided(base, {4, 3}, {1, 1});
  EXPECT_EQ(windows.sum().item<float>(), 3.f + 6.f + 9.f + 12.f);
  EXPECT_EQ(base.slice(0, 2).as_strided({2}, {1})[0].item<float>(), 2.f);
  EXPECT_EQ(base.as_strided({0}, {1}, 100).numel(), 0);  // an empty view needs no storage
  w.fill_(0);
  EXPECT_EQ(base.sum().item<float>(), 5.f);  // 0 + 0 + 0 + 0 + 0 + 5: written through

  // The gradient of overlapping windows of a contiguous tensor counts each element's windows.
  Tensor x = arange(6, kFloat).requires_grad_();
  x.as_strided({4, 3}, {1, 1}).sum().backward();
  EXPECT_EQ(x.grad().to(kLong).sum().item<int64_t>(), 12);
  EXPECT_EQ(x.grad()[0].item<float>(), 1.f);
  EXPECT_EQ(x.grad()[2].item<float>(), 3.f);
  EXPECT_EQ(x.grad()[5].item<float>(), 1.f);
  // Beyond that case the gradient is not implemented (an error, not a wrong gradient).
  Tensor y = arange(6, kFloat).view({2, 3}).requires_grad_();
  expect_error<NotImplementedError>([&] { y.t().as_strided({2}, {1}); }, "as_strided: the gradient",
                                    "as_strided of a transposed leaf");
  expect_still_working();
}

TEST(ViewArithmetic, HugeStepsAndCountsDoNotWrap) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = arange(5, kLong);
  // (end - start + step - 1) / step wrapped: the slice came out empty (as in PyTorch 1.13).
  Tensor s = t.slice(0, 0, 5, big);
  ASSERT_EQ(s.numel(), 1);
  EXPECT_EQ(s[0].item<int64_t>(), 0);
  EXPECT_EQ(t.slice(0, 1, 5, k2e62).numel(), 1);
  {
    using namespace ember::indexing;
    EXPECT_EQ(t.index({Slice(None, None, big)}).numel(), 1);
  }
  // (size + chunks - 1) / chunks wrapped: chunk(INT64_MAX) asked for split(0) and failed.
  EXPECT_EQ(t.chunk(big).size(), 5u);
  EXPECT_EQ(t.split(big).size(), 1u);
  EXPECT_EQ(t.split(big)[0].numel(), 5);
  // As many pieces as no vector holds: an error, not std::length_error.
  EXPECT_THROW(empty({0}).chunk(big), OutOfMemoryError);
  EXPECT_THROW(ones({1}).expand({k2e62}).unbind(0), OutOfMemoryError);
  EXPECT_THROW(ones({1}).expand({k2e62}).split(1), OutOfMemoryError);
  // Strides of new size-1 dims and offsets into empty tensors overflowed (UBSan aborted): an
  // empty tensor may have any strides, and views of it must not multiply them unchecked.
  Tensor e = empty_strided({0, 2}, {k2e62, k2e62});
  Tensor u = e.unsqueeze(1);
  EXPECT_EQ(u.sizes(), IntArrayRef({0, 1, 2}));
  EXPECT_GE(u.stride(1), 0);
  Tensor x = empty_strided({2, 0}, {k2e62, 1}).expand({3, 2, 0});
  EXPECT_EQ(x.numel(), 0);
  EXPECT_EQ(x.stride(0), 0);
  Tensor w = zeros({1}).as_strided({5, 0}, {k2e62, 1});
  Tensor v = w.slice(0, 4);
  EXPECT_EQ(v.numel(), 0);
  EXPECT_GE(v.storage_offset(), 0);
  EXPECT_GE(w.select(0, 3).storage_offset(), 0);
  EXPECT_EQ(w.slice(0, 0, 5, 2).size(0), 3);
  expect_still_working();
}

TEST(SizeOverflow, CatChecksTheSummedSize) {
  // The sizes along dim were summed unchecked: 3 * 2^62 wrapped to -2^62 ("negative dimension").
  Tensor a = ones({1}).expand({k2e62});
  expect_error<ValueError>([&] { cat({a, a, a}); }, "4611686018427387904", "cat of 3 x 2^62");
  expect_error<ValueError>([&] { cat({a, a, a}); }, "overflow", "cat of 3 x 2^62");
  expect_still_working();
}

TEST(SizeOverflow, RandintOverTheWholeInt64Range) {
  // high - low was formed in int64: INT64_MIN..INT64_MAX gave a range of 0 and a division by zero
  // (SIGFPE), -2^62..2^62 a signed overflow.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  Tensor a = randint(lo, hi, {1000}, kLong);
  EXPECT_GT(a.max().item<int64_t>(), int64_t(1) << 60);  // the draws span the range
  EXPECT_LT(a.min().item<int64_t>(), -(int64_t(1) << 60));
  Tensor b = randint(-k2e62, k2e62, {1000}, kLong);
  EXPECT_GE(b.min().item<int64_t>(), -k2e62);
  EXPECT_LT(b.max().item<int64_t>(), k2e62);
  EXPECT_GT(b.max().item<int64_t>(), int64_t(1) << 60);
  expect_still_working();
}

TEST(ViewArithmetic, IndexTensorsAreWrappedWithoutOverflow) {
  // index + size was formed for every entry and where() picked it for the negative ones: signed
  // overflow for an entry near INT64_MAX, or for any positive entry into a dim near INT64_MAX
  // long (UBSan; the fuzz test found both).
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = arange(5, kFloat);
  Tensor idx = tensor(TensorData(std::vector<int64_t>{1, big}), kLong);
  expect_error<IndexError>([&] { t.index({idx}); },
                           "index 9223372036854775807 is out of bounds for dimension 0 with size 5",
                           "index({[1, INT64_MAX]})");
  EXPECT_EQ(t.index({tensor(TensorData(std::vector<int64_t>{-5, 4}), kLong)}).sum().item<float>(),
            4.f);
  Tensor huge = zeros({1}).expand({0, big});  // a view, nothing allocated
  {
    using namespace ember::indexing;
    Tensor r = huge.index({Slice(), tensor(TensorData(std::vector<int64_t>{2, -4}), kLong)});
    EXPECT_EQ(r.sizes(), IntArrayRef({0, 2}));
  }
  expect_still_working();
}
