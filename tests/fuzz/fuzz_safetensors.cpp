// libFuzzer target for the safetensors header parser and validator (the code that reads
// untrusted bytes). Properties checked beyond "no crash":
//  - only ember::Error escapes,
//  - every byte range the validator accepts lies inside the input (ASan sees every byte read),
//  - a header we accept, written back by our own writer, parses to the same entries.
#include <cstdint>
#include <cstring>
#include <string>

#include "ember/error.h"
#include "serialize/safetensors_format.h"

namespace fmt = ember::safetensors_format;

namespace {
bool same(const fmt::Header& a, const fmt::Header& b) {
  if (a.metadata != b.metadata || a.entries.size() != b.entries.size()) return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const auto &x = a.entries[i], &y = b.entries[i];
    if (x.name != y.name || x.dtype != y.dtype || x.shape != y.shape || x.begin != y.begin ||
        x.end != y.end) {
      return false;
    }
  }
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fmt::Header h;
  try {
    unsigned char prefix[8] = {};
    if (size >= 8) std::memcpy(prefix, data, 8);
    uint64_t n = fmt::header_length(prefix, size, "fuzz");
    h = fmt::parse_header(reinterpret_cast<const char*>(data) + 8, n, size, "fuzz");
  } catch (const ember::Error&) {
    return 0;
  }
  volatile uint8_t sink = 0;
  for (const auto& e : h.entries) {
    for (uint64_t i = e.begin; i < e.end; ++i) sink = sink ^ data[h.data_start + i];
  }
  const size_t data_size = size - h.data_start;
  std::string again = fmt::make_header(h.entries, h.metadata);
  const size_t header_size = again.size();
  again.append(reinterpret_cast<const char*>(data) + h.data_start, data_size);
  unsigned char prefix[8];
  std::memcpy(prefix, again.data(), 8);
  fmt::Header h2 = fmt::parse_header(
      again.data() + 8, fmt::header_length(prefix, again.size(), "rt"), again.size(), "round trip");
  if (!same(h, h2) || h2.data_start != header_size) __builtin_trap();
  return 0;
}
