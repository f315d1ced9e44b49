#pragma once
// libtorch's torch::data::datasets::MNIST: the IDX files of MNIST (or of anything in its format,
// such as Fashion-MNIST) in `root`, named train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, uncompressed or gzip'd (name + ".gz").
//
//   auto train = ember::data::datasets::MNIST("./mnist", MNIST::Mode::kTrain)
//                    .map(ember::data::transforms::Normalize<>(0.1307, 0.3081))
//                    .map(ember::data::transforms::Stack<>());
#include <optional>
#include <string>

#include "ember/data/datasets/base.h"

namespace ember::data::datasets {

class EMBER_API MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  // Loads the split: images float32 [N, 1, 28, 28] scaled to [0, 1], targets int64 [N]. Throws
  // ember::Error naming the file when one is missing, malformed, or the two disagree in length.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  // {images[index], targets[index]}; throws IndexError outside 0..size()-1.
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  bool is_train() const noexcept { return train_; }
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool train_;
};

}  // namespace ember::data::datasets
