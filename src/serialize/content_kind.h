#pragma once
// The "ember.content" metadata that says what an ember::save file holds, so ember::load can tell
// a user who loads a file into the wrong kind of object what the file is instead.
#include <string>

#include "ember/serialize.h"

namespace ember::serialize_detail {

constexpr const char* kContentKey = "ember.content";

// What `metadata` says the file holds, in words for error messages.
inline std::string describe_content(const TensorMetadata& metadata) {
  auto it = metadata.find(kContentKey);
  if (it == metadata.end()) return "tensors without an ember.content tag (a module state dict?)";
  if (it->second == "tensor") return "a single tensor (saved by ember::save(tensor, path))";
  if (it->second == "tensor_list") {
    return "a list of tensors (saved by ember::save(std::vector<Tensor>, path))";
  }
  if (it->second == "optimizer") {
    auto kind = metadata.find("ember.optimizer");
    return "an optimizer state (" + (kind == metadata.end() ? std::string("?") : kind->second) +
           ", saved by ember::save(optimizer, path))";
  }
  return "content '" + it->second + "'";
}

// Throws ValueError unless the file's tag is `want` (or absent and `untagged_ok`).
void expect_content(const TensorMetadata& metadata, const std::string& want, bool untagged_ok,
                    const std::string& what, const std::string& path);

}  // namespace ember::serialize_detail
