#pragma once
// Where Ember keeps things it builds at run time (RawKernel PTX, load_inline libraries), and the
// small file helpers they share.
#include <cstdint>
#include <string>

#include "ember/macros.h"

namespace ember::detail {

// $<env_var>, else $XDG_CACHE_HOME/ember/<subdir>, else ~/.cache/ember/<subdir>, else
// /tmp/ember-<subdir>.
EMBER_API std::string user_cache_dir(const char* env_var, const char* subdir);
// mkdir -p (errors are left for the caller's next file operation to report).
EMBER_API void make_dirs(const std::string& path);
// A stable 64-bit FNV-1a hash, as 16 hex digits: cache keys.
EMBER_API std::string hash_hex(const std::string& text);

}  // namespace ember::detail
