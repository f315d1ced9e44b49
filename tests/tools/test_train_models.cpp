// ember-train's models against the same networks built in PyTorch: parameter names, shapes and
// counts, and forward outputs and parameter gradients with the same weights. Also the module
// checkpoint (ember::save / ember::load of a module).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/serialize_module.h"
#include "ember_train/models.h"
#include "support/temp_dir.h"
#include "support/torch_oracle.h"

namespace et = ember::train;
using ember::Tensor;
using ember::testing::expect_close;
using ember::testing::TorchOracle;

namespace {

// The PyTorch equivalents, with the same layer names.
const char* kTorchModels = R"(
import collections
nn = torch.nn
def make(name):
    if name == 'mlp':
        layers = [('flatten', nn.Flatten()), ('fc1', nn.Linear(784, 256)), ('relu1', nn.ReLU()),
                  ('fc2', nn.Linear(256, 128)), ('relu2', nn.ReLU()), ('fc3', nn.Linear(128, 10))]
    else:
        layers = [('conv1', nn.Conv2d(1, 32, 3, padding=1)), ('relu1', nn.ReLU()),
                  ('pool1', nn.MaxPool2d(2)), ('conv2', nn.Conv2d(32, 64, 3, padding=1)),
                  ('relu2', nn.ReLU()), ('pool2', nn.MaxPool2d(2)), ('flatten', nn.Flatten()),
                  ('fc1', nn.Linear(64 * 7 * 7, 128)), ('relu3', nn.ReLU()), ('fc2', nn.Linear(128, 10))]
    return nn.Sequential(collections.OrderedDict(layers))
)";

struct TorchParams {
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  int64_t count = 0;
};

TorchParams torch_params(const std::string& model) {
  // Names and shapes packed into tensors: the oracle returns tensors only.
  auto r = TorchOracle::instance().run(
      std::string(kTorchModels) + "m = make('" + model + "')\n" +
          "ps = list(m.named_parameters())\n"
          "names = torch.tensor([c for n, _ in ps for c in (n + ';').encode()], "
          "dtype=torch.uint8)\n"
          "shapes = torch.tensor([d for _, p in ps for d in list(p.shape) + [-1]])\n"
          "count = sum(p.numel() for p in m.parameters())\n",
      {}, {"names", "shapes", "count"});
  TorchParams out;
  std::string cur;
  const Tensor names = r.at("names").contiguous();
  for (int64_t i = 0; i < names.numel(); ++i) {
    const char c = static_cast<char>(names.data_ptr<uint8_t>()[i]);
    if (c == ';') {
      out.names.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  const Tensor shapes = r.at("shapes").contiguous();
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < shapes.numel(); ++i) {
    const int64_t d = shapes.data_ptr<int64_t>()[i];
    if (d == -1) {
      out.shapes.push_back(shape);
      shape.clear();
    } else {
      shape.push_back(d);
    }
  }
  out.count = r.at("count").item<int64_t>();
  return out;
}

void expect_same_parameters_as_torch(const std::string& model, int64_t expected_count) {
  auto m = et::make_model(model);
  const TorchParams t = torch_params(model);
  const auto named = m->named_parameters();
  ASSERT_EQ(named.size(), t.names.size());
  for (size_t i = 0; i < t.names.size(); ++i) {
    EXPECT_EQ(named[i].key(), t.names[i]);
    EXPECT_EQ(named[i].value().sizes().vec(), t.shapes[i]) << t.names[i];
  }
  EXPECT_EQ(et::parameter_count(*m), t.count);
  EXPECT_EQ(t.count, expected_count);
}

// Runs the torch model with Ember's weights on `x` and compares logits, loss and gradients.
void expect_forward_backward_match_torch(const std::string& model, int64_t batch) {
  ember::manual_seed(7);
  auto m = et::make_model(model);
  Tensor x = ember::randn({batch, 1, 28, 28});
  Tensor y = ember::randint(0, 10, {batch});
  Tensor logits = m->forward(x);
  ASSERT_EQ(logits.sizes().vec(), (std::vector<int64_t>{batch, 10}));
  Tensor loss = ember::nn::functional::cross_entropy(logits, y);
  loss.backward();

  std::map<std::string, Tensor> inputs = {{"x", x}, {"y", y}};
  std::string code = std::string(kTorchModels) + "m = make('" + model + "')\n" +
                     "with torch.no_grad():\n"
                     "    for i, (n, p) in enumerate(m.named_parameters()):\n"
                     "        p.copy_(globals()['p%d' % i])\n"
                     "logits = m(x)\n"
                     "loss = F.cross_entropy(logits, y)\n"
                     "loss.backward()\n";
  std::vector<std::string> outputs = {"logits", "loss"};
  const auto params = m->named_parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    inputs["p" + std::to_string(i)] = params[i].value().detach();
    code += "g" + std::to_string(i) + " = list(m.parameters())[" + std::to_string(i) + "].grad\n";
    outputs.push_back("g" + std::to_string(i));
  }
  auto r = TorchOracle::instance().run(code, inputs, outputs);
  expect_close(logits.detach(), r.at("logits"), 1e-4, 1e-5, model + " logits");
  expect_close(loss.detach(), r.at("loss"), 1e-4, 1e-6, model + " loss");
  for (size_t i = 0; i < params.size(); ++i) {
    expect_close(params[i].value().grad(), r.at("g" + std::to_string(i)), 1e-3, 1e-5,
                 model + " grad of " + params[i].key());
  }
}

}  // namespace

TEST(TrainModels, MlpParametersMatchTorch) {
  // 784*256+256 + 256*128+128 + 128*10+10
  expect_same_parameters_as_torch("mlp", 235146);
}

TEST(TrainModels, CnnParametersMatchTorch) {
  // 32*9+32 + 64*32*9+64 + 3136*128+128 + 128*10+10
  expect_same_parameters_as_torch("cnn", 421642);
}

TEST(TrainModels, MlpForwardBackwardMatchTorch) {
  expect_forward_backward_match_torch("mlp", 8);
}

TEST(TrainModels, CnnForwardBackwardMatchTorch) {
  expect_forward_backward_match_torch("cnn", 4);
}

TEST(TrainModels, UnknownModelIsAValueError) {
  EXPECT_THROW(et::make_model("resnet"), ember::ValueError);
  try {
    et::model_defaults("vgg");
    FAIL();
  } catch (const ember::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'vgg'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(et::model_names(), (std::vector<std::string>{"mlp", "cnn"}));
}

TEST(TrainModels, DefaultsArePositive) {
  for (const auto& name : et::model_names()) {
    const auto d = et::model_defaults(name);
    EXPECT_GT(d.epochs, 0);
    EXPECT_GT(d.batch_size, 0);
    EXPECT_GT(d.lr, 0);
  }
}

TEST(TrainModels, CheckpointRoundTrip) {
  const ember::testing::TempDir dir("ember_train_test_ckpt");
  const std::string path = dir / "model.safetensors";

  ember::manual_seed(1);
  auto a = et::make_cnn();
  ember::save(a, path, {{"model", "cnn"}});
  // The file holds the state dict by name, in order.
  const auto tensors = ember::load(path);
  const auto state = a->state_dict();
  ASSERT_EQ(tensors.size(), state.size());
  for (const auto& item : state) {
    ASSERT_TRUE(tensors.count(item.key())) << item.key();
    EXPECT_TRUE(ember::equal(tensors.at(item.key()), item.value())) << item.key();
  }
  EXPECT_EQ(ember::load_metadata(path).at("model"), "cnn");

  ember::manual_seed(2);
  auto b = et::make_cnn();
  Tensor x = ember::randn({2, 1, 28, 28});
  EXPECT_FALSE(ember::allclose(a->forward(x), b->forward(x)));
  ember::load(b, path);
  EXPECT_TRUE(ember::equal(a->forward(x), b->forward(x)));

  // A checkpoint of another model names the file and the mismatches.
  auto mlp = et::make_mlp();
  try {
    ember::load(mlp, path);
    FAIL() << "no error";
  } catch (const ember::ValueError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("fc3.weight"), std::string::npos) << msg;
  }
  // A missing file is an ember::Error naming it.
  try {
    ember::load(b, dir / "missing.safetensors");
    FAIL() << "no error";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.safetensors"), std::string::npos) << e.what();
  }
}
