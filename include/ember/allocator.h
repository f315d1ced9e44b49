#pragma once
// The allocator interface: a DataPtr owns memory and knows its device; Allocator hands them out.
#include <cstddef>
#include <utility>

#include "ember/device.h"
#include "ember/macros.h"

namespace ember {

using DeleterFn = void (*)(void* ctx);

class DataPtr {
 public:
  DataPtr() = default;
  DataPtr(void* ptr, void* ctx, DeleterFn deleter, Device device)
      : ptr_(ptr), ctx_(ctx), deleter_(deleter), device_(device) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { *this = std::move(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(ctx_, o.ctx_);
    std::swap(deleter_, o.deleter_);
    std::swap(device_, o.device_);
    return *this;
  }
  ~DataPtr() {
    if (deleter_) deleter_(ctx_);
  }
  void* get() const { return ptr_; }
  void* context() const { return ctx_; }
  DeleterFn deleter() const { return deleter_; }
  Device device() const { return device_; }

 private:
  void* ptr_ = nullptr;
  void* ctx_ = nullptr;
  DeleterFn deleter_ = nullptr;
  Device device_{DeviceType::CPU};
};

class EMBER_API Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
};

// CPU memory, 64-byte aligned.
EMBER_API Allocator* cpu_allocator();

}  // namespace ember
