// The output paths checked up front: --out created, then each directory probed with a temporary
// file that is removed again.
#include "ember_train/output_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "ember/error.h"

namespace ember::train {

namespace {

// Whether a file can be created in `dir`: a probe created and removed again. The reason if not.
std::string probe_writable(const std::string& dir) {
  const std::string probe =
      (std::filesystem::path(dir) / (".ember-train-write-test-" + std::to_string(::getpid())))
          .string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

}  // namespace

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
  const std::string why = probe_writable(dir);
  if (!why.empty()) {
    throw ValueError("--out " + dir + ": the output directory is not writable: " + why);
  }
}

void check_output_file(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string what = flag + " " + path + ": ";
  if (fs::is_directory(path, ec)) throw ValueError(what + "is a directory, not a file");
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  if (!fs::exists(dir, ec)) {
    throw ValueError(what + "the directory " + dir + " does not exist (create it first)");
  }
  if (!fs::is_directory(dir, ec)) throw ValueError(what + dir + " is not a directory");
  const std::string why = probe_writable(dir);
  if (!why.empty()) throw ValueError(what + "cannot write in " + dir + ": " + why);
}

}  // namespace ember::train
