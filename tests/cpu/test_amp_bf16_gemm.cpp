// The CPU backend's bfloat16 GEMM (oneDNN's bfloat16 kernels when Ember is built with it, the
// float32 route otherwise): every operand layout the front ends pass (row- and column-major,
// batch 1 and stride-0 batches shared by every product), alpha and beta, the summed form of the
// convolution's weight gradient, and layouts oneDNN declines, all against the same product in
// float64 rounded once to bfloat16.
#include <gtest/gtest.h>

#include <iostream>

#include "core/backend.h"
#include "core/tensor_factory.h"
#include "cpu/bf16_gemm.h"
#include "ember/ember.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

using namespace ember;
using ember::testing::expect_close;

namespace {

// A [B, R, C] bfloat16 operand laid out as asked: column-major matrices, or one matrix shared by
// every batch through a stride of 0.
Tensor operand(int64_t B, int64_t R, int64_t C, bool column_major, bool shared, uint64_t seed) {
  manual_seed(seed);
  Tensor m = randn({shared ? 1 : B, column_major ? C : R, column_major ? R : C}).to(kBFloat16);
  if (column_major) m = m.transpose(1, 2);
  if (shared) m = m.expand({B, R, C});
  return m;
}

// alpha * a @ b + beta * out in float64, summed over the batch when out has batch 1, rounded once.
Tensor reference(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta) {
  Tensor p = matmul(a.to(kDouble), b.to(kDouble));
  if (out.size(0) == 1 && p.size(0) > 1) p = p.sum({0}, true);
  return (p * alpha + out.to(kDouble) * beta).to(kBFloat16);
}

struct GemmCase {
  const char* name;
  int64_t B, M, K, N;
  bool a_col, b_col, a_shared, b_shared;
  bool summed;
  double alpha, beta;
};

TEST(Bf16Gemm, EveryLayoutMatchesFloat64RoundedOnce) {
  std::cout << "CPU bfloat16 GEMM kernel: "
            << (*cpu::bf16_gemm_kernel() ? cpu::bf16_gemm_kernel() : "float32 route") << "\n";
  const GemmCase cases[] = {
      {"row_major", 1, 17, 33, 9, false, false, false, false, false, 1, 0},
      {"weight_transposed", 1, 16, 64, 24, false, true, false, false, false, 1, 0},
      {"both_transposed", 1, 12, 40, 20, true, true, false, false, false, 1, 0},
      {"batched", 3, 8, 16, 5, false, false, false, false, false, 1, 0},
      {"shared_weight", 4, 6, 12, 7, false, true, false, true, false, 1, 0},
      {"shared_input", 4, 6, 12, 7, false, false, true, false, false, 1, 0},
      {"alpha_beta", 2, 9, 20, 11, false, false, false, false, false, 0.5, 2.0},
      {"beta_one", 1, 9, 20, 11, true, false, false, false, false, 1, 1},
      {"summed", 6, 10, 30, 8, false, true, false, false, true, 1, 0},
      {"summed_beta", 5, 4, 9, 6, true, false, false, false, true, 2, 1},
      {"vector_output", 1, 1, 50, 1, false, false, false, false, false, 1, 0},
  };
  for (const GemmCase& c : cases) {
    Tensor a = operand(c.B, c.M, c.K, c.a_col, c.a_shared, 1);
    Tensor b = operand(c.B, c.K, c.N, c.b_col, c.b_shared, 2);
    manual_seed(3);
    Tensor out = randn({c.summed ? 1 : c.B, c.M, c.N}).to(kBFloat16);
    const Tensor expected = reference(out, a, b, c.alpha, c.beta);
    cpu_backend().gemm(out, a, b, c.alpha, c.beta);
    // One rounding of a float32 sum taken in another order: within 2 ulps (2^-7 relative).
    expect_close(out, expected, 1.0 / 64, 1e-2, c.name);
  }
}

// Layouts oneDNN's fast kernels do not read (here: every other column) take the float32 route,
// with the same result.
TEST(Bf16Gemm, OtherLayoutsFallBack) {
  manual_seed(4);
  Tensor wide = randn({1, 8, 40}).to(kBFloat16);
  Tensor a = make_view(wide, {1, 8, 20}, {320, 40, 2}, 0);  // stride 2 along K
  Tensor b = randn({1, 20, 6}).to(kBFloat16);
  Tensor out = make_empty({1, 8, 6}, kBFloat16, Device(kCPU));
  EXPECT_FALSE(cpu::bf16_gemm(out, a, b, 1, 0));
  cpu_backend().gemm(out, a, b, 1, 0);
  expect_close(out, reference(out, a, b, 1, 0), 1.0 / 64, 1e-2, "strided operand");
}

// What autocast needs: matmul and linear in bfloat16 match PyTorch's float64 product of the
// same bfloat16 values, rounded once.
TEST(Bf16Gemm, FrontEndsUnderAutocast) {
  manual_seed(5);
  Tensor x = randn({32, 64}), w = randn({48, 64}), bias = randn({48});
  Tensor y;
  {
    amp::autocast region(kCPU);
    y = nn::functional::linear(x, w, bias);
  }
  auto r = ember::testing::torch_run(
      "y = F.linear(x.bfloat16().double(), w.bfloat16().double(), b.bfloat16().double())"
      ".bfloat16()",
      {{"x", x}, {"w", w}, {"b", bias}});
  expect_close(y, r.at("y"), 1.0 / 64, 1e-2, "linear under autocast");
}

}  // namespace
