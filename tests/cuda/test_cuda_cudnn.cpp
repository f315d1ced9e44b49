// cuDNN behind the CUDA backend's convolution families (src/cuda_cudnn): availability as the
// build has it, every convolution kind and dtype against the CPU (forward and the three
// gradients), one direct call per direction instead of im2col, backends::cudnn::enabled turning
// it off. On the simulator also what cuDNN was asked (cuda_sim::last_cudnn_call): the algorithm
// chosen by the heuristics or, with benchmark, by one search per case; deterministic (and
// use_deterministic_algorithms) choosing deterministic algorithms; and the shim's own argument
// checks, as cuDNN's. The CUDA parts skip visibly without a GPU.
#include <gtest/gtest.h>

#include "ember/backends.h"
#include "ember/cuda.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"
#if defined(EMBER_TEST_WITH_SIM)
#include <cudnn.h>

#include <cstring>

#include "cuda_sim.h"
#endif

namespace ember {
namespace {

namespace F = nn::functional;
using testing::contains;
using testing::expect_close;
using testing::make_input;

size_t count_named(const std::vector<profiler::FunctionEvent>& evs, const std::string& name) {
  size_t n = 0;
  for (const auto& e : evs) n += e.name == name;
  return n;
}

// Restores the cuDNN switches a test changes.
struct CudnnSettings {
  bool enabled = backends::cudnn::enabled(), benchmark = backends::cudnn::benchmark(),
       deterministic = backends::cudnn::deterministic();
  ~CudnnSettings() {
    backends::cudnn::set_enabled(enabled);
    backends::cudnn::set_benchmark(benchmark);
    backends::cudnn::set_deterministic(deterministic);
    use_deterministic_algorithms(false);
  }
};

// As PyTorch's: whether the build has cuDNN, GPU or not (a GPU build without a driver too).
TEST(Cudnn, AvailabilityFollowsTheBuild) {
  EXPECT_EQ(backends::cudnn::is_available(), backends::cudnn::version() > 0);
  if (contains(cuda::unavailable_reason(), "built without CUDA")) {
    EXPECT_FALSE(backends::cudnn::is_available());
    EXPECT_EQ(backends::cudnn::version(), -1);
  }
  if (cuda::is_available() && cuda::is_simulated()) {
    EXPECT_TRUE(backends::cudnn::is_available());  // the shim
  }
}

// One convolution of each kind: f(x, w, b) and the shapes of x, w and b.
struct ConvCase {
  const char* name;
  std::vector<int64_t> x, w;
  int64_t bias;
  std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)> f;
};

std::vector<ConvCase> conv_cases() {
  return {
      {"conv2d stride 2, padding 1",
       {2, 3, 9, 8},
       {4, 3, 3, 3},
       4,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1));
       }},
      {"conv2d groups 2, dilation 2",
       {2, 4, 10, 9},
       {6, 2, 3, 2},
       6,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).dilation(2).groups(2).padding(2));
       }},
      {"conv1d padding 1",
       {3, 2, 11},
       {5, 2, 3},
       5,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return F::conv1d(x, w, F::Conv1dFuncOptions().bias(b).padding(1));
       }},
      {"conv3d stride 2",
       {1, 2, 5, 6, 5},
       {3, 2, 2, 3, 2},
       3,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return F::conv3d(x, w, F::Conv3dFuncOptions().bias(b).stride(2).padding(1));
       }},
      {"conv_transpose2d stride 2, output_padding 1",
       {2, 4, 5, 5},
       {4, 3, 3, 3},
       3,
       [](const Tensor& x, const Tensor& w, const Tensor& b) {
         return F::conv_transpose2d(
             x, w, F::ConvTranspose2dFuncOptions().bias(b).stride(2).padding(1).output_padding(1));
       }},
  };
}

// Forward and the gradients of x, w and b on cuda:0 against the CPU's, in every dtype cuDNN
// takes; 16-bit inputs are compared with the CPU's float32 result on the same rounded values.
TEST(Cudnn, ConvolutionsMatchTheCpu) {
  EMBER_SKIP_WITHOUT_CUDA();
  for (const ConvCase& c : conv_cases()) {
    for (ScalarType dtype : {kFloat, kDouble, kHalf, kBFloat16}) {
      const bool narrow = dtype == kHalf || dtype == kBFloat16;
      const ScalarType ref_dtype = narrow ? kFloat : dtype;
      const std::string ctx = std::string(c.name) + " " + python_name(dtype);
      const Tensor x0 = make_input(c.x, kFloat, 1).to(dtype),
                   w0 = make_input(c.w, kFloat, 2).to(dtype);
      const Tensor b0 = make_input({c.bias}, kFloat, 3).to(dtype);
      auto run = [&](Device dev, ScalarType t) {
        Tensor x = x0.to(dev, t).requires_grad_(true), w = w0.to(dev, t).requires_grad_(true),
               b = b0.to(dev, t).requires_grad_(true);
        Tensor y = c.f(x, w, b);
        const Tensor g = make_input(y.sizes().vec(), kFloat, 4).to(dev, t);
        y.backward(g);
        return std::vector<Tensor>{y.detach(), x.grad(), w.grad(), b.grad()};
      };
      const std::vector<Tensor> got = run(Device("cuda:0"), dtype);
      const std::vector<Tensor> want = run(Device("cpu"), ref_dtype);
      const double tol = dtype == kBFloat16 ? 3e-2 : dtype == kHalf ? 5e-3 : 1e-5;
      const char* what[] = {"output", "grad x", "grad w", "grad b"};
      for (size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(ctx + ": " + what[i]);
        ASSERT_EQ(got[i].dtype(), dtype);
        expect_close(got[i].to(Device("cpu"), ref_dtype), want[i], tol, tol);
      }
    }
  }
}

// With cuDNN each direction is one direct call (no im2col); set_enabled(false) goes back to
// Ember's im2col kernels and cuBLAS, with the same result.
TEST(Cudnn, ConvolutionIsOneCallAndEnabledSwitchesItOff) {
  EMBER_SKIP_WITHOUT_CUDA();
  if (!backends::cudnn::is_available()) GTEST_SKIP() << "this build has no cuDNN";
  CudnnSettings restore;
  const Device dev("cuda:0");
  const Tensor x0 = make_input({2, 3, 8, 8}, kFloat, 1).to(dev),
               w0 = make_input({4, 3, 3, 3}, kFloat, 2).to(dev);
  std::vector<Tensor> results;
  for (bool enabled : {true, false}) {
    backends::cudnn::set_enabled(enabled);
    Tensor x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
    profiler::profile prof;
    Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().padding(1));
    y.sum().backward();
    cuda::synchronize();
    prof.stop();
    EXPECT_EQ(count_named(prof.events(), "ember::convolution"), enabled ? 1u : 0u);
    EXPECT_EQ(count_named(prof.events(), "ember::convolution_backward"), enabled ? 1u : 0u);
    EXPECT_EQ(count_named(prof.events(), "ember::im2col"), enabled ? 0u : 1u);
    results.push_back(y.detach());
    results.push_back(x.grad());
    results.push_back(w.grad());
  }
  for (size_t i = 0; i < 3; ++i) expect_close(results[i].cpu(), results[i + 3].cpu(), 1e-5, 1e-5);
}

#if defined(EMBER_TEST_WITH_SIM)

// conv2d forward and backward on a case of its own (the caches are per case).
void conv_step(int64_t size, int64_t channels) {
  const Device dev("cuda:0");
  Tensor x = make_input({1, channels, size, size}, kFloat, 5).to(dev).requires_grad_(true);
  Tensor w = make_input({2, channels, 3, 3}, kFloat, 6).to(dev).requires_grad_(true);
  F::conv2d(x, w, F::Conv2dFuncOptions().padding(1)).sum().backward();
  cuda::synchronize();
}

// The shim's heuristics list the non-deterministic ALGO_0 first for both backward directions
// (and ALGO_1, with a workspace, first for the forward): deterministic and
// use_deterministic_algorithms must skip it, and the workspace comes with the call.
TEST(Cudnn, DeterministicChoosesDeterministicAlgorithms) {
  EMBER_SKIP_WITHOUT_CUDA();
  CudnnSettings restore;
  conv_step(7, 3);  // backward filter is the last cuDNN convolution call of a step
  cuda_sim::CudnnCallRecord r = cuda_sim::last_cudnn_call();
  ASSERT_NE(r.call, nullptr);
  EXPECT_STREQ(r.call, "cudnnConvolutionBackwardFilter");
  EXPECT_EQ(r.algo, 0);
  EXPECT_EQ(r.workspace_bytes, 0u);
  EXPECT_EQ(static_cast<void*>(r.stream), cuda::getCurrentCUDAStream(0).stream());

  backends::cudnn::set_deterministic(true);
  conv_step(7, 3);
  r = cuda_sim::last_cudnn_call();
  EXPECT_STREQ(r.call, "cudnnConvolutionBackwardFilter");
  EXPECT_EQ(r.algo, 1);
  EXPECT_EQ(r.workspace_bytes, 64u << 10);  // ALGO_1's, from the caching allocator
  backends::cudnn::set_deterministic(false);

  use_deterministic_algorithms(true);
  conv_step(7, 3);
  EXPECT_EQ(cuda_sim::last_cudnn_call().algo, 1);
  use_deterministic_algorithms(false);

  // float32 convolutions may use TF32 unless allow_tf32 is off (FMA math, 3).
  const bool tf32 = backends::cudnn::allow_tf32();
  backends::cudnn::set_allow_tf32(false);
  conv_step(6, 3);
  EXPECT_EQ(cuda_sim::last_cudnn_call().math_type, 3);
  backends::cudnn::set_allow_tf32(tf32);
}

// benchmark: one search per direction the first time a case runs, none when it runs again.
TEST(Cudnn, BenchmarkSearchesOncePerCase) {
  EMBER_SKIP_WITHOUT_CUDA();
  CudnnSettings restore;
  backends::cudnn::set_benchmark(true);
  const uint64_t before = cuda_sim::cudnn_searches();
  conv_step(11, 2);
  EXPECT_EQ(cuda_sim::cudnn_searches() - before, 3u);  // forward, backward data, backward filter
  conv_step(11, 2);
  EXPECT_EQ(cuda_sim::cudnn_searches() - before, 3u);
  conv_step(12, 2);
  EXPECT_EQ(cuda_sim::cudnn_searches() - before, 6u);
  backends::cudnn::set_benchmark(false);
  conv_step(13, 2);
  EXPECT_EQ(cuda_sim::cudnn_searches() - before, 6u);
}

// The shim refuses what cuDNN refuses, with cuDNN's status codes.
TEST(CudnnShim, ChecksArgumentsAsCudnn) {
  EMBER_SKIP_WITHOUT_CUDA();
  cudnnHandle_t h = nullptr;
  ASSERT_EQ(cudnnCreate(&h), CUDNN_STATUS_SUCCESS);
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&x), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateTensorDescriptor(&y), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateFilterDescriptor(&w), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
  const int xd[] = {1, 4, 5, 5}, xs[] = {100, 25, 5, 1}, wd[] = {2, 4, 3, 3};
  const int yd[] = {1, 2, 5, 5}, ys[] = {50, 25, 5, 1};
  const int pad[] = {1, 1}, one[] = {1, 1}, bad_pad[] = {-1, 1}, zero_dims[] = {1, 0, 5, 5};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(x, CUDNN_DATA_FLOAT, 4, zero_dims, xs),
            CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(cudnnSetTensorNdDescriptor(x, CUDNN_DATA_FLOAT, 4, xd, xs), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetTensorNdDescriptor(y, CUDNN_DATA_FLOAT, 4, yd, ys), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnSetFilterNdDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wd),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionNdDescriptor(conv, 2, bad_pad, one, one, CUDNN_CROSS_CORRELATION,
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(cudnnSetConvolutionNdDescriptor(conv, 2, pad, one, one, CUDNN_CROSS_CORRELATION,
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionGroupCount(conv, 0), CUDNN_STATUS_BAD_PARAM);
  size_t bytes = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(
                h, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &bytes),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 64u << 10);
  // Groups that do not divide the channels the filter says: C = 4 is not 2 groups of 4.
  ASSERT_EQ(cudnnSetConvolutionGroupCount(conv, 2), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(
                h, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &bytes),
            CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(cudnnSetConvolutionGroupCount(conv, 1), CUDNN_STATUS_SUCCESS);
  // An output whose size does not follow from the window.
  const int wrong_y[] = {1, 2, 4, 5};
  ASSERT_EQ(cudnnSetTensorNdDescriptor(y, CUDNN_DATA_FLOAT, 4, wrong_y, ys), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(
                h, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &bytes),
            CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(cudnnSetTensorNdDescriptor(y, CUDNN_DATA_FLOAT, 4, yd, ys), CUDNN_STATUS_SUCCESS);
  // ALGO_1 with less workspace than it asks for.
  const Device dev("cuda:0");
  const Tensor tx = zeros({1, 4, 5, 5}, TensorOptions().device(dev)),
               tw = zeros({2, 4, 3, 3}, TensorOptions().device(dev)),
               ty = empty({1, 2, 5, 5}, TensorOptions().device(dev)),
               ws = empty({1024}, TensorOptions().device(dev));
  const float a = 1, b = 0;
  EXPECT_EQ(cudnnConvolutionForward(h, &a, x, tx.data_ptr(), w, tw.data_ptr(), conv,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, ws.data_ptr(),
                                    4096, &b, y, ty.data_ptr()),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnConvolutionForward(h, &a, x, tx.data_ptr(), w, tw.data_ptr(), conv,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &b, y,
                                    ty.data_ptr()),
            CUDNN_STATUS_SUCCESS);
  cuda::synchronize();
  EXPECT_EQ(ty.abs().sum().item<float>(), 0.0f);  // beta 0: the uninitialised output not read
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM");
  cudnnDestroyConvolutionDescriptor(conv);
  cudnnDestroyFilterDescriptor(w);
  cudnnDestroyTensorDescriptor(y);
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroy(h);
}

#endif  // EMBER_TEST_WITH_SIM

}  // namespace
}  // namespace ember
