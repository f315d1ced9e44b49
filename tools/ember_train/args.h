#pragma once
// Command-line options of ember-train and their parser. Unset training options take the model's
// defaults (see models.h and gpt.h), so `ember-train --model cnn` trains the CNN with its own
// settings. The GPT job's options (steps, shape, sampling) are for --model gpt only, and the
// classifiers' (epochs, the Fashion-MNIST subsets, normalisation) for mlp and cnn only: the parser
// rejects one given to the other model.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember::train {

struct TrainArgs {
  std::string model = "mlp";  // mlp | cnn | gpt
  std::optional<int64_t> epochs;
  std::optional<int64_t> batch_size;
  std::optional<double> lr;
  std::string device = "auto";  // auto | cpu | cuda | cuda:i
  int64_t workers = 2;
  uint64_t seed = 0;
  std::string out = "runs/latest";
  std::string data;  // empty: FashionMNIST::kDefaultRoot, or kDefaultCorpus for gpt
  bool normalize = true;
  // Cosine annealing of the learning rate over the epochs (off: a constant learning rate).
  bool cosine_lr = true;
  // Mixed precision (--amp): autocast in amp_dtype ("auto": bfloat16 on the CPU, float16 on
  // CUDA), with a GradScaler when it is float16.
  bool amp = false;
  // --audit: a TransferAudit over the first kAuditSteps training steps, printed with findings.
  bool audit = false;
  // --profile PATH: a profile of profile_steps training steps (from the second), written to PATH
  // as a Chrome trace, and its summary table printed.
  std::string profile;
  int64_t profile_steps = 5;
  std::string amp_dtype = "auto";  // auto | float16 | bfloat16
  // --allow-nonfinite: train on through a NaN or infinite loss (by default the run stops with an
  // error at the first one and writes nothing for that epoch).
  bool allow_nonfinite = false;
  // --init-from PATH: start from these weights instead of a fresh initialisation (init_from.h).
  std::string init_from;
  // Hidden (for tests and quick checks): train/test on the first N/M samples only.
  std::optional<int64_t> limit_train;
  std::optional<int64_t> limit_test;
  // --model gpt (unset: GptDefaults / GptConfig in gpt.h).
  std::optional<int64_t> steps;          // training steps
  std::optional<int64_t> eval_interval;  // steps between validation losses
  std::optional<int64_t> eval_batches;   // batches of the validation loss
  std::optional<int64_t> block_size;     // context length
  std::optional<int64_t> layers, heads, width;
  std::optional<double> dropout;
  std::optional<int64_t> sample;  // characters sampled at the end
  std::optional<double> temperature;
  std::optional<int64_t> top_k;
  bool help = false;
};

// Parses argv[1..argc) with CLI11: "--flag value" and "--flag=value", the last of a repeated flag
// wins. Throws ember::ValueError naming the flag and the bad value for an unknown flag, a missing
// or malformed value or one out of range; `--help`/`-h` anywhere sets help (and nothing else).
TrainArgs parse_args(const std::vector<std::string>& args);
TrainArgs parse_args(int argc, const char* const* argv);

// The usage text printed by --help and after a bad flag (CLI11's, in tools/cli/help_formatter.h's
// layout).
std::string usage(const std::string& program = "ember-train");

}  // namespace ember::train
