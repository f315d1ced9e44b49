#pragma once
// The two Fashion-MNIST classifiers of ember-train and their default training settings. Both
// take [N, 1, 28, 28] images and return [N, 10] logits; parameter names follow the layer names
// ("fc1.weight", "conv1.bias", ...), the same as the equivalent PyTorch nn.Sequential with an
// OrderedDict of those names.
#include <cstdint>
#include <string>
#include <vector>

#include "ember/nn.h"

namespace ember::train {

// The defaults reach the accuracy the README promises (mlp >= 0.88, cnn >= 0.91 on the test set).
struct ModelDefaults {
  int64_t epochs;
  int64_t batch_size;
  double lr;
};

// "mlp" and "cnn".
const std::vector<std::string>& model_names();
// Throws ember::ValueError for another name.
ModelDefaults model_defaults(const std::string& name);

// flatten-fc1(784->256)-relu1-fc2(256->128)-relu2-fc3(128->10)
nn::Sequential make_mlp();
// conv1(1->32, 3x3, pad 1)-relu1-pool1(2)-conv2(32->64, 3x3, pad 1)-relu2-pool2(2)-flatten-
// fc1(3136->128)-relu3-fc2(128->10)
nn::Sequential make_cnn();
// Throws ember::ValueError naming the model for another name.
nn::Sequential make_model(const std::string& name);

// Total number of elements of the parameters.
int64_t parameter_count(const nn::Module& module);

}  // namespace ember::train
