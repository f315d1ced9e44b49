#pragma once
// The Reducer behind DistributedDataParallel (PyTorch's c10d::Reducer): parameters grouped into
// buckets with one flat buffer each; a post-accumulate-grad hook per parameter copies its
// gradient (divided by the world size) into its bucket; a bucket whose gradients are all in is
// all-reduced asynchronously, buckets strictly in order so that every rank issues the same
// sequence; a callback at the end of backward waits for them and writes the averages back.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/nn/parallel/distributed_data_parallel.h"

namespace ember::distributed {

class Reducer {
 public:
  Reducer(std::vector<Tensor> params, std::vector<std::string> names,
          std::shared_ptr<ProcessGroup> group, size_t bucket_cap_bytes,
          size_t first_bucket_cap_bytes, bool find_unused_parameters);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  // At the end of a forward whose backward must be synchronized: arms the hooks and, with
  // find_unused_parameters, finds the parameters `outputs` do not depend on.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  // A forward armed the hooks and its backward has not finished yet.
  bool expecting_backward() const { return expect_hooks_; }
  // Names of the parameters still without a gradient in the armed backward.
  std::vector<std::string> not_ready_parameters() const;

  std::vector<std::vector<size_t>> bucket_indices() const;
  nn::parallel::DDPBackwardStats last_stats() const { return stats_; }

 private:
  struct Slot {
    size_t param;
    int64_t offset;
    int64_t numel;
  };
  struct Bucket {
    Tensor flat;
    std::vector<Slot> slots;
    size_t pending = 0;
    std::shared_ptr<Work> work;
    std::chrono::steady_clock::time_point launched_at{};
  };

  void assign_buckets(size_t bucket_cap_bytes, size_t first_bucket_cap_bytes);
  void on_gradient_ready(size_t param);
  void mark_ready(size_t param, bool used);
  void launch_ready_buckets();
  void finalize_backward();
  void reset_iteration();

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::shared_ptr<ProcessGroup> group_;
  bool find_unused_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, size_t>> locate_;  // param -> (bucket, slot)
  std::vector<uint64_t> hook_handles_;

  // One iteration's state.
  bool expect_hooks_ = false;
  bool first_hook_seen_ = false;
  std::vector<bool> ready_;
  std::vector<bool> locally_used_;
  std::vector<size_t> unused_;
  size_t next_bucket_ = 0;
  std::chrono::steady_clock::time_point backward_start_{};
  nn::parallel::DDPBackwardStats stats_;
};

}  // namespace ember::distributed
