#pragma once
// ember::save / ember::load of a module's state dict (parameters and buffers by dotted name) as
// a safetensors file, as torch::save(model, path) / torch::load(model, path) do in libtorch:
//
//   ember::save(model, "model.safetensors");   // atomic, see serialize.h
//   ember::load(model, "model.safetensors");   // strict: names and shapes must match
//
// The file opens in PyTorch with safetensors.torch.load_file and model.load_state_dict.
#include <memory>
#include <string>

#include "ember/nn/module.h"
#include "ember/nn/pimpl.h"
#include "ember/serialize.h"

namespace ember {

// Writes module.state_dict() in its order; tensors on any device are copied to the CPU.
EMBER_API void save(const nn::Module& module, const std::string& path,
                    const TensorMetadata& metadata = {});
// Reads `path` and copies its tensors into the module's parameters and buffers, on whatever
// device and dtype they are (module.load_state_dict). Throws ember::Error naming the file for a
// bad file, and listing every missing, unexpected or mis-shaped tensor.
EMBER_API void load(nn::Module& module, const std::string& path, bool strict = true);

template <typename M>
void save(const nn::ModuleHolder<M>& module, const std::string& path,
          const TensorMetadata& metadata = {}) {
  save(static_cast<const nn::Module&>(*module), path, metadata);
}
template <typename M>
void save(const std::shared_ptr<M>& module, const std::string& path,
          const TensorMetadata& metadata = {}) {
  EMBER_CHECK(module != nullptr, ValueError, "ember::save('", path, "'): the module is null");
  save(static_cast<const nn::Module&>(*module), path, metadata);
}
template <typename M>
void load(nn::ModuleHolder<M>& module, const std::string& path, bool strict = true) {
  load(static_cast<nn::Module&>(*module), path, strict);
}
template <typename M>
void load(const std::shared_ptr<M>& module, const std::string& path, bool strict = true) {
  EMBER_CHECK(module != nullptr, ValueError, "ember::load('", path, "'): the module is null");
  load(static_cast<nn::Module&>(*module), path, strict);
}

}  // namespace ember
