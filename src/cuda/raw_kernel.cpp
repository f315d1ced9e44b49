// RawKernel: NVRTC compiles the source to PTX for one architecture; the PTX is cached in memory
// and on disk (written atomically); the CUDA runtime's library API (cudaLibraryLoadData) loads it
// without the driver API, and cudaLaunchKernel runs it on the current stream. On the simulator
// (EMBER_CUDA=SIM) there is no PTX: the host compiler builds the same source against the
// simulator's device header (cuda/raw_kernel_sim.h) and launches run on simulated devices;
// ptx() says it needs a real CUDA build.
#include "ember/cuda_kernel.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/user_cache.h"
#include "cuda/cuda_internal.h"
#include "cuda/raw_kernel_sim.h"
#include "ember/error.h"

#if !defined(EMBER_CUDA_SIM)
#include <nvrtc.h>
#endif

namespace ember::cuda {
namespace {

std::atomic<int64_t> g_compilations{0};

#if !defined(EMBER_CUDA_SIM)
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

#endif

}  // namespace

struct RawKernel::Impl {
  std::string source, name;
  RawKernelOptions options;
  std::mutex mutex;
  std::map<int, std::string> ptx_by_arch, lowered_by_arch;
#if defined(EMBER_CUDA_SIM)
  std::unique_ptr<sim_kernel::HostKernel> host_kernel;  // built on first launch
#else
  std::map<int, cudaKernel_t> kernel_by_device;
#endif

  std::string key(int arch) const {
    std::string k = source;
    k += '\0';
    k += name;
    for (const auto& o : options.compile_options) k += '\0' + o;
    k += "\0arch=" + std::to_string(arch);
#if !defined(EMBER_CUDA_SIM)
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    k += "\0nvrtc=" + std::to_string(major) + "." + std::to_string(minor);
#endif
    return ::ember::detail::hash_hex(k);
  }

  // PTX and the lowered (mangled) name for `arch`; compiles on a cache miss. Caller holds mutex.
  const std::string& compiled(int arch, std::string* lowered);
};

#if defined(EMBER_CUDA_SIM)

const std::string& RawKernel::Impl::compiled(int, std::string*) {
  throw NotImplementedError("RawKernel '" + name +
                            "': simulated CUDA devices (EMBER_CUDA=SIM) have no PTX (launches "
                            "run the source compiled for the host); NVRTC needs a real CUDA build "
                            "(-DEMBER_CUDA=ON)");
}

#else

namespace {
void check_nvrtc(nvrtcResult r, const std::string& name, const char* what) {
  if (r != NVRTC_SUCCESS) {
    throw Error("RawKernel '" + name + "': " + what + " failed: " + nvrtcGetErrorString(r));
  }
}
}  // namespace

const std::string& RawKernel::Impl::compiled(int arch, std::string* lowered) {
  if (auto it = ptx_by_arch.find(arch); it != ptx_by_arch.end()) {
    *lowered = lowered_by_arch.at(arch);
    return it->second;
  }
  const std::string k = key(arch), dir = RawKernel::cache_dir();
  const std::string file = dir + "/" + k + ".ptx", name_file = dir + "/" + k + ".name";
  std::string ptx, low;
  if (!(read_cache(file, ptx) && read_cache(name_file, low))) {
    nvrtcProgram prog = nullptr;
    check_nvrtc(
        nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr),
        name, "nvrtcCreateProgram");
    struct Destroy {
      nvrtcProgram& p;
      ~Destroy() { nvrtcDestroyProgram(&p); }
    } destroy{prog};
    check_nvrtc(nvrtcAddNameExpression(prog, name.c_str()), name, "nvrtcAddNameExpression");
    std::vector<std::string> opts = {"--gpu-architecture=compute_" + std::to_string(arch)};
    for (const auto& o : options.compile_options) opts.push_back(o);
    std::vector<const char*> argv;
    for (const auto& o : opts) argv.push_back(o.c_str());
    const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    ++g_compilations;
    if (r != NVRTC_SUCCESS) {
      size_t n = 0;
      nvrtcGetProgramLogSize(prog, &n);
      std::string log(n, '\0');
      if (n) nvrtcGetProgramLog(prog, log.data());
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
      throw Error("RawKernel '" + name + "': compilation for sm_" + std::to_string(arch) +
                  " failed (" + nvrtcGetErrorString(r) + "):\n" + log);
    }
    const char* low_c = nullptr;
    check_nvrtc(nvrtcGetLoweredName(prog, name.c_str(), &low_c), name, "nvrtcGetLoweredName");
    low = low_c;
    size_t n = 0;
    check_nvrtc(nvrtcGetPTXSize(prog, &n), name, "nvrtcGetPTXSize");
    ptx.assign(n, '\0');
    check_nvrtc(nvrtcGetPTX(prog, ptx.data()), name, "nvrtcGetPTX");
    write_cache(dir, file, ptx);
    write_cache(dir, name_file, low);
  }
  lowered_by_arch[arch] = low;
  *lowered = low;
  return ptx_by_arch[arch] = ptx;
}

#endif

RawKernel::RawKernel(std::string source, std::string name, RawKernelOptions options)
    : impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(!name.empty(), ValueError, "RawKernel: the kernel name is empty");
  impl_->source = std::move(source);
  impl_->name = std::move(name);
  impl_->options = std::move(options);
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
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::string lowered;
  return impl_->compiled(arch, &lowered);
}

void RawKernel::operator()(KernelDim grid, KernelDim block, const std::vector<KernelArg>& args,
                           size_t shared_mem) const {
  const int device = current_device();
  // Argument values, kept alive for the launch; CUDA copies them at the launch.
  std::vector<uint64_t> storage(args.size());
  std::vector<void*> pointers(args.size());
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
            EMBER_CHECK(impl_->options.allow_non_contiguous || v.is_contiguous(), ValueError,
                        "RawKernel '", impl_->name, "': argument ", i,
                        " is a non-contiguous tensor of shape ", v.sizes(), " and strides ",
                        v.strides(),
                        "; pass .contiguous() or set RawKernelOptions::allow_non_contiguous");
            *static_cast<void**>(slot) = v.data_ptr();
          } else {
            *static_cast<V*>(slot) = v;
          }
        },
        args[i]);
    pointers[i] = slot;
  }
#if defined(EMBER_CUDA_SIM)
  const sim_kernel::HostKernel* host = nullptr;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (!impl_->host_kernel) {
      bool ran = false;
      impl_->host_kernel = std::make_unique<sim_kernel::HostKernel>(
          sim_kernel::compile(impl_->source, impl_->name, impl_->options.compile_options, &ran));
      if (ran) ++g_compilations;
    }
    host = impl_->host_kernel.get();
  }
  // The simulator knows the parameters' sizes (a GPU would read garbage): say which differs.
  EMBER_CHECK(host->param_sizes.size() == args.size(), ValueError, "RawKernel '", impl_->name,
              "' takes ", host->param_sizes.size(), " arguments, got ", args.size());
  std::vector<const void*> tensor_pointers;
  for (size_t i = 0; i < args.size(); ++i) {
    const size_t given = std::visit(
        [](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          return std::is_same_v<V, Tensor> ? sizeof(void*) : sizeof(V);
        },
        args[i]);
    EMBER_CHECK(given == host->param_sizes[i], TypeError, "RawKernel '", impl_->name,
                "': argument ", i, " has ", given, " bytes but the kernel's parameter ", i, " has ",
                host->param_sizes[i], " (pass the C type the kernel declares, e.g. ",
                "int32_t for int)");
    if (std::holds_alternative<Tensor>(args[i])) {
      tensor_pointers.push_back(std::get<Tensor>(args[i]).data_ptr());
    }
  }
  sim_kernel::launch(*host, impl_->name, grid, block, shared_mem,
                     detail::current_cuda_stream(device), std::move(storage),
                     std::move(tensor_pointers));
#else
  cudaKernel_t kernel = nullptr;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->kernel_by_device.find(device);
    if (it == impl_->kernel_by_device.end()) {
      const DeviceProperties p = get_device_properties(device);
      std::string lowered;
      const std::string& code = impl_->compiled(p.major * 10 + p.minor, &lowered);
      cudaLibrary_t library = nullptr;
      EMBER_CUDA_CHECK(
          cudaLibraryLoadData(&library, code.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
      EMBER_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, lowered.c_str()));
      impl_->kernel_by_device[device] = kernel;  // the library stays loaded for the process
    } else {
      kernel = it->second;
    }
  }
  const cudaError_t err =
      cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(grid.x, grid.y, grid.z),
                       dim3(block.x, block.y, block.z), pointers.data(), shared_mem,
                       detail::current_cuda_stream(device));
  if (err != cudaSuccess) {
    // The runtime also keeps a refused launch as the thread's last error: clear it, or the next
    // kernel's cudaGetLastError() would report this one.
    (void)cudaGetLastError();
    EMBER_CUDA_CHECK(err);
  }
#endif
}

}  // namespace ember::cuda
