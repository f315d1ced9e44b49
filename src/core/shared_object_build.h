#pragma once
// Compiling a source string into a cached shared object with the system's C++ compiler: what
// cpp_extension::load_inline and RawKernel on simulated devices share. The cache entry is named
// by a hash of everything that affects the result; the object is built under a temporary name
// and renamed, so concurrent processes and interrupted builds never leave half a library.
#include <string>

namespace ember::detail {

struct SharedObjectBuild {
  std::string what;       // who asks, for messages: "load_inline('my_ops')"
  std::string stem;       // file name of the source and the library in the cache entry
  std::string source;     // the whole translation unit
  std::string flags;      // compiler flags, shell-quoted ("-std=c++20 -O2 -I'...'")
  std::string ldflags;    // linker flags, shell-quoted
  std::string key_extra;  // anything else the result depends on (a version, a header dir)
  const char* cache_env;  // overrides the cache directory, e.g. "EMBER_EXTENSIONS_DIR"
  const char* cache_subdir;
  std::string cache_dir;  // if set, the cache folder instead of cache_env's or cache_subdir's
  bool verbose = false;   // print the compiler command
};

// The path of the compiled (or cached) shared object; *compiled says whether the compiler ran.
// A failed compilation throws ember::Error with the compiler's messages.
std::string build_shared_object(const SharedObjectBuild& build, bool* compiled = nullptr);

// 'text' quoted for /bin/sh.
std::string shell_quote(const std::string& text);
// The compiler: $EMBER_CXX, else c++.
std::string host_compiler();

}  // namespace ember::detail
