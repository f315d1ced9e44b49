#pragma once
// DistributedDataParallel (torch.nn.parallel.DistributedDataParallel): one process per device,
// each with a replica of the module. At construction the replicas get rank 0's parameters and
// buffers. Gradients are grouped into buckets (bucket_cap_mb, in reverse registration order, the
// first bucket capped at 1 MiB as PyTorch's rebuilt buckets are); as backward produces them, a
// bucket whose gradients are all ready is all-reduced asynchronously while backward goes on, and
// at the end of backward every parameter's .grad holds the average over the ranks.
//
//   ember::distributed::init_process_group("gloo");
//   auto ddp = ember::nn::parallel::DistributedDataParallel(model);
//   ember::optim::SGD opt(ddp->parameters(), 0.1);
//   auto loss = loss_fn(ddp(x), y);
//   loss.backward();           // gradients averaged across ranks
//   opt.step();
//
//   { auto guard = ddp->no_sync(); loss_fn(ddp(x1), y1).backward(); }   // accumulate locally
#include <chrono>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/nn/arg.h"
#include "ember/nn/module.h"
#include "ember/nn/pimpl.h"

namespace ember::nn::parallel {

struct DistributedDataParallelOptions {
  // Bucket size in MiB (PyTorch's default 25); the bucket reduced first is capped at 1 MiB so
  // communication starts early.
  EMBER_ARG(double, bucket_cap_mb) = 25.0;
  // Find, at the end of each forward, the parameters the output does not depend on and count
  // them as ready (their gradient stays as it was unless another rank used them). Without it, a
  // parameter that gets no gradient is an error that names it.
  EMBER_ARG(bool, find_unused_parameters) = false;
  // Broadcast rank 0's buffers (e.g. batch norm's running stats) at every forward.
  EMBER_ARG(bool, broadcast_buffers) = true;
  // Default: the group of init_process_group.
  EMBER_ARG(std::shared_ptr<distributed::ProcessGroup>, process_group) = nullptr;
};

// What the last synchronized backward pass did, in milliseconds since its first gradient.
struct DDPBackwardStats {
  size_t num_buckets = 0;
  std::vector<double> bucket_launch_ms;  // when each bucket's all-reduce was issued
  std::vector<double> bucket_done_ms;    // when it completed
  double backward_end_ms = 0;            // when the last gradient was computed
  double finalize_end_ms = 0;            // when every .grad held the averaged gradient
};

namespace detail {

// Gathers the tensors of a forward's output (a Tensor, vectors, tuples and pairs of them), from
// which the unused parameters are found.
inline void collect_tensors(const Tensor& t, std::vector<Tensor>& out) {
  out.push_back(t);
}
template <typename T>
void collect_tensors(const std::vector<T>& v, std::vector<Tensor>& out) {
  for (const auto& x : v) collect_tensors(x, out);
}
template <typename A, typename B>
void collect_tensors(const std::pair<A, B>& p, std::vector<Tensor>& out) {
  collect_tensors(p.first, out);
  collect_tensors(p.second, out);
}
template <typename... Ts>
void collect_tensors(const std::tuple<Ts...>& t, std::vector<Tensor>& out) {
  std::apply([&](const auto&... x) { (collect_tensors(x, out), ...); }, t);
}
template <typename T, typename = std::enable_if_t<!std::is_convertible_v<T, Tensor>>>
void collect_tensors(const T&, std::vector<Tensor>&) {}

}  // namespace detail

// DistributedDataParallel's synchronization over plain lists of tensors, for wrappers whose
// module is not a C++ Module (ember.nn.parallel.DistributedDataParallel in Python, whose modules
// are Python objects). Construction checks that every rank has the same `params` (those that
// require grad; `names` name them in errors) and broadcasts rank 0's `initial_state` (every
// parameter and buffer); the reducer's hooks then average the parameters' gradients during each
// backward that post_forward armed. DistributedDataParallelBase is built on it.
class EMBER_API GradientSynchronizer {
 public:
  GradientSynchronizer(std::vector<std::string> names, std::vector<Tensor> params,
                       const std::vector<Tensor>& initial_state,
                       const DistributedDataParallelOptions& options);
  ~GradientSynchronizer();
  GradientSynchronizer(const GradientSynchronizer&) = delete;
  GradientSynchronizer& operator=(const GradientSynchronizer&) = delete;

  // Before the module's forward: refuses a forward whose previous backward did not run, and
  // broadcasts rank 0's `buffers` (with broadcast_buffers).
  void pre_forward(const std::vector<Tensor>& buffers);
  // After a forward whose backward must be synchronized (grad mode on, not under no_sync): arms
  // the hooks (and finds the unused parameters from `outputs` with find_unused_parameters).
  void post_forward(const std::vector<Tensor>& outputs);
  const std::shared_ptr<distributed::ProcessGroup>& process_group() const;
  std::vector<std::vector<size_t>> bucket_indices() const;
  DDPBackwardStats last_backward_stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  DistributedDataParallelOptions options_;
};

// The module-independent part: bucketing, hooks, reduction. DistributedDataParallelImpl<M>
// adds forward().
class EMBER_API DistributedDataParallelBase : public Module {
 public:
  DistributedDataParallelBase(std::shared_ptr<Module> module,
                              const DistributedDataParallelOptions& options);
  ~DistributedDataParallelBase() override;

  // Gradient accumulation without communication (torch's `with ddp.no_sync():`): backward passes
  // of forwards run while the guard lives only accumulate into .grad; the next synchronized
  // backward reduces the sum.
  class EMBER_API NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallelBase& ddp);
    ~NoSyncGuard();
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallelBase& ddp_;
    bool previous_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  const DistributedDataParallelOptions& options() const { return options_; }
  const std::shared_ptr<distributed::ProcessGroup>& process_group() const;
  // Parameter indices (into module->parameters() that require grad) per bucket, in reduction order.
  std::vector<std::vector<size_t>> bucket_indices() const;
  DDPBackwardStats last_backward_stats() const;
  void pretty_print(std::ostream& stream) const override;

 protected:
  // Called around the wrapped module's forward.
  void pre_forward();
  void post_forward(const std::vector<Tensor>& outputs);

 private:
  struct State;
  std::unique_ptr<State> state_;
  DistributedDataParallelOptions options_;
  bool require_backward_grad_sync_ = true;
};

template <typename ModuleType>
class DistributedDataParallelImpl : public DistributedDataParallelBase {
 public:
  explicit DistributedDataParallelImpl(
      std::shared_ptr<ModuleType> module,
      const DistributedDataParallelOptions& options = DistributedDataParallelOptions())
      : DistributedDataParallelBase(module, options), module_(std::move(module)) {}
  explicit DistributedDataParallelImpl(
      const ModuleHolder<ModuleType>& module,
      const DistributedDataParallelOptions& options = DistributedDataParallelOptions())
      : DistributedDataParallelImpl(module.ptr(), options) {}

  // The wrapped module's forward, with DDP's bookkeeping around it.
  template <typename... Args>
  decltype(auto) forward(Args&&... args) {
    pre_forward();
    auto output = module_->forward(std::forward<Args>(args)...);
    std::vector<Tensor> tensors;
    detail::collect_tensors(output, tensors);
    post_forward(tensors);
    return output;
  }

  // The wrapped module (ddp.module).
  const std::shared_ptr<ModuleType>& module() const { return module_; }

 private:
  std::shared_ptr<ModuleType> module_;
};

// The holder: auto ddp = DistributedDataParallel(model, options); ddp(x); ddp->no_sync().
template <typename ModuleType>
class DistributedDataParallel : public ModuleHolder<DistributedDataParallelImpl<ModuleType>> {
 public:
  using ModuleHolder<DistributedDataParallelImpl<ModuleType>>::ModuleHolder;
  DistributedDataParallel(
      const ModuleHolder<ModuleType>& module,
      const DistributedDataParallelOptions& options = DistributedDataParallelOptions())
      : ModuleHolder<DistributedDataParallelImpl<ModuleType>>(
            std::make_shared<DistributedDataParallelImpl<ModuleType>>(module.ptr(), options)) {}
  DistributedDataParallel(
      std::shared_ptr<ModuleType> module,
      const DistributedDataParallelOptions& options = DistributedDataParallelOptions())
      : ModuleHolder<DistributedDataParallelImpl<ModuleType>>(
            std::make_shared<DistributedDataParallelImpl<ModuleType>>(std::move(module), options)) {
  }
};
template <typename M>
DistributedDataParallel(const ModuleHolder<M>&) -> DistributedDataParallel<M>;
template <typename M>
DistributedDataParallel(const ModuleHolder<M>&, const DistributedDataParallelOptions&)
    -> DistributedDataParallel<M>;
template <typename M>
DistributedDataParallel(std::shared_ptr<M>) -> DistributedDataParallel<M>;
template <typename M>
DistributedDataParallel(std::shared_ptr<M>, const DistributedDataParallelOptions&)
    -> DistributedDataParallel<M>;

}  // namespace ember::nn::parallel
