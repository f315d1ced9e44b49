// RawKernel in a build without CUDA: constructible (so programs compile and link), every use
// says why it cannot run.
#include <cstdlib>

#include "core/user_cache.h"
#include "ember/cuda.h"
#include "ember/cuda_kernel.h"
#include "ember/error.h"

namespace ember::cuda {

struct RawKernel::Impl {
  std::string name;
};

namespace {
[[noreturn]] void unavailable(const std::string& name) {
  throw DeviceError("RawKernel '" + name + "': CUDA is not available: " + unavailable_reason());
}
}  // namespace

RawKernel::RawKernel(std::string, std::string name, RawKernelOptions)
    : impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(!name.empty(), ValueError, "RawKernel: the kernel name is empty");
  impl_->name = std::move(name);
}
RawKernel::~RawKernel() = default;
RawKernel::RawKernel(RawKernel&&) noexcept = default;
RawKernel& RawKernel::operator=(RawKernel&&) noexcept = default;
const std::string& RawKernel::name() const {
  return impl_->name;
}
int64_t RawKernel::compilations() {
  return 0;
}
std::string RawKernel::cache_dir() {
  return ::ember::detail::user_cache_dir("EMBER_KERNEL_CACHE_DIR", "kernels");
}
std::string RawKernel::ptx(int) const {
  unavailable(impl_->name);
}
void RawKernel::operator()(KernelDim, KernelDim, const std::vector<KernelArg>&, size_t) const {
  unavailable(impl_->name);
}

}  // namespace ember::cuda
