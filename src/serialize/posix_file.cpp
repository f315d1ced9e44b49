#include "serialize/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ember/error.h"

namespace ember::serialize_detail {

void Fd::reset(int fd) {
  close();
  fd_ = fd;
}

int Fd::close() {
  int r = 0;
  if (fd_ >= 0) r = ::close(fd_);
  fd_ = -1;
  return r;
}

InputFile::InputFile(const std::string& path, const std::string& format)
    : path_(path), format_(format) {
  fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd_.get() < 0) {
    throw Error("ember::load: cannot open " + path + ": " + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) {
    throw Error("ember::load: cannot stat " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw Error("ember::load: " + path + " is not a regular file");
  size_ = static_cast<uint64_t>(st.st_size);
}

void InputFile::read(uint64_t offset, void* dst, size_t n) const {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t r =
        ::pread(fd_.get(), p, std::min<size_t>(n, size_t{1} << 30), static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Error("ember::load: cannot read " + path_ + ": " + std::strerror(errno));
    if (r == 0) {
      throw Error(format_ + " " + path_ + ": ended at byte " + std::to_string(offset) +
                  " while reading (was it truncated while loading?)");
    }
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
}

}  // namespace ember::serialize_detail
