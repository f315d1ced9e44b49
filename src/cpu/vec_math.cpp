// Chooses the vector kernels of cpu/vec_math.h once per process: the widest instruction set the
// CPU (and its OS) supports, capped by EMBER_CPU_CAPABILITY. This file is compiled for the
// baseline x86-64, like the rest of the library; only src/cpu/simd/ is built with -m flags.
#include "cpu/vec_math.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace ember::cpu {
namespace {

CpuIsa widest_supported() {
#if defined(EMBER_WITH_SLEEF) && defined(__x86_64__)
  __builtin_cpu_init();
  // __builtin_cpu_supports also checks that the OS saves the wider registers (XCR0).
  if (__builtin_cpu_supports("avx512f")) return CpuIsa::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::kAvx2;
#endif
  return CpuIsa::kScalar;
}

// EMBER_CPU_CAPABILITY: "default" (scalar), "avx2" or "avx512"; unset or anything else: no cap.
CpuIsa capability_cap() {
  const char* v = std::getenv("EMBER_CPU_CAPABILITY");
  const std::string_view s = v ? v : "";
  if (s == "default") return CpuIsa::kScalar;
  if (s == "avx2") return CpuIsa::kAvx2;
  return CpuIsa::kAvx512;
}

CpuIsa widest() {
  static const CpuIsa isa = widest_supported();
  return isa;
}

}  // namespace

const VecMathKernels* vec_math_for(CpuIsa isa) {
  if (isa == CpuIsa::kScalar || isa > widest()) return nullptr;
#if defined(EMBER_WITH_SLEEF)
  return isa == CpuIsa::kAvx512 ? &vec_math_avx512() : &vec_math_avx2();
#else
  return nullptr;
#endif
}

const VecMathKernels* vec_math() {
  static const VecMathKernels* chosen = vec_math_for(std::min(widest(), capability_cap()));
  return chosen;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512:
      return "avx512";
    case CpuIsa::kAvx2:
      return "avx2";
    default:
      return "default";
  }
}

}  // namespace ember::cpu
