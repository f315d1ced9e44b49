#include "ember_train/gpt_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>

#include "ember/ember.h"
#include "ember/profiler.h"
#include "ember/serialize_module.h"
#include "ember_train/amp_choice.h"
#include "ember_train/corpus.h"
#include "ember_train/data_parallel.h"
#include "ember_train/device_select.h"
#include "ember_train/gpt.h"
#include "ember_train/init_from.h"
#include "ember_train/models.h"
#include "ember_train/output_dir.h"
#include "ember_train/plot.h"
#include "ember_train/progress.h"

namespace ember::train {
namespace {

using Clock = std::chrono::steady_clock;
// Steps the --audit report covers (as for the classifiers).
constexpr int64_t kGptAuditSteps = 20;

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

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// nanoGPT's schedule: a linear warm-up to lr over `warmup` steps, then a cosine from lr down to
// lr * min_fraction at the last step (or lr throughout when not cosine).
double lr_at(int64_t step, int64_t steps, int64_t warmup, double lr, double min_fraction,
             bool cosine) {
  if (!cosine) return lr;
  if (step < warmup) return lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const double span = std::max<double>(1.0, static_cast<double>(steps - 1 - warmup));
  const double progress = std::clamp(static_cast<double>(step - warmup) / span, 0.0, 1.0);
  const double min_lr = lr * min_fraction;
  return min_lr + 0.5 * (1.0 + std::cos(M_PI * progress)) * (lr - min_lr);
}

struct Batch {
  Tensor x, y;
};

// The mean loss over the fixed validation batches, in eval mode without gradients.
double validation_loss(Gpt& model, const std::vector<Batch>& batches, std::optional<ScalarType> amp,
                       const Device& device) {
  NoGradGuard no_grad;
  model->eval();
  Tensor sum = zeros({}, TensorOptions().dtype(kFloat64).device(device));
  for (const Batch& b : batches) {
    amp::autocast region(device.type(), amp.value_or(kBFloat16), amp.has_value());
    sum += model->loss(b.x, b.y).to(kFloat64);
  }
  model->train();
  return sum.item<double>() / static_cast<double>(batches.size());
}

std::string divergence_advice(double lr) {
  return " (AdamW lr " + number(lr) +
         "): training has diverged, and nothing was written for it. Lower --lr, or pass "
         "--allow-nonfinite to train on regardless";
}

}  // namespace

std::vector<StepMetrics> run_gpt_training(const TrainArgs& args, std::ostream& out, bool terminal) {
  const GptDefaults defaults = gpt_defaults();
  const int64_t steps = args.steps.value_or(defaults.steps);
  const int64_t batch_size = args.batch_size.value_or(defaults.batch_size);
  const double lr = args.lr.value_or(defaults.lr);
  const int64_t eval_interval = args.eval_interval.value_or(defaults.eval_interval);
  const int64_t eval_batches = args.eval_batches.value_or(defaults.eval_batches);
  const int64_t sample_chars = args.sample.value_or(defaults.sample);
  const double temperature = args.temperature.value_or(1.0);
  check_sampling(temperature, args.top_k);
  GptConfig config;
  config.block_size = args.block_size.value_or(config.block_size);
  config.n_layer = args.layers.value_or(config.n_layer);
  config.n_head = args.heads.value_or(config.n_head);
  config.n_embd = args.width.value_or(config.n_embd);
  config.dropout = args.dropout.value_or(config.dropout);

  // Before anything slow: a bad output path fails at once and names its flag.
  prepare_output_dir(args.out);
  const std::filesystem::path out_dir(args.out);
  for (const char* file : {"model.safetensors", "metrics.csv", "metrics.svg", "sample.txt"}) {
    check_output_file("--out", (out_dir / file).string());
  }
  if (!args.profile.empty()) check_output_file("--profile", args.profile);
  EMBER_CHECK(!launched_as_rank(), Error,
              "--model gpt trains in one process; ember-run's data parallelism is for --model "
              "mlp and cnn");

  const Device device = select_device(args.device);
  if (device.is_cuda()) cuda::set_device(device.index());
  out << "Using device: " << describe_device(device) << "\n";
  manual_seed(args.seed);
  cuda::manual_seed_all(args.seed);

  const std::string corpus_path = args.data.empty() ? kDefaultCorpus : args.data;
  const std::string text = read_corpus(corpus_path);
  const CharVocab vocab(text);
  const TokenSplits splits(vocab.encode(text), config.block_size);
  config.vocab_size = vocab.size();
  out << "Corpus " << corpus_path << ": " << text.size() << " characters, " << vocab.size()
      << " distinct; " << splits.train_tokens() << " for training, " << splits.val_tokens()
      << " for validation\n";

  Gpt model(config);
  if (!args.init_from.empty()) load_initial_weights(*model, args.init_from, out);
  model->to(device);
  // nanoGPT's AdamW: weight decay on the matrices (linear weights and embeddings) only.
  std::vector<Tensor> decay, no_decay;
  for (const Tensor& p : model->parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  auto group_options = [&](double wd) {
    return std::make_unique<optim::AdamWOptions>(
        optim::AdamWOptions(lr).betas(std::make_tuple(0.9, defaults.beta2)).weight_decay(wd));
  };
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, group_options(defaults.weight_decay));
  groups.emplace_back(no_decay, group_options(0.0));
  optim::AdamW optimizer(std::move(groups), optim::AdamWOptions(lr));
  const std::optional<ScalarType> amp = amp_dtype(args, device);
  amp::GradScaler scaler(amp::GradScalerOptions().enabled(amp == kHalf));
  const int64_t warmup = std::min(defaults.warmup_steps, std::max<int64_t>(steps / 10, 1));
  out << "Model gpt (" << parameter_count(*model) << " parameters: " << config.n_layer
      << " layers, " << config.n_head << " heads, width " << config.n_embd << ", block "
      << config.block_size << "), " << steps << " steps, batch size " << batch_size << ", AdamW lr "
      << lr
      << (args.cosine_lr ? " (" + std::to_string(warmup) + " warm-up steps, cosine to lr/10)"
                         : " (constant)")
      << ", " << amp_description(amp) << "\n"
      << std::flush;

  // The windows: training ones from one generator, and one fixed set of validation batches, the
  // same at every evaluation (so the curve shows the model changing, not the batches).
  std::mt19937_64 rng(args.seed);
  std::mt19937_64 val_rng(args.seed + 0x9e3779b97f4a7c15ULL);
  std::vector<Batch> val;
  for (int64_t i = 0; i < eval_batches; ++i) {
    auto [x, y] = splits.batch(false, batch_size, val_rng);
    val.push_back({x.to(device), y.to(device)});
  }

  const std::vector<Tensor> params = model->parameters();
  const bool check_loss = !args.allow_nonfinite;
  std::vector<StepMetrics> rows;
  StepProgress progress(out, terminal, steps);
  const auto start = Clock::now();
  double train_seconds = 0;  // training steps only (not evaluations): what tokens/s divides by
  double row_train_seconds = 0;
  int64_t row_steps = 0;
  Tensor loss_sum = zeros({}, TensorOptions().dtype(kFloat64).device(device));
  std::optional<cuda::TransferAudit> audit;
  if (args.audit) audit.emplace();
  std::optional<profiler::profile> prof;
  const int64_t profile_from = std::min<int64_t>(1, steps - 1);
  const int64_t profile_to = std::min(profile_from + args.profile_steps, steps);
  model->train();
  for (int64_t step = 0; step < steps; ++step) {
    if (!args.profile.empty() && step == profile_from) {
      prof.emplace(profiler::ProfileOptions().record_shapes(true).profile_memory(true));
    }
    const auto step_start = Clock::now();
    const double step_lr = lr_at(step, steps, warmup, lr, defaults.min_lr_fraction, args.cosine_lr);
    for (auto& g : optimizer.param_groups()) g.options().set_lr(step_lr);
    auto [cx, cy] = splits.batch(true, batch_size, rng);
    const Tensor x = cx.to(device, /*non_blocking=*/true), y = cy.to(device, true);
    optimizer.zero_grad();
    Tensor loss;
    {
      amp::autocast region(device.type(), amp.value_or(kBFloat16), amp.has_value());
      loss = model->loss(x, y);
    }
    // On the CPU reading the loss costs nothing; on CUDA it is read at the progress lines.
    if (check_loss && !device.is_cuda()) {
      const double v = loss.item<double>();
      if (!std::isfinite(v)) {
        throw Error("the training loss is " + number(v) + " at step " + std::to_string(step + 1) +
                    "/" + std::to_string(steps) + divergence_advice(step_lr));
      }
    }
    scaler.scale(loss).backward();
    scaler.unscale_(optimizer);
    nn::utils::clip_grad_norm_(params, defaults.grad_clip);
    scaler.step(optimizer);
    scaler.update();
    loss_sum += loss.detach().to(kFloat64);
    ++row_steps;
    const int64_t done = step + 1;
    if (prof && done < profile_to) prof->step();
    if (prof && done == profile_to) {
      prof->stop();
      prof->export_chrome_trace(args.profile);
      progress.clear();
      out << prof->key_averages().table(
                 device.is_cuda() ? "self_cuda_time_total" : "self_cpu_time_total", 15)
          << "Wrote the profile of " << prof->events().size() << " events to " << args.profile
          << " (open it in ui.perfetto.dev or chrome://tracing)\n"
          << std::flush;
      prof.reset();
    }
    if (audit) {
      audit->step();
      if (done == kGptAuditSteps || done == steps) {
        progress.clear();
        out << audit->report() << std::flush;
        audit.reset();
      }
    }
    if (device.is_cuda() && (progress.due(done) || done % eval_interval == 0 || done == steps)) {
      cuda::synchronize(device.index());  // the step's time includes its kernels
    }
    const double step_seconds = seconds_since(step_start);
    train_seconds += step_seconds;
    row_train_seconds += step_seconds;
    const double tokens_per_second =
        static_cast<double>(done * batch_size * config.block_size) / train_seconds;
    const bool eval_now = done % eval_interval == 0 || done == steps;
    if (progress.due(done) || eval_now) {
      const double mean = loss_sum.item<double>() / static_cast<double>(row_steps);
      if (check_loss && !std::isfinite(mean)) {
        throw Error("the mean training loss of steps " + std::to_string(done - row_steps + 1) +
                    "-" + std::to_string(done) + " is " + number(mean) +
                    divergence_advice(step_lr));
      }
      if (progress.due(done) && !eval_now) {
        progress.update(done, mean, tokens_per_second, seconds_since(start));
      }
      if (!eval_now) continue;
      StepMetrics m;
      m.step = done;
      m.train_loss = mean;
      m.val_loss = validation_loss(model, val, amp, device);
      m.tokens_per_second =
          static_cast<double>(row_steps * batch_size * config.block_size) / row_train_seconds;
      m.seconds = seconds_since(start);
      if (check_loss && !std::isfinite(m.val_loss)) {
        throw Error("the validation loss at step " + std::to_string(done) + " is " +
                    number(m.val_loss) + divergence_advice(step_lr));
      }
      rows.push_back(m);
      progress.clear();
      out << "step " << done << "/" << steps << "  train loss " << fixed(m.train_loss, 4)
          << "  val loss " << fixed(m.val_loss, 4) << "  " << fixed(m.tokens_per_second, 0)
          << " tokens/s  time " << format_duration(m.seconds) << "\n"
          << std::flush;
      progress.printed_line(done);
      loss_sum.zero_();
      row_steps = 0;
      row_train_seconds = 0;
      // Rewritten at each evaluation (atomically), so an interrupted run keeps its last one.
      save(model, (out_dir / "model.safetensors").string(),
           {{"model", "gpt"},
            {"step", std::to_string(done)},
            {"val_loss", fixed(m.val_loss, 4)},
            {"vocab", vocab.to_hex()},
            {"block_size", std::to_string(config.block_size)},
            {"n_layer", std::to_string(config.n_layer)},
            {"n_head", std::to_string(config.n_head)},
            {"n_embd", std::to_string(config.n_embd)},
            {"corpus", corpus_path}});
      write_file_atomic((out_dir / "metrics.csv").string(), step_metrics_csv(rows));
      write_file_atomic(
          (out_dir / "metrics.svg").string(),
          step_metrics_svg(rows, "ember-train: gpt on " + corpus_path + " (" + device.str() + ")"));
    }
  }
  progress.clear();
  out << "Trained " << steps << " steps in " << format_duration(seconds_since(start)) << " ("
      << fixed(static_cast<double>(steps * batch_size * config.block_size) / train_seconds, 0)
      << " tokens/s)\n";

  if (sample_chars > 0) {
    // From a newline, as if a new fortune (line) began.
    const auto newline = vocab.bytes().find('\n');
    const std::vector<int64_t> context = {
        newline == std::string::npos ? 0 : static_cast<int64_t>(newline)};
    const std::string sample =
        vocab.decode(generate(model, context, sample_chars, temperature, args.top_k, device));
    out << "Sample (" << sample_chars << " characters, temperature " << number(temperature)
        << ", top-k " << (args.top_k ? std::to_string(*args.top_k) : std::string("all")) << "):\n"
        << sample << (sample.empty() || sample.back() != '\n' ? "\n" : "");
    write_file_atomic((out_dir / "sample.txt").string(), sample);
  }
  out << "Wrote " << (out_dir / "model.safetensors").string() << ", "
      << (out_dir / "metrics.csv").string() << ", " << (out_dir / "metrics.svg").string()
      << (sample_chars > 0 ? " and " + (out_dir / "sample.txt").string() : std::string()) << "\n";
  if (device.is_cuda()) {
    cuda::synchronize(device.index());
    out << cuda::memory_summary(device.index());
  }
  out << std::flush;
  return rows;
}

}  // namespace ember::train
