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
#include "ember_train/corpus.h"
#include "ember_train/gpt.h"
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

// A probability in [0, 1).
CLI::Validator probability_below_one() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        double x = 0;
        const char* end = v.data() + v.size();
        auto [ptr, ec] = std::from_chars(v.data(), end, x);
        if (ec != std::errc() || ptr != end || v.empty()) {
          return "expected a number, got '" + v + "'";
        }
        if (!(x >= 0 && x < 1)) return "must be in [0, 1), got " + v;
        return "";
      },
      "");
}

// The app's options, bound to the fields of `a` (and the model's defaults, for --help).
std::unique_ptr<CLI::App> make_app(TrainArgs& a, const std::string& program) {
  using namespace ember::cli;
  auto app = new_app(program,
                     "Trains a classifier on Fashion-MNIST (mlp, cnn) or a character-level GPT "
                     "on a text\ncorpus (gpt), and writes model.safetensors, metrics.csv and "
                     "metrics.svg to the\noutput directory.");
  const ModelDefaults mlp = model_defaults("mlp"), cnn = model_defaults("cnn");
  const GptDefaults gpt = gpt_defaults();
  const GptConfig shape;
  const auto both = [](auto for_mlp, auto for_cnn) {
    std::ostringstream os;
    os << "(default: mlp " << for_mlp << ", cnn " << for_cnn << ")";
    return os.str();
  };
  const auto all = [](auto for_mlp, auto for_cnn, auto for_gpt) {
    std::ostringstream os;
    os << "(default: mlp " << for_mlp << ", cnn " << for_cnn << ", gpt " << for_gpt << ")";
    return os.str();
  };
  const auto gpt_only = [](const std::string& what, auto dflt) {
    std::ostringstream os;
    os << "gpt: " << what << " (default " << dflt << ")";
    return os.str();
  };
  app->add_option("--model", a.model, "model to train (default mlp)")
      ->type_name("mlp|cnn|gpt")
      ->transform(one_of({"mlp", "cnn", "gpt"}));
  app->add_option("--epochs", a.epochs, "mlp, cnn: epochs " + both(mlp.epochs, cnn.epochs))
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--batch-size", a.batch_size,
                  "samples per batch " + all(mlp.batch_size, cnn.batch_size, gpt.batch_size))
      ->type_name("B")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--lr", a.lr, "Adam (gpt: AdamW) learning rate\n" + all(mlp.lr, cnn.lr, gpt.lr))
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
                  "mlp, cnn: the Fashion-MNIST directory (default\n"
                  "/usr/share/datasets/fashion-mnist); gpt: the text corpus, a\nfile or a "
                  "directory of text files (default\n" +
                      std::string(kDefaultCorpus) + ")")
      ->type_name("PATH")
      ->transform(not_empty("a path"));
  app->add_flag_callback(
      "--no-normalize", [&a] { a.normalize = false; },
      "mlp, cnn: feed pixels in [0, 1] instead of\n(x - 0.2860) / 0.3530");
  app->add_flag_callback(
      "--constant-lr", [&a] { a.cosine_lr = false; },
      "keep the learning rate constant (default: cosine annealing\nfrom --lr towards 0 over the "
      "epochs; gpt: a warm-up, then\ncosine annealing to --lr / 10 over the steps)");
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
  app->add_option("--init-from", a.init_from,
                  "start from the weights in PATH: a PyTorch file (.pt/.pth:\na state dict, or "
                  "a checkpoint with one under \"model\" or\n\"state_dict\") or a safetensors "
                  "file (an earlier run's\nmodel.safetensors); names and shapes must match")
      ->type_name("PATH")
      ->transform(not_empty("a path"));
  app->add_option("--limit-train", a.limit_train,
                  "mlp, cnn: train on the first N training images only (quick\nruns)")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--limit-test", a.limit_test,
                  "mlp, cnn: evaluate on the first N test images only")
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--steps", a.steps, gpt_only("training steps", gpt.steps))
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--eval-interval", a.eval_interval,
                  gpt_only("steps between validation losses", gpt.eval_interval))
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--eval-batches", a.eval_batches,
                  gpt_only("batches of each validation loss", gpt.eval_batches))
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--block-size", a.block_size,
                  gpt_only("context length in characters", shape.block_size))
      ->type_name("T")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--layers", a.layers, gpt_only("transformer blocks", shape.n_layer))
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--heads", a.heads, gpt_only("attention heads", shape.n_head))
      ->type_name("N")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--width", a.width,
                  gpt_only("embedding width, a multiple of --heads", shape.n_embd))
      ->type_name("C")
      ->transform(integer_in<int64_t>(1));
  app->add_option("--dropout", a.dropout, gpt_only("dropout probability", shape.dropout))
      ->type_name("P")
      ->transform(probability_below_one());
  app->add_option("--sample", a.sample,
                  gpt_only("characters of text sampled at the end", gpt.sample))
      ->type_name("N")
      ->transform(integer_in<int64_t>(0));
  app->add_option("--temperature", a.temperature,
                  "gpt: divides the logits when sampling (default 1)")
      ->type_name("T")
      ->transform(positive_number());
  app->add_option("--top-k", a.top_k,
                  "gpt: sample among the K most likely characters only\n(default: all)")
      ->type_name("K")
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
  // Each model's own options: one given to the other model is a mistake, not silently ignored.
  const bool gpt = a.model == "gpt";
  for (const char* flag : {"--epochs", "--limit-train", "--limit-test", "--no-normalize"}) {
    EMBER_CHECK(!gpt || app->count(flag) == 0, ValueError, flag,
                " is an option of --model mlp and cnn; --model gpt trains for --steps on a text "
                "corpus");
  }
  for (const char* flag :
       {"--steps", "--eval-interval", "--eval-batches", "--block-size", "--layers", "--heads",
        "--width", "--dropout", "--sample", "--temperature", "--top-k"}) {
    EMBER_CHECK(gpt || app->count(flag) == 0, ValueError, flag,
                " is an option of --model gpt (--model ", a.model, " trains for --epochs)");
  }
  if (gpt) {
    const GptConfig shape;
    const int64_t heads = a.heads.value_or(shape.n_head), width = a.width.value_or(shape.n_embd);
    EMBER_CHECK(width % heads == 0, ValueError, "--width ", width, " is not divisible by --heads ",
                heads, " (each head takes width / heads of the embedding)");
  }
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
