#pragma once
// Overflow-checked size arithmetic, in one place: the element count of a shape, contiguous
// strides, the bytes a storage needs for (sizes, strides, offset), and rounding a byte count up to
// an allocator's granule. Factories, views (through TensorImpl), from_blob/empty_strided/
// as_strided, the loaders and the allocators all go through these, so a size whose count does not
// fit is a ValueError naming the sizes (PyTorch's "Storage size calculation overflowed with
// sizes=[...]") instead of a wrapped count and a buffer too small for its tensor.
//
// The rules:
//  - a shape is valid when no size is negative and the product of max(size, 1) over its dims
//    fits in int64 (so its contiguous strides are representable, also for an empty shape);
//  - a new storage holds at most INT64_MAX bytes;
//  - strides are non-negative.
#include <cstddef>
#include <cstdint>

#include "ember/array_ref.h"
#include "ember/error.h"

namespace ember::checked {

// *out = a * b (a + b); false when the result does not fit in int64.
inline bool mul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool add(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// a * b, or `fallback` when that does not fit: for the stride of a dim of size 1 (or of an empty
// tensor's dim), which never moves a pointer, so any value is right.
inline int64_t mul_or(int64_t a, int64_t b, int64_t fallback) {
  int64_t r;
  return mul(a, b, &r) ? r : fallback;
}

// *out = n rounded up to a multiple of `granule` (> 0); false when that does not fit in size_t.
inline bool round_up(size_t n, size_t granule, size_t* out) {
  size_t t;
  if (__builtin_add_overflow(n, granule - 1, &t)) return false;
  *out = t / granule * granule;
  return true;
}

// The element count of `sizes`. Throws ValueError for a negative size or a shape whose product
// of max(size, 1) overflows int64 (the message names the sizes).
EMBER_API int64_t numel(IntArrayRef sizes);

// Row-major strides of `sizes` (dims of size 0 and 1 count as 1), checked as numel() checks.
EMBER_API DimVector contiguous_strides(IntArrayRef sizes);

// Bytes of a new contiguous tensor of `sizes`: numel * itemsize, at most INT64_MAX, else
// ValueError "Storage size calculation overflowed with sizes=[...]".
EMBER_API size_t contiguous_nbytes(IntArrayRef sizes, size_t itemsize);

// Bytes a storage needs so that every element of (sizes, strides) at `storage_offset` lies in it:
// (offset + 1 + sum((size - 1) * stride)) * itemsize, or 0 when some size is 0 (as PyTorch).
// Throws ValueError naming `op` for mismatched lengths, negative sizes, strides or offset, and
// "Storage size calculation overflowed with sizes=[...] and strides=[...]" when that count
// does not fit in int64.
EMBER_API size_t strided_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
                                size_t itemsize, const char* op);

}  // namespace ember::checked
