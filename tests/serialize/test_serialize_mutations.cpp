// Deterministic mutation testing of the whole safetensors load path, so that every test run (and
// CI's ASan+UBSan build of the CPU tests) exercises the loaders' size arithmetic the way the
// libFuzzer target does (tests/fuzz/fuzz_safetensors.cpp), without clang or libFuzzer: valid files
// are mutated with fixed seeds (bytes flipped, inserted, erased, the length field rewritten, and
// numbers, strings and entries of the JSON header replaced with the header length kept right, so
// that the mutants get past the JSON parser), and every mutant must pass the fuzz target's checks
// (tests/fuzz/load_path_check.h): it loads consistently through every load function, or all of
// them refuse it with the same ember::Error.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "fuzz/load_path_check.h"
#include "support/test_util.h"

namespace {

// splitmix64: the same numbers on every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(next() % n); }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  uint64_t s_;
};

std::string le64(uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// The header length field of `bytes`, when it is there and fits the file.
bool split(const std::string& bytes, std::string& header, std::string& data) {
  if (bytes.size() < 8) return false;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  if (n > bytes.size() - 8) return false;
  header = bytes.substr(8, n);
  data = bytes.substr(8 + n);
  return true;
}

// Where the tokens of one kind are in a JSON text: numbers, or strings (quotes included).
std::vector<std::pair<size_t, size_t>> tokens(const std::string& json, bool strings) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < json.size();) {
    if (json[i] == '"') {
      size_t j = i + 1;
      while (j < json.size() && json[j] != '"') j += json[j] == '\\' ? 2 : 1;
      if (strings && j < json.size()) out.emplace_back(i, j + 1 - i);
      i = j + 1;
    } else if (!strings && (json[i] == '-' || (json[i] >= '0' && json[i] <= '9'))) {
      size_t j = i + 1;
      while (j < json.size() &&
             std::string_view("0123456789.eE+-").find(json[j]) != std::string_view::npos) {
        ++j;
      }
      out.emplace_back(i, j - i);
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

const std::vector<std::string> kNumbers = {
    "0",
    "1",
    "2",
    "7",
    "8",
    "-1",
    "-0",
    "255",
    "4096",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "4611686018427387904",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e30",
    "1.5",
    "0.0",
};
const std::vector<std::string> kStrings = {
    "\"F64\"",
    "\"F32\"",
    "\"F16\"",
    "\"BF16\"",
    "\"I64\"",
    "\"I32\"",
    "\"I16\"",
    "\"I8\"",
    "\"U8\"",
    "\"BOOL\"",
    "\"U32\"",
    "\"F8_E4M3\"",
    "\"f32\"",
    "\"\"",
    "\"0\"",
    "\"1\"",
    "\"tensor\"",
    "\"tensor_list\"",
    "\"ember.content\"",
    "\"optimizer\"",
    "\"__metadata__\"",
    "\"shape\"",
    "\"dtype\"",
    "\"data_offsets\"",
    "\"\\u0000\"",
    "[]",
    "[0]",
    "[1,2]",
    "{}",
    "null",
};
const std::vector<char> kBytes = {'\0', '\x01', '\x7f', '\x80', '\xff', '0', '9', '"', '\\',
                                  '[',  ']',    '{',    '}',    ',',    ':', '-', ' ', 'e'};

// One mutation of `bytes`; `what` says which, for the failure message.
std::string mutate(const std::string& bytes, Rng& rng, std::string& what) {
  std::string b = bytes;
  std::string header, data;
  const bool has_header = split(b, header, data) && !header.empty();
  const size_t op = rng.below(has_header ? 12 : 6);
  switch (op) {
    case 0: {  // flip a bit
      if (b.empty()) break;
      const size_t at = rng.below(b.size());
      b[at] = static_cast<char>(b[at] ^ (1 << rng.below(8)));
      what += " flip@" + std::to_string(at);
      break;
    }
    case 1: {  // an interesting byte
      if (b.empty()) break;
      const size_t at = rng.below(b.size());
      b[at] = rng.pick(kBytes);
      what += " byte@" + std::to_string(at);
      break;
    }
    case 2: {  // erase a few bytes
      if (b.empty()) break;
      const size_t at = rng.below(b.size());
      b.erase(at, 1 + rng.below(8));
      what += " erase@" + std::to_string(at);
      break;
    }
    case 3: {  // insert a few bytes
      const size_t at = rng.below(b.size() + 1);
      std::string ins;
      for (size_t i = 0, n = 1 + rng.below(8); i < n; ++i) ins += rng.pick(kBytes);
      b.insert(at, ins);
      what += " insert@" + std::to_string(at);
      break;
    }
    case 4: {  // truncate
      b.resize(rng.below(b.size() + 1));
      what += " truncate@" + std::to_string(b.size());
      break;
    }
    case 5: {  // another header length
      if (b.size() < 8) break;
      uint64_t n = 0;
      for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(b[i]);
      const std::vector<uint64_t> lengths = {
          0, 1, n - 1, n + 1, n + 8, n - 8, b.size() - 8, b.size(), uint64_t{1} << 63, ~0ull};
      const uint64_t len = rng.pick(lengths);
      b.replace(0, 8, le64(len));
      what += " length=" + std::to_string(len);
      break;
    }
    case 6:
    case 7: {  // a number of the header replaced, the length kept right
      const auto numbers = tokens(header, false);
      if (numbers.empty()) break;
      const auto [at, len] = rng.pick(numbers);
      const std::string& to = rng.pick(kNumbers);
      header.replace(at, len, to);
      b = le64(header.size()) + header + data;
      what += " number@" + std::to_string(at) + "=" + to;
      break;
    }
    case 8: {  // a string of the header replaced
      const auto strings = tokens(header, true);
      if (strings.empty()) break;
      const auto [at, len] = rng.pick(strings);
      const std::string& to = rng.pick(kStrings);
      header.replace(at, len, to);
      b = le64(header.size()) + header + data;
      what += " string@" + std::to_string(at) + "=" + to;
      break;
    }
    case 9: {  // a piece of the header repeated (an entry twice, a longer shape, ...)
      const size_t at = rng.below(header.size());
      const size_t len = 1 + rng.below(std::min<size_t>(header.size() - at, 64));
      header.insert(rng.below(header.size() + 1), header.substr(at, len));
      b = le64(header.size()) + header + data;
      what += " repeat@" + std::to_string(at) + "+" + std::to_string(len);
      break;
    }
    case 10: {  // the data section grown or shrunk
      if (!data.empty() && rng.below(2) == 0) {
        data.resize(data.size() - 1 - rng.below(std::min<size_t>(data.size(), 8)));
      } else {
        data.append(1 + rng.below(8), '\x01');
      }
      b = le64(header.size()) + header + data;
      what += " data=" + std::to_string(data.size());
      break;
    }
    case 11: {  // a byte of the data section (bool bytes other than 0 and 1, NaN payloads, ...)
      if (data.empty()) break;
      const size_t at = 8 + header.size() + rng.below(data.size());
      b[at] = rng.pick(kBytes);
      what += " data byte@" + std::to_string(at);
      break;
    }
  }
  return b;
}

std::string hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// The files to mutate: the corpus's valid seeds, and files written by ember::save of each kind.
std::vector<std::pair<std::string, std::string>> base_files() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string dir = ember::testing::source_dir() + "/tests/fuzz/corpus/safetensors";
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("seed_valid_", 0) == 0 || name == "seed_bool_bytes") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    std::ifstream f(dir + "/" + name, std::ios::binary);
    out.emplace_back(name, std::string((std::istreambuf_iterator<char>(f)), {}));
  }
  ember::manual_seed(26);
  const ember::Tensor w = ember::randn({3, 4}), b = ember::arange(5).to(ember::kInt);
  out.emplace_back("save(map)", ember::safetensors::save({{"fc.weight", w},
                                                          {"fc.bias", b},
                                                          {"mask", ember::ones({2}, ember::kBool)},
                                                          {"half", w.to(ember::kHalf)}},
                                                         {{"epoch", "3"}}));
  out.emplace_back("save(Tensor)",
                   ember::safetensors::save({{"tensor", w}}, {{"ember.content", "tensor"}}));
  out.emplace_back("save(vector)",
                   ember::safetensors::save({{"0", w}, {"1", b}, {"2", ember::zeros({0, 3})}},
                                            {{"ember.content", "tensor_list"}}));
  return out;
}

}  // namespace

// 300 mutants of each of the 19 base files, each with one to three mutations: 5,700 inputs through
// five load functions each, in 1 s (a release build on a shared 2-core machine). About one in ten
// still loads; some reach the stride check (e.g. [0, 2^62, 1] made [0, 2^62, 65536]), which
// ASan+UBSan builds abort on without it.
TEST(SafetensorsMutations, EveryMutantLoadsConsistentlyOrIsRefusedWithAnEmberError) {
  constexpr int kMutantsPerFile = 300;
  const auto bases = base_files();
  ASSERT_GE(bases.size(), 15u) << "the corpus's seed_valid_* files are missing";
  int loaded = 0, refused = 0, failures = 0;
  for (size_t f = 0; f < bases.size(); ++f) {
    const auto& [name, bytes] = bases[f];
    ASSERT_EQ(ember::fuzz::check_load_path(bytes), "") << name << " (unmutated)";
    for (int i = 0; i < kMutantsPerFile; ++i) {
      const uint64_t seed = f * 1000003 + static_cast<uint64_t>(i);
      Rng rng(seed);
      std::string what;
      std::string mutant = bytes;
      const size_t mutations = rng.below(2) == 0 ? 1 : 2 + rng.below(2);  // 1, 2 or 3
      for (size_t k = 0; k < mutations; ++k) mutant = mutate(mutant, rng, what);
      const std::string problem = ember::fuzz::check_load_path(mutant);
      if (!problem.empty() && ++failures <= 10) {
        ADD_FAILURE() << name << ", seed " << seed << ":" << what << "\n"
                      << problem << "\ninput (hex): " << hex(mutant);
      }
      try {
        ember::safetensors::load(mutant);
        ++loaded;
      } catch (const ember::Error&) {
        ++refused;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  // The mutants reach both sides: some still load (so the loaders' arithmetic runs on odd but
  // valid headers; 10% do), most are refused.
  const int total = loaded + refused;
  EXPECT_GT(loaded, total / 20) << loaded << " of " << total << " mutants loaded";
  EXPECT_GT(refused, total / 3) << refused << " of " << total << " mutants were refused";
  RecordProperty("mutants_loaded", loaded);
  RecordProperty("mutants_refused", refused);
}
