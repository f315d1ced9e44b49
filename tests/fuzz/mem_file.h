#pragma once
// Bytes as a file that needs no directory (a memfd), for the fuzz targets' load-path checks.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

namespace ember::fuzz {

// The bytes as a file that needs no directory: a memfd, named /proc/self/fd/N.
class MemFile {
 public:
  explicit MemFile(const std::string& bytes) {
    fd_ = ::memfd_create("ember-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) return;
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t w = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (w <= 0) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      done += static_cast<size_t>(w);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  bool ok() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace ember::fuzz
