// Two CUDA devices at once (real GPUs, or the simulator's two devices in CI): tensors and modules
// moving between them, guards across devices, per-device memory statistics, peer copies, the
// device-mismatch errors, record_stream across streams, kernels that must launch on their
// tensors' device whatever device is current, and pinned buffers shared by copies to both.
#include <gtest/gtest.h>

#include "core/backend.h"
#include "core/tensor_factory.h"
#include "ember/cuda.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"

namespace ember {
namespace {

class CudaMultiDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    EMBER_SKIP_WITHOUT_CUDA_DEVICES(2);
    cuda::set_device(0);
  }
};

TEST_F(CudaMultiDevice, TensorsMoveBetweenDevicesThroughPeerCopies) {
  Tensor h = arange(24, TensorOptions().dtype(kFloat)).reshape({4, 6});
  Tensor a = h.to(Device("cuda:0"));
  Tensor b = a.to(Device("cuda:1"));
  EXPECT_EQ(b.device(), Device("cuda:1"));
  EXPECT_TRUE(equal(b.cpu(), h));
  // Non-contiguous source, cast on the way, and back again.
  Tensor c = b.t().to(Device("cuda:0"), kDouble);
  EXPECT_EQ(c.device(), Device("cuda:0"));
  EXPECT_TRUE(equal(c.cpu(), h.t().to(kDouble)));
  Tensor d = empty({6, 4}, TensorOptions().device("cuda:1"));
  d.copy_(c);  // cuda:0 double -> cuda:1 float
  EXPECT_TRUE(equal(d.cpu(), h.t()));
}

TEST_F(CudaMultiDevice, OpsBetweenTwoGpusNameBothDevices) {
  Tensor a = ones({3}, TensorOptions().device("cuda:0"));
  Tensor b = ones({3}, TensorOptions().device("cuda:1"));
  const std::string m = testing::error_of([&] { (void)(a + b); });
  EXPECT_TRUE(testing::contains(m, "Expected all tensors to be on the same device")) << m;
  EXPECT_TRUE(testing::contains(m, "cuda:0") && testing::contains(m, "cuda:1")) << m;
  EXPECT_TRUE(testing::contains(testing::error_of([&] {
                                  (void)matmul(a.reshape({1, 3}), b.reshape({3, 1}));
                                }),
                                "same device"));
}

TEST_F(CudaMultiDevice, KernelsLaunchOnTheirTensorsDeviceWhateverIsCurrent) {
  // cuda:0 is current; every tensor lives on cuda:1 (softmax and the window kernels once
  // launched on the current device).
  Tensor x = randn({2, 3, 8, 8});
  Tensor x1 = x.to(Device("cuda:1"));
  ASSERT_EQ(cuda::current_device(), 0);
  EXPECT_TRUE(allclose(softmax(x1, -1).cpu(), softmax(x, -1), 1e-6, 1e-6));
  EXPECT_TRUE(allclose(log_softmax(x1, 1).cpu(), log_softmax(x, 1), 1e-6, 1e-6));
  EXPECT_TRUE(
      allclose(nn::functional::max_pool2d(x1, nn::functional::MaxPool2dFuncOptions(2)).cpu(),
               nn::functional::max_pool2d(x, nn::functional::MaxPool2dFuncOptions(2)), 0, 0));
  Tensor w = randn({4, 3, 3, 3});
  EXPECT_TRUE(allclose(nn::functional::conv2d(x1, w.to(Device("cuda:1"))).cpu(),
                       nn::functional::conv2d(x, w), 1e-4, 1e-5));
  // Gradients too.
  Tensor xg = x1.clone().requires_grad_();
  softmax(xg, -1).mul(x1).sum().backward();
  Tensor xc = x.clone().requires_grad_();
  softmax(xc, -1).mul(x).sum().backward();
  EXPECT_TRUE(allclose(xg.grad().cpu(), xc.grad(), 1e-5, 1e-6));
  EXPECT_EQ(cuda::current_device(), 0);
}

TEST_F(CudaMultiDevice, GuardsAcrossDevicesRestoreDeviceAndStream) {
  cuda::Stream s1 = cuda::Stream::create(0, 1);
  EXPECT_EQ(s1.device(), Device("cuda:1"));
  {
    cuda::StreamGuard g(s1);
    EXPECT_EQ(cuda::current_device(), 1);
    EXPECT_EQ(cuda::current_stream(), s1);
    Tensor t = ones({1000}, TensorOptions().device("cuda"));  // "cuda" = the current device
    EXPECT_EQ(t.device(), Device("cuda:1"));
    EXPECT_EQ((t * 2).sum().item<float>(), 2000.0f);
  }
  EXPECT_EQ(cuda::current_device(), 0);
  EXPECT_EQ(cuda::current_stream(1), cuda::default_stream(1));
  {
    cuda::DeviceGuard g(1);
    EXPECT_EQ(cuda::current_device(), 1);
    {
      cuda::DeviceGuard inner(0);
      EXPECT_EQ(cuda::current_device(), 0);
    }
    EXPECT_EQ(cuda::current_device(), 1);
  }
  EXPECT_EQ(cuda::current_device(), 0);
}

TEST_F(CudaMultiDevice, MemoryStatisticsArePerDevice) {
  cuda::synchronize(0);
  cuda::synchronize(1);
  cuda::empty_cache();
  const size_t a0 = cuda::memory_allocated(0), a1 = cuda::memory_allocated(1);
  {
    Tensor t = empty({1 << 18}, TensorOptions().device("cuda:1"));  // 1 MiB
    EXPECT_EQ(cuda::memory_allocated(1), a1 + (1u << 20));
    EXPECT_EQ(cuda::memory_allocated(0), a0);
    EXPECT_GE(cuda::memory_reserved(1), size_t(1) << 20);
    EXPECT_LT(cuda::mem_get_info(1).first, cuda::mem_get_info(1).second);
  }
  EXPECT_EQ(cuda::memory_allocated(1), a1);
  EXPECT_NE(cuda::memory_summary(1).find("Allocated memory"), std::string::npos);
}

TEST_F(CudaMultiDevice, ModulesMoveBetweenDevicesAndTrain) {
  manual_seed(3);
  nn::Linear ref(8, 4);
  nn::Linear m(8, 4);
  {
    NoGradGuard g;
    m->weight.copy_(ref->weight);
    m->bias.copy_(ref->bias);
  }
  m->to(Device("cuda:0"));
  m->to(Device("cuda:1"));
  EXPECT_EQ(m->weight.device(), Device("cuda:1"));
  Tensor x = randn({5, 8});
  Tensor y = m->forward(x.to(Device("cuda:1")));
  EXPECT_EQ(y.device(), Device("cuda:1"));
  EXPECT_TRUE(allclose(y.cpu(), ref->forward(x), 1e-5, 1e-6));
  y.sum().backward();
  ref->forward(x).sum().backward();
  EXPECT_TRUE(allclose(m->weight.grad().cpu(), ref->weight.grad(), 1e-5, 1e-6));
  m->to(Device("cpu"));
  EXPECT_TRUE(m->weight.is_cpu());
}

TEST_F(CudaMultiDevice, RecordStreamKeepsABlockFromReuseUntilTheOtherStreamIsDone) {
  cuda::Stream side = cuda::Stream::create(0, 1);
  Tensor src = full({1 << 16}, 3.0f, TensorOptions().device("cuda:1"));
  Tensor out;
  void* raw = nullptr;
  {
    Tensor tmp = src * 2;  // allocated on cuda:1's default stream
    raw = tmp.data_ptr();
    cuda::Event ready;
    ready.record(cuda::current_stream(1));
    cuda::StreamGuard g(side);
    ready.wait(side);
    out = tmp + 1;  // read on the side stream
    tmp.record_stream(side);
  }  // tmp freed: its block waits for the side stream
  {
    cuda::DeviceGuard g(1);
    Tensor next = full({1 << 16}, -1.0f, TensorOptions().device("cuda:1"));
    if (!side.query()) EXPECT_NE(next.data_ptr(), raw);  // not reused while still being read
  }
  side.synchronize();
  EXPECT_EQ(out.cpu().min().item<float>(), 7.0f);
  EXPECT_EQ(out.cpu().max().item<float>(), 7.0f);
}

TEST_F(CudaMultiDevice, PinnedBufferOfAnAsyncCopyToCuda1IsNotReusedEarly) {
  // The copy waits behind long work on cuda:1's default stream; the pinned source is freed
  // meanwhile, with cuda:0 current. Its block must not be reused until cuda:1's copy ran.
  const int64_t n = 1 << 16;
  Tensor busy = ones({1 << 21}, TensorOptions().device("cuda:1"));
  Tensor out = empty({n}, TensorOptions().device("cuda:1"));
  void* first = nullptr;
  {
    Tensor h = full({n}, 7.0f).pin_memory();
    first = h.data_ptr();
    Tensor work = busy * 2 + 1;  // queued first on cuda:1's default stream
    out.copy_(h, /*non_blocking=*/true);
  }
  ASSERT_EQ(cuda::current_device(), 0);
  Tensor h2 = full({n}, -1.0f).pin_memory();  // would take the same block if it were free
  (void)first;
  cuda::synchronize(1);
  EXPECT_EQ(out.cpu().min().item<float>(), 7.0f);
  EXPECT_EQ(out.cpu().max().item<float>(), 7.0f);
}

TEST_F(CudaMultiDevice, GatherAndScatterRefuseAnIndexOnAnotherDevice) {
  Tensor in = randn({4, 5}).to(Device("cuda:0"));
  Tensor idx = zeros({4, 2}, TensorOptions().dtype(kLong));  // on the CPU
  Tensor out = empty({4, 2}, TensorOptions().device("cuda:0"));
  Backend& be = backend_for(out);
  std::string m = testing::error_of([&] { be.gather(out, in, 1, idx); });
  EXPECT_TRUE(testing::contains(m, "Expected all tensors to be on the same device")) << m;
  m = testing::error_of([&] { be.scatter_add(in, 1, idx, out); });
  EXPECT_TRUE(testing::contains(m, "Expected all tensors to be on the same device")) << m;
  m = testing::error_of([&] { be.gather(out, in, 1, idx.to(Device("cuda:1"))); });
  EXPECT_TRUE(testing::contains(m, "cuda:1")) << m;
  // The public op says so as well.
  m = testing::error_of([&] { (void)gather(in, 1, idx); });
  EXPECT_TRUE(testing::contains(m, "same device")) << m;
}

}  // namespace
}  // namespace ember
