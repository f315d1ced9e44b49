// scaled_dot_product_attention beyond its op-table rows (tests/ops/op_rows_nn.cpp, which hold both
// backends to PyTorch's composition on every device): the backend choice and its reasons, the
// fused kernel against the math path on shapes of several blocks, dropout (the kept fraction,
// the scaling, one mask for one seed on every device, gradients through the mask), no [L, S]
// buffer in the forward, and bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/nn/attention.h"
#include "ember/ops.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"

namespace ember::testing {
namespace {

using nn::attention::last_choice;
using nn::attention::SdpaKernelGuard;
using nn::attention::SDPBackend;

Tensor math_sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask = {},
                 bool causal = false) {
  SdpaKernelGuard math({SDPBackend::MATH});
  return scaled_dot_product_attention(q, k, v, mask, 0.0, causal);
}

TEST(Attention, FusedKernelIsTheDefaultAndMathTheFallback) {
  const Tensor q = randn({1, 2, 3, 4}), k = randn({1, 2, 5, 4}), v = randn({1, 2, 5, 4});
  scaled_dot_product_attention(q, k, v);
  EXPECT_EQ(last_choice().backend, SDPBackend::FLASH_ATTENTION);
  EXPECT_TRUE(last_choice().refused.empty());
  {
    SdpaKernelGuard math({SDPBackend::MATH});
    EXPECT_EQ(nn::attention::enabled_backends(), std::vector<SDPBackend>{SDPBackend::MATH});
    scaled_dot_product_attention(q, k, v);
    EXPECT_EQ(last_choice().backend, SDPBackend::MATH);
    {
      SdpaKernelGuard flash({SDPBackend::FLASH_ATTENTION});
      scaled_dot_product_attention(q, k, v);
      EXPECT_EQ(last_choice().backend, SDPBackend::FLASH_ATTENTION);
    }
    EXPECT_EQ(nn::attention::enabled_backends(), std::vector<SDPBackend>{SDPBackend::MATH});
  }
  EXPECT_EQ(nn::attention::enabled_backends().size(), 4u);
  // A mask that needs a gradient: the kernel refuses, says why, and the math path runs.
  const Tensor mask = zeros({3, 5}).requires_grad_(true);
  scaled_dot_product_attention(q, k, v, mask);
  ASSERT_EQ(last_choice().backend, SDPBackend::MATH);
  ASSERT_GE(last_choice().refused.size(), 1u);
  EXPECT_TRUE(contains(last_choice().refused[0], "FLASH_ATTENTION: attn_mask requires grad"))
      << last_choice().refused[0];
  // With only the kernel allowed, that call has no backend: the error lists every refusal.
  SdpaKernelGuard flash_only({SDPBackend::FLASH_ATTENTION, SDPBackend::EFFICIENT_ATTENTION});
  const std::string e = error_of([&] { scaled_dot_product_attention(q, k, v, mask); });
  EXPECT_TRUE(contains(e, "no enabled backend accepts this call")) << e;
  EXPECT_TRUE(contains(e, "EFFICIENT_ATTENTION: not implemented in Ember")) << e;
  EXPECT_EQ(error_of<ValueError>([] { SdpaKernelGuard none({}); }),
            "sdpa_kernel: the list of backends is empty");
}

// Shapes of several query and key blocks (64 queries, 256 keys or 128 when causal), every mask
// kind, forward and gradients against the math path in float64 on every device.
TEST(Attention, FusedKernelMatchesTheMathPathOverManyBlocks) {
  struct Case {
    const char* name;
    std::vector<int64_t> q, k, v;
    bool causal, bool_mask;
  };
  const std::vector<Case> cases = {
      {"plain", {2, 2, 130, 16}, {2, 2, 300, 16}, {2, 2, 300, 24}, false, false},
      {"causal", {1, 3, 150, 8}, {1, 3, 150, 8}, {1, 3, 150, 8}, true, false},
      {"causal_longer_keys", {1, 1, 40, 8}, {1, 1, 140, 8}, {1, 1, 140, 8}, true, false},
      {"bool_mask", {2, 1, 90, 8}, {2, 1, 270, 8}, {2, 1, 270, 8}, false, true},
  };
  for (const Device dev : test_devices()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(dev.str() + " " + c.name);
      manual_seed(3);
      const auto opts = TensorOptions().dtype(kDouble).device(dev);
      const Tensor q = randn(c.q, opts).requires_grad_(true),
                   k = randn(c.k, opts).requires_grad_(true),
                   v = randn(c.v, opts).requires_grad_(true);
      Tensor mask;
      if (c.bool_mask) mask = rand({c.q[2], c.k[2]}, opts) > 0.3;
      if (c.bool_mask) mask.select(1, 0).fill_(true);  // no query without a key
      const Tensor g =
          randn(c.q, opts).narrow(3, 0, 1).expand({c.q[0], c.q[1], c.q[2], c.v[3]}).contiguous();
      const Tensor fused = scaled_dot_product_attention(q, k, v, mask, 0.0, c.causal);
      ASSERT_EQ(last_choice().backend, SDPBackend::FLASH_ATTENTION);
      const auto fused_grads = autograd::grad({fused}, {q, k, v}, {g});
      const Tensor ref = math_sdpa(q, k, v, mask, c.causal);
      const auto ref_grads = autograd::grad({ref}, {q, k, v}, {g});
      EXPECT_TRUE(allclose(fused.cpu(), ref.cpu(), 1e-10, 1e-12));
      for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(allclose(fused_grads[i].cpu(), ref_grads[i].cpu(), 1e-9, 1e-11)) << i;
      }
    }
  }
}

TEST(Attention, FusedGradientsMatchFiniteDifferences) {
  const auto f = [](const std::vector<Tensor>& x) {
    return scaled_dot_product_attention(x[0], x[1], x[2], {}, 0.0, true, 0.7);
  };
  for (const Device dev : test_devices()) {
    expect_gradients_match_finite_differences(
        f, {randn({1, 2, 6, 3}), randn({1, 2, 6, 3}), randn({1, 2, 6, 2})}, dev, dev.str());
  }
}

// With q = 0 every weight is 1 / S; with v = I the output is those weights after dropout, so the
// mask can be read back: out * S * (1 - p) is 1 where kept and 0 where dropped.
Tensor dropout_mask(Device dev, double p, int64_t L, int64_t S, uint64_t seed) {
  manual_seed(seed);
  const auto opts = TensorOptions().device(dev);
  const Tensor out =
      scaled_dot_product_attention(zeros({2, 3, L, 4}, opts), randn({2, 3, S, 4}, opts),
                                   eye(S, opts).expand({2, 3, S, S}), {}, p);
  return (out * (S * (1 - p))).cpu();
}

TEST(Attention, DropoutKeepsOneMinusPAndScalesTheKept) {
  const double p = 0.3;
  const Tensor m = dropout_mask(kCPU, p, 64, 128, 11);
  EXPECT_TRUE(allclose(m, m.round(), 0, 1e-5)) << "every weight is dropped or scaled by 1/(1-p)";
  const double kept = m.mean().item<double>();
  EXPECT_NEAR(kept, 1 - p, 0.01) << "49152 draws";
  // One seed, one mask; another seed, another.
  EXPECT_TRUE(equal(m, dropout_mask(kCPU, p, 64, 128, 11)));
  EXPECT_FALSE(equal(m, dropout_mask(kCPU, p, 64, 128, 12)));
}

TEST(Attention, DropoutMaskIsTheSameOnEveryDevice) {
  EMBER_SKIP_WITHOUT_CUDA();
  const Tensor cpu = dropout_mask(kCPU, 0.25, 33, 70, 5);
  for (const Device dev : cuda_devices()) {
    EXPECT_TRUE(allclose(dropout_mask(dev, 0.25, 33, 70, 5), cpu, 0, 1e-5)) << dev.str();
  }
}

// The gradients through dropout: the math composition with the fused call's own mask.
TEST(Attention, DropoutGradientsMatchTheCompositionWithTheSameMask) {
  const double p = 0.4;
  for (const Device dev : test_devices()) {
    SCOPED_TRACE(dev.str());
    const int64_t L = 70, S = 66;
    // [2, 3, L, S], read back in float32: exactly 0 or 1 after rounding.
    const Tensor keep = dropout_mask(dev, p, L, S, 21).round().to(kDouble).to(dev);
    const auto opts = TensorOptions().dtype(kDouble).device(dev);
    const Tensor q = randn({2, 3, L, 4}, opts).requires_grad_(true),
                 k = randn({2, 3, S, 4}, opts).requires_grad_(true),
                 v = randn({2, 3, S, 5}, opts).requires_grad_(true);
    manual_seed(21);      // the same stream: the mask depends only on the seed and the positions
    randn({2, 3, S, 4});  // dropout_mask drew k before the call
    const Tensor fused = scaled_dot_product_attention(q, k, v, {}, p);
    const Tensor weights = softmax(matmul(q, k.transpose(-2, -1)) * 0.5, -1);
    const Tensor ref = matmul(weights * keep / (1 - p), v);
    EXPECT_TRUE(allclose(fused.cpu(), ref.cpu(), 1e-10, 1e-12));
    const Tensor g = randn({2, 3, L, 5}, opts);
    const auto a = autograd::grad({fused}, {q, k, v}, {g});
    const auto b = autograd::grad({ref}, {q, k, v}, {g});
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(allclose(a[i].cpu(), b[i].cpu(), 1e-9, 1e-11)) << i;
  }
}

// The forward never holds the [L, S] scores: its peak is the inputs and the output, not T x T.
TEST(Attention, ForwardAllocatesNoScoreMatrix) {
  EMBER_SKIP_WITHOUT_CUDA();
  const Device dev = cuda_devices().front();
  const int64_t T = 1024;
  const auto opts = TensorOptions().device(dev);
  const Tensor q = randn({1, 1, T, 16}, opts), k = randn({1, 1, T, 16}, opts),
               v = randn({1, 1, T, 16}, opts);
  cuda::synchronize();
  const size_t before = cuda::memory_allocated(dev.index());
  cuda::reset_peak_memory_stats(dev.index());
  Tensor out = scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  cuda::synchronize();
  const size_t peak = cuda::max_memory_allocated(dev.index()) - before;
  EXPECT_LT(peak, size_t(T * T * 4 / 8)) << "a [T, T] float buffer is " << T * T * 4 << " bytes";
  EXPECT_GT(peak, size_t(T * 16 * 4)) << "the output is allocated";
  {
    SdpaKernelGuard math({SDPBackend::MATH});
    cuda::reset_peak_memory_stats(dev.index());
    out = scaled_dot_product_attention(q, k, v, {}, 0.0, true);
    cuda::synchronize();
    EXPECT_GE(cuda::max_memory_allocated(dev.index()) - before, size_t(T * T * 4))
        << "the math path does hold the scores (the check can see them)";
  }
}

TEST(Attention, HalfAndBFloat16AccumulateInFloat) {
  for (const Device dev : test_devices()) {
    for (const ScalarType t : {kHalf, kBFloat16}) {
      SCOPED_TRACE(dev.str() + " " + to_string(t));
      manual_seed(9);
      const Tensor q = randn({2, 2, 80, 16}), k = randn({2, 2, 75, 16}), v = randn({2, 2, 75, 16});
      const Tensor low = scaled_dot_product_attention(q.to(dev).to(t), k.to(dev).to(t),
                                                      v.to(dev).to(t), {}, 0.0, true);
      ASSERT_EQ(low.scalar_type(), t);
      const Tensor ref =
          math_sdpa(q.to(t).to(kDouble), k.to(t).to(kDouble), v.to(t).to(kDouble), {}, true);
      const double tol = t == kHalf ? 2e-3 : 1.6e-2;
      EXPECT_TRUE(allclose(low.cpu().to(kDouble), ref, tol, tol));
    }
  }
}

TEST(Attention, BadInputSaysWhatIsWrong) {
  const Tensor q = randn({2, 4, 3, 8}), k = randn({2, 4, 5, 8}), v = randn({2, 4, 5, 8});
  EXPECT_EQ(error_of<TypeError>([&] { scaled_dot_product_attention(q, k.to(kDouble), v); }),
            "Expected query, key, and value to have the same dtype, but got query.dtype: float "
            "key.dtype: double and value.dtype: float instead.");
  EXPECT_EQ(error_of<ValueError>([&] { scaled_dot_product_attention(q, k, v, {}, 1.0); }),
            "scaled_dot_product_attention: dropout_p must be in [0, 1), but got 1");
  EXPECT_EQ(error_of<ValueError>([&] { scaled_dot_product_attention(q, k, v, {}, -0.1); }),
            "scaled_dot_product_attention: dropout_p must be in [0, 1), but got -0.1");
  EXPECT_EQ(error_of<ValueError>([&] {
              scaled_dot_product_attention(q, k, v, ones({3, 5}, kBool), 0.0, true);
            }),
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True");
  EXPECT_EQ(error_of<TypeError>([&] {
              scaled_dot_product_attention(q, k, v, ones({3, 5}, kLong));
            }),
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            "attn_mask.dtype: long int and  query.dtype: float instead.");
  EXPECT_EQ(error_of<ValueError>([&] {
              scaled_dot_product_attention(q, randn({2, 4, 5, 7}), v);
            }),
            "scaled_dot_product_attention: query and key must have the same last dim, but got "
            "query [2, 4, 3, 8] and key [2, 4, 5, 7]");
  EXPECT_EQ(error_of<ValueError>([&] {
              scaled_dot_product_attention(q, k, randn({2, 4, 6, 8}));
            }),
            "scaled_dot_product_attention: key and value must have the same sequence length, but "
            "got key [2, 4, 5, 8] and value [2, 4, 6, 8]");
  const Tensor k3 = randn({2, 3, 5, 8});
  EXPECT_EQ(error_of<ValueError>([&] {
              scaled_dot_product_attention(q, k3, k3, {}, 0.0, false, std::nullopt, true);
            }),
            "scaled_dot_product_attention: number of heads in key and value must divide the number "
            "of heads in query, but got query heads 4, key heads 3, value heads 3");
  EXPECT_EQ(error_of<ValueError>([&] { scaled_dot_product_attention(q, k3, k3); }),
            "scaled_dot_product_attention: query has 4 heads but key has 3 (pass enable_gqa=true "
            "for grouped-query attention)");
  EXPECT_EQ(error_of<ValueError>([&] {
              scaled_dot_product_attention(q, k, v, ones({4, 5}, kBool));
            }),
            "scaled_dot_product_attention: attn_mask of shape [4, 5] does not broadcast to the "
            "attention scores' shape [2, 4, 3, 5]");
  EXPECT_EQ(error_of<DeviceError>([&] { scaled_dot_product_attention(q, k.to(kMeta), v); }),
            "Expected query, key, and value to have the same device type, but got query.device: "
            "cpu key.device: meta and value.device: cpu instead.");
  // And the function still works.
  EXPECT_EQ(scaled_dot_product_attention(q, k, v).sizes(), (std::vector<int64_t>{2, 4, 3, 8}));
}

}  // namespace
}  // namespace ember::testing
