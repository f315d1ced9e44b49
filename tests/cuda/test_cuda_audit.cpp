// The "slower after .cuda()" doctor: the sync debug mode (as torch.cuda.set_sync_debug_mode) and
// TransferAudit's counts and findings on a deliberately bad and a good training loop. The CUDA
// parts run on a GPU or on the simulator's devices; the CPU part runs everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "ember/ember.h"
#include "support/cuda_skip.h"

namespace ember {
namespace {

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

class SyncDebugMode : public ::testing::Test {
 protected:
  void SetUp() override { EMBER_SKIP_WITHOUT_CUDA(); }
  void TearDown() override { cuda::set_sync_debug_mode("default"); }
};

TEST(SyncDebugModeSetting, NamesAndNumbersAsPyTorch) {
  cuda::set_sync_debug_mode("warn");
  EXPECT_EQ(cuda::get_sync_debug_mode(), 1);
  cuda::set_sync_debug_mode(2);
  EXPECT_EQ(cuda::get_sync_debug_mode(), 2);
  cuda::set_sync_debug_mode("default");
  EXPECT_EQ(cuda::get_sync_debug_mode(), 0);
  EXPECT_THROW(cuda::set_sync_debug_mode("loud"), ValueError);
  EXPECT_THROW(cuda::set_sync_debug_mode(3), ValueError);
  EXPECT_EQ(cuda::get_sync_debug_mode(), 0);
}

TEST_F(SyncDebugMode, ErrorModeThrowsOnImplicitSyncsOnly) {
  Tensor x = ones({4}, TensorOptions().device("cuda"));
  Tensor pinned = empty({4}).pin_memory();
  cuda::set_sync_debug_mode("error");
  try {
    (void)x.sum().item<float>();
    FAIL() << "item() did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("called a synchronizing CUDA operation: item()"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)x.cpu(), Error);                       // a blocking copy
  EXPECT_THROW((void)ones({4}).to(Device("cuda")), Error);  // pageable host->device
  Tensor y = x * 2;                                         // kernels never sync
  EXPECT_NO_THROW(pinned.copy_(y, /*non_blocking=*/true));
  EXPECT_NO_THROW(cuda::synchronize());  // explicit: the user asked for it
  cuda::set_sync_debug_mode("default");
  EXPECT_EQ(pinned.sum().item<float>(), 8.0f);
}

TEST_F(SyncDebugMode, WarnModeNamesWhatSyncedAndGoesOn) {
  Tensor x = arange(3, TensorOptions().dtype(kFloat).device("cuda"));
  cuda::set_sync_debug_mode("warn");
  ::testing::internal::CaptureStderr();
  std::ostringstream os;
  os << x;
  const std::string printed = os.str();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("[ CUDAFloatType{3} ]"), std::string::npos) << printed;
  EXPECT_NE(err.find("Ember warning: called a synchronizing CUDA operation: printing a CUDA tensor "
                     "(a blocking device-to-host copy)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("\n  at "), std::string::npos) << "no trace: " << err;
}

// A loop with the classic mistakes: a pageable batch copied synchronously every step, the loss
// read with item() every step, and a tensor made on the CPU each step.
TEST_F(SyncDebugMode, AuditFindsTheMistakesOfABadLoop) {
  const Device d("cuda:0");
  nn::Linear model(8, 2);
  model->to(d);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1));
  Tensor data = randn({5, 16, 8});
  cuda::TransferAudit audit;
  double total = 0;
  for (int step = 0; step < 5; ++step) {
    Tensor x = data[step].to(d);                                  // pageable, blocking
    Tensor scale = full({1}, 0.5);                                // made on the CPU...
    Tensor loss = model->forward(x).pow(2).mean() * scale.to(d);  // ...and copied over
    opt.zero_grad();
    loss.backward();
    opt.step();
    total += loss.item<double>();  // a sync every step
    audit.step();
  }
  const cuda::TransferStats s = audit.stats();
  EXPECT_EQ(s.steps, 5);
  EXPECT_EQ(s.h2d_pageable, 10);
  EXPECT_EQ(s.d2h_small, 5);
  EXPECT_GE(s.implicit_syncs, 15);
  EXPECT_GT(s.kernel_launches, 5 * 5);
  EXPECT_GE(s.cpu_ops, 5);
  const auto f = audit.findings();
  EXPECT_TRUE(any_contains(f, "2 host->device copies per step from pageable memory"))
      << audit.report();
  EXPECT_TRUE(any_contains(f, "pin_memory=true")) << audit.report();
  EXPECT_TRUE(any_contains(f, "1 device->host reads of a few bytes per step")) << audit.report();
  EXPECT_TRUE(any_contains(f, "log every N steps")) << audit.report();
  EXPECT_TRUE(any_contains(f, "ran on the CPU while the rest ran on CUDA")) << audit.report();
  EXPECT_TRUE(any_contains(f, "implicit host syncs per step")) << audit.report();
  EXPECT_NE(audit.report().find("Findings:"), std::string::npos);
  EXPECT_TRUE(std::isfinite(total));
}

// The same work done right: pinned batches copied with non_blocking, the loss kept on the device
// and read once at the end (after the audit).
TEST_F(SyncDebugMode, AuditOfAGoodLoopFindsNothing) {
  const Device d("cuda:0");
  nn::Linear model(8, 2);
  model->to(d);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.1));
  Tensor data = randn({5, 16, 8}).pin_memory();
  Tensor running = zeros({}, TensorOptions().device(d));
  {
    cuda::TransferAudit audit;
    for (int step = 0; step < 5; ++step) {
      Tensor x = data[step].to(d, /*non_blocking=*/true);
      Tensor loss = model->forward(x).pow(2).mean();
      opt.zero_grad();
      loss.backward();
      opt.step();
      running.add_(loss.detach());
      audit.step();
    }
    const cuda::TransferStats s = audit.stats();
    EXPECT_EQ(s.h2d_pinned, 5);
    EXPECT_EQ(s.h2d_pageable, 0);
    EXPECT_EQ(s.implicit_syncs, 0);
    EXPECT_EQ(s.d2h_pageable + s.d2h_pinned, 0);
    EXPECT_TRUE(audit.findings().empty()) << audit.report();
    EXPECT_NE(audit.report().find("No transfer or sync problems found."), std::string::npos);
  }
  EXPECT_TRUE(std::isfinite(running.item<float>()));
}

// The location hook (what the Python bindings set): each copy and sync of an open audit is noted
// with where the hook says the caller is, and report() counts them by location.
thread_local std::string t_where;
std::string where_hook() {
  return t_where;
}

TEST_F(SyncDebugMode, LocationHookNamesEachCopyAndSync) {
  Tensor x = ones({4}, TensorOptions().device(Device(kCUDA, 0)));
  cuda::set_audit_location_hook(&where_hook);
  std::vector<cuda::TransferEvent> events;
  std::string report;
  {
    cuda::TransferAudit audit;
    t_where = "prog.py:7";
    EXPECT_EQ(x.sum().item<float>(), 4.0f);
    t_where = "prog.py:9";
    Tensor host = x.cpu();
    t_where.clear();  // the hook has no place for the next copy and sync
    Tensor again = x.cpu();
    events = audit.events();
    report = audit.report();
  }
  cuda::set_audit_location_hook(nullptr);
  ASSERT_EQ(events.size(), 6u) << report;
  EXPECT_EQ(events[0].kind, "device->host copy");
  EXPECT_EQ(events[0].location, "prog.py:7");
  EXPECT_EQ(events[0].bytes, 4);
  EXPECT_EQ(events[1].kind, "implicit sync");
  EXPECT_EQ(events[3].location, "prog.py:9");
  EXPECT_EQ(events[2].bytes, 16);
  EXPECT_NE(report.find("prog.py:7: 1 device->host copy (4 bytes), 1 implicit sync"),
            std::string::npos)
      << report;
  EXPECT_EQ(events[4].location, "");
  EXPECT_NE(report.find("(no location): 1 device->host copy (16 bytes)"), std::string::npos)
      << report;
  cuda::TransferAudit later;  // a new audit starts empty; without a hook nothing is noted
  x.cpu();
  EXPECT_TRUE(later.events().empty());
}

TEST(TransferAuditOnTheCpu, CountsCpuOpsAndFindsNothingToFix) {
  cuda::TransferAudit audit;
  Tensor x = randn({4, 4});
  Tensor y = (x * 2 + 1).sum();
  audit.step();
  const cuda::TransferStats s = audit.stats();
  EXPECT_GE(s.cpu_ops, 3);
  EXPECT_EQ(s.kernel_launches, 0);
  EXPECT_EQ(s.h2d_pageable + s.h2d_pinned + s.d2h_pageable + s.d2h_pinned, 0);
  EXPECT_TRUE(audit.findings().empty()) << audit.report();
  EXPECT_TRUE(std::isfinite(y.item<float>()));
}

}  // namespace
}  // namespace ember
