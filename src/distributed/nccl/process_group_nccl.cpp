// ProcessGroupNCCL on real GPUs: one communicator per group on the device current at
// construction, its unique id shared through the store. Every operation is queued on the group's
// own stream after the caller's current stream (so it sees the tensors' producers), and the
// tensors are recorded on that stream for the caching allocator. Work::wait() makes the caller's
// current stream wait for the operation and blocks the host until it is done or the timeout
// passes (then the communicator is aborted so no rank hangs).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "distributed/tensor_checks.h"
#include "ember/cuda.h"
#include "ember/distributed/process_group_nccl.h"
#include "ember/ops.h"

namespace ember::distributed {
namespace {

void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw DistBackendError(
        detail::str_cat("NCCL backend: ", what, " failed: ", cudaGetErrorString(err)));
  }
}

void check_nccl(ncclResult_t r, const char* what, ncclComm_t comm = nullptr) {
  if (r == ncclSuccess) return;
  std::string last = comm ? ncclGetLastError(comm) : "";
  throw DistBackendError(detail::str_cat("NCCL ", what, " failed: ", ncclGetErrorString(r),
                                         last.empty() ? "" : " (", last, last.empty() ? "" : ")"));
}

ncclDataType_t nccl_dtype(ScalarType t, const char* op) {
  switch (t) {
    case kFloat:
      return ncclFloat32;
    case kDouble:
      return ncclFloat64;
    case kHalf:
      return ncclFloat16;
    case kBFloat16:
      return ncclBfloat16;
    case kLong:
      return ncclInt64;
    case kInt:
      return ncclInt32;
    case kChar:
      return ncclInt8;
    case kByte:
    case kBool:
      return ncclUint8;
    default:
      break;
  }
  throw TypeError(detail::str_cat(op, ": the NCCL backend does not support dtype ", to_string(t)));
}

ncclRedOp_t nccl_op(ReduceOp op, ScalarType t) {
  if (t == kBool) {
    // Bools travel as bytes: or = max, and = min.
    return (op == ReduceOp::SUM || op == ReduceOp::MAX) ? ncclMax : ncclMin;
  }
  switch (op) {
    case ReduceOp::SUM:
      return ncclSum;
    case ReduceOp::AVG:
      return ncclAvg;
    case ReduceOp::PRODUCT:
      return ncclProd;
    case ReduceOp::MIN:
      return ncclMin;
    case ReduceOp::MAX:
      return ncclMax;
  }
  return ncclSum;
}

class NCCLWork : public Work {
 public:
  NCCLWork(std::string op, int device, cudaEvent_t done, std::chrono::milliseconds timeout,
           ncclComm_t comm)
      : Work(std::move(op)), device_(device), done_(done), timeout_(timeout), comm_(comm) {}
  ~NCCLWork() override { cudaEventDestroy(done_); }

  bool wait(std::chrono::milliseconds timeout) override {
    if (!is_completed()) {
      try {
        cuda::DeviceGuard guard(device_);
        auto current = static_cast<cudaStream_t>(cuda::current_stream(device_).stream());
        check_cuda(cudaStreamWaitEvent(current, done_, 0), "cudaStreamWaitEvent");
        const auto limit = timeout.count() > 0 ? timeout : timeout_;
        const auto deadline = std::chrono::steady_clock::now() + limit;
        for (;;) {
          cudaError_t q = cudaEventQuery(done_);
          if (q == cudaSuccess) break;
          if (q != cudaErrorNotReady) check_cuda(q, "cudaEventQuery");
          ncclResult_t async_error = ncclSuccess;
          ncclCommGetAsyncError(comm_, &async_error);
          check_nccl(async_error, op_name_.c_str(), comm_);
          if (std::chrono::steady_clock::now() >= deadline) {
            ncclCommAbort(comm_);  // unblocks this rank; the group is unusable afterwards
            throw DistBackendError(detail::str_cat(
                "NCCL ", op_name_, " timed out after ", static_cast<double>(limit.count()) / 1000.0,
                " s (a peer is stuck, dead, or issued a different sequence of collectives); the "
                "communicator was aborted"));
          }
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        finish();
      } catch (...) {
        finish(std::current_exception());
      }
    }
    return Work::wait(std::chrono::milliseconds::zero());
  }

 private:
  int device_;
  cudaEvent_t done_;
  std::chrono::milliseconds timeout_;
  ncclComm_t comm_;
};

}  // namespace

struct ProcessGroupNCCL::Impl {
  Options options;
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;  // from Ember's pool: lives as long as the process
  std::mutex mutex;

  // Queues `launch` on the group's stream after the caller's current stream; the tensors are
  // recorded on the group's stream so their memory is not reused while NCCL still uses it.
  std::shared_ptr<Work> run(const char* op, std::vector<Tensor> tensors,
                            const std::function<void()>& launch) {
    std::lock_guard<std::mutex> lock(mutex);
    cuda::DeviceGuard guard(device);
    auto current = static_cast<cudaStream_t>(cuda::current_stream(device).stream());
    cudaEvent_t ready, done;
    check_cuda(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventRecord(ready, current), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(stream, ready, 0), "cudaStreamWaitEvent");
    cudaEventDestroy(ready);
    launch();
    check_cuda(cudaEventRecord(done, stream), "cudaEventRecord");
    StreamRef ref{Device(kCUDA, static_cast<DeviceIndex>(device)), stream,
                  static_cast<int64_t>(reinterpret_cast<uintptr_t>(stream))};
    for (const Tensor& t : tensors) t.record_stream(ref);
    auto work = std::make_shared<NCCLWork>(op, device, done, options.timeout, comm);
    work->set_result(std::move(tensors));
    return work;
  }

  void check_on_device(const Tensor& t, const char* op) {
    check_collective_tensor(t, op);
    EMBER_CHECK(t.is_cuda() && t.device().index() == device, ValueError, op,
                ": the NCCL group of this process works on cuda:", device, ", got a tensor on ",
                t.device(), " (one process per GPU: set the device before init_process_group)");
  }
};

bool is_nccl_available() {
  return cuda::is_available() && !cuda::is_simulated();
}

ProcessGroupNCCL::ProcessGroupNCCL(const std::shared_ptr<Store>& store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(cuda::is_available(), NotImplementedError, "the NCCL backend needs a GPU (",
              cuda::unavailable_reason(), "): use the \"gloo\" backend for CPU tensors");
  EMBER_CHECK(!cuda::is_simulated(), NotImplementedError,
              "the NCCL backend cannot run on the CUDA simulator: use the \"gloo\" backend");
  EMBER_CHECK(store != nullptr, ValueError, "ProcessGroupNCCL: the store is null");
  impl_->options = options;
  impl_->device = cuda::current_device();
  cuda::DeviceGuard guard(impl_->device);
  ncclUniqueId id;
  if (rank == 0) {
    check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    store->set("nccl_unique_id",
               std::vector<uint8_t>(reinterpret_cast<uint8_t*>(&id),
                                    reinterpret_cast<uint8_t*>(&id) + sizeof(id)));
  } else {
    auto bytes = store->get("nccl_unique_id");
    EMBER_CHECK(bytes.size() == sizeof(id), distributed::DistStoreError,
                "ProcessGroupNCCL: the NCCL id in the store has ", bytes.size(),
                " bytes, expected ", sizeof(id));
    std::memcpy(&id, bytes.data(), sizeof(id));
  }
  check_nccl(ncclCommInitRank(&impl_->comm, size, id, rank), "ncclCommInitRank");
  impl_->stream = static_cast<cudaStream_t>(cuda::getStreamFromPool(false, impl_->device).stream());
}

ProcessGroupNCCL::~ProcessGroupNCCL() {
  shutdown();
}

void ProcessGroupNCCL::shutdown() {
  if (impl_ && impl_->comm) {
    cudaStreamSynchronize(impl_->stream);
    ncclCommDestroy(impl_->comm);
    impl_->comm = nullptr;
  }
}

std::chrono::milliseconds ProcessGroupNCCL::getTimeout() const {
  return impl_->options.timeout;
}

std::shared_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<Tensor>& tensors,
                                                  const AllreduceOptions& opts) {
  const char* op = "all_reduce";
  Tensor t = single_tensor(tensors, op);
  impl_->check_on_device(t, op);
  check_reduce_dtype(t, opts.reduceOp, op);
  auto dt = nccl_dtype(t.dtype(), op);
  auto red = nccl_op(opts.reduceOp, t.dtype());
  Impl* impl = impl_.get();
  return impl_->run(op, {t}, [&] {
    check_nccl(ncclAllReduce(t.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel()), dt, red,
                             impl->comm, impl->stream),
               op, impl->comm);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<Tensor>& tensors,
                                                  const BroadcastOptions& opts) {
  const char* op = "broadcast";
  Tensor t = single_tensor(tensors, op);
  impl_->check_on_device(t, op);
  EMBER_CHECK(opts.rootRank >= 0 && opts.rootRank < getSize(), ValueError, op, ": source rank ",
              opts.rootRank, " is out of range for a group of size ", getSize());
  auto dt = nccl_dtype(t.dtype(), op);
  Impl* impl = impl_.get();
  return impl_->run(op, {t}, [&] {
    check_nccl(ncclBroadcast(t.data_ptr(), t.data_ptr(), static_cast<size_t>(t.numel()), dt,
                             static_cast<int>(opts.rootRank), impl->comm, impl->stream),
               op, impl->comm);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::_allgather_base(Tensor& output, Tensor& input,
                                                        const AllgatherOptions&) {
  const char* op = "all_gather_into_tensor";
  impl_->check_on_device(input, op);
  impl_->check_on_device(output, op);
  EMBER_CHECK(output.dtype() == input.dtype() && output.numel() == input.numel() * getSize(),
              ValueError, op, ": the output must hold world_size (", getSize(),
              ") times the input's elements of its dtype");
  auto dt = nccl_dtype(input.dtype(), op);
  Impl* impl = impl_.get();
  return impl_->run(op, {input, output}, [&] {
    check_nccl(ncclAllGather(input.data_ptr(), output.data_ptr(),
                             static_cast<size_t>(input.numel()), dt, impl->comm, impl->stream),
               op, impl->comm);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::allgather(std::vector<std::vector<Tensor>>& outputs,
                                                  std::vector<Tensor>& inputs,
                                                  const AllgatherOptions& opts) {
  const char* op = "all_gather";
  Tensor input = single_tensor(inputs, op);
  impl_->check_on_device(input, op);
  EMBER_CHECK(outputs.size() == 1 && outputs[0].size() == static_cast<size_t>(getSize()),
              ValueError, op, ": expected one output list of world_size (", getSize(), ") tensors");
  for (auto& o : outputs[0]) check_same_layout(o, input, op, "output tensor");
  Tensor flat = empty({getSize() * input.numel()}, input.options());
  auto work = _allgather_base(flat, input, opts);
  // The blocks are copied out on the group's stream, after the gather.
  cuda::DeviceGuard guard(impl_->device);
  const size_t bytes = input.nbytes();
  for (int r = 0; r < getSize(); ++r) {
    check_cuda(
        cudaMemcpyAsync(outputs[0][r].data_ptr(), static_cast<char*>(flat.data_ptr()) + r * bytes,
                        bytes, cudaMemcpyDeviceToDevice, impl_->stream),
        "cudaMemcpyAsync");
  }
  std::vector<Tensor> everything = outputs[0];
  everything.push_back(flat);
  return impl_->run(op, everything, [] {});
}

std::shared_ptr<Work> ProcessGroupNCCL::_reduce_scatter_base(Tensor& output, Tensor& input,
                                                             const ReduceScatterOptions& opts) {
  const char* op = "reduce_scatter_tensor";
  impl_->check_on_device(input, op);
  impl_->check_on_device(output, op);
  EMBER_CHECK(output.dtype() == input.dtype() && input.numel() == output.numel() * getSize(),
              ValueError, op, ": the input must hold world_size (", getSize(),
              ") times the output's elements of its dtype");
  check_reduce_dtype(input, opts.reduceOp, op);
  auto dt = nccl_dtype(input.dtype(), op);
  auto red = nccl_op(opts.reduceOp, input.dtype());
  Impl* impl = impl_.get();
  return impl_->run(op, {input, output}, [&] {
    check_nccl(
        ncclReduceScatter(input.data_ptr(), output.data_ptr(), static_cast<size_t>(output.numel()),
                          dt, red, impl->comm, impl->stream),
        op, impl->comm);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::reduce_scatter(std::vector<Tensor>& outputs,
                                                       std::vector<std::vector<Tensor>>& inputs,
                                                       const ReduceScatterOptions& opts) {
  const char* op = "reduce_scatter";
  Tensor output = single_tensor(outputs, op);
  EMBER_CHECK(inputs.size() == 1 && inputs[0].size() == static_cast<size_t>(getSize()), ValueError,
              op, ": expected one input list of world_size (", getSize(), ") tensors");
  for (auto& in : inputs[0]) check_same_layout(in, output, op, "input tensor");
  std::vector<Tensor> parts;
  for (auto& in : inputs[0]) parts.push_back(in.reshape({-1}));
  Tensor flat = cat(parts, 0);  // on the current stream, before the collective
  return _reduce_scatter_base(output, flat, opts);
}

std::shared_ptr<Work> ProcessGroupNCCL::send(std::vector<Tensor>& tensors, int dstRank, int) {
  const char* op = "send";
  Tensor t = single_tensor(tensors, op);
  impl_->check_on_device(t, op);
  check_peer_rank(dstRank, getRank(), getSize(), op, "destination");
  auto dt = nccl_dtype(t.dtype(), op);
  Impl* impl = impl_.get();
  return impl_->run(op, {t}, [&] {
    check_nccl(ncclSend(t.data_ptr(), static_cast<size_t>(t.numel()), dt, dstRank, impl->comm,
                        impl->stream),
               op, impl->comm);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::recv(std::vector<Tensor>& tensors, int srcRank, int) {
  const char* op = "recv";
  Tensor t = single_tensor(tensors, op);
  impl_->check_on_device(t, op);
  check_peer_rank(srcRank, getRank(), getSize(), op, "source");
  auto dt = nccl_dtype(t.dtype(), op);
  Impl* impl = impl_.get();
  return impl_->run(op, {t}, [&] {
    check_nccl(ncclRecv(t.data_ptr(), static_cast<size_t>(t.numel()), dt, srcRank, impl->comm,
                        impl->stream),
               op, impl->comm);
  });
}

std::shared_ptr<Work> ProcessGroupNCCL::recvAnysource(std::vector<Tensor>&, int) {
  throw NotImplementedError(
      "recv from any source: NCCL only receives from a named rank (pass src), as in PyTorch");
}

std::shared_ptr<Work> ProcessGroupNCCL::barrier(const BarrierOptions& opts) {
  // As PyTorch does: an all-reduce of one element on the group's device, waited for.
  Tensor one =
      ones({1}, TensorOptions().device(Device(kCUDA, static_cast<DeviceIndex>(impl_->device))));
  std::vector<Tensor> ts{one};
  AllreduceOptions o;
  o.timeout = opts.timeout;
  auto work = allreduce(ts, o);
  work->wait(opts.timeout);
  return work;
}

}  // namespace ember::distributed
