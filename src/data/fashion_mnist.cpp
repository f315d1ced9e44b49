// Fashion-MNIST: two IDX files per split, checked against each other and the known geometry.
#include "ember/data/fashion_mnist.h"

#include <sys/stat.h>

#include <cstring>

#include "core/tensor_factory.h"

namespace ember::data::datasets {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// root/name.gz, else root/name uncompressed; a missing file names both and says how to get it.
std::string locate(const std::string& root, const std::string& name) {
  std::string dir = root.empty() ? "." : root;
  if (dir.back() != '/') dir += '/';
  std::string gz = dir + name + ".gz";
  if (exists(gz)) return gz;
  if (exists(dir + name)) return dir + name;
  throw Error("FashionMNIST: " + gz + " not found (nor " + name +
              " uncompressed); install Debian's dataset-fashion-mnist (files in " +
              FashionMNIST::kDefaultRoot + ") or pass the directory holding the IDX files");
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

FashionMNIST::FashionMNIST(const std::string& root, bool train) : train_(train) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string image_path = locate(root, prefix + "-images-idx3-ubyte");
  const std::string label_path = locate(root, prefix + "-labels-idx1-ubyte");
  Tensor raw_images = read_idx_file(image_path);
  Tensor raw_labels = read_idx_file(label_path);
  check_magic(raw_images, image_path, 3, "images");
  check_magic(raw_labels, label_path, 1, "labels");
  const int64_t n = raw_images.size(0);
  if (raw_images.size(1) != 28 || raw_images.size(2) != 28) {
    throw Error("IDX file " + image_path + ": images are " + std::to_string(raw_images.size(1)) +
                "x" + std::to_string(raw_images.size(2)) + ", Fashion-MNIST's are 28x28");
  }
  if (raw_labels.size(0) != n) {
    throw Error("FashionMNIST: " + image_path + " holds " + std::to_string(n) + " images but " +
                label_path + " holds " + std::to_string(raw_labels.size(0)) + " labels");
  }

  // Scaled as torchvision's ToTensor does (x / 255 in float32), through a table.
  float table[256];
  for (int v = 0; v < 256; ++v) table[v] = static_cast<float>(v) / 255.0f;
  images_ = make_empty({n, 1, 28, 28}, kFloat, Device(kCPU));
  const auto* src = static_cast<const uint8_t*>(raw_images.data_ptr());
  auto* dst = images_.data_ptr<float>();
  const int64_t total = n * 28 * 28;
  for (int64_t i = 0; i < total; ++i) dst[i] = table[src[i]];

  targets_ = make_empty({n}, kLong, Device(kCPU));
  const auto* lab = static_cast<const uint8_t*>(raw_labels.data_ptr());
  auto* out = targets_.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    if (lab[i] > 9) {
      throw Error("IDX file " + label_path + ": label " + std::to_string(lab[i]) + " at index " +
                  std::to_string(i) + " is outside Fashion-MNIST's classes 0..9");
    }
    out[i] = lab[i];
  }
}

FashionMNIST& FashionMNIST::normalize(double mean, double std) {
  EMBER_CHECK(std > 0, ValueError, "FashionMNIST::normalize: std must be positive, got ", std);
  // Same float32 arithmetic as torchvision's Normalize: x.sub_(mean).div_(std).
  const float m = static_cast<float>(mean), s = static_cast<float>(std);
  auto* p = images_.data_ptr<float>();
  for (int64_t i = 0, n = images_.numel(); i < n; ++i) p[i] = (p[i] - m) / s;
  return *this;
}

namespace {
Tensor row(const Tensor& t, int64_t i) {
  IntArrayRef sizes = t.sizes(), strides = t.strides();
  return make_view(t, IntArrayRef(sizes.data() + 1, sizes.size() - 1),
                   IntArrayRef(strides.data() + 1, strides.size() - 1), i * strides[0]);
}
}  // namespace

FashionMNIST::ExampleType FashionMNIST::get(size_t index) {
  EMBER_CHECK(index < size(), IndexError, "FashionMNIST: index ", index,
              " is out of range for a dataset of size ", size());
  auto i = static_cast<int64_t>(index);
  return {row(images_, i), row(targets_, i)};
}

size_t FashionMNIST::size() const {
  return static_cast<size_t>(targets_.size(0));
}

const char* FashionMNIST::class_name(int64_t label) {
  static const char* const kNames[10] = {"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                         "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                         "Bag",         "Ankle boot"};
  EMBER_CHECK(label >= 0 && label < 10, IndexError, "FashionMNIST::class_name: label ", label,
              " is outside 0..9");
  return kNames[label];
}

}  // namespace ember::data::datasets
