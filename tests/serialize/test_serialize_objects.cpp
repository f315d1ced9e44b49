// ember::save / ember::load of a tensor, a std::vector<Tensor> and an optimizer (libtorch's
// torch::save / torch::load of the same): round trips, resuming training from a saved optimizer
// with identical next steps, files of the wrong kind, and libtorch/PyTorch .pt archives (written
// by PyTorch itself) named as such.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "ember/ember.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using ember::Tensor;
using ember::testing::contains;
using ember::testing::error_of;

namespace {

using ember::testing::TempDir;

TEST(SerializeObjects, TensorRoundTrip) {
  TempDir dir;
  for (auto t : {ember::arange(12, ember::kDouble).reshape({3, 4}).t(),
                 ember::tensor({int64_t{1}, int64_t{-5}}), ember::ones({}, ember::kHalf),
                 ember::zeros({0, 3})}) {
    ember::save(t, dir / "t.pt");
    Tensor back;
    ember::load(back, dir / "t.pt");
    EXPECT_EQ(back.dtype(), t.dtype());
    EXPECT_EQ(back.sizes(), t.sizes());
    EXPECT_TRUE(ember::equal(back, t));
  }
  // No temporary file is left behind (atomic write: temp file + rename).
  std::string listing;
  ember::save(ember::ones({2}), dir / "x.pt");
  EXPECT_EQ(std::system(("test $(ls -A '" + dir.path() + "' | wc -l) -eq 2").c_str()), 0);
}

TEST(SerializeObjects, VectorRoundTripKeepsOrder) {
  TempDir dir;
  std::vector<Tensor> v;
  for (int i = 0; i < 12; ++i) v.push_back(ember::full({i % 3 + 1}, i, ember::kFloat));
  v.push_back(ember::tensor({true, false}));
  ember::save(v, dir / "v.pt");
  std::vector<Tensor> back = {ember::ones({1})};  // replaced, not appended to
  ember::load(back, dir / "v.pt");
  ASSERT_EQ(back.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_TRUE(ember::equal(back[i], v[i])) << i;
  std::vector<Tensor> empty;
  ember::save(empty, dir / "e.pt");
  ember::load(back, dir / "e.pt");
  EXPECT_TRUE(back.empty());
}

// Trains `model` a few steps on fixed data.
template <typename Model>
void train_steps(Model& model, ember::optim::Optimizer& opt, int steps, int offset) {
  for (int s = 0; s < steps; ++s) {
    Tensor x = ember::sin(ember::arange(20, ember::kFloat) + s + offset).reshape({5, 4});
    Tensor y = ember::tensor({int64_t{0}, int64_t{2}, int64_t{1}, int64_t{1}, int64_t{0}});
    opt.zero_grad();
    ember::nn::functional::cross_entropy(model(x), y).backward();
    opt.step();
  }
}

template <typename MakeOptimizer>
void expect_identical_resume(MakeOptimizer make) {
  TempDir dir;
  ember::manual_seed(3);
  ember::nn::Linear model(4, 3);
  auto opt = make(model);
  train_steps(model, *opt, 3, 0);
  ember::save(model, dir / "model.safetensors");
  ember::save(*opt, dir / "opt.pt");
  train_steps(model, *opt, 4, 100);

  ember::manual_seed(99);  // different initial weights, overwritten by the load
  ember::nn::Linear resumed(4, 3);
  auto opt2 = make(resumed);
  ember::load(resumed, dir / "model.safetensors");
  ember::load(*opt2, dir / "opt.pt");
  train_steps(resumed, *opt2, 4, 100);
  EXPECT_TRUE(ember::equal(resumed->weight, model->weight));
  EXPECT_TRUE(ember::equal(resumed->bias, model->bias));
  EXPECT_DOUBLE_EQ(opt2->param_groups()[0].options().get_lr(),
                   opt->param_groups()[0].options().get_lr());
}

TEST(SerializeObjects, OptimizerResumeGivesIdenticalSteps) {
  using namespace ember::optim;
  expect_identical_resume([](ember::nn::Linear& m) {
    return std::make_unique<Adam>(m->parameters(), AdamOptions(0.01).amsgrad(true));
  });
  expect_identical_resume([](ember::nn::Linear& m) {
    return std::make_unique<SGD>(m->parameters(), SGDOptions(0.1).momentum(0.9).nesterov(true));
  });
  expect_identical_resume([](ember::nn::Linear& m) {
    return std::make_unique<AdamW>(m->parameters(), AdamWOptions(0.02).weight_decay(0.1));
  });
}

TEST(SerializeObjects, TheStepIsNeededToResume) {
  // Without the optimizer state (a fresh Adam), the next steps differ: the round trip matters.
  TempDir dir;
  ember::manual_seed(3);
  ember::nn::Linear model(4, 3), other(4, 3);
  ember::optim::Adam opt(model->parameters(), ember::optim::AdamOptions(0.01));
  train_steps(model, opt, 3, 0);
  ember::save(model, dir / "model.safetensors");
  ember::load(other, dir / "model.safetensors");
  ember::optim::Adam fresh(other->parameters(), ember::optim::AdamOptions(0.01));
  train_steps(model, opt, 1, 100);
  train_steps(other, fresh, 1, 100);
  EXPECT_FALSE(ember::equal(model->weight, other->weight));
}

TEST(SerializeObjects, WrongKindOfFile) {
  TempDir dir;
  ember::save(ember::ones({2}), dir / "t.pt");
  ember::save(std::vector<Tensor>{ember::ones({2}), ember::zeros({2})}, dir / "v.pt");
  Tensor a = ember::zeros({2}).requires_grad_();
  ember::optim::SGD sgd({a}, ember::optim::SGDOptions(0.1).momentum(0.5));
  ember::save(sgd, dir / "sgd.pt");

  std::vector<Tensor> v;
  EXPECT_TRUE(contains(error_of([&] { ember::load(v, dir / "t.pt"); }),
                       "the file holds a single tensor (saved by ember::save(tensor, path)), not a "
                       "std::vector<Tensor>"));
  Tensor t;
  EXPECT_TRUE(contains(error_of([&] { ember::load(t, dir / "v.pt"); }), "holds a list of tensors"));
  ember::optim::Adam adam({a}, ember::optim::AdamOptions(0.1));
  EXPECT_TRUE(contains(error_of([&] { ember::load(adam, dir / "sgd.pt"); }),
                       "holds the state of SGDOptions, not AdamOptions"));
  EXPECT_TRUE(
      contains(error_of([&] { ember::load(adam, dir / "t.pt"); }), "holds a single tensor"));
  // A state that does not fit (another parameter shape) names the file and the key.
  Tensor b = ember::zeros({3}).requires_grad_();
  ember::optim::SGD other({b}, ember::optim::SGDOptions(0.1).momentum(0.5));
  a.sum().backward();
  sgd.step();
  ember::save(sgd, dir / "sgd_state.pt");
  std::string err = error_of([&] { ember::load(other, dir / "sgd_state.pt"); });
  EXPECT_TRUE(contains(err, "sgd_state.pt")) << err;
  EXPECT_TRUE(contains(err, "[2]") && contains(err, "[3]")) << err;
  EXPECT_TRUE(contains(error_of([&] { ember::load(t, dir / "missing.pt"); }), "cannot open"));
  EXPECT_TRUE(contains(error_of([&] { ember::save(Tensor(), dir / "u.pt"); }), "undefined"));
}

TEST(SerializeObjects, LibtorchArchivesAreNamed) {
  TempDir dir;
  const std::string zip = dir / "zip.pt", legacy = dir / "legacy.pt";
  ember::testing::TorchOracle::instance().run(
      "torch.save(torch.ones(3), '" + zip + "')\n" + "torch.save(torch.ones(3), '" + legacy +
          "', _use_new_zipfile_serialization=False)\n" + "y = torch.zeros(1)\n",
      {}, {"y"});
  Tensor t;
  std::string err = error_of([&] { ember::load(t, zip); });
  EXPECT_TRUE(contains(err, zip + " is a libtorch/PyTorch archive (the zip format of torch::save"))
      << err;
  EXPECT_TRUE(contains(err, "safetensors.torch.save_file")) << err;
  EXPECT_FALSE(contains(err, "header length")) << err;
  err = error_of([&] { ember::load(t, legacy); });
  EXPECT_TRUE(contains(err, "the legacy pickle format of torch.save")) << err;
  ember::nn::Linear m(3, 1);
  EXPECT_TRUE(contains(error_of([&] { ember::load(m, zip); }), "libtorch/PyTorch archive"));
  EXPECT_TRUE(contains(error_of([&] { ember::load(zip); }), "libtorch/PyTorch archive"));
}

}  // namespace
