// The CUDA elementwise loop's four paths (src/cuda_policy/elementwise_path.h): the host-side
// choice, unit-tested in every build, and the kernels of each path against the CPU, bit for bit,
// on every CUDA device (simulated in CI): unary, binary (tensor, broadcast, device 0-dim and host
// scalar operands), casts (into offset views too), fill, over sizes around the vector widths and
// layouts that take each path. The Strided64 kernel runs on small tensors through the test hook.
// Also: 16-bit float conversions over every half/bfloat16 bit pattern, rounding ties and NaN
// payloads (native conversions on sm_80+ GPUs must match the CPU's bit arithmetic), and 16-bit
// atomic adds (native on sm_80+).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/backend.h"
#include "cuda_policy/elementwise_path.h"
#include "ember/ember.h"
#include "kernel_math/strided_layout.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

using cuda_policy::ElementwisePath;
using cuda_policy::select_elementwise_path;
using cuda_policy::VectorForm;

// ---- the host-side choice ----

// The vector form launch_elementwise derives for a functor with these operand element sizes
// (output first): one 16-byte access of the widest operand.
template <int N>
VectorForm<N> form_of(std::array<int64_t, N> sizes) {
  VectorForm<N> f;
  int64_t widest = 0;
  for (int k = 0; k < N; ++k) {
    f.elem_size[k] = sizes[k];
    widest = std::max(widest, sizes[k]);
  }
  f.width = static_cast<int>(16 / widest);
  return f;
}

template <int N>
ElementwisePath path_of(std::array<const Tensor*, N> ops, const VectorForm<N>& form) {
  return select_elementwise_path<N>(make_layout<N>(ops), form);
}

// A float buffer whose data pointer is 16-byte aligned (checked, not assumed).
Tensor aligned_floats(int64_t n) {
  Tensor t = empty({n + 4});
  const auto misalign = reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 / sizeof(float);
  Tensor v = t.slice(0, static_cast<int64_t>((4 - misalign) % 4),
                     static_cast<int64_t>((4 - misalign) % 4) + n);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data_ptr()) % 16, 0u);
  return v;
}

TEST(ElementwisePathSelection, ContiguousAlignedOperandsAreVectorized) {
  Tensor out = aligned_floats(1000), a = aligned_floats(1000), b = aligned_floats(1000);
  EXPECT_EQ(path_of<3>({&out, &a, &b}, form_of<3>({4, 4, 4})), ElementwisePath::Vectorized);
  // Multi-dim contiguous tensors coalesce to one dim.
  Tensor o2 = out.view({10, 100}), a2 = a.view({10, 100}), b2 = b.view({10, 100});
  EXPECT_EQ(path_of<3>({&o2, &a2, &b2}, form_of<3>({4, 4, 4})), ElementwisePath::Vectorized);
  // A functor without a vector form takes the 32-bit linear path.
  EXPECT_EQ(path_of<3>({&out, &a, &b}, VectorForm<3>{}), ElementwisePath::Linear32);
}

TEST(ElementwisePathSelection, AnOffsetThatBreaksAlignmentFallsBackToLinear32) {
  Tensor buf = aligned_floats(1001), out = aligned_floats(1000);
  Tensor shifted = buf.slice(0, 1, 1001);  // 4 bytes past a 16-byte boundary
  EXPECT_EQ(path_of<2>({&out, &shifted}, form_of<2>({4, 4})), ElementwisePath::Linear32);
  EXPECT_EQ(path_of<2>({&shifted, &out}, form_of<2>({4, 4})), ElementwisePath::Linear32);
  // Four floats in: a whole vector, aligned again.
  Tensor buf2 = aligned_floats(1004);
  Tensor whole = buf2.slice(0, 4, 1004);
  EXPECT_EQ(path_of<2>({&out, &whole}, form_of<2>({4, 4})), ElementwisePath::Vectorized);
  // float -> half cast: width 4, so the half output needs only 8-byte alignment.
  Tensor h = empty({1008}, TensorOptions().dtype(kHalf));
  ASSERT_EQ(reinterpret_cast<uintptr_t>(h.data_ptr()) % 16, 0u);
  Tensor h4 = h.slice(0, 4, 1004), h1 = h.slice(0, 1, 1001);
  EXPECT_EQ(path_of<2>({&h4, &out}, form_of<2>({2, 4})), ElementwisePath::Vectorized);
  EXPECT_EQ(path_of<2>({&h1, &out}, form_of<2>({2, 4})), ElementwisePath::Linear32);
}

TEST(ElementwisePathSelection, BroadcastAndStridedOperands) {
  Tensor out = aligned_floats(64 * 32).view({64, 32}), a = aligned_floats(64 * 32).view({64, 32});
  Tensor row = aligned_floats(32);
  // A row broadcast over a matrix: 2-D, 32-bit div/mod.
  EXPECT_EQ(path_of<3>({&out, &a, &row}, form_of<3>({4, 4, 4})), ElementwisePath::Strided32);
  // Transposed input.
  Tensor at = a.view({32, 64}).transpose(0, 1);
  EXPECT_EQ(path_of<2>({&out, &at}, form_of<2>({4, 4})), ElementwisePath::Strided32);
  // Every other element: 1-D, no division, but not unit-strided.
  Tensor every_other = aligned_floats(64 * 64).view({64, 64}).slice(1, 0, 64, 2);
  EXPECT_EQ(path_of<2>({&out, &every_other}, form_of<2>({4, 4})), ElementwisePath::Linear32);
  // One device value broadcast over everything (a 0-dim tensor): read once, still vectorized,
  // on either side.
  Tensor value = aligned_floats(1).view({});
  EXPECT_EQ(path_of<3>({&out, &a, &value}, form_of<3>({4, 4, 4})), ElementwisePath::Vectorized);
  EXPECT_EQ(path_of<3>({&out, &value, &a}, form_of<3>({4, 4, 4})), ElementwisePath::Vectorized);
  // A broadcast output is never vectorized (it would be written by many threads at once).
  Tensor out_value = aligned_floats(1).view({}).expand({64, 32});
  EXPECT_NE(path_of<2>({&out_value, &a}, form_of<2>({4, 4})), ElementwisePath::Vectorized);
}

TEST(ElementwisePathSelection, HostScalarOperandOfABinaryOp) {
  // binary.cu passes a 0-dim CPU operand by value: the layout is {out, tensor} and the functor's
  // form has two operands.
  Tensor out = aligned_floats(1027), a = aligned_floats(1027);
  EXPECT_EQ(path_of<2>({&out, &a}, form_of<2>({4, 4})), ElementwisePath::Vectorized);
  // Comparison with a scalar: float in, bool out, four elements per thread.
  Tensor mask = empty({1027}, TensorOptions().dtype(kBool));
  ASSERT_EQ(reinterpret_cast<uintptr_t>(mask.data_ptr()) % 16, 0u);
  EXPECT_EQ(path_of<2>({&mask, &a}, form_of<2>({1, 4})), ElementwisePath::Vectorized);
  // One element (every dim of size 1): the scalar tail alone.
  Tensor one = aligned_floats(1).view({1, 1}), one_out = aligned_floats(1).view({1, 1});
  EXPECT_EQ(path_of<2>({&one_out, &one}, form_of<2>({4, 4})), ElementwisePath::Vectorized);
}

TEST(ElementwisePathSelection, BeyondThirtyTwoBitsTakesTheSixtyFourBitPath) {
  // Layouts built by hand: no 8 GiB tensor is allocated.
  alignas(16) static float storage[4];
  auto linear = [](int64_t numel) {
    StridedLayout<2> L;
    L.ndim = 1;
    L.numel = numel;
    L.sizes[0] = numel;
    for (int k = 0; k < 2; ++k) {
      L.strides[k][0] = 4;
      L.base[k] = reinterpret_cast<char*>(storage);
    }
    return L;
  };
  const auto form = form_of<2>({4, 4});
  EXPECT_EQ(select_elementwise_path<2>(linear((int64_t(1) << 31) - 1), form),
            ElementwisePath::Vectorized);
  EXPECT_EQ(select_elementwise_path<2>(linear(int64_t(1) << 31), form), ElementwisePath::Strided64);
  EXPECT_EQ(select_elementwise_path<2>(linear(int64_t(3) << 31), VectorForm<2>{}),
            ElementwisePath::Strided64);
  // Without a vector form numel fits but a byte offset may not: the last of 2^29 + 1 floats is
  // 2^31 bytes in, the last of 2^29 at 2^31 - 4.
  EXPECT_EQ(select_elementwise_path<2>(linear((int64_t(1) << 29) + 1), VectorForm<2>{}),
            ElementwisePath::Strided64);
  EXPECT_EQ(select_elementwise_path<2>(linear(int64_t(1) << 29), VectorForm<2>{}),
            ElementwisePath::Linear32);
  // The vectorized path indexes whole vectors: byte offsets may exceed 32 bits.
  EXPECT_EQ(select_elementwise_path<2>(linear((int64_t(1) << 29) + 1), form),
            ElementwisePath::Vectorized);
  // 2-D: a row stride of 2^31 bytes.
  StridedLayout<2> L;
  L.ndim = 2;
  L.numel = 6;
  L.sizes[0] = 2;
  L.sizes[1] = 3;
  for (int k = 0; k < 2; ++k) {
    L.strides[k][0] = int64_t(1) << 31;
    L.strides[k][1] = 4;
    L.base[k] = reinterpret_cast<char*>(storage);
  }
  EXPECT_EQ(select_elementwise_path<2>(L, form), ElementwisePath::Strided64);
  L.strides[1][0] = 12;  // the second operand is small, the first still is not
  EXPECT_EQ(select_elementwise_path<2>(L, form), ElementwisePath::Strided64);
  L.strides[0][0] = 12;
  EXPECT_EQ(select_elementwise_path<2>(L, form), ElementwisePath::Strided32);
}

TEST(ElementwisePathSelection, TheTestHookOnlyEverSlowsThePathDown) {
  using cuda_policy::slower_path;
  EXPECT_EQ(cuda_policy::fastest_elementwise_path(), ElementwisePath::Vectorized);
  EXPECT_EQ(slower_path(ElementwisePath::Vectorized, ElementwisePath::Strided64),
            ElementwisePath::Strided64);
  EXPECT_EQ(slower_path(ElementwisePath::Strided64, ElementwisePath::Vectorized),
            ElementwisePath::Strided64);
  EXPECT_EQ(slower_path(ElementwisePath::Strided32, ElementwisePath::Linear32),
            ElementwisePath::Strided32);
  EXPECT_STREQ(cuda_policy::to_string(ElementwisePath::Linear32), "Linear32");
}

// ---- the kernels against the CPU ----

const std::vector<ScalarType> kDtypes = {kFloat, kDouble, kHalf, kBFloat16,
                                         kInt,   kLong,   kByte, kBool};
// Around the vector widths (2 to 16 elements) and the 256-thread block.
const std::vector<int64_t> kSizes = {0, 1, 3, 4, 5, 1023, 1024, 4097};

enum class Layout { Contiguous, Offset, Strided };
const std::vector<Layout> kLayouts = {Layout::Contiguous, Layout::Offset, Layout::Strided};

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous:
      return "contiguous";
    case Layout::Offset:
      return "offset by one element";
    case Layout::Strided:
      return "strided";
  }
  return "?";
}

// n elements as a matrix where n factors (so Strided transposes it), else as a vector.
std::vector<int64_t> shape_for(int64_t n) {
  for (auto r = static_cast<int64_t>(std::sqrt(static_cast<double>(n))); r > 1; --r) {
    if (n % r == 0) return {r, n / r};
  }
  return {n};
}

// The values of `t` (on its device) laid out as asked: contiguous; contiguous but one element
// into its buffer (no longer 16-byte aligned); transposed in memory, or every other element of a
// vector (non_contiguous).
Tensor laid_out(const Tensor& t, Layout layout) {
  switch (layout) {
    case Layout::Contiguous:
      return t.contiguous();
    case Layout::Offset: {
      Tensor buffer = empty({t.numel() + 1}, t.options());
      Tensor v = buffer.slice(0, 1, t.numel() + 1).view(t.sizes());
      v.copy_(t);
      return v;
    }
    case Layout::Strided:
      return non_contiguous(t);
  }
  return t;
}

// The paths launch_elementwise may take; Strided64 forced through the test hook.
class PathCap {
 public:
  explicit PathCap(ElementwisePath fastest) { cuda_policy::set_fastest_elementwise_path(fastest); }
  ~PathCap() { cuda_policy::set_fastest_elementwise_path(ElementwisePath::Vectorized); }
  PathCap(const PathCap&) = delete;
  PathCap& operator=(const PathCap&) = delete;
};
const std::vector<ElementwisePath> kCaps = {ElementwisePath::Vectorized,
                                            ElementwisePath::Strided64};
// Every device on the paths the layouts choose; the forced fallback on the first one.
std::vector<Device> devices_for(ElementwisePath cap) {
  std::vector<Device> all = cuda_devices();
  if (cap != ElementwisePath::Vectorized && all.size() > 1) all.erase(all.begin() + 1, all.end());
  return all;
}

// Bit for bit. With `nan_bits` false two NaNs match whatever their bits (a GPU's float<->double
// conversion and arithmetic give its canonical NaN; the x86 CPU keeps payloads).
void expect_same_bits(const Tensor& actual, const Tensor& expected, const std::string& ctx,
                      bool nan_bits = true) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << ctx;
  ASSERT_EQ(actual.sizes(), expected.sizes()) << ctx;
  const std::vector<char> a = contiguous_bytes(actual), e = contiguous_bytes(expected);
  if (a == e) return;
  const std::vector<double> ad = to_doubles(actual), ed = to_doubles(expected);
  const size_t es = expected.element_size();
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    if (std::memcmp(&a[i * es], &e[i * es], es) == 0) continue;
    if (!nan_bits && std::isnan(ad[i]) && std::isnan(ed[i])) continue;
    if (first < 0) first = i;
    ++mismatches;
  }
  if (mismatches == 0) return;
  uint64_t abits = 0, ebits = 0;
  std::memcpy(&abits, &a[first * es], es);
  std::memcpy(&ebits, &e[first * es], es);
  ADD_FAILURE() << ctx << ": " << mismatches << " of " << expected.numel()
                << " elements differ from the CPU's; first at " << first << ": " << ad[first]
                << " (bits 0x" << std::hex << abits << ") vs " << ed[first] << " (bits 0x" << ebits
                << ")";
}

std::string case_name(const Device& dev, ScalarType dt, int64_t n, const std::string& what,
                      ElementwisePath cap) {
  return what + " " + to_string(dt) + "[" + std::to_string(n) + "] on " + dev.str() +
         (cap == ElementwisePath::Vectorized ? ""
                                             : " (forced " + std::string(to_string(cap)) + ")");
}

int64_t size_of(ScalarType t) {
  return static_cast<int64_t>(element_size(t));
}

struct UnaryCase {
  const char* name;
  Tensor (*f)(const Tensor&);
  bool exact;          // else within the op's tolerance (a GPU's libm is not the CPU's)
  bool bool_input;     // defined on bool tensors
  bool floating_only;  // integers would be cast first (not this loop's layout)
};
const std::vector<UnaryCase> kUnary = {
    {"neg", [](const Tensor& x) { return neg(x); }, true, false, false},
    {"abs", [](const Tensor& x) { return abs(x); }, true, false, false},
    {"logical_not", [](const Tensor& x) { return logical_not(x); }, true, true, false},
    {"exp", [](const Tensor& x) { return exp(x); }, false, false, true},
};

std::pair<double, double> tolerance(ScalarType t) {
  switch (t) {
    case kHalf:
      return {2e-3, 1e-3};
    case kBFloat16:
      return {1.6e-2, 1e-2};
    case kDouble:
      return {1e-12, 1e-14};
    default:
      return {1e-5, 1e-6};
  }
}

TEST(ElementwisePaths, UnaryOpsMatchTheCpuOnEveryPath) {
  EMBER_SKIP_WITHOUT_CUDA();
  std::set<ElementwisePath> taken;
  for (ElementwisePath cap : kCaps) {
    PathCap guard(cap);
    for (const Device& dev : devices_for(cap)) {
      for (ScalarType dt : kDtypes) {
        for (int64_t n : kSizes) {
          const Tensor x = make_input(shape_for(n), dt, seed_for("unary" + std::to_string(n)));
          for (const UnaryCase& op : kUnary) {
            if ((dt == kBool && !op.bool_input) || (op.floating_only && !is_floating_point(dt))) {
              continue;
            }
            const Tensor expected = op.f(x);
            for (Layout layout : kLayouts) {
              const Tensor xd = laid_out(x.to(dev), layout);
              const std::string ctx =
                  case_name(dev, dt, n, std::string(op.name) + " of " + layout_name(layout), cap);
              const Tensor actual = op.f(xd);
              if (op.exact) {
                expect_same_bits(actual, expected, ctx);
              } else {
                const auto [rtol, atol] = tolerance(dt);
                expect_close(actual.cpu(), expected, rtol, atol, ctx);
              }
              if (cap == ElementwisePath::Vectorized && n > 0) {
                const Tensor out_like = empty_like(actual);
                taken.insert(path_of<2>({&out_like, &xd},
                                        form_of<2>({size_of(actual.dtype()), size_of(dt)})));
              }
            }
          }
        }
      }
    }
  }
  // The layouts above do reach every 32-bit path (Strided64 was forced).
  EXPECT_EQ(taken,
            (std::set<ElementwisePath>{ElementwisePath::Vectorized, ElementwisePath::Linear32,
                                       ElementwisePath::Strided32}));
}

struct BinaryCase {
  const char* name;
  Tensor (*f)(const Tensor&, const Tensor&);
  bool bool_input;
};
const std::vector<BinaryCase> kBinary = {
    {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }, true},
    {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, false},
    {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, true},
    {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); }, true},
    {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, true},
};

TEST(ElementwisePaths, BinaryOpsMatchTheCpuOnEveryPath) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (ElementwisePath cap : kCaps) {
    PathCap guard(cap);
    for (const Device& dev : devices_for(cap)) {
      for (ScalarType dt : kDtypes) {
        for (int64_t n : kSizes) {
          const std::vector<int64_t> shape = shape_for(n);
          const std::string tag = std::to_string(n);
          const Tensor a = make_input(shape, dt, seed_for("binary a" + tag));
          const Tensor b = make_input(shape, dt, seed_for("binary b" + tag));
          // One row broadcast over a matrix (over a vector: one element, stride 0).
          const Tensor row =
              make_input({shape.size() == 2 ? shape[1] : 1}, dt, seed_for("binary row" + tag));
          const Tensor value = make_input({}, dt, seed_for("binary value" + tag));
          const Tensor ad = a.to(dev), bd = b.to(dev), rowd = row.to(dev), valued = value.to(dev);
          for (const BinaryCase& op : kBinary) {
            if (dt == kBool && !op.bool_input) continue;
            auto check = [&](const Tensor& actual, const Tensor& expected,
                             const std::string& what) {
              expect_same_bits(actual, expected,
                               case_name(dev, dt, n, std::string(op.name) + " " + what, cap));
            };
            const Tensor expected = op.f(a, b);
            for (Layout layout : kLayouts) {
              check(op.f(laid_out(ad, layout), laid_out(bd, layout)), expected,
                    std::string("of two ") + layout_name(layout));
            }
            check(op.f(laid_out(ad, Layout::Offset), bd), expected, "offset with contiguous");
            check(op.f(laid_out(ad, Layout::Strided), bd), expected, "strided with contiguous");
            check(op.f(ad, rowd), op.f(a, row), "with a broadcast row");
            check(op.f(rowd, ad), op.f(row, a), "of a broadcast row");
            check(op.f(ad, valued), op.f(a, value), "with a device 0-dim tensor");
            check(op.f(valued, ad), op.f(value, a), "of a device 0-dim tensor");
            // A 0-dim CPU tensor is passed to the kernel by value, on either side.
            check(op.f(ad, value), op.f(a, value), "with a host scalar");
            check(op.f(value, ad), op.f(value, a), "of a host scalar");
            check(op.f(laid_out(ad, Layout::Offset), value), op.f(a, value),
                  "offset with a host scalar");
          }
        }
      }
    }
  }
}

// Source values for casts: for floating dtypes large enough to wrap in narrow integers, with NaN,
// +-inf and -0 in front (all well defined by cast_value on every device).
Tensor cast_source(int64_t n, ScalarType dt, uint64_t seed) {
  if (!is_floating_point(dt)) return make_input({n}, dt, seed);
  Tensor x = make_input({n}, kDouble, seed) * 150.0;
  const double specials[] = {std::nan(""), INFINITY, -INFINITY, -0.0};
  for (int64_t i = 0; i < std::min<int64_t>(n, 4); ++i) x.narrow(0, i, 1).fill_(specials[i]);
  return x.to(dt);
}

TEST(ElementwisePaths, CastsMatchTheCpuOnEveryPath) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (ElementwisePath cap : kCaps) {
    PathCap guard(cap);
    for (const Device& dev : devices_for(cap)) {
      for (ScalarType src : kDtypes) {
        for (int64_t n : kSizes) {
          const std::vector<int64_t> shape = shape_for(n);
          const Tensor x = cast_source(n, src, seed_for("cast" + std::to_string(n))).view(shape);
          const Tensor xd = x.to(dev);
          for (ScalarType dst : kDtypes) {
            const Tensor expected = x.to(dst);
            // float <-> double conversions are the GPU's own (canonical NaN); the 16-bit ones
            // keep the CPU's NaN bits.
            const bool nan_bits = src != kDouble && dst != kDouble;
            auto check = [&](const Tensor& actual, const std::string& what) {
              expect_same_bits(
                  actual, expected,
                  case_name(dev, src, n, "to " + std::string(to_string(dst)) + " " + what, cap),
                  nan_bits);
            };
            if (src == dst) {  // .to() would return the tensor itself: a dense copy instead
              check(laid_out(xd, Layout::Strided).contiguous(), "made contiguous");
            } else {
              for (Layout layout : kLayouts) {
                check(laid_out(xd, layout).to(dst), std::string("from ") + layout_name(layout));
              }
            }
            // Into a destination one element into its buffer (not aligned).
            Tensor into =
                laid_out(empty(shape, TensorOptions().dtype(dst).device(dev)), Layout::Offset);
            into.copy_(laid_out(xd, Layout::Strided));
            check(into, "into an offset view from a strided source");
            if (src != dst) {
              Tensor into2 =
                  laid_out(empty(shape, TensorOptions().dtype(dst).device(dev)), Layout::Offset);
              into2.copy_(xd);
              check(into2, "into an offset view");
            }
          }
        }
      }
    }
  }
}

TEST(ElementwisePaths, FillMatchesTheCpuOnEveryPath) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (ElementwisePath cap : kCaps) {
    PathCap guard(cap);
    for (const Device& dev : devices_for(cap)) {
      for (ScalarType dt : kDtypes) {
        for (int64_t n : kSizes) {
          const std::vector<int64_t> shape = shape_for(n);
          const Scalar v = dt == kBool ? Scalar(true) : Scalar(-3);
          const Tensor expected = full(shape, v, TensorOptions().dtype(dt));
          for (Layout layout : kLayouts) {
            // Around the view: sentinels that must survive.
            Tensor buffer = zeros({2 * n + 2}, TensorOptions().dtype(dt).device(dev));
            Tensor t = layout == Layout::Contiguous ? buffer.slice(0, 0, n).view(shape)
                       : layout == Layout::Offset
                           ? buffer.slice(0, 1, n + 1).view(shape)
                           : non_contiguous(buffer.slice(0, 0, n).view(shape));
            t.fill_(v);
            const std::string ctx =
                case_name(dev, dt, n, std::string("fill_ of ") + layout_name(layout), cap);
            expect_same_bits(t.contiguous(), expected, ctx);
            if (layout != Layout::Strided) {
              const int64_t end = layout == Layout::Offset ? n + 1 : n;
              expect_same_bits(buffer.slice(0, end, 2 * n + 2),
                               zeros({2 * n + 2 - end}, TensorOptions().dtype(dt)),
                               ctx + ": the elements after it");
            }
          }
        }
      }
    }
  }
}

// Float bit patterns that probe a float -> half / bfloat16 conversion: every tie of both formats
// (and the floats on either side), every half subnormal's neighbourhood, the overflow thresholds,
// float subnormals, and NaNs with different signs and payloads.
std::vector<uint32_t> conversion_probes() {
  std::vector<uint32_t> bits;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = Half(static_cast<uint16_t>(h), Half::from_bits_t{});
    uint32_t fb;
    std::memcpy(&fb, &f, 4);
    bits.push_back(fb);
    const uint32_t exp = (h >> 10) & 0x1f;
    if (exp == 31) continue;
    if (exp == 0) {  // subnormal half: ulp 2^-24, the tie 2^-25 above
      const float tie = f + (std::signbit(f) ? -1.0f : 1.0f) * 2.98023223876953125e-08f;
      std::memcpy(&fb, &tie, 4);
    } else {
      fb += 0x1000;  // half of a half's ulp in float bits
    }
    bits.insert(bits.end(), {fb - 1, fb, fb + 1});
  }
  for (uint32_t b = 0; b < 65536; ++b) {
    if (((b >> 7) & 0xff) == 0xff) continue;  // inf / NaN
    const uint32_t fb = (b << 16) + 0x8000;   // the bfloat16 tie
    bits.insert(bits.end(), {fb - 1, fb, fb + 1});
  }
  for (uint32_t special :
       {0x7f800001u, 0x7fc00000u, 0xffc00000u, 0x7fffffffu, 0xffffffffu, 0x7fa00001u, 0xff812345u,
        0x7f802000u, 0x7fbfe000u, 0x00000001u, 0x007fffffu, 0x80000001u, 0x807fffffu, 0x00400000u,
        0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, 0x7f7f7fffu, 0x7f7f8000u, 0x7f7fffffu})
    bits.push_back(special);
  return bits;
}

template <typename T>
Tensor from_bits(std::vector<T> bits, ScalarType dtype) {
  return from_blob(bits.data(), {static_cast<int64_t>(bits.size())}, TensorOptions().dtype(dtype))
      .clone();
}

TEST(SixteenBitFloats, ConversionsMatchTheCpuBitForBit) {
  EMBER_SKIP_WITHOUT_CUDA();
  std::vector<uint16_t> every(65536);
  for (uint32_t i = 0; i < 65536; ++i) every[i] = static_cast<uint16_t>(i);
  const Tensor halves = from_bits(every, kHalf), bfloats = from_bits(every, kBFloat16);
  const Tensor floats = from_bits(conversion_probes(), kFloat);
  for (const Device& dev : cuda_devices()) {
    const std::string on = " on " + dev.str();
    expect_same_bits(halves.to(dev).to(kFloat), halves.to(kFloat), "every half to float" + on);
    expect_same_bits(bfloats.to(dev).to(kFloat), bfloats.to(kFloat),
                     "every bfloat16 to float" + on);
    expect_same_bits(halves.to(dev).to(kBFloat16), halves.to(kBFloat16),
                     "every half to bfloat16" + on);
    expect_same_bits(bfloats.to(dev).to(kHalf), bfloats.to(kHalf), "every bfloat16 to half" + on);
    expect_same_bits(floats.to(dev).to(kHalf), floats.to(kHalf), "float probes to half" + on);
    expect_same_bits(floats.to(dev).to(kBFloat16), floats.to(kBFloat16),
                     "float probes to bfloat16" + on);
    // Arithmetic rounds through the same conversions.
    for (ScalarType dt : {kHalf, kBFloat16}) {
      const Tensor x = dt == kHalf ? halves : bfloats;
      const Tensor y = x.flip({0});
      expect_same_bits(add(x.to(dev), y.to(dev)), add(x, y),
                       std::string("every ") + to_string(dt) + " plus another" + on, false);
    }
  }
}

// index_add accumulates with atomic adds: native 16-bit ones on sm_80+, a compare-and-swap loop
// elsewhere. The base and the source are small integers, and no partial sum leaves the range
// where both 16-bit types hold every integer (|s| <= 256), so the sums are exact in any order and
// the result is the CPU's bit for bit. (A fractional base is not: the GPU's atomics land in
// another order each run, and each partial sum rounds.)
TEST(SixteenBitFloats, AtomicAddsMatchTheCpu) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (const Device& dev : cuda_devices()) {
    for (ScalarType dt : {kHalf, kBFloat16}) {
      for (int64_t dim : {0, 1}) {
        // Seven slots: neighbours share 32-bit words, so the CAS loop's masking is exercised.
        const std::vector<int64_t> base_shape =
            dim == 0 ? std::vector<int64_t>{7, 3} : std::vector<int64_t>{3, 7};
        std::vector<int64_t> src_shape = base_shape;
        src_shape[dim] = 1023;
        InputSpec base_spec{base_shape, dt, Domain::SmallInt};
        const Tensor base = clamp(make_input(base_spec, seed_for("atomic base")), -4, 4);
        InputSpec ones_spec{src_shape, dt, Domain::SmallInt};
        const Tensor src = clamp(make_input(ones_spec, seed_for("atomic src")), -1, 1);
        const Tensor idx = make_input(InputSpec{{1023}, kLong, Domain::Index, 7}, seed_for("idx"));
        Tensor expected = base.clone();
        cpu_backend().index_add(expected, dim, idx, src);
        Tensor actual = base.to(dev);
        cuda_backend().index_add(actual, dim, idx.to(dev), src.to(dev));
        expect_same_bits(actual, expected,
                         std::string("index_add of ") + to_string(dt) + " along dim " +
                             std::to_string(dim) + " on " + dev.str());
      }
    }
  }
}

}  // namespace
}  // namespace ember::testing
