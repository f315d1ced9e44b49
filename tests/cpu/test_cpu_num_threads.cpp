// set_num_threads / get_num_threads (ember/parallel.h, torch.set_num_threads): the count is
// process-wide (a thread started later, or running before the call, follows it), ops give the
// same results at any count, and a count below 1 is refused with PyTorch's words.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "ember/ember.h"
#include "support/test_util.h"

using namespace ember;
using ember::testing::error_of;

namespace {

// Restores the count the process started with.
struct ThreadsGuard {
  int saved = get_num_threads();
  ~ThreadsGuard() { set_num_threads(saved); }
};

}  // namespace

TEST(NumThreads, SetIsProcessWideAndOpsAgree) {
  ThreadsGuard guard;
  EXPECT_GE(guard.saved, 1);
  manual_seed(3);
  const Tensor a = randn({300, 200}), b = randn({200, 100}), x = randn({1 << 18});
  const Tensor mm_before = matmul(a, b), sum_before = (x * x).sum();

  std::thread started_before([&] {
    // This thread has its own OpenMP setting; it adopts the count at its next query or op.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(get_num_threads(), 1);
  });
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  int seen_in_new_thread = 0;
  std::thread([&] { seen_in_new_thread = get_num_threads(); }).join();
  started_before.join();
  EXPECT_EQ(seen_in_new_thread, 1);
  // One thread gives the results many gave, within the rounding of a different split.
  EXPECT_LT((matmul(a, b) - mm_before).abs().max().item<float>(), 1e-4);
  EXPECT_TRUE(allclose((x * x).sum(), sum_before, 1e-6, 0));

  set_num_threads(3);
  EXPECT_EQ(get_num_threads(), 3);
  std::thread([&] { seen_in_new_thread = get_num_threads(); }).join();
  EXPECT_EQ(seen_in_new_thread, 3);
}

TEST(NumThreads, NonPositiveCountsAreRefused) {
  ThreadsGuard guard;
  for (int n : {0, -2}) {
    const std::string msg = error_of<Error>([&] { set_num_threads(n); });
    EXPECT_NE(msg.find("set_num_threads expects a positive integer, got " + std::to_string(n)),
              std::string::npos)
        << msg;
  }
  EXPECT_EQ(get_num_threads(), guard.saved);  // unchanged by the refused calls
}
