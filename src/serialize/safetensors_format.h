#pragma once
// The safetensors header: parsing and validation of untrusted bytes, and writing. Pure functions
// on bytes (no tensors, no I/O), so the fuzz target compiles this file on its own.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ember/dtype.h"

namespace ember::safetensors_format {

struct Entry {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range within the data section
};

struct Header {
  std::vector<Entry> entries;  // sorted by begin
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // 8 + header length
};

// Python's safetensors refuses headers above 100 MB; so do we.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// The header length from the 8-byte little-endian prefix, checked against the file size.
uint64_t header_length(const unsigned char prefix[8], uint64_t file_size, const std::string& file);

// Parses and validates the JSON header (`json`, `len` bytes) of a file of `file_size` bytes.
// Throws ValueError/TypeError naming `file` and the problem.
Header parse_header(const char* json, size_t len, uint64_t file_size, const std::string& file);

// "F32" for kFloat, etc.
const char* dtype_name(ScalarType t);

// The 8-byte length followed by the JSON header, padded with spaces to a multiple of 8 bytes so
// that the data section starts aligned. Entries are laid out in the given order; their names must
// be unique (not checked here). Linear in the number of entries.
std::string make_header(const std::vector<Entry>& entries,
                        const std::map<std::string, std::string>& metadata);

}  // namespace ember::safetensors_format
