#pragma once
// Which kernel a CUDA reduction runs and how it is launched, decided on the host from the
// coalesced layout (kernel_math/reduce_plan.h) and the GPU's SM count. Plain C++ so that the tests
// check the choice for GPU-sized shapes without a GPU (tests/cuda/test_cuda_reduce_paths.cpp). The
// kernels are in reduce.cu; each path's comment says how its reads coalesce.
#include <algorithm>
#include <cstdint>

#include "kernel_math/reduce_plan.h"

namespace ember::cuda {

enum class ReducePath {
  None,     // no outputs
  Thread,   // one thread per output (short or empty reductions)
  Column,   // kept innermost dim contiguous: a warp reads 32 adjacent outputs' elements per row
  Row,      // reduced dim contiguous: a group of threads reads each row with 16-byte loads
  Strided,  // anything else: one block per output, threads stride over its elements
};

inline const char* reduce_path_name(ReducePath p) {
  switch (p) {
    case ReducePath::None:
      return "None";
    case ReducePath::Thread:
      return "Thread";
    case ReducePath::Column:
      return "Column";
    case ReducePath::Row:
      return "Row";
    case ReducePath::Strided:
      return "Strided";
  }
  return "?";
}

struct ReducePlan {
  ReducePath path = ReducePath::None;
  int block_x = 0, block_y = 1;  // threads per block
  int64_t grid_x = 0;            // blocks along the outputs
  // Blocks that share one output's elements (grid y for Column and Row, folded into grid x for
  // Strided). With splits > 1 each block writes a partial value and a second kernel combines
  // each output's partials in a fixed order: results never depend on scheduling.
  int64_t splits = 1;
  int64_t rows_per_split = 0;  // Column: reduced rows each split covers
  int64_t chunk = 0;           // Strided: reduced elements each split covers
};

// Tuning constants (H100 figures in the comments); public so the tests can aim at each branch.
constexpr int kReduceThreads = 256;
// Blocks of kReduceThreads one SM holds at once (2048 threads) when registers allow.
constexpr int64_t kReduceBlocksPerSM = 8;
// Splits aim at this many such waves of blocks: the kernels hold 40-64 registers per thread, so
// fewer than 8 blocks may fit per SM, and with several waves the last, partly filled one costs
// little.
constexpr int64_t kReduceWaves = 4;
// Column: the kept innermost dim must be at least this wide (narrower ones leave lanes idle; they
// take Strided, whose reads are then a few elements apart).
constexpr int64_t kColumnMinWidth = 16;
// Column: at most this many row groups per block (threads along y).
constexpr int64_t kColumnMaxRowGroups = 8;
// Column: a split keeps at least this many rows per thread.
constexpr int64_t kColumnMinRowsPerThread = 16;
// Row: threads per row are sized so that each reads at least this many elements.
constexpr int64_t kRowElemsPerThread = 16;
// Row: threads per row, at least a warp.
constexpr int64_t kRowMinGroup = 32;
// Row: rows shorter than this take Thread.
constexpr int64_t kRowMinLength = 32;
// Row: a split keeps at least this many elements per block.
constexpr int64_t kRowMinSplitElems = 4096;
// Strided: a split keeps at least this many elements per block.
constexpr int64_t kStridedMinSplitElems = 4096;
// CUDA's limit on gridDim.y.
constexpr int64_t kMaxGridY = 65535;

namespace reduce_paths_detail {
inline int64_t pow2_ceil(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}
inline int64_t pow2_floor(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}
inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
// Splits that bring `blocks` up to (at most) `target`: at least 1, at most `max_splits`.
inline int64_t splits_to_fill(int64_t blocks, int64_t target, int64_t max_splits) {
  if (blocks >= target) return 1;
  const int64_t s = target / blocks;
  return std::max<int64_t>(1, std::min(s, max_splits));
}
}  // namespace reduce_paths_detail

// True when the layout's innermost kept dim is contiguous in the input and wide enough.
inline bool is_column_reduction(const ReduceLayout& L) {
  return L.nk > 0 && L.kin[L.nk - 1] == 1 && L.ksize[L.nk - 1] >= kColumnMinWidth;
}
// True when each output's elements are one contiguous run.
inline bool is_row_reduction(const ReduceLayout& L) {
  return L.nr == 1 && L.rin[0] == 1;
}

inline ReducePlan plan_reduction(const ReduceLayout& L, int sm_count) {
  using namespace reduce_paths_detail;
  ReducePlan p;
  if (L.K == 0) return p;
  const int64_t target = std::max(1, sm_count) * kReduceBlocksPerSM * kReduceWaves;
  const int64_t K = L.K, R = L.R;
  auto thread_plan = [&] {
    p.path = ReducePath::Thread;
    p.block_x = kReduceThreads;
    p.grid_x = std::min<int64_t>(ceil_div(K, kReduceThreads), int64_t(1) << 20);
    return p;
  };
  if (R == 0) return thread_plan();  // every output is the identity
  if (is_column_reduction(L)) {
    // Block (bx, by): bx adjacent outputs, by row groups; as many row groups as rows allow.
    const int64_t C = L.ksize[L.nk - 1];
    const int64_t by0 = std::min(kColumnMaxRowGroups, pow2_floor(R));
    const int64_t bx = std::min(kReduceThreads / by0, std::max(kColumnMinWidth, pow2_ceil(C)));
    const int64_t by = std::min(kReduceThreads / bx, pow2_floor(R));
    p.path = ReducePath::Column;
    p.block_x = static_cast<int>(bx);
    p.block_y = static_cast<int>(by);
    p.grid_x = (K / C) * ceil_div(C, bx);
    p.splits =
        splits_to_fill(p.grid_x, target, std::min(kMaxGridY, R / (by * kColumnMinRowsPerThread)));
    p.rows_per_split = ceil_div(R, p.splits);
    return p;
  }
  if (is_row_reduction(L) && R >= kRowMinLength) {
    // Groups of bx threads per row (a warp for short rows), 256 / bx rows per block.
    const int64_t bx = std::clamp<int64_t>(pow2_ceil(ceil_div(R, kRowElemsPerThread)), kRowMinGroup,
                                           kReduceThreads);
    p.path = ReducePath::Row;
    p.block_x = static_cast<int>(bx);
    p.block_y = static_cast<int>(kReduceThreads / bx);
    p.grid_x = ceil_div(K, p.block_y);
    if (bx == kReduceThreads) {
      p.splits = splits_to_fill(p.grid_x, target, std::min(kMaxGridY, R / kRowMinSplitElems));
    }
    return p;
  }
  if (R < 64 || (K >= 4096 && R < 1024)) return thread_plan();
  p.path = ReducePath::Strided;
  p.block_x = kReduceThreads;
  p.splits = splits_to_fill(K, target, ceil_div(R, kStridedMinSplitElems));
  p.chunk = ceil_div(R, p.splits);
  p.grid_x = p.splits > 1 ? K * p.splits : std::min<int64_t>(K, int64_t(1) << 20);
  return p;
}

// Arg max/min along a contiguous dim (logits.argmax(-1), a full argmax of a flattened tensor):
// rows of at least kArgRowsMinLength take a block of kReduceThreads each (shorter rows: one thread
// per row scans it, as for any other layout), and few long rows are split across blocks whose
// candidates a second kernel combines in split order.
constexpr int64_t kArgRowsMinLength = 256;
// A split keeps at least this many elements per block.
constexpr int64_t kArgMinSplitElems = 4096;

struct ArgRowsPlan {
  bool rows = false;   // false: one thread per output
  int64_t grid_x = 0;  // blocks along the rows (they stride over rows beyond it)
  int64_t splits = 1;  // blocks per row (grid y)
  int64_t chunk = 0;   // elements of a row each split covers
};

inline ArgRowsPlan plan_arg_rows(int64_t rows, int64_t length, int sm_count) {
  using namespace reduce_paths_detail;
  ArgRowsPlan p;
  if (rows == 0 || length < kArgRowsMinLength) return p;
  const int64_t target = std::max(1, sm_count) * kReduceBlocksPerSM * kReduceWaves;
  p.rows = true;
  p.grid_x = std::min<int64_t>(rows, int64_t(1) << 20);
  p.splits = splits_to_fill(rows, target, std::min(kMaxGridY, ceil_div(length, kArgMinSplitElems)));
  p.chunk = ceil_div(length, p.splits);
  return p;
}

}  // namespace ember::cuda
