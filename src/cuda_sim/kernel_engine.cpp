// The kernel engine: runs a launch's blocks one after another on the stream's worker. Every GPU
// thread of a block is a fiber (Boost.Context), so __syncthreads and warp collectives really
// suspend a thread until the others arrive: a warp's lanes exchange values in lockstep, a
// barrier that not every thread reaches is reported as a deadlock. A thread that never waits
// runs start to finish on a pooled stack, so kernels without barriers cost little.
#include <sys/mman.h>

#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cuda_sim_device.h"
#include "sim_state.h"

namespace cuda_sim {
namespace {

namespace ctx = boost::context::detail;

constexpr size_t kStackSize = 256 * 1024;
constexpr int kWarp = 32;

enum class State { Ready, AtBarrier, AtWarp, Done };

struct ThreadRec {
  Builtins b{};
  int linear = 0;
  State state = State::Ready;
  ctx::fcontext_t fiber = nullptr;  // where to resume it (null: not started)
  void* stack = nullptr;
  // The warp collective it waits in, and its result.
  WarpOp op = WarpOp::Sync;
  unsigned mask = 0;
  uint64_t value = 0, result = 0;
  int param = 0, width = 32;
};

// Stacks are reused across threads, blocks and launches; each has a guard page below it.
class StackPool {
 public:
  ~StackPool() {
    for (void* s : free_) munmap(static_cast<char*>(s) - kPageGuard, kStackSize + kPageGuard);
  }
  void* take() {
    if (!free_.empty()) {
      void* s = free_.back();
      free_.pop_back();
      return s;
    }
    void* p = mmap(nullptr, kStackSize + kPageGuard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mprotect(p, kPageGuard, PROT_NONE);
    return static_cast<char*>(p) + kPageGuard;
  }
  void give(void* s) { free_.push_back(s); }

 private:
  static constexpr size_t kPageGuard = 4096;
  std::vector<void*> free_;
};

// Per worker: the running block and the scheduler context to return to.
struct WorkerState {
  StackPool stacks;
  std::vector<ThreadRec> threads;
  ThreadRec* current = nullptr;
  ctx::fcontext_t scheduler = nullptr;
  const KernelLaunch* launch = nullptr;
  std::vector<unsigned char> dynamic_shared;
  std::string fault;  // set by a thread that hit an error (an exception in the kernel)
  cudaError_t fault_code = cudaErrorLaunchFailure;
};
thread_local WorkerState* tls_worker = nullptr;

// Back to the scheduler; returns when the scheduler resumes this thread.
void yield_to_scheduler() {
  WorkerState& w = *tls_worker;
  ctx::transfer_t t = ctx::jump_fcontext(w.scheduler, nullptr);
  tls_worker->scheduler = t.fctx;
}

void fiber_entry(ctx::transfer_t t) {
  WorkerState& w = *tls_worker;
  w.scheduler = t.fctx;
  ThreadRec* self = static_cast<ThreadRec*>(t.data);
  try {
    w.launch->body();
  } catch (const std::exception& e) {
    if (w.fault.empty()) w.fault = std::string("a GPU thread threw: ") + e.what();
  } catch (...) {
    if (w.fault.empty()) w.fault = "a GPU thread threw an unknown exception";
  }
  self->state = State::Done;
  ctx::jump_fcontext(tls_worker->scheduler, nullptr);
}

void resume(WorkerState& w, ThreadRec& t) {
  w.current = &t;
  if (!t.fiber) {
    t.stack = w.stacks.take();
    t.fiber = ctx::make_fcontext(static_cast<char*>(t.stack) + kStackSize, kStackSize, fiber_entry);
  }
  ctx::transfer_t r = ctx::jump_fcontext(t.fiber, &t);
  t.fiber = r.fctx;
  w.current = nullptr;
  if (t.state == State::Done) {
    w.stacks.give(t.stack);
    t.stack = nullptr;
    t.fiber = nullptr;
  }
}

int source_lane(const ThreadRec& t, int lane) {
  const int width = t.width > 0 && t.width <= kWarp ? t.width : kWarp;
  const int base = lane - lane % width;
  switch (t.op) {
    case WarpOp::ShflIdx:
      return base + ((t.param % width) + width) % width;
    case WarpOp::ShflUp:
      return lane - t.param >= base ? lane - t.param : lane;
    case WarpOp::ShflDown:
      return lane + t.param < base + width ? lane + t.param : lane;
    case WarpOp::ShflXor: {
      const int src = lane ^ t.param;
      return src >= base && src < base + width ? src : lane;
    }
    default:
      return lane;
  }
}

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::Sync:
      return "__syncwarp";
    case WarpOp::ShflIdx:
      return "__shfl_sync";
    case WarpOp::ShflUp:
      return "__shfl_up_sync";
    case WarpOp::ShflDown:
      return "__shfl_down_sync";
    case WarpOp::ShflXor:
      return "__shfl_xor_sync";
    case WarpOp::Ballot:
      return "__ballot_sync";
    case WarpOp::Any:
      return "__any_sync";
    case WarpOp::All:
      return "__all_sync";
  }
  return "?";
}

// Releases the warp starting at `first` if every lane its collective names has arrived.
// Returns true when released; sets `error` when the collective can never complete.
bool try_release_warp(std::vector<ThreadRec>& th, size_t first, std::string& error) {
  const size_t end = std::min(th.size(), first + kWarp);
  const ThreadRec* leader = nullptr;
  for (size_t i = first; i < end; ++i) {
    if (th[i].state == State::AtWarp) {
      leader = &th[i];
      break;
    }
  }
  if (!leader) return false;
  const unsigned mask = leader->mask;
  for (int lane = 0; lane < kWarp; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    const size_t i = first + static_cast<size_t>(lane);
    if (i >= end) {
      error = std::string(op_name(leader->op)) + " names lane " + std::to_string(lane) +
              " in its mask, but the block has no such thread (blockDim " +
              std::to_string(th.size()) + ")";
      return false;
    }
    if (th[i].state == State::Done) {
      error = std::string(op_name(leader->op)) + " names lane " + std::to_string(lane) +
              " (thread " + std::to_string(i) + ") in its mask, but that thread has exited";
      return false;
    }
    if (th[i].state != State::AtWarp) return false;  // still waiting at a block barrier
    if (th[i].op != leader->op || th[i].mask != mask) {
      error = std::string("lanes of warp ") + std::to_string(first / kWarp) +
              " wait in different warp collectives (" + op_name(leader->op) + " and " +
              op_name(th[i].op) + ", or different masks)";
      return false;
    }
  }
  uint64_t ballot = 0;
  for (int lane = 0; lane < kWarp; ++lane) {
    const size_t i = first + static_cast<size_t>(lane);
    if ((mask >> lane & 1u) && th[i].value) ballot |= uint64_t(1) << lane;
  }
  for (int lane = 0; lane < kWarp; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    ThreadRec& t = th[first + static_cast<size_t>(lane)];
    switch (t.op) {
      case WarpOp::Sync:
        t.result = 0;
        break;
      case WarpOp::Ballot:
        t.result = ballot;
        break;
      case WarpOp::Any:
        t.result = ballot != 0;
        break;
      case WarpOp::All:
        t.result = ballot == mask;
        break;
      default: {
        const int src = source_lane(t, lane);
        // A lane outside the mask gives an undefined value on a GPU; here, the caller's own.
        t.result = (mask >> src & 1u) ? th[first + static_cast<size_t>(src)].value : t.value;
      }
    }
    t.state = State::Ready;
  }
  return true;
}

// Runs one block to completion; false with `error` on a deadlock or a broken collective.
bool run_block(WorkerState& w, std::string& error) {
  std::vector<ThreadRec>& th = w.threads;
  for (;;) {
    for (ThreadRec& t : th) {
      if (t.state == State::Ready) resume(w, t);
      if (!w.fault.empty()) {
        error = w.fault;
        return false;
      }
    }
    bool released = false, live = false;
    for (size_t first = 0; first < th.size(); first += kWarp) {
      released |= try_release_warp(th, first, error);
      if (!error.empty()) return false;
    }
    if (released) continue;
    size_t at_barrier = 0, waiting_warp = 0;
    for (ThreadRec& t : th) {
      live |= t.state != State::Done;
      at_barrier += t.state == State::AtBarrier;
      waiting_warp += t.state == State::AtWarp;
    }
    if (!live) return true;
    if (waiting_warp == 0) {  // every live thread is at __syncthreads (exited ones don't count)
      for (ThreadRec& t : th) {
        if (t.state == State::AtBarrier) t.state = State::Ready;
      }
      continue;
    }
    error = "deadlock: " + std::to_string(at_barrier) + " thread(s) wait in __syncthreads while " +
            std::to_string(waiting_warp) +
            " wait in a warp collective that cannot complete (divergent barrier)";
    return false;
  }
}

// Abandons the fibers of a failed block (their stacks are reused; nothing is unwound).
void abandon_block(WorkerState& w) {
  for (ThreadRec& t : w.threads) {
    if (t.stack) w.stacks.give(t.stack);
    t.stack = nullptr;
    t.fiber = nullptr;
  }
}

}  // namespace

const Builtins& builtins() {
  return tls_worker->current->b;
}

void syncthreads() {
  ThreadRec& t = *tls_worker->current;
  t.state = State::AtBarrier;
  yield_to_scheduler();
}

uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int param, int width) {
  ThreadRec& t = *tls_worker->current;
  const int lane = t.linear % kWarp;
  if (!(mask >> lane & 1u)) {
    tls_worker->fault = std::string(op_name(op)) + " called by lane " + std::to_string(lane) +
                        " which is not in its own mask";
  }
  t.op = op;
  t.mask = mask;
  t.value = value;
  t.param = param;
  t.width = width;
  t.state = State::AtWarp;
  yield_to_scheduler();
  return tls_worker->current->result;
}

void device_assert_fail(const char* what, const char* file, int line) {
  WorkerState& w = *tls_worker;
  ThreadRec& t = *w.current;
  if (w.fault.empty()) {
    const uint3 b = t.b.block_idx, th = t.b.thread_idx;
    w.fault = "device-side assert triggered: " + std::string(what) + " (" + file + ":" +
              std::to_string(line) + ", block (" + std::to_string(b.x) + "," + std::to_string(b.y) +
              "," + std::to_string(b.z) + ") thread (" + std::to_string(th.x) + "," +
              std::to_string(th.y) + "," + std::to_string(th.z) + "))";
    w.fault_code = cudaErrorAssert;
  }
  t.state = State::Done;  // the thread ends here; the scheduler abandons the block
  ctx::jump_fcontext(w.scheduler, nullptr);
  __builtin_unreachable();
}

void* dynamic_shared_memory() {
  return tls_worker->dynamic_shared.data();
}

bool run_kernel(const KernelLaunch& k, int device, std::string* report, cudaError_t* code) {
  thread_local WorkerState state;
  WorkerState& w = state;
  tls_worker = &w;
  w.launch = &k;
  w.fault.clear();
  w.fault_code = cudaErrorLaunchFailure;
  w.dynamic_shared.assign(k.shared_bytes, kPoisonByte);
  const unsigned nthreads = k.block.x * k.block.y * k.block.z;
  w.threads.assign(nthreads, ThreadRec{});
  for (unsigned bz = 0; bz < k.grid.z; ++bz) {
    for (unsigned by = 0; by < k.grid.y; ++by) {
      for (unsigned bx = 0; bx < k.grid.x; ++bx) {
        for (unsigned i = 0; i < nthreads; ++i) {
          ThreadRec& t = w.threads[i];
          t = ThreadRec{};
          t.linear = static_cast<int>(i);
          t.b.thread_idx =
              uint3{i % k.block.x, (i / k.block.x) % k.block.y, i / (k.block.x * k.block.y)};
          t.b.block_idx = uint3{bx, by, bz};
          t.b.block_dim = k.block;
          t.b.grid_dim = k.grid;
        }
        std::string error;
        if (!run_block(w, error)) {
          abandon_block(w);
          *code = w.fault_code;
          *report = "kernel '" + k.name + "' on cuda:" + std::to_string(device) +
                    " failed in block (" + std::to_string(bx) + "," + std::to_string(by) + "," +
                    std::to_string(bz) + "): " + error;
          tls_worker = nullptr;
          return false;
        }
      }
    }
  }
  tls_worker = nullptr;
  return true;
}

namespace {

std::atomic<uint64_t> g_kernels_completed{0};

cudaError_t check_config(const KernelLaunch& k, Device& d, std::string& why) {
  const dim3 g = k.grid, b = k.block;
  const uint64_t threads = uint64_t(b.x) * b.y * b.z;
  if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0) {
    why = "a grid or block dimension is 0";
  } else if (threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64) {
    why = "block (" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) +
          ") exceeds 1024 threads or (1024, 1024, 64)";
  } else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) {
    why = "grid (" + std::to_string(g.x) + "," + std::to_string(g.y) + "," + std::to_string(g.z) +
          ") exceeds (2^31-1, 65535, 65535)";
  }
  // As CUDA 13 on an H100 answered these launches (KernelLaunch::library_kernel).
  if (!why.empty()) return k.library_kernel ? cudaErrorInvalidConfiguration : cudaErrorInvalidValue;
  size_t limit = 48 * 1024;
  {
    std::lock_guard<std::mutex> lock(d.m);
    if (auto it = d.max_dynamic_shared.find(k.func); it != d.max_dynamic_shared.end())
      limit = static_cast<size_t>(it->second);
  }
  if (k.shared_bytes > limit) {
    why =
        std::to_string(k.shared_bytes) + " bytes of dynamic shared memory exceed the " +
        std::to_string(limit) +
        "-byte limit (cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) raises it)";
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

}  // namespace

uint64_t kernels_completed() {
  return g_kernels_completed.load();
}

cudaError_t launch(KernelLaunch k) {
  const int dev = current_device_index();
  Device* d = device(dev);
  if (!d) return fail(cudaErrorNoDevice);
  Stream* s = resolve_stream(k.stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = sticky_error(dev)) return fail(e);
  if (s->device != dev) {
    std::fprintf(stderr,
                 "ember cuda-sim: kernel '%s' launched on a stream of cuda:%d while cuda:%d is "
                 "current (CUDA refuses: invalid resource handle)\n",
                 k.name.c_str(), s->device, dev);
    return fail(cudaErrorInvalidResourceHandle);
  }
  std::string why;
  if (cudaError_t e = check_config(k, *d, why)) {
    std::fprintf(stderr, "ember cuda-sim: kernel '%s' not launched: %s\n", k.name.c_str(),
                 why.c_str());
    return fail(e);
  }
  // Pointer arguments must be live memory of this device (or pinned host memory).
  for (size_t i = 0; i < k.pointers.size(); ++i) {
    const void* p = k.pointers[i];
    if (!p) continue;
    const PointerInfo info = classify(p);
    const bool ok = info.kind == MemoryKind::Pinned ||
                    (info.kind == MemoryKind::DeviceLive && info.device == dev);
    if (!ok) {
      set_sticky(dev, cudaErrorIllegalAddress,
                 "kernel '" + k.name + "' launched on cuda:" + std::to_string(dev) +
                     " was given pointer " + std::to_string(i) + " (" + describe_pointer(p) +
                     "); a GPU would fault on it or read the wrong device's memory");
      return fail(cudaErrorIllegalAddress);
    }
  }
  auto shared = std::make_shared<KernelLaunch>(std::move(k));
  s->enqueue(Task{[shared, dev] {
                    std::string report;
                    cudaError_t code = cudaErrorLaunchFailure;
                    if (!run_kernel(*shared, dev, &report, &code)) {
                      set_sticky(dev, code, report);
                    } else {
                      g_kernels_completed.fetch_add(1, std::memory_order_relaxed);
                    }
                  },
                  {dev},
                  shared->name.c_str()});
  return cudaSuccess;
}

}  // namespace cuda_sim
