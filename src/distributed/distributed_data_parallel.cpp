// GradientSynchronizer: construction-time checks and synchronization (same model on every rank,
// rank 0's parameters and buffers broadcast), buffer broadcast at each forward, and the Reducer
// that averages gradients during backward. DistributedDataParallelBase adds the module and
// no_sync.
#include "ember/nn/parallel/distributed_data_parallel.h"

#include <map>
#include <sstream>

#include "distributed/reducer.h"
#include "ember/distributed/collectives.h"
#include "ember/distributed/init.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"

namespace ember::nn::parallel {

using distributed::ProcessGroup;

struct GradientSynchronizer::State {
  std::shared_ptr<ProcessGroup> group;
  std::unique_ptr<distributed::Reducer> reducer;
};

struct DistributedDataParallelBase::State {
  std::shared_ptr<Module> module;
  std::unique_ptr<GradientSynchronizer> sync;
};

namespace {

constexpr size_t kMiB = 1024 * 1024;
// PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES.
constexpr size_t kFirstBucketBytes = 1 * kMiB;

// Broadcasts `tensors` from rank 0, one flat message per dtype and device.
void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors) {
  std::map<std::pair<int, std::string>, std::vector<Tensor>> groups;
  for (const Tensor& t : tensors) {
    if (t.defined() && t.numel() > 0) {
      groups[{static_cast<int>(t.scalar_type()), t.device().str()}].push_back(t);
    }
  }
  NoGradGuard no_grad;
  for (auto& [key, members] : groups) {
    std::vector<Tensor> flat_parts;
    for (const Tensor& t : members) flat_parts.push_back(t.reshape({-1}));
    std::vector<Tensor> flat{cat(flat_parts, 0)};
    distributed::BroadcastOptions o;
    o.rootRank = 0;
    group.broadcast(flat, o)->wait();
    int64_t offset = 0;
    for (Tensor t : members) {
      t.copy_(flat[0].narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

// Fails on every rank whose parameters (count, shapes, dtypes) differ from rank 0's.
void verify_same_model(ProcessGroup& group, const std::vector<Tensor>& params) {
  uint64_t h = 1469598103934665603ull;
  int64_t total = 0;
  auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull; };
  for (const Tensor& p : params) {
    mix(static_cast<int64_t>(p.scalar_type()));
    mix(p.dim());
    for (int64_t s : p.sizes()) mix(s);
    total += p.numel();
  }
  Tensor mine = tensor(std::vector<int64_t>{static_cast<int64_t>(params.size()), total,
                                            static_cast<int64_t>(h >> 1)});
  Tensor all = empty({group.getSize() * 3}, kLong);
  group._allgather_base(all, mine)->wait();
  auto v = all.to_vector<int64_t>();
  // Every rank sees every signature, so all of them refuse together (no rank goes on alone).
  std::ostringstream differences;
  for (int r = 1; r < group.getSize(); ++r) {
    if (v[3 * r] == v[0] && v[3 * r + 1] == v[1] && v[3 * r + 2] == v[2]) continue;
    differences << (differences.tellp() > 0 ? "; " : "") << "rank " << r
                << "'s module differs from rank 0's: " << v[3 * r] << " parameters with "
                << v[3 * r + 1] << " elements on rank " << r << ", " << v[0] << " with " << v[1]
                << " on rank 0"
                << (v[3 * r] == v[0] && v[3 * r + 1] == v[1] ? " (shapes or dtypes differ)" : "");
  }
  EMBER_CHECK(differences.tellp() == 0, ValueError, "DistributedDataParallel: ", differences.str(),
              ". Every rank must build the same model");
}

}  // namespace

DistributedDataParallelBase::NoSyncGuard::NoSyncGuard(DistributedDataParallelBase& ddp)
    : ddp_(ddp), previous_(ddp.require_backward_grad_sync_) {
  ddp_.require_backward_grad_sync_ = false;
}

DistributedDataParallelBase::NoSyncGuard::~NoSyncGuard() {
  ddp_.require_backward_grad_sync_ = previous_;
}

GradientSynchronizer::GradientSynchronizer(std::vector<std::string> names,
                                           std::vector<Tensor> params,
                                           const std::vector<Tensor>& initial_state,
                                           const DistributedDataParallelOptions& options)
    : state_(std::make_unique<State>()), options_(options) {
  EMBER_CHECK(options.bucket_cap_mb() > 0, ValueError,
              "DistributedDataParallel: bucket_cap_mb must be positive, got ",
              options.bucket_cap_mb());
  EMBER_CHECK(names.size() == params.size(), ValueError, "GradientSynchronizer: ", names.size(),
              " names for ", params.size(), " parameters");
  EMBER_CHECK(!params.empty(), ValueError,
              "DistributedDataParallel is not needed when a module doesn't have any parameter "
              "that requires a gradient.");
  state_->group = options.process_group() ? options.process_group() : distributed::default_group();
  ProcessGroup& group = *state_->group;
  verify_same_model(group, params);
  broadcast_coalesced(group, initial_state);

  const auto cap = static_cast<size_t>(options.bucket_cap_mb() * static_cast<double>(kMiB));
  state_->reducer = std::make_unique<distributed::Reducer>(
      std::move(params), std::move(names), state_->group, cap, std::min(cap, kFirstBucketBytes),
      options.find_unused_parameters());
}

GradientSynchronizer::~GradientSynchronizer() = default;

const std::shared_ptr<ProcessGroup>& GradientSynchronizer::process_group() const {
  return state_->group;
}

std::vector<std::vector<size_t>> GradientSynchronizer::bucket_indices() const {
  return state_->reducer->bucket_indices();
}

DDPBackwardStats GradientSynchronizer::last_backward_stats() const {
  return state_->reducer->last_stats();
}

void GradientSynchronizer::pre_forward(const std::vector<Tensor>& buffers) {
  auto& reducer = *state_->reducer;
  if (reducer.expecting_backward()) {
    std::vector<std::string> missing = reducer.not_ready_parameters();
    std::ostringstream names;
    for (size_t i = 0; i < missing.size() && i < 10; ++i)
      names << (i ? ", '" : "'") << missing[i] << "'";
    throw Error(ember::detail::str_cat(
        "DistributedDataParallel: expected to have finished reduction in the prior iteration "
        "before starting a new one: the previous forward's backward did not run",
        missing.empty() ? "" : ", or did not reach ", names.str(),
        ". To run forward without backward (e.g. for evaluation), do it under "
        "ember::NoGradGuard; if some parameters do not take part in the loss, pass "
        "find_unused_parameters(true)"));
  }
  if (options_.broadcast_buffers() && state_->group->getSize() > 1 && !buffers.empty()) {
    broadcast_coalesced(*state_->group, buffers);
  }
}

void GradientSynchronizer::post_forward(const std::vector<Tensor>& outputs) {
  state_->reducer->prepare_for_backward(outputs);
}

DistributedDataParallelBase::DistributedDataParallelBase(
    std::shared_ptr<Module> module, const DistributedDataParallelOptions& options)
    : Module("DistributedDataParallel"), state_(std::make_unique<State>()), options_(options) {
  EMBER_CHECK(module != nullptr, ValueError, "DistributedDataParallel: the module is null");
  state_->module = module;
  register_module("module", module);

  std::vector<Tensor> params;
  std::vector<std::string> names;
  for (const auto& item : module->named_parameters()) {
    if (!item.value().requires_grad()) continue;
    names.push_back(item.key());
    params.push_back(item.value());
  }
  std::vector<Tensor> state = module->parameters();
  for (const Tensor& b : module->buffers()) state.push_back(b);
  state_->sync =
      std::make_unique<GradientSynchronizer>(std::move(names), std::move(params), state, options);
}

DistributedDataParallelBase::~DistributedDataParallelBase() = default;

const std::shared_ptr<ProcessGroup>& DistributedDataParallelBase::process_group() const {
  return state_->sync->process_group();
}

std::vector<std::vector<size_t>> DistributedDataParallelBase::bucket_indices() const {
  return state_->sync->bucket_indices();
}

DDPBackwardStats DistributedDataParallelBase::last_backward_stats() const {
  return state_->sync->last_backward_stats();
}

void DistributedDataParallelBase::pretty_print(std::ostream& stream) const {
  const auto& group = state_->sync->process_group();
  stream << "ember::nn::DistributedDataParallel(world_size=" << group->getSize()
         << ", backend=" << group->getBackendName() << ")";
}

void DistributedDataParallelBase::pre_forward() {
  state_->sync->pre_forward(options_.broadcast_buffers() ? state_->module->buffers()
                                                         : std::vector<Tensor>{});
}

void DistributedDataParallelBase::post_forward(const std::vector<Tensor>& outputs) {
  if (GradMode::is_enabled() && require_backward_grad_sync_) {
    state_->sync->post_forward(outputs);
  }
}

}  // namespace ember::nn::parallel
