// ProcessGroupGloo: Gloo's collectives over its TCP transport. Collectives run in issue order on
// one worker thread per group (the caller goes on, e.g. with backward); send/recv go straight to
// Gloo's unbound buffers and complete in Work::wait, as in PyTorch's Gloo backend.
// The group's state and the mismatch detection are in process_group_gloo_impl.h.
#include "ember/distributed/process_group_gloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <signal.h>

#include <cstdlib>

#include "distributed/gloo/gloo_store_adapter.h"
#include "distributed/gloo/process_group_gloo_impl.h"
#include "distributed/tensor_checks.h"
#include "ember/ops.h"

namespace ember::distributed {

bool is_gloo_available() {
  return true;
}

ProcessGroupGloo::ProcessGroupGloo(const std::shared_ptr<Store>& store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(store != nullptr, ValueError, "ProcessGroupGloo: the store is null");
  EMBER_CHECK(size >= 1 && rank >= 0 && rank < size, ValueError, "ProcessGroupGloo: rank ", rank,
              " is out of range for world size ", size);
  EMBER_CHECK(options.allreduce_segment_bytes > 0, ValueError,
              "ProcessGroupGloo: allreduce_segment_bytes must be positive, got ",
              options.allreduce_segment_bytes);
  // Gloo writes to its peers without MSG_NOSIGNAL: a peer that died would kill this process
  // with SIGPIPE instead of failing the collective (Python, and so PyTorch, ignores SIGPIPE).
  // A handler the program installed itself is left alone.
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    ::signal(SIGPIPE, SIG_IGN);
  }
  impl_->store = store;
  impl_->rank = rank;
  impl_->size = size;
  impl_->options = options;
  gloo::transport::tcp::attr attr;
  const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
  if (ifname && *ifname) {
    std::string first(ifname);
    attr.iface = first.substr(0, first.find(','));
  } else {
    attr.hostname = options.hostname.empty() ? "127.0.0.1" : options.hostname;
  }
  try {
    impl_->device = gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throw DistNetworkError(detail::str_cat(
        "Gloo cannot listen on ",
        attr.iface.empty() ? "address '" + attr.hostname + "'" : "interface '" + attr.iface + "'",
        " on rank ", rank, ": ", e.what()));
  }
  impl_->context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  impl_->context->setTimeout(options.timeout);
  GlooStoreAdapter adapter(store);
  try {
    impl_->context->connectFullMesh(adapter, impl_->device);
  } catch (const DistError& e) {
    throw DistStoreError(detail::str_cat("Gloo rendezvous on rank ", rank, " of ", size,
                                         " failed (are all ranks running?): ", e.what()));
  } catch (const std::exception& e) {
    throw DistNetworkError(detail::str_cat("Gloo could not connect rank ", rank, " of ", size,
                                           " to its peers: ", e.what()));
  }
  impl_->queue = std::make_unique<WorkQueue>();
  impl_->watchdog = std::thread([impl = impl_.get()] { impl->watch(); });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  shutdown();
}

void ProcessGroupGloo::shutdown() {
  if (impl_->queue) impl_->queue->stop();
  impl_->queue.reset();
  impl_->stop_watchdog();
  impl_->context.reset();
  impl_->device.reset();
}

std::chrono::milliseconds ProcessGroupGloo::getTimeout() const {
  return impl_->options.timeout;
}

std::shared_ptr<Work> ProcessGroupGloo::allreduce(std::vector<Tensor>& tensors,
                                                  const AllreduceOptions& opts) {
  const char* op = "all_reduce";
  Tensor t = single_tensor(tensors, op);
  check_collective_tensor(t, op);
  check_reduce_dtype(t, opts.reduceOp, op);
  Impl* impl = impl_.get();
  auto run = [impl, opts](const GlooCall& call) {
    gloo::AllreduceOptions o(impl->context);
    dispatch_dtype(call.output.dtype(), "all_reduce", [&](auto tt) {
      using T = typename decltype(tt)::type;
      o.setOutput<T>(elements<T>(call.output), element_count(call.output));
      o.setReduceFunction(combine3_for<T>(opts.reduceOp));
    });
    call.configure(o);
    o.setMaxSegmentSize(impl->options.allreduce_segment_bytes);
    gloo::allreduce(o);
    if (opts.reduceOp == ReduceOp::AVG) call.output.div_(impl->size);
  };
  return impl_->collective(op, Staging::in_place(t, op), opts.timeout,
                           signature_of(op, t, reduce_op_name(opts.reduceOp)), run);
}

std::shared_ptr<Work> ProcessGroupGloo::broadcast(std::vector<Tensor>& tensors,
                                                  const BroadcastOptions& opts) {
  const char* op = "broadcast";
  Tensor t = single_tensor(tensors, op);
  check_collective_tensor(t, op);
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < getSize(), ValueError, op, ": source rank ",
              opts.rootRank, " is out of range for a group of size ", getSize());
  Staging staging = Staging::in_place(t, op);
  staging.write_back = getRank() != opts.rootRank;  // the root's tensor is only read
  Impl* impl = impl_.get();
  auto run = [impl, opts](const GlooCall& call) {
    gloo::BroadcastOptions o(impl->context);
    dispatch_dtype(call.output.dtype(), "broadcast", [&](auto tt) {
      using T = typename decltype(tt)::type;
      o.setOutput<T>(elements<T>(call.output), element_count(call.output));
    });
    o.setRoot(static_cast<int>(opts.rootRank));
    call.configure(o);
    gloo::broadcast(o);
  };
  return impl_->collective(op, std::move(staging), opts.timeout,
                           signature_of(op, t, detail::str_cat("root ", opts.rootRank)), run);
}

std::shared_ptr<Work> ProcessGroupGloo::_allgather_base(Tensor& output, Tensor& input,
                                                        const AllgatherOptions& opts) {
  const char* op = "all_gather_into_tensor";
  check_collective_tensor(input, op, "input");
  check_collective_tensor(output, op, "output");
  EMBER_CHECK(output.dtype() == input.dtype() && output.numel() == input.numel() * getSize(),
              ValueError, op, ": the output must hold world_size (", getSize(),
              ") times the input's elements of its dtype (", to_string(input.dtype()), " ",
              input.sizes(), "), got ", to_string(output.dtype()), " ", output.sizes());
  Impl* impl = impl_.get();
  auto run = [impl](const GlooCall& call) {
    gloo::AllgatherOptions o(impl->context);
    dispatch_dtype(call.input.dtype(), "all_gather", [&](auto tt) {
      using T = typename decltype(tt)::type;
      o.setInput<T>(elements<T>(call.input), element_count(call.input));
      o.setOutput<T>(elements<T>(call.output), element_count(call.output));
    });
    call.configure(o);
    gloo::allgather(o);
  };
  return impl_->collective(op, Staging::between(input, output, op), opts.timeout,
                           detail::str_cat(op, "(", dtype_name(input.dtype()), ", ", input.numel(),
                                           " elements per rank)"),
                           run);
}

std::shared_ptr<Work> ProcessGroupGloo::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs,
                                                  const AllgatherOptions& opts) {
  const char* op = "all_gather";
  Tensor input = single_tensor(inputs, op);
  check_collective_tensor(input, op, "input");
  EMBER_CHECK(outputs.size() == 1 && outputs[0].size() == static_cast<size_t>(getSize()),
              ValueError, op, ": expected one output list of world_size (", getSize(),
              ") tensors, got ", outputs.size() == 1 ? outputs[0].size() : outputs.size(),
              " tensors");
  for (auto& o : outputs[0]) check_same_layout(o, input, op, "output tensor");
  // Gather into one flat host buffer, then copy each rank's block out.
  Tensor flat = empty({getSize() * input.numel()}, TensorOptions().dtype(input.dtype()));
  auto work = _allgather_base(flat, input, opts);
  std::vector<Tensor> outs = outputs[0];
  auto result = std::make_shared<Work>(op);
  result->set_result(outs);
  impl_->queue->push([work, result, flat, outs, n = input.numel()] {
    try {
      work->wait();
      for (size_t r = 0; r < outs.size(); ++r) {
        Tensor block = flat.slice(0, static_cast<int64_t>(r) * n, static_cast<int64_t>(r + 1) * n);
        Tensor dst = outs[r];
        dst.copy_(block.view(dst.sizes()));
      }
      result->finish();
    } catch (...) {
      result->finish(std::current_exception());
    }
  });
  return result;
}

std::shared_ptr<Work> ProcessGroupGloo::_reduce_scatter_base(Tensor& output, Tensor& input,
                                                             const ReduceScatterOptions& opts) {
  const char* op = "reduce_scatter_tensor";
  check_collective_tensor(input, op, "input");
  check_collective_tensor(output, op, "output");
  EMBER_CHECK(output.dtype() == input.dtype() && input.numel() == output.numel() * getSize(),
              ValueError, op, ": the input must hold world_size (", getSize(),
              ") times the output's elements of its dtype (output ", to_string(output.dtype()), " ",
              output.sizes(), "), got ", to_string(input.dtype()), " ", input.sizes());
  EMBER_CHECK(input.numel() < (int64_t{1} << 31), ValueError, op,
              ": the Gloo backend reduces at most 2^31-1 elements per call, got ", input.numel());
  check_reduce_dtype(input, opts.reduceOp, op);
  // The algorithm works in place: reduce a private copy of the input. Bools travel as bytes
  // (or = max, and = min).
  ReduceOp reduce_op = opts.reduceOp;
  ScalarType work_dtype = input.dtype();
  if (work_dtype == kBool) {
    work_dtype = kByte;
    reduce_op =
        (reduce_op == ReduceOp::SUM || reduce_op == ReduceOp::MAX) ? ReduceOp::MAX : ReduceOp::MIN;
  }
  Impl* impl = impl_.get();
  auto run = [impl, opts, reduce_op](const GlooCall& call) {
    Tensor& buffer = call.input;
    const int64_t n = call.output.numel();
    // The halving-doubling algorithm sends through buffers on slots of its own (not the tag), so
    // calls that differ would meet there: a barrier on the tag first lets only matching calls
    // through.
    gloo::BarrierOptions match(impl->context);
    call.configure(match);
    gloo::barrier(match);
    dispatch_dtype(buffer.dtype(), "reduce_scatter", [&](auto tt) {
      using T = typename decltype(tt)::type;
      if constexpr (std::is_same_v<T, bool>) {
        throw Error("reduce_scatter: bool tensors are reduced as bytes");  // not reached
      } else {
        std::vector<int> counts(static_cast<size_t>(impl->size), static_cast<int>(n));
        gloo::ReduceScatterHalvingDoubling<T> algorithm(impl->context, {elements<T>(buffer)},
                                                        static_cast<int>(buffer.numel()), counts,
                                                        reduction_for<T>(reduce_op));
        algorithm.run();
      }
    });
    // The halving-doubling algorithm returns without waiting for its last notification sends,
    // which Gloo may still hold in its queue: a rank that exits right after the op would cut its
    // peers off mid-operation ("connection closed by peer", seen once in CI with three ranks). A
    // barrier's messages queue behind them on the same connections and the barrier waits for its
    // own sends, so the op completes only once its messages have left.
    gloo::BarrierOptions flush(impl->context);
    call.configure(flush);
    gloo::barrier(flush);
    // This rank's block now sits at the start of the buffer.
    call.output.copy_(buffer.slice(0, 0, n).view(call.output.sizes()));
    if (opts.reduceOp == ReduceOp::AVG) call.output.div_(impl->size);
  };
  return impl_->collective(op, Staging::private_input(input, work_dtype, output, op), opts.timeout,
                           signature_of(op, input, reduce_op_name(opts.reduceOp)), run);
}

std::shared_ptr<Work> ProcessGroupGloo::reduce_scatter(std::vector<Tensor>& outputs,
                                                       std::vector<std::vector<Tensor>>& inputs,
                                                       const ReduceScatterOptions& opts) {
  const char* op = "reduce_scatter";
  Tensor output = single_tensor(outputs, op);
  check_collective_tensor(output, op, "output");
  EMBER_CHECK(inputs.size() == 1 && inputs[0].size() == static_cast<size_t>(getSize()), ValueError,
              op, ": expected one input list of world_size (", getSize(), ") tensors, got ",
              inputs.size() == 1 ? inputs[0].size() : inputs.size(), " tensors");
  for (auto& in : inputs[0]) check_same_layout(in, output, op, "input tensor");
  std::vector<Tensor> flat_parts;
  for (auto& in : inputs[0]) flat_parts.push_back(in.reshape({-1}));
  Tensor flat = cat(flat_parts, 0);
  return _reduce_scatter_base(output, flat, opts);
}

std::shared_ptr<Work> ProcessGroupGloo::send(std::vector<Tensor>& tensors, int dstRank, int tag) {
  const char* op = "send";
  Tensor t = single_tensor(tensors, op);
  check_collective_tensor(t, op);
  check_peer_rank(dstRank, getRank(), getSize(), op, "destination");
  EMBER_CHECK(tag >= 0, ValueError, op, ": the tag must be non-negative, got ", tag);
  Tensor host = t.is_cuda() ? t.to(kCPU) : t;
  return impl_->post_p2p(op, t, host, true, {dstRank}, tag, [host](int) { (void)host; });
}

std::shared_ptr<Work> ProcessGroupGloo::recv(std::vector<Tensor>& tensors, int srcRank, int tag) {
  const char* op = "recv";
  Tensor t = single_tensor(tensors, op);
  check_collective_tensor(t, op);
  check_peer_rank(srcRank, getRank(), getSize(), op, "source");
  EMBER_CHECK(tag >= 0, ValueError, op, ": the tag must be non-negative, got ", tag);
  auto staged = std::make_shared<Staged>(t);
  return impl_->post_p2p(op, t, staged->host, false, {srcRank}, tag,
                         [staged](int) { staged->write_back(); });
}

std::shared_ptr<Work> ProcessGroupGloo::recvAnysource(std::vector<Tensor>& tensors, int tag) {
  const char* op = "recv";
  Tensor t = single_tensor(tensors, op);
  check_collective_tensor(t, op);
  EMBER_CHECK(getSize() > 1, ValueError, op, ": there is no other rank to receive from");
  EMBER_CHECK(tag >= 0, ValueError, op, ": the tag must be non-negative, got ", tag);
  std::vector<int> sources;
  for (int r = 0; r < getSize(); ++r) {
    if (r != getRank()) sources.push_back(r);
  }
  auto staged = std::make_shared<Staged>(t);
  return impl_->post_p2p(op, t, staged->host, false, sources, tag,
                         [staged](int) { staged->write_back(); });
}

std::shared_ptr<Work> ProcessGroupGloo::barrier(const BarrierOptions& opts) {
  auto timeout = impl_->timeout_of(opts.timeout);
  Impl* impl = impl_.get();
  return impl_->enqueue("barrier", {}, timeout, "barrier()", [impl, timeout](uint32_t tag) {
    gloo::BarrierOptions o(impl->context);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::barrier(o);
  });
}

}  // namespace ember::distributed
