// CUBLAS_WORKSPACE_CONFIG and PyTorch's default cuBLAS workspace size.
#include "cuda_policy/cublas_workspace_config.h"

#include <cstdint>
#include <string>

#include "ember/error.h"

namespace ember::cuda_policy {

size_t default_cublas_workspace_size(int major, int minor) {
  if (major == 9 && minor == 0) return size_t(4096) * 8 * 1024;
  return size_t(4096) * 1024 * 2 + size_t(16) * 1024 * 8;
}

size_t parse_cublas_workspace_config(const char* value, size_t default_bytes) {
  if (!value || !*value) return default_bytes;
  const std::string s = value;
  auto bad = [&](const char* why) -> ValueError {
    return ValueError(detail::str_cat(
        "CUBLAS_WORKSPACE_CONFIG='", s, "' is not valid: ", why,
        " (expected one or more :SIZE:COUNT groups, SIZE in KiB, e.g. :4096:8 for 32 MiB or "
        ":4096:2:16:8)"));
  };
  // Reads the decimal number at s[pos...]; leaves pos after it.
  auto number = [&](size_t& pos) -> uint64_t {
    if (pos >= s.size() || s[pos] < '0' || s[pos] > '9')
      throw bad("a SIZE or COUNT is not a number");
    uint64_t v = 0;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos) {
      if (v > (UINT64_MAX - 9) / 10) throw bad("a number is too large");
      v = v * 10 + static_cast<uint64_t>(s[pos] - '0');
    }
    return v;
  };
  uint64_t total = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    if (s[pos] != ':') throw bad("each group starts with ':'");
    ++pos;
    const uint64_t kib = number(pos);
    if (pos >= s.size() || s[pos] != ':') throw bad("a SIZE has no :COUNT");
    ++pos;
    const uint64_t count = number(pos);
    // SIZE * 1024 * COUNT must fit, and so must the sum.
    if (kib != 0 && count > (UINT64_MAX / 1024) / kib) throw bad("the size is too large");
    const uint64_t bytes = kib * 1024 * count;
    if (bytes > SIZE_MAX - total) throw bad("the size is too large");
    total += bytes;
  }
  return static_cast<size_t>(total);
}

}  // namespace ember::cuda_policy
