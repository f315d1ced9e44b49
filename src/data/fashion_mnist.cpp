// Fashion-MNIST: an MNIST-format split (data/idx_split.h) with its class names and statistics.
#include "ember/data/fashion_mnist.h"

#include "core/tensor_factory.h"
#include "data/idx_split.h"

namespace ember::data::datasets {

FashionMNIST::FashionMNIST(const std::string& root, bool train) : train_(train) {
  data::detail::IdxSplit split = data::detail::load_idx_split(
      root, train, "FashionMNIST",
      std::string("install Debian's dataset-fashion-mnist (files in ") + kDefaultRoot +
          ") or pass the directory holding the IDX files");
  images_ = std::move(split.images);
  targets_ = std::move(split.targets);
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
