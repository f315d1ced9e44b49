#pragma once
// Data-parallel training when ember-train runs under ember-run (or torchrun): WORLD_SIZE in the
// environment turns it on. Each rank trains a DistributedDataParallel replica on its shard of
// the training set (DistributedSampler) and evaluates its shard of the test set; metrics are
// summed over the ranks and rank 0 alone prints and writes the files.
#include <cstddef>
#include <string>
#include <vector>

#include "ember/data/sampler.h"
#include "ember/device.h"

namespace ember::train {

struct DataParallelRun {
  bool enabled = false;
  int rank = 0;
  int world_size = 1;
  std::string backend;  // "gloo" or "nccl"
};

// Whether a launcher started this process as one rank of several (WORLD_SIZE is set).
bool launched_as_rank();
// The device this rank trains on: with "auto" or "cuda" and CUDA available, the GPU numbered
// LOCAL_RANK (modulo the device count), one process per GPU; otherwise `spec` unchanged.
std::string rank_device_spec(const std::string& spec);
// Joins the process group (env://): NCCL for CUDA devices where it is available, Gloo otherwise.
DataParallelRun start_data_parallel(const Device& device);
void finish_data_parallel(const DataParallelRun& run);
// Element-wise sum over the ranks (one collective); the values unchanged without data parallel.
std::vector<double> sum_over_ranks(const DataParallelRun& run, std::vector<double> values);

// Indices rank, rank + world_size, ... of a dataset: every sample in exactly one shard (no
// padding), so summed test metrics cover the test set once.
class StridedShardSampler : public data::Sampler {
 public:
  StridedShardSampler(size_t dataset_size, int rank, int world_size);
  std::vector<size_t> indices() override;
  size_t size() const override;

 private:
  size_t dataset_size_;
  size_t rank_;
  size_t world_size_;
};

}  // namespace ember::train
