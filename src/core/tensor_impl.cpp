// TensorImpl: metadata over a shared storage.
#include "ember/tensor_impl.h"

#include "core/checked_size.h"
#include "ember/autograd.h"

namespace ember {

TensorImpl::TensorImpl(Ref<StorageImpl> storage, ScalarType dtype, IntArrayRef sizes,
                       IntArrayRef strides, int64_t storage_offset)
    : storage_(std::move(storage)), storage_offset_(storage_offset), dtype_(dtype) {
  set_sizes_strides(sizes, strides);
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::throw_no_data() const {
  throw NotImplementedError(detail::str_cat("Cannot access the data of a meta tensor (sizes ",
                                            sizes(),
                                            "): meta tensors have a shape and a dtype, no data"));
}

void TensorImpl::set_sizes_strides(IntArrayRef sizes, IntArrayRef strides) {
  // Checked before anything changes: a shape with a negative size or an element count beyond
  // int64 (an expand to [2^32, 2^32]) is a ValueError, and this tensor stays as it was.
  checked::numel(sizes);
  sizes_.assign(sizes);
  strides_.assign(strides);
  refresh();
}

void TensorImpl::set_storage(Ref<StorageImpl> storage, int64_t offset, ScalarType dtype) {
  storage_ = std::move(storage);
  storage_offset_ = offset;
  dtype_ = dtype;
}

void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;  // checked by set_sizes_strides
  // Contiguous = row-major strides, ignoring dims of size 1 (as PyTorch does).
  contiguous_ = true;
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) {
      contiguous_ = false;
      break;
    }
    expected *= sizes_[d];
  }
  if (numel_ == 0) contiguous_ = true;
}

autograd::AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_meta_) autograd_meta_ = std::make_unique<autograd::AutogradMeta>();
  return *autograd_meta_;
}

void TensorImpl::clear_autograd_meta() {
  autograd_meta_.reset();
}

}  // namespace ember
