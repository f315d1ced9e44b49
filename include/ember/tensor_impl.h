#pragma once
// Storage and TensorImpl: the data behind a Tensor handle. Views share a StorageImpl; the version
// counter lives there so that views and detach() see each other's in-place writes, as in PyTorch.
#include <atomic>
#include <memory>

#include "ember/allocator.h"
#include "ember/array_ref.h"
#include "ember/dtype.h"
#include "ember/intrusive_ptr.h"

namespace ember {

namespace autograd {
struct AutogradMeta;
}
namespace audit {
// Open transfer audits and profiles (src/core/device_audit.h): while there are any, storage
// frees are reported to them.
EMBER_API extern std::atomic<int> g_open_audits;
EMBER_API void record_free_slow(const void* p);
}  // namespace audit

struct EMBER_API StorageImpl : RefCounted {
  StorageImpl(DataPtr d, size_t n, bool is_pinned)
      : data(std::move(d)), nbytes(n), pinned(is_pinned) {}
  // Inline: a free costs one relaxed load more when no profile records memory.
  ~StorageImpl() override {
    if (audit::g_open_audits.load(std::memory_order_relaxed) > 0)
      audit::record_free_slow(data.get());
  }
  DataPtr data;
  size_t nbytes;
  bool pinned;
  std::atomic<uint32_t> version{0};
  Device device() const { return data.device(); }
};

class EMBER_API TensorImpl : public RefCounted {
 public:
  TensorImpl(Ref<StorageImpl> storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset);
  ~TensorImpl() override;

  const Ref<StorageImpl>& storage() const { return storage_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->data.device(); }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  bool is_contiguous() const { return contiguous_; }
  // Throws for a meta tensor, which has no data (as libtorch's data_ptr()).
  void* data() const {
    if (storage_->data.device().is_meta()) throw_no_data();
    return static_cast<char*>(storage_->data.get()) + storage_offset_ * element_size(dtype_);
  }
  // Replaces sizes/strides (used by in-place metadata ops and by Module::to's in-place moves).
  void set_sizes_strides(IntArrayRef sizes, IntArrayRef strides);
  void set_storage(Ref<StorageImpl> storage, int64_t offset, ScalarType dtype);

  autograd::AutogradMeta* autograd_meta() const { return autograd_meta_.get(); }
  autograd::AutogradMeta& ensure_autograd_meta();
  void clear_autograd_meta();

 private:
  [[noreturn]] void throw_no_data() const;
  void refresh();
  Ref<StorageImpl> storage_;
  int64_t storage_offset_ = 0;
  DimVector sizes_, strides_;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool contiguous_ = true;
  std::unique_ptr<autograd::AutogradMeta> autograd_meta_;
};

}  // namespace ember
