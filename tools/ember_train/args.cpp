// Strict parsing: a value must be consumed entirely (std::from_chars), numbers must be in range,
// and every problem is an ember::ValueError naming the flag and the value.
#include "ember_train/args.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "ember/error.h"
#include "ember_train/models.h"

namespace ember::train {
namespace {

template <typename T>
T parse_integer(const std::string& flag, const std::string& value, T min_value) {
  T out{};
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, out);
  EMBER_CHECK(ec != std::errc::result_out_of_range, ValueError, flag, ": '", value,
              "' is out of range");
  EMBER_CHECK(ec == std::errc() && ptr == end && !value.empty(), ValueError, flag,
              ": expected an integer, got '", value, "'");
  EMBER_CHECK(out >= min_value, ValueError, flag, ": must be at least ", min_value, ", got ",
              value);
  return out;
}

double parse_positive_double(const std::string& flag, const std::string& value) {
  double out = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, out);
  EMBER_CHECK(ec == std::errc() && ptr == end && !value.empty(), ValueError, flag,
              ": expected a number, got '", value, "'");
  EMBER_CHECK(std::isfinite(out) && out > 0, ValueError, flag,
              ": must be a positive finite number, got ", value);
  return out;
}

void check_device(const std::string& value) {
  bool ok = value == "auto" || value == "cpu" || value == "cuda";
  if (!ok && value.rfind("cuda:", 0) == 0) {
    const std::string index = value.substr(5);
    int i = -1;
    auto [ptr, ec] = std::from_chars(index.data(), index.data() + index.size(), i);
    ok = ec == std::errc() && ptr == index.data() + index.size() && !index.empty() && i >= 0;
  }
  EMBER_CHECK(ok, ValueError, "--device: expected auto, cpu, cuda or cuda:<index>, got '", value,
              "'");
}

}  // namespace

TrainArgs parse_args(const std::vector<std::string>& args) {
  TrainArgs a;
  using Setter = std::function<void(const std::string& flag, const std::string& value)>;
  const std::map<std::string, Setter> setters = {
      {"--model",
       [&](const std::string& f, const std::string& v) {
         EMBER_CHECK(v == "mlp" || v == "cnn", ValueError, f, ": expected mlp or cnn, got '", v,
                     "'");
         a.model = v;
       }},
      {"--epochs", [&](auto& f, auto& v) { a.epochs = parse_integer<int64_t>(f, v, 1); }},
      {"--batch-size", [&](auto& f, auto& v) { a.batch_size = parse_integer<int64_t>(f, v, 1); }},
      {"--lr", [&](auto& f, auto& v) { a.lr = parse_positive_double(f, v); }},
      {"--device",
       [&](auto&, auto& v) {
         check_device(v);
         a.device = v;
       }},
      {"--workers", [&](auto& f, auto& v) { a.workers = parse_integer<int64_t>(f, v, 0); }},
      {"--seed", [&](auto& f, auto& v) { a.seed = parse_integer<uint64_t>(f, v, 0); }},
      {"--out",
       [&](auto& f, auto& v) {
         EMBER_CHECK(!v.empty(), ValueError, f, ": expected a directory, got an empty string");
         a.out = v;
       }},
      {"--data",
       [&](auto& f, auto& v) {
         EMBER_CHECK(!v.empty(), ValueError, f, ": expected a directory, got an empty string");
         a.data = v;
       }},
      {"--amp-dtype",
       [&](const std::string& f, const std::string& v) {
         EMBER_CHECK(v == "auto" || v == "float16" || v == "bfloat16", ValueError, f,
                     ": expected auto, float16 or bfloat16, got '", v, "'");
         a.amp = true;
         a.amp_dtype = v;
       }},
      {"--profile",
       [&](auto& f, auto& v) {
         EMBER_CHECK(!v.empty(), ValueError, f, ": expected a file, got an empty string");
         a.profile = v;
       }},
      {"--profile-steps",
       [&](auto& f, auto& v) { a.profile_steps = parse_integer<int64_t>(f, v, 1); }},
      {"--limit-train", [&](auto& f, auto& v) { a.limit_train = parse_integer<int64_t>(f, v, 1); }},
      {"--limit-test", [&](auto& f, auto& v) { a.limit_test = parse_integer<int64_t>(f, v, 1); }},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      a.help = true;
      return a;
    }
    if (arg == "--no-normalize") {
      a.normalize = false;
      continue;
    }
    if (arg == "--constant-lr") {
      a.cosine_lr = false;
      continue;
    }
    if (arg == "--amp") {
      a.amp = true;
      continue;
    }
    if (arg == "--audit") {
      a.audit = true;
      continue;
    }
    if (arg == "--allow-nonfinite") {
      a.allow_nonfinite = true;
      continue;
    }
    std::string flag = arg, value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto it = setters.find(flag);
    EMBER_CHECK(it != setters.end(), ValueError, "unknown argument '", arg, "'");
    if (!has_value) {
      EMBER_CHECK(i + 1 < args.size(), ValueError, flag, ": missing value");
      value = args[++i];
    }
    it->second(flag, value);
  }
  return a;
}

TrainArgs parse_args(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_args(args);
}

std::string usage(const std::string& program) {
  const ModelDefaults mlp = model_defaults("mlp"), cnn = model_defaults("cnn");
  std::ostringstream os;
  os << "Usage: " << program << " [options]\n"
     << "Trains a classifier on Fashion-MNIST and writes model.safetensors, metrics.csv and\n"
     << "metrics.svg to the output directory.\n\n"
     << "Options:\n"
     << "  --model mlp|cnn        model to train (default mlp)\n"
     << "  --epochs N             epochs (default: mlp " << mlp.epochs << ", cnn " << cnn.epochs
     << ")\n"
     << "  --batch-size B         samples per batch (default: mlp " << mlp.batch_size << ", cnn "
     << cnn.batch_size << ")\n"
     << "  --lr LR                Adam learning rate (default: mlp " << mlp.lr << ", cnn " << cnn.lr
     << ")\n"
     << "  --device D             auto, cpu, cuda or cuda:<index> (default auto: CUDA when\n"
     << "                         available)\n"
     << "  --workers W            data-loading threads (default 2)\n"
     << "  --seed S               seed for weights and shuffling (default 0)\n"
     << "  --out DIR              output directory (default runs/latest)\n"
     << "  --data DIR             Fashion-MNIST directory (default "
        "/usr/share/datasets/fashion-mnist)\n"
     << "  --no-normalize         feed pixels in [0, 1] instead of (x - 0.2860) / 0.3530\n"
     << "  --constant-lr          keep the learning rate constant (default: cosine annealing\n"
     << "                         from --lr towards 0 over the epochs)\n"
     << "  --amp                  mixed precision: autocast (bfloat16 on the CPU, float16 with\n"
     << "                         gradient scaling on CUDA); parameters stay float32\n"
     << "  --amp-dtype D          auto, float16 or bfloat16 (implies --amp; float16 adds a\n"
     << "                         GradScaler)\n"
     << "  --audit                report copies, host syncs, kernel launches and CPU ops per\n"
     << "                         step over the first 20 steps, with findings (docs/cuda.md)\n"
     << "  --profile FILE         profile a few training steps from the second: a Chrome trace\n"
     << "                         in FILE (ui.perfetto.dev) and the summary table\n"
     << "                         (docs/profiler.md)\n"
     << "  --profile-steps N      steps --profile covers (default 5)\n"
     << "  --allow-nonfinite      train on through a NaN or infinite loss (default: stop with\n"
     << "                         an error at the first one, writing nothing for that epoch)\n"
     << "  --limit-train N        train on the first N training images only (quick runs)\n"
     << "  --limit-test N         evaluate on the first N test images only\n"
     << "  -h, --help             show this message\n";
  return os.str();
}

}  // namespace ember::train
