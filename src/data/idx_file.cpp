// IDX files (the MNIST family's format) read through zlib, which also reads uncompressed files.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/tensor_factory.h"
#include "ember/data/fashion_mnist.h"

namespace ember::data {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("IDX file " + path + ": " + what);
}

// zlib's description of the last error, or empty when the stream simply ended.
std::string gz_error(gzFile f, int* errnum_out = nullptr) {
  int errnum = Z_OK;
  const char* msg = gzerror(f, &errnum);
  if (errnum_out) *errnum_out = errnum;
  if (errnum == Z_OK) return {};
  if (errnum == Z_ERRNO) return std::strerror(errno);
  return msg ? msg : "unknown zlib error";
}

// Reads up to n bytes; returns how many arrived. Throws on corrupt or truncated compressed data.
size_t read_some(gzFile f, const std::string& path, void* dst, size_t n, size_t offset) {
  size_t got = 0;
  while (got < n) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - got, 1u << 30));
    int r = gzread(f, static_cast<char*>(dst) + got, chunk);
    int errnum = Z_OK;
    std::string err = gz_error(f, &errnum);
    if (r < 0 || !err.empty()) {
      std::string at = " after " + std::to_string(offset + got) + " bytes of decompressed data";
      // zlib reports a gzip stream cut short as Z_BUF_ERROR ("unexpected end of file").
      if (errnum == Z_BUF_ERROR) fail(path, "truncated gzip stream (" + err + ")" + at);
      fail(path,
           "corrupt gzip data (" + (err.empty() ? std::string("read error") : err) + ")" + at);
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

}  // namespace

Tensor read_idx_file(const std::string& path) {
  errno = 0;
  GzFile f(gzopen(path.c_str(), "rb"));
  if (!f) {
    fail(path, std::string("cannot open: ") + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(f.get(), 1u << 17);

  unsigned char magic[4];
  size_t got = read_some(f.get(), path, magic, 4, 0);
  if (got < 4) fail(path, "truncated: " + std::to_string(got) + " bytes, too short for a header");
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%02x%02x%02x%02x", magic[0], magic[1], magic[2], magic[3]);
  if (magic[0] != 0 || magic[1] != 0 || magic[3] == 0 || magic[3] > 8) {
    fail(path, std::string("wrong magic number ") + hex +
                   ", not an IDX file (expected 0x000008NN with NN the number of dims)");
  }
  if (magic[2] != 0x08) {
    fail(path, std::string("magic number ") + hex +
                   " declares an element type other than unsigned byte (0x08), which is the only "
                   "one supported");
  }
  const int ndim = magic[3];
  unsigned char dims_be[4 * 8];
  got = read_some(f.get(), path, dims_be, 4 * ndim, 4);
  if (got < static_cast<size_t>(4 * ndim)) {
    fail(path, "truncated: the header declares " + std::to_string(ndim) +
                   " dimensions but the file ends inside them");
  }
  std::vector<int64_t> sizes(ndim);
  uint64_t numel = 1;
  for (int d = 0; d < ndim; ++d) {
    const unsigned char* p = dims_be + 4 * d;
    uint32_t s = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    sizes[d] = s;
    if (s != 0 && numel > (uint64_t{1} << 40) / s) {
      fail(path, "the header's dimensions multiply to more than 2^40 elements");
    }
    numel *= s;
  }

  const size_t header = 4 + 4 * static_cast<size_t>(ndim);
  // Read in chunks rather than trusting the header with one large allocation.
  std::vector<unsigned char> data;
  data.reserve(std::min<uint64_t>(numel, uint64_t{64} << 20));
  while (data.size() < numel) {
    size_t old = data.size();
    size_t want = static_cast<size_t>(std::min<uint64_t>(numel - old, size_t{16} << 20));
    data.resize(old + want);
    size_t n = read_some(f.get(), path, data.data() + old, want, header + old);
    if (n < want) {
      fail(path, "truncated: the header promises " + std::to_string(numel) +
                     " bytes of data but the file holds " + std::to_string(old + n));
    }
  }
  unsigned char extra;
  if (read_some(f.get(), path, &extra, 1, header + numel) != 0) {
    fail(path, "has data past the " + std::to_string(numel) + " bytes its header declares");
  }

  Tensor t = make_empty(sizes, kByte, Device(kCPU));
  if (numel) std::memcpy(t.data_ptr(), data.data(), numel);
  return t;
}

}  // namespace ember::data
