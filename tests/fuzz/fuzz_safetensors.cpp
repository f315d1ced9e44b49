// libFuzzer target for the whole safetensors load path: every input goes through the header
// parser and through the public loaders, from memory (ember::safetensors::load) and from a file
// (ember::load, load_metadata, load(Tensor&), load(std::vector<Tensor>&)), so the loaders' size
// arithmetic (byte counts, offsets, strides, the tensors they allocate) is reached too. The
// properties checked beyond "no crash" (and, under ASan+UBSan, no bad memory access or undefined
// behaviour) are listed in load_path_check.h; a violation stops the fuzzer with its description.
#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz/load_path_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem =
      ember::fuzz::check_load_path(std::string(reinterpret_cast<const char*>(data), size));
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_safetensors: property violated: %s\n", problem.c_str());
    __builtin_trap();
  }
  return 0;
}
