#pragma once
// libtorch's batch samplers (torch::data::samplers), which make_data_loader draws index batches
// from: reset() starts an epoch over `size` indices, next(batch_size) returns the next batch of
// indices or nullopt once the epoch is exhausted.
//   SequentialSampler  0, 1, ..., size-1
//   RandomSampler      a fresh ember::randperm(size) each epoch (seeded by ember::manual_seed;
//                      Ember's generator, so the order differs from libtorch's for the same seed)
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember::data::samplers {

template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;
  virtual ~Sampler() = default;
  // Starts a new epoch, over `new_size` indices when given.
  virtual void reset(std::optional<size_t> new_size) = 0;
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

class EMBER_API SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  // Throws ValueError for batch_size 0.
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  // How many indices this epoch has returned.
  size_t index() const noexcept { return index_; }

 private:
  size_t size_;
  size_t index_ = 0;
};

class EMBER_API RandomSampler : public Sampler<> {
 public:
  // index_dtype is accepted for libtorch's signature (kInt64 or kInt32); indices are size_t.
  explicit RandomSampler(int64_t size, ScalarType index_dtype = kLong);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const noexcept { return index_; }

 private:
  std::vector<size_t> order_;
  size_t index_ = 0;
};

}  // namespace ember::data::samplers
