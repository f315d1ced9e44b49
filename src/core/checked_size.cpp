// Overflow-checked size arithmetic (see checked_size.h). The throws live here, out of line, so the
// inline callers stay small.
#include "core/checked_size.h"

namespace ember::checked {
namespace {

[[noreturn]] void negative_size(int64_t s, IntArrayRef sizes) {
  throw ValueError(
      detail::str_cat("Trying to create tensor with negative dimension ", s, ": ", sizes));
}

// numel and the product of max(size, 1); false when either does not fit.
bool count(IntArrayRef sizes, int64_t* numel, int64_t* span) {
  int64_t n = 1, s = 1;
  bool zero = false;
  for (int64_t d : sizes) {
    if (d < 0) negative_size(d, sizes);
    if (d == 0) {
      zero = true;
      continue;
    }
    if (!mul(s, d, &s)) return false;
  }
  n = zero ? 0 : s;
  *numel = n;
  *span = s;
  return true;
}

// `what` overflowed; an empty shape can overflow only in its strides, which the message says.
[[noreturn]] void overflow(IntArrayRef sizes, const char* what) {
  bool zero = false;
  for (int64_t d : sizes) zero |= d == 0;
  if (zero) {
    throw ValueError(detail::str_cat(what, " with sizes=", sizes,
                                     ": the contiguous strides of this empty shape (the product "
                                     "of its non-zero sizes) do not fit in int64"));
  }
  throw ValueError(detail::str_cat(what, " with sizes=", sizes));
}

}  // namespace

int64_t numel(IntArrayRef sizes) {
  int64_t n, span;
  if (!count(sizes, &n, &span)) overflow(sizes, "numel: integer multiplication overflow");
  return n;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  numel(sizes);  // the product of max(size, 1), the largest stride's span, fits
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return strides;
}

size_t contiguous_nbytes(IntArrayRef sizes, size_t itemsize) {
  int64_t n, span, bytes;
  if (!count(sizes, &n, &span) || !mul(n, static_cast<int64_t>(itemsize), &bytes)) {
    overflow(sizes, "Storage size calculation overflowed");
  }
  return static_cast<size_t>(bytes);
}

size_t strided_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset,
                      size_t itemsize, const char* op) {
  EMBER_CHECK(sizes.size() == strides.size(), ValueError, op, ": sizes ", sizes, " and strides ",
              strides, " must have the same length");
  for (int64_t s : sizes) {
    if (s < 0) negative_size(s, sizes);
  }
  for (int64_t st : strides) {
    EMBER_CHECK(st >= 0, ValueError, op,
                ": Negative strides are not supported at the moment, got strides: ", strides);
  }
  EMBER_CHECK(storage_offset >= 0, ValueError, op, ": invalid storage offset ", storage_offset);
  numel(sizes);  // also the count of the elements must fit
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  // The furthest element's index + 1, then bytes.
  int64_t extent = 1, term, bytes;
  bool ok = add(extent, storage_offset, &extent);
  for (size_t i = 0; ok && i < sizes.size(); ++i) {
    ok = mul(sizes[i] - 1, strides[i], &term) && add(extent, term, &extent);
  }
  ok = ok && mul(extent, static_cast<int64_t>(itemsize), &bytes);
  EMBER_CHECK(ok, ValueError, op, ": Storage size calculation overflowed with sizes=", sizes,
              " and strides=", strides,
              storage_offset ? detail::str_cat(" at storage offset ", storage_offset) : "");
  return static_cast<size_t>(bytes);
}

}  // namespace ember::checked
