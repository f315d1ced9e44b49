#pragma once
// ProcessGroupGloo's state: the Gloo context over the store's rendezvous, the worker queue that
// runs collectives in issue order, and the watchdog that finds mismatched collectives.
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
// Private to process_group_gloo.cpp, its one includer.
#include <gloo/rendezvous/context.h>
#include <gloo/transport/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "distributed/failure_report.h"
#include "distributed/gloo/gloo_call_matching.h"
#include "distributed/gloo/gloo_host_tensors.h"
#include "distributed/gloo/unbound_buffer_work.h"
#include "distributed/work_queue.h"
#include "ember/distributed/process_group_gloo.h"

namespace ember::distributed {

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

}  // namespace ember::distributed
