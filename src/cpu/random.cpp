// arange and random numbers on the CPU.
//
// Random tensors are counter based (src/kernel_math/philox.h): element i, counted in row-major
// order of `out` whatever its strides, is computed from the single Philox block
// philox4x32_10(offset + i, seed) by philox::uniform_element / normal_element / randint_element.
// The CUDA backend uses the same functions and the same numbering, so a seed gives the same
// tensor on both devices, and a non-contiguous output holds the values a contiguous one would.
#include <cmath>

#include "core/arange_int.h"
#include "cpu/cpu_backend.h"
#include "cpu/loop.h"
#include "cpu/num_threads.h"
#include "kernel_math/cast_value.h"
#include "kernel_math/dispatch.h"
#include "kernel_math/philox.h"

namespace ember::cpu {
namespace {

// Runs f(T* element, int64_t linear_index) over `out` in parallel, with the row-major index.
template <typename T, typename F>
void for_each_indexed(const Tensor& out, const F& f) {
  StridedLayout<1> L = make_layout<1>({&out});
  if (L.numel == 0) return;
  auto range = [&](int64_t b, int64_t e) {
    int64_t i = b;
    run_range<1>(L, b, e, [&](char** p, const int64_t* s, int64_t n) {
      for (int64_t j = 0; j < n; ++j, ++i) f(reinterpret_cast<T*>(p[0] + j * s[0]), i);
    });
  };
  const int threads = intra_op_threads();
  const int64_t grain = kParallelGrain / 8;  // Philox is ~100 cycles per element
  if (L.numel < grain || threads <= 1 || omp_in_parallel()) {
    range(0, L.numel);
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, (L.numel + grain - 1) / grain);
#pragma omp parallel for num_threads(chunks) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) range(L.numel * c / chunks, L.numel * (c + 1) / chunks);
}

}  // namespace

void CpuBackend::arange(const Tensor& out, const Scalar& start_s, const Scalar& step_s) {
  const double start = start_s.toDouble(), step = step_s.toDouble();
  EMBER_DISPATCH_ALL(out.dtype(), "arange", [&] {
    if constexpr (std::is_integral_v<scalar_t> && !std::is_same_v<scalar_t, bool>) {
      int64_t s0, st;
      if (arange_int_value(start_s, &s0) && arange_int_value(step_s, &st)) {
        for_each_indexed<scalar_t>(out, [&](scalar_t* p, int64_t i) {
          *p = static_cast<scalar_t>(philox::arange_int_element(s0, st, i));
        });
        return;
      }
    }
    for_each_indexed<scalar_t>(out, [&](scalar_t* p, int64_t i) {
      // Never fused into an FMA, and converted as copy_ converts: CUDA computes the same.
      *p = cast_value<scalar_t, double>(
          philox::add_rn(start, philox::mul_rn(step, static_cast<double>(i))));
    });
  });
}

void CpuBackend::random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
                        uint64_t offset) {
  switch (kind) {
    case RandomKind::Uniform:
      EMBER_DISPATCH_FLOATING(out.dtype(), "uniform_", [&] {
        for_each_indexed<scalar_t>(out, [&](scalar_t* p, int64_t i) {
          *p = philox::uniform_element<scalar_t>(philox::philox4x32_10(offset + i, seed), a, b);
        });
      });
      return;
    case RandomKind::Normal:
      EMBER_DISPATCH_FLOATING(out.dtype(), "normal_", [&] {
        for_each_indexed<scalar_t>(out, [&](scalar_t* p, int64_t i) {
          *p = philox::normal_element<scalar_t>(philox::philox4x32_10(offset + i, seed), a, b);
        });
      });
      return;
    case RandomKind::RandInt: {
      // The bounds are integers carried in doubles (2^63 for INT64_MAX: saturated, not cast).
      const RandIntRange r = randint_range(float_to_int64(a), float_to_int64(b));
      EMBER_DISPATCH_ALL(out.dtype(), "randint", [&] {
        for_each_indexed<scalar_t>(out, [&](scalar_t* p, int64_t i) {
          const int64_t v =
              philox::randint_element(philox::philox4x32_10(offset + i, seed), r.low, r.range);
          if constexpr (std::is_same_v<scalar_t, Half> || std::is_same_v<scalar_t, BFloat16>) {
            *p = scalar_t(static_cast<float>(v));
          } else {
            *p = static_cast<scalar_t>(v);
          }
        });
      });
      return;
    }
  }
  throw NotImplementedError("unknown random kind");
}

}  // namespace ember::cpu
