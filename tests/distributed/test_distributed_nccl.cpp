// The NCCL backend: on a GPU, a world of one process runs every collective on a CUDA tensor;
// without one (simulated devices, no GPU, a build without CUDA) asking for it says why, before
// any rendezvous, and names what to use instead.
#include <gtest/gtest.h>

#include "ember/cuda.h"
#include "ember/distributed.h"
#include "ember/ops.h"
#include "support/multi_process.h"
#include "support/test_util.h"

namespace dist = ember::distributed;
using ember::Tensor;
using ember::testing::contains;
using ember::testing::error_of;
using namespace std::chrono_literals;

namespace {

dist::InitProcessGroupOptions world_of_one() {
  return dist::InitProcessGroupOptions()
      .init_method("tcp://127.0.0.1:" + std::to_string(ember::testing::free_port()))
      .rank(0)
      .world_size(1)
      .timeout(30s);
}

TEST(NcclBackend, UnavailableSaysWhy) {
  if (dist::is_nccl_available()) GTEST_SKIP() << "NCCL is available here (see RunsOnOneGpu)";
  std::string msg = error_of<ember::NotImplementedError>(
      [] { dist::init_process_group("nccl", world_of_one()); });
  if (ember::cuda::is_simulated()) {
    EXPECT_TRUE(contains(msg, "cannot run on the CUDA simulator")) << msg;
    EXPECT_TRUE(contains(msg, "Use the \"gloo\" backend")) << msg;
  } else {
    EXPECT_TRUE(contains(msg, "NCCL")) << msg;
    EXPECT_TRUE(contains(msg, "gloo")) << msg;
  }
  EXPECT_FALSE(dist::is_initialized());
}

TEST(NcclBackend, RunsOnOneGpu) {
  if (!dist::is_nccl_available()) {
    GTEST_SKIP() << "NCCL needs a real GPU: "
                 << (ember::cuda::is_simulated() ? std::string("these CUDA devices are simulated")
                                                 : ember::cuda::unavailable_reason());
  }
  ember::cuda::set_device(0);
  dist::init_process_group("nccl", world_of_one());
  EXPECT_EQ(dist::get_backend(), "nccl");
  ember::Device dev(ember::kCUDA, 0);
  Tensor t = ember::arange(6, ember::kFloat).to(dev);
  dist::all_reduce(t, dist::ReduceOp::SUM);
  EXPECT_TRUE(t.cpu().equal(ember::arange(6, ember::kFloat)));
  auto work = dist::all_reduce(t, dist::ReduceOp::AVG, /*async_op=*/true);
  work->wait();
  EXPECT_TRUE(work->is_success());
  dist::broadcast(t, 0);
  std::vector<Tensor> all;
  dist::all_gather(all, t);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].cpu().equal(ember::arange(6, ember::kFloat)));
  Tensor out = ember::empty({6}, ember::TensorOptions().device(dev));
  dist::reduce_scatter_tensor(out, t);
  EXPECT_TRUE(out.cpu().equal(ember::arange(6, ember::kFloat)));
  dist::barrier();
  std::string msg = error_of<ember::ValueError>([] {
    Tensor host = ember::zeros({2});
    dist::all_reduce(host);
  });
  EXPECT_TRUE(contains(msg, "works on cuda:0, got a tensor on cpu")) << msg;
  dist::destroy_process_group();
}

}  // namespace
