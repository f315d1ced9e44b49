// ember-train's command line (CLI11): every flag, both spellings, defaults, and bad input as a
// ValueError naming the flag and the value.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember_train/args.h"
#include "ember_train/models.h"
#include "ember_train/output_dir.h"
#include "ember_train/trainer.h"
#include "support/temp_dir.h"
#include "support/test_util.h"

namespace et = ember::train;

namespace {

std::string error_of(const std::vector<std::string>& args) {
  try {
    et::parse_args(args);
  } catch (const ember::ValueError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ValueError";
  return "";
}

}  // namespace

TEST(TrainArgs, Defaults) {
  const auto a = et::parse_args(std::vector<std::string>{});
  EXPECT_EQ(a.model, "mlp");
  EXPECT_FALSE(a.epochs.has_value());
  EXPECT_FALSE(a.batch_size.has_value());
  EXPECT_FALSE(a.lr.has_value());
  EXPECT_EQ(a.device, "auto");
  EXPECT_EQ(a.workers, 2);
  EXPECT_EQ(a.seed, 0u);
  EXPECT_EQ(a.out, "runs/latest");
  EXPECT_TRUE(a.data.empty());
  EXPECT_TRUE(a.normalize);
  EXPECT_TRUE(a.cosine_lr);
  EXPECT_FALSE(a.limit_train.has_value());
  EXPECT_FALSE(a.limit_test.has_value());
  EXPECT_FALSE(a.amp);
  EXPECT_EQ(a.amp_dtype, "auto");
  EXPECT_FALSE(a.audit);
  EXPECT_FALSE(a.help);
  // The GPT job's options are unset: its defaults (gpt.h) apply.
  EXPECT_FALSE(a.steps || a.eval_interval || a.eval_batches || a.block_size || a.layers ||
               a.heads || a.width || a.dropout || a.sample || a.temperature || a.top_k);
}

TEST(TrainArgs, GptFlags) {
  const auto a = et::parse_args({"--model",
                                 "gpt",
                                 "--steps",
                                 "300",
                                 "--eval-interval",
                                 "50",
                                 "--eval-batches",
                                 "4",
                                 "--block-size",
                                 "32",
                                 "--layers",
                                 "2",
                                 "--heads",
                                 "2",
                                 "--width=64",
                                 "--dropout",
                                 "0.1",
                                 "--sample",
                                 "0",
                                 "--temperature",
                                 "0.7",
                                 "--top-k",
                                 "10",
                                 "--data",
                                 "corpus.txt",
                                 "--batch-size",
                                 "8",
                                 "--lr",
                                 "3e-4",
                                 "--amp"});
  EXPECT_EQ(a.model, "gpt");
  EXPECT_EQ(a.steps, 300);
  EXPECT_EQ(a.eval_interval, 50);
  EXPECT_EQ(a.eval_batches, 4);
  EXPECT_EQ(a.block_size, 32);
  EXPECT_EQ(a.layers, 2);
  EXPECT_EQ(a.heads, 2);
  EXPECT_EQ(a.width, 64);
  EXPECT_DOUBLE_EQ(*a.dropout, 0.1);
  EXPECT_EQ(a.sample, 0);
  EXPECT_DOUBLE_EQ(*a.temperature, 0.7);
  EXPECT_EQ(a.top_k, 10);
  EXPECT_EQ(a.data, "corpus.txt");
  EXPECT_EQ(a.batch_size, 8);
  EXPECT_TRUE(a.amp);
  const std::string u = et::usage();
  for (const char* flag :
       {"--steps", "--eval-interval", "--eval-batches", "--block-size", "--layers", "--heads",
        "--width", "--dropout", "--sample", "--temperature", "--top-k"}) {
    EXPECT_NE(u.find(flag), std::string::npos) << flag;
  }
  EXPECT_NE(u.find("/usr/share/games/fortunes"), std::string::npos) << u;
}

TEST(TrainArgs, BadGptValuesNameTheFlagAndValue) {
  EXPECT_EQ(error_of({"--model", "gpt", "--top-k", "0"}), "--top-k: must be at least 1, got 0");
  EXPECT_EQ(error_of({"--model", "gpt", "--temperature", "0"}),
            "--temperature: must be a positive finite number, got 0");
  EXPECT_EQ(error_of({"--model", "gpt", "--temperature", "-1"}),
            "--temperature: must be a positive finite number, got -1");
  EXPECT_EQ(error_of({"--model", "gpt", "--temperature", "inf"}),
            "--temperature: must be a positive finite number, got inf");
  EXPECT_EQ(error_of({"--model", "gpt", "--dropout", "1"}), "--dropout: must be in [0, 1), got 1");
  EXPECT_EQ(error_of({"--model", "gpt", "--steps", "0"}), "--steps: must be at least 1, got 0");
  EXPECT_EQ(error_of({"--model", "gpt", "--sample", "-1"}), "--sample: must be at least 0, got -1");
  EXPECT_EQ(error_of({"--model", "gpt", "--width", "100", "--heads", "3"}),
            "--width 100 is not divisible by --heads 3 (each head takes width / heads of the "
            "embedding)");
  EXPECT_EQ(error_of({"--model", "gpt", "--heads", "5"}).find("--width 128 is not divisible"), 0u);
}

// Each model's own options are refused for the other models rather than silently ignored.
TEST(TrainArgs, OptionsOfAnotherModelAreRefused) {
  EXPECT_EQ(error_of({"--model", "gpt", "--epochs", "2"}),
            "--epochs is an option of --model mlp and cnn; --model gpt trains for --steps on a "
            "text corpus");
  EXPECT_EQ(error_of({"--model", "gpt", "--no-normalize"}).rfind("--no-normalize is", 0), 0u);
  EXPECT_EQ(error_of({"--steps", "10"}),
            "--steps is an option of --model gpt (--model mlp trains for --epochs)");
  EXPECT_EQ(error_of({"--model", "cnn", "--top-k", "3"}),
            "--top-k is an option of --model gpt (--model cnn trains for --epochs)");
}

TEST(TrainArgs, AllowNonfinite) {
  EXPECT_FALSE(et::parse_args(std::vector<std::string>{}).allow_nonfinite);
  EXPECT_TRUE(et::parse_args({"--allow-nonfinite"}).allow_nonfinite);
  EXPECT_NE(et::usage("ember-train").find("--allow-nonfinite"), std::string::npos);
}

TEST(TrainArgs, Audit) {
  EXPECT_TRUE(et::parse_args({"--audit"}).audit);
  EXPECT_NE(et::usage("ember-train").find("--audit"), std::string::npos);
}

TEST(TrainArgs, Profile) {
  const auto a = et::parse_args({"--profile", "t.json", "--profile-steps=3"});
  EXPECT_EQ(a.profile, "t.json");
  EXPECT_EQ(a.profile_steps, 3);
  EXPECT_EQ(et::parse_args({}).profile, "");
  EXPECT_EQ(et::parse_args({}).profile_steps, 5);
  EXPECT_THROW(et::parse_args({"--profile", ""}), ember::ValueError);
  EXPECT_THROW(et::parse_args({"--profile-steps", "0"}), ember::ValueError);
  EXPECT_NE(et::usage("ember-train").find("--profile FILE"), std::string::npos);
}

TEST(TrainArgs, MixedPrecision) {
  EXPECT_TRUE(et::parse_args({"--amp"}).amp);
  const auto a = et::parse_args({"--amp-dtype", "float16"});
  EXPECT_TRUE(a.amp);  // choosing a dtype turns it on
  EXPECT_EQ(a.amp_dtype, "float16");
  EXPECT_EQ(et::parse_args({"--amp", "--amp-dtype=bfloat16"}).amp_dtype, "bfloat16");
  EXPECT_EQ(error_of({"--amp-dtype", "float32"}),
            "--amp-dtype: expected auto, float16 or bfloat16, got 'float32'");
}

TEST(TrainArgs, EveryFlag) {
  const auto a = et::parse_args(
      {"--model",       "cnn",  "--epochs",     "3",      "--batch-size",   "128",
       "--lr",          "5e-4", "--device",     "cuda:1", "--workers",      "0",
       "--seed",        "42",   "--out",        "/tmp/x", "--data",         "/d",
       "--limit-train", "100",  "--limit-test", "50",     "--no-normalize", "--constant-lr"});
  EXPECT_EQ(a.model, "cnn");
  EXPECT_EQ(a.epochs, 3);
  EXPECT_EQ(a.batch_size, 128);
  EXPECT_DOUBLE_EQ(*a.lr, 5e-4);
  EXPECT_EQ(a.device, "cuda:1");
  EXPECT_EQ(a.workers, 0);
  EXPECT_EQ(a.seed, 42u);
  EXPECT_EQ(a.out, "/tmp/x");
  EXPECT_EQ(a.data, "/d");
  EXPECT_EQ(a.limit_train, 100);
  EXPECT_EQ(a.limit_test, 50);
  EXPECT_FALSE(a.normalize);
  EXPECT_FALSE(a.cosine_lr);
}

TEST(TrainArgs, EqualsSpellingAndLastWins) {
  const auto a = et::parse_args(
      {"--epochs=2", "--lr=0.01", "--device=cpu", "--epochs", "7", "--out=dir=with=equals"});
  EXPECT_EQ(a.epochs, 7);
  EXPECT_DOUBLE_EQ(*a.lr, 0.01);
  EXPECT_EQ(a.device, "cpu");
  EXPECT_EQ(a.out, "dir=with=equals");
}

TEST(TrainArgs, DeviceSpellings) {
  for (const char* d : {"auto", "cpu", "cuda", "cuda:0", "cuda:7"}) {
    EXPECT_EQ(et::parse_args({"--device", d}).device, d);
  }
  for (const char* d : {"gpu", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "CPU", "", "cpu:0 "}) {
    const std::string msg = error_of({"--device", d});
    EXPECT_NE(msg.find("--device"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::string("'") + d + "'"), std::string::npos) << msg;
  }
}

TEST(TrainArgs, HelpStopsParsing) {
  EXPECT_TRUE(et::parse_args({"--help"}).help);
  EXPECT_TRUE(et::parse_args({"--epochs", "2", "-h", "--bogus"}).help);
}

// CLI11 checks values only after reading the whole line; help is answered as soon as it is read.
TEST(TrainArgs, HelpWinsOverBadValuesAnywhere) {
  EXPECT_TRUE(et::parse_args({"--help", "--epochs", "0"}).help);
  EXPECT_TRUE(et::parse_args({"--epochs", "0", "--model", "resnet", "-h"}).help);
}

// CLI11 would read "010" as octal and "0x10" as hex; the checks pass decimal on.
TEST(TrainArgs, IntegersAreDecimal) {
  EXPECT_EQ(et::parse_args({"--epochs", "010"}).epochs, 10);
  EXPECT_EQ(et::parse_args({"--seed=0018446744073709551615"}).seed, 18446744073709551615u);
  EXPECT_EQ(error_of({"--workers", "0x10"}), "--workers: expected an integer, got '0x10'");
  EXPECT_EQ(error_of({"--epochs", " 3"}), "--epochs: expected an integer, got ' 3'");
  EXPECT_EQ(error_of({"--lr", "0x1p-3"}), "--lr: expected a number, got '0x1p-3'");
}

// Flags take CLI11's optional true/false value; anything else is an error naming the flag.
TEST(TrainArgs, FlagValues) {
  EXPECT_TRUE(et::parse_args({"--amp=true"}).amp);
  EXPECT_FALSE(et::parse_args({"--amp", "--amp=false"}).amp);
  EXPECT_TRUE(et::parse_args({"--no-normalize=false"}).normalize);
  const std::string msg = error_of({"--audit=maybe"});
  EXPECT_NE(msg.find("--audit"), std::string::npos) << msg;
  EXPECT_NE(msg.find("maybe"), std::string::npos) << msg;
}

TEST(TrainArgs, UnknownFlag) {
  EXPECT_NE(error_of({"--epoch", "3"}).find("unknown argument '--epoch'"), std::string::npos);
  EXPECT_NE(error_of({"mlp"}).find("unknown argument 'mlp'"), std::string::npos);
  EXPECT_NE(error_of({"--bogus=1"}).find("unknown argument '--bogus=1'"), std::string::npos);
}

TEST(TrainArgs, MissingValue) {
  EXPECT_EQ(error_of({"--epochs"}), "--epochs: 1 required N missing");  // CLI11's words
  EXPECT_EQ(error_of({"--model", "cnn", "--out"}), "--out: 1 required DIR missing");
  EXPECT_EQ(error_of({"--data="}), "--data: 1 required PATH missing");  // "=" and nothing
}

TEST(TrainArgs, BadNumbers) {
  EXPECT_EQ(error_of({"--epochs", "ten"}), "--epochs: expected an integer, got 'ten'");
  EXPECT_EQ(error_of({"--epochs", "3.5"}), "--epochs: expected an integer, got '3.5'");
  EXPECT_EQ(error_of({"--epochs", ""}), "--epochs: expected an integer, got ''");
  EXPECT_EQ(error_of({"--epochs", "0"}), "--epochs: must be at least 1, got 0");
  EXPECT_EQ(error_of({"--batch-size", "-4"}), "--batch-size: must be at least 1, got -4");
  EXPECT_EQ(error_of({"--workers", "-1"}), "--workers: must be at least 0, got -1");
  EXPECT_EQ(error_of({"--seed", "-1"}), "--seed: expected an integer, got '-1'");
  EXPECT_EQ(error_of({"--epochs", "99999999999999999999"}),
            "--epochs: '99999999999999999999' is out of range");
  EXPECT_EQ(error_of({"--lr", "fast"}), "--lr: expected a number, got 'fast'");
  EXPECT_EQ(error_of({"--lr", "0"}), "--lr: must be a positive finite number, got 0");
  EXPECT_EQ(error_of({"--lr", "-0.1"}), "--lr: must be a positive finite number, got -0.1");
  EXPECT_EQ(error_of({"--lr", "inf"}), "--lr: must be a positive finite number, got inf");
  EXPECT_EQ(error_of({"--lr", "nan"}), "--lr: must be a positive finite number, got nan");
  EXPECT_EQ(error_of({"--lr", "1e-3x"}), "--lr: expected a number, got '1e-3x'");
  EXPECT_EQ(error_of({"--limit-train", "0"}), "--limit-train: must be at least 1, got 0");
}

TEST(TrainArgs, BadModelAndEmptyPaths) {
  EXPECT_EQ(error_of({"--model", "resnet"}), "--model: expected mlp, cnn or gpt, got 'resnet'");
  EXPECT_EQ(error_of({"--out", ""}), "--out: expected a directory, got an empty string");
  EXPECT_EQ(error_of({"--data", ""}), "--data: expected a path, got an empty string");
}

TEST(TrainArgs, ArgvOverloadSkipsProgramName) {
  const char* argv[] = {"ember-train", "--model", "cnn", "--epochs", "1"};
  const auto a = et::parse_args(5, argv);
  EXPECT_EQ(a.model, "cnn");
  EXPECT_EQ(a.epochs, 1);
}

TEST(TrainArgs, UsageListsEveryFlagAndTheDefaults) {
  const std::string u = et::usage();
  for (const char* flag :
       {"--model", "--epochs", "--batch-size", "--lr", "--device", "--workers", "--seed", "--out",
        "--data", "--no-normalize", "--constant-lr", "--amp", "--amp-dtype", "--help"}) {
    EXPECT_NE(u.find(flag), std::string::npos) << flag;
  }
  const auto mlp = et::model_defaults("mlp"), cnn = et::model_defaults("cnn");
  EXPECT_NE(u.find("mlp " + std::to_string(mlp.epochs) + ", cnn " + std::to_string(cnn.epochs)),
            std::string::npos)
      << u;
  EXPECT_EQ(u.rfind("Usage: ember-train", 0), 0u);
}

TEST(TrainArgs, UsageListsEveryFlagTheParserKnows) {
  // Every "--flag" literal in the parser's source must appear in --help.
  std::ifstream src(ember::testing::source_dir() + "/tools/ember_train/args.cpp");
  ASSERT_TRUE(src.good());
  std::stringstream text;
  text << src.rdbuf();
  const std::string code = text.str();
  const std::string parser = code.substr(0, code.find("std::string usage("));
  const std::string u = et::usage();
  const std::regex flag_re("\"(--[a-z0-9-]+)");
  size_t flags = 0;
  for (std::sregex_iterator it(parser.begin(), parser.end(), flag_re), end; it != end; ++it) {
    const std::string flag = (*it)[1];
    ++flags;
    // The flag as a word of its own (so --amp is not found inside --amp-dtype).
    const bool listed = u.find(" " + flag + " ") != std::string::npos ||
                        u.find(" " + flag + "\n") != std::string::npos;
    EXPECT_TRUE(listed) << flag << " is missing from --help:\n" << u;
  }
  EXPECT_GE(flags, 19u);
}

namespace {
std::string out_error(const std::string& dir) {
  try {
    et::prepare_output_dir(dir);
  } catch (const ember::ValueError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TrainArgs, UnwritableOutIsNamedBeforeLoadingData) {
  const ember::testing::TempDir tmp("ember_train_out");
  const std::string& dir = tmp.path();
  const std::string file = dir + "/a-file";
  std::ofstream(file) << "x";
  // A parent that is a file: cannot be created, even by root.
  std::string err = out_error(file + "/run");
  EXPECT_EQ(err.rfind("--out " + file + "/run: cannot create the output directory: ", 0), 0u)
      << err;
  err = out_error(file);
  EXPECT_EQ(err, "--out " + file + ": exists and is not a directory");
  // A fine directory is created and left without the probe file.
  EXPECT_EQ(out_error(dir + "/new/nested"), "");
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/new/nested"));
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/new/nested"));
  // run_training checks --out before it looks for the data (which does not exist here).
  et::TrainArgs args;
  args.out = file + "/run";
  args.data = dir + "/no-such-data";
  args.device = "cpu";
  std::ostringstream console;
  try {
    et::run_training(args, console, false);
    ADD_FAILURE() << "training ran with an unwritable --out";
  } catch (const ember::ValueError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--out ", 0), 0u) << e.what();
  }
  EXPECT_EQ(console.str().find("Fashion-MNIST from"), std::string::npos) << console.str();
  std::filesystem::remove_all(dir);
}

namespace {
// The ValueError of run_training with these output paths, and data that does not exist: an
// output path checked first gives its own error, one checked later the data's.
std::string run_error(const std::string& out, const std::string& profile, std::string* console) {
  et::TrainArgs args;
  args.out = out;
  args.profile = profile;
  args.data = "/nonexistent-ember-train-data";
  args.device = "cpu";
  std::ostringstream os;
  std::string error;
  try {
    et::run_training(args, os, false);
    ADD_FAILURE() << "training ran without data";
  } catch (const ember::Error& e) {
    error = e.what();
  }
  *console = os.str();
  return error;
}
}  // namespace

// Every path ember-train writes is checked before the data is loaded: --profile into a missing
// folder failed only after the profiled steps, a directory in the way of the model or the plot
// only at the end of the first epoch.
TEST(TrainArgs, EveryOutputPathIsCheckedBeforeLoadingData) {
  const ember::testing::TempDir tmp("ember_train_paths");
  const std::string& dir = tmp.path();
  const std::string file = dir + "/a-file";
  std::ofstream(file) << "x";
  std::string console;
  struct Case {
    std::string out, profile, error;
  };
  const std::vector<Case> cases = {
      {dir + "/out", dir + "/missing/trace.json",
       "--profile " + dir + "/missing/trace.json: the directory " + dir +
           "/missing does not exist (create it first)"},
      {dir + "/out", file + "/trace.json",
       "--profile " + file + "/trace.json: " + file + " is not a directory"},
      {dir + "/out", dir, "--profile " + dir + ": is a directory, not a file"},
      {dir + "/model_dir", "",
       "--out " + dir + "/model_dir/model.safetensors: is a directory, not a file"},
      {dir + "/svg_dir", "", "--out " + dir + "/svg_dir/metrics.svg: is a directory, not a file"},
  };
  std::filesystem::create_directories(dir + "/model_dir/model.safetensors");
  std::filesystem::create_directories(dir + "/svg_dir/metrics.svg");
  for (const Case& c : cases) {
    EXPECT_EQ(run_error(c.out, c.profile, &console), c.error);
    EXPECT_EQ(console.find("Fashion-MNIST from"), std::string::npos) << console;
  }
  // Fine paths pass, and the run goes on to the data (a relative --profile is in the current
  // directory); no probe file is left behind.
  for (const std::string& profile : {dir + "/out/trace.json", std::string("trace.json")}) {
    const std::string error = run_error(dir + "/out", profile, &console);
    EXPECT_NE(error.find("/nonexistent-ember-train-data"), std::string::npos) << error;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/out"));
  EXPECT_NO_THROW(et::check_output_file("--profile", dir + "/new.json"));
  std::filesystem::remove_all(dir);
}

TEST(TrainArgs, InitFrom) {
  EXPECT_EQ(et::parse_args({}).init_from, "");
  EXPECT_EQ(et::parse_args({"--init-from", "resnet.pth"}).init_from, "resnet.pth");
  EXPECT_EQ(et::parse_args({"--model", "gpt", "--init-from=g.pt"}).init_from, "g.pt");
  EXPECT_THROW(et::parse_args({"--init-from", ""}), ember::ValueError);
  EXPECT_NE(et::usage("ember-train").find("--init-from PATH"), std::string::npos);
}
