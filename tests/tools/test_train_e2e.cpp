// ember-train end to end on a small subset of Fashion-MNIST: exit status, console output, and the
// three output files; bad command lines give the usage and a non-zero status, never a crash.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/serialize_module.h"
#include "ember/serialize_pt.h"
#include "ember_train/models.h"
#include "support/cuda_skip.h"
#include "support/tool_path.h"
#include "support/torch_oracle.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr
};

Result run(const std::string& args) {
  const std::string cmd = ember::testing::tool_path(EMBER_TRAIN_EXE) + " " + args + " 2>&1";
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

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

bool has_dataset() {
  return fs::exists(fs::path(ember::data::datasets::FashionMNIST::kDefaultRoot) /
                    "t10k-labels-idx1-ubyte.gz");
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ember_train_e2e_" + name);
  fs::remove_all(d);
  return d;
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// A small Fashion-MNIST look-alike (uncompressed IDX files) in `dir`, so that the tests of run
// time behaviour need not have the data set installed.
void write_synthetic_dataset(const fs::path& dir, uint32_t train, uint32_t test) {
  fs::create_directories(dir);
  for (const auto& [prefix, n] :
       {std::pair<std::string, uint32_t>{"train", train}, {"t10k", test}}) {
    std::string images = be32(0x803) + be32(n) + be32(28) + be32(28);
    std::string labels = be32(0x801) + be32(n);
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t p = 0; p < 28 * 28; ++p) images += static_cast<char>((i * 31 + p * 7) % 256);
      labels += static_cast<char>(i % 10);
    }
    std::ofstream(dir / (prefix + "-images-idx3-ubyte"), std::ios::binary) << images;
    std::ofstream(dir / (prefix + "-labels-idx1-ubyte"), std::ios::binary) << labels;
  }
}

}  // namespace

TEST(TrainE2E, MlpTwoEpochsOnASubset) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  const fs::path out = fresh_dir("mlp");
  const Result r =
      run("--model mlp --epochs 2 --batch-size 32 --device cpu --workers 1 "
          "--limit-train 640 --limit-test 200 --seed 3 --out " +
          out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Using device: cpu ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" threads)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("640 training and 200 test images"), std::string::npos) << r.output;
  // Not a terminal: plain progress lines, no carriage returns.
  EXPECT_EQ(r.output.find('\r'), std::string::npos);
  EXPECT_NE(r.output.find("epoch 1/2  20/20 batches  loss "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("epoch 2/2  train loss "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("test accuracy "), std::string::npos) << r.output;

  // metrics.csv: header and one row per epoch with sane values.
  const auto csv = lines(read_file(out / "metrics.csv"));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv[0], "epoch,train_loss,test_loss,test_accuracy,seconds");
  for (int e = 1; e <= 2; ++e) {
    int epoch = 0;
    double train_loss = -1, test_loss = -1, acc = -1, secs = -1;
    ASSERT_EQ(std::sscanf(csv[e].c_str(), "%d,%lf,%lf,%lf,%lf", &epoch, &train_loss, &test_loss,
                          &acc, &secs),
              5)
        << csv[e];
    EXPECT_EQ(epoch, e);
    EXPECT_GT(train_loss, 0);
    EXPECT_LT(train_loss, 2.31);  // below chance level (ln 10) after an epoch
    EXPECT_GT(test_loss, 0);
    EXPECT_GT(acc, 0.3);  // well above chance (0.1) even on 640 images
    EXPECT_LE(acc, 1.0);
    EXPECT_GT(secs, 0);
  }

  // metrics.svg: a complete SVG with both panels.
  const std::string svg = read_file(out / "metrics.svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find(">train loss<"), std::string::npos);
  EXPECT_NE(svg.find(">test accuracy<"), std::string::npos);

  // model.safetensors: loads into a fresh MLP, whose accuracy on the same test images matches
  // the last epoch's.
  EXPECT_EQ(ember::load_metadata((out / "model.safetensors").string()).at("model"), "mlp");
  auto model = ember::train::make_mlp();
  ember::load(model, (out / "model.safetensors").string());
  ember::data::datasets::FashionMNIST test(ember::data::datasets::FashionMNIST::kDefaultRoot,
                                           false);
  test.normalize();
  ember::NoGradGuard no_grad;
  model->eval();
  auto logits = model->forward(test.images().slice(0, 0, 200));
  const double acc =
      (logits.argmax(1) == test.targets().slice(0, 0, 200)).sum().item<int64_t>() / 200.0;
  double last_acc = 0;
  std::sscanf(csv[2].c_str(), "%*d,%*f,%*f,%lf", &last_acc);
  EXPECT_NEAR(acc, last_acc, 1e-6);
  EXPECT_FALSE(fs::exists(out / "metrics.csv.tmp"));
  fs::remove_all(out);
}

// The CUDA path end to end (a GPU, or simulated devices in CI): the same seed trains to the same
// losses as on the CPU (up to summation order), on cuda:0 and on cuda:1, and the checkpoint
// written from the device loads on the CPU.
// --audit on the device: ember-train's own loop (pinned batches, non_blocking copies, the loss kept
// on the device) has nothing to fix; the report covers the first 20 steps.
TEST(TrainE2E, AuditOfTheTrainingLoopOnCuda) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  EMBER_SKIP_WITHOUT_CUDA();
  const fs::path out = fresh_dir("audit");
  const Result r =
      run("--model mlp --epochs 1 --batch-size 32 --workers 1 --limit-train 960 "
          "--limit-test 64 --audit --device cuda --out " +
          out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Transfer audit: 20 steps; per step:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("host->device copies, pinned"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("No transfer or sync problems found."), std::string::npos) << r.output;
  fs::remove_all(out);
}

// --profile: a trace of --profile-steps steps from the second, and the summary table, on the CPU
// and on a CUDA device (whose ops then have GPU time on the device's tracks).
TEST(TrainE2E, ProfileWritesATraceOfAFewSteps) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  std::vector<std::string> devices = {"cpu"};
  if (ember::cuda::is_available()) devices.push_back("cuda");
  for (const std::string& device : devices) {
    SCOPED_TRACE(device);
    const fs::path out = fresh_dir("profile_" + device);
    const fs::path trace = out / "trace.json";
    const Result r =
        run("--model mlp --epochs 1 --batch-size 32 --workers 1 --limit-train 320 "
            "--limit-test 64 --profile " +
            trace.string() + " --profile-steps 3 --device " + device + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("# of Calls"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Self CPU time total: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Wrote the profile of "), std::string::npos) << r.output;
    std::ifstream in(trace);
    const nlohmann::json doc = nlohmann::json::parse(in);
    int steps = 0, addmm = 0, gpu = 0, last_step = -1;
    for (const auto& e : doc["traceEvents"]) {
      const std::string name = e.value("name", "");
      if (name.rfind("ProfilerStep#", 0) == 0) {
        ++steps;
        last_step = std::max(last_step, std::stoi(name.substr(13)));
      }
      if (name == "ember::addmm" && e["cat"] == "cpu_op") {
        ++addmm;
        EXPECT_EQ(e["args"]["device"], device == "cpu" ? "cpu" : "cuda:0");
      }
      gpu += e.value("cat", "") == "kernel";
    }
    EXPECT_EQ(steps, 3);
    EXPECT_EQ(last_step, 2);
    EXPECT_GE(addmm, 3 * 3);  // three linear layers a step (and more in backward)
    EXPECT_EQ(gpu > 0, device == "cuda");
    fs::remove_all(out);
  }
}

TEST(TrainE2E, CudaTrainsLikeTheCpuAndItsCheckpointLoadsOnTheCpu) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  EMBER_SKIP_WITHOUT_CUDA();
  const std::string common =
      "--model mlp --epochs 1 --batch-size 64 --workers 1 --limit-train 512 --limit-test 128 "
      "--seed 5 --constant-lr --out ";
  const fs::path cpu_out = fresh_dir("cmp_cpu");
  const Result cpu = run(common + cpu_out.string() + " --device cpu");
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  const std::string cpu_row = lines(read_file(cpu_out / "metrics.csv")).at(1);
  double cpu_loss = 0, cpu_acc = 0;
  ASSERT_EQ(std::sscanf(cpu_row.c_str(), "%*d,%lf,%*f,%lf", &cpu_loss, &cpu_acc), 2) << cpu_row;
  const int devices = std::min(ember::cuda::device_count(), 2);
  for (int d = 0; d < devices; ++d) {
    const std::string dev = "cuda:" + std::to_string(d);
    const fs::path out = fresh_dir("cmp_" + std::to_string(d));
    const Result r = run(common + out.string() + " --device " + dev);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("Using device: " + dev), std::string::npos) << r.output;
    const std::string row = lines(read_file(out / "metrics.csv")).at(1);
    double loss = 0, acc = 0;
    ASSERT_EQ(std::sscanf(row.c_str(), "%*d,%lf,%*f,%lf", &loss, &acc), 2) << row;
    EXPECT_NEAR(loss, cpu_loss, 1e-4 * cpu_loss) << dev;
    EXPECT_NEAR(acc, cpu_acc, 2.0 / 128) << dev;  // at most a borderline image or two
    // Saved from the device, loaded on the CPU: same test accuracy as the device reported.
    auto model = ember::train::make_mlp();
    ember::load(model, (out / "model.safetensors").string());
    EXPECT_TRUE(model->parameters()[0].is_cpu());
    ember::data::datasets::FashionMNIST test(ember::data::datasets::FashionMNIST::kDefaultRoot,
                                             false);
    test.normalize();
    ember::NoGradGuard no_grad;
    model->eval();
    auto logits = model->forward(test.images().slice(0, 0, 128));
    const double cpu_side =
        (logits.argmax(1) == test.targets().slice(0, 0, 128)).sum().item<int64_t>() / 128.0;
    EXPECT_NEAR(cpu_side, acc, 1e-6) << dev;
    fs::remove_all(out);
  }
  fs::remove_all(cpu_out);
}

TEST(TrainE2E, CnnOneEpochOnATinySubset) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  const fs::path out = fresh_dir("cnn");
  const Result r =
      run("--model cnn --epochs 1 --device cpu --workers 0 --limit-train 128 "
          "--limit-test 64 --out " +
          out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Model cnn (421642 parameters)"), std::string::npos) << r.output;
  EXPECT_EQ(lines(read_file(out / "metrics.csv")).size(), 2u);
  const auto tensors = ember::load((out / "model.safetensors").string());
  EXPECT_EQ(tensors.at("conv1.weight").sizes().vec(), (std::vector<int64_t>{32, 1, 3, 3}));
  EXPECT_EQ(tensors.at("fc2.weight").sizes().vec(), (std::vector<int64_t>{10, 128}));
  EXPECT_TRUE(fs::exists(out / "metrics.svg"));
  fs::remove_all(out);
}

// --amp on every device: bfloat16 autocast on the CPU, float16 with a GradScaler on CUDA (and on
// the CPU when asked). Training reaches the float32 run's accuracy on the same subset (within a
// few images) and the checkpoint holds float32 parameters.
TEST(TrainE2E, MixedPrecisionMatchesFloat32) {
  if (!has_dataset()) GTEST_SKIP() << "Fashion-MNIST is not installed (dataset-fashion-mnist)";
  const std::string common =
      "--model mlp --epochs 2 --batch-size 64 --workers 1 --limit-train 1280 --limit-test 256 "
      "--seed 7 --out ";
  auto accuracy = [](const fs::path& out) {
    const std::string row = lines(read_file(out / "metrics.csv")).at(2);
    double acc = 0;
    EXPECT_EQ(std::sscanf(row.c_str(), "%*d,%*f,%*f,%lf", &acc), 1) << row;
    return acc;
  };
  const fs::path f32 = fresh_dir("amp_f32");
  const Result base = run(common + f32.string() + " --device cpu");
  ASSERT_EQ(base.status, 0) << base.output;
  EXPECT_NE(base.output.find("(cosine annealing), float32"), std::string::npos) << base.output;
  const double base_acc = accuracy(f32);

  struct Case {
    std::string flags, expect;
  };
  std::vector<Case> cases = {
      {"--device cpu --amp", "mixed precision: bfloat16 autocast\n"},
      {"--device cpu --amp-dtype float16", "mixed precision: float16 autocast + GradScaler"}};
  if (ember::cuda::is_available()) {
    cases.push_back({"--device cuda:0 --amp", "mixed precision: float16 autocast + GradScaler"});
    cases.push_back({"--device cuda:1 --amp-dtype bfloat16", "mixed precision: bfloat16 autocast"});
  }
  for (const Case& c : cases) {
    if (c.flags.find("cuda:1") != std::string::npos && ember::cuda::device_count() < 2) continue;
    const fs::path out = fresh_dir("amp");
    const Result r = run(common + out.string() + " " + c.flags);
    ASSERT_EQ(r.status, 0) << c.flags << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.flags << "\n" << r.output;
    EXPECT_NEAR(accuracy(out), base_acc, 0.03) << c.flags;  // 256 test images: a few of them
    for (const auto& [name, t] : ember::load((out / "model.safetensors").string())) {
      EXPECT_EQ(t.dtype(), ember::kFloat) << c.flags << " " << name;
    }
    fs::remove_all(out);
  }
  fs::remove_all(f32);
}

TEST(TrainE2E, HelpPrintsUsageAndSucceeds) {
  for (const char* help : {"--help", "-h", "--epochs 0 --help"}) {
    const Result r = run(help);
    EXPECT_EQ(r.status, 0) << help;
    EXPECT_EQ(r.output.rfind("Usage: ember-train [OPTIONS]\n", 0), 0u) << r.output;
    for (const char* line :
         {"\n  -h, --help ", "\n  --model mlp|cnn|gpt ", "\n  --epochs N ", "\n  --device D ",
          "\n  --amp ", "\n  --amp-dtype D ", "\n  --limit-test N "}) {
      EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
    }
  }
}

TEST(TrainE2E, BadCommandLinesPrintUsageAndExitTwo) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--bogus", "unknown argument '--bogus'"},
      {"--epoch 3", "unknown argument '--epoch'"},
      {"extra", "unknown argument 'extra'"},
      {"--model transformer", "--model: expected mlp, cnn or gpt, got 'transformer'"},
      {"--epochs -3", "--epochs: must be at least 1, got -3"},
      {"--epochs", "--epochs: 1 required N missing"},
      {"--seed -1", "--seed: expected an integer, got '-1'"},
      {"--lr abc", "--lr: expected a number, got 'abc'"},
      {"--batch-size 0", "--batch-size: must be at least 1, got 0"},
      {"--device tpu", "--device: expected auto, cpu, cuda or cuda:<index>, got 'tpu'"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("ember-train: error: " + message), std::string::npos) << args << "\n"
                                                                                  << r.output;
    EXPECT_NE(r.output.find("Usage: ember-train"), std::string::npos) << args;
  }
}

TEST(TrainE2E, RuntimeErrorsExitOneWithAMessage) {
  const fs::path out = fresh_dir("errors");
  // A dataset directory without the files.
  Result r = run("--data /nonexistent-fashion --device cpu --out " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("ember-train: error: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/nonexistent-fashion"), std::string::npos) << r.output;
  // --profile into a missing folder: named at once, before the data is loaded.
  r = run("--profile /nonexistent-ember-dir/trace.json --device cpu --out " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("ember-train: error: --profile /nonexistent-ember-dir/trace.json: the "
                          "directory /nonexistent-ember-dir does not exist"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("Fashion-MNIST from"), std::string::npos) << r.output;
  // A CUDA device that is not there (no GPU, or an ordinal out of range).
  r = run("--device cuda:64 --limit-train 10 --limit-test 10 --out " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cuda:64"), std::string::npos) << r.output;
  fs::remove_all(out);
}

// A diverging run (--lr 1e30 makes the loss NaN from the second step) stops at the first
// non-finite loss with an error that names the epoch, the step and the loss, exits 1, and writes
// no model, metrics or plot; --allow-nonfinite trains on as asked.
TEST(TrainE2E, NonFiniteLossStopsTheRunAndWritesNothing) {
  const fs::path data = fresh_dir("nonfinite_data");
  write_synthetic_dataset(data, 320, 50);
  const std::string common =
      "--model mlp --epochs 2 --batch-size 32 --device cpu --workers 1 "
      "--lr 1e30 --data " +
      data.string() + " --out ";
  const fs::path out = fresh_dir("nonfinite");
  Result r = run(common + out.string());
  EXPECT_EQ(r.status, 1) << r.output;
  const std::regex message(
      "ember-train: error: the training loss is (-?nan|-?inf) at epoch 1/2, step [0-9]+/10 "
      "\\(Adam lr 1e\\+30\\): training has diverged, and nothing was written for this epoch. "
      "Lower --lr, or pass --allow-nonfinite to train on regardless\n");
  EXPECT_TRUE(std::regex_search(r.output, message)) << r.output;
  EXPECT_EQ(r.output.find("epoch 1/2  train loss"), std::string::npos) << r.output;
  for (const char* file : {"model.safetensors", "metrics.csv", "metrics.svg"}) {
    EXPECT_FALSE(fs::exists(out / file)) << file;
  }

  const fs::path allowed = fresh_dir("nonfinite_allowed");
  r = run(common + allowed.string() + " --allow-nonfinite");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("epoch 2/2  train loss nan"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(allowed / "model.safetensors"));
  for (const auto& d : {data, out, allowed}) fs::remove_all(d);
}

// --init-from a PyTorch training checkpoint of the same MLP (torch.save({"model":
// model.state_dict(), ...})): the run starts from PyTorch's weights. With a learning rate far too
// small to move them, the run's own checkpoint holds exactly those weights. A file that does not
// fit the model stops the run with the name of what does not fit.
TEST(TrainE2E, InitFromAPyTorchCheckpoint) {
  const fs::path dir = fresh_dir("init_from");
  write_synthetic_dataset(dir / "data", 64, 32);
  fs::create_directories(dir);
  const fs::path script = dir / "make.py";
  std::ofstream(script)
      << "import collections, sys, torch\n"
         "nn = torch.nn\n"
         "torch.manual_seed(0)\n"
         "m = nn.Sequential(collections.OrderedDict(flatten=nn.Flatten(),\n"
         "    fc1=nn.Linear(784, 256), relu1=nn.ReLU(), fc2=nn.Linear(256, 128),\n"
         "    relu2=nn.ReLU(), fc3=nn.Linear(128, 10)))\n"
         "torch.save({'model': m.state_dict(), 'epoch': 4}, sys.argv[1])\n";
  const fs::path ckpt = dir / "torch.pt";
  const std::string py =
      ember::testing::torch_python() + " " + script.string() + " " + ckpt.string() + " 2>&1";
  if (std::system(py.c_str()) != 0 || !fs::exists(ckpt)) {
    GTEST_SKIP() << "no python3 with torch (" << ember::testing::torch_python() << ")";
  }
  const std::string common =
      "--epochs 1 --batch-size 32 --device cpu --workers 0 --lr 1e-30 "
      "--constant-lr --data " +
      (dir / "data").string() + " --init-from " + ckpt.string() + " --out ";
  Result r = run("--model mlp " + common + (dir / "mlp").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Initialised from " + ckpt.string() + " (6 tensors)"), std::string::npos)
      << r.output;
  const auto trained = ember::load((dir / "mlp" / "model.safetensors").string());
  const ember::PtValue saved = ember::load_pt_object(ckpt.string());
  for (const auto& [name, t] : ember::pt_as_state_dict(*saved.get("model"))) {
    EXPECT_TRUE(ember::equal(trained.at(name), t)) << name;
  }
  r = run("--model cnn " + common + (dir / "cnn").string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("--init-from " + ckpt.string() + ": "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("conv1.weight"), std::string::npos) << r.output;
  fs::remove_all(dir);
}
