// RawKernel: what every CUDA build shares. The source is compiled on first use by the build's
// RawKernelCode (cuda/raw_kernel_code.h): NVRTC on a CUDA build, the host compiler on simulated
// devices; here are the checks of the arguments and their packing as the C types the kernel
// receives.
#include "ember/cuda_kernel.h"

#include <atomic>
#include <type_traits>

#include "core/user_cache.h"
#include "cuda/raw_kernel_code.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {
namespace {
std::atomic<int64_t> g_compilations{0};
}  // namespace

namespace detail {
void count_raw_kernel_compilation() {
  ++g_compilations;
}
}  // namespace detail

struct RawKernel::Impl {
  std::string name;
  bool allow_non_contiguous = false;
  std::unique_ptr<detail::RawKernelCode> code;
};

RawKernel::RawKernel(std::string source, std::string name, RawKernelOptions options)
    : impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(!name.empty(), ValueError, "RawKernel: the kernel name is empty");
  impl_->name = name;
  impl_->allow_non_contiguous = options.allow_non_contiguous;
  impl_->code =
      detail::make_raw_kernel_code(std::move(source), std::move(name), std::move(options));
}
RawKernel::~RawKernel() = default;
RawKernel::RawKernel(RawKernel&&) noexcept = default;
RawKernel& RawKernel::operator=(RawKernel&&) noexcept = default;

const std::string& RawKernel::name() const {
  return impl_->name;
}

int64_t RawKernel::compilations() {
  return g_compilations.load();
}

std::string RawKernel::cache_dir() {
  return ::ember::detail::user_cache_dir("EMBER_KERNEL_CACHE_DIR", "kernels");
}

std::string RawKernel::ptx(int arch) const {
  EMBER_CHECK(arch >= 50 && arch < 200, ValueError, "RawKernel '", impl_->name,
              "': compute capability ", arch, " is not one NVRTC knows (e.g. 80, 90)");
  return impl_->code->ptx(arch);
}

void RawKernel::operator()(KernelDim grid, KernelDim block, const std::vector<KernelArg>& args,
                           size_t shared_mem) const {
  const int device = current_device();
  // Argument values, kept alive for the launch; CUDA copies them at the launch.
  std::vector<uint64_t> storage(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    void* slot = &storage[i];
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, Tensor>) {
            EMBER_CHECK(v.defined() && v.is_cuda() && v.device().index() == device, DeviceError,
                        "RawKernel '", impl_->name, "': argument ", i, " is a tensor on ",
                        v.defined() ? v.device().str() : std::string("nothing (undefined)"),
                        " but the kernel runs on cuda:", device, " (the current device)");
            EMBER_CHECK(impl_->allow_non_contiguous || v.is_contiguous(), ValueError, "RawKernel '",
                        impl_->name, "': argument ", i, " is a non-contiguous tensor of shape ",
                        v.sizes(), " and strides ", v.strides(),
                        "; pass .contiguous() or set RawKernelOptions::allow_non_contiguous");
            *static_cast<void**>(slot) = v.data_ptr();
          } else {
            *static_cast<V*>(slot) = v;
          }
        },
        args[i]);
  }
  impl_->code->launch(device, grid, block, shared_mem, args, std::move(storage));
}

}  // namespace ember::cuda
