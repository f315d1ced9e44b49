// Registers the CPU backend.
#include "cpu/cpu_backend.h"

namespace ember {
Backend& cpu_backend() {
  static cpu::CpuBackend backend;
  return backend;
}
}  // namespace ember
