// Copy (with casts), fill and where on the CPU.
#include <algorithm>
#include <cstring>

#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "kernel_math/cast_value.h"
#include "kernel_math/dispatch.h"

namespace ember::cpu {
namespace {

// float32 -> bfloat16 over a contiguous run: BFloat16(float)'s rounding (nearest even, NaN kept
// as a quiet NaN) without its early return, so the compiler vectorises the loop (autocast casts
// every activation and weight this way).
void floats_to_bfloat16(BFloat16* d, const float* x, int64_t n) {
  auto* out = reinterpret_cast<uint16_t*>(d);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, x + i, sizeof b);
    const uint32_t rounded = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (b >> 16) | 0x40u;
    out[i] = static_cast<uint16_t>((b & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
}

template <typename dst_t, typename src_t>
void cast_copy(const Tensor& dst, const Tensor& src) {
  for_each<2>({&dst, &src}, [](char** ptr, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(dst_t) && s[1] == sizeof(src_t)) {
      auto* d = reinterpret_cast<dst_t*>(ptr[0]);
      auto* x = reinterpret_cast<const src_t*>(ptr[1]);
      if constexpr (std::is_same_v<dst_t, src_t>) {
        std::memcpy(d, x, n * sizeof(dst_t));
      } else if constexpr (std::is_same_v<dst_t, BFloat16> && std::is_same_v<src_t, float>) {
        floats_to_bfloat16(d, x, n);
      } else {
        for (int64_t i = 0; i < n; ++i) d[i] = cast_value<dst_t, src_t>(x[i]);
      }
    } else if (s[0] == sizeof(dst_t) && s[1] == 0) {  // a broadcast value: a fill
      const auto v = cast_value<dst_t, src_t>(*reinterpret_cast<const src_t*>(ptr[1]));
      std::fill_n(reinterpret_cast<dst_t*>(ptr[0]), n, v);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<dst_t*>(ptr[0] + i * s[0]) =
            cast_value<dst_t, src_t>(*reinterpret_cast<const src_t*>(ptr[1] + i * s[1]));
      }
    }
  });
}

bool overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const auto* pa = static_cast<const char*>(a);
  const auto* pb = static_cast<const char*>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

// dst [.., R, C] contiguous = src whose last two dims are a contiguous [.., C, R] transposed (a
// weight.t().contiguous(), an attention transpose): copied in square tiles, so that both sides
// touch whole cache lines. Element by element, each read of the strided side lands on a new line
// (a 1024x1024 float transpose took 12 ns per element). 16 rows per tile: with 32, a 4 KiB
// source stride maps all of a tile's lines onto the same cache sets.
bool is_batched_transpose(const Tensor& dst, const Tensor& src) {
  const int64_t d = src.dim();
  if (d < 2 || dst.dtype() != src.dtype() || !dst.is_contiguous() || dst.sizes() != src.sizes())
    return false;
  const int64_t R = src.size(d - 2), C = src.size(d - 1);
  if (R < 16 || C < 16 || src.stride(d - 2) != 1 || src.stride(d - 1) != R) return false;
  int64_t expected = R * C;
  for (int64_t i = d - 3; i >= 0; --i) {
    if (src.size(i) != 1 && src.stride(i) != expected) return false;
    expected *= src.size(i);
  }
  return true;
}

template <typename T>
void transpose_tiles(T* dst, const T* src, int64_t batches, int64_t R, int64_t C) {
  constexpr int64_t kTile = 16;
  const int64_t row_tiles = (R + kTile - 1) / kTile, col_tiles = (C + kTile - 1) / kTile;
  parallel_for(batches * row_tiles, kTile * C, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / row_tiles, r0 = (t % row_tiles) * kTile;
      const int64_t r1 = std::min(R, r0 + kTile);
      T* out = dst + b * R * C;
      const T* in = src + b * R * C;  // in[c * R + r] is element (r, c)
      for (int64_t ct = 0; ct < col_tiles; ++ct) {
        const int64_t c0 = ct * kTile, c1 = std::min(C, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) out[r * C + c] = in[c * R + r];
        }
      }
    }
  });
}

void copy_batched_transpose(const Tensor& dst, const Tensor& src) {
  const int64_t d = src.dim(), R = src.size(d - 2), C = src.size(d - 1);
  const int64_t batches = R * C == 0 ? 0 : src.numel() / (R * C);
  const void* from = src.data_ptr();
  void* to = dst.data_ptr();
  switch (src.element_size()) {
    case 1:
      return transpose_tiles(static_cast<uint8_t*>(to), static_cast<const uint8_t*>(from), batches,
                             R, C);
    case 2:
      return transpose_tiles(static_cast<uint16_t*>(to), static_cast<const uint16_t*>(from),
                             batches, R, C);
    case 4:
      return transpose_tiles(static_cast<uint32_t*>(to), static_cast<const uint32_t*>(from),
                             batches, R, C);
    default:
      return transpose_tiles(static_cast<uint64_t*>(to), static_cast<const uint64_t*>(from),
                             batches, R, C);
  }
}

}  // namespace

void CpuBackend::copy(const Tensor& dst, const Tensor& src, bool) {
  EMBER_CHECK(src.is_cpu() && dst.is_cpu(), DeviceError, "CPU copy asked to copy between ",
              src.device(), " and ", dst.device());
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.sizes() == src.sizes()) {
    // An empty tensor may have no storage at all: memcpy must not see its null pointer.
    if (dst.nbytes() > 0 && dst.data_ptr() != src.data_ptr()) {
      std::memcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes());
    }
    return;
  }
  if (is_batched_transpose(dst, src) && src.element_size() <= 8 &&
      !overlaps(dst.data_ptr(), dst.nbytes(), src.data_ptr(), src.numel() * src.element_size())) {
    copy_batched_transpose(dst, src);
    return;
  }
  EMBER_DISPATCH_ALL(dst.dtype(), "copy", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL(src.dtype(), "copy", [&] { cast_copy<dst_t, scalar_t>(dst, src); });
  });
}

void CpuBackend::fill(const Tensor& out, const Scalar& value) {
  EMBER_DISPATCH_ALL(out.dtype(), "fill", [&] {
    const scalar_t v = value.to<scalar_t>();
    for_each<1>({&out}, [&](char** ptr, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(scalar_t)) {
        std::fill_n(reinterpret_cast<scalar_t*>(ptr[0]), n, v);
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<scalar_t*>(ptr[0] + i * s[0]) = v;
      }
    });
  });
}

void CpuBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_DISPATCH_ALL(out.dtype(), "where", [&] {
    for_each<4>({&out, &cond, &a, &b}, [](char** ptr, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const bool*>(ptr[1] + i * s[1]);
        *reinterpret_cast<scalar_t*>(ptr[0] + i * s[0]) =
            *reinterpret_cast<const scalar_t*>(ptr[c ? 2 : 3] + i * s[c ? 2 : 3]);
      }
    });
  });
}

}  // namespace ember::cpu
