// ember-info: what this Ember build is and which devices it sees (python -m torch.utils.
// collect_env in miniature). Never fails for a missing GPU: it says why CUDA is unavailable.
#include <omp.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <thread>

#include "ember/cuda.h"
#include "ember/error.h"

namespace {

std::string gib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << "Usage: ember-info\nPrints the Ember version, build settings and the CPU and "
                   "CUDA devices it can use.\n";
      return 0;
    }
    std::cerr << "ember-info: error: unknown argument '" << arg << "'\nUsage: ember-info\n";
    return 2;
  }
  try {
    std::cout << "Ember " << EMBER_VERSION_STRING << "\n"
              << "  build type:     " << EMBER_BUILD_TYPE_STRING << "\n"
              << "  compiler:       " << EMBER_CXX_COMPILER_STRING << "\n"
              << "CPU\n"
              << "  hardware threads: " << std::thread::hardware_concurrency() << "\n"
              << "  OpenMP threads:   " << omp_get_max_threads() << "\n"
              << "CUDA\n";
    if (!ember::cuda::is_available()) {
      std::cout << "  available: no (" << ember::cuda::unavailable_reason() << ")\n";
      return 0;
    }
    const int n = ember::cuda::device_count();
    std::cout << "  available: yes, " << n << " device" << (n == 1 ? "" : "s") << "\n";
    for (int d = 0; d < n; ++d) {
      const auto p = ember::cuda::get_device_properties(d);
      const auto [free_bytes, total_bytes] = ember::cuda::mem_get_info(d);
      std::cout << "  cuda:" << d << "  " << p.name << "\n"
                << "    compute capability: " << p.major << "." << p.minor << "\n"
                << "    multiprocessors:    " << p.multi_processor_count << "\n"
                << "    memory:             " << gib(total_bytes) << " total, " << gib(free_bytes)
                << " free\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "ember-info: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
