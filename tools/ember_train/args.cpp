// The command line through CLI11: the options, their checks (tools/cli/checks.h) and --help
// (tools/cli/app.h); CLI11's parse errors become ember::ValueError.
#include "ember_train/args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <memory>
#include <sstream>

#include "cli/app.h"
#include "cli/checks.h"
#include "ember/error.h"
#include "ember_train/models.h"

namespace ember::train {
namespace {

// auto, cpu, cuda or cuda:<index>.
CLI::Validator device_spelling() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        if (v == "auto" || v == "cpu" || v == "cuda") return "";
        const char* index = v.data() + std::min<size_t>(v.size(), 5);
        const char* end = v.data() + v.size();
        int i = -1;
        auto [ptr, ec] = std::from_chars(index, end, i);
        if (v.rfind("cuda:", 0) == 0 && ec == std::errc() && ptr == end && i >= 0) return "";
        return "expected auto, cpu, cuda or cuda:<index>, got '" + v + "'";
      },
      "");
}

// The app's options, bound to the fields of `a` (and the model's defaults, for --help).
std::unique_ptr<CLI::App> make_app(TrainArgs& a, const std::string& program) {
  using namespace ember::cli;
  auto app = new_app(program,
                     "Trains a classifier on Fashion-MNIST and writes model.safetensors, "
                     "metrics.csv and\nmetrics.svg to the output directory.");
  const ModelDefaults mlp = model_defaults("mlp"), cnn = model_defaults("cnn");
  const auto both = [](auto for_mlp, auto for_cnn) {
    std::ostringstream os;
    os << "(default: mlp " << for_mlp << ", cnn " << for_cnn << ")";
    return os.str();
  };
  app->add_option("--model", a.model, "model to train (default mlp)")
      ->type_name("mlp|cnn")
      ->transform(one_of({"mlp", "cnn"}));
  app->add_option("--epochs", a.epochs, "epochs " + both(mlp.epochs, cnn.epochs))
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--batch-size", a.batch_size,
                  "samples per batch " + both(mlp.batch_size, cnn.batch_size))
      ->type_name("B")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--lr", a.lr, "Adam learning rate " + both(mlp.lr, cnn.lr))
      ->type_name("LR")
      ->transform(positive_number());
  app->add_option("--device", a.device,
                  "auto, cpu, cuda or cuda:<index> (default auto: CUDA when\navailable)")
      ->type_name("D")
      ->transform(device_spelling());
  app->add_option("--workers", a.workers, "data-loading threads (default 2)")
      ->type_name("W")
      ->transform(integer_in<int64_t>(0));
  app->add_option("--seed", a.seed, "seed for weights and shuffling (default 0)")
      ->type_name("S")
      ->transform(integer_in<uint64_t>(0));
  app->add_option("--out", a.out, "output directory (default runs/latest)")
      ->type_name("DIR")
      ->transform(not_empty("a directory"));
  app->add_option("--data", a.data,
                  "Fashion-MNIST directory (default\n/usr/share/datasets/fashion-mnist)")
      ->type_name("DIR")
      ->transform(not_empty("a directory"));
  app->add_flag_callback(
      "--no-normalize", [&a] { a.normalize = false; },
      "feed pixels in [0, 1] instead of (x - 0.2860) / 0.3530");
  app->add_flag_callback(
      "--constant-lr", [&a] { a.cosine_lr = false; },
      "keep the learning rate constant (default: cosine annealing\nfrom --lr towards 0 over the "
      "epochs)");
  app->add_flag("--amp", a.amp,
                "mixed precision: autocast (bfloat16 on the CPU, float16 with\ngradient scaling "
                "on CUDA); parameters stay float32");
  app->add_option("--amp-dtype", a.amp_dtype,
                  "auto, float16 or bfloat16 (implies --amp; float16 adds a\nGradScaler)")
      ->type_name("D")
      ->transform(one_of({"auto", "float16", "bfloat16"}));
  app->add_flag("--audit", a.audit,
                "report copies, host syncs, kernel launches and CPU ops per\nstep over the "
                "first 20 steps, with findings (docs/cuda.md)");
  app->add_option("--profile", a.profile,
                  "profile a few training steps from the second: a Chrome trace\nin FILE "
                  "(ui.perfetto.dev) and the summary table\n(docs/profiler.md)")
      ->type_name("FILE")
      ->transform(not_empty("a file"));
  app->add_option("--profile-steps", a.profile_steps, "steps --profile covers (default 5)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_flag("--allow-nonfinite", a.allow_nonfinite,
                "train on through a NaN or infinite loss (default: stop with\nan error at the "
                "first one, writing nothing for that epoch)");
  app->add_option("--limit-train", a.limit_train,
                  "train on the first N training images only (quick runs)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--limit-test", a.limit_test, "evaluate on the first N test images only")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  return app;
}

}  // namespace

TrainArgs parse_args(const std::vector<std::string>& args) {
  TrainArgs a;
  auto app = make_app(a, "ember-train");
  try {
    ember::cli::parse(*app, args);
  } catch (const CLI::CallForHelp&) {
    TrainArgs help;
    help.help = true;
    return help;
  } catch (const CLI::ParseError& e) {
    throw ValueError(e.what());
  }
  if (app->count("--amp-dtype") > 0) a.amp = true;
  return a;
}

TrainArgs parse_args(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_args(args);
}

std::string usage(const std::string& program) {
  TrainArgs unused;
  return make_app(unused, program)->help();
}

}  // namespace ember::train
