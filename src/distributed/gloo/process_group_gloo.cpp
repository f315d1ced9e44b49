// ProcessGroupGloo: Gloo's collectives over its TCP transport. Collectives run in issue order on
// one worker thread per group (the caller goes on, e.g. with backward); send/recv go straight to
// Gloo's unbound buffers and complete in Work::wait, as in PyTorch's Gloo backend.
//
// Mismatched collectives (one rank calls all_reduce while another calls barrier, or all_reduce
// with other sizes or dtypes) must fail on every rank, never reach Gloo inconsistently: Gloo
// checks the length of what arrives against the posted buffer on its own IO thread, where a
// failed GLOO_ENFORCE (gloo::EnforceNotMet) is uncaught and ends the process (std::terminate).
// So each collective's Gloo tag is a hash of its sequence number and its signature (kind, dtype,
// element count, reduction, root): calls that differ use different slots and never exchange a
// byte. A rank blocked in a collective for kMismatchProbeAfter then publishes that signature in
// the store; the first rank to find a different one there names both calls under a group-wide
// key and fails the group's connections, which wakes every rank's blocked collective with the
// same explanation.
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

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "distributed/failure_report.h"
#include "distributed/gloo/gloo_store_adapter.h"
#include "distributed/reduce_functions.h"
#include "distributed/tensor_checks.h"
#include "distributed/work_queue.h"
#include "ember/ops.h"

namespace ember::distributed {
namespace {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) for the C++ type of `dtype`.
template <typename F>
void dispatch_dtype(ScalarType dtype, const char* op, F&& f) {
  switch (dtype) {
    case kFloat:
      return f(TypeTag<float>{});
    case kDouble:
      return f(TypeTag<double>{});
    case kHalf:
      return f(TypeTag<Half>{});
    case kBFloat16:
      return f(TypeTag<BFloat16>{});
    case kLong:
      return f(TypeTag<int64_t>{});
    case kInt:
      return f(TypeTag<int32_t>{});
    case kShort:
      return f(TypeTag<int16_t>{});
    case kChar:
      return f(TypeTag<int8_t>{});
    case kByte:
      return f(TypeTag<uint8_t>{});
    case kBool:
      return f(TypeTag<bool>{});
    default:
      break;
  }
  throw TypeError(
      detail::str_cat(op, ": the Gloo backend does not support dtype ", to_string(dtype)));
}

template <typename T>
gloo::AllreduceOptions::Func combine3_for(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return &reduce::combine3<T, ReduceOp::SUM>;
    case ReduceOp::PRODUCT:
      return &reduce::combine3<T, ReduceOp::PRODUCT>;
    case ReduceOp::MIN:
      return &reduce::combine3<T, ReduceOp::MIN>;
    case ReduceOp::MAX:
      return &reduce::combine3<T, ReduceOp::MAX>;
  }
  return nullptr;
}

template <typename T>
const gloo::ReductionFunction<T>* reduction_for(ReduceOp op) {
  static const gloo::ReductionFunction<T> sum(gloo::SUM, &reduce::combine2<T, ReduceOp::SUM>);
  static const gloo::ReductionFunction<T> prod(gloo::PRODUCT,
                                               &reduce::combine2<T, ReduceOp::PRODUCT>);
  static const gloo::ReductionFunction<T> min(gloo::MIN, &reduce::combine2<T, ReduceOp::MIN>);
  static const gloo::ReductionFunction<T> max(gloo::MAX, &reduce::combine2<T, ReduceOp::MAX>);
  switch (op) {
    case ReduceOp::PRODUCT:
      return &prod;
    case ReduceOp::MIN:
      return &min;
    case ReduceOp::MAX:
      return &max;
    default:
      return &sum;
  }
}

// A CUDA tensor's host copy (Gloo reads and writes host memory); CPU tensors are used as they are.
struct Staged {
  Tensor user;
  Tensor host;
  explicit Staged(const Tensor& t) : user(t), host(t.is_cuda() ? t.to(kCPU) : t) {}
  Staged(const Tensor& t, Tensor host_copy) : user(t), host(std::move(host_copy)) {}
  void write_back() {
    if (!user.is_same(host)) user.copy_(host);
  }
};

// The host tensors of one collective, taken when it is issued. Each way of taking them first
// checks that Gloo has the dtype (TypeError naming `op` otherwise).
struct Staging {
  std::shared_ptr<Staged> input, output;
  bool write_back = true;  // whether the output's host copy goes back to the user's tensor

  // One tensor that Gloo reads and writes (all_reduce, broadcast).
  static Staging in_place(const Tensor& t, const char* op) {
    dispatch_dtype(t.dtype(), op, [](auto) {});
    auto staged = std::make_shared<Staged>(t);
    return {staged, staged};
  }
  // An input that Gloo reads and an output that it writes (all_gather).
  static Staging between(const Tensor& input, const Tensor& output, const char* op) {
    dispatch_dtype(input.dtype(), op, [](auto) {});
    auto in = std::make_shared<Staged>(input);
    return {in, std::make_shared<Staged>(output)};
  }
  // A private host copy of the input in `dtype`, for an algorithm that works in place on its
  // input (reduce_scatter), and an output.
  static Staging private_input(const Tensor& input, ScalarType dtype, const Tensor& output,
                               const char* op) {
    dispatch_dtype(input.dtype(), op, [](auto) {});
    auto in = std::make_shared<Staged>(
        input, input.to(kCPU, dtype, /*non_blocking=*/false, /*copy=*/true));
    return {in, std::make_shared<Staged>(output)};
  }
};

// Gloo's view of a host tensor: its elements as T*, and how many there are.
template <typename T>
T* elements(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}
size_t element_count(const Tensor& t) {
  return static_cast<size_t>(t.numel());
}

// One collective on the worker thread: its Gloo tag and timeout, and its host tensors (the same
// one for in-place collectives).
struct GlooCall {
  uint32_t tag;
  std::chrono::milliseconds timeout;
  Tensor& input;
  Tensor& output;
  // Gives Gloo's options for this call its tag and timeout.
  template <typename GlooOptions>
  void configure(GlooOptions& o) const {
    o.setTag(tag);
    o.setTimeout(timeout);
  }
};

bool is_timeout_message(const std::string& m) {
  return m.find("Timed out") != std::string::npos || m.find("timed out") != std::string::npos;
}

// How long a collective may block before its rank publishes what it is waiting in, so that a
// mismatch with another rank's call is found (a correct collective that slow costs one store
// request).
constexpr auto kMismatchProbeAfter = std::chrono::seconds(1);
// Store keys (under the group's store prefix): the first signature published for collective #n,
// and the first mismatch found.
const char* const kSignatureKeyPrefix = "ember/collective/";
const char* const kMismatchKey = "ember/collective_mismatch";

// "float32", as in the messages of PyTorch (torch.float32 without its module).
std::string dtype_name(ScalarType t) {
  std::string name = python_name(t);
  return name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
}

// What a collective is, for matching it with the other ranks' calls: e.g.
// "all_reduce(float32, 4 elements, SUM)".
std::string signature_of(const char* op, const Tensor& t, const std::string& extra = {}) {
  return detail::str_cat(op, "(", dtype_name(t.dtype()), ", ", t.numel(),
                         t.numel() == 1 ? " element" : " elements", extra.empty() ? "" : ", ",
                         extra, ")");
}

// The Gloo tag of collective #seq: FNV-1a over the sequence number and the signature, folded to
// the 32 bits Gloo takes. Calls that differ in any part of their signature get different slots
// (a collision needs 2^32 to 1 odds).
uint32_t collective_tag(uint64_t seq, const std::string& signature) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(seq >> (8 * i)));
  for (char c : signature) mix(static_cast<unsigned char>(c));
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The Gloo slot of a send or recv of `nbytes` bytes with the user's `tag`. The byte count is part
// of it, so that a send and a recv of different sizes never pair up (Gloo would abort the
// receiving process, on its IO thread, when more bytes arrive than the recv posted): byte counts
// below 8 MiB exactly, larger ones as a 23-bit hash with the top bit set. The top byte 0x80 keeps
// these slots apart from the collectives' (Gloo's Slot::build puts prefixes 1-8 there).
uint64_t p2p_slot(int tag, size_t nbytes) {
  uint64_t size_bits = nbytes;
  if (nbytes >= (size_t(1) << 23)) {
    uint64_t h = nbytes * 0x9E3779B97F4A7C15ull;
    size_bits = ((h >> 40) & 0x7FFFFF) | 0x800000;
  }
  return (uint64_t{0x80} << 56) | (size_bits << 32) | static_cast<uint32_t>(tag);
}

// The Work of a send or recv: Gloo moves the bytes in its own threads; wait() waits for them.
class UnboundBufferWork : public Work {
 public:
  using Complete = std::function<void(int source_rank)>;
  using Explain = std::function<std::string(const std::string& gloo_message, bool timed_out,
                                            std::chrono::milliseconds timeout)>;
  UnboundBufferWork(std::string op, std::unique_ptr<gloo::transport::UnboundBuffer> buffer,
                    bool is_send, std::chrono::milliseconds timeout, Complete on_complete,
                    Explain explain)
      : Work(std::move(op)),
        buffer_(std::move(buffer)),
        is_send_(is_send),
        timeout_(timeout),
        on_complete_(std::move(on_complete)),
        explain_(std::move(explain)) {}

  bool wait(std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> waiting(wait_mutex_);
    if (!is_completed()) {
      int source = -1;
      auto t = timeout.count() > 0 ? timeout : timeout_;
      try {
        if (is_send_) {
          buffer_->waitSend(t);
        } else {
          buffer_->waitRecv(&source, t);
        }
        on_complete_(source);
        finish(nullptr, source);
      } catch (const Error&) {
        finish(std::current_exception());
      } catch (const std::exception& e) {
        // gloo::Exception, gloo::EnforceNotMet and whatever else Gloo throws.
        std::string m = e.what();
        finish(std::make_exception_ptr(DistBackendError(explain_(m, is_timeout_message(m), t))));
      } catch (...) {
        finish(std::current_exception());
      }
    }
    return Work::wait(std::chrono::milliseconds::zero());
  }

 private:
  std::mutex wait_mutex_;
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer_;
  bool is_send_;
  std::chrono::milliseconds timeout_;
  Complete on_complete_;
  Explain explain_;
};

}  // namespace

struct ProcessGroupGloo::Impl {
  std::shared_ptr<Store> store;
  int rank = 0;
  int size = 1;
  Options options;
  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::mutex issue_mutex;
  uint64_t next_seq = 0;  // collectives issued (each one's number, in issue order)
  std::mutex broken_mutex;
  std::string broken_reason;  // set once a collective failed: the mesh is unusable after that
  std::unique_ptr<WorkQueue> queue;

  // The collective on the worker thread, watched by `watchdog` for a mismatch.
  std::mutex watch_mutex;
  std::condition_variable watch_cv;
  bool watch_stop = false;
  bool op_running = false;
  bool op_published = false;
  uint64_t op_seq = 0;
  std::string op_signature;
  std::chrono::steady_clock::time_point op_started;
  std::string mismatch;  // the mismatch found, once there is one
  std::thread watchdog;

  void begin_op(uint64_t seq, const std::string& signature) {
    std::lock_guard<std::mutex> lock(watch_mutex);
    op_running = true;
    op_published = false;
    op_seq = seq;
    op_signature = signature;
    op_started = std::chrono::steady_clock::now();
  }

  void end_op() {
    std::lock_guard<std::mutex> lock(watch_mutex);
    op_running = false;
  }

  void watch() {
    std::unique_lock<std::mutex> lock(watch_mutex);
    while (!watch_stop) {
      if (op_running && !op_published) {
        auto due = op_started + kMismatchProbeAfter;
        if (std::chrono::steady_clock::now() < due) {
          watch_cv.wait_until(lock, due);
          continue;
        }
        op_published = true;
        uint64_t seq = op_seq;
        std::string signature = op_signature;
        lock.unlock();
        std::string found = publish_signature(seq, signature);
        if (!found.empty()) abort_mismatch(found);
        lock.lock();
      } else {
        watch_cv.wait_for(lock, std::chrono::milliseconds(250));
      }
    }
  }

  void stop_watchdog() {
    {
      std::lock_guard<std::mutex> lock(watch_mutex);
      watch_stop = true;
    }
    watch_cv.notify_all();
    if (watchdog.joinable()) watchdog.join();
  }

  // Publishes this rank's signature of collective #seq (the first one published stays) and
  // compares: returns the mismatch (recorded under kMismatchKey, where the first one found
  // stays), or "" when the calls agree or the store cannot be asked.
  std::string publish_signature(uint64_t seq, const std::string& signature) {
    try {
      std::string mine = detail::str_cat(rank, "\n", signature);
      auto first = store->compare_set(kSignatureKeyPrefix + std::to_string(seq), {},
                                      std::vector<uint8_t>(mine.begin(), mine.end()));
      std::string theirs(first.begin(), first.end());
      size_t nl = theirs.find('\n');
      if (nl == std::string::npos || theirs.substr(nl + 1) == signature) return {};
      std::string text = detail::str_cat(
          "collective mismatch: rank ", rank, " issued ", signature, " as collective #", seq + 1,
          " of the group but rank ", theirs.substr(0, nl), " issued ", theirs.substr(nl + 1),
          ". Every rank must issue the same collectives in the same order, with the same sizes, "
          "dtypes, reductions and roots");
      auto recorded =
          store->compare_set(kMismatchKey, {}, std::vector<uint8_t>(text.begin(), text.end()));
      return std::string(recorded.begin(), recorded.end());
    } catch (const DistError&) {
      return {};  // the store is gone: the collective's own failure will say why
    }
  }

  // The mismatch some rank found, if any (asks the store unless this rank found it).
  std::string find_mismatch() {
    {
      std::lock_guard<std::mutex> lock(watch_mutex);
      if (!mismatch.empty()) return mismatch;
    }
    try {
      if (store->check({kMismatchKey})) return store->get_string(kMismatchKey);
    } catch (const DistError&) {
    }
    return {};
  }

  // Fails every connection of this rank: the collective blocked here wakes (and reports `text`,
  // recorded first), and the peers' collectives see their connections close (and find `text` in
  // the store). Gloo has one public way to do that: a wait on an unbound buffer that times out
  // closes all pairs of its context with an error ("Application timeout caused pair closure"),
  // failing every operation pending on them.
  void abort_mismatch(const std::string& text) {
    {
      std::lock_guard<std::mutex> lock(watch_mutex);
      if (mismatch.empty()) mismatch = text;
    }
    char byte = 0;
    auto buffer = context->createUnboundBuffer(&byte, 1);
    try {
      buffer->waitRecv(std::chrono::milliseconds(1));
    } catch (const std::exception&) {
      // The timeout this was for.
    }
  }

  // Why collective #seq failed: a mismatch some rank found (this one's signature is published
  // first, in case the collective timed out before the watchdog did), else what the store knows
  // about dead ranks.
  std::string explain_failure(const char* op, uint64_t seq, const std::string& signature,
                              const std::string& gloo_message, std::chrono::milliseconds timeout) {
    std::string found = find_mismatch();
    if (found.empty()) {
      bool published;
      {
        std::lock_guard<std::mutex> lock(watch_mutex);
        published = op_published && op_seq == seq;
      }
      if (!published) found = publish_signature(seq, signature);
    }
    if (!found.empty()) {
      return detail::str_cat("Gloo ", op, " failed on rank ", rank, " of ", size, ": ", found);
    }
    return describe_collective_failure("Gloo", op, rank, size, gloo_message,
                                       is_timeout_message(gloo_message), timeout, store.get());
  }

  // Explains a failed send or recv (of `nbytes` bytes with `tag`, to or from `peer`; or the
  // collective mismatch that closed the connections) and marks the group broken: Gloo closes all
  // of its connections on a timeout.
  UnboundBufferWork::Explain explainer(const char* op, size_t nbytes, int tag, std::string peer) {
    return [this, op, nbytes, tag, peer](const std::string& m, bool timed_out,
                                         std::chrono::milliseconds t) {
      std::string mismatch_found = find_mismatch();
      std::string msg = detail::str_cat(
          mismatch_found.empty()
              ? describe_collective_failure("Gloo", op, rank, size, m, timed_out, t, store.get())
              : detail::str_cat("Gloo ", op, " failed on rank ", rank, " of ", size, ": ",
                                mismatch_found),
          ". This ", op, " was of ", nbytes, " bytes ", op[0] == 's' ? "to " : "from ", peer,
          " with tag ", tag, " (a send and its recv must have the same size and tag)");
      mark_broken(msg);
      return msg;
    };
  }

  void mark_broken(const std::string& msg) {
    std::lock_guard<std::mutex> lock(broken_mutex);
    if (broken_reason.empty()) broken_reason = msg;
  }

  // A send or recv that cannot start: the group failed earlier, or Gloo refused at once. The
  // error comes out of the Work's wait(), as any other failure of an asynchronous operation.
  std::shared_ptr<Work> p2p_work_or_null(const char* op, const Tensor& t) {
    std::lock_guard<std::mutex> lock(broken_mutex);
    if (broken_reason.empty()) return nullptr;
    return failed_work(op, t,
                       detail::str_cat(op,
                                       ": the process group is unusable after an earlier "
                                       "failure: ",
                                       broken_reason));
  }

  static std::shared_ptr<Work> failed_work(const char* op, const Tensor& t,
                                           const std::string& msg) {
    auto work = std::make_shared<Work>(op);
    work->set_result({t});
    work->finish(std::make_exception_ptr(DistBackendError(msg)));
    return work;
  }

  // Posts a send (`is_send`) or a recv from `peers` of `host`'s bytes; Gloo's own errors
  // (a closed connection) become a failed Work.
  std::shared_ptr<Work> post_p2p(const char* op, const Tensor& user, Tensor host, bool is_send,
                                 const std::vector<int>& peers, int tag,
                                 UnboundBufferWork::Complete on_complete) {
    if (auto refused = p2p_work_or_null(op, user)) return refused;
    const size_t nbytes = host.nbytes();
    std::string peer = peers.size() == 1 ? "rank " + std::to_string(peers[0]) : "any rank";
    try {
      auto buffer = context->createUnboundBuffer(host.data_ptr(), nbytes);
      const uint64_t slot = p2p_slot(tag, nbytes);
      if (is_send) {
        buffer->send(peers[0], slot);
      } else if (peers.size() == 1) {
        buffer->recv(peers[0], slot);
      } else {
        buffer->recv(peers, slot);
      }
      auto work = std::make_shared<UnboundBufferWork>(op, std::move(buffer), is_send,
                                                      options.timeout, std::move(on_complete),
                                                      explainer(op, nbytes, tag, peer));
      work->set_result({user});
      return work;
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      std::string msg = describe_collective_failure("Gloo", op, rank, size, e.what(), false,
                                                    options.timeout, store.get());
      mark_broken(msg);
      return failed_work(op, user, msg);
    }
  }

  std::chrono::milliseconds timeout_of(std::chrono::milliseconds t) const {
    return t.count() > 0 ? t : options.timeout;
  }

  // The sequence every collective with tensors shares, after its own checks and the staging of
  // its tensors: queues it (numbered, under `signature`); on the worker, `run(call)` makes the
  // Gloo call unless there is nothing to move, then the output goes back to the user's tensor.
  template <typename Run>
  std::shared_ptr<Work> collective(const char* op, Staging staging,
                                   std::chrono::milliseconds timeout, std::string signature,
                                   Run run) {
    timeout = timeout_of(timeout);
    Tensor result = staging.output->user;
    return enqueue(op, {result}, timeout, std::move(signature),
                   [staging, timeout, run = std::move(run)](uint32_t tag) {
                     if (staging.input->host.numel() == 0) return;
                     run(GlooCall{tag, timeout, staging.input->host, staging.output->host});
                     if (staging.write_back) staging.output->write_back();
                   });
  }

  // Queues `body(tag)` and returns its Work; `signature` says what the collective is (its tag
  // derives from it). Backend errors become DistBackendError naming the cause; the group then
  // refuses further work with the same explanation.
  std::shared_ptr<Work> enqueue(const char* op, std::vector<Tensor> result,
                                std::chrono::milliseconds timeout, std::string signature,
                                std::function<void(uint32_t)> body) {
    auto work = std::make_shared<Work>(op);
    work->set_result(std::move(result));
    // Numbered and queued under one lock: the worker runs collectives in the order of their
    // numbers even when several threads issue them.
    std::lock_guard<std::mutex> lock(issue_mutex);
    const uint64_t seq = next_seq++;
    queue->push([this, work, op, timeout, seq, signature = std::move(signature),
                 body = std::move(body)] {
      auto fail = [&](const std::string& gloo_message) {
        std::string msg = explain_failure(op, seq, signature, gloo_message, timeout);
        {
          std::lock_guard<std::mutex> lock(broken_mutex);
          if (broken_reason.empty()) broken_reason = msg;
        }
        work->finish(std::make_exception_ptr(DistBackendError(msg)));
      };
      try {
        {
          std::lock_guard<std::mutex> lock(broken_mutex);
          if (!broken_reason.empty()) {
            throw DistBackendError(detail::str_cat(
                op, ": the process group is unusable after an earlier failure: ", broken_reason));
          }
        }
        begin_op(seq, signature);
        body(collective_tag(seq, signature));
        end_op();
        work->finish();
      } catch (const Error&) {
        end_op();
        work->finish(std::current_exception());
      } catch (const std::exception& e) {
        // gloo::Exception, gloo::EnforceNotMet (a std::exception, not a gloo::Exception) and
        // whatever else Gloo throws on this thread.
        end_op();
        fail(e.what());
      } catch (...) {
        end_op();
        work->finish(std::current_exception());
      }
    });
    return work;
  }
};

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
