// Streams, events, guards, copies and device errors on a real GPU; skipped, visibly, without one.
#include <gtest/gtest.h>

#include <thread>

#include "ember/cuda.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"

namespace ember {
namespace {

class CudaStreams : public ::testing::Test {
 protected:
  void SetUp() override { EMBER_SKIP_WITHOUT_CUDA(); }
};

TEST_F(CudaStreams, DefaultAndCurrentStream) {
  cuda::Stream def = cuda::default_stream();
  EXPECT_EQ(def.stream(), nullptr);
  EXPECT_EQ(def.id(), 0);
  EXPECT_EQ(cuda::current_stream(), def);
  cuda::Stream s = cuda::Stream::create();
  EXPECT_NE(s, def);
  EXPECT_EQ(s.device(), Device("cuda:0"));
  {
    cuda::StreamGuard g(s);
    EXPECT_EQ(cuda::current_stream(), s);
    EXPECT_EQ(g.original_stream(), def);
  }
  EXPECT_EQ(cuda::current_stream(), def);
  auto [least, greatest] = cuda::stream_priority_range();
  cuda::Stream high = cuda::getStreamFromPool(/*isHighPriority=*/true);
  EXPECT_EQ(high.priority(), greatest);
  EXPECT_LE(greatest, least);
}

TEST_F(CudaStreams, CurrentStreamIsPerThread) {
  cuda::Stream s = cuda::Stream::create();
  cuda::StreamGuard g(s);
  cuda::Stream seen = s;
  std::thread([&] { seen = cuda::current_stream(); }).join();
  EXPECT_EQ(seen, cuda::default_stream());
}

TEST_F(CudaStreams, KernelsRunOnTheCurrentStreamAndEventsOrderThem) {
  cuda::Stream s = cuda::Stream::create();
  Tensor x = ones({1 << 20}, TensorOptions().device("cuda"));
  cuda::Event ready;
  ready.record();  // x is written on the default stream
  Tensor y;
  {
    cuda::StreamGuard g(s);
    ready.wait(s);
    y = x * 3;
  }
  cuda::Event done(/*enable_timing=*/true), start(/*enable_timing=*/true);
  start.record(s);
  done.record(s);
  done.synchronize();
  EXPECT_TRUE(done.query());
  EXPECT_TRUE(s.query());
  EXPECT_GE(start.elapsed_time(done), 0.0f);
  EXPECT_EQ(y.sum().item<float>(), 3.0f * (1 << 20));
  cuda::Event untimed;
  untimed.record();
  EXPECT_THROW(untimed.elapsed_time(done), ValueError);
}

TEST_F(CudaStreams, CopiesBetweenDevicesAndDtypes) {
  Tensor h = arange(24, TensorOptions().dtype(kFloat)).reshape({2, 3, 4});
  Tensor d = h.to(Device("cuda"));
  EXPECT_TRUE(d.is_cuda());
  EXPECT_TRUE(equal(d.cpu(), h));
  // Non-contiguous on either side, with casts.
  Tensor dt = d.transpose(0, 2).to(kHalf);
  EXPECT_TRUE(equal(dt.cpu().to(kFloat), h.transpose(0, 2)));
  Tensor back = empty({4, 3, 2}, TensorOptions().dtype(kDouble));
  back.copy_(d.transpose(0, 2));
  EXPECT_TRUE(equal(back.to(kFloat), h.transpose(0, 2)));
  Tensor into = zeros({4, 3, 2}, TensorOptions().dtype(kInt).device("cuda"));
  into.copy_(h.transpose(0, 2));
  EXPECT_TRUE(equal(into.cpu(), h.transpose(0, 2).to(kInt)));
  // Broadcast source.
  Tensor row = zeros({3, 4}, TensorOptions().device("cuda"));
  row.copy_(arange(4, TensorOptions().dtype(kFloat)));
  EXPECT_EQ(row.sum().item<float>(), 18.0f);
}

TEST_F(CudaStreams, RandomNumbersMatchTheCpu) {
  for (ScalarType t : {kFloat, kDouble, kHalf, kBFloat16}) {
    manual_seed(123);
    Tensor c = randn({7, 33}, TensorOptions().dtype(t));
    manual_seed(123);
    Tensor g = randn({7, 33}, TensorOptions().dtype(t).device("cuda"));
    EXPECT_TRUE(equal(g.cpu(), c)) << to_string(t);
    manual_seed(9);
    Tensor cu = rand({1000}, TensorOptions().dtype(t));
    manual_seed(9);
    Tensor gu = rand({1000}, TensorOptions().dtype(t).device("cuda"));
    EXPECT_TRUE(equal(gu.cpu(), cu)) << to_string(t);
  }
  manual_seed(5);
  Tensor ci = randint(-3, 10, {500});
  manual_seed(5);
  Tensor gi = randint(-3, 10, {500}, TensorOptions().dtype(kLong).device("cuda"));
  EXPECT_TRUE(equal(gi.cpu(), ci));
}

TEST_F(CudaStreams, MatmulMatchesTheCpu) {
  manual_seed(0);
  Tensor a = randn({3, 64, 48}), b = randn({3, 48, 80});
  Tensor ref = matmul(a, b);
  Tensor got = matmul(a.cuda(), b.cuda()).cpu();
  EXPECT_TRUE(allclose(got, ref, 1e-4, 1e-4));
  Tensor gt = matmul(a.cuda(), b.cuda().transpose(1, 2).contiguous().transpose(1, 2)).cpu();
  EXPECT_TRUE(allclose(gt, ref, 1e-4, 1e-4));
  Tensor h = matmul(a.cuda().to(kHalf), b.cuda().to(kHalf)).cpu().to(kFloat);
  EXPECT_TRUE(allclose(h, ref, 2e-2, 5e-2));
  Tensor bf = matmul(a.cuda().to(kBFloat16), b.cuda().to(kBFloat16)).cpu().to(kFloat);
  EXPECT_TRUE(allclose(bf, ref, 5e-2, 2e-1));
  cuda::set_matmul_allow_tf32(true);
  EXPECT_TRUE(cuda::matmul_allow_tf32());
  Tensor tf = matmul(a.cuda(), b.cuda()).cpu();
  EXPECT_TRUE(allclose(tf, ref, 1e-2, 1e-2));
  cuda::set_matmul_allow_tf32(false);
  EXPECT_THROW(matmul(a.cuda().to(kLong), b.cuda().to(kLong)), TypeError);
}

TEST_F(CudaStreams, ReductionsMatchTheCpu) {
  manual_seed(1);
  Tensor x = randn({37, 129, 5});
  Tensor g = x.cuda();
  EXPECT_TRUE(allclose(g.sum({1}).cpu(), x.sum({1}), 1e-4, 1e-4));
  EXPECT_TRUE(allclose(g.sum({0, 2}).cpu(), x.sum({0, 2}), 1e-4, 1e-3));
  EXPECT_TRUE(equal(g.amax({1}).cpu(), x.amax({1})));
  EXPECT_TRUE(equal(g.argmax(1).cpu(), x.argmax(1)));
  EXPECT_NEAR(g.sum().item<float>(), x.sum().item<float>(), 1e-2);
}

TEST_F(CudaStreams, MixingDevicesIsAnError) {
  Tensor c = ones({3});
  Tensor g = ones({3}, TensorOptions().device("cuda"));
  try {
    (void)(c + g);
    FAIL() << "adding a CPU and a CUDA tensor did not fail";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("Expected all tensors to be on the same device, but "
                                         "found at least two devices"),
              std::string::npos)
        << e.what();
  }
  // A 0-dim CPU tensor is a scalar, as in PyTorch.
  Tensor s = full({}, 2.0f);
  EXPECT_EQ((g * s).sum().item<float>(), 6.0f);
}

// Bad indices on CUDA are device-side asserts now (no host sync): tests/cuda/test_cuda_index.cpp.

}  // namespace
}  // namespace ember
