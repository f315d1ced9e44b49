#include "ember_train/models.h"

#include "ember/error.h"

namespace ember::train {

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = {"mlp", "cnn"};
  return names;
}

ModelDefaults model_defaults(const std::string& name) {
  if (name == "mlp") return {10, 64, 1e-3};
  if (name == "cnn") return {5, 64, 1e-3};
  throw ValueError("unknown model '" + name + "' (expected mlp or cnn)");
}

nn::Sequential make_mlp() {
  return nn::Sequential({{"flatten", nn::Flatten()},
                         {"fc1", nn::Linear(28 * 28, 256)},
                         {"relu1", nn::ReLU()},
                         {"fc2", nn::Linear(256, 128)},
                         {"relu2", nn::ReLU()},
                         {"fc3", nn::Linear(128, 10)}});
}

nn::Sequential make_cnn() {
  auto conv = [](int64_t in, int64_t out) {
    return nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1));
  };
  return nn::Sequential({{"conv1", conv(1, 32)},
                         {"relu1", nn::ReLU()},
                         {"pool1", nn::MaxPool2d(2)},
                         {"conv2", conv(32, 64)},
                         {"relu2", nn::ReLU()},
                         {"pool2", nn::MaxPool2d(2)},
                         {"flatten", nn::Flatten()},
                         {"fc1", nn::Linear(64 * 7 * 7, 128)},
                         {"relu3", nn::ReLU()},
                         {"fc2", nn::Linear(128, 10)}});
}

nn::Sequential make_model(const std::string& name) {
  if (name == "mlp") return make_mlp();
  if (name == "cnn") return make_cnn();
  throw ValueError("unknown model '" + name + "' (expected mlp or cnn)");
}

int64_t parameter_count(const nn::Module& module) {
  int64_t n = 0;
  for (const auto& p : module.parameters()) n += p.numel();
  return n;
}

}  // namespace ember::train
