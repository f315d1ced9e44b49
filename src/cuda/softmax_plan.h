#pragma once
// How CUDA softmax / log_softmax (forward and backward) are launched, decided on the host; plain
// C++ so that tests check the choice for GPU-sized shapes (tests/cuda/test_cuda_reduce_paths.cpp).
// The kernels are in softmax.cu.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ember::cuda {

enum class SoftmaxPath {
  None,     // nothing to compute
  Rows,     // the softmax dim is the last one: a group of threads per row, rows read coalesced
  Strided,  // the softmax dim has inner elements after it: a thread per row, adjacent threads
            // read adjacent elements
};

inline const char* softmax_path_name(SoftmaxPath p) {
  switch (p) {
    case SoftmaxPath::None:
      return "None";
    case SoftmaxPath::Rows:
      return "Rows";
    case SoftmaxPath::Strided:
      return "Strided";
  }
  return "?";
}

struct SoftmaxPlan {
  SoftmaxPath path = SoftmaxPath::None;
  int block_x = 0, block_y = 1;  // Rows: block_x threads per row, block_y rows per block
  int64_t grid_x = 0;
  // Rows: the block's rows (input; for the backward, grad_out and output) are kept in dynamic
  // shared memory, so global memory is read once and written once.
  bool cached = false;
  size_t shared_bytes = 0;
};

constexpr int kSoftmaxThreads = 256;
// Rows: threads per row are sized so that each handles at least this many elements.
constexpr int64_t kSoftmaxElemsPerThread = 16;
// Rows: the row cache is used while a block's rows fit in this much shared memory (under CUDA's
// 48 KiB per block without opting in, leaving room for the kernels' static shared memory).
constexpr size_t kSoftmaxMaxSharedBytes = 40 * 1024;
constexpr int64_t kSoftmaxMaxBlocks = int64_t(1) << 20;

// `rows` rows of D elements, `inner` elements apart (inner == 1: contiguous rows).
inline SoftmaxPlan plan_softmax(int64_t rows, int64_t D, int64_t inner, size_t elem_size,
                                bool backward) {
  SoftmaxPlan p;
  if (rows == 0 || D == 0) return p;
  auto blocks = [](int64_t n, int64_t per_block) {
    return std::min((n + per_block - 1) / per_block, kSoftmaxMaxBlocks);
  };
  if (inner != 1) {
    p.path = SoftmaxPath::Strided;
    p.block_x = kSoftmaxThreads;
    p.grid_x = blocks(rows, kSoftmaxThreads);
    return p;
  }
  int64_t bx = 32;
  while (bx < kSoftmaxThreads && bx * kSoftmaxElemsPerThread < D) bx *= 2;
  p.path = SoftmaxPath::Rows;
  p.block_x = static_cast<int>(bx);
  p.block_y = static_cast<int>(kSoftmaxThreads / bx);
  p.grid_x = blocks(rows, p.block_y);
  const size_t bytes =
      static_cast<size_t>(p.block_y) * static_cast<size_t>(D) * elem_size * (backward ? 2 : 1);
  if (bytes <= kSoftmaxMaxSharedBytes) {
    p.cached = true;
    p.shared_bytes = bytes;
  }
  return p;
}

}  // namespace ember::cuda
