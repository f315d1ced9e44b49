// nn::DataParallel on 2 (simulated or real) CUDA devices: outputs, gradients and SGD training
// equal single-device training, replicas run on their devices in their own threads, batch norm
// statistics follow device_ids[0]'s replica, mistakes are named; without CUDA the module runs as
// it is.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>

#include "ember/cuda.h"
#include "ember/nn.h"
#include "ember/nn/parallel/data_parallel.h"
#include "ember/ops.h"
#include "ember/optim.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace nn = ember::nn;
using ember::Device;
using ember::Tensor;
using ember::testing::contains;
using ember::testing::error_of;
using ember::testing::expect_close;

namespace {

nn::Sequential make_mlp(uint64_t seed) {
  ember::manual_seed(seed);
  return nn::Sequential(nn::Linear(6, 16), nn::Tanh(), nn::Linear(16, 16), nn::Tanh(),
                        nn::Linear(16, 2));
}

const Device kCuda0(ember::kCUDA, 0), kCuda1(ember::kCUDA, 1);

TEST(DataParallel, GradientsEqualSingleDevice) {
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  auto model = make_mlp(1), reference = make_mlp(1);
  model->to(kCuda0);
  reference->to(kCuda0);
  auto dp = nn::DataParallel(model, std::vector<int>{0, 1});
  ember::manual_seed(2);
  Tensor x = ember::randn({10, 6}).to(kCuda0), y = ember::randn({10, 2}).to(kCuda0);
  Tensor out = dp(x);
  EXPECT_EQ(out.device(), kCuda0);
  EXPECT_EQ(out.sizes(), ember::IntArrayRef({10, 2}));
  expect_close(out.cpu(), reference->forward(x).detach().cpu(), 1e-5, 1e-6, "output");
  nn::functional::mse_loss(out, y).backward();
  nn::functional::mse_loss(reference->forward(x), y).backward();
  auto got = model->named_parameters(), want = reference->named_parameters();
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(got[i].value().grad().defined()) << got[i].key();
    EXPECT_EQ(got[i].value().grad().device(), kCuda0);
    expect_close(got[i].value().grad().cpu(), want[i].value().grad().cpu(), 1e-5, 1e-6,
                 "grad of " + got[i].key());
  }
}

TEST(DataParallel, SgdTrainingEqualsSingleDevice) {
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  auto model = make_mlp(3), reference = make_mlp(3);
  model->to(kCuda0);
  reference->to(kCuda0);
  auto dp = nn::DataParallel(model);  // every device
  EXPECT_EQ(dp->device_ids().size(), static_cast<size_t>(ember::cuda::device_count()));
  ember::optim::SGD opt(dp->parameters(), ember::optim::SGDOptions(0.05).momentum(0.9));
  ember::optim::SGD ref_opt(reference->parameters(), ember::optim::SGDOptions(0.05).momentum(0.9));
  for (int step = 0; step < 8; ++step) {
    ember::manual_seed(100 + static_cast<uint64_t>(step));
    Tensor x = ember::randn({12, 6}).to(kCuda0), y = ember::randn({12, 2}).to(kCuda0);
    opt.zero_grad();
    nn::functional::mse_loss(dp(x), y).backward();
    opt.step();
    ref_opt.zero_grad();
    nn::functional::mse_loss(reference->forward(x), y).backward();
    ref_opt.step();
  }
  auto got = model->named_parameters(), want = reference->named_parameters();
  for (size_t i = 0; i < got.size(); ++i) {
    expect_close(got[i].value().detach().cpu(), want[i].value().detach().cpu(), 1e-4, 1e-5,
                 got[i].key() + " after 8 steps");
  }
}

// Records on which device and thread its forward ran.
struct ProbeImpl : nn::Cloneable<ProbeImpl> {
  ProbeImpl() { reset(); }
  void reset() override { fc = register_module("fc", nn::Linear(3, 3)); }
  Tensor forward(const Tensor& x) {
    {
      std::lock_guard<std::mutex> lock(seen_mutex());
      seen().insert(
          {x.device().str() + " on current cuda:" + std::to_string(ember::cuda::current_device()),
           std::this_thread::get_id()});
    }
    return fc->forward(x);
  }
  static std::set<std::pair<std::string, std::thread::id>>& seen() {
    static std::set<std::pair<std::string, std::thread::id>> s;
    return s;
  }
  static std::mutex& seen_mutex() {
    static std::mutex m;
    return m;
  }
  nn::Linear fc{nullptr};
};
EMBER_MODULE(Probe);

TEST(DataParallel, ReplicasRunOnTheirDevicesInTheirOwnThreads) {
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  Probe probe;
  probe->to(kCuda0);
  auto dp = nn::DataParallel(probe, std::vector<int>{0, 1});
  ProbeImpl::seen().clear();
  dp(ember::randn({4, 3}).to(kCuda0)).sum().backward();
  auto seen = ProbeImpl::seen();
  ASSERT_EQ(seen.size(), 2u);
  std::set<std::string> where;
  std::set<std::thread::id> threads;
  for (const auto& [w, t] : seen) {
    where.insert(w);
    threads.insert(t);
  }
  EXPECT_EQ(where, (std::set<std::string>{"cuda:0 on current cuda:0", "cuda:1 on current cuda:1"}));
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
  EXPECT_TRUE(probe->fc->weight.grad().defined());
}

TEST(DataParallel, BatchNormStatisticsFollowTheFirstDevice) {
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  ember::manual_seed(4);
  auto model = nn::Sequential(nn::Linear(4, 4), nn::BatchNorm1d(4));
  model->to(kCuda0);
  auto dp = nn::DataParallel(model, std::vector<int>{0, 1});
  ember::manual_seed(5);
  Tensor x = ember::randn({8, 4}).to(kCuda0);
  dp(x);
  // The running mean moved from 0 towards the mean of the first chunk's features.
  auto bn = model->ptr<nn::BatchNorm1dImpl>(1);
  Tensor h;
  {
    ember::NoGradGuard no_grad;
    h = model->ptr<nn::LinearImpl>(0)->forward(x.narrow(0, 0, 4));
  }
  expect_close(bn->running_mean.cpu(), (h.mean(std::vector<int64_t>{0}) * 0.1).cpu(), 1e-5, 1e-6,
               "running_mean from device_ids[0]'s chunk");
  EXPECT_EQ(bn->num_batches_tracked.cpu().item<int64_t>(), 1);
}

TEST(DataParallel, MistakesAreNamed) {
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  auto on_cpu = make_mlp(6);
  auto dp = nn::DataParallel(on_cpu, std::vector<int>{0, 1});
  std::string msg = error_of<ember::DeviceError>([&] { dp(ember::randn({4, 6})); });
  EXPECT_TRUE(contains(msg,
                       "module must have its parameters and buffers on device cuda:0 "
                       "(device_ids[0]) but found one of them on device: cpu"))
      << msg;
  struct NotCloneable : nn::Module {
    NotCloneable() { register_parameter("w", ember::ones({1})); }
    Tensor forward(const Tensor& x) { return x; }
  };
  auto plain = std::make_shared<NotCloneable>();
  plain->to(kCuda0);
  auto dp2 = nn::DataParallel(plain, std::vector<int>{0, 1});
  msg = error_of<ember::NotImplementedError>([&] { dp2(ember::randn({4, 6}).to(kCuda0)); });
  EXPECT_TRUE(contains(msg, "Subclass ember::nn::Cloneable<")) << msg;
}

TEST(DataParallel, WithoutCudaTheModuleRunsAsItIs) {
  if (ember::cuda::is_available()) GTEST_SKIP() << "CUDA is available (the other tests cover it)";
  auto model = make_mlp(7);
  auto dp = nn::DataParallel(model);
  EXPECT_TRUE(dp->device_ids().empty());
  Tensor x = ember::randn({3, 6});
  EXPECT_TRUE(dp(x).equal(model->forward(x)));
}

}  // namespace
