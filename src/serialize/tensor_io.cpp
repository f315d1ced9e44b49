// ember::save / ember::load of a tensor and of a std::vector<Tensor> (libtorch's torch::save /
// torch::load of the same), on top of the safetensors writer and reader.
#include <algorithm>
#include <cstdlib>

#include "ember/serialize.h"
#include "serialize/content_kind.h"

namespace ember {
namespace serialize_detail {

void expect_content(const TensorMetadata& metadata, const std::string& want, bool untagged_ok,
                    const std::string& what, const std::string& path) {
  auto it = metadata.find(kContentKey);
  const bool ok = it == metadata.end() ? untagged_ok : it->second == want;
  EMBER_CHECK(ok, ValueError, "ember::load(", what, ", '", path, "'): the file holds ",
              describe_content(metadata), ", not ", what);
}

}  // namespace serialize_detail

namespace {
using serialize_detail::kContentKey;

// "0", "1", ... as indices; anything else is not a list entry.
bool list_index(const std::string& name, size_t& index) {
  if (name.empty() || name.size() > 18 ||
      !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      (name.size() > 1 && name[0] == '0')) {
    return false;
  }
  index = std::strtoull(name.c_str(), nullptr, 10);
  return true;
}
}  // namespace

void save(const Tensor& tensor, const std::string& path) {
  EMBER_CHECK(tensor.defined(), ValueError, "ember::save(tensor, '", path,
              "'): the tensor is undefined");
  save(NamedTensors{{"tensor", tensor}}, path, {{kContentKey, "tensor"}});
}

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  NamedTensors named;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), ValueError, "ember::save(std::vector<Tensor>, '", path,
                "'): tensor ", i, " is undefined");
    named.emplace_back(std::to_string(i), tensors[i]);
  }
  save(named, path, {{kContentKey, "tensor_list"}});
}

void load(Tensor& tensor, const std::string& path) {
  const TensorMetadata metadata = load_metadata(path);
  serialize_detail::expect_content(metadata, "tensor", true, "a tensor", path);
  std::map<std::string, Tensor> tensors = load(path);
  EMBER_CHECK(tensors.size() == 1, ValueError, "ember::load(a tensor, '", path,
              "'): the file holds ", tensors.size(), " tensors, expected exactly one");
  tensor = tensors.begin()->second;
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  const TensorMetadata metadata = load_metadata(path);
  serialize_detail::expect_content(metadata, "tensor_list", true, "a std::vector<Tensor>", path);
  std::map<std::string, Tensor> named = load(path);
  std::vector<Tensor> out(named.size());
  for (auto& [name, t] : named) {
    size_t index = 0;
    EMBER_CHECK(list_index(name, index) && index < out.size() && !out[index].defined(), ValueError,
                "ember::load(a std::vector<Tensor>, '", path, "'): tensor name \"", name,
                "\" is not a list index 0..", out.size() - 1);
    out[index] = std::move(t);
  }
  tensors = std::move(out);
}

}  // namespace ember
