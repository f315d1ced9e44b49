#pragma once
// Fashion-MNIST (Zalando, 28x28 grey images in 10 classes), read from the IDX files as shipped,
// gzip-compressed: train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-
// ubyte.gz, t10k-labels-idx1-ubyte.gz (uncompressed files without ".gz" are accepted too).
#include <string>

#include "ember/data/dataset.h"

namespace ember::data {

// An IDX file as a uint8 tensor shaped by its header (IDX magic 0x0000080N, N dims, big-endian
// int32 sizes). Throws ember::Error naming the file when it is missing, unreadable, not valid
// gzip, has another magic or element type, or holds fewer or more bytes than the header says.
EMBER_API Tensor read_idx_file(const std::string& path);

namespace datasets {

class EMBER_API FashionMNIST : public data::Dataset<Tensor, Tensor> {
 public:
  // Where Debian's dataset-fashion-mnist installs the files.
  static constexpr const char* kDefaultRoot = "/usr/share/datasets/fashion-mnist";
  // Mean and standard deviation of the training images scaled to [0, 1].
  static constexpr double kMean = 0.2860;
  static constexpr double kStd = 0.3530;
  enum class Mode { kTrain, kTest };

  // Loads the training (60000) or test (10000) split: images float32 [N, 1, 28, 28] in [0, 1],
  // labels int64 [N] in 0..9.
  explicit FashionMNIST(const std::string& root = kDefaultRoot, bool train = true);
  FashionMNIST(const std::string& root, Mode mode) : FashionMNIST(root, mode == Mode::kTrain) {}

  // Applies (x - mean) / std to the images in place (torchvision's Normalize) and returns *this.
  FashionMNIST& normalize(double mean = kMean, double std = kStd);

  ExampleType get(size_t index) override;
  size_t size() const override;
  bool is_train() const { return train_; }
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

  // The class names, index = label.
  static const char* class_name(int64_t label);

 private:
  Tensor images_, targets_;
  bool train_;
};

}  // namespace datasets
}  // namespace ember::data
