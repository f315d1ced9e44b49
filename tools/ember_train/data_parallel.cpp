#include "ember_train/data_parallel.h"

#include <cstdlib>

#include "ember/cuda.h"
#include "ember/distributed.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"

namespace ember::train {

bool launched_as_rank() {
  const char* w = std::getenv("WORLD_SIZE");
  return w != nullptr && *w != '\0';
}

std::string rank_device_spec(const std::string& spec) {
  if ((spec == "auto" || spec == "cuda") && cuda::is_available()) {
    const char* local = std::getenv("LOCAL_RANK");
    const int local_rank = local ? std::atoi(local) : 0;
    return "cuda:" + std::to_string(local_rank % cuda::device_count());
  }
  return spec;
}

DataParallelRun start_data_parallel(const Device& device) {
  DataParallelRun run;
  run.enabled = true;
  run.backend = device.is_cuda() && distributed::is_nccl_available() ? "nccl" : "gloo";
  distributed::init_process_group(run.backend);
  run.rank = distributed::get_rank();
  run.world_size = distributed::get_world_size();
  return run;
}

void finish_data_parallel(const DataParallelRun& run) {
  if (run.enabled) distributed::destroy_process_group();
}

std::vector<double> sum_over_ranks(const DataParallelRun& run, std::vector<double> values) {
  if (!run.enabled || values.empty()) return values;
  Tensor t = tensor(values, kDouble);
  distributed::all_reduce(t);
  return t.to_vector<double>();
}

StridedShardSampler::StridedShardSampler(size_t dataset_size, int rank, int world_size)
    : dataset_size_(dataset_size),
      rank_(static_cast<size_t>(rank)),
      world_size_(static_cast<size_t>(world_size)) {}

std::vector<size_t> StridedShardSampler::indices() {
  std::vector<size_t> out;
  for (size_t i = rank_; i < dataset_size_; i += world_size_) out.push_back(i);
  return out;
}

size_t StridedShardSampler::size() const {
  return dataset_size_ > rank_ ? (dataset_size_ - rank_ + world_size_ - 1) / world_size_ : 0;
}

}  // namespace ember::train
