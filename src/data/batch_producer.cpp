// Ordered, bounded prefetching of batches by worker threads.
//
// Workers take batch numbers from a shared counter, but only while the number is less than
// consumed + capacity, so at most `capacity` batches are built ahead of the consumer. Finished
// batches wait in `ready` keyed by number; the consumer takes them strictly in order, so the
// order never depends on thread timing.
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "ember/data/dataloader.h"

namespace ember::data::detail {

struct BatchProducer::State {
  struct Slot {
    Batch batch;
    std::exception_ptr error;
  };
  MakeBatch make;
  size_t num_batches = 0;
  size_t capacity = 0;
  std::mutex mutex;
  std::condition_variable space;  // a worker may start another batch, or stop
  std::condition_variable ready_cv;
  size_t next_ticket = 0;  // next batch number a worker takes
  size_t consumed = 0;     // batches handed to the consumer so far
  bool stop = false;
  std::map<size_t, Slot> ready;
  std::vector<std::thread> workers;

  void work() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      space.wait(lock, [&] {
        return stop || next_ticket >= num_batches || next_ticket < consumed + capacity;
      });
      if (stop || next_ticket >= num_batches) return;
      size_t k = next_ticket++;
      lock.unlock();
      Slot slot;
      try {
        slot.batch = make(k);
      } catch (...) {
        slot.error = std::current_exception();
      }
      lock.lock();
      ready.emplace(k, std::move(slot));
      ready_cv.notify_all();
    }
  }
};

BatchProducer::BatchProducer(MakeBatch make, size_t num_batches, size_t num_workers,
                             size_t capacity)
    : state_(std::make_unique<State>()) {
  state_->make = std::move(make);
  state_->num_batches = num_batches;
  state_->capacity = std::max<size_t>(capacity, 1);
  size_t n = std::min(num_workers, num_batches);
  state_->workers.reserve(n);
  try {
    for (size_t i = 0; i < n; ++i) state_->workers.emplace_back([s = state_.get()] { s->work(); });
  } catch (...) {
    shutdown();
    throw;
  }
}

BatchProducer::~BatchProducer() {
  shutdown();
}

void BatchProducer::shutdown() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stop = true;
  }
  state_->space.notify_all();
  for (auto& t : state_->workers) {
    if (t.joinable()) t.join();
  }
  state_->workers.clear();
  state_->ready.clear();
}

bool BatchProducer::next(Batch& out) {
  State& s = *state_;
  if (s.workers.empty()) {
    // Synchronous: num_workers == 0 (or the producer already stopped after an error).
    if (s.stop || s.consumed >= s.num_batches) return false;
    size_t k = s.consumed++;
    try {
      out = s.make(k);
    } catch (...) {
      s.stop = true;
      throw;
    }
    return true;
  }
  State::Slot slot;
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    if (s.consumed >= s.num_batches) return false;
    s.ready_cv.wait(lock, [&] { return s.ready.count(s.consumed) > 0; });
    auto it = s.ready.find(s.consumed);
    slot = std::move(it->second);
    s.ready.erase(it);
    ++s.consumed;
  }
  s.space.notify_all();
  if (slot.error) {
    // The epoch ends at the first failed batch: stop the other workers, then report it.
    shutdown();
    s.consumed = s.num_batches;
    std::rethrow_exception(slot.error);
  }
  out = std::move(slot.batch);
  return true;
}

}  // namespace ember::data::detail
