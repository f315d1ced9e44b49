#pragma once
// One split of an MNIST-format data set (MNIST, Fashion-MNIST): the images and labels IDX files
// in a directory, checked against each other and the 28x28 geometry.
#include <string>

#include "ember/tensor.h"

namespace ember::data::detail {

struct IdxSplit {
  Tensor images;   // float32 [N, 1, 28, 28] in [0, 1] (x / 255, as torchvision's ToTensor)
  Tensor targets;  // int64 [N]
};

// Reads root/{train,t10k}-{images-idx3,labels-idx1}-ubyte, gzip'd (".gz") or not. `dataset`
// names the data set in errors; `missing_hint` says how to get the files when one is missing.
IdxSplit load_idx_split(const std::string& root, bool train, const std::string& dataset,
                        const std::string& missing_hint);

}  // namespace ember::data::detail
