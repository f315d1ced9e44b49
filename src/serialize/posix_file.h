#pragma once
// A file descriptor that closes itself, and a regular file opened for reading at offsets: the
// system-call layer under the checkpoint readers and writers.
#include <cstdint>
#include <string>

namespace ember::serialize_detail {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd);
  // The result of ::close (0, or -1 with errno set); closing a closed Fd returns 0.
  int close();

 private:
  int fd_;
};

// A regular file opened read-only. Errors throw ember::Error naming the path.
class InputFile {
 public:
  // `format` names the file's kind in errors ("safetensors file", "PyTorch file").
  InputFile(const std::string& path, const std::string& format);
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Reads exactly n bytes at `offset`; a file that ends first (truncated while loading) throws.
  void read(uint64_t offset, void* dst, size_t n) const;

 private:
  std::string path_, format_;
  Fd fd_;
  uint64_t size_ = 0;
};

}  // namespace ember::serialize_detail
