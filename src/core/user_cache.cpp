#include "core/user_cache.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>

namespace ember::detail {

std::string user_cache_dir(const char* env_var, const char* subdir) {
  if (const char* d = std::getenv(env_var); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/ember/" + subdir;
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.cache/ember/" + subdir;
  return std::string("/tmp/ember-") + subdir;
}

void make_dirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') ::mkdir(path.substr(0, i).c_str(), 0755);
  }
}

std::string hash_hex(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace ember::detail
