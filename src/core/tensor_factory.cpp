// Allocation of tensors and views.
#include "core/tensor_factory.h"

#include "core/backend.h"
#include "core/checked_size.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes) {
  return checked::contiguous_strides(sizes);
}

Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device, bool pinned) {
  // Negative sizes, and counts or byte counts beyond int64, are ValueErrors naming the sizes.
  const size_t nbytes = checked::contiguous_nbytes(sizes, element_size(dtype));
  check_device_has_backend(device);
  Allocator* alloc;
  if (device.is_cuda() || device.is_meta()) {
    EMBER_CHECK(!pinned, ValueError, "Only dense CPU tensors can be pinned");
    alloc = (device.is_cuda() ? cuda_backend() : meta_backend()).allocator(device);
  } else {
    alloc = pinned ? pinned_host_allocator() : cpu_allocator();
  }
  auto storage = make_ref<StorageImpl>(alloc->allocate(nbytes), nbytes, pinned);
  // For a profile that records memory (the free is reported by ~StorageImpl).
  if (audit::active()) audit::record_alloc_slow(storage->data.get(), nbytes, device);
  return Tensor(
      make_ref<TensorImpl>(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides,
                 int64_t storage_offset) {
  return Tensor(
      make_ref<TensorImpl>(base.impl()->storage(), base.dtype(), sizes, strides, storage_offset));
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a 0-dim tensor accepts dims -1 and 0
  if (dim < -n || dim >= n) {
    throw IndexError(detail::str_cat(op ? op : "", op ? ": " : "",
                                     "Dimension out of range (expected to be in range of [", -n,
                                     ", ", n - 1, "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + n : dim;
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  if (a.device() == b.device()) return;
  throw DeviceError(detail::str_cat(
      "Expected all tensors to be on the same device, but found at least two devices, ", a.device(),
      " and ", b.device(), "! (when checking arguments for ", op, ")"));
}

Tensor gemm_batch_item(const Tensor& t, int64_t i) {
  if (t.size(0) == 1) return t;
  return make_view(t, {1, t.size(1), t.size(2)}, t.strides(), t.storage_offset() + i * t.stride(0));
}

}  // namespace ember
