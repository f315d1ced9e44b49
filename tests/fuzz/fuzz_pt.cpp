// libFuzzer target for the whole PyTorch-format load path: the zip reader, the restricted
// unpickler and its allowlist, the tensor rebuilds, from a file and from memory, and the writer
// on whatever loads. The properties beyond "no crash" (and, under ASan+UBSan, no bad memory
// access or undefined behaviour) are listed in pt_load_check.h; a violation stops the fuzzer.
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/pt_load_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem =
      ember::fuzz::check_pt_load_path(std::string(reinterpret_cast<const char*>(data), size));
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_pt: property violated: %s\n", problem.c_str());
    __builtin_trap();
  }
  return 0;
}
