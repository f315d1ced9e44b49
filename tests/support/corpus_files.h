#pragma once
// The files of one fuzz corpus (tests/fuzz/corpus/<name>), sorted, for the tests that replay a
// fuzz target's corpus without libFuzzer.
#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/test_util.h"

namespace ember::testing {

inline std::vector<std::string> fuzz_corpus_files(const std::string& name) {
  const std::string dir = source_dir() + "/tests/fuzz/corpus/" + name;
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ember::testing
