// RawKernel's code on a CUDA build: NVRTC compiles the source to PTX for one architecture; the
// PTX is cached in memory and on disk (written atomically); the CUDA runtime's library API
// (cudaLibraryLoadData) loads it without the driver API, and cudaLaunchKernel runs it on the
// current stream.
#include "cuda/raw_kernel_code.h"

#include <nvrtc.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/user_cache.h"
#include "cuda/cuda_internal.h"
#include "ember/error.h"

namespace ember::cuda::detail {
namespace {

// Reads a cached PTX, or returns false.
bool read_cache(const std::string& file, std::string& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return !out.empty();
}

// Best effort: a cache that cannot be written only costs a recompilation next time.
void write_cache(const std::string& dir, const std::string& file, const std::string& ptx) {
  ::ember::detail::make_dirs(dir);
  const std::string tmp = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out << ptx;
    if (!out) return;
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) std::remove(tmp.c_str());
}

void check_nvrtc(nvrtcResult r, const std::string& name, const char* what) {
  if (r != NVRTC_SUCCESS) {
    throw Error("RawKernel '" + name + "': " + what + " failed: " + nvrtcGetErrorString(r));
  }
}

class NvrtcKernelCode final : public RawKernelCode {
 public:
  NvrtcKernelCode(std::string source, std::string name, RawKernelOptions options)
      : source_(std::move(source)), name_(std::move(name)), options_(std::move(options)) {}

  std::string ptx(int arch) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string lowered;
    return compiled(arch, &lowered);
  }

  void launch(int device, KernelDim grid, KernelDim block, size_t shared_mem,
              const std::vector<KernelArg>&, std::vector<uint64_t> values) override {
    cudaKernel_t kernel = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = kernel_by_device_.find(device);
      if (it == kernel_by_device_.end()) {
        const DeviceProperties p = get_device_properties(device);
        std::string lowered;
        const std::string& code = compiled(p.major * 10 + p.minor, &lowered);
        cudaLibrary_t library = nullptr;
        EMBER_CUDA_CHECK(
            cudaLibraryLoadData(&library, code.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
        EMBER_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, lowered.c_str()));
        kernel_by_device_[device] = kernel;  // the library stays loaded for the process
      } else {
        kernel = it->second;
      }
    }
    std::vector<void*> pointers(values.size());
    for (size_t i = 0; i < values.size(); ++i) pointers[i] = &values[i];
    const cudaError_t err = cudaLaunchKernel(
        reinterpret_cast<const void*>(kernel), dim3(grid.x, grid.y, grid.z),
        dim3(block.x, block.y, block.z), pointers.data(), shared_mem, current_cuda_stream(device));
    if (err != cudaSuccess) {
      // The runtime also keeps a refused launch as the thread's last error: clear it, or the next
      // kernel's cudaGetLastError() would report this one.
      (void)cudaGetLastError();
      EMBER_CUDA_CHECK(err);
    }
  }

 private:
  std::string key(int arch) const {
    std::string k = source_;
    k += '\0';
    k += name_;
    for (const auto& o : options_.compile_options) k += '\0' + o;
    k += "\0arch=" + std::to_string(arch);
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    k += "\0nvrtc=" + std::to_string(major) + "." + std::to_string(minor);
    return ::ember::detail::hash_hex(k);
  }

  // PTX and the lowered (mangled) name for `arch`; compiles on a cache miss. Caller holds mutex_.
  const std::string& compiled(int arch, std::string* lowered) {
    if (auto it = ptx_by_arch_.find(arch); it != ptx_by_arch_.end()) {
      *lowered = lowered_by_arch_.at(arch);
      return it->second;
    }
    const std::string k = key(arch), dir = RawKernel::cache_dir();
    const std::string file = dir + "/" + k + ".ptx", name_file = dir + "/" + k + ".name";
    std::string ptx, low;
    if (!(read_cache(file, ptx) && read_cache(name_file, low))) {
      nvrtcProgram prog = nullptr;
      check_nvrtc(
          nvrtcCreateProgram(&prog, source_.c_str(), (name_ + ".cu").c_str(), 0, nullptr, nullptr),
          name_, "nvrtcCreateProgram");
      struct Destroy {
        nvrtcProgram& p;
        ~Destroy() { nvrtcDestroyProgram(&p); }
      } destroy{prog};
      check_nvrtc(nvrtcAddNameExpression(prog, name_.c_str()), name_, "nvrtcAddNameExpression");
      std::vector<std::string> opts = {"--gpu-architecture=compute_" + std::to_string(arch)};
      for (const auto& o : options_.compile_options) opts.push_back(o);
      std::vector<const char*> argv;
      for (const auto& o : opts) argv.push_back(o.c_str());
      const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
      count_raw_kernel_compilation();
      if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        std::string log(n, '\0');
        if (n) nvrtcGetProgramLog(prog, log.data());
        while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
        throw Error("RawKernel '" + name_ + "': compilation for sm_" + std::to_string(arch) +
                    " failed (" + nvrtcGetErrorString(r) + "):\n" + log);
      }
      const char* low_c = nullptr;
      check_nvrtc(nvrtcGetLoweredName(prog, name_.c_str(), &low_c), name_, "nvrtcGetLoweredName");
      low = low_c;
      size_t n = 0;
      check_nvrtc(nvrtcGetPTXSize(prog, &n), name_, "nvrtcGetPTXSize");
      ptx.assign(n, '\0');
      check_nvrtc(nvrtcGetPTX(prog, ptx.data()), name_, "nvrtcGetPTX");
      write_cache(dir, file, ptx);
      write_cache(dir, name_file, low);
    }
    lowered_by_arch_[arch] = low;
    *lowered = low;
    return ptx_by_arch_[arch] = ptx;
  }

  const std::string source_, name_;
  const RawKernelOptions options_;
  std::mutex mutex_;
  std::map<int, std::string> ptx_by_arch_, lowered_by_arch_;
  std::map<int, cudaKernel_t> kernel_by_device_;
};

}  // namespace

std::unique_ptr<RawKernelCode> make_raw_kernel_code(std::string source, std::string name,
                                                    RawKernelOptions options) {
  return std::make_unique<NvrtcKernelCode>(std::move(source), std::move(name), std::move(options));
}

}  // namespace ember::cuda::detail
