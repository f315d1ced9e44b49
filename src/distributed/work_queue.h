#pragma once
// A worker thread that runs a process group's operations one after another, in the order they
// were issued: the calling thread goes on (backward keeps computing) while Gloo communicates.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace ember::distributed {

class WorkQueue {
 public:
  WorkQueue();
  // Runs what is queued, then stops.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void push(std::function<void()> job);
  // Runs what is queued, then joins the thread (idempotent).
  void stop();

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ember::distributed
