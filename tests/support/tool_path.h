#pragma once
// Where a test finds Ember's command-line tools (ember-train, ember-run): the build's own path,
// compiled in, unless EMBER_TOOLS_DIR names a folder holding them. The GPU proof sets it to its
// carried bin/, where the build folder of the machine that built them does not exist.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ember::testing {

inline std::string tool_path(const char* built_path) {
  const char* dir = std::getenv("EMBER_TOOLS_DIR");
  if (dir == nullptr || *dir == '\0') return built_path;
  return (std::filesystem::path(dir) / std::filesystem::path(built_path).filename()).string();
}

}  // namespace ember::testing
