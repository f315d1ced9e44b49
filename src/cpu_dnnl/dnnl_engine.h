#pragma once
// The one oneDNN CPU engine that Ember's oneDNN kernels share (bfloat16 GEMMs, convolutions).
#include <dnnl.hpp>

namespace ember::cpu {

inline dnnl::engine& dnnl_cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

}  // namespace ember::cpu
