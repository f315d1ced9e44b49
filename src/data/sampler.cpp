// The per-epoch sample order of the DataLoader (see epoch_indices in dataloader.h).
#include <numeric>
#include <random>

#include "ember/data/dataloader.h"

namespace ember::data::detail {
namespace {
// Uniform in [0, bound) by rejection, so the result depends only on the engine's output (the
// standard leaves std::uniform_int_distribution's algorithm to the implementation).
uint64_t uniform_below(std::mt19937_64& gen, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do {
    x = gen();
  } while (x >= limit);
  return x % bound;
}
uint32_t lo32(uint64_t v) {
  return static_cast<uint32_t>(v);
}
uint32_t hi32(uint64_t v) {
  return static_cast<uint32_t>(v >> 32);
}
}  // namespace

std::vector<size_t> epoch_indices(size_t n, bool shuffle, uint64_t seed, uint64_t epoch) {
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  if (!shuffle || n < 2) return idx;
  std::seed_seq seq{lo32(seed), hi32(seed), lo32(epoch), hi32(epoch)};
  std::mt19937_64 gen(seq);
  for (size_t i = n - 1; i > 0; --i) std::swap(idx[i], idx[uniform_below(gen, i + 1)]);
  return idx;
}

}  // namespace ember::data::detail

namespace ember::data::detail {

void check_sampler(const Sampler* sampler, const DataLoaderOptions& options) {
  EMBER_CHECK(sampler != nullptr, ValueError, "DataLoader: the sampler is null");
  EMBER_CHECK(!options.shuffle(), ValueError,
              "DataLoader: sampler option is mutually exclusive with shuffle (the sampler decides "
              "the order; DistributedSampler shuffles itself)");
}

std::vector<size_t> sampled_indices(Sampler& sampler, size_t dataset_size) {
  std::vector<size_t> idx = sampler.indices();
  for (size_t i : idx) {
    EMBER_CHECK(i < dataset_size, IndexError, "DataLoader: the sampler gave index ", i,
                " for a dataset of size ", dataset_size);
  }
  return idx;
}

}  // namespace ember::data::detail
