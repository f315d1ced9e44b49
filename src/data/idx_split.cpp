// MNIST-format splits: two IDX files, checked against each other and the known geometry.
#include "data/idx_split.h"

#include <sys/stat.h>

#include "core/tensor_factory.h"
#include "ember/data/fashion_mnist.h"

namespace ember::data::detail {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// root/name.gz, else root/name uncompressed; a missing file names both and says how to get it.
std::string locate(const std::string& root, const std::string& name, const std::string& dataset,
                   const std::string& missing_hint) {
  std::string dir = root.empty() ? "." : root;
  if (dir.back() != '/') dir += '/';
  std::string gz = dir + name + ".gz";
  if (exists(gz)) return gz;
  if (exists(dir + name)) return dir + name;
  throw Error(dataset + ": " + gz + " not found (nor " + name + " uncompressed); " + missing_hint);
}

void check_magic(const Tensor& t, const std::string& path, int64_t ndim, const char* what) {
  if (t.dim() != ndim) {
    throw Error("IDX file " + path + ": expected " + what + " (magic 0x0000080" +
                std::to_string(ndim) + ", " + std::to_string(ndim) +
                " dims) but found magic 0x0000080" + std::to_string(t.dim()) + " (" +
                std::to_string(t.dim()) + " dims)");
  }
}

}  // namespace

IdxSplit load_idx_split(const std::string& root, bool train, const std::string& dataset,
                        const std::string& missing_hint) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string image_path = locate(root, prefix + "-images-idx3-ubyte", dataset, missing_hint);
  const std::string label_path = locate(root, prefix + "-labels-idx1-ubyte", dataset, missing_hint);
  Tensor raw_images = read_idx_file(image_path);
  Tensor raw_labels = read_idx_file(label_path);
  check_magic(raw_images, image_path, 3, "images");
  check_magic(raw_labels, label_path, 1, "labels");
  const int64_t n = raw_images.size(0);
  if (raw_images.size(1) != 28 || raw_images.size(2) != 28) {
    throw Error("IDX file " + image_path + ": images are " + std::to_string(raw_images.size(1)) +
                "x" + std::to_string(raw_images.size(2)) + ", " + dataset + "'s are 28x28");
  }
  if (raw_labels.size(0) != n) {
    throw Error(dataset + ": " + image_path + " holds " + std::to_string(n) + " images but " +
                label_path + " holds " + std::to_string(raw_labels.size(0)) + " labels");
  }

  IdxSplit split;
  // Scaled as torchvision's ToTensor does (x / 255 in float32), through a table.
  float table[256];
  for (int v = 0; v < 256; ++v) table[v] = static_cast<float>(v) / 255.0f;
  split.images = make_empty({n, 1, 28, 28}, kFloat, Device(kCPU));
  const auto* src = static_cast<const uint8_t*>(raw_images.data_ptr());
  auto* dst = split.images.data_ptr<float>();
  const int64_t total = n * 28 * 28;
  for (int64_t i = 0; i < total; ++i) dst[i] = table[src[i]];

  split.targets = make_empty({n}, kLong, Device(kCPU));
  const auto* lab = static_cast<const uint8_t*>(raw_labels.data_ptr());
  auto* out = split.targets.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    if (lab[i] > 9) {
      throw Error("IDX file " + label_path + ": label " + std::to_string(lab[i]) + " at index " +
                  std::to_string(i) + " is outside " + dataset + "'s classes 0..9");
    }
    out[i] = lab[i];
  }
  return split;
}

}  // namespace ember::data::detail
