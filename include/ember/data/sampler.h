#pragma once
// Sampler: the dataset indices of one epoch, in order (torch.utils.data.Sampler). A DataLoader
// given a sampler batches exactly these indices instead of shuffling 0..n-1 itself.
#include <cstddef>
#include <vector>

#include "ember/macros.h"

namespace ember::data {

class EMBER_API Sampler {
 public:
  virtual ~Sampler() = default;
  // The indices of the next epoch (called once per DataLoader::begin()).
  virtual std::vector<size_t> indices() = 0;
  // How many indices an epoch yields (len(sampler)).
  virtual size_t size() const = 0;
};

}  // namespace ember::data
