// Replays the libFuzzer corpus of the PyTorch-format loader (tests/fuzz/corpus/pt, seeded by
// tests/fuzz/make_pt_corpus.py) through the fuzz target's checks (tests/fuzz/pt_load_check.h):
// every input loads consistently from a file and from memory, and saves and loads again as the
// same object, or is refused by both with the same ember::Error; anything else fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "ember/serialize_pt.h"
#include "fuzz/pt_load_check.h"
#include "support/corpus_files.h"

TEST(PtFuzzCorpus, EveryInputPassesTheFuzzTargetsChecks) {
  const auto files = ember::testing::fuzz_corpus_files("pt");
  ASSERT_GE(files.size(), 15u) << "the corpus is missing";
  for (const auto& path : files) {
    std::ifstream f(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), {});
    EXPECT_EQ(ember::fuzz::check_pt_load_path(bytes), "") << path;
  }
}

TEST(PtFuzzCorpus, SeedsBehaveAsNamed) {
  // seed_valid_* load; every other seed_* is refused with an error naming the file.
  for (const auto& path : ember::testing::fuzz_corpus_files("pt")) {
    const std::string base = path.substr(path.rfind('/') + 1);
    if (base.rfind("seed_", 0) != 0) continue;
    const bool should_load = base.rfind("seed_valid_", 0) == 0;
    std::string error;
    try {
      ember::load_pt_object(path);
    } catch (const ember::Error& e) {
      error = e.what();
    }
    EXPECT_EQ(error.empty(), should_load) << base << ": " << error;
    if (!error.empty()) EXPECT_NE(error.find(path), std::string::npos) << error;
  }
}
