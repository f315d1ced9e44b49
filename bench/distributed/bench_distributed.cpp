// Ember's side of the distributed benchmark (scripts/bench-distributed runs it next to
// bench_distributed_torch.py, the PyTorch 1.13 peer, with the same sizes):
//   under ember-run: all_reduce of 25 MiB (bandwidth) and one DDP training step of an MLP;
//   alone (no WORLD_SIZE): the same MLP step without DDP, the base of the scaling efficiency.
// Rank 0 prints one JSON object per row: {"name", "unit", "value", ...}.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ember/distributed.h"
#include "ember/nn.h"
#include "ember/nn/parallel/distributed_data_parallel.h"
#include "ember/ops.h"
#include "ember/optim.h"

namespace dist = ember::distributed;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int64_t kAllreduceBytes = 25 << 20;
constexpr int kBatch = 64;  // per process

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

ember::nn::Sequential make_mlp() {
  ember::manual_seed(0);
  return ember::nn::Sequential(ember::nn::Linear(784, 1024), ember::nn::ReLU(),
                               ember::nn::Linear(1024, 1024), ember::nn::ReLU(),
                               ember::nn::Linear(1024, 10));
}

void row(const char* name, const char* unit, double value, const char* note) {
  std::printf("{\"name\": \"%s\", \"unit\": \"%s\", \"value\": %.6g, \"note\": \"%s\"}\n", name,
              unit, value, note);
  std::fflush(stdout);
}

// Median step time (ms) of zero_grad, forward, cross_entropy, backward, SGD step.
template <typename Forward>
double time_steps(Forward&& forward, ember::optim::Optimizer& opt, int warmup, int steps) {
  ember::manual_seed(1);
  ember::Tensor x = ember::randn({kBatch, 784});
  ember::Tensor y = ember::randint(0, 10, {kBatch});
  std::vector<double> times;
  for (int i = 0; i < warmup + steps; ++i) {
    auto t0 = Clock::now();
    opt.zero_grad();
    ember::nn::functional::cross_entropy(forward(x), y).backward();
    opt.step();
    if (i >= warmup) times.push_back(ms_since(t0));
  }
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 30;
  if (!std::getenv("WORLD_SIZE")) {
    auto model = make_mlp();
    ember::optim::SGD opt(model->parameters(), ember::optim::SGDOptions(0.01));
    double ms =
        time_steps([&](const ember::Tensor& x) { return model->forward(x); }, opt, 5, steps);
    row("mlp_step_1proc", "ms", ms, "784-1024-1024-10 MLP, batch 64, SGD, one process");
    return 0;
  }
  dist::init_process_group("gloo");
  const bool report = dist::get_rank() == 0;

  ember::Tensor buffer = ember::ones({kAllreduceBytes / 4});
  std::vector<double> times;
  for (int i = 0; i < 3 + steps; ++i) {
    dist::barrier();
    auto t0 = Clock::now();
    dist::all_reduce(buffer);
    if (i >= 3) times.push_back(ms_since(t0));
  }
  const double ar_ms = median(times);
  if (report) {
    row("allreduce_25MiB", "ms", ar_ms, "float32 sum, 2 processes, Gloo");
    row("allreduce_25MiB_bw", "GB/s", kAllreduceBytes / (ar_ms * 1e-3) / 1e9,
        "algorithm bandwidth: bytes / time");
  }

  auto model = make_mlp();
  auto ddp = ember::nn::parallel::DistributedDataParallel(model);
  ember::optim::SGD opt(ddp->parameters(), ember::optim::SGDOptions(0.01));
  double ms = time_steps([&](const ember::Tensor& x) { return ddp(x); }, opt, 5, steps);
  // The slowest rank sets the pace: report the maximum over ranks.
  ember::Tensor t = ember::full({1}, ms, ember::kDouble);
  dist::all_reduce(t, dist::ReduceOp::MAX);
  if (report) {
    row("ddp_mlp_step", "ms", t.item<double>(),
        "784-1024-1024-10 MLP, batch 64 per process, SGD, 2 processes, Gloo");
  }
  dist::destroy_process_group();
  return 0;
}
