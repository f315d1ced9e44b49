#pragma once
// Internal helpers every front end uses to make outputs and views.
#include "ember/tensor.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes);
// A new uninitialised tensor. `device` with index -1 resolves to the current device.
EMBER_API Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device,
                            bool pinned = false);
// A view of `base`'s storage with new sizes, strides and offset (no autograd recorded).
EMBER_API Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides,
                           int64_t storage_offset);
// Item i of a gemm operand [B, M, N] as a batch of one (no autograd); a batch of one is shared.
EMBER_API Tensor gemm_batch_item(const Tensor& t, int64_t i);
// Wraps a negative dim; throws IndexError naming the op and the valid range.
EMBER_API int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op = nullptr);
// Throws the PyTorch message when the tensors are not all on one device.
EMBER_API void check_same_device(const Tensor& a, const Tensor& b, const char* op);
// Pinned (page-locked) host memory: src/cuda's caching host allocator, or the stub's error.
EMBER_API Allocator* pinned_host_allocator();

}  // namespace ember
