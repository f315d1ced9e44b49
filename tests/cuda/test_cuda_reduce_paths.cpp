// The CUDA reductions' and softmax's paths. First the host-side choice (src/cuda/reduce_paths.h,
// src/cuda/softmax_plan.h) for the GPU-sized shapes that matter on an H100 (132 SMs), then every
// path on every device against the CPU backend, with small shapes that take the same paths on the
// simulated devices (which report one SM, so a handful of blocks already "fills" them and small
// reductions split). Results: exact for integers, bools, max/min and arg max/min, a tight
// tolerance for float sums; a sum run twice gives the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/tensor_factory.h"
#include "cuda/reduce_paths.h"
#include "cuda/softmax_plan.h"
#include "ember/ember.h"
#include "kernel_math/reduce_plan.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using cuda::plan_reduction;
using cuda::plan_softmax;
using cuda::ReducePath;
using cuda::ReducePlan;
using cuda::SoftmaxPath;
using cuda::SoftmaxPlan;
using ember::testing::expect_close;
namespace et = ember::testing;

namespace {

constexpr int kH100Sms = 132;
constexpr int kSimSms = 1;  // what a simulated device reports

std::vector<int64_t> contiguous_strides_of(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(sizes.size(), 1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) {
    s[d] = s[d + 1] * std::max<int64_t>(sizes[d + 1], 1);
  }
  return s;
}

// The layout of reducing `dims` of a tensor of `sizes` (contiguous unless `strides` are given).
// Views of a one-element tensor: only sizes and strides are read, so GPU-sized shapes cost
// nothing.
ReduceLayout layout_of(const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims,
                       std::vector<int64_t> strides = {}) {
  Tensor base = zeros({1});
  if (strides.empty()) strides = contiguous_strides_of(sizes);
  std::vector<int64_t> keep = sizes;
  for (int64_t d : dims) keep[d] = 1;
  Tensor in = make_view(base, sizes, strides, 0);
  Tensor out = make_view(base, keep, contiguous_strides_of(keep), 0);
  return make_reduce_layout(out, in);
}

std::string describe(const ReducePlan& p) {
  return std::string(cuda::reduce_path_name(p.path)) + " block " + std::to_string(p.block_x) + "x" +
         std::to_string(p.block_y) + " grid " + std::to_string(p.grid_x) + " splits " +
         std::to_string(p.splits);
}

}  // namespace

// ---- the host-side choice for H100-sized shapes ----

TEST(CudaReducePlan, SumOverDim0Of8192x8192IsCoalescedAndSplitToFillTheGpu) {
  const ReducePlan p = plan_reduction(layout_of({8192, 8192}, {0}), kH100Sms);
  EXPECT_EQ(p.path, ReducePath::Column) << describe(p);
  EXPECT_EQ(p.block_x, 32);  // a warp takes 32 adjacent outputs: 128 bytes of one row per load
  EXPECT_EQ(p.block_y, 8);
  EXPECT_EQ(p.grid_x, 8192 / 32);
  // 256 column tiles x 16 splits = 4096 blocks, about 4 waves of the 132 x 8 an H100 holds.
  EXPECT_EQ(p.splits, 16);
  EXPECT_EQ(p.rows_per_split, 512);
}

TEST(CudaReducePlan, SumOverDim1Of8192x8192TakesABlockPerContiguousRow) {
  const ReducePlan p = plan_reduction(layout_of({8192, 8192}, {1}), kH100Sms);
  EXPECT_EQ(p.path, ReducePath::Row) << describe(p);
  EXPECT_EQ(p.block_x, 256);
  EXPECT_EQ(p.block_y, 1);
  EXPECT_EQ(p.grid_x, 8192);
  EXPECT_EQ(p.splits, 1);  // 8192 blocks already fill the GPU
}

TEST(CudaReducePlan, FullSumOf64MFloatsSplitsOneRowAcrossWavesOfBlocks) {
  for (const auto& L : {layout_of({int64_t(64) << 20}, {0}), layout_of({8192, 8192}, {0, 1})}) {
    const ReducePlan p = plan_reduction(L, kH100Sms);
    EXPECT_EQ(p.path, ReducePath::Row) << describe(p);
    EXPECT_EQ(p.block_x, 256);
    EXPECT_EQ(p.grid_x, 1);
    EXPECT_EQ(p.splits, kH100Sms * cuda::kReduceBlocksPerSM * cuda::kReduceWaves);
  }
  // A short full reduction is not split below kRowMinSplitElems per block.
  const ReducePlan small = plan_reduction(layout_of({3 * cuda::kRowMinSplitElems}, {0}), kH100Sms);
  EXPECT_EQ(small.path, ReducePath::Row);
  EXPECT_EQ(small.splits, 3);
}

TEST(CudaReducePlan, MiddleDimsTinyKEqualsOneAndEmpty) {
  // 3-D middle dim: kept innermost 64 wide -> Column over 4 x 2 tiles, split along the 1000 rows
  // no finer than 8 row groups x 16 rows.
  ReducePlan p = plan_reduction(layout_of({4, 1000, 64}, {1}), kH100Sms);
  EXPECT_EQ(p.path, ReducePath::Column) << describe(p);
  EXPECT_EQ(p.grid_x, 8);
  EXPECT_EQ(p.splits, 1000 / (8 * cuda::kColumnMinRowsPerThread));
  EXPECT_EQ(p.rows_per_split * p.splits >= 1000, true);
  // A kept innermost dim narrower than kColumnMinWidth: Strided.
  p = plan_reduction(layout_of({4, 1000, 8}, {1}), kH100Sms);
  EXPECT_EQ(p.path, ReducePath::Strided) << describe(p);
  EXPECT_EQ(p.splits, 1);
  EXPECT_EQ(p.grid_x, 32);
  // Tiny reductions: one thread per output.
  EXPECT_EQ(plan_reduction(layout_of({3, 5}, {1}), kH100Sms).path, ReducePath::Thread);
  EXPECT_EQ(plan_reduction(layout_of({3, 5}, {0}), kH100Sms).path, ReducePath::Thread);
  // K = 1.
  EXPECT_EQ(plan_reduction(layout_of({1}, {0}), kH100Sms).path, ReducePath::Thread);
  p = plan_reduction(layout_of({1000}, {0}), kH100Sms);
  EXPECT_EQ(p.path, ReducePath::Row) << describe(p);
  EXPECT_EQ(p.block_x, 64);  // 1000 / 16 elements per thread, rounded up to a power of two
  EXPECT_EQ(p.splits, 1);
  // Empty: no outputs, or outputs of an empty reduction (the identity).
  EXPECT_EQ(plan_reduction(layout_of({5, 0}, {0}), kH100Sms).path, ReducePath::None);
  EXPECT_EQ(plan_reduction(layout_of({0, 5}, {0}), kH100Sms).path, ReducePath::Thread);
}

TEST(CudaReducePlan, TransposedAndStridedInputs) {
  // x.t() of a contiguous 8192 x 4096: reducing its dim 1 keeps the contiguous dim -> Column;
  // reducing dim 0 reduces the contiguous dim -> Row.
  EXPECT_EQ(plan_reduction(layout_of({4096, 8192}, {1}, {1, 4096}), kH100Sms).path,
            ReducePath::Column);
  EXPECT_EQ(plan_reduction(layout_of({4096, 8192}, {0}, {1, 4096}), kH100Sms).path,
            ReducePath::Row);
  // Every other element: neither layout; many outputs with short rows -> Thread, few -> Strided.
  EXPECT_EQ(plan_reduction(layout_of({4096, 100}, {1}, {200, 2}), kH100Sms).path,
            ReducePath::Thread);
  const ReducePlan p = plan_reduction(layout_of({8, 100000}, {1}, {200000, 2}), kH100Sms);
  EXPECT_EQ(p.path, ReducePath::Strided) << describe(p);
  EXPECT_EQ(p.splits, 25);  // 100000 elements / 4096 per block
  EXPECT_EQ(p.grid_x, 8 * 25);
}

TEST(CudaSoftmaxPlan, RowsOf4096ReadOnceFromGlobalMemory) {
  SoftmaxPlan p = plan_softmax(8192, 4096, 1, sizeof(float), false);
  EXPECT_EQ(p.path, SoftmaxPath::Rows);
  EXPECT_EQ(p.block_x, 256);
  EXPECT_EQ(p.block_y, 1);
  EXPECT_EQ(p.grid_x, 8192);
  EXPECT_TRUE(p.cached);
  EXPECT_EQ(p.shared_bytes, 4096u * sizeof(float));
  p = plan_softmax(8192, 4096, 1, sizeof(float), true);  // grad_out and output
  EXPECT_TRUE(p.cached);
  EXPECT_EQ(p.shared_bytes, 2u * 4096u * sizeof(float));
  // A warp per short row, several rows per block.
  p = plan_softmax(100, 1000, 1, sizeof(float), false);
  EXPECT_EQ(p.block_x, 64);
  EXPECT_EQ(p.block_y, 4);
  EXPECT_EQ(p.grid_x, 25);
  p = plan_softmax(100, 31, 1, sizeof(float), false);
  EXPECT_EQ(p.block_x, 32);
  EXPECT_EQ(p.block_y, 8);
  // Rows that do not fit in 48 KiB are read twice instead.
  EXPECT_FALSE(plan_softmax(4, 8192, 1, sizeof(double), false).cached);
  EXPECT_FALSE(plan_softmax(4, 4096, 1, sizeof(double), true).cached);
  EXPECT_TRUE(plan_softmax(4, 4096, 1, sizeof(double), false).cached);
  // Another dim: a thread per row.
  p = plan_softmax(64 * 7, 33, 7, sizeof(float), false);
  EXPECT_EQ(p.path, SoftmaxPath::Strided);
  EXPECT_EQ(p.grid_x, 2);
  EXPECT_EQ(plan_softmax(0, 5, 1, 4, false).path, SoftmaxPath::None);
}

// ---- every path on every device ----

namespace {

struct ReduceCase {
  std::string name;
  std::vector<int64_t> sizes;
  std::vector<int64_t> dims;  // empty: all dims
  ReducePath path;            // on a simulated device
  bool split;
  int64_t step = 1;         // > 1: the input is every step-th row of a larger tensor
  bool transposed = false;  // the input is the transpose of a contiguous tensor
  int64_t offset = 0;       // storage offset (misaligns the data of a contiguous input)
};

// Small shapes that take every path on a one-SM (simulated) device.
const std::vector<ReduceCase>& reduce_cases() {
  static const std::vector<ReduceCase> cases = {
      {"column", {20, 300}, {0}, ReducePath::Column, false},
      {"column split", {300, 40}, {0}, ReducePath::Column, true},
      {"column 16 wide", {100, 16}, {0}, ReducePath::Column, false},
      {"column 3 rows", {3, 50}, {0}, ReducePath::Column, false},
      {"column middle dim split", {2, 260, 33}, {1}, ReducePath::Column, true},
      {"column R=1", {37, 1}, {1}, ReducePath::Column, false},
      {"column transposed", {64, 40}, {1}, ReducePath::Column, false, 1, true},
      {"row warp", {50, 100}, {1}, ReducePath::Row, false},
      {"row block", {3, 5000}, {1}, ReducePath::Row, false},
      {"row split", {2, 9000}, {1}, ReducePath::Row, true},
      {"row full split", {10000}, {}, ReducePath::Row, true},
      {"row full unaligned", {10001}, {}, ReducePath::Row, true, 1, false, 1},
      {"row 3-D all dims", {3, 4, 37}, {}, ReducePath::Row, false},
      {"row transposed", {64, 40}, {0}, ReducePath::Row, false, 1, true},
      {"thread short rows", {40, 7}, {1}, ReducePath::Thread, false},
      {"thread K=1", {20}, {}, ReducePath::Thread, false},
      {"thread narrow columns", {9, 5}, {0}, ReducePath::Thread, false},
      {"thread empty rows", {0, 6}, {0}, ReducePath::Thread, false},
      {"strided", {30, 20, 5}, {0, 2}, ReducePath::Strided, false},
      {"strided split", {40, 250}, {}, ReducePath::Strided, true, 2},
      {"no outputs", {6, 0}, {0}, ReducePath::None, false},
  };
  return cases;
}

std::vector<int64_t> all_dims(const ReduceCase& c) {
  if (!c.dims.empty()) return c.dims;
  std::vector<int64_t> d;
  for (size_t i = 0; i < c.sizes.size(); ++i) d.push_back(static_cast<int64_t>(i));
  return d;
}

// The case's input on `device` with values `values` (a contiguous CPU tensor of c.sizes).
Tensor place(const ReduceCase& c, const Tensor& values, Device device) {
  if (c.transposed) return values.t().contiguous().to(device).t();
  if (c.step > 1) {
    DimVector big(values.sizes());
    big[0] *= c.step;
    Tensor wide = zeros(big, TensorOptions(values.dtype()).device(device));
    Tensor view = wide.slice(0, 0, big[0], c.step);
    view.copy_(values.to(device));
    return view;
  }
  if (c.offset > 0) {
    Tensor flat = zeros({values.numel() + c.offset}, TensorOptions(values.dtype()).device(device));
    Tensor view = flat.slice(0, c.offset, values.numel() + c.offset).view(values.sizes());
    view.copy_(values.to(device));
    return view;
  }
  return values.to(device);
}

Tensor input_for(const ReduceCase& c, ScalarType dt, uint64_t seed) {
  if (dt == kBool) {
    et::InputSpec spec;
    spec.shape = c.sizes;
    spec.dtype = kBool;
    spec.domain = et::Domain::Bool;
    return et::make_input(spec, seed);
  }
  return et::make_input(c.sizes, dt, seed);
}

// Values whose product stays finite (floats near 1) and exact (integers -1 and 1).
Tensor prod_input(const Tensor& x) {
  if (is_floating_point(x.dtype())) return (x.to(kFloat) * 0.01 + 1).to(x.dtype());
  if (x.dtype() == kBool) return x;
  return (x.gt(0).to(kLong) * 2 - 1).to(x.dtype());
}

// The backend's reduction of `dims` into a keepdim output of `out_dtype`.
Tensor backend_reduce(ReduceOp op, const Tensor& in, const std::vector<int64_t>& dims,
                      ScalarType out_dtype) {
  std::vector<int64_t> keep(in.sizes().begin(), in.sizes().end());
  for (int64_t d : dims) keep[d] = 1;
  Tensor out = empty(keep, TensorOptions(out_dtype).device(in.device()));
  backend_for(in).reduce(op, out, in);
  return out;
}

double rtol_for(ScalarType dt) {
  return dt == kHalf ? 4e-3 : dt == kBFloat16 ? 1.6e-2 : dt == kFloat ? 1e-5 : 1e-12;
}

}  // namespace

TEST(CudaReducePaths, SimulatedShapesTakeEveryPath) {
  for (const ReduceCase& c : reduce_cases()) {
    std::vector<int64_t> strides;
    if (c.transposed) strides = {1, c.sizes[0]};
    if (c.step > 1) {
      strides = contiguous_strides_of(c.sizes);
      strides[0] *= c.step;
    }
    const ReducePlan p = plan_reduction(layout_of(c.sizes, all_dims(c), strides), kSimSms);
    EXPECT_EQ(p.path, c.path) << c.name << ": " << describe(p);
    EXPECT_EQ(p.splits > 1, c.split) << c.name << ": " << describe(p);
  }
  if (cuda::is_available() && cuda::is_simulated()) {
    EXPECT_EQ(cuda::get_device_properties(0).multi_processor_count, kSimSms);
  }
}

TEST(CudaReducePaths, EveryOpDtypeAndPathMatchesTheCpu) {
  EMBER_SKIP_WITHOUT_CUDA();
  const std::vector<ScalarType> dtypes = {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kBool};
  for (const ReduceCase& c : reduce_cases()) {
    const std::vector<int64_t> dims = all_dims(c);
    int64_t R = 1;
    for (int64_t d : dims) R *= c.sizes[d];
    for (ScalarType dt : dtypes) {
      const Tensor values = input_for(c, dt, et::seed_for(c.name) + static_cast<int>(dt));
      const Tensor x_cpu = place(c, values, Device(kCPU));
      const bool floating = is_floating_point(dt);
      const double rtol = rtol_for(dt);
      // Sums of R normal values: the order of the additions differs from the CPU's.
      const double atol = floating ? rtol * std::sqrt(static_cast<double>(R) + 1) : 0;
      for (const Device& dev : et::cuda_devices()) {
        const std::string ctx = c.name + " " + to_string(dt) + " on " + dev.str();
        const Tensor x = place(c, values, dev);
        for (bool keepdim : {false, true}) {
          const std::string k = keepdim ? " keepdim" : "";
          expect_close(x.sum(dims, keepdim).cpu(), x_cpu.sum(dims, keepdim), rtol, atol,
                       ctx + " sum" + k);
          if (floating) {
            expect_close(x.mean(dims, keepdim).cpu(), x_cpu.mean(dims, keepdim), rtol, rtol,
                         ctx + " mean" + k);
          }
          if (R > 0 && dt != kBool) {
            expect_close(x.amax(dims, keepdim).cpu(), x_cpu.amax(dims, keepdim), 0, 0,
                         ctx + " amax" + k);
            expect_close(x.amin(dims, keepdim).cpu(), x_cpu.amin(dims, keepdim), 0, 0,
                         ctx + " amin" + k);
          }
        }
        // prod / any / all have no per-dim front end: ask the backend for the same dims.
        const Tensor xp = prod_input(x), xp_cpu = prod_input(x_cpu);
        const ScalarType prod_dt = is_integral(dt, true) ? kLong : dt;
        // Rounding errors of R multiplications in the accumulation type, in another order.
        const double eps = dt == kDouble ? 2.2e-16 : 1.2e-7;
        const double prod_rtol = floating ? rtol + 4 * eps * std::sqrt(R + 1.0) : 0;
        expect_close(backend_reduce(ReduceOp::Prod, xp, dims, prod_dt).cpu(),
                     backend_reduce(ReduceOp::Prod, xp_cpu, dims, prod_dt), prod_rtol, prod_rtol,
                     ctx + " prod");
        for (ReduceOp op : {ReduceOp::Any, ReduceOp::All}) {
          expect_close(backend_reduce(op, x, dims, kBool).cpu(),
                       backend_reduce(op, x_cpu, dims, kBool), 0, 0,
                       ctx + (op == ReduceOp::Any ? " any" : " all"));
        }
        if (dt != kBool && R > 0) {
          expect_close(backend_reduce(ReduceOp::Max, x, dims, dt).cpu(),
                       backend_reduce(ReduceOp::Max, x_cpu, dims, dt), 0, 0, ctx + " max");
        }
        // One dim: max/min with indices and argmax/argmin (first index of ties, as the CPU).
        if (dims.size() == 1 && R > 0 && dt != kBool) {
          const int64_t d = dims[0];
          auto [v, i] = x.max(d);
          auto [v_cpu, i_cpu] = x_cpu.max(d);
          expect_close(v.cpu(), v_cpu, 0, 0, ctx + " max(dim) values");
          expect_close(i.cpu(), i_cpu, 0, 0, ctx + " max(dim) indices");
          expect_close(x.argmin(d, true).cpu(), x_cpu.argmin(d, true), 0, 0, ctx + " argmin");
          expect_close(x.argmax(d).cpu(), x_cpu.argmax(d), 0, 0, ctx + " argmax");
        }
      }
    }
  }
}

TEST(CudaReducePaths, SumsAreBitwiseReproducibleOnEveryPath) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (const ReduceCase& c : reduce_cases()) {
    const std::vector<int64_t> dims = all_dims(c);
    const Tensor values = input_for(c, kFloat, et::seed_for(c.name + " twice"));
    for (const Device& dev : et::cuda_devices()) {
      const Tensor x = place(c, values, dev);
      const Tensor a = x.sum(dims).cpu(), b = x.sum(dims).cpu();
      EXPECT_TRUE(equal(a, b)) << c.name << " on " << dev.str();
    }
  }
}

TEST(CudaReducePaths, NaNAndInfinityPropagateOnEveryPath) {
  EMBER_SKIP_WITHOUT_CUDA();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const ReduceCase& c : reduce_cases()) {
    if (c.sizes.empty()) continue;
    Tensor values = input_for(c, kFloat, et::seed_for(c.name + " nan"));
    const int64_t n = values.numel();
    if (n < 3) continue;
    Tensor flat = values.view({n});
    flat.select(0, n / 3).fill_(nan);
    flat.select(0, n / 2).fill_(inf);
    flat.select(0, n - 1).fill_(-inf);
    const std::vector<int64_t> dims = all_dims(c);
    int64_t R = 1;
    for (int64_t d : dims) R *= c.sizes[d];
    const Tensor x_cpu = place(c, values, Device(kCPU));
    for (const Device& dev : et::cuda_devices()) {
      const std::string ctx = c.name + " on " + dev.str();
      const Tensor x = place(c, values, dev);
      expect_close(x.sum(dims).cpu(), x_cpu.sum(dims), 1e-5, 1e-5 * std::sqrt(R + 1.0),
                   ctx + " sum");
      expect_close(x.amax(dims).cpu(), x_cpu.amax(dims), 0, 0, ctx + " amax");
      expect_close(x.amin(dims).cpu(), x_cpu.amin(dims), 0, 0, ctx + " amin");
    }
  }
}

// ---- softmax ----

namespace {

double softmax_tol(ScalarType dt) {
  return dt == kHalf ? 4e-3 : dt == kBFloat16 ? 1.6e-2 : dt == kFloat ? 2e-5 : 1e-12;
}

// Forward and backward of softmax and log_softmax over `dim` of `x` (a CPU tensor) on every CUDA
// device, against the CPU.
void expect_softmax_matches_cpu(const Tensor& x, int64_t dim, const std::string& what,
                                int64_t offset = 0) {
  const ScalarType dt = x.dtype();
  const double tol = softmax_tol(dt);
  manual_seed(et::seed_for(what));
  const Tensor g = randn(x.sizes()).to(dt);
  for (bool log_space : {false, true}) {
    const std::string ctx = what + " " + to_string(dt) + (log_space ? " log_softmax" : " softmax");
    Tensor xc = x.detach().clone().requires_grad_();
    Tensor yc = log_space ? log_softmax(xc, dim) : softmax(xc, dim);
    yc.backward(g);
    for (const Device& dev : et::cuda_devices()) {
      Tensor xd;
      if (offset > 0) {
        // A contiguous view whose data starts `offset` elements into its storage.
        Tensor flat = zeros({x.numel() + offset}, TensorOptions(dt).device(dev));
        xd = flat.slice(0, offset, x.numel() + offset).view(x.sizes());
        xd.copy_(x.to(dev));
      } else {
        xd = x.to(dev);
      }
      xd = xd.detach().requires_grad_();
      Tensor yd = log_space ? log_softmax(xd, dim) : softmax(xd, dim);
      yd.backward(g.to(dev));
      expect_close(yd.detach().cpu(), yc.detach(), tol, tol, ctx + " on " + dev.str());
      expect_close(xd.grad().cpu(), xc.grad(), tol, tol, ctx + " gradient on " + dev.str());
    }
  }
}

}  // namespace

TEST(CudaSoftmaxPaths, RowLengthsDtypesAndAlignment) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (int64_t D : {1, 31, 32, 33, 1000, 4096}) {
      const int64_t rows = D >= 1000 ? 3 : 11;
      const std::string what = "rows " + std::to_string(rows) + "x" + std::to_string(D);
      manual_seed(et::seed_for(what) + static_cast<int>(dt));
      const Tensor x = (randn({rows, D}) * 3).to(dt);
      expect_softmax_matches_cpu(x, -1, what);
      // Data one element past a 16-byte boundary: the kernels' scalar path.
      if (D == 32 || D == 1000) expect_softmax_matches_cpu(x, 1, what + " misaligned", 1);
    }
  }
  // Rows that do not fit in shared memory (float64: 8192 forward, 4096 backward) are read twice.
  manual_seed(5);
  expect_softmax_matches_cpu(randn({2, 8192}, kDouble), 1, "uncached 2x8192");
}

TEST(CudaSoftmaxPaths, InfinityMasksAndNaNRows) {
  EMBER_SKIP_WITHOUT_CUDA();
  const double inf = std::numeric_limits<double>::infinity();
  for (ScalarType dt : {kFloat, kDouble, kHalf}) {
    for (int64_t D : {5, 33, 1000}) {
      manual_seed(et::seed_for("mask") + D);
      Tensor x = randn({6, D}, kDouble);
      x.select(0, 0).slice(0, 0, D, 2).fill_(-inf);  // masked positions: probability 0
      x.select(0, 1).fill_(-inf);                    // fully masked row: NaN, as in PyTorch
      x.select(0, 2).select(0, D - 1).fill_(std::nan(""));
      x.select(0, 3).select(0, D / 2).fill_(inf);
      x.select(0, 4).slice(0, 1, D).fill_(-inf);  // one live element: probability 1
      const Tensor xt = x.to(dt);
      for (const Device& dev : et::cuda_devices()) {
        for (bool log_space : {false, true}) {
          const std::string ctx = "mask D=" + std::to_string(D) + " " + to_string(dt) +
                                  (log_space ? " log_softmax" : " softmax") + " on " + dev.str();
          Tensor yd = log_space ? log_softmax(xt.to(dev), 1) : softmax(xt.to(dev), 1);
          Tensor yc = log_space ? log_softmax(xt, 1) : softmax(xt, 1);
          expect_close(yd.cpu(), yc, softmax_tol(dt), softmax_tol(dt), ctx);
        }
      }
    }
  }
}

TEST(CudaSoftmaxPaths, OtherDimsAreStrided) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (ScalarType dt : {kFloat, kDouble, kHalf}) {
    manual_seed(et::seed_for("strided softmax") + static_cast<int>(dt));
    const Tensor x = (randn({4, 33, 5}) * 2).to(dt);
    expect_softmax_matches_cpu(x, 0, "dim 0 of 4x33x5");
    expect_softmax_matches_cpu(x, 1, "dim 1 of 4x33x5");
  }
}

// ---- arg max/min of contiguous rows (cuda::plan_arg_rows, arg_rows_kernel) ----

TEST(CudaArgRowsPlan, LongRowsTakeBlocksAndFewRowsSplit) {
  using cuda::plan_arg_rows;
  // A full argmax of 64M floats: one row split to fill four waves of 132 SMs.
  const auto full = plan_arg_rows(1, int64_t(1) << 26, kH100Sms);
  EXPECT_TRUE(full.rows);
  EXPECT_EQ(full.splits, kH100Sms * cuda::kReduceBlocksPerSM * cuda::kReduceWaves);
  EXPECT_GE(full.chunk * full.splits, int64_t(1) << 26);
  EXPECT_GE(full.chunk, cuda::kArgMinSplitElems);
  // logits.argmax(-1) over a 32000-word vocabulary for 8192 tokens: a block per row, no split.
  const auto vocab = plan_arg_rows(8192, 32000, kH100Sms);
  EXPECT_TRUE(vocab.rows);
  EXPECT_EQ(vocab.splits, 1);
  EXPECT_EQ(vocab.grid_x, 8192);
  // Ten classes: one thread per row scans it.
  EXPECT_FALSE(plan_arg_rows(128, 10, kH100Sms).rows);
  EXPECT_FALSE(plan_arg_rows(0, 5000, kH100Sms).rows);
  // Rows too short to split keep one block each.
  EXPECT_EQ(plan_arg_rows(4, 300, kH100Sms).splits, 1);
  // The simulated devices' single SM: 32 blocks fill it.
  EXPECT_EQ(plan_arg_rows(1, 100000, kSimSms).splits, 25);
  EXPECT_EQ(plan_arg_rows(50, 300, kSimSms).splits, 1);
}

namespace {

// argmax/argmin/max(dim)/min(dim) along `dim` on every CUDA device against the CPU, exactly.
void expect_arg_matches_cpu(const Tensor& x_cpu, int64_t dim, const std::string& what) {
  for (const Device& dev : et::cuda_devices()) {
    const std::string ctx = what + " " + to_string(x_cpu.dtype()) + " on " + dev.str();
    const Tensor x = x_cpu.to(dev);
    expect_close(x.argmax(dim).cpu(), x_cpu.argmax(dim), 0, 0, ctx + " argmax");
    expect_close(x.argmin(dim, true).cpu(), x_cpu.argmin(dim, true), 0, 0, ctx + " argmin");
    auto [v, i] = x.max(dim);
    auto [v_cpu, i_cpu] = x_cpu.max(dim);
    expect_close(v.cpu(), v_cpu, 0, 0, ctx + " max values");
    expect_close(i.cpu(), i_cpu, 0, 0, ctx + " max indices");
    auto [w, j] = x.min(dim);
    auto [w_cpu, j_cpu] = x_cpu.min(dim);
    expect_close(w.cpu(), w_cpu, 0, 0, ctx + " min values");
    expect_close(j.cpu(), j_cpu, 0, 0, ctx + " min indices");
  }
}

}  // namespace

TEST(CudaArgRows, TiesNaNsAndSplitsMatchTheCpu) {
  EMBER_SKIP_WITHOUT_CUDA();
  struct Shape {
    std::vector<int64_t> sizes;
    const char* name;
  };
  // On one simulated SM: 25 splits, 2 splits, one block per row (K >= 32), a 3-D tensor's last
  // dim, and rows too short for blocks (one thread per row).
  const std::vector<Shape> shapes = {{{1, 100000}, "1x100000 (25 splits)"},
                                     {{3, 5000}, "3x5000 (2 splits)"},
                                     {{50, 300}, "50x300 (a block per row)"},
                                     {{2, 3, 700}, "2x3x700"},
                                     {{40, 7}, "40x7 (thread per row)"}};
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kLong, kInt, kChar}) {
    for (const Shape& s : shapes) {
      manual_seed(et::seed_for(s.name) + static_cast<int>(dt));
      // Integers 0..5: every row has many ties, across threads and splits.
      const Tensor ties = randint(0, 6, s.sizes, kLong).to(dt);
      expect_arg_matches_cpu(ties, -1, std::string(s.name) + " ties");
    }
  }
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  for (ScalarType dt : {kFloat, kHalf, kDouble}) {
    for (const Shape& s : shapes) {
      manual_seed(et::seed_for(s.name) + 100 + static_cast<int>(dt));
      Tensor x = randn(s.sizes, kDouble);
      const int64_t D = s.sizes.back();
      Tensor rows = x.reshape({-1, D});
      // Row 0: two NaNs, the later one in an earlier thread's stride: the first NaN wins.
      rows.select(0, 0).select(0, D - 1).fill_(nan);
      rows.select(0, 0).select(0, D / 2 + 1).fill_(nan);
      // Last row: +inf and -inf, each twice.
      Tensor last = rows.select(0, rows.size(0) - 1);
      last.select(0, 3).fill_(inf);
      last.select(0, D - 2).fill_(inf);
      last.select(0, 1).fill_(-inf);
      last.select(0, D - 1).fill_(-inf);
      expect_arg_matches_cpu(x.to(dt), -1, std::string(s.name) + " NaN/inf");
    }
  }
  // The full argmax of a 2-D tensor is one flattened row (split).
  manual_seed(et::seed_for("full argmax"));
  const Tensor big = randint(0, 1000, {300, 400}, kLong).to(kFloat);
  for (const Device& dev : et::cuda_devices()) {
    EXPECT_EQ(big.to(dev).argmax().item<int64_t>(), big.argmax().item<int64_t>()) << dev.str();
    EXPECT_EQ(big.to(dev).argmin().item<int64_t>(), big.argmin().item<int64_t>()) << dev.str();
  }
}
