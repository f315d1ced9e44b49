// Reducer: bucket assignment, readiness from autograd hooks, in-order asynchronous all-reduce
// of full buckets, and the end-of-backward write-back of averaged gradients.
#include "distributed/reducer.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "autograd/node_impl.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "ops/elementwise.h"

namespace ember::distributed {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string names_list(const std::vector<std::string>& names, size_t limit = 10) {
  std::ostringstream os;
  for (size_t i = 0; i < names.size() && i < limit; ++i) os << (i ? ", '" : "'") << names[i] << "'";
  if (names.size() > limit) os << " and " << names.size() - limit << " more";
  return os.str();
}

}  // namespace

Reducer::Reducer(std::vector<Tensor> params, std::vector<std::string> names,
                 std::shared_ptr<ProcessGroup> group, size_t bucket_cap_bytes,
                 size_t first_bucket_cap_bytes, bool find_unused_parameters)
    : params_(std::move(params)),
      names_(std::move(names)),
      group_(std::move(group)),
      find_unused_(find_unused_parameters) {
  assign_buckets(bucket_cap_bytes, first_bucket_cap_bytes);
  ready_.assign(params_.size(), false);
  locally_used_.assign(params_.size(), false);
  for (size_t i = 0; i < params_.size(); ++i) {
    hook_handles_.push_back(autograd::register_post_accumulate_grad_hook(
        params_[i], [this, i](const Tensor&) { on_gradient_ready(i); }));
  }
  reset_iteration();
}

Reducer::~Reducer() {
  for (size_t i = 0; i < params_.size(); ++i) {
    autograd::remove_post_accumulate_grad_hook(params_[i], hook_handles_[i]);
  }
  // Never leave the worker writing into freed buckets.
  for (auto& b : buckets_) {
    if (b.work) {
      try {
        b.work->wait();
      } catch (const std::exception&) {
      }
    }
  }
}

void Reducer::assign_buckets(size_t bucket_cap_bytes, size_t first_bucket_cap_bytes) {
  // Walk the parameters in reverse registration order (the order backward produces their
  // gradients); one open bucket per dtype and device, closed once it reaches its size limit.
  struct Open {
    std::vector<size_t> params;
    size_t bytes = 0;
    size_t closed_before = 0;
  };
  std::map<std::pair<int, std::string>, Open> open;
  std::vector<std::vector<size_t>> assigned;
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k];
    auto key = std::make_pair(static_cast<int>(p.scalar_type()), p.device().str());
    Open& o = open[key];
    o.params.push_back(k);
    o.bytes += p.nbytes();
    size_t limit = o.closed_before == 0 ? first_bucket_cap_bytes : bucket_cap_bytes;
    if (o.bytes >= limit) {
      assigned.push_back(std::move(o.params));
      o.params.clear();
      o.bytes = 0;
      ++o.closed_before;
    }
  }
  for (auto& [key, o] : open) {
    if (!o.params.empty()) assigned.push_back(std::move(o.params));
  }
  // Reduction order: the bucket whose first gradient comes first goes first.
  std::sort(assigned.begin(), assigned.end(),
            [](const auto& a, const auto& b) { return a.front() > b.front(); });
  locate_.assign(params_.size(), {0, 0});
  for (auto& indices : assigned) {
    Bucket b;
    int64_t offset = 0;
    for (size_t i : indices) {
      locate_[i] = {buckets_.size(), b.slots.size()};
      b.slots.push_back({i, offset, params_[i].numel()});
      offset += params_[i].numel();
    }
    b.flat = zeros(
        {offset},
        TensorOptions().dtype(params_[indices[0]].dtype()).device(params_[indices[0]].device()));
    buckets_.push_back(std::move(b));
  }
}

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : buckets_) {
    out.emplace_back();
    for (const auto& s : b.slots) out.back().push_back(s.param);
  }
  return out;
}

void Reducer::reset_iteration() {
  expect_hooks_ = false;
  first_hook_seen_ = false;
  std::fill(ready_.begin(), ready_.end(), false);
  std::fill(locally_used_.begin(), locally_used_.end(), false);
  unused_.clear();
  next_bucket_ = 0;
  for (auto& b : buckets_) {
    b.pending = b.slots.size();
    b.work.reset();
  }
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  reset_iteration();
  expect_hooks_ = true;
  if (!find_unused_) return;
  // Every parameter whose accumulator the outputs' graph reaches will get a gradient.
  std::unordered_map<const TensorImpl*, size_t> index_of;
  for (size_t i = 0; i < params_.size(); ++i) index_of[params_[i].unsafeGetTensorImpl()] = i;
  std::vector<bool> reached(params_.size(), false);
  std::unordered_set<autograd::Node*> seen;
  std::vector<autograd::Node*> stack;
  for (const Tensor& t : outputs) {
    if (!t.defined()) continue;
    auto edge = autograd::gradient_edge(t);
    if (edge.function && seen.insert(edge.function.get()).second) {
      stack.push_back(edge.function.get());
    }
  }
  while (!stack.empty()) {
    autograd::Node* n = stack.back();
    stack.pop_back();
    if (auto* acc = dynamic_cast<autograd::AccumulateGrad*>(n)) {
      auto it = index_of.find(acc->variable().unsafeGetTensorImpl());
      if (it != index_of.end()) reached[it->second] = true;
    }
    for (const auto& e : n->next_edges()) {
      if (e.function && seen.insert(e.function.get()).second) stack.push_back(e.function.get());
    }
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!reached[i]) unused_.push_back(i);
  }
}

std::vector<std::string> Reducer::not_ready_parameters() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!ready_[i]) out.push_back(names_[i]);
  }
  return out;
}

void Reducer::on_gradient_ready(size_t param) {
  if (!expect_hooks_) return;  // a backward that no synchronized forward armed (or no_sync)
  if (!first_hook_seen_) {
    first_hook_seen_ = true;
    backward_start_ = Clock::now();
    autograd::queue_callback([this] { finalize_backward(); });
    for (size_t u : unused_) mark_ready(u, /*used=*/false);
  }
  mark_ready(param, /*used=*/true);
}

void Reducer::mark_ready(size_t param, bool used) {
  EMBER_CHECK(!ready_[param], Error, "DistributedDataParallel: parameter '", names_[param],
              "' received its gradient twice in one backward pass (backward through the same "
              "forward twice, e.g. with retain_graph?). Each synchronized forward may be followed "
              "by one backward");
  ready_[param] = true;
  locally_used_[param] = used;
  auto [b, s] = locate_[param];
  Bucket& bucket = buckets_[b];
  const Slot& slot = bucket.slots[s];
  {
    NoGradGuard no_grad;
    Tensor view = bucket.flat.narrow(0, slot.offset, slot.numel);
    const Tensor& g = params_[param].grad();
    if (used && g.defined() && g.dtype() == view.dtype() && g.device() == view.device()) {
      // Divide while copying in, in one pass (as PyTorch's mul_out): the sum over ranks is then
      // the average.
      mul_into(view, g.reshape({-1}), 1.0 / group_->getSize());
    } else if (used && g.defined()) {
      view.copy_(g.reshape({-1}).mul(1.0 / group_->getSize()));
    } else {
      view.zero_();
    }
  }
  if (--bucket.pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  // Strictly in bucket order, so that every rank issues the same sequence of all-reduces.
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    Bucket& b = buckets_[next_bucket_];
    std::vector<Tensor> tensors{b.flat};
    b.launched_at = Clock::now();
    b.work = group_->allreduce(tensors);
    ++next_bucket_;
  }
}

void Reducer::finalize_backward() {
  const auto backward_end = Clock::now();
  auto wait_launched = [this] {
    for (size_t b = 0; b < next_bucket_; ++b) {
      try {
        if (buckets_[b].work) buckets_[b].work->wait();
      } catch (const std::exception&) {
      }
    }
  };
  if (next_bucket_ < buckets_.size()) {
    std::vector<std::string> missing = not_ready_parameters();
    wait_launched();
    reset_iteration();
    throw Error(detail::str_cat(
        "DistributedDataParallel: ", missing.size(),
        missing.size() == 1 ? " parameter" : " parameters",
        " received no gradient in this backward pass: ", names_list(missing),
        ". The loss does not depend on them (or on some outputs of forward). If your module has "
        "parameters that do not take part in every forward pass, construct "
        "DistributedDataParallel with DistributedDataParallelOptions().find_unused_parameters("
        "true); otherwise make every output of forward take part in the loss"));
  }
  try {
    std::vector<int64_t> globally_used;
    if (find_unused_) {
      // A parameter unused here may have been used on another rank: its gradient is then the
      // average (with this rank's zero) like any other.
      std::vector<int64_t> used(locally_used_.begin(), locally_used_.end());
      Tensor used_map = tensor(used).to(kInt);
      std::vector<Tensor> ts{used_map};
      AllreduceOptions o;
      o.reduceOp = ReduceOp::MAX;
      group_->allreduce(ts, o)->wait();
      globally_used = used_map.to_vector<int64_t>();
    }
    NoGradGuard no_grad;
    stats_ = nn::parallel::DDPBackwardStats();
    stats_.num_buckets = buckets_.size();
    for (auto& bucket : buckets_) {
      bucket.work->wait();
      stats_.bucket_launch_ms.push_back(ms_between(backward_start_, bucket.launched_at));
      stats_.bucket_done_ms.push_back(ms_between(backward_start_, bucket.work->finished_at()));
      for (const Slot& slot : bucket.slots) {
        Tensor& p = params_[slot.param];
        Tensor averaged = bucket.flat.narrow(0, slot.offset, slot.numel).view(p.sizes());
        Tensor& g = p.mutable_grad();
        if (g.defined()) {
          g.copy_(averaged);
        } else if (!find_unused_ || globally_used[slot.param]) {
          g = averaged.clone();
        }
      }
    }
    stats_.backward_end_ms = ms_between(backward_start_, backward_end);
    stats_.finalize_end_ms = ms_between(backward_start_, Clock::now());
  } catch (...) {
    wait_launched();
    reset_iteration();
    throw;
  }
  reset_iteration();
}

}  // namespace ember::distributed
