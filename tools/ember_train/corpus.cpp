#include "ember_train/corpus.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "ember/ember.h"
#include "ember/error.h"

namespace ember::train {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& file) {
  std::ifstream f(file, std::ios::binary);
  EMBER_CHECK(f.good(), Error, "--data ", file.string(),
              ": cannot read it: ", std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

std::string read_corpus(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  EMBER_CHECK(fs::exists(st), Error, "--data ", path,
              ": no such file or directory (the text corpus of --model gpt: a text file or a "
              "directory of them; the default, ",
              kDefaultCorpus, ", comes with the Debian package fortunes)");
  std::string text;
  if (fs::is_directory(st)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.is_symlink() || !entry.is_regular_file()) continue;
      if (entry.path().filename().string().rfind('.', 0) == 0) continue;  // hidden
      files.push_back(entry.path());
    }
    EMBER_CHECK(!ec, Error, "--data ", path, ": cannot list it: ", ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      std::string bytes = read_bytes(file);
      // Binary files (fortune's *.dat indexes, anything else with a NUL byte) are not text.
      if (bytes.empty() || bytes.find('\0') != std::string::npos) continue;
      if (bytes.back() != '\n') bytes += '\n';
      text += bytes;
    }
  } else {
    text = read_bytes(path);
  }
  EMBER_CHECK(!text.empty(), Error, "--data ", path, ": no text in it",
              fs::is_directory(st) ? " (no non-empty text file in the directory)" : "");
  return text;
}

CharVocab::CharVocab(const std::string& text) {
  bool seen[256] = {};
  for (unsigned char c : text) seen[c] = true;
  for (int b = 0; b < 256; ++b) {
    if (!seen[b]) continue;
    index_[b] = static_cast<int16_t>(bytes_.size());
    bytes_ += static_cast<char>(b);
  }
}

CharVocab CharVocab::from_bytes(const std::string& bytes) {
  CharVocab v(bytes);
  EMBER_CHECK(v.bytes_.size() == bytes.size(), ValueError,
              "a vocabulary must list distinct bytes (", bytes.size(), " given, ", v.bytes_.size(),
              " distinct)");
  EMBER_CHECK(v.bytes_ == bytes, ValueError, "a vocabulary must list its bytes in byte order");
  return v;
}

std::vector<int64_t> CharVocab::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  ids.reserve(text.size());
  for (unsigned char c : text) {
    const int16_t i = index_[c];
    EMBER_CHECK(i < static_cast<int16_t>(bytes_.size()) &&
                    static_cast<unsigned char>(bytes_[static_cast<size_t>(i)]) == c,
                ValueError, "the byte ", static_cast<int>(c), " is not in the vocabulary");
    ids.push_back(i);
  }
  return ids;
}

std::string CharVocab::decode(const std::vector<int64_t>& ids) const {
  std::string text;
  text.reserve(ids.size());
  for (int64_t i : ids) {
    EMBER_CHECK(i >= 0 && i < size(), IndexError, "token ", i, " is outside the vocabulary of ",
                size());
    text += bytes_[static_cast<size_t>(i)];
  }
  return text;
}

std::string CharVocab::to_hex() const {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes_) {
    hex += digits[c >> 4];
    hex += digits[c & 15];
  }
  return hex;
}

CharVocab CharVocab::from_hex(const std::string& hex) {
  auto nibble = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw ValueError("a vocabulary in hex has the character '" + std::string(1, c) + "'");
  };
  EMBER_CHECK(hex.size() % 2 == 0, ValueError, "a vocabulary in hex has an odd length (",
              hex.size(), ")");
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes += static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1]));
  }
  return from_bytes(bytes);
}

TokenSplits::TokenSplits(std::vector<int64_t> ids, int64_t block_size, double train_fraction)
    : block_size_(block_size) {
  const auto n = static_cast<int64_t>(ids.size());
  const auto n_train = static_cast<int64_t>(static_cast<double>(n) * train_fraction);
  EMBER_CHECK(
      n_train >= block_size + 1 && n - n_train >= block_size + 1, ValueError, "the corpus has ", n,
      " characters: too few for a training and a validation part (", train_fraction * 100,
      "% and the rest) of at least --block-size + 1 = ", block_size + 1, " characters each");
  val_.assign(ids.begin() + n_train, ids.end());
  ids.resize(static_cast<size_t>(n_train));
  train_ = std::move(ids);
}

std::pair<Tensor, Tensor> TokenSplits::batch(bool train, int64_t batch_size,
                                             std::mt19937_64& rng) const {
  const std::vector<int64_t>& ids = train ? train_ : val_;
  const int64_t t = block_size_;
  std::uniform_int_distribution<int64_t> start(0, static_cast<int64_t>(ids.size()) - t - 1);
  Tensor x = empty({batch_size, t}, kLong), y = empty({batch_size, t}, kLong);
  int64_t* px = x.data_ptr<int64_t>();
  int64_t* py = y.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch_size; ++b) {
    const int64_t s = start(rng);
    std::copy_n(ids.begin() + s, t, px + b * t);
    std::copy_n(ids.begin() + s + 1, t, py + b * t);
  }
  return {x, y};
}

}  // namespace ember::train
