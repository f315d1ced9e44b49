#pragma once
// Automatic mixed precision: torch.autocast in C++ spelling.
//
//   {
//     ember::amp::autocast guard(ember::kCUDA);            // float16 on CUDA, bfloat16 on the CPU
//     auto logits = model->forward(x);                     // GEMMs and convolutions in float16
//     auto loss = ember::nn::functional::cross_entropy(logits, y);  // losses in float32
//   }
//   loss.backward();                                       // gradients in the parameters' dtype
//
// Inside a region, the ops on PyTorch's lists (src/amp/policy.h: one line per op, a column per
// device type) cast their floating inputs: matmul, mm, bmm, addmm, linear and conv2d to the
// region's dtype; losses, softmax, exp, log, pow, sum, norms and layer_norm (CUDA) to float32;
// cat and stack to the widest floating input. Other ops run in their inputs' dtype. A float32
// leaf that requires grad (a parameter) is cast once per region, not once per use (the cast
// cache, emptied when the outermost region exits). State is per thread, as in PyTorch; backward
// runs with autocast off, so gradients follow the forward graph back to each parameter's dtype.
#include <cstdint>
#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/macros.h"

namespace ember::amp {

// RAII region: autocast(device_type, dtype, enabled, cache_enabled). Without a dtype it keeps the
// current one of that device type (float16 on CUDA, bfloat16 on the CPU unless changed). Regions
// nest; leaving one restores the state it found. dtype must be kHalf or kBFloat16 (ValueError).
class EMBER_API autocast {
 public:
  explicit autocast(DeviceType device_type, std::optional<ScalarType> dtype = std::nullopt,
                    bool enabled = true, bool cache_enabled = true);
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

 private:
  DeviceType device_type_;
  bool prev_enabled_;
  ScalarType prev_dtype_;
  bool prev_cache_enabled_;
  uint8_t prev_active_;  // which device types autocast applied to (off inside ops and backward)
};

// torch.is_autocast_enabled / torch.is_autocast_cpu_enabled.
EMBER_API bool is_autocast_enabled(DeviceType device_type);
// torch.get_autocast_gpu_dtype / get_autocast_cpu_dtype.
EMBER_API ScalarType get_autocast_dtype(DeviceType device_type);
EMBER_API void set_autocast_enabled(DeviceType device_type, bool enabled);
EMBER_API void set_autocast_dtype(DeviceType device_type, ScalarType dtype);
EMBER_API bool is_autocast_cache_enabled();
EMBER_API void set_autocast_cache_enabled(bool enabled);
// Drops the cached casts of this thread (done when the outermost region exits).
EMBER_API void clear_autocast_cache();

}  // namespace ember::amp
