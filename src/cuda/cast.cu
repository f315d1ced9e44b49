// Same-device elementwise copies with casts (any strides, src broadcast to dst), fill and where.
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "kernel_math/cast_value.h"

namespace ember::cuda {
namespace {

template <typename dst_t, typename src_t>
struct CastFn {
  using operand_types = OperandTypes<dst_t, src_t>;
  // The CPU copy's conversion (PyTorch's CPU semantics), not the GPU's saturating cvt.
  __device__ dst_t value(src_t x) const { return cast_value<dst_t, src_t>(x); }
  __device__ void operator()(char** p, int64_t) const {
    *reinterpret_cast<dst_t*>(p[0]) = value(*reinterpret_cast<const src_t*>(p[1]));
  }
};

template <typename T>
struct FillFn {
  using operand_types = OperandTypes<T>;
  T fill;
  __device__ T value() const { return fill; }
  __device__ void operator()(char** p, int64_t) const { *reinterpret_cast<T*>(p[0]) = fill; }
};

template <typename T>
struct WhereFn {
  __device__ void operator()(char** p, int64_t) const {
    const bool c = *reinterpret_cast<const bool*>(p[1]);
    *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[c ? 2 : 3]);
  }
};

}  // namespace

void cast_copy(const Tensor& dst, const Tensor& src) {
  check_operands("copy_", {&dst, &src});
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.sizes() == src.sizes()) {
    if (dst.data_ptr() == src.data_ptr() || dst.nbytes() == 0) return;
    DeviceGuard guard(dst.device().index());
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(),
                                     cudaMemcpyDeviceToDevice, detail::stream_of(dst)));
    return;
  }
  EMBER_DISPATCH_ALL(dst.dtype(), "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL(src.dtype(), "copy_", [&] {
      launch_elementwise<2>({&dst, &src}, CastFn<dst_t, scalar_t>{});
    });
  });
}

void CudaBackend::fill(const Tensor& out, const Scalar& value) {
  EMBER_DISPATCH_ALL(out.dtype(), "fill_", [&] {
    launch_elementwise<1>({&out}, FillFn<scalar_t>{value.to<scalar_t>()});
  });
}

void CudaBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_operands("where", {&out, &cond, &a, &b});
  EMBER_DISPATCH_ALL(out.dtype(), "where", [&] {
    launch_elementwise<4>({&out, &cond, &a, &b}, WhereFn<scalar_t>{});
  });
}

}  // namespace ember::cuda
