#pragma once
// Checkpoints in the safetensors format (https://github.com/huggingface/safetensors), so they open
// in PyTorch, JAX and the rest: an 8-byte little-endian header length N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the raw little-endian tensor bytes.
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using TensorMetadata = std::map<std::string, std::string>;

// Writes `tensors` (any device; copied to the CPU) to `path` atomically: a temporary file in the
// same directory is written and fsync'ed, then renamed over `path`, and the directory fsync'ed,
// so a failed or interrupted save leaves the previous file intact. Throws ember::Error naming the
// path and the reason; ValueError for a reserved, empty or duplicate name or an undefined tensor.
EMBER_API void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
                    const TensorMetadata& metadata = {});
// Keeps the given order in the header and the data section.
EMBER_API void save(const NamedTensors& tensors, const std::string& path,
                    const TensorMetadata& metadata = {});
// ember::save({{"w", w}, {"b", b}}, path) (a braced list would otherwise be ambiguous).
inline void save(std::initializer_list<std::pair<std::string, Tensor>> tensors,
                 const std::string& path, const TensorMetadata& metadata = {}) {
  save(NamedTensors(tensors), path, metadata);
}

// Reads every tensor of a safetensors file into CPU tensors. Everything is validated before use
// (header length against the file size, JSON, dtype names, shapes against byte counts, offsets in
// range, neither overlapping nor leaving gaps); a bad file throws ember::Error naming the file and
// the problem.
EMBER_API std::map<std::string, Tensor> load(const std::string& path);
// The "__metadata__" string map of a safetensors file (empty when it has none).
EMBER_API TensorMetadata load_metadata(const std::string& path);

// libtorch's torch::save(tensor, path) / torch::load(tensor, path) and the same for a
// std::vector<Tensor>, as safetensors files (metadata "ember.content" says which: "tensor" holds
// one tensor named "tensor", "tensor_list" holds "0", "1", ...). Saving is atomic as above.
// load(Tensor&) also takes any safetensors file with exactly one tensor. Loading a file of the
// other kind, or a libtorch/PyTorch .pt archive, throws ValueError saying what the file is.
EMBER_API void save(const Tensor& tensor, const std::string& path);
EMBER_API void save(const std::vector<Tensor>& tensors, const std::string& path);
EMBER_API void load(Tensor& tensor, const std::string& path);
EMBER_API void load(std::vector<Tensor>& tensors, const std::string& path);

namespace safetensors {
// The same format in memory, as Python's safetensors.torch.save / load do with bytes.
EMBER_API std::string save(const NamedTensors& tensors, const TensorMetadata& metadata = {});
EMBER_API std::map<std::string, Tensor> load(const std::string& bytes,
                                             const std::string& name = "<memory>");
}  // namespace safetensors

}  // namespace ember
