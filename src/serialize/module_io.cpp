// Module checkpoints: the state dict through the safetensors writer and reader, so the file
// validation and the atomic write are the ones of serialize.h.
#include "ember/serialize_module.h"

namespace ember {

void save(const nn::Module& module, const std::string& path, const TensorMetadata& metadata) {
  NamedTensors tensors;
  for (const auto& item : module.state_dict()) tensors.emplace_back(item.key(), item.value());
  save(tensors, path, metadata);
}

void load(nn::Module& module, const std::string& path, bool strict) {
  std::map<std::string, Tensor> tensors = load(path);
  try {
    module.load_state_dict(tensors, strict);
  } catch (const ValueError& e) {
    // Say which file did not fit the module.
    throw ValueError("ember::load('" + path + "'): " + e.what());
  }
}

}  // namespace ember
