// The meta backend: tensors with sizes, strides and a dtype but no memory. Front ends have already
// computed every output's shape and dtype and allocated it (a storage of the right byte count and
// no pointer), so each kernel is simply not run. What needs values fails by name: copying out of
// meta, nonzero (its result's size depends on the data), and data_ptr() (TensorImpl::data).
#include "core/backend.h"
#include "ember/error.h"

namespace ember {
namespace {

class MetaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t) override { return DataPtr(nullptr, nullptr, nullptr, Device(kMeta)); }
};

// A family's meta body, by its meta column in EMBER_BACKEND_FAMILIES: meta_skip runs no kernel
// (the front end has already allocated every output), meta_by_hand is written below.
#define EMBER_META_BODY(name, ret, params, args, label, outputs, inputs, meta) \
  EMBER_META_BODY_##meta(name, ret, params)
#define EMBER_META_BODY_meta_skip(name, ret, params) \
  ret name params override {}
#define EMBER_META_BODY_meta_by_hand(name, ret, params)

class MetaBackend final : public Backend {
 public:
  Allocator* allocator(Device) override { return &allocator_; }
  EMBER_BACKEND_FAMILIES(EMBER_META_BODY)

  // By hand: into meta is a shape-only copy, but out of meta there are no values to copy.
  void copy(const Tensor& dst, const Tensor& src, bool) override {
    if (!dst.is_meta()) {
      throw NotImplementedError(
          detail::str_cat("Cannot copy out of meta tensor; no data! (a meta tensor of sizes ",
                          src.sizes(), " copied to ", dst.device(), ")"));
    }
  }
  // By hand: the size of nonzero's result depends on the values, which meta does not have.
  Tensor nonzero(const Tensor& mask) override {
    throw NotImplementedError(detail::str_cat(
        "nonzero is not supported on meta tensors: the size of its result depends on the data "
        "(a meta mask of sizes ",
        mask.sizes(), ")"));
  }

 private:
  MetaAllocator allocator_;
};

}  // namespace

Backend& meta_backend() {
  static MetaBackend backend;
  return backend;
}

}  // namespace ember
