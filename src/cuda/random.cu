// arange and random numbers on CUDA. Element i (row-major over `out`, whatever its strides)
// draws from philox4x32_10(offset + i, seed) through the same philox::*_element functions as
// src/cpu/random.cpp, so one seed gives the same tensor on both devices.
#include <cmath>

#include "core/arange_int.h"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/cast_value.h"
#include "kernel_math/philox.h"

namespace ember::cuda {
namespace {

template <typename T>
struct ArangeFn {
  double start, step;
  __device__ void operator()(char** p, int64_t i) const {
    // Not contracted into an FMA (nvcc would), so the CPU's arange is matched bit for bit; the
    // conversion is the CPU's too (cast_value: no saturating cvt for integer outputs).
    *reinterpret_cast<T*>(p[0]) =
        cast_value<T, double>(philox::add_rn(start, philox::mul_rn(step, static_cast<double>(i))));
  }
};
template <typename T>
struct ArangeIntFn {  // integer steps stay exact beyond 2^53
  int64_t start, step;
  __device__ void operator()(char** p, int64_t i) const {
    *reinterpret_cast<T*>(p[0]) = static_cast<T>(philox::arange_int_element(start, step, i));
  }
};

template <typename T>
struct UniformFn {
  double a, b;
  uint64_t seed, offset;
  __device__ void operator()(char** p, int64_t i) const {
    *reinterpret_cast<T*>(p[0]) =
        philox::uniform_element<T>(philox::philox4x32_10(offset + i, seed), a, b);
  }
};
template <typename T>
struct NormalFn {
  double mean, stddev;
  uint64_t seed, offset;
  __device__ void operator()(char** p, int64_t i) const {
    *reinterpret_cast<T*>(p[0]) =
        philox::normal_element<T>(philox::philox4x32_10(offset + i, seed), mean, stddev);
  }
};
template <typename T>
struct RandIntFn {
  int64_t low;
  uint64_t range, seed, offset;
  __device__ void operator()(char** p, int64_t i) const {
    const int64_t v = philox::randint_element(philox::philox4x32_10(offset + i, seed), low, range);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      *reinterpret_cast<T*>(p[0]) = T(static_cast<float>(v));
    } else {
      *reinterpret_cast<T*>(p[0]) = static_cast<T>(v);
    }
  }
};

}  // namespace

void CudaBackend::arange(const Tensor& out, const Scalar& start_s, const Scalar& step_s) {
  const double start = start_s.toDouble(), step = step_s.toDouble();
  EMBER_DISPATCH_ALL(out.dtype(), "arange", [&] {
    if constexpr (std::is_integral_v<scalar_t> && !std::is_same_v<scalar_t, bool>) {
      int64_t s0, st;
      if (arange_int_value(start_s, &s0) && arange_int_value(step_s, &st)) {
        launch_elementwise<1>({&out}, ArangeIntFn<scalar_t>{s0, st});
        return;
      }
    }
    launch_elementwise<1>({&out}, ArangeFn<scalar_t>{start, step});
  });
}

void CudaBackend::random(const Tensor& out, RandomKind kind, double a, double b, uint64_t seed,
                         uint64_t offset) {
  switch (kind) {
    case RandomKind::Uniform:
      EMBER_DISPATCH_FLOATING(out.dtype(), "uniform_", [&] {
        launch_elementwise<1>({&out}, UniformFn<scalar_t>{a, b, seed, offset});
      });
      return;
    case RandomKind::Normal:
      EMBER_DISPATCH_FLOATING(out.dtype(), "normal_", [&] {
        launch_elementwise<1>({&out}, NormalFn<scalar_t>{a, b, seed, offset});
      });
      return;
    case RandomKind::RandInt: {
      // The bounds are integers carried in doubles (2^63 for INT64_MAX: saturated, not cast).
      const RandIntRange r = randint_range(float_to_int64(a), float_to_int64(b));
      EMBER_DISPATCH_ALL(out.dtype(), "randint", [&] {
        launch_elementwise<1>({&out}, RandIntFn<scalar_t>{r.low, r.range, seed, offset});
      });
      return;
    }
  }
  throw NotImplementedError("unknown random kind");
}

}  // namespace ember::cuda
