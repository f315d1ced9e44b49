// Index family on CUDA: index_select, index_add, index_copy, gather, scatter_add. Each runs the
// strided loop over the shape it writes or reads, with the indexed tensor seen through a view whose
// stride along `dim` is zero; the kernel adds index * stride itself. Accumulating ops use atomics,
// so under use_deterministic_algorithms they refuse floating types, and index_copy (repeated
// indices) refuses all (ember/backends.h).
// Indices are bounds-checked in the kernel (EMBER_KERNEL_ASSERT, as PyTorch's device asserts): a
// bad index is a sticky "device-side assert triggered", and a good one costs no host sync.
#include "core/tensor_factory.h"
#include "cuda/atomic.cuh"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"
#include "ember/backends.h"
#include "kernel_assert.cuh"  // src/cuda_nvcc or src/cuda_sim/backend, by CMake

namespace ember::cuda {
namespace {

// p[0] out, p[1] in at index 0 along dim, p[2] the index.
template <typename T>
struct SelectFn {
  int64_t in_sd;  // bytes
  int64_t size;   // of the indexed dim
  __device__ void operator()(char** p, int64_t) const {
    const int64_t i = *reinterpret_cast<const int64_t*>(p[2]);
    EMBER_KERNEL_ASSERT(i >= 0 && i < size, "index out of bounds");
    *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[1] + i * in_sd);
  }
};
// p[0] the value, p[1] the target at index 0 along dim, p[2] the index.
template <typename T>
struct AccumulateFn {
  int64_t out_sd;
  int64_t size;
  __device__ void operator()(char** p, int64_t) const {
    const int64_t i = *reinterpret_cast<const int64_t*>(p[2]);
    EMBER_KERNEL_ASSERT(i >= 0 && i < size, "index out of bounds");
    atomic_add(reinterpret_cast<T*>(p[1] + i * out_sd), *reinterpret_cast<const T*>(p[0]));
  }
};
// p[0] the value, p[1] the target at index 0 along dim, p[2] the index. Where an index repeats,
// which value lands is unspecified (as PyTorch's index_put_ on CUDA).
template <typename T>
struct StoreFn {
  int64_t out_sd;
  int64_t size;
  __device__ void operator()(char** p, int64_t) const {
    const int64_t i = *reinterpret_cast<const int64_t*>(p[2]);
    EMBER_KERNEL_ASSERT(i >= 0 && i < size, "index out of bounds");
    *reinterpret_cast<T*>(p[1] + i * out_sd) = *reinterpret_cast<const T*>(p[0]);
  }
};
// Only checks: the indices used with a 0-dim tensor must all be 0.
struct IndexBoundsFn {
  int64_t size;
  __device__ void operator()(char** p, int64_t) const {
    const int64_t i = *reinterpret_cast<const int64_t*>(p[0]);
    EMBER_KERNEL_ASSERT(i >= 0 && i < size, "index out of bounds");
  }
};

// `t` seen with `sizes`, its own strides, and stride 0 along `dim`.
Tensor restrided(const Tensor& t, IntArrayRef sizes, int64_t dim) {
  DimVector strides(t.strides());
  strides[dim] = 0;
  return make_view(t, sizes, strides, t.storage_offset());
}

// A 1-D index broadcast over `sizes` along `dim`.
Tensor index_along(const Tensor& index, IntArrayRef sizes, int64_t dim) {
  DimVector strides(sizes.size(), 0);
  strides[dim] = index.dim() == 0 ? 0 : index.stride(0);
  return make_view(index, sizes, strides, index.storage_offset());
}

// The index, after the checks that need no device data: dtype, and the device (as PyTorch, an
// index on another device is an error, not a copy). Values are checked by the kernels.
const Tensor& checked_index(const Tensor& index, const Tensor& like, const char* op) {
  EMBER_CHECK(index.dtype() == kLong, TypeError, op, "(): Expected dtype int64 for index, got ",
              to_string(index.dtype()));
  if (index.device() != like.device()) check_same_device(like, index, op);
  return index;
}

// For a 0-dim tensor (one element along `dim`): every index must be 0.
void check_scalar_indices(const Tensor& index) {
  if (index.numel() > 0) launch_elementwise<1>({&index}, IndexBoundsFn{1});
}

}  // namespace

void CudaBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim,
                               const Tensor& index) {
  check_operands("index_select", {&out, &in});
  if (in.dim() == 0) {
    check_scalar_indices(checked_index(index, out, "index_select"));
    cast_copy(out, in);
    return;
  }
  const Tensor& idx = checked_index(index, out, "index_select");
  if (out.numel() == 0) return;
  Tensor in_r = restrided(in, out.sizes(), dim);
  Tensor idx_b = index_along(idx, out.sizes(), dim);
  EMBER_DISPATCH_ALL(in.dtype(), "index_select", [&] {
    const int64_t sd = in.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&out, &in_r, &idx_b}, SelectFn<scalar_t>{sd, in.size(dim)});
  });
}

void CudaBackend::index_add(const Tensor& out, int64_t dim, const Tensor& index,
                            const Tensor& src) {
  check_operands("index_add_", {&out, &src});
  if (out.dim() == 0) {
    check_scalar_indices(checked_index(index, out, "index_add_"));
    binary(BinaryOp::Add, out, out, src, OpParams{1.0, 0.0});
    return;
  }
  const Tensor& idx = checked_index(index, out, "index_add_");
  if (src.numel() == 0) return;
  // Float atomics add in whatever order the hardware applies them.
  if (is_floating_point(out.dtype())) ember::detail::alert_not_deterministic("index_add_cuda_");
  Tensor out_r = restrided(out, src.sizes(), dim);
  Tensor idx_b = index_along(idx, src.sizes(), dim);
  EMBER_DISPATCH_ALL(out.dtype(), "index_add_", [&] {
    const int64_t sd = out.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&src, &out_r, &idx_b}, AccumulateFn<scalar_t>{sd, out.size(dim)});
  });
}

void CudaBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  check_operands("gather", {&out, &in});
  if (in.dim() == 0) {
    check_scalar_indices(checked_index(index, out, "gather"));
    cast_copy(out, in);
    return;
  }
  EMBER_CHECK(index.dim() == in.dim(), IndexError,
              "gather(): Index tensor must have the same number of dimensions as input tensor (",
              index.dim(), " vs ", in.dim(), ")");
  EMBER_CHECK(out.sizes() == index.sizes(), ValueError, "gather(): output shape ", out.sizes(),
              " differs from index shape ", index.sizes());
  for (int64_t d = 0; d < in.dim(); ++d) {
    EMBER_CHECK(d == dim || index.size(d) <= in.size(d), IndexError,
                "gather(): Size does not match at dimension ", d, " expected index ", index.sizes(),
                " to be smaller than self ", in.sizes(), " apart from dimension ", dim);
  }
  const Tensor& idx = checked_index(index, out, "gather");
  if (out.numel() == 0) return;
  Tensor in_r = restrided(in, index.sizes(), dim);
  EMBER_DISPATCH_ALL(in.dtype(), "gather", [&] {
    const int64_t sd = in.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&out, &in_r, &idx}, SelectFn<scalar_t>{sd, in.size(dim)});
  });
}

void CudaBackend::scatter_add(const Tensor& out, int64_t dim, const Tensor& index,
                              const Tensor& src) {
  check_operands("scatter_add_", {&out, &src});
  if (out.dim() == 0) {
    check_scalar_indices(checked_index(index, out, "scatter_add_"));
    binary(BinaryOp::Add, out, out, src, OpParams{1.0, 0.0});
    return;
  }
  EMBER_CHECK(index.dim() == out.dim() && src.dim() == out.dim(), IndexError,
              "scatter_add_(): Index tensor must have the same number of dimensions as self and "
              "src (",
              index.dim(), " vs ", out.dim(), " and ", src.dim(), ")");
  for (int64_t d = 0; d < out.dim(); ++d) {
    EMBER_CHECK((d == dim || index.size(d) <= out.size(d)) && index.size(d) <= src.size(d),
                IndexError, "scatter_add_(): Expected index ", index.sizes(),
                " to be smaller than self ", out.sizes(), " apart from dimension ", dim,
                " and to be smaller size than src ", src.sizes());
  }
  const Tensor& idx = checked_index(index, out, "scatter_add_");
  if (index.numel() == 0) return;
  if (is_floating_point(out.dtype())) {
    ember::detail::alert_not_deterministic("scatter_add_cuda_kernel");
  }
  Tensor out_r = restrided(out, index.sizes(), dim);
  Tensor src_r = make_view(src, index.sizes(), src.strides(), src.storage_offset());
  EMBER_DISPATCH_ALL(out.dtype(), "scatter_add_", [&] {
    const int64_t sd = out.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&src_r, &out_r, &idx}, AccumulateFn<scalar_t>{sd, out.size(dim)});
  });
}

void CudaBackend::index_copy(const Tensor& out, int64_t dim, const Tensor& index,
                             const Tensor& src) {
  check_operands("index_copy_", {&out, &src});
  if (out.dim() == 0) {
    check_scalar_indices(checked_index(index, out, "index_copy_"));
    cast_copy(out, src);
    return;
  }
  const Tensor& idx = checked_index(index, out, "index_copy_");
  if (src.numel() == 0) return;
  // Where an index repeats, the store that lands last depends on scheduling.
  ember::detail::alert_not_deterministic("index_copy_cuda_");
  Tensor out_r = restrided(out, src.sizes(), dim);
  Tensor idx_b = index_along(idx, src.sizes(), dim);
  EMBER_DISPATCH_ALL(out.dtype(), "index_copy_", [&] {
    const int64_t sd = out.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&src, &out_r, &idx_b}, StoreFn<scalar_t>{sd, out.size(dim)});
  });
}

}  // namespace ember::cuda
