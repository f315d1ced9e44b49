// Parity with PyTorch 1.13: the same MLP, initial parameters and per-rank batches trained with
// torch.nn.parallel.DistributedDataParallel on Gloo (tests/support/ddp_parity.py, Debian's
// python3-torch) and with Ember's DDP, with SGD (momentum) and Adam, give the same parameters.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <optional>

#include "ember/distributed.h"
#include "ember/nn.h"
#include "ember/nn/parallel/distributed_data_parallel.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "support/multi_process.h"
#include "support/temp_dir.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace dist = ember::distributed;
namespace nn = ember::nn;
using ember::Tensor;
using ember::testing::describe;
using ember::testing::is_rank_process;
using ember::testing::RankLaunch;
using ember::testing::run_ranks;
using namespace std::chrono_literals;

namespace {

constexpr int kSteps = 10;
constexpr int kPerRank = 6;

nn::Sequential make_mlp() {
  return nn::Sequential(nn::Linear(10, 32), nn::Tanh(), nn::Linear(32, 32), nn::Tanh(),
                        nn::Linear(32, 3));
}

void write_f32(const std::string& path, const Tensor& t) {
  Tensor c = t.detach().to(ember::kFloat).contiguous();
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.nbytes()));
}

Tensor read_f32(const std::string& path, ember::IntArrayRef shape) {
  Tensor t = ember::empty(shape, ember::kFloat);
  std::ifstream f(path, std::ios::binary);
  f.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  EXPECT_TRUE(f.good()) << "could not read " << path;
  return t;
}

class DDPParity : public ::testing::TestWithParam<int> {};

TEST_P(DDPParity, SameParametersAsPyTorchDistributedDataParallel) {
  const int world = GetParam();
  std::optional<ember::testing::TempDir> tmp;  // the parent's; the ranks get its path
  std::string dir;
  if (!is_rank_process()) {
    // The PyTorch side first: inputs written here, parameters trained by python3 ranks.
    dir = tmp.emplace("ember_ddp_parity").path();
    ember::manual_seed(2024);
    auto model = make_mlp();
    auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      write_f32(dir + "/param_" + std::to_string(i) + ".f32", params[i]);
    }
    write_f32(dir + "/x.f32", ember::randn({kSteps, world * kPerRank, 10}));
    write_f32(dir + "/y.f32", ember::randn({kSteps, world * kPerRank, 3}));
    RankLaunch python;
    python.world_size = world;
    python.timeout = 240s;
    python.command = {ember::testing::torch_python(),
                      ember::testing::support_dir() + "/ddp_parity.py", dir, std::to_string(kSteps),
                      std::to_string(kPerRank)};
    for (const auto& r : run_ranks(python, [] {})) {
      ASSERT_TRUE(r.exit_code == 0 && r.signal == 0) << "PyTorch " << describe(r);
    }
  }
  RankLaunch launch;
  launch.world_size = world;
  launch.timeout = 240s;
  launch.env["EMBER_TEST_PARITY_DIR"] = dir;
  ember::testing::run_ranks_and_check(launch, [world] {
    const std::string d = std::getenv("EMBER_TEST_PARITY_DIR");
    dist::init_process_group("gloo", dist::InitProcessGroupOptions().timeout(60s));
    const int me = dist::get_rank();
    Tensor x = read_f32(d + "/x.f32", {kSteps, world * kPerRank, 10});
    Tensor y = read_f32(d + "/y.f32", {kSteps, world * kPerRank, 3});
    for (std::string name : {"sgd", "adam"}) {
      auto model = make_mlp();
      auto params = model->parameters();
      {
        ember::NoGradGuard no_grad;
        for (size_t i = 0; i < params.size(); ++i) {
          params[i].copy_(read_f32(d + "/param_" + std::to_string(i) + ".f32", params[i].sizes()));
        }
      }
      auto ddp = nn::parallel::DistributedDataParallel(model);
      std::unique_ptr<ember::optim::Optimizer> opt;
      if (name == "sgd") {
        opt = std::make_unique<ember::optim::SGD>(ddp->parameters(),
                                                  ember::optim::SGDOptions(0.1).momentum(0.9));
      } else {
        opt = std::make_unique<ember::optim::Adam>(ddp->parameters(),
                                                   ember::optim::AdamOptions(1e-2));
      }
      for (int step = 0; step < kSteps; ++step) {
        opt->zero_grad();
        Tensor xs = x[step].narrow(0, me * kPerRank, kPerRank);
        Tensor ys = y[step].narrow(0, me * kPerRank, kPerRank);
        nn::functional::mse_loss(ddp(xs), ys).backward();
        opt->step();
      }
      for (size_t i = 0; i < params.size(); ++i) {
        Tensor torch_result =
            read_f32(d + "/" + name + "_" + std::to_string(i) + ".f32", params[i].sizes());
        ember::testing::expect_close(params[i].detach(), torch_result, 1e-4, 1e-5,
                                     name + " parameter " + std::to_string(i) + " on rank " +
                                         std::to_string(me) + " vs PyTorch DDP");
      }
    }
    dist::destroy_process_group();
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, DDPParity, ::testing::Values(2, 3),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

}  // namespace
