#pragma once
// torch.backends in C++: the switches a training script sets before it starts, and
// use_deterministic_algorithms. Each is process-wide and thread-safe to read from any thread.
//
// What each one does in Ember today (docs/backends.md keeps this table):
//   cuda::set_matmul_allow_tf32 (ember/cuda.h) float32 cuBLAS GEMMs may use TF32 tensor cores.
//   cudnn::*                    read by the CUDA convolutions through cuDNN (where the build has
//                               it): enabled, benchmark, deterministic, allow_tf32 (float32).
//   mkldnn::set_enabled         false: the CPU leaves oneDNN (its float32 convolutions and bfloat16
//                               GEMMs) for the composed im2col + OpenBLAS paths.
//   use_deterministic_algorithms  the CUDA kernels that accumulate with atomics (index_add,
//                               scatter_add, max-pool backward) throw, or warn with warn_only.
#include <cstdint>
#include <string>

#include "ember/macros.h"

namespace ember {

// torch.use_deterministic_algorithms(mode, warn_only=False).
EMBER_API void use_deterministic_algorithms(bool mode, bool warn_only = false);
EMBER_API bool are_deterministic_algorithms_enabled();
EMBER_API bool is_deterministic_algorithms_warn_only_enabled();

namespace detail {
// Called by a kernel whose result may differ from run to run (float atomics). Under
// use_deterministic_algorithms(true) it throws ember::Error naming `caller`; with warn_only it
// prints that message to stderr once per caller instead.
EMBER_API void alert_not_deterministic(const std::string& caller);
}  // namespace detail

namespace backends::cudnn {
// Whether this build calls cuDNN, GPU or not, as PyTorch (else CUDA convs are im2col + cuBLAS).
EMBER_API bool is_available();
// cuDNN's version as PyTorch reports it (e.g. 90100), or -1 where it is not available.
EMBER_API int64_t version();
// torch.backends.cudnn.enabled (default true), .benchmark (false), .deterministic (false),
// .allow_tf32 (true, as PyTorch).
EMBER_API bool enabled();
EMBER_API void set_enabled(bool value);
EMBER_API bool benchmark();
EMBER_API void set_benchmark(bool value);
EMBER_API bool deterministic();
EMBER_API void set_deterministic(bool value);
EMBER_API bool allow_tf32();
EMBER_API void set_allow_tf32(bool value);
}  // namespace backends::cudnn

namespace backends::mkldnn {
// torch.backends.mkldnn.is_available(): whether this build has oneDNN (EMBER_DNNL).
EMBER_API bool is_available();
// torch.backends.mkldnn.enabled (default true): whether the CPU may use it.
EMBER_API bool enabled();
EMBER_API void set_enabled(bool value);
}  // namespace backends::mkldnn

}  // namespace ember
