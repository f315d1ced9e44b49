// Copy (with casts), fill and where on the CPU.
#include <algorithm>
#include <cstring>

#include "core/cast_value.h"
#include "core/dispatch.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"

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

}  // namespace

void CpuBackend::copy(const Tensor& dst, const Tensor& src, bool) {
  EMBER_CHECK(src.is_cpu() && dst.is_cpu(), DeviceError, "CPU copy asked to copy between ",
              src.device(), " and ", dst.device());
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.sizes() == src.sizes()) {
    if (dst.data_ptr() != src.data_ptr()) std::memcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes());
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
