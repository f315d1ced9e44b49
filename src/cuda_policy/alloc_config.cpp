// Parsing of EMBER_CUDA_ALLOC_CONF.
#include "cuda_policy/alloc_config.h"

#include <cerrno>
#include <cstdlib>

#include "ember/error.h"

namespace ember::cuda_policy {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

[[noreturn]] void bad(const std::string& key, const std::string& value, const char* expected) {
  throw ValueError(detail::str_cat("EMBER_CUDA_ALLOC_CONF: invalid value '", value, "' for option ",
                                   key, " (expected ", expected, ")"));
}

}  // namespace

AllocatorConfig AllocatorConfig::parse(const std::string& conf) {
  AllocatorConfig c;
  size_t pos = 0;
  while (pos <= conf.size()) {
    size_t comma = conf.find(',', pos);
    if (comma == std::string::npos) comma = conf.size();
    std::string item = trim(conf.substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) continue;
    size_t colon = item.find(':');
    if (colon == std::string::npos) {
      throw ValueError(detail::str_cat("EMBER_CUDA_ALLOC_CONF: option '", item,
                                       "' has no value (write it as ", item, ":<value>)"));
    }
    std::string key = trim(item.substr(0, colon));
    std::string value = trim(item.substr(colon + 1));
    if (key == "max_split_size_mb") {
      const char* expected = "an integer number of MiB greater than 20, or None";
      if (value == "None" || value == "none") {
        c.max_split_size = SIZE_MAX;
        continue;
      }
      char* end = nullptr;
      errno = 0;
      long long mb = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0) bad(key, value, expected);
      // Below 20 MiB the large pool's own 20 MiB segments would be oversize.
      if (mb <= 20 || mb > (1ll << 40)) bad(key, value, expected);
      c.max_split_size = static_cast<size_t>(mb) << 20;
    } else if (key == "garbage_collection_threshold") {
      const char* expected = "a number strictly between 0 and 1";
      char* end = nullptr;
      errno = 0;
      double t = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || errno != 0) bad(key, value, expected);
      if (!(t > 0.0 && t < 1.0)) bad(key, value, expected);
      c.garbage_collection_threshold = t;
    } else if (key == "expandable_segments") {
      if (value == "False" || value == "false") continue;
      if (value == "True" || value == "true") {
        throw ValueError(
            "EMBER_CUDA_ALLOC_CONF: expandable_segments:True is not supported by Ember yet; "
            "use max_split_size_mb:<N> to limit fragmentation instead");
      }
      bad(key, value, "True or False");
    } else {
      throw ValueError(
          detail::str_cat("EMBER_CUDA_ALLOC_CONF: unrecognized option '", key,
                          "' (known options: max_split_size_mb, garbage_collection_threshold, "
                          "expandable_segments)"));
    }
  }
  return c;
}

AllocatorConfig AllocatorConfig::from_env() {
  const char* conf = std::getenv("EMBER_CUDA_ALLOC_CONF");
  AllocatorConfig c = parse(conf ? conf : "");
  const char* no_cache = std::getenv("EMBER_NO_CUDA_MEMORY_CACHING");
  if (no_cache && std::string(no_cache) == "1") c.caching = false;
  return c;
}

}  // namespace ember::cuda_policy
