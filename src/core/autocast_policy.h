#pragma once
// What autocast does to each op's floating inputs: the only place the op lists live. The two
// columns are PyTorch 1.13's lists for CUDA and for the CPU (aten/src/ATen/autocast_mode.cpp),
// restricted to the ops Ember has; an op missing here runs in its inputs' dtype. Ops marked
// Native are Ember composites of ops that are listed (e.g. batch_norm uses rsqrt, avg_pool2d a
// sum) where PyTorch has one kernel: listing them keeps their inner ops from autocasting.
#include <cstdint>

namespace ember::amp {

enum class CastPolicy : uint8_t {
  Native,           // inputs as they are (the op itself handles mixed dtypes)
  LowerPrecision,   // floating inputs to the region's dtype (float16 / bfloat16)
  Float32,          // floating inputs to float32
  Float32OptDtype,  // float32 output unless the caller passed a dtype (softmax, sum, prod)
  Promote,          // floating inputs to the widest of them
};

// _(op, CUDA policy, CPU policy)
#define EMBER_AUTOCAST_OPS(_)                                    \
  /* lower precision: the GEMMs and convolutions */              \
  _(mm, LowerPrecision, LowerPrecision)                          \
  _(bmm, LowerPrecision, LowerPrecision)                         \
  _(addmm, LowerPrecision, LowerPrecision)                       \
  _(matmul, LowerPrecision, LowerPrecision)                      \
  _(linear, LowerPrecision, LowerPrecision)                      \
  _(conv2d, LowerPrecision, LowerPrecision)                      \
  _(conv_transpose2d, LowerPrecision, Float32)                   \
  /* PyTorch 2.x's CUDA list (1.13 has no such op) */            \
  _(scaled_dot_product_attention, LowerPrecision, Native)        \
  /* float32: range-sensitive math, norms and losses */          \
  _(exp, Float32, Native)                                        \
  _(log, Float32, Native)                                        \
  _(rsqrt, Float32, Native)                                      \
  _(pow, Float32, Native)                                        \
  _(logsumexp, Float32, Native)                                  \
  _(norm, Float32, Native)                                       \
  _(layer_norm, Float32, Native)                                 \
  _(nll_loss, Float32, Float32)                                  \
  _(cross_entropy, Float32, Float32)                             \
  _(mse_loss, Float32, Float32)                                  \
  _(l1_loss, Float32, Float32)                                   \
  _(binary_cross_entropy_with_logits, Float32, Float32)          \
  _(softmax, Float32OptDtype, Native)                            \
  _(log_softmax, Float32OptDtype, Native)                        \
  _(sum, Float32OptDtype, Native)                                \
  _(prod, Float32OptDtype, Float32)                              \
  /* widest input type */                                        \
  _(cat, Promote, Promote)                                       \
  _(stack, Promote, Promote)                                     \
  /* composites of listed ops that PyTorch runs as one kernel */ \
  _(batch_norm, Native, Native)                                  \
  _(avg_pool2d, Native, Native)                                  \
  _(adaptive_avg_pool2d, Native, Native)

enum class AutocastOp : uint8_t {
#define EMBER_AUTOCAST_ENUM(op, cuda, cpu) op,
  EMBER_AUTOCAST_OPS(EMBER_AUTOCAST_ENUM)
#undef EMBER_AUTOCAST_ENUM
};

constexpr CastPolicy cast_policy(AutocastOp op, bool on_cuda) {
  switch (op) {
#define EMBER_AUTOCAST_CASE(op, cuda, cpu) \
  case AutocastOp::op:                     \
    return on_cuda ? CastPolicy::cuda : CastPolicy::cpu;
    EMBER_AUTOCAST_OPS(EMBER_AUTOCAST_CASE)
#undef EMBER_AUTOCAST_CASE
  }
  return CastPolicy::Native;
}

constexpr const char* op_name(AutocastOp op) {
  switch (op) {
#define EMBER_AUTOCAST_NAME(op, cuda, cpu) \
  case AutocastOp::op:                     \
    return #op;
    EMBER_AUTOCAST_OPS(EMBER_AUTOCAST_NAME)
#undef EMBER_AUTOCAST_NAME
  }
  return "?";
}

}  // namespace ember::amp
