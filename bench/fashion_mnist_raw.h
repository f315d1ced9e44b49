#pragma once
// Reads Fashion-MNIST's gzip IDX files into plain byte vectors, shared by both benchmark programs
// so that the epoch rows train on identical data prepared identically (loading is not timed).
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct IdxData {
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

// Returns false (with `error` set) when the file is missing or malformed.
inline bool read_idx_gz(const std::string& path, IdxData& out, std::string& error) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open " + path;
    return false;
  }
  auto read_u32 = [&](uint32_t& v) {
    unsigned char b[4];
    if (gzread(f, b, 4) != 4) return false;
    v = (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
    return true;
  };
  uint32_t magic = 0;
  bool ok = read_u32(magic) && (magic >> 8) == 0x08;  // 0x000008NN: unsigned bytes, NN dims
  int64_t count = 1;
  out.dims.clear();
  for (uint32_t d = 0; ok && d < (magic & 0xff); ++d) {
    uint32_t n = 0;
    ok = read_u32(n);
    out.dims.push_back(n);
    count *= n;
  }
  if (ok) {
    out.bytes.resize(static_cast<size_t>(count));
    ok = gzread(f, out.bytes.data(), static_cast<unsigned>(count)) == count;
  }
  gzclose(f);
  if (!ok) error = path + " is not a complete IDX file of unsigned bytes";
  return ok;
}

}  // namespace bench
