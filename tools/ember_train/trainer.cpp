#include "ember_train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>

#include "ember/data/distributed_sampler.h"
#include "ember/distributed.h"
#include "ember/ember.h"
#include "ember/nn/parallel/distributed_data_parallel.h"
#include "ember/profiler.h"
#include "ember/serialize_module.h"
#include "ember_train/amp_choice.h"
#include "ember_train/data_parallel.h"
#include "ember_train/device_select.h"
#include "ember_train/gpt_trainer.h"
#include "ember_train/init_from.h"
#include "ember_train/models.h"
#include "ember_train/output_dir.h"
#include "ember_train/plot.h"
#include "ember_train/progress.h"

namespace ember::train {

// Steps the --audit report covers (the first ones of the first epoch, after warm-up allocations).
constexpr int64_t kAuditSteps = 20;
namespace {

namespace F = nn::functional;
using Loader = data::DataLoader<data::TensorDataset>;

// The end of --profile: the trace file and the summary table, most expensive ops first.
void write_profile(profiler::profile& prof, const std::string& path, Device device,
                   std::ostream& out) {
  prof.stop();
  prof.export_chrome_trace(path);
  out << prof.key_averages().table(
             device.is_cuda() ? "self_cuda_time_total" : "self_cpu_time_total", 15)
      << "Wrote the profile of " << prof.events().size() << " events to " << path
      << " (open it in ui.perfetto.dev or chrome://tracing)\n"
      << std::flush;
}

data::TensorDataset load_split(const std::string& root, bool train, bool normalize,
                               const std::optional<int64_t>& limit) {
  data::datasets::FashionMNIST ds(root, train);
  if (normalize) ds.normalize();
  Tensor images = ds.images(), targets = ds.targets();
  if (limit && *limit < images.size(0)) {
    images = images.slice(0, 0, *limit);
    targets = targets.slice(0, 0, *limit);
  }
  return data::TensorDataset(images, targets);
}

struct TestResult {
  double loss = 0;
  double accuracy = 0;
  // The sums behind them (for adding up the ranks' shards).
  double loss_sum = 0;
  double correct = 0;
  double n = 0;
};

TestResult evaluate(nn::Sequential& model, Loader& loader, const Device& device,
                    std::optional<ScalarType> amp) {
  NoGradGuard no_grad;
  model->eval();
  // Sums stay on the device; one sync at the end.
  Tensor loss_sum = zeros({}, TensorOptions().dtype(kFloat64).device(device));
  Tensor correct = zeros({}, TensorOptions().dtype(kInt64).device(device));
  int64_t n = 0;
  for (auto& batch : loader) {
    Tensor x = batch.data.to(device, /*non_blocking=*/true);
    Tensor y = batch.target.to(device, /*non_blocking=*/true);
    amp::autocast region(device.type(), amp.value_or(kBFloat16), /*enabled=*/amp.has_value());
    Tensor logits = model->forward(x);
    loss_sum +=
        F::cross_entropy(logits, y, F::CrossEntropyFuncOptions().reduction(kSum)).to(kFloat64);
    correct += (logits.argmax(1) == y).sum();
    n += y.size(0);
  }
  TestResult r;
  r.loss_sum = loss_sum.item<double>();
  r.correct = static_cast<double>(correct.item<int64_t>());
  r.n = static_cast<double>(n);
  if (n > 0) {
    r.loss = r.loss_sum / r.n;
    r.accuracy = r.correct / r.n;
  }
  return r;
}

// A stream that drops everything: what ranks other than 0 print to.
struct NullStream : std::ostream {
  NullStream() : std::ostream(nullptr) {}
};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// What a diverged run says after where it diverged.
std::string divergence_advice(double lr) {
  return " (Adam lr " + number(lr) +
         "): training has diverged, and nothing was written for this epoch. Lower --lr, or pass "
         "--allow-nonfinite to train on regardless";
}

// Stops the run at the first NaN or infinite loss among the first `steps` of `step_losses` (the
// epoch's per-step training losses, float64 on the training device), naming its epoch and step.
[[noreturn]] void stop_at_nonfinite_loss(const Tensor& step_losses, int64_t steps, int64_t epoch,
                                         int64_t epochs, int64_t batches, double lr) {
  const Tensor losses = step_losses.slice(0, 0, steps).cpu().contiguous();
  const double* p = losses.data_ptr<double>();
  const std::string where = "epoch " + std::to_string(epoch) + "/" + std::to_string(epochs);
  for (int64_t i = 0; i < steps; ++i) {
    if (!std::isfinite(p[i])) {
      throw Error("the training loss is " + number(p[i]) + " at " + where + ", step " +
                  std::to_string(i + 1) + "/" + std::to_string(batches) + divergence_advice(lr));
    }
  }
  // Data parallel: the loss summed over the ranks is non-finite, this rank's losses are not.
  throw Error("the training loss of another rank is not finite in " + where +
              divergence_advice(lr));
}

}  // namespace

std::vector<EpochMetrics> run_training(const TrainArgs& args, std::ostream& console,
                                       bool terminal) {
  if (args.model == "gpt") {
    run_gpt_training(args, console, terminal);  // its rows are per evaluation, not per epoch
    return {};
  }
  const ModelDefaults defaults = model_defaults(args.model);
  const int64_t epochs = args.epochs.value_or(defaults.epochs);
  const int64_t batch_size = args.batch_size.value_or(defaults.batch_size);
  const double lr = args.lr.value_or(defaults.lr);
  // Before anything slow (devices, data): a bad output path fails at once and names its flag.
  prepare_output_dir(args.out);
  for (const char* file : {"model.safetensors", "metrics.csv", "metrics.svg"}) {
    check_output_file("--out", (std::filesystem::path(args.out) / file).string());
  }
  if (!args.profile.empty()) check_output_file("--profile", args.profile);

  // Under ember-run every process is a rank: one device each, rank 0 prints and writes.
  const bool data_parallel = launched_as_rank();
  const Device device = select_device(data_parallel ? rank_device_spec(args.device) : args.device);
  if (device.is_cuda()) cuda::set_device(device.index());
  DataParallelRun dp;
  if (data_parallel) dp = start_data_parallel(device);
  NullStream quiet;
  std::ostream& out = dp.rank == 0 ? console : quiet;
  out << "Using device: " << describe_device(device) << "\n";
  if (dp.enabled) {
    out << "Data-parallel: " << dp.world_size << " processes (" << dp.backend
        << "), each with its shard of the data and batch size " << batch_size << " (global "
        << batch_size * dp.world_size << ")\n";
  }

  manual_seed(args.seed);
  cuda::manual_seed_all(args.seed);

  const std::string root =
      args.data.empty() ? data::datasets::FashionMNIST::kDefaultRoot : args.data;
  auto train_set = load_split(root, true, args.normalize, args.limit_train);
  auto test_set = load_split(root, false, args.normalize, args.limit_test);
  out << "Fashion-MNIST from " << root << ": " << train_set.size() << " training and "
      << test_set.size() << " test images\n";

  std::filesystem::create_directories(args.out);
  const std::filesystem::path out_dir(args.out);

  const bool pin = device.is_cuda();
  auto train_options = data::DataLoaderOptions()
                           .batch_size(static_cast<size_t>(batch_size))
                           .shuffle(!dp.enabled)
                           .seed(args.seed)
                           .num_workers(static_cast<size_t>(args.workers))
                           .pin_memory(pin);
  auto test_options = data::DataLoaderOptions()
                          .batch_size(1000)
                          .num_workers(static_cast<size_t>(args.workers))
                          .pin_memory(pin);
  // Data parallel: each rank its shard, reshuffled every epoch with the same permutation on all.
  std::shared_ptr<data::DistributedSampler> train_sampler;
  if (dp.enabled) {
    train_sampler = std::make_shared<data::DistributedSampler>(
        train_set.size(), data::DistributedSamplerOptions().seed(args.seed));
  }
  Loader train_loader = dp.enabled ? Loader(train_set, train_sampler, train_options)
                                   : Loader(train_set, train_options);
  Loader test_loader =
      dp.enabled
          ? Loader(test_set,
                   std::make_shared<StridedShardSampler>(test_set.size(), dp.rank, dp.world_size),
                   test_options)
          : Loader(test_set, test_options);

  nn::Sequential model = make_model(args.model);
  if (!args.init_from.empty()) load_initial_weights(*model, args.init_from, out);
  model->to(device);
  // Starts every replica from rank 0's parameters; backward then averages the gradients.
  std::optional<nn::parallel::DistributedDataParallel<nn::SequentialImpl>> ddp;
  if (dp.enabled) ddp.emplace(model);
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(lr));
  // Parameters stay float32; autocast runs the GEMMs and convolutions in 16 bits. float16
  // gradients need scaling to stay out of float16's underflow range; bfloat16 has float32's range.
  const std::optional<ScalarType> amp = amp_dtype(args, device);
  amp::GradScaler scaler(amp::GradScalerOptions().enabled(amp == kHalf));
  // Stepped once per epoch: the last epochs take small steps, so the final model sits near the
  // best accuracy instead of wherever the last noisy step left it.
  std::optional<optim::CosineAnnealingLR> scheduler;
  if (args.cosine_lr) scheduler.emplace(optimizer, epochs);
  out << "Model " << args.model << " (" << parameter_count(*model) << " parameters), " << epochs
      << " epochs, batch size " << batch_size << ", Adam lr " << lr
      << (args.cosine_lr ? " (cosine annealing)" : " (constant)") << ", " << amp_description(amp)
      << "\n"
      << std::flush;

  std::vector<EpochMetrics> rows;
  const auto batches = static_cast<int64_t>(train_loader.size());
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    model->train();
    if (train_sampler) train_sampler->set_epoch(static_cast<uint64_t>(epoch));
    EpochProgress progress(out, terminal, epoch, epochs, batches);
    // The running loss stays on the device and is read only when the progress line is due, so
    // the GPU is not synchronised every step.
    Tensor loss_sum = zeros({}, TensorOptions().dtype(kFloat64).device(device));
    int64_t samples = 0, batch_index = 0;
    std::optional<cuda::TransferAudit> audit;
    if (args.audit && epoch == 1) audit.emplace();
    // Unless --allow-nonfinite, the run stops at the first NaN or infinite training loss, before
    // anything of that epoch is written. Every step's loss is kept on the device and looked at
    // where the loss is read anyway: each step on the CPU (reading costs nothing there), at the
    // progress lines on CUDA (the GPU is not synchronised every step; the error still names the
    // first bad step), and under data parallelism at the epoch's end, through the loss summed
    // over the ranks, so that every rank stops at the same point.
    const bool check_loss = !args.allow_nonfinite;
    Tensor step_losses;
    if (check_loss) {
      step_losses =
          empty({std::max<int64_t>(batches, 1)}, TensorOptions().dtype(kFloat64).device(device));
    }
    // --profile: steps from the second (the first warms the allocators) while there are any.
    std::optional<profiler::profile> prof;
    const int64_t profile_from = std::min<int64_t>(1, batches - 1);
    const int64_t profile_to = std::min(profile_from + args.profile_steps, batches);
    for (auto& batch : train_loader) {
      if (!args.profile.empty() && epoch == 1 && batch_index == profile_from) {
        prof.emplace(profiler::ProfileOptions().record_shapes(true).profile_memory(true));
      }
      Tensor x = batch.data.to(device, /*non_blocking=*/true);
      Tensor y = batch.target.to(device, /*non_blocking=*/true);
      optimizer.zero_grad();
      Tensor loss;
      {
        amp::autocast region(device.type(), amp.value_or(kBFloat16), amp.has_value());
        loss = F::cross_entropy(ddp ? (*ddp)->forward(x) : model->forward(x), y);
      }
      if (check_loss && batch_index < batches) {
        step_losses.select(0, batch_index).copy_(loss.detach());
        if (!device.is_cuda() && !dp.enabled &&
            !std::isfinite(step_losses.data_ptr<double>()[batch_index])) {
          stop_at_nonfinite_loss(step_losses, batch_index + 1, epoch, epochs, batches, lr);
        }
      }
      scaler.scale(loss).backward();
      scaler.step(optimizer);  // skipped (and the scale backed off) if a gradient overflowed
      scaler.update();
      const int64_t n = y.size(0);
      loss_sum += loss.detach().to(kFloat64) * static_cast<double>(n);
      samples += n;
      ++batch_index;
      if (progress.due(batch_index)) {
        const double mean_loss = loss_sum.item<double>() / samples;
        if (check_loss && !dp.enabled && !std::isfinite(mean_loss)) {
          stop_at_nonfinite_loss(step_losses, std::min(batch_index, batches), epoch, epochs,
                                 batches, lr);
        }
        progress.update(batch_index, samples, mean_loss);
      }
      if (prof && batch_index < profile_to) prof->step();  // ProfilerStep#0, #1, ...
      if (prof && batch_index == profile_to) {
        write_profile(*prof, args.profile, device, out);
        prof.reset();
      }
      if (audit) {
        audit->step();
        if (batch_index == kAuditSteps || batch_index == batches) {
          out << audit->report() << std::flush;
          audit.reset();
        }
      }
    }
    progress.finish();
    if (scheduler) scheduler->step();
    EpochMetrics m;
    m.epoch = epoch;
    if (dp.enabled) {
      // Evaluate with rank 0's running statistics (each rank updated its own from its batches).
      for (Tensor b : model->buffers()) distributed::broadcast(b, 0);
    }
    TestResult test = evaluate(model, test_loader, device, amp);
    // Over all ranks: every training sample of the epoch and the whole test set.
    auto sums = sum_over_ranks(dp, {loss_sum.item<double>(), static_cast<double>(samples),
                                    test.loss_sum, test.correct, test.n});
    m.train_loss = sums[1] > 0 ? sums[0] / sums[1] : 0;
    m.test_loss = sums[4] > 0 ? sums[2] / sums[4] : 0;
    m.test_accuracy = sums[4] > 0 ? sums[3] / sums[4] : 0;
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (check_loss && !std::isfinite(m.train_loss)) {
      stop_at_nonfinite_loss(step_losses, std::min(batch_index, batches), epoch, epochs, batches,
                             lr);
    }
    if (check_loss && !std::isfinite(m.test_loss)) {
      throw Error("the test loss after epoch " + std::to_string(epoch) + "/" +
                  std::to_string(epochs) + " is " + number(m.test_loss) + divergence_advice(lr));
    }
    rows.push_back(m);
    out << "epoch " << epoch << "/" << epochs << "  train loss " << fixed(m.train_loss, 4)
        << "  test loss " << fixed(m.test_loss, 4) << "  test accuracy "
        << fixed(m.test_accuracy, 4) << "  time " << fixed(m.seconds, 1) << "s\n"
        << std::flush;

    // Rewritten each epoch (atomically), so an interrupted run keeps its last complete epoch.
    if (dp.rank != 0) continue;
    save(model, (out_dir / "model.safetensors").string(),
         {{"model", args.model},
          {"epoch", std::to_string(epoch)},
          {"test_accuracy", fixed(m.test_accuracy, 4)}});
    write_file_atomic((out_dir / "metrics.csv").string(), metrics_csv(rows));
    write_file_atomic((out_dir / "metrics.svg").string(),
                      metrics_svg(rows, "ember-train: " + args.model + " on Fashion-MNIST (" +
                                            device.str() + ")"));
  }
  out << "Wrote " << (out_dir / "model.safetensors").string() << ", "
      << (out_dir / "metrics.csv").string() << " and " << (out_dir / "metrics.svg").string()
      << "\n";
  if (device.is_cuda()) {
    cuda::synchronize(device.index());
    out << cuda::memory_summary(device.index());
  }
  out << std::flush;
  finish_data_parallel(dp);
  return rows;
}

}  // namespace ember::train
