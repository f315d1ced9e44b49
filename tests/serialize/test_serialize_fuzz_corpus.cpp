// Replays the libFuzzer corpus (tests/fuzz/corpus/safetensors) through the whole load path, with
// the fuzz target's checks (tests/fuzz/load_path_check.h): every input must load consistently
// through every load function or be refused by all of them with the same ember::Error; anything
// else (a crash, another exception, loads that disagree) fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "ember/serialize.h"
#include "fuzz/load_path_check.h"
#include "support/corpus_files.h"

TEST(SafetensorsFuzzCorpus, EveryInputLoadsOrFailsCleanly) {
  auto files = ember::testing::fuzz_corpus_files("safetensors");
  ASSERT_GE(files.size(), 50u) << "the corpus is missing";
  size_t loaded = 0, rejected = 0;
  for (const auto& path : files) {
    try {
      auto tensors = ember::load(path);
      for (const auto& [name, t] : tensors) {
        EXPECT_TRUE(t.is_cpu()) << path;
        EXPECT_EQ(t.nbytes(), static_cast<size_t>(t.numel()) * t.element_size()) << path;
      }
      ++loaded;
    } catch (const ember::Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos)
          << "the error does not name the file: " << e.what();
      ++rejected;
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << ": escaped as a non-ember exception: " << e.what();
    }
  }
  EXPECT_GT(loaded, 5u);
  EXPECT_GT(rejected, 30u);
}

TEST(SafetensorsFuzzCorpus, EveryInputPassesTheFuzzTargetsChecks) {
  for (const auto& path : ember::testing::fuzz_corpus_files("safetensors")) {
    std::ifstream f(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), {});
    EXPECT_EQ(ember::fuzz::check_load_path(bytes), "") << path;
  }
}

TEST(SafetensorsFuzzCorpus, SeedsBehaveAsNamed) {
  // seed_valid_* load; every other seed_* is rejected.
  for (const auto& path : ember::testing::fuzz_corpus_files("safetensors")) {
    std::string base = path.substr(path.rfind('/') + 1);
    if (base.rfind("seed_", 0) != 0) continue;
    bool should_load = base.rfind("seed_valid_", 0) == 0 || base == "seed_bool_bytes";
    bool ok = true;
    try {
      ember::load(path);
    } catch (const ember::Error&) {
      ok = false;
    }
    EXPECT_EQ(ok, should_load) << base;
  }
}
