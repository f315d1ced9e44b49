#pragma once
// The text corpus of `ember-train --model gpt`: a file or a directory of text files, read as
// bytes, with a character (byte) vocabulary, and the random windows the model trains on.
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::train {

// Debian's package fortunes: ~2.6 MB of English fortune cookies, one file per theme, each cookie
// ended by a line "%" (docs/train.md says why this corpus).
inline constexpr const char* kDefaultCorpus = "/usr/share/games/fortunes";

// The text of `path`: a file as it is, or the regular files of a directory (not symlinks, not
// binary files, such as fortune's *.dat indexes) in name order, each ended by a newline. Throws
// ember::Error "--data PATH: ..." for a missing or unreadable path and for a corpus with no text.
std::string read_corpus(const std::string& path);

// The distinct bytes of a text, in byte order; token i is the byte vocab[i].
class CharVocab {
 public:
  explicit CharVocab(const std::string& text);
  // From the bytes themselves (a checkpoint's metadata: see to_hex / from_hex).
  static CharVocab from_bytes(const std::string& bytes);
  int64_t size() const { return static_cast<int64_t>(bytes_.size()); }
  const std::string& bytes() const { return bytes_; }
  // Throws ember::ValueError for a byte outside the vocabulary.
  std::vector<int64_t> encode(const std::string& text) const;
  std::string decode(const std::vector<int64_t>& ids) const;
  // The bytes as lower-case hex, for the checkpoint's (JSON) metadata.
  std::string to_hex() const;
  static CharVocab from_hex(const std::string& hex);

 private:
  CharVocab() = default;
  std::string bytes_;
  int16_t index_[256] = {};
};

// Token ids split into training (the first train_fraction) and validation (the rest) parts, and
// batches of random windows of block_size + 1 tokens: x the first block_size, y the last.
class TokenSplits {
 public:
  // Throws ember::ValueError when either part is shorter than block_size + 1 tokens.
  TokenSplits(std::vector<int64_t> ids, int64_t block_size, double train_fraction = 0.9);
  int64_t train_tokens() const { return static_cast<int64_t>(train_.size()); }
  int64_t val_tokens() const { return static_cast<int64_t>(val_.size()); }
  int64_t block_size() const { return block_size_; }
  // {x, y}: int64 [batch, block_size] on the CPU, windows starting at uniform random offsets.
  std::pair<Tensor, Tensor> batch(bool train, int64_t batch_size, std::mt19937_64& rng) const;

 private:
  std::vector<int64_t> train_, val_;
  int64_t block_size_;
};

}  // namespace ember::train
