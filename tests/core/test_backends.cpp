// ember/backends.h: the cuDNN switches keep what they are given (PyTorch's defaults first), and
// use_deterministic_algorithms makes the CUDA kernels that accumulate with float atomics refuse
// (or warn once with warn_only) while the CPU and the integer forms run; max-pool's CUDA backward
// is a gather, so it is bitwise repeatable and runs under determinism.
#include <gtest/gtest.h>

#include "ember/backends.h"
#include "ember/nn/ops.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"

namespace ember::testing {
namespace {

// Restores the process-wide switches a test changed.
struct SwitchesRestored {
  ~SwitchesRestored() {
    use_deterministic_algorithms(false);
    backends::cudnn::set_enabled(true);
    backends::cudnn::set_benchmark(false);
    backends::cudnn::set_deterministic(false);
    backends::cudnn::set_allow_tf32(true);
  }
};

TEST(Backends, CudnnSwitchesStartAsPyTorchsAndKeepWhatTheyAreGiven) {
  SwitchesRestored restore;
  namespace cudnn = backends::cudnn;
  EXPECT_TRUE(cudnn::enabled());
  EXPECT_FALSE(cudnn::benchmark());
  EXPECT_FALSE(cudnn::deterministic());
  EXPECT_TRUE(cudnn::allow_tf32());
  // Whether the build has cuDNN (tests/cuda/test_cuda_cudnn.cpp checks which builds do).
  EXPECT_EQ(cudnn::is_available(), cudnn::version() > 0);
  cudnn::set_benchmark(true);
  cudnn::set_deterministic(true);
  cudnn::set_enabled(false);
  cudnn::set_allow_tf32(false);
  EXPECT_TRUE(cudnn::benchmark());
  EXPECT_TRUE(cudnn::deterministic());
  EXPECT_FALSE(cudnn::enabled());
  EXPECT_FALSE(cudnn::allow_tf32());
}

TEST(Backends, DeterministicSwitchReportsItsState) {
  SwitchesRestored restore;
  EXPECT_FALSE(are_deterministic_algorithms_enabled());
  use_deterministic_algorithms(true, /*warn_only=*/true);
  EXPECT_TRUE(are_deterministic_algorithms_enabled());
  EXPECT_TRUE(is_deterministic_algorithms_warn_only_enabled());
  use_deterministic_algorithms(true);
  EXPECT_FALSE(is_deterministic_algorithms_warn_only_enabled());
  EXPECT_THROW(detail::alert_not_deterministic("some_kernel"), Error);
  use_deterministic_algorithms(false);
  EXPECT_NO_THROW(detail::alert_not_deterministic("some_kernel"));
}

TEST(Backends, AlertNamesTheKernel) {
  SwitchesRestored restore;
  use_deterministic_algorithms(true);
  try {
    detail::alert_not_deterministic("index_add_cuda_");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index_add_cuda_ does not have a deterministic "
                                         "implementation"),
              std::string::npos)
        << e.what();
  }
}

TEST(Backends, AtomicKernelsRefuseOnCudaUnderDeterminism) {
  SwitchesRestored restore;
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    const Tensor index = tensor({int64_t(0), int64_t(0), int64_t(2)}).to(dev);
    const Tensor target = zeros({3}).to(dev);
    const Tensor ones3 = ones({3}).to(dev);
    use_deterministic_algorithms(true);
    if (dev.is_cuda()) {
      EXPECT_THROW(target.index_add(0, index, ones3), Error);
      EXPECT_THROW(target.scatter_add(0, index, ones3), Error);
      EXPECT_THROW(target.index_copy(0, index, ones3), Error);
      // Integer atomics sum the same in every order.
      const Tensor ints = zeros({3}, kLong).to(dev).index_add(0, index, ones({3}, kLong).to(dev));
      EXPECT_TRUE(equal(ints.cpu(), tensor({int64_t(2), int64_t(0), int64_t(1)})));
      use_deterministic_algorithms(true, /*warn_only=*/true);
    }
    const Tensor sum = target.index_add(0, index, ones3);
    EXPECT_TRUE(equal(sum.cpu(), tensor({2.0f, 0.0f, 1.0f})));
    const Tensor scattered = target.scatter_add(0, index, ones3);
    EXPECT_TRUE(equal(scattered.cpu(), tensor({2.0f, 0.0f, 1.0f})));
    use_deterministic_algorithms(false);
  }
}

TEST(Backends, MaxPoolBackwardIsRepeatableOnEveryDevice) {
  SwitchesRestored restore;
  use_deterministic_algorithms(true);
  manual_seed(0);
  const Tensor x = randn({2, 3, 9, 11});
  Tensor cpu_grad;
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    std::vector<Tensor> grads;
    for (int run = 0; run < 2; ++run) {
      Tensor xd = x.to(dev).detach().requires_grad_(true);
      // Overlapping windows (kernel 3, stride 2): several outputs may choose one input.
      const Tensor out = max_pool2d(xd, 3, 2, 1);
      const Tensor weights = arange(out.numel()).to(kFloat).reshape(out.sizes()).to(dev);
      (out * weights).sum().backward();
      grads.push_back(xd.grad().cpu());
    }
    EXPECT_TRUE(equal(grads[0], grads[1]));
    if (!cpu_grad.defined()) cpu_grad = grads[0];
    EXPECT_TRUE(allclose(grads[0], cpu_grad));
  }
}

}  // namespace
}  // namespace ember::testing
