// Atomic replacement of a file (atomic_file.h), and the clean-up of temporaries that a killed
// save left behind.
#include "serialize/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/error.h"
#include "serialize/posix_file.h"

namespace ember::serialize_detail {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

// errno of a failed system call while writing, caught in save_prepared to clean up.
struct SysError {
  int err;
};

void write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t{1} << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw SysError{errno};
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

std::atomic<uint64_t> g_tmp_counter{0};

// ---- temporaries: .NAME.tmp-TAG-PID-K next to NAME ----
// A save killed before its rename (kill -9, a crash, a power cut) leaves its temporary behind,
// possibly gigabytes. The next save or load of the same path removes those whose process is gone.
// The name says which process wrote it: PID, and TAG (8 hex digits), a hash of the host name and
// the PID namespace, so that only PIDs of this machine and namespace are judged. A temporary is
// stale when its TAG is ours and kill(PID, 0) says no such process. A concurrent save by a live
// process is never touched, however slow it is (a stopped process, a slow network file system),
// which an age threshold could not promise; one on another host sharing the directory has
// another TAG and is left alone. A PID reused by a new process only delays the removal.

struct TempNames {
  std::string dir;     // the directory of the path ("." when it names none)
  std::string prefix;  // ".NAME.tmp-": what every temporary of the path starts with
};

TempNames temp_names(const std::string& path) {
  const size_t slash = path.rfind('/');
  TempNames t;
  t.dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  t.prefix = "." + (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp-";
  return t;
}

// This machine and PID namespace, as 8 hex digits (FNV-1a of the host name and the namespace).
const std::string& pid_domain_tag() {
  static const std::string tag = [] {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    char ns[128] = {};
    if (::readlink("/proc/self/ns/pid", ns, sizeof ns - 1) < 0) ns[0] = '\0';
    uint64_t h = 1469598103934665603ull;
    for (const char* part : {static_cast<const char*>(host), "/", static_cast<const char*>(ns)}) {
      for (const char* c = part; *c != '\0'; ++c) {
        h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
      }
    }
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(h ^ (h >> 32)));
    return std::string(hex);
  }();
  return tag;
}

// 1 to 19 decimal digits as a number.
std::optional<uint64_t> parse_digits(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// The PID of a temporary named `name` (".NAME.tmp-TAG-PID-K") written on this machine and
// namespace, or 0 when the name is not one (another file, another host, an older naming).
pid_t temp_owner(std::string_view name, const std::string& prefix) {
  const std::string& tag = pid_domain_tag();
  if (name.substr(0, prefix.size()) != prefix) return 0;
  name.remove_prefix(prefix.size());
  if (name.substr(0, tag.size()) != tag || name.substr(tag.size(), 1) != "-") return 0;
  name.remove_prefix(tag.size() + 1);
  const size_t dash = name.find('-');
  if (dash == std::string_view::npos || !parse_digits(name.substr(dash + 1))) return 0;
  const std::optional<uint64_t> pid = parse_digits(name.substr(0, dash));
  if (!pid || *pid == 0 || *pid > static_cast<uint64_t>(std::numeric_limits<pid_t>::max())) {
    return 0;
  }
  return static_cast<pid_t>(*pid);
}

// Removes the temporaries of `path` left by processes that no longer exist. Best effort: a
// directory that cannot be read or a file that cannot be removed is left as it is.
}  // namespace

void remove_stale_temporaries(const std::string& path) noexcept {
  try {
    const TempNames t = temp_names(path);
    std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(t.dir.c_str()), &::closedir);
    if (d == nullptr) return;
    std::vector<std::string> stale;
    while (const dirent* e = ::readdir(d.get())) {
      const pid_t pid = temp_owner(e->d_name, t.prefix);
      if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) stale.emplace_back(e->d_name);
    }
    d.reset();
    for (const std::string& name : stale) ::unlink((t.dir + "/" + name).c_str());
  } catch (...) {
    // Out of memory while listing: the temporaries wait for the next save or load.
  }
}

void write_file_atomically(const std::string& path,
                           const std::function<void(const WriteBytes&)>& produce) {
  EMBER_CHECK(!path.empty() && path.back() != '/', ValueError, "ember::save: \"", path,
              "\" names a directory, not a file");
  remove_stale_temporaries(path);  // before writing: they may hold the space this save needs
  const TempNames names = temp_names(path);
  const std::string& dir = names.dir;
  const size_t slash = path.rfind('/');
  const std::string prefix = (slash == std::string::npos ? "" : path.substr(0, slash + 1)) +
                             names.prefix + pid_domain_tag() + "-" + std::to_string(::getpid()) +
                             "-";

  std::string tmp;
  Fd fd;
  for (int attempt = 0; attempt < 100 && fd.get() < 0; ++attempt) {
    tmp = prefix + std::to_string(g_tmp_counter.fetch_add(1));
    fd.reset(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd.get() < 0 && errno != EEXIST) break;
  }
  if (fd.get() < 0) {
    throw Error("ember::save: cannot create a temporary file in " + dir + " to write " + path +
                ": " + errno_text());
  }
  try {
    produce([&](const void* data, size_t n) { write_all(fd.get(), data, n); });
    if (::fsync(fd.get()) != 0) throw SysError{errno};
    if (fd.close() != 0) throw SysError{errno};
    if (::rename(tmp.c_str(), path.c_str()) != 0) throw SysError{errno};
  } catch (const SysError& e) {
    fd.close();
    ::unlink(tmp.c_str());
    throw Error("ember::save: cannot write " + path + ": " + std::strerror(e.err) +
                " (nothing was replaced; any previous file is intact)");
  } catch (...) {
    fd.close();
    ::unlink(tmp.c_str());
    throw;
  }
  // Make the rename itself durable. Some file systems cannot fsync a directory (EINVAL).
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() >= 0 && ::fsync(dfd.get()) != 0 && errno != EINVAL && errno != EROFS) {
    throw Error("ember::save: wrote " + path + " but could not fsync its directory " + dir + ": " +
                errno_text());
  }
}

}  // namespace ember::serialize_detail
