#pragma once
// Private to process_group_gloo.cpp, its one includer (hence the unnamed namespace).
#include <gloo/transport/unbound_buffer.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "distributed/gloo/gloo_call_matching.h"
#include "ember/distributed/work.h"

namespace ember::distributed {
namespace {

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
}  // namespace ember::distributed
