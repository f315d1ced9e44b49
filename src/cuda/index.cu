// Index family on CUDA: index_select, index_add, gather, scatter_add. Each runs the strided loop
// over the shape it writes or reads, with the indexed tensor seen through a view whose stride
// along `dim` is zero; the kernel adds index * stride itself. Accumulating ops use atomics.
// Indices are bounds-checked on the host before the launch (one small device-to-host copy), so a
// bad index is an IndexError rather than a device-side assert that would poison the context.
#include "core/tensor_factory.h"
#include "cuda/atomic.cuh"
#include "cuda/cuda_backend.h"
#include "cuda/loop.cuh"

namespace ember::cuda {
namespace {

// p[0] out, p[1] in at index 0 along dim, p[2] the index.
template <typename T>
struct SelectFn {
  int64_t in_sd;  // bytes
  __device__ void operator()(char** p, int64_t) const {
    const int64_t i = *reinterpret_cast<const int64_t*>(p[2]);
    *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[1] + i * in_sd);
  }
};
// p[0] the value, p[1] the target at index 0 along dim, p[2] the index.
template <typename T>
struct AccumulateFn {
  int64_t out_sd;
  __device__ void operator()(char** p, int64_t) const {
    const int64_t i = *reinterpret_cast<const int64_t*>(p[2]);
    atomic_add(reinterpret_cast<T*>(p[1] + i * out_sd), *reinterpret_cast<const T*>(p[0]));
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

// The index on out's device, after checking every value lies in [0, size).
Tensor checked_index(const Tensor& index, const Tensor& like, int64_t size, int64_t dim,
                     const char* op) {
  EMBER_CHECK(index.dtype() == kLong, TypeError, op, "(): Expected dtype int64 for index, got ",
              to_string(index.dtype()));
  // As PyTorch: the index lives on the tensor's device (a CPU index is an error, not a copy).
  if (index.device() != like.device()) check_same_device(like, index, op);
  Tensor host = make_empty(index.sizes(), kLong, Device(kCPU));
  if (index.numel() > 0) backend_for(index).copy(host, index, false);
  const int64_t* v = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    EMBER_CHECK(v[i] >= 0 && v[i] < size, IndexError, op, "(): index ", v[i],
                " is out of bounds for dimension ", dim, " with size ", size);
  }
  return index;
}

}  // namespace

void CudaBackend::index_select(const Tensor& out, const Tensor& in, int64_t dim,
                               const Tensor& index) {
  check_operands("index_select", {&out, &in});
  if (in.dim() == 0) {
    checked_index(index, out, 1, dim, "index_select");
    cast_copy(out, in);
    return;
  }
  Tensor idx = checked_index(index, out, in.size(dim), dim, "index_select");
  if (out.numel() == 0) return;
  Tensor in_r = restrided(in, out.sizes(), dim);
  Tensor idx_b = index_along(idx, out.sizes(), dim);
  EMBER_DISPATCH_ALL(in.dtype(), "index_select", [&] {
    const int64_t sd = in.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&out, &in_r, &idx_b}, SelectFn<scalar_t>{sd});
  });
}

void CudaBackend::index_add(const Tensor& out, int64_t dim, const Tensor& index,
                            const Tensor& src) {
  check_operands("index_add_", {&out, &src});
  if (out.dim() == 0) {
    checked_index(index, out, 1, dim, "index_add_");
    binary(BinaryOp::Add, out, out, src, OpParams{1.0, 0.0});
    return;
  }
  Tensor idx = checked_index(index, out, out.size(dim), dim, "index_add_");
  if (src.numel() == 0) return;
  Tensor out_r = restrided(out, src.sizes(), dim);
  Tensor idx_b = index_along(idx, src.sizes(), dim);
  EMBER_DISPATCH_ALL(out.dtype(), "index_add_", [&] {
    const int64_t sd = out.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&src, &out_r, &idx_b}, AccumulateFn<scalar_t>{sd});
  });
}

void CudaBackend::gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  check_operands("gather", {&out, &in});
  if (in.dim() == 0) {
    checked_index(index, out, 1, dim, "gather");
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
  Tensor idx = checked_index(index, out, in.size(dim), dim, "gather");
  if (out.numel() == 0) return;
  Tensor in_r = restrided(in, index.sizes(), dim);
  EMBER_DISPATCH_ALL(in.dtype(), "gather", [&] {
    const int64_t sd = in.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&out, &in_r, &idx}, SelectFn<scalar_t>{sd});
  });
}

void CudaBackend::scatter_add(const Tensor& out, int64_t dim, const Tensor& index,
                              const Tensor& src) {
  check_operands("scatter_add_", {&out, &src});
  if (out.dim() == 0) {
    checked_index(index, out, 1, dim, "scatter_add_");
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
  Tensor idx = checked_index(index, out, out.size(dim), dim, "scatter_add_");
  if (index.numel() == 0) return;
  Tensor out_r = restrided(out, index.sizes(), dim);
  Tensor src_r = make_view(src, index.sizes(), src.strides(), src.storage_offset());
  EMBER_DISPATCH_ALL(out.dtype(), "scatter_add_", [&] {
    const int64_t sd = out.stride(dim) * static_cast<int64_t>(sizeof(scalar_t));
    launch_elementwise<3>({&src_r, &out_r, &idx}, AccumulateFn<scalar_t>{sd});
  });
}

}  // namespace ember::cuda
