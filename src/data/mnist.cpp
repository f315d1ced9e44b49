// datasets::MNIST (libtorch's): an MNIST-format split behind the Dataset<Self> interface.
#include "ember/data/mnist.h"

#include "core/tensor_factory.h"
#include "data/idx_split.h"

namespace ember::data::datasets {

MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  data::detail::IdxSplit split = data::detail::load_idx_split(
      root, train_, "MNIST",
      "download MNIST's IDX files into that directory, or pass one in the same format (e.g. "
      "Debian's Fashion-MNIST in /usr/share/datasets/fashion-mnist)");
  images_ = std::move(split.images);
  targets_ = std::move(split.targets);
}

Example<> MNIST::get(size_t index) {
  const auto n = static_cast<size_t>(targets_.size(0));
  EMBER_CHECK(index < n, IndexError, "MNIST: index ", index,
              " is out of range for a dataset of size ", n);
  const auto i = static_cast<int64_t>(index);
  return {images_.select(0, i), targets_.select(0, i)};
}

std::optional<size_t> MNIST::size() const {
  return static_cast<size_t>(targets_.size(0));
}

}  // namespace ember::data::datasets
