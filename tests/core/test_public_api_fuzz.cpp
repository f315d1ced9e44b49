// A deterministic randomized test of the public factories, views and indexing (issue 26): random
// shapes (huge and negative sizes among them), strides, dtypes and arguments. Every call must
// either succeed with a consistent tensor (numel is the product of the sizes, every element lies
// in the storage, small results can be read) or throw an ember::Error; anything else (another
// exception, a crash, an ASan or UBSan report in CI's sanitizer stage) fails. Fixed seeds, so a
// failure names the case and the calls that reproduce it.
//
// Calls whose result would be large but could still be allocated (a few GiB) are not made: what
// they do depends on the machine's memory. Byte counts beyond int64 must be errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;
using namespace ember::indexing;

// Under ASan a failed huge allocation returns nullptr (an OutOfMemoryError here), as glibc's
// does, instead of aborting the process.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}

namespace {

using i128 = __int128;
constexpr i128 kInt64Max = std::numeric_limits<int64_t>::max();
constexpr i128 kSmallBytes = i128(1) << 20;  // results up to 1 MiB are allocated
constexpr int64_t kReadable = 4096;          // results up to this many elements are read

const std::vector<ScalarType> kDtypes = {kByte, kChar,  kShort,  kInt,  kLong,
                                         kHalf, kFloat, kDouble, kBool, kBFloat16};

class Fuzz {
 public:
  explicit Fuzz(uint64_t seed) : rng_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool chance(int percent) { return uniform(0, 99) < percent; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(uniform(0, static_cast<int64_t>(v.size()) - 1))];
  }

  // Mostly small, sometimes at or beyond the edges of int64 arithmetic.
  int64_t size() {
    static const std::vector<int64_t> kEdges = {-1,
                                                -2,
                                                std::numeric_limits<int64_t>::min(),
                                                int64_t(1) << 31,
                                                int64_t(1) << 32,
                                                int64_t(1) << 40,
                                                int64_t(1) << 61,
                                                int64_t(1) << 62,
                                                (int64_t(1) << 61) - 1,
                                                3037000500 /* ~sqrt(2^63) */,
                                                std::numeric_limits<int64_t>::max()};
    return chance(12) ? pick(kEdges) : uniform(0, 5);
  }
  int64_t stride() {
    static const std::vector<int64_t> kEdges = {-1,
                                                -10,
                                                int64_t(1) << 31,
                                                int64_t(1) << 40,
                                                int64_t(1) << 62,
                                                std::numeric_limits<int64_t>::max()};
    return chance(12) ? pick(kEdges) : uniform(0, 6);
  }
  // An index or dim argument: mostly in a small range around 0, sometimes extreme.
  int64_t index(int64_t span) {
    static const std::vector<int64_t> kEdges = {std::numeric_limits<int64_t>::min(),
                                                std::numeric_limits<int64_t>::max(),
                                                int64_t(1) << 62, -(int64_t(1) << 62)};
    return chance(8) ? pick(kEdges) : uniform(-span - 1, span + 1);
  }
  std::vector<int64_t> shape(int max_rank = 4) {
    std::vector<int64_t> s(static_cast<size_t>(uniform(0, max_rank)));
    for (auto& d : s) d = size();
    return s;
  }
  ScalarType dtype() { return pick(kDtypes); }
  double value() {
    static const std::vector<double> kValues = {0,
                                                1,
                                                -1,
                                                2.5,
                                                255,
                                                256,
                                                -129,
                                                65504,
                                                1e5,
                                                1e30,
                                                1e300,
                                                -1e300,
                                                9.3e18,
                                                std::numeric_limits<double>::quiet_NaN(),
                                                std::numeric_limits<double>::infinity(),
                                                -std::numeric_limits<double>::infinity()};
    return pick(kValues);
  }

 private:
  std::mt19937_64 rng_;
};

std::string str(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << IntArrayRef(v);
  return os.str();
}

// The contiguous byte count of `sizes`, or -1 for a negative size, kInt64Max + 1 when the
// count or its strides overflow int64.
i128 contiguous_bytes(const std::vector<int64_t>& sizes, ScalarType dtype) {
  i128 span = 1, numel = 1;
  for (int64_t s : sizes) {
    if (s < 0) return -1;
    numel *= s;
    span *= s > 1 ? s : 1;
    if (span > kInt64Max) return kInt64Max + 1;
  }
  const i128 bytes = numel * static_cast<i128>(element_size(dtype));
  return bytes > kInt64Max ? kInt64Max + 1 : bytes;
}

// The checks every returned tensor must pass.
void expect_consistent(const Tensor& t, const std::string& ctx) {
  ASSERT_TRUE(t.defined()) << ctx;
  const IntArrayRef sizes = t.sizes(), strides = t.strides();
  ASSERT_EQ(sizes.size(), strides.size()) << ctx;
  ASSERT_EQ(static_cast<int64_t>(sizes.size()), t.dim()) << ctx;
  i128 numel = 1, lo = t.storage_offset(), hi = t.storage_offset();
  for (size_t d = 0; d < sizes.size(); ++d) {
    ASSERT_GE(sizes[d], 0) << ctx;
    numel *= sizes[d];
    ASSERT_LE(numel, kInt64Max) << ctx;
  }
  ASSERT_EQ(numel, static_cast<i128>(t.numel()))
      << ctx << ": numel is not the product of " << t.sizes();
  if (numel == 0) return;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const i128 reach = static_cast<i128>(sizes[d] - 1) * strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  ASSERT_GE(lo, 0) << ctx << ": an element lies before the storage (sizes " << t.sizes()
                   << ", strides " << t.strides() << ", offset " << t.storage_offset() << ")";
  const i128 need = (hi + 1) * static_cast<i128>(t.element_size());
  ASSERT_LE(need, static_cast<i128>(t.impl()->storage()->nbytes))
      << ctx << ": an element lies beyond the storage (sizes " << t.sizes() << ", strides "
      << t.strides() << ", offset " << t.storage_offset() << ")";
}

// Reads every byte of every element of a small tensor through its strides (ASan sees any access
// outside its buffer), then a contiguous copy. Raw bytes, not values: the contents of empty() are
// undefined, and an undefined byte loaded as a bool is undefined behaviour that UBSan reports.
void read_all(const Tensor& t, const std::string& ctx) {
  if (t.numel() > kReadable) return;
  const auto* base = static_cast<const unsigned char*>(t.data_ptr());
  const int64_t item = static_cast<int64_t>(t.element_size());
  unsigned sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t offset = 0, rest = i;  // element i in row-major order
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      offset += rest % t.size(d) * t.stride(d);
      rest /= t.size(d);
    }
    for (int64_t b = 0; b < item; ++b) sum += base[offset * item + b];
  }
  volatile unsigned sink = sum;
  (void)sink;
  if (t.dtype() == kBool) return;  // see above: its copy would load the bytes as bools
  Tensor c = t.contiguous();
  ASSERT_EQ(c.numel(), t.numel()) << ctx;
  (void)c.to(kDouble).sum().item<double>();
}

// What the calls did, to show that the cases reach both outcomes.
struct Counts {
  int ok = 0, errors = 0, skipped = 0;
};
Counts g_counts;

// Runs one call: success is checked for consistency, an ember::Error is an answer, anything
// else fails. `must_throw`: the arguments overflow int64, so success would be a wrong result.
template <typename F>
std::optional<Tensor> attempt(const std::string& ctx, F&& f, bool must_throw = false) {
  try {
    Tensor t = f();
    EXPECT_FALSE(must_throw) << ctx << ": succeeded where the sizes overflow int64, sizes "
                             << t.sizes() << " strides " << t.strides();
    expect_consistent(t, ctx);
    if (::testing::Test::HasFatalFailure()) return std::nullopt;
    read_all(t, ctx);
    ++g_counts.ok;
    return t;
  } catch (const Error&) {
    ++g_counts.errors;
    return std::nullopt;
  } catch (const std::exception& e) {
    ADD_FAILURE() << ctx << ": threw a non-ember exception: " << e.what();
  }
  return std::nullopt;
}

TensorOptions opts(ScalarType dt) {
  return TensorOptions().dtype(dt);
}

// A factory call with random arguments; the tensor when it succeeded.
std::optional<Tensor> random_factory(Fuzz& fz, std::string& log) {
  const ScalarType dt = fz.dtype();
  const std::string dts = std::string(", ") + to_string(dt);
  const int which = static_cast<int>(fz.uniform(0, 10));
  if (which <= 5) {  // the shape factories
    std::vector<int64_t> shape = fz.shape();
    const i128 bytes = contiguous_bytes(shape, dt);
    if (bytes > kSmallBytes && bytes <= kInt64Max) return std::nullopt;  // machine-dependent
    const bool overflow = bytes > kInt64Max;
    const double v = fz.value();
    static const char* kNames[] = {"empty", "zeros", "ones", "full", "rand", "randint"};
    log += std::string(kNames[which]) + "(" + str(shape) + dts +
           (which == 3 ? ", " + std::to_string(v) : "") + ")";
    return attempt(
        log,
        [&] {
          switch (which) {
            case 0:
              return empty(shape, opts(dt));
            case 1:
              return zeros(shape, opts(dt));
            case 2:
              return ones(shape, opts(dt));
            case 3:
              return full(shape, v, opts(dt));
            case 4:
              return rand(shape, opts(dt));
            default:
              return randint(-3, 3, shape, opts(dt));
          }
        },
        overflow);
  }
  if (which == 6) {  // eye
    const int64_t n = fz.size(), m = fz.size();
    log += "eye(" + std::to_string(n) + ", " + std::to_string(m) + dts + ")";
    const i128 bytes = contiguous_bytes({n, m}, dt);
    if (bytes > kSmallBytes && bytes <= kInt64Max) return std::nullopt;
    return attempt(
        log, [&] { return eye(n, m, opts(dt)); }, bytes > kInt64Max);
  }
  if (which == 7) {  // linspace
    const int64_t steps = fz.size();
    log += "linspace(0, 1, " + std::to_string(steps) + dts + ")";
    const i128 bytes = contiguous_bytes({steps}, dt);
    if (bytes > kSmallBytes && bytes <= kInt64Max) return std::nullopt;
    return attempt(
        log, [&] { return linspace(0, 1, steps, opts(dt)); }, bytes > kInt64Max);
  }
  if (which == 8) {  // arange over doubles
    static const std::vector<double> kEnds = {0,
                                              10,
                                              -5,
                                              1e18,
                                              4.6e18,
                                              1e300,
                                              std::numeric_limits<double>::quiet_NaN(),
                                              std::numeric_limits<double>::infinity()};
    static const std::vector<double> kSteps = {1,
                                               0.5,
                                               -1,
                                               0,
                                               1e-300,
                                               3,
                                               std::numeric_limits<double>::quiet_NaN(),
                                               std::numeric_limits<double>::infinity()};
    const double s = fz.pick(kEnds), e = fz.pick(kEnds), st = fz.pick(kSteps);
    std::ostringstream os;
    os << "arange(" << s << ", " << e << ", " << st << dts << ")";
    log += os.str();
    const long double count = std::ceil((static_cast<long double>(e) - s) / st);
    const long double bytes = count * element_size(dt);
    if (std::isfinite(count) && count > 0 && bytes > kSmallBytes && bytes < 9.2e18L) {
      return std::nullopt;
    }
    return attempt(
        log, [&] { return arange(s, e, st, opts(dt)); },
        std::isfinite(bytes) && bytes >= 9.3e18L && std::isfinite(s) && std::isfinite(e));
  }
  if (which == 9) {  // empty_strided
    std::vector<int64_t> shape = fz.shape(3), strides(shape.size());
    for (auto& s : strides) s = fz.stride();
    log += "empty_strided(" + str(shape) + ", " + str(strides) + dts + ")";
    bool negative = false, empty_shape = false;
    i128 extent = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      negative |= shape[i] < 0 || strides[i] < 0;
      empty_shape |= shape[i] == 0;
      if (shape[i] > 0 && strides[i] >= 0) extent += static_cast<i128>(shape[i] - 1) * strides[i];
    }
    const i128 bytes = empty_shape ? 0 : extent * static_cast<i128>(element_size(dt));
    const bool span_overflow = contiguous_bytes(shape, kByte) > kInt64Max;
    if (!negative && !span_overflow && bytes > kSmallBytes && bytes <= kInt64Max) {
      return std::nullopt;
    }
    return attempt(
        log, [&] { return empty_strided(shape, strides, opts(dt)); },
        !negative && (span_overflow || bytes > kInt64Max));
  }
  // from_blob over a small buffer: only the metadata is checked, nothing is read.
  static double buffer[64];
  std::vector<int64_t> shape = fz.shape(3), strides(shape.size());
  for (auto& s : strides) s = fz.stride();
  log += "from_blob(" + str(shape) + ", " + str(strides) + dts + ")";
  try {
    Tensor t = from_blob(buffer, shape, strides, opts(dt));
    expect_consistent(t, log);
  } catch (const Error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << log << ": threw a non-ember exception: " << e.what();
  }
  return std::nullopt;
}

// A small tensor to apply views to.
Tensor random_base(Fuzz& fz, std::string& log) {
  std::vector<int64_t> shape(static_cast<size_t>(fz.uniform(0, 4)));
  for (auto& d : shape) d = fz.uniform(0, 4);
  const ScalarType dt = fz.dtype();
  log += "arange(" + str(shape) + ", " + to_string(dt) + ")";
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Tensor t = arange(n, opts(kLong)).to(dt).view(shape);
  if (fz.chance(30) && t.dim() >= 2) {  // a non-contiguous layout
    log += ".transpose(0, 1)";
    t = t.transpose(0, 1);
  }
  return t;
}

// One view or indexing call on `t`.
std::optional<Tensor> random_view(Fuzz& fz, const Tensor& t, std::string& log) {
  const int64_t nd = t.dim();
  const bool small = t.numel() <= kReadable;  // calls that copy or loop over a dim need this
  auto dim = [&] { return fz.index(nd); };
  auto one = [&](const std::string& call, auto&& f) {
    log += "." + call;
    return attempt(log, f);
  };
  switch (fz.uniform(0, 17)) {
    case 0: {
      std::vector<int64_t> s = fz.shape();
      if (fz.chance(50) && !s.empty()) s[static_cast<size_t>(fz.uniform(0, s.size() - 1))] = -1;
      return one("view(" + str(s) + ")", [&] { return t.view(s); });
    }
    case 1: {
      if (!small) return std::nullopt;
      std::vector<int64_t> s = fz.shape();
      if (fz.chance(50) && !s.empty()) s[static_cast<size_t>(fz.uniform(0, s.size() - 1))] = -1;
      return one("reshape(" + str(s) + ")", [&] { return t.reshape(s); });
    }
    case 2: {
      std::vector<int64_t> s = fz.shape(5);
      for (size_t i = 0; i < s.size() && fz.chance(40); ++i) s[i] = -1;
      return one("expand(" + str(s) + ")", [&] { return t.expand(s); });
    }
    case 3: {
      std::vector<int64_t> s = fz.shape(4), st(s.size());
      for (auto& x : st) x = fz.stride();
      const bool with_offset = fz.chance(40);
      const int64_t off = with_offset ? fz.index(8) : 0;
      return one("as_strided(" + str(s) + ", " + str(st) +
                     (with_offset ? ", " + std::to_string(off) : "") + ")",
                 [&] { return with_offset ? t.as_strided(s, st, off) : t.as_strided(s, st); });
    }
    case 4: {
      const int64_t d = dim(), a = fz.index(6), b = fz.index(6);
      const int64_t step = fz.chance(10) ? fz.index(6) : fz.uniform(1, 3);
      return one("slice(" + std::to_string(d) + ", " + std::to_string(a) + ", " +
                     std::to_string(b) + ", " + std::to_string(step) + ")",
                 [&] { return t.slice(d, a, b, step); });
    }
    case 5: {
      const int64_t d = dim(), i = fz.index(4);
      return one("select(" + std::to_string(d) + ", " + std::to_string(i) + ")",
                 [&] { return t.select(d, i); });
    }
    case 6: {
      const int64_t d = dim(), a = fz.index(4), l = fz.index(4);
      return one(
          "narrow(" + std::to_string(d) + ", " + std::to_string(a) + ", " + std::to_string(l) + ")",
          [&] { return t.narrow(d, a, l); });
    }
    case 7: {
      const int64_t a = dim(), b = dim();
      return one("transpose(" + std::to_string(a) + ", " + std::to_string(b) + ")",
                 [&] { return t.transpose(a, b); });
    }
    case 8: {
      std::vector<int64_t> p(static_cast<size_t>(fz.chance(80) ? nd : fz.uniform(0, 5)));
      for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int64_t>(i);
      std::shuffle(p.begin(), p.end(), std::mt19937_64(static_cast<uint64_t>(fz.uniform(0, 1000))));
      if (fz.chance(20) && !p.empty()) p[0] = fz.index(nd);
      return one("permute(" + str(p) + ")", [&] { return t.permute(p); });
    }
    case 9: {
      const int64_t d = fz.index(nd + 1);
      return one("unsqueeze(" + std::to_string(d) + ")", [&] { return t.unsqueeze(d); });
    }
    case 10: {
      const int64_t d = dim();
      return fz.chance(50)
                 ? one("squeeze()", [&] { return t.squeeze(); })
                 : one("squeeze(" + std::to_string(d) + ")", [&] { return t.squeeze(d); });
    }
    case 11: {
      if (!small) return std::nullopt;
      const int64_t a = dim(), b = dim();
      return one("flatten(" + std::to_string(a) + ", " + std::to_string(b) + ")",
                 [&] { return t.flatten(a, b); });
    }
    case 12:
      return one("t()", [&] { return t.t(); });
    case 13: {  // basic subscripts: views
      std::vector<TensorIndex> idx;
      std::string desc;
      const int64_t k = fz.uniform(0, 4);
      for (int64_t i = 0; i < k; ++i) {
        switch (fz.uniform(0, 4)) {
          case 0: {
            const int64_t v = fz.index(4);
            idx.emplace_back(v);
            desc += std::to_string(v);
            break;
          }
          case 1: {
            const int64_t a = fz.index(6), b = fz.index(6);
            const int64_t st = fz.chance(10) ? fz.index(4) : fz.uniform(1, 3);
            if (st == 0) {
              desc += "Slice(step 0)";
              idx.emplace_back(Slice());
              break;
            }
            idx.emplace_back(Slice(a, b, st));
            desc += "Slice(" + std::to_string(a) + ", " + std::to_string(b) + ", " +
                    std::to_string(st) + ")";
            break;
          }
          case 2:
            idx.emplace_back(None);
            desc += "None";
            break;
          case 3:
            idx.emplace_back(Ellipsis);
            desc += "...";
            break;
          default: {
            const bool b = fz.chance(50);
            idx.emplace_back(b);
            desc += b ? "true" : "false";
          }
        }
        desc += ", ";
      }
      return one("index({" + desc + "})", [&] { return t.index(idx); });
    }
    case 14: {  // advanced indexing: copies
      if (!small) return std::nullopt;
      std::vector<int64_t> shape = fz.shape(2);
      for (auto& s : shape) s = s < 0 || s > 5 ? 2 : s;
      const int64_t hi = fz.chance(10) ? fz.index(4) : 4;
      const int64_t lo = fz.chance(10) ? fz.index(4) : -4;
      if (lo >= hi) return std::nullopt;
      Tensor i = randint(lo, hi, shape, opts(kLong));
      std::vector<TensorIndex> idx;
      if (fz.chance(50)) idx.emplace_back(Slice());
      idx.emplace_back(i);
      return one("index({" + std::string(idx.size() == 2 ? "Slice(), " : "") + "randint(" +
                     std::to_string(lo) + ", " + std::to_string(hi) + ", " + str(shape) + ")})",
                 [&] { return t.index(idx); });
    }
    case 15: {
      if (!small) return std::nullopt;
      const int64_t d = dim();
      Tensor i = tensor(TensorData(std::vector<int64_t>{fz.index(3), fz.index(3)}), opts(kLong));
      return one("index_select(" + std::to_string(d) + ", [" +
                     std::to_string(i[0].item<int64_t>()) + ", " +
                     std::to_string(i[1].item<int64_t>()) + "])",
                 [&] { return t.index_select(d, i); });
    }
    case 16: {  // split / chunk / unbind: as many pieces as a dim is long
      if (!small) return std::nullopt;
      const int64_t d = dim(), k = fz.index(3);
      log += ".split/chunk/unbind(" + std::to_string(k) + ", " + std::to_string(d) + ")";
      try {
        std::vector<Tensor> parts = fz.chance(33)   ? t.split(k, d)
                                    : fz.chance(50) ? t.chunk(k, d)
                                                    : t.unbind(d);
        for (const Tensor& p : parts) expect_consistent(p, log);
        if (!parts.empty()) return parts[0];
      } catch (const Error&) {
      } catch (const std::exception& e) {
        ADD_FAILURE() << log << ": threw a non-ember exception: " << e.what();
      }
      return std::nullopt;
    }
    default: {  // writes of a scalar: fill_, masked_fill, index_put_
      if (!small) return std::nullopt;
      const double v = fz.value();
      Tensor c = t.clone();
      log += ".clone().fill_/masked_fill_/index_put_(" + std::to_string(v) + ")";
      return attempt(log, [&] {
        switch (fz.uniform(0, 2)) {
          case 0:
            c.fill_(v);
            break;
          case 1:
            c.masked_fill_(ones(c.sizes(), opts(kBool)), v);
            break;
          default:
            c.index_put_({Ellipsis}, v);
        }
        return c;
      });
    }
  }
}

// `cases` chains of a factory or base tensor and up to six views, from `seed`.
void run_cases(uint64_t seed, int cases) {
  Fuzz fz(seed);
  g_counts = Counts();
  for (int c = 0; c < cases; ++c) {
    std::string log = "seed " + std::to_string(seed) + " case " + std::to_string(c) + ": ";
    std::optional<Tensor> t;
    if (fz.chance(35)) {
      t = random_factory(fz, log);
    } else {
      t = random_base(fz, log);
    }
    if (::testing::Test::HasFatalFailure()) return;
    // Up to six calls, each on the last tensor that a call returned.
    const int64_t steps = fz.uniform(0, 6);
    for (int64_t s = 0; s < steps && t; ++s) {
      std::string step_log = log;
      if (std::optional<Tensor> next = random_view(fz, *t, step_log)) {
        t = next;
        log = step_log;
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Both outcomes are reached often, so the cases keep testing something.
  EXPECT_GT(g_counts.ok, cases / 2);
  EXPECT_GT(g_counts.errors, cases / 2);
  std::printf("seed %llu: %d calls succeeded, %d were errors\n",
              static_cast<unsigned long long>(seed), g_counts.ok, g_counts.errors);
}

}  // namespace

// 4 x 500 cases (and 100 more below); each seed is its own test, so a failure names it.
TEST(PublicApiFuzz, Seed1) {
  run_cases(1, 500);
}
TEST(PublicApiFuzz, Seed2) {
  run_cases(2, 500);
}
TEST(PublicApiFuzz, Seed3) {
  run_cases(3, 500);
}
TEST(PublicApiFuzz, Seed4) {
  run_cases(4, 500);
}

// The process keeps working after the errors.
TEST(PublicApiFuzz, StillWorksAfterwards) {
  run_cases(5, 100);
  EXPECT_EQ(arange(6, opts(kFloat)).view({2, 3}).sum().item<float>(), 15.f);
}
