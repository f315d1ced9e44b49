// CPU memory: 64-byte aligned so vector loads never straddle cache lines.
#include <cstdlib>

#include "ember/allocator.h"
#include "ember/error.h"

namespace ember {
namespace {

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCPU));
    size_t rounded = (nbytes + 63) & ~size_t(63);
    void* p = std::aligned_alloc(64, rounded);
    EMBER_CHECK(p, OutOfMemoryError, "CPU out of memory: tried to allocate ", nbytes, " bytes");
    return DataPtr(p, p, &std::free, Device(kCPU));
  }
};

}  // namespace

Allocator* cpu_allocator() {
  static CpuAllocator alloc;
  return &alloc;
}

}  // namespace ember
