#pragma once
// DistributedSampler (torch.utils.data.distributed.DistributedSampler): each rank gets its own
// shard of the dataset, all shards equally long. With shuffle, every rank draws the same
// permutation for an epoch (seeded by seed and the epoch set with set_epoch), so the shards stay
// disjoint; without drop_last the permutation is padded by wrapping around so that it divides
// evenly, with drop_last its tail is dropped. Rank r takes positions r, r + R, r + 2R, ...
//
//   auto sampler = std::make_shared<ember::data::DistributedSampler>(dataset.size());
//   auto loader = ember::data::DataLoader(dataset, sampler, options);
//   for (int epoch = 0; ...; ++epoch) { sampler->set_epoch(epoch); for (auto& b : loader) ... }
#include <cstdint>
#include <optional>

#include "ember/data/sampler.h"
#include "ember/nn/arg.h"

namespace ember::data {

struct DistributedSamplerOptions {
  // Unset: the default process group's world size and rank.
  EMBER_ARG(std::optional<int>, num_replicas) = std::nullopt;
  EMBER_ARG(std::optional<int>, rank) = std::nullopt;
  EMBER_ARG(bool, shuffle) = true;
  EMBER_ARG(uint64_t, seed) = 0;
  EMBER_ARG(bool, drop_last) = false;
};

class EMBER_API DistributedSampler : public Sampler {
 public:
  explicit DistributedSampler(
      size_t dataset_size, const DistributedSamplerOptions& options = DistributedSamplerOptions());

  std::vector<size_t> indices() override;
  size_t size() const override { return num_samples_; }
  // The epoch the next indices() shuffles with; call it before each epoch, as in PyTorch.
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }
  uint64_t epoch() const { return epoch_; }
  int num_replicas() const { return num_replicas_; }
  int rank() const { return rank_; }
  // Samples across all ranks (num_samples * num_replicas).
  size_t total_size() const { return total_size_; }

 private:
  size_t dataset_size_;
  int num_replicas_;
  int rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  uint64_t epoch_ = 0;
  size_t num_samples_;
  size_t total_size_;
};

}  // namespace ember::data
