// --out checked up front: created, then probed with a temporary file that is removed again.
#include "ember_train/output_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "ember/error.h"

namespace ember::train {

void prepare_output_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw ValueError("--out " + dir + ": exists and is not a directory");
  }
  fs::create_directories(dir, ec);
  if (ec) {
    throw ValueError("--out " + dir + ": cannot create the output directory: " + ec.message());
  }
  const std::string probe =
      (fs::path(dir) / (".ember-train-write-test-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    throw ValueError("--out " + dir + ": the output directory is not writable: " + why);
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace ember::train
