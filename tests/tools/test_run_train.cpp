// ember-train under ember-run: data-parallel training with 2 processes (DistributedSampler, DDP,
// metrics summed over the ranks), rank 0 alone printing and writing the checkpoint, metrics and
// plot; on the CPU with Gloo, and on two (simulated) CUDA devices, one per rank.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ember/cuda.h"
#include "ember/data/fashion_mnist.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/tool_path.h"

namespace fs = std::filesystem;
using ember::testing::contains;

namespace {

struct Result {
  int status = -1;
  std::string output;
};

Result run(const std::string& args) {
  const std::string cmd = ember::testing::tool_path(EMBER_RUN_EXE) + " " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

size_t count(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t pos = s.find(part); pos != std::string::npos; pos = s.find(part, pos + 1)) ++n;
  return n;
}

bool has_dataset() {
  return fs::exists(fs::path(ember::data::datasets::FashionMNIST::kDefaultRoot) /
                    "t10k-labels-idx1-ubyte.gz");
}

double last_accuracy(const fs::path& csv) {
  std::ifstream f(csv);
  std::string line, last;
  while (std::getline(f, line)) last = line;
  // epoch,train_loss,test_loss,test_accuracy,seconds
  std::stringstream ss(last);
  std::string field;
  for (int i = 0; i < 4 && std::getline(ss, field, ','); ++i) {
  }
  return std::atof(field.c_str());
}

void expect_data_parallel_run(const std::string& device, const std::string& expect_device,
                              const std::string& name) {
  const fs::path out = fs::temp_directory_path() / ("ember_run_train_" + name);
  fs::remove_all(out);
  Result r = run("--standalone --nproc-per-node 2 " + ember::testing::tool_path(EMBER_TRAIN_EXE) +
                 " --model mlp --epochs 2 --batch-size 32 --workers 1 --limit-train 1280 "
                 "--limit-test 300 --seed 3 --device " +
                 device + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "Data-parallel: 2 processes (gloo), each with its shard of the "
                       "data and batch size 32 (global 64)"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "Using device: " + expect_device)) << r.output;
  // Rank 0 alone reports: one line per epoch, one "Wrote".
  EXPECT_EQ(count(r.output, "epoch 1/2  train loss"), 1u) << r.output;
  EXPECT_EQ(count(r.output, "epoch 2/2  train loss"), 1u) << r.output;
  EXPECT_EQ(count(r.output, "Wrote "), 1u) << r.output;
  EXPECT_TRUE(fs::exists(out / "model.safetensors"));
  EXPECT_TRUE(fs::exists(out / "metrics.svg"));
  // 1280 samples (640 per rank) for two epochs: well above chance (0.1) on the 300 test images.
  EXPECT_GT(last_accuracy(out / "metrics.csv"), 0.5) << r.output;
  fs::remove_all(out);
}

TEST(EmberRunTrain, MlpDataParallelOnTheCpu) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  expect_data_parallel_run("cpu", "cpu", "cpu");
}

// A diverging data-parallel run: every rank stops at the same point (the loss summed over the
// ranks at the epoch's end), the launcher exits non-zero, rank 0 has written nothing.
TEST(EmberRunTrain, NonFiniteLossStopsEveryRank) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  const fs::path out = fs::temp_directory_path() / "ember_run_train_nonfinite";
  fs::remove_all(out);
  Result r = run("--standalone --nproc-per-node 2 " + ember::testing::tool_path(EMBER_TRAIN_EXE) +
                 " --model mlp --epochs 2 --batch-size 32 --workers 1 --limit-train 640 "
                 "--limit-test 100 --device cpu --lr 1e30 --out " +
                 out.string());
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_GE(count(r.output, "ember-train: error: the training loss is nan at epoch 1/2, step "), 1u)
      << r.output;
  EXPECT_FALSE(fs::exists(out / "model.safetensors"));
  EXPECT_FALSE(fs::exists(out / "metrics.csv"));
  fs::remove_all(out);
}

TEST(EmberRunTrain, MlpDataParallelOneCudaDevicePerRank) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
  if (!ember::cuda::is_simulated()) GTEST_SKIP() << "real GPUs train with NCCL (checked by hand)";
  expect_data_parallel_run("cuda", "cuda:", "cuda");
}

}  // namespace
