#pragma once
// What the linalg front ends share (linalg_lu.cpp, linalg_cholesky.cpp, the decompositions):
// argument checks, the column-major copies the LAPACK-style families work in, and the check of
// their `info`.
#include <string>
#include <vector>

#include "core/tensor_factory.h"
#include "ember/tensor.h"

namespace ember::linalg::linalg_helpers {

inline Tensor mT(const Tensor& t) {
  return t.transpose(-2, -1);
}

// float16 and bfloat16, which PyTorch refuses here, run in float32 and are rounded once: a
// 16-bit model may take a determinant without casting by hand.
inline bool is_16bit(const Tensor& t) {
  return t.scalar_type() == kHalf || t.scalar_type() == kBFloat16;
}

inline void check_square(const Tensor& A, const char* op) {
  EMBER_CHECK(A.dim() >= 2, ValueError, op,
              ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(A.size(-1) == A.size(-2), ValueError, op,
              ": A must be batches of square matrices, but they are ", A.size(-2), " by ",
              A.size(-1), " matrices");
  const ScalarType t = A.scalar_type();
  EMBER_CHECK(t == kFloat || t == kDouble || is_16bit(A), TypeError, op,
              ": Expected a floating point or complex tensor as input. Got ", t);
}

// Batches [..., m, n] of float matrices, square or not (the decompositions).
inline void check_matrices(const Tensor& A, const char* op) {
  EMBER_CHECK(A.dim() >= 2, ValueError, op,
              ": The input tensor A must have at least 2 dimensions.");
  const ScalarType t = A.scalar_type();
  EMBER_CHECK(t == kFloat || t == kDouble || is_16bit(A), TypeError, op,
              ": Expected a floating point or complex tensor as input. Got ", t);
}

inline std::vector<int64_t> batch_of(const Tensor& t) {
  return {t.sizes().begin(), t.sizes().end() - 2};
}
inline int64_t count(const std::vector<int64_t>& batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}
inline std::vector<int64_t> with_matrix(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// Each matrix of t [B, r, c] column-major, in a fresh buffer the families may overwrite: the
// row-major tensor t^T [B, c, r].
inline Tensor column_major_copy(const Tensor& t) {
  Tensor out = make_empty({t.size(0), t.size(2), t.size(1)}, t.scalar_type(), t.device());
  out.copy_(mT(t));
  return out;
}

// Throws LinAlgError for the first matrix whose factorisation failed (info > 0: a zero on U's
// diagonal, a minor not positive-definite), with message(info). Reading info is a host sync on
// CUDA, as PyTorch's check is.
template <typename Message>
void check_factorised(const Tensor& info, bool batched, const char* op, Message message) {
  if (info.numel() == 0 || info.device().is_meta()) return;
  const Tensor host = info.to(Device(kCPU)).contiguous();
  const int32_t* p = host.data_ptr<int32_t>();
  for (int64_t b = 0; b < host.numel(); ++b) {
    if (p[b] == 0) continue;
    throw LinAlgError(detail::str_cat(
        op, ": ", batched ? detail::str_cat("(Batch element ", b, "): ") : std::string(),
        message(p[b])));
  }
}

}  // namespace ember::linalg::linalg_helpers
