// DistributedSampler: PyTorch's shard arithmetic (num_samples, padding by wrap-around, strided
// positions) over the DataLoader's deterministic epoch permutation.
#include "ember/data/distributed_sampler.h"

#include "ember/data/dataloader.h"
#include "ember/distributed/init.h"

namespace ember::data {

DistributedSampler::DistributedSampler(size_t dataset_size,
                                       const DistributedSamplerOptions& options)
    : dataset_size_(dataset_size),
      shuffle_(options.shuffle()),
      seed_(options.seed()),
      drop_last_(options.drop_last()) {
  if (!options.num_replicas() || !options.rank()) {
    EMBER_CHECK(distributed::is_initialized(), ValueError,
                "DistributedSampler: num_replicas and rank default to the process group's, but "
                "init_process_group has not been called (pass them in the options)");
  }
  num_replicas_ = options.num_replicas() ? *options.num_replicas() : distributed::get_world_size();
  rank_ = options.rank() ? *options.rank() : distributed::get_rank();
  EMBER_CHECK(num_replicas_ >= 1, ValueError,
              "DistributedSampler: num_replicas must be at least 1, got ", num_replicas_);
  EMBER_CHECK(rank_ >= 0 && rank_ < num_replicas_, ValueError, "DistributedSampler: invalid rank ",
              rank_, ", rank should be in the interval [0, ", num_replicas_ - 1, "]");
  const size_t r = static_cast<size_t>(num_replicas_);
  if (drop_last_ && dataset_size_ % r != 0) {
    num_samples_ = dataset_size_ >= r ? (dataset_size_ - r + r - 1) / r : 0;
  } else {
    num_samples_ = (dataset_size_ + r - 1) / r;
  }
  total_size_ = num_samples_ * r;
}

std::vector<size_t> DistributedSampler::indices() {
  std::vector<size_t> all = detail::epoch_indices(dataset_size_, shuffle_, seed_, epoch_);
  if (!drop_last_) {
    // Pad by repeating the permutation from its start until it divides evenly.
    for (size_t i = 0; all.size() < total_size_ && dataset_size_ > 0; ++i) {
      all.push_back(all[i % dataset_size_]);
    }
  } else {
    all.resize(total_size_);
  }
  std::vector<size_t> mine;
  mine.reserve(num_samples_);
  for (size_t i = static_cast<size_t>(rank_); i < total_size_;
       i += static_cast<size_t>(num_replicas_)) {
    mine.push_back(all[i]);
  }
  return mine;
}

}  // namespace ember::data
