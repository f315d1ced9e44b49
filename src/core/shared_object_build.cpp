// See shared_object_build.h.
#include "core/shared_object_build.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>

#include "core/user_cache.h"
#include "ember/error.h"

namespace ember::detail {
namespace {

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

std::mutex g_build_mutex;  // one compiler run at a time per process

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string host_compiler() {
  const char* v = std::getenv("EMBER_CXX");
  return v && *v ? std::string(v) : std::string("c++");
}

std::string build_shared_object(const SharedObjectBuild& b, bool* compiled) {
  if (compiled) *compiled = false;
  const std::string cxx = host_compiler();
  const std::string key =
      hash_hex(b.source + '\0' + cxx + '\0' + b.flags + '\0' + b.ldflags + '\0' + b.key_extra);
  const std::string root =
      b.cache_dir.empty() ? user_cache_dir(b.cache_env, b.cache_subdir) : b.cache_dir;
  const std::string dir = root + "/" + b.stem + "-" + key;
  const std::string so = dir + "/" + b.stem + ".so";

  std::lock_guard<std::mutex> lock(g_build_mutex);
  if (exists(so)) return so;
  make_dirs(dir);
  const std::string src = dir + "/" + b.stem + ".cpp";
  const std::string tmp = so + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(src + ".tmp");
    out << b.source;
    EMBER_CHECK(static_cast<bool>(out), Error, b.what, ": cannot write ", src);
  }
  std::rename((src + ".tmp").c_str(), src.c_str());
  const std::string cmd = cxx + " " + b.flags + " " + shell_quote(src) + " -o " + shell_quote(tmp) +
                          " " + b.ldflags + " 2>&1";
  if (b.verbose) std::fprintf(stderr, "%s: %s\n", b.what.c_str(), cmd.c_str());
  std::string output;
  FILE* p = ::popen(cmd.c_str(), "r");
  EMBER_CHECK(p != nullptr, Error, b.what, ": cannot run ", cxx);
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  const int status = ::pclose(p);
  if (status != 0) {
    std::remove(tmp.c_str());
    throw Error(b.what + ": compiling failed (" + cxx + ", source kept in " + src + "):\n" +
                output);
  }
  EMBER_CHECK(std::rename(tmp.c_str(), so.c_str()) == 0, Error, b.what,
              ": cannot move the library into the cache at ", so);
  if (compiled) *compiled = true;
  return so;
}

}  // namespace ember::detail
