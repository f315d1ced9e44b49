// libtorch-style batch samplers: sequential and random index batches for make_data_loader.
#include "ember/data/samplers.h"

#include <algorithm>

#include "ember/ops.h"

namespace ember::data::samplers {
namespace {
void check_batch_size(size_t batch_size, const char* sampler) {
  EMBER_CHECK(batch_size > 0, ValueError, sampler, "::next: batch_size must be positive, got 0");
}
}  // namespace

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  check_batch_size(batch_size, "SequentialSampler");
  if (index_ >= size_) return std::nullopt;
  const size_t n = std::min(batch_size, size_ - index_);
  std::vector<size_t> batch(n);
  for (size_t i = 0; i < n; ++i) batch[i] = index_ + i;
  index_ += n;
  return batch;
}

RandomSampler::RandomSampler(int64_t size, ScalarType index_dtype) {
  EMBER_CHECK(size >= 0, ValueError, "RandomSampler: size must be non-negative, got ", size);
  EMBER_CHECK(index_dtype == kLong || index_dtype == kInt, TypeError,
              "RandomSampler: index_dtype must be int64 or int32, got ", index_dtype);
  reset(static_cast<size_t>(size));
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  const size_t n = new_size ? *new_size : order_.size();
  Tensor perm = ember::randperm(static_cast<int64_t>(n));
  const int64_t* p = perm.data_ptr<int64_t>();
  order_.assign(p, p + n);
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  check_batch_size(batch_size, "RandomSampler");
  if (index_ >= order_.size()) return std::nullopt;
  const size_t n = std::min(batch_size, order_.size() - index_);
  std::vector<size_t> batch(order_.begin() + static_cast<std::ptrdiff_t>(index_),
                            order_.begin() + static_cast<std::ptrdiff_t>(index_ + n));
  index_ += n;
  return batch;
}

}  // namespace ember::data::samplers
