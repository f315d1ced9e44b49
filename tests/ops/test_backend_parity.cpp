// The backend-parity table (DESIGN.md section 6): one row per op. Every row runs on every
// available device, with contiguous and non-contiguous inputs, against the CPU result on the same
// seeded inputs; rows with a PyTorch expression are also checked against PyTorch on the CPU, and
// differentiable rows check autograd against central finite differences in float64 on each device.
// To add an op: add one row to rows() below (see docs/testing.md); an op of ember/op_table.h
// gets its row from the table in tests/ops/test_op_database.cpp instead.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <set>

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/nn/functional.h"
#include "ember/nn/ops.h"
#include "ember/tensor_data.h"
#include "support/cuda_skip.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

using Args = std::vector<Tensor>;
using OpFn = Tensor (*)(const Args&);

struct OpRow {
  const char* name;  // unique, [A-Za-z0-9_]
  std::vector<InputSpec> inputs;
  OpFn fn;
  const char* torch = nullptr;  // Python expression over a, b, c, d; nullptr: no PyTorch check
  bool grad = false;            // check gradients of the floating inputs
  double rtol = 1e-5;
  double atol = 1e-6;
};

// OP(expr): the row's function, with the inputs named a, b, c, d as in the PyTorch expression.
#define OP(...)                                                 \
  [](const Args& x) -> Tensor {                                 \
    [[maybe_unused]] const Tensor& a = x.at(0);                 \
    [[maybe_unused]] const Tensor& b = x.size() > 1 ? x[1] : a; \
    [[maybe_unused]] const Tensor& c = x.size() > 2 ? x[2] : a; \
    [[maybe_unused]] const Tensor& d = x.size() > 3 ? x[3] : a; \
    return __VA_ARGS__;                                         \
  }

InputSpec F(std::vector<int64_t> shape, Domain d = Domain::Normal) {
  return {std::move(shape), kFloat, d};
}
InputSpec T(std::vector<int64_t> shape, ScalarType dtype, Domain d = Domain::Normal) {
  return {std::move(shape), dtype, d};
}
InputSpec Idx(std::vector<int64_t> shape, int64_t high) {
  return {std::move(shape), kLong, Domain::Index, high};
}
InputSpec B(std::vector<int64_t> shape) {
  return {std::move(shape), kBool, Domain::Bool};
}

constexpr Domain kPos = Domain::Positive;
constexpr Domain kAway = Domain::AwayFromZero;
constexpr Domain kSmall = Domain::SmallInt;
constexpr Domain kUnit = Domain::Unit;
// float32 GEMMs accumulate in different orders on different backends.
constexpr double kMmRtol = 1e-4, kMmAtol = 1e-5;

const std::vector<OpRow>& rows() {
  static const std::vector<OpRow> table = {
      // The ops of ember/op_table.h (exp, mul, eq, ...) get their rows, generated from that
      // table, in tests/ops/test_op_database.cpp; here are the irregular ops, the operators, and
      // table ops on inputs composed to keep finite differences smooth.
      // ---- unary ----
      {"neg_operator", {F({3, 4})}, OP(-a), "-a", true},
      {"gelu", {F({3, 4})}, OP(ember::gelu(a)), "F.gelu(a)", true},
      {"gelu_tanh", {F({3, 4})}, OP(ember::gelu(a, "tanh")), "F.gelu(a, approximate='tanh')", true},
      {"clamp", {F({3, 4})}, OP(ember::clamp(a, -0.5, 0.5)), "torch.clamp(a, -0.5, 0.5)", true},
      {"clamp_min", {F({3, 4})}, OP(a.clamp_min(0.2)), "a.clamp_min(0.2)", true},
      {"clamp_max", {F({3, 4})}, OP(a.clamp_max(-0.1)), "a.clamp_max(-0.1)", true},
      {"clamp_int64", {T({3, 4}, kLong)}, OP(ember::clamp(a, -2, 2)), "torch.clamp(a, -2, 2)"},
      {"pow_scalar_base", {F({3, 4})}, OP(ember::pow(2.0, a)), "torch.pow(2.0, a)", true},

      // ---- binary, broadcasting, scalars, promotion ----
      {"add", {F({3, 4}), F({3, 4})}, OP(ember::add(a, b)), "torch.add(a, b)", true},
      {"add_broadcast_row", {F({3, 4}), F({4})}, OP(a + b), "a + b", true},
      {"add_broadcast_both", {F({3, 1}), F({1, 4})}, OP(a + b), "a + b", true},
      {"add_broadcast_3d", {F({2, 1, 4}), F({3, 1})}, OP(a + b), "a + b", true},
      {"add_zero_dim", {F({3, 4}), F({})}, OP(a + b), "a + b", true},
      {"add_alpha",
       {F({3, 4}), F({3, 4})},
       OP(ember::add(a, b, 2.5)),
       "torch.add(a, b, alpha=2.5)",
       true},
      {"add_scalar", {F({3, 4})}, OP(a + 1.5), "a + 1.5", true},
      {"add_scalar_left", {F({3, 4})}, OP(1.5 + a), "1.5 + a", true},
      {"add_scalar_alpha", {F({3, 4})}, OP(ember::add(a, 2, 3)), "torch.add(a, 2, alpha=3)", true},
      {"add_int64", {T({3, 4}, kLong), T({3, 4}, kLong)}, OP(a + b), "a + b"},
      {"add_int32_int64", {T({3, 4}, kInt), T({4}, kLong)}, OP(a + b), "a + b"},
      {"add_int_float", {T({3, 4}, kLong), F({3, 4})}, OP(a + b), "a + b"},
      {"add_float_double", {F({3, 4}), T({3, 4}, kDouble)}, OP(a + b), "a + b"},
      {"add_int_scalar_float", {T({3, 4}, kInt)}, OP(a + 0.5), "a + 0.5"},
      {"add_float16", {T({3, 4}, kHalf), T({3, 4}, kHalf)}, OP(a + b), "a + b", false, 1e-3, 1e-3},
      {"add_bool", {B({3, 4}), B({3, 4})}, OP(a + b), "a + b"},
      {"sub", {F({3, 4}), F({3, 4})}, OP(ember::sub(a, b)), "torch.sub(a, b)", true},
      {"sub_alpha",
       {F({3, 4}), F({4})},
       OP(ember::sub(a, b, 0.5)),
       "torch.sub(a, b, alpha=0.5)",
       true},
      {"sub_scalar", {F({3, 4})}, OP(a - 2), "a - 2", true},
      {"rsub_scalar", {F({3, 4})}, OP(1.5 - a), "1.5 - a", true},
      {"sub_int64", {T({3, 4}, kLong), T({3, 4}, kLong)}, OP(a - b), "a - b"},
      {"mul_scalar_left", {F({3, 4})}, OP(-0.5 * a), "-0.5 * a", true},
      {"rdiv_scalar", {F({3, 4}, kAway)}, OP(2.0 / a), "2.0 / a", true},
      // a / b kept within (1.2, 1.9) in magnitude, away from the integers where remainder and
      // fmod jump, so finite differences see a smooth function.
      {"remainder",
       {F({3, 4}, kUnit), F({3, 4}, kUnit)},
       OP((a * 0.5 + 3) % (b * 0.1 + 2)),
       "(a * 0.5 + 3) % (b * 0.1 + 2)",
       true},
      {"remainder_negative_dividend",
       {F({3, 4}, kUnit), F({4}, kUnit)},
       OP(ember::remainder(a * 0.5 - 3, b * 0.1 + 2)),
       "torch.remainder(a * 0.5 - 3, b * 0.1 + 2)",
       true},
      {"remainder_scalar_left", {F({3, 4}, kAway)}, OP(2.5 % a), "2.5 % a"},
      {"fmod",
       {F({3, 4}, kUnit), F({4}, kUnit)},
       OP(ember::fmod(a * 0.5 + 3, b * -0.1 - 2)),
       "torch.fmod(a * 0.5 + 3, b * -0.1 - 2)",
       true},
      {"div_trunc",
       {F({3, 4}), F({4}, kAway)},
       OP(ember::div(a, b, "trunc")),
       "torch.div(a, b, rounding_mode='trunc')"},
      {"div_floor_int32_scalar",
       {T({3, 4}, kInt)},
       OP(a.div(-4, "floor")),
       "a.div(-4, rounding_mode='floor')"},
      {"bitwise_xor_uint8_scalar", {T({3, 4}, kByte)}, OP(a ^ 5), "a ^ 5"},
      {"lerp",
       {F({3, 4}), F({3, 4}), F({4}, kUnit)},
       OP(ember::lerp(a, b, c)),
       "torch.lerp(a, b, c)",
       true},
      {"lerp_scalar", {F({3, 4}), F({4})}, OP(a.lerp(b, 0.75)), "a.lerp(b, 0.75)", true},
      {"addcmul",
       {F({3, 4}), F({3, 1}), F({4})},
       OP(ember::addcmul(a, b, c, 0.5)),
       "torch.addcmul(a, b, c, value=0.5)",
       true},
      {"addcdiv",
       {F({3, 4}), F({3, 4}), F({4}, kAway)},
       OP(a.addcdiv(b, c, -2)),
       "a.addcdiv(b, c, value=-2)",
       true},

      // ---- comparisons and where ----
      {"where",
       {B({3, 4}), F({3, 4}), F({3, 4})},
       OP(ember::where(a, b, c)),
       "torch.where(a, b, c)",
       true},
      {"where_broadcast",
       {B({4}), F({3, 1}), F({3, 4})},
       OP(ember::where(a, b, c)),
       "torch.where(a, b, c)",
       true},
      {"where_scalar_other",
       {B({3, 4}), F({3, 4})},
       OP(ember::where(a, b, 0.0)),
       "torch.where(a, b, 0.0)",
       true},
      {"where_scalar_self",
       {B({3, 4}), F({3, 4})},
       OP(ember::where(a, 1.0, b)),
       "torch.where(a, 1.0, b)",
       true},
      {"where_promote",
       {B({3, 4}), T({3, 4}, kLong), F({3, 4})},
       OP(ember::where(a, b, c)),
       "torch.where(a, b, c)"},

      // ---- reductions ----
      {"sum", {F({3, 4, 5})}, OP(ember::sum(a)), "torch.sum(a)", true},
      {"sum_dim", {F({3, 4, 5})}, OP(ember::sum(a, {1})), "torch.sum(a, [1])", true},
      {"sum_dims_keepdim", {F({3, 4, 5})}, OP(a.sum({0, 2}, true)), "a.sum([0, 2], True)", true},
      {"sum_neg_dim", {F({3, 4, 5})}, OP(a.sum({-1})), "a.sum(-1)", true},
      {"sum_int32", {T({3, 4}, kInt)}, OP(ember::sum(a)), "torch.sum(a)"},
      {"sum_bool_dim", {B({3, 4})}, OP(a.sum({0})), "a.sum(0)"},
      {"sum_dtype", {F({3, 4})}, OP(ember::sum(a, kDouble)), "torch.sum(a, dtype=torch.float64)"},
      {"mean", {F({3, 4, 5})}, OP(ember::mean(a)), "torch.mean(a)", true},
      {"mean_dims_keepdim",
       {F({3, 4, 5})},
       OP(ember::mean(a, {0, 1}, true)),
       "torch.mean(a, [0, 1], True)",
       true},
      {"mean_dtype",
       {F({3, 4})},
       OP(a.mean({1}, false, kDouble)),
       "a.mean(1, dtype=torch.float64)"},
      {"prod", {F({2, 3}, kPos)}, OP(ember::prod(a)), "torch.prod(a)", true},
      {"max", {F({3, 4})}, OP(ember::max(a)), "torch.max(a)", true},
      {"min", {F({3, 4})}, OP(ember::min(a)), "torch.min(a)", true},
      {"max_int64", {T({3, 4}, kLong)}, OP(a.max()), "a.max()"},
      {"max_dim_values",
       {F({3, 4, 5})},
       OP(std::get<0>(ember::max(a, 1))),
       "torch.max(a, 1)[0]",
       true},
      {"max_dim_indices", {F({3, 4, 5})}, OP(std::get<1>(ember::max(a, 1))), "torch.max(a, 1)[1]"},
      {"max_dim_keepdim",
       {F({3, 4})},
       OP(std::get<0>(a.max(-1, true))),
       "a.max(-1, keepdim=True)[0]",
       true},
      {"min_dim_values",
       {F({3, 4})},
       OP(std::get<0>(ember::min(a, 0))),
       "torch.min(a, 0)[0]",
       true},
      {"min_dim_indices",
       {F({3, 4})},
       OP(std::get<1>(a.min(0, true))),
       "a.min(0, keepdim=True)[1]"},
      {"amax", {F({3, 4, 5})}, OP(ember::amax(a, {0, 2})), "torch.amax(a, [0, 2])", true},
      {"amin_keepdim",
       {F({3, 4})},
       OP(ember::amin(a, {1}, true)),
       "torch.amin(a, [1], True)",
       true},
      {"argmax", {F({3, 4})}, OP(ember::argmax(a)), "torch.argmax(a)"},
      {"argmax_dim", {F({3, 4, 5})}, OP(ember::argmax(a, 2, true)), "torch.argmax(a, 2, True)"},
      {"argmin_dim", {F({3, 4})}, OP(a.argmin(0)), "a.argmin(0)"},
      {"var", {F({3, 4})}, OP(ember::var(a, {1})), "torch.var(a, [1])", true},
      {"var_biased_keepdim",
       {F({3, 4, 5})},
       OP(ember::var(a, {0, 2}, false, true)),
       "torch.var(a, [0, 2], False, True)",
       true},
      {"std", {F({3, 4})}, OP(a.std({0})), "a.std([0])", true},
      {"norm", {F({3, 4})}, OP(a.norm()), "a.norm()", true},
      {"norm_1", {F({3, 4}, kAway)}, OP(a.norm(1)), "a.norm(1)", true},
      {"logsumexp", {F({3, 4, 5})}, OP(ember::logsumexp(a, {1})), "torch.logsumexp(a, [1])", true},
      {"softmax", {F({3, 4, 5})}, OP(ember::softmax(a, 1)), "torch.softmax(a, 1)", true},
      {"softmax_last", {F({3, 4})}, OP(a.softmax(-1)), "a.softmax(-1)", true},
      {"softmax_dtype",
       {F({3, 4})},
       OP(ember::softmax(a, 1, kDouble)),
       "torch.softmax(a, 1, dtype=torch.float64)"},
      {"log_softmax",
       {F({3, 4, 5})},
       OP(ember::log_softmax(a, 2)),
       "torch.log_softmax(a, 2)",
       true},
      {"log_softmax_dim0", {F({3, 4})}, OP(a.log_softmax(0)), "a.log_softmax(0)", true},
      // sorting: rows of 1500 take the CUDA merge sort, shorter ones the shared-memory sort
      {"sort_values",
       {F({3, 4, 5})},
       OP(std::get<0>(ember::sort(a, 1))),
       "torch.sort(a, 1)[0]",
       true},
      {"sort_indices_desc",
       {F({3, 4, 5})},
       OP(std::get<1>(a.sort(-1, true))),
       "a.sort(-1, True)[1]"},
      {"sort_long_rows", {F({2, 1500})}, OP(std::get<0>(a.sort(1, true))), "a.sort(1, True)[0]"},
      {"sort_long_rows_indices",
       {F({2, 1500})},
       OP(std::get<1>(a.sort(1))),
       "a.sort(dim=1, stable=True)[1]"},
      {"argsort", {F({4, 6})}, OP(ember::argsort(a, int64_t{0})), "torch.argsort(a, 0)"},
      {"topk_values", {F({3, 6})}, OP(std::get<0>(ember::topk(a, 3))), "torch.topk(a, 3)[0]", true},
      {"topk_indices_smallest",
       {F({6, 3})},
       OP(std::get<1>(a.topk(2, 0, false))),
       "a.topk(2, 0, False)[1]"},
      {"cumsum", {F({3, 4, 5})}, OP(ember::cumsum(a, 1)), "torch.cumsum(a, 1)", true},
      {"cumsum_int64", {T({3, 4}, kInt)}, OP(a.cumsum(0)), "a.cumsum(0)"},
      {"cumprod", {F({3, 4}, kAway)}, OP(a.cumprod(-1)), "a.cumprod(-1)", true},
      {"cumprod_dtype",
       {F({4, 3}, kAway)},
       OP(ember::cumprod(a, 0, kDouble)),
       "torch.cumprod(a, 0, dtype=torch.float64)",
       true},
      {"masked_fill",
       {F({3, 4}), B({4})},
       OP(a.masked_fill(b, 0.5)),
       "a.masked_fill(b, 0.5)",
       true},
      {"masked_fill_tensor",
       {F({3, 4}), B({3, 1}), F({})},
       OP(ember::masked_fill(a, b, c)),
       "torch.masked_fill(a, b, c)",
       true},
      {"masked_fill_",
       {F({3, 4}), B({3, 4})},
       OP(a.clone().masked_fill_(b, -2)),
       "a.clone().masked_fill_(b, -2)",
       true},
      {"flip", {F({3, 4, 5})}, OP(a.flip({0, 2})), "a.flip([0, 2])", true},
      {"round", {F({3, 4})}, OP(ember::round(a * 4)), "torch.round(a * 4)"},
      {"round_decimals_float64", {T({3, 4}, kDouble)}, OP(a.round(2)), "a.round(decimals=2)"},
      {"var_all", {F({3, 4})}, OP(a.var()), "a.var()", true},
      {"std_all_biased", {F({3, 4})}, OP(ember::std(a, false)), "torch.std(a, False)", true},
      {"einsum_bmm",
       {F({2, 3, 4}), F({2, 4, 5})},
       OP(ember::einsum("bij,bjk->bik", {a, b})),
       "torch.einsum('bij,bjk->bik', a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"einsum_trace_outer",
       {F({3, 3}), F({4})},
       OP(ember::einsum("ii,j->j", {a, b})),
       "torch.einsum('ii,j->j', a, b)",
       true},
      {"einsum_ellipsis",
       {F({2, 3, 4}), F({4, 2})},
       OP(ember::einsum("...ij,jk", {a, b})),
       "torch.einsum('...ij,jk', a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"all", {B({3, 4})}, OP(a.all()), "a.all()"},
      {"any", {B({3, 4})}, OP(a.any()), "a.any()"},

      // ---- matmul family ----
      {"mm", {F({3, 4}), F({4, 5})}, OP(ember::mm(a, b)), "torch.mm(a, b)", true, kMmRtol, kMmAtol},
      {"mm_float64",
       {T({3, 4}, kDouble), T({4, 5}, kDouble)},
       OP(a.mm(b)),
       "a.mm(b)",
       true,
       1e-12,
       1e-12},
      {"matmul_2d",
       {F({3, 4}), F({4, 5})},
       OP(ember::matmul(a, b)),
       "torch.matmul(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"matmul_dot",
       {F({4}), F({4})},
       OP(ember::matmul(a, b)),
       "torch.matmul(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"matmul_vec_mat",
       {F({4}), F({4, 5})},
       OP(a.matmul(b)),
       "a.matmul(b)",
       true,
       kMmRtol,
       kMmAtol},
      {"matmul_mat_vec",
       {F({3, 4}), F({4})},
       OP(a.matmul(b)),
       "a.matmul(b)",
       true,
       kMmRtol,
       kMmAtol},
      {"matmul_batched",
       {F({2, 3, 4}), F({2, 4, 5})},
       OP(ember::matmul(a, b)),
       "torch.matmul(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"matmul_broadcast_rhs",
       {F({2, 3, 4}), F({4, 5})},
       OP(ember::matmul(a, b)),
       "torch.matmul(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"matmul_broadcast_batch",
       {F({2, 1, 3, 4}), F({3, 4, 2})},
       OP(ember::matmul(a, b)),
       "torch.matmul(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"bmm",
       {F({2, 3, 4}), F({2, 4, 5})},
       OP(ember::bmm(a, b)),
       "torch.bmm(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"addmm",
       {F({3, 5}), F({3, 4}), F({4, 5})},
       OP(ember::addmm(a, b, c)),
       "torch.addmm(a, b, c)",
       true,
       kMmRtol,
       kMmAtol},
      {"addmm_beta_alpha_bias",
       {F({5}), F({3, 4}), F({4, 5})},
       OP(ember::addmm(a, b, c, 0.5, 2.0)),
       "torch.addmm(a, b, c, beta=0.5, alpha=2.0)",
       true,
       kMmRtol,
       kMmAtol},
      {"outer", {F({3}), F({4})}, OP(ember::outer(a, b)), "torch.outer(a, b)", true},

      // ---- views ----
      {"transpose",
       {F({3, 4, 5})},
       OP(ember::transpose(a, 0, 2)),
       "torch.transpose(a, 0, 2)",
       true},
      {"t", {F({3, 4})}, OP(a.t()), "a.t()", true},
      {"permute", {F({3, 4, 5})}, OP(ember::permute(a, {2, 0, 1})), "a.permute(2, 0, 1)", true},
      {"slice_step", {F({3, 6})}, OP(a.slice(1, 1, 6, 2)), "a[:, 1:6:2]", true},
      {"slice_negative", {F({5, 3})}, OP(a.slice(0, -3)), "a[-3:]", true},
      {"select", {F({3, 4})}, OP(ember::select(a, 1, 2)), "a.select(1, 2)", true},
      {"select_negative", {F({3, 4})}, OP(a.select(0, -1)), "a.select(0, -1)", true},
      {"index_operator", {F({3, 4})}, OP(a[1]), "a[1]", true},
      {"narrow", {F({3, 5})}, OP(ember::narrow(a, 1, 1, 3)), "torch.narrow(a, 1, 1, 3)", true},
      {"expand", {F({3, 1})}, OP(a.expand({3, 4})), "a.expand(3, 4)", true},
      {"expand_new_dim", {F({4})}, OP(a.expand({2, 3, 4})), "a.expand(2, 3, 4)", true},
      {"reshape", {F({3, 4})}, OP(ember::reshape(a, {2, 6})), "torch.reshape(a, (2, 6))", true},
      {"reshape_infer", {F({3, 4})}, OP(a.reshape({-1})), "a.reshape(-1)", true},
      {"view_split_dim", {F({3, 4})}, OP(a.view({3, 2, 2})), "a.view(3, 2, 2)", true},
      {"unsqueeze", {F({3, 4})}, OP(ember::unsqueeze(a, 1)), "torch.unsqueeze(a, 1)", true},
      {"squeeze", {F({3, 1, 4, 1})}, OP(ember::squeeze(a)), "torch.squeeze(a)", true},
      {"squeeze_dim", {F({3, 1, 4})}, OP(ember::squeeze(a, 1)), "torch.squeeze(a, 1)", true},
      {"flatten", {F({2, 3, 4})}, OP(ember::flatten(a)), "torch.flatten(a)", true},
      {"flatten_range", {F({2, 3, 4, 2})}, OP(a.flatten(1, 2)), "a.flatten(1, 2)", true},
      {"chunk", {F({3, 6})}, OP(a.chunk(3, 1)[1]), "a.chunk(3, 1)[1]", true},
      {"split", {F({5, 3})}, OP(a.split(2, 0)[2]), "a.split(2, 0)[2]", true},
      {"unbind", {F({3, 4})}, OP(a.unbind(1)[3]), "a.unbind(1)[3]", true},
      {"split_with_sizes",
       {F({6, 3})},
       OP(a.split_with_sizes({1, 3, 2}, 0)[1]),
       "a.split_with_sizes([1, 3, 2], 0)[1]",
       true},
      {"diagonal", {F({4, 3})}, OP(ember::diagonal(a)), "torch.diagonal(a)", true},
      {"diagonal_offset_dims",
       {F({3, 4, 5})},
       OP(a.diagonal(-1, 2, 0)),
       "a.diagonal(-1, 2, 0)",
       true},
      {"movedim",
       {F({2, 3, 4})},
       OP(ember::movedim(a, {0, 1}, {2, 0})),
       "torch.movedim(a, (0, 1), (2, 0))",
       true},
      {"unflatten", {F({3, 8})}, OP(a.unflatten(1, {2, -1})), "a.unflatten(1, (2, -1))", true},
      {"repeat", {F({2, 3})}, OP(a.repeat({2, 1, 3})), "a.repeat(2, 1, 3)", true},

      // ---- parts of matrices ----
      {"tril", {F({2, 4, 5})}, OP(ember::tril(a, 1)), "torch.tril(a, 1)", true},
      {"triu", {F({5, 4})}, OP(ember::triu(a, -2)), "torch.triu(a, -2)", true},
      {"diag_of_vector", {F({4})}, OP(ember::diag(a, -1)), "torch.diag(a, -1)", true},
      {"diag_of_matrix", {F({4, 5})}, OP(ember::diag(a, 2)), "torch.diag(a, 2)", true},
      {"trace", {F({4, 5})}, OP(ember::trace(a)), "torch.trace(a)", true},
      {"argwhere", {F({3, 4}, kSmall)}, OP(ember::argwhere(a)), "torch.argwhere(a)"},

      // ---- indexing and joining ----
      {"index_select",
       {F({3, 4}), Idx({5}, 4)},
       OP(ember::index_select(a, 1, b)),
       "torch.index_select(a, 1, b)",
       true},
      {"index_select_dim0",
       {F({4, 3}), Idx({2}, 4)},
       OP(a.index_select(0, b)),
       "a.index_select(0, b)",
       true},
      {"gather",
       {F({3, 4}), Idx({3, 6}, 4)},
       OP(ember::gather(a, 1, b)),
       "torch.gather(a, 1, b)",
       true},
      {"gather_dim0",
       {F({3, 4}), Idx({2, 4}, 3)},
       OP(ember::gather(a, 0, b)),
       "torch.gather(a, 0, b)",
       true},
      {"one_hot", {Idx({5}, 4)}, OP(ember::one_hot(a, 4)), "F.one_hot(a, 4)"},
      {"scatter_add",
       {F({3, 4}), Idx({3, 6}, 4), F({3, 6})},
       OP(ember::scatter_add(a, 1, b, c)),
       "torch.scatter_add(a, 1, b, c)",
       true},
      {"index_add_alpha",
       {F({4, 3}), Idx({5}, 4), F({5, 3})},
       OP(a.index_add(0, b, c, 0.5)),
       "a.index_add(0, b, c, alpha=0.5)",
       true},
      // Distinct indices: with a repeat, which slice wins is unspecified on CUDA (as PyTorch).
      {"index_copy",
       {F({3, 5}), F({3, 2})},
       OP(a.index_copy(1, ember::tensor({4, 1}).to(a.device()), b)),
       "a.index_copy(1, torch.tensor([4, 1]), b)",
       true},
      // Tensor::index / index_put_ (ember::indexing), nonzero and one-argument where
      {"index_slices_and_int",
       {F({3, 4, 5})},
       OP(a.index({indexing::Slice(1, indexing::None), 2,
                   indexing::Slice(indexing::None, indexing::None, 2)})),
       "a[1:, 2, ::2]",
       true},
      {"index_none_ellipsis",
       {F({3, 4})},
       OP(a.index({indexing::None, "...", -1})),
       "a[None, ..., -1]",
       true},
      {"index_tensor", {F({4, 5}), Idx({2, 3}, 4)}, OP(a.index({b})), "a[b]", true},
      {"index_tensors_apart",
       {F({3, 4, 5}), Idx({6}, 3), Idx({6}, 5)},
       OP(a.index({b, indexing::Slice(), c})),
       "a[b, :, c]",
       true},
      {"index_tensors_adjacent",
       {F({2, 3, 4}), Idx({5}, 3), Idx({2, 1}, 4)},
       OP(a.index({indexing::Slice(), b, c})),
       "a[:, b, c]",
       true},
      {"index_mask", {F({3, 4}), B({3, 4})}, OP(a.index({b})), "a[b]", true},
      {"index_mask_rows",
       {F({4, 3}), B({4})},
       OP(a.index({b, indexing::Slice(1)})),
       "a[b, 1:]",
       true},
      {"index_put_tensor",
       {F({4, 3}), F({2, 3})},
       OP(a.clone().index_put_({ember::arange(3, -1, -3, kLong)}, b)),
       "y = a.clone(); y[torch.tensor([3, 0])] = b; y",
       true},
      {"index_put_accumulate",
       {F({4, 3}), Idx({5}, 4), F({5, 3})},
       OP(a.clone().index_put_({b}, c, true)),
       "a.index_put((b,), c, accumulate=True)",
       true},
      {"index_put_mask_scalar",
       {F({3, 4}), B({3, 4})},
       OP(a.clone().index_put_({b}, 0.5)),
       "y = a.clone(); y[b] = 0.5; y",
       true},
      {"index_put_slice_broadcast",
       {F({3, 4}), F({3})},
       OP(a.clone().index_put_({indexing::Slice(), 1}, b)),
       "y = a.clone(); y[:, 1] = b; y",
       true},
      {"nonzero", {F({3, 4}, kSmall)}, OP(ember::nonzero(a)), "torch.nonzero(a)"},
      {"nonzero_bool", {B({2, 3, 4})}, OP(a.nonzero()), "torch.nonzero(a)"},
      {"where_condition_only", {B({3, 4})}, OP(ember::where(a)[1]), "torch.where(a)[1]"},
      {"cat", {F({2, 3}), F({4, 3})}, OP(ember::cat({a, b})), "torch.cat([a, b])", true},
      {"cat_dim1",
       {F({3, 2}), F({3, 4}), F({3, 1})},
       OP(ember::cat({a, b, c}, 1)),
       "torch.cat([a, b, c], 1)",
       true},
      {"cat_promote",
       {F({2, 3}), T({2, 3}, kLong)},
       OP(ember::cat({a, b}, -1)),
       "torch.cat([a, b], -1)"},
      {"stack", {F({3, 4}), F({3, 4})}, OP(ember::stack({a, b})), "torch.stack([a, b])", true},
      {"stack_dim",
       {F({3, 4}), F({3, 4}), F({3, 4})},
       OP(ember::stack({a, b, c}, 2)),
       "torch.stack([a, b, c], 2)",
       true},

      // ---- sliding windows (im2col / col2im / max-pool kernels) ----
      {"conv2d",
       {F({2, 3, 6, 5}), F({4, 3, 3, 3}), F({4})},
       OP(ember::conv2d(a, b, c, 1, 1)),
       "F.conv2d(a, b, c, stride=1, padding=1)",
       true,
       kMmRtol,
       kMmAtol},
      {"conv2d_strided_dilated",
       {F({2, 2, 9, 8}), F({3, 2, 2, 3})},
       OP(ember::conv2d(a, b, {}, {2, 1}, {1, 0}, {2, 1})),
       "F.conv2d(a, b, None, stride=(2, 1), padding=(1, 0), dilation=(2, 1))",
       true,
       kMmRtol,
       kMmAtol},
      {"conv2d_groups",
       {F({2, 4, 5, 5}), F({6, 2, 3, 3}), F({6})},
       OP(ember::conv2d(a, b, c, 2, 1, 1, 2)),
       "F.conv2d(a, b, c, stride=2, padding=1, groups=2)",
       true,
       kMmRtol,
       kMmAtol},
      {"im2col",
       {F({2, 3, 5, 6})},
       OP(ember::im2col(a, {2, 3}, {1, 2}, {1, 0}, {2, 1})),
       "F.unfold(a, (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))",
       true},
      {"col2im",
       {F({2, 12, 12})},
       OP(ember::col2im(a, {5, 6}, {2, 3}, 1, {1, 0}, {2, 1})),
       "F.fold(a, (5, 6), (2, 3), padding=(1, 0), stride=(2, 1))",
       true},
      {"max_pool2d", {F({2, 3, 6, 7})}, OP(ember::max_pool2d(a, 2)), "F.max_pool2d(a, 2)", true},
      {"max_pool2d_padded_ceil",
       {F({2, 2, 7, 6})},
       OP(ember::max_pool2d(a, 3, 2, 1, 1, true)),
       "F.max_pool2d(a, 3, 2, 1, ceil_mode=True)",
       true},
      {"max_pool2d_indices",
       {F({2, 2, 7, 6})},
       OP(std::get<1>(ember::max_pool2d_with_indices(a, 3, 2, 1, {2, 1}))),
       "F.max_pool2d(a, 3, 2, 1, dilation=(2, 1), return_indices=True)[1]"},
      {"avg_pool2d",
       {F({2, 3, 7, 6})},
       OP(ember::avg_pool2d(a, 3, 2, 1)),
       "F.avg_pool2d(a, 3, 2, 1)",
       true},
      {"conv2d_float64",
       {T({1, 2, 5, 5}, kDouble), T({2, 2, 3, 3}, kDouble)},
       OP(ember::conv2d(a, b)),
       "F.conv2d(a, b)",
       true,
       1e-12,
       1e-12},
      {"conv2d_bfloat16",
       {T({1, 2, 5, 5}, kBFloat16), T({2, 2, 3, 3}, kBFloat16)},
       OP(ember::conv2d(a, b)),
       nullptr,
       false,
       1e-2,
       1e-2},

      // ---- nn: layers, normalisation, losses ----
      {"linear",
       {F({3, 4}), F({5, 4}), F({5})},
       OP(ember::linear(a, b, c)),
       "F.linear(a, b, c)",
       true,
       kMmRtol,
       kMmAtol},
      {"linear_3d_no_bias",
       {F({2, 3, 4}), F({5, 4})},
       OP(ember::linear(a, b)),
       "F.linear(a, b)",
       true,
       kMmRtol,
       kMmAtol},
      {"layer_norm",
       {F({3, 4}), F({4}), F({4})},
       OP(ember::layer_norm(a, {4}, b, c)),
       "F.layer_norm(a, [4], b, c)",
       true,
       1e-4,
       1e-5},
      {"batch_norm_train",
       {F({4, 3, 2}), F({3}), F({3})},
       OP(ember::batch_norm(a, b, c, {}, {}, true, 0.1, 1e-5)),
       "F.batch_norm(a, None, None, b, c, training=True)",
       true,
       1e-4,
       1e-5},
      {"batch_norm_eval",
       {F({4, 3}), F({3}), F({3}, kPos)},
       OP(ember::batch_norm(a, {}, {}, b, c, false, 0.1, 1e-5)),
       "F.batch_norm(a, b, c, training=False)",
       true},
      {"adaptive_avg_pool2d",
       {F({2, 3, 5, 7})},
       OP(ember::adaptive_avg_pool2d(a, {2, 3})),
       "F.adaptive_avg_pool2d(a, (2, 3))",
       true},
      {"embedding",
       {Idx({5}, 4), F({4, 3})},
       OP(ember::embedding(b, a)),
       "F.embedding(a, b)",
       true},
      {"cross_entropy",
       {F({4, 5}), Idx({4}, 5)},
       OP(ember::cross_entropy_loss(a, b)),
       "F.cross_entropy(a, b)",
       true},
      {"cross_entropy_probs_smoothing",
       {F({4, 5}), F({4, 5}, kPos)},
       OP(ember::cross_entropy_loss(a, b, {}, Reduction::Mean, -100, 0.1)),
       "F.cross_entropy(a, b, label_smoothing=0.1)",
       true},
      {"nll_loss", {F({4, 5}), Idx({4}, 5)}, OP(ember::nll_loss(a, b)), "F.nll_loss(a, b)", true},
      {"mse_loss", {F({3, 4}), F({3, 4})}, OP(ember::mse_loss(a, b)), "F.mse_loss(a, b)", true},
      {"l1_loss", {F({3, 4}), F({3, 4})}, OP(ember::l1_loss(a, b)), "F.l1_loss(a, b)", true},
      {"bce_with_logits",
       {F({3, 4}), F({3, 4})},
       OP(ember::binary_cross_entropy_with_logits(a, ember::sigmoid(b))),
       "F.binary_cross_entropy_with_logits(a, torch.sigmoid(b))",
       true},
      {"leaky_relu",
       {F({3, 4}, kAway)},
       OP(ember::leaky_relu(a, 0.2)),
       "F.leaky_relu(a, 0.2)",
       true},
      {"elu", {F({3, 4}, kAway)}, OP(ember::elu(a, 1.5)), "F.elu(a, 1.5)", true},
      {"softplus",
       {F({3, 4})},
       OP(ember::softplus(a * 4, 2.0, 5.0)),
       "F.softplus(a * 4, 2.0, 5.0)",
       true},
      {"hardtanh",
       {F({3, 4}, kUnit)},
       OP(ember::hardtanh(a, -0.5, 0.5)),
       "F.hardtanh(a, -0.5, 0.5)",
       true},
      {"pad_constant",
       {F({2, 3, 4})},
       OP(ember::pad(a, {1, 2, 0, 1}, "constant", 0.5)),
       "F.pad(a, (1, 2, 0, 1), value=0.5)",
       true},
      {"pad_reflect",
       {F({1, 2, 3, 4})},
       OP(ember::pad(a, {2, 1, 1, 2}, "reflect")),
       "F.pad(a, (2, 1, 1, 2), mode='reflect')",
       true},
      {"pad_replicate",
       {F({2, 3, 4})},
       OP(ember::pad(a, {2, 3}, "replicate")),
       "F.pad(a, (2, 3), mode='replicate')",
       true},
      {"interpolate_nearest",
       {F({1, 2, 3, 4})},
       OP(nn::functional::interpolate(
           a, nn::functional::InterpolateFuncOptions().size(std::vector<int64_t>{5, 7}))),
       "F.interpolate(a, size=(5, 7))",
       true},
      {"interpolate_bilinear",
       {F({1, 2, 3, 4})},
       OP(nn::functional::interpolate(a, nn::functional::InterpolateFuncOptions()
                                             .size(std::vector<int64_t>{5, 6})
                                             .mode(kBilinear)
                                             .align_corners(false))),
       "F.interpolate(a, size=(5, 6), mode='bilinear', align_corners=False)",
       true},
      {"normalize", {F({3, 4}, kAway)}, OP(nn::functional::normalize(a)), "F.normalize(a)", true},
      {"cosine_similarity",
       {F({3, 4}, kAway), F({3, 4}, kAway)},
       OP(ember::cosine_similarity(a, b)),
       "F.cosine_similarity(a, b)",
       true},
      {"binary_cross_entropy",
       {F({3, 4}), F({3, 4}, kUnit)},
       OP(ember::binary_cross_entropy(ember::sigmoid(a), b.abs())),
       "F.binary_cross_entropy(torch.sigmoid(a), b.abs())",
       true},
      {"smooth_l1_loss",
       {F({3, 4}), F({3, 4})},
       OP(ember::smooth_l1_loss(a, b, Reduction::Mean, 0.5)),
       "F.smooth_l1_loss(a, b, beta=0.5)",
       true},
      {"kl_div",
       {F({3, 4}), F({3, 4})},
       OP(ember::kl_div(ember::log_softmax(a, 1), ember::softmax(b, 1), Reduction::Sum)),
       "F.kl_div(torch.log_softmax(a, 1), torch.softmax(b, 1), reduction='sum')",
       true},

      // ---- copies and casts ----
      {"contiguous", {F({3, 4})}, OP(a.contiguous()), "a.contiguous()", true},
      {"clone", {F({3, 4})}, OP(a.clone()), "a.clone()", true},
      {"to_double", {F({3, 4})}, OP(a.to(kDouble)), "a.to(torch.float64)", true},
      {"to_half", {F({3, 4})}, OP(a.to(kHalf)), "a.to(torch.float16)"},
      {"to_bfloat16", {F({3, 4})}, OP(a.to(kBFloat16)), "a.to(torch.bfloat16)"},
      {"to_int32", {F({3, 4})}, OP((a * 4).to(kInt)), "(a * 4).to(torch.int32)"},
      {"to_bool", {F({3, 4}, kSmall)}, OP(a.to(kBool)), "a.to(torch.bool)"},
      {"int64_to_float", {T({3, 4}, kLong)}, OP(a.to(kFloat)), "a.to(torch.float32)"},

      // ---- in place (on a clone, so the input stays untouched) ----
      {"add_", {F({3, 4}), F({4})}, OP(a.clone().add_(b, 2)), "a.clone().add_(b, alpha=2)"},
      {"sub_scalar_", {F({3, 4})}, OP(a.clone().sub_(1.5)), "a.clone().sub_(1.5)"},
      {"mul_", {F({3, 4}), F({3, 1})}, OP(a.clone().mul_(b)), "a.clone().mul_(b)"},
      {"div_scalar_", {F({3, 4})}, OP(a.clone().div_(3)), "a.clone().div_(3)"},
      {"compound_ops",
       {F({3, 4}), F({3, 4})},
       OP(
           [&] {
             Tensor y = a.clone();
             y += b;
             y *= 2;
             y -= 1;
             y /= b.abs() + 1;
             return y;
           }()),
       "y = a.clone(); y += b; y *= 2; y -= 1; y /= b.abs() + 1; y"},
      {"clamp_", {F({3, 4})}, OP(a.clone().clamp_(-0.3, 0.3)), "a.clone().clamp_(-0.3, 0.3)"},
      {"relu_", {F({3, 4})}, OP(a.clone().relu_()), "a.clone().relu_()"},
      {"neg_", {F({3, 4})}, OP(a.clone().neg_()), "a.clone().neg_()"},
      {"sqrt_", {F({3, 4}, kPos)}, OP(a.clone().sqrt_()), "a.clone().sqrt_()"},
      {"exp_", {F({3, 4}, kUnit)}, OP(a.clone().exp_()), "a.clone().exp_()"},
      {"floor_", {F({3, 4})}, OP((a * 4).floor_()), "(a * 4).floor_()"},
      {"ceil_", {F({3, 4})}, OP((a * 4).ceil_()), "(a * 4).ceil_()"},
      {"trunc_", {F({3, 4})}, OP((a * 4).trunc_()), "(a * 4).trunc_()"},
      {"fill_", {F({3, 4})}, OP(a.clone().fill_(2.5)), "a.clone().fill_(2.5)"},
      {"zero_", {F({3, 4})}, OP(a.clone().zero_()), "a.clone().zero_()"},
      {"copy_broadcast", {F({3, 4}), F({4})}, OP(a.clone().copy_(b)), "a.clone().copy_(b)"},
  };
  return table;
}
#undef OP

std::vector<Tensor> make_inputs(const OpRow& row) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < row.inputs.size(); ++i) {
    xs.push_back(
        make_input(row.inputs[i], seed_for(std::string(row.name) + "/" + std::to_string(i))));
  }
  return xs;
}

std::vector<Tensor> to_device(const std::vector<Tensor>& xs, Device device, bool contiguous) {
  std::vector<Tensor> out;
  for (const Tensor& x : xs) {
    Tensor t = x.to(device);
    out.push_back(contiguous ? t : non_contiguous(t));
  }
  return out;
}

// Runs the row on `device` (both layouts) and compares with the CPU contiguous result.
void expect_matches_reference(const OpRow& row, const std::vector<Tensor>& inputs, Device device,
                              const Tensor& reference) {
  for (bool contiguous : {true, false}) {
    std::string ctx = detail::str_cat(row.name, " on ", device,
                                      contiguous ? " (contiguous)" : " (non-contiguous)");
    Tensor out;
    try {
      out = row.fn(to_device(inputs, device, contiguous));
    } catch (const std::exception& e) {
      ADD_FAILURE() << ctx << " threw: " << e.what();
      continue;
    }
    EXPECT_EQ(out.device(), device) << ctx;
    expect_close(out.cpu(), reference, row.rtol, row.atol, ctx + " vs CPU");
  }
}

class BackendParity : public ::testing::TestWithParam<OpRow> {};

TEST_P(BackendParity, Cpu) {
  const OpRow& row = GetParam();
  std::vector<Tensor> inputs = make_inputs(row);
  Tensor reference = row.fn(inputs);
  ASSERT_TRUE(reference.defined()) << row.name;
  if (row.torch) {
    std::map<std::string, Tensor> named;
    const char* names[] = {"a", "b", "c", "d"};
    for (size_t i = 0; i < inputs.size(); ++i) named[names[i]] = inputs[i];
    // "s1; s2; expr": statements, then the expression whose value is compared.
    std::string code = row.torch;
    size_t last = code.rfind("; ");
    if (last == std::string::npos) {
      code = "out = " + code;
    } else {
      std::string stmts = code.substr(0, last);
      for (size_t p; (p = stmts.find("; ")) != std::string::npos;) stmts.replace(p, 2, "\n");
      code = stmts + "\nout = " + code.substr(last + 2);
    }
    auto expected = TorchOracle::instance().run(code, named, {"out"});
    expect_close(reference, expected.at("out"), row.rtol, row.atol,
                 std::string(row.name) + ": Ember CPU vs PyTorch `" + row.torch + "`");
  }
  expect_matches_reference(row, inputs, Device(kCPU), reference);
  if (row.grad) {
    expect_gradients_match_finite_differences(row.fn, inputs, Device(kCPU), row.name);
  }
}

TEST_P(BackendParity, Cuda) {
  EMBER_SKIP_WITHOUT_CUDA();
  const OpRow& row = GetParam();
  std::vector<Tensor> inputs = make_inputs(row);
  Tensor reference = row.fn(inputs);
  for (const Device& device : cuda_devices()) {
    expect_matches_reference(row, inputs, device, reference);
    if (row.grad) {
      expect_gradients_match_finite_differences(row.fn, inputs, device, row.name);
    }
  }
}

// Meta tensors (shape and dtype, no data): every row gives the CPU result's sizes and dtype on
// the meta device, and its gradients the inputs' shapes, without running a kernel. Rows whose
// result's shape depends on the data raise NotImplementedError instead, by name.
TEST_P(BackendParity, Meta) {
  const OpRow& row = GetParam();
  static const std::set<std::string> kDataDependent = {"nonzero",
                                                       "nonzero_bool",
                                                       "index_mask",
                                                       "index_mask_rows",
                                                       "index_put_mask_scalar",
                                                       "where_condition_only",
                                                       "one_hot",
                                                       "argwhere"};  // one_hot: classes = max + 1
  std::vector<Tensor> inputs = make_inputs(row);
  Tensor reference = row.fn(inputs);
  std::vector<Tensor> metas = to_device(inputs, Device(kMeta), /*contiguous=*/true);
  if (kDataDependent.count(row.name)) {
    EXPECT_THROW(row.fn(metas), NotImplementedError) << row.name;
    return;
  }
  Tensor out;
  try {
    out = row.fn(metas);
  } catch (const std::exception& e) {
    FAIL() << row.name << " on meta threw: " << e.what();
  }
  EXPECT_TRUE(out.is_meta()) << row.name;
  EXPECT_EQ(out.sizes(), reference.sizes()) << row.name;
  EXPECT_EQ(out.dtype(), reference.dtype()) << row.name;
  if (!row.grad) return;
  std::vector<Tensor> leaves;
  for (const Tensor& m : metas) {
    leaves.push_back(is_floating_point(m.scalar_type()) ? m.detach().requires_grad_(true) : m);
  }
  row.fn(leaves).sum().backward();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i].requires_grad()) continue;
    ASSERT_TRUE(leaves[i].grad().defined()) << row.name << " input " << i;
    EXPECT_TRUE(leaves[i].grad().is_meta()) << row.name << " input " << i;
    EXPECT_EQ(leaves[i].grad().sizes(), leaves[i].sizes()) << row.name << " input " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BackendParity, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<OpRow>& info) {
                           return std::string(info.param.name);
                         });

// ---- 16-bit floats: every row again with its float32 inputs in float16 and in bfloat16 ----
// On every device the row must give, for the same values, what it gives in float32 rounded to
// the 16-bit dtype (within a few ulps: composite ops round their intermediates), in that dtype;
// and its gradients must be those of float32 (within the roundings of a 16-bit backward).

struct Row16 {
  const OpRow* row;
  ScalarType dtype;
};

std::vector<Row16> rows_16bit() {
  std::vector<Row16> out;
  for (const OpRow& row : rows()) {
    bool has_float32 = false;
    for (const InputSpec& in : row.inputs) has_float32 = has_float32 || in.dtype == kFloat;
    if (!has_float32) continue;
    for (ScalarType dt : {kHalf, kBFloat16}) out.push_back({&row, dt});
  }
  return out;
}

std::vector<Tensor> with_float32_as(const std::vector<Tensor>& xs, ScalarType dt) {
  std::vector<Tensor> out;
  for (const Tensor& x : xs) out.push_back(x.dtype() == kFloat ? x.to(dt) : x);
  return out;
}

// A few ulps of the 16-bit dtype, relative, and the same absolute near zero.
double tolerance_16bit(ScalarType dt, bool backward) {
  const double ulp = dt == kHalf ? 1.0 / 1024 : 1.0 / 128;
  return (backward ? 8 : 4) * ulp;
}

class BackendParity16 : public ::testing::TestWithParam<Row16> {};

TEST_P(BackendParity16, MatchesFloat32OnEveryDevice) {
  const OpRow& row = *GetParam().row;
  const ScalarType dt = GetParam().dtype;
  const std::vector<Tensor> inputs16 = with_float32_as(make_inputs(row), dt);
  const std::vector<Tensor> inputs32 = with_float32_as(inputs16, kFloat);  // the rounded values
  const Tensor reference = row.fn(inputs32);
  // Ops that keep their input's dtype give the 16-bit dtype; others (to_double, argmax, eq,
  // sum with a dtype) what they give from float32.
  const ScalarType expected_dtype = reference.dtype() == kFloat ? dt : reference.dtype();
  const Tensor expected = reference.to(expected_dtype);
  const double tol = tolerance_16bit(dt, false);
  for (const Device& device : test_devices()) {
    for (bool contiguous : {true, false}) {
      const std::string ctx = detail::str_cat(row.name, " in ", to_string(dt), " on ", device,
                                              contiguous ? "" : " (non-contiguous)");
      Tensor out;
      try {
        out = row.fn(to_device(inputs16, device, contiguous));
      } catch (const std::exception& e) {
        ADD_FAILURE() << ctx << " threw: " << e.what();
        continue;
      }
      EXPECT_EQ(out.device(), device) << ctx;
      ASSERT_EQ(out.dtype(), expected_dtype) << ctx;
      expect_close(out.cpu(), expected, tol, tol, ctx + " vs float32");
    }
    if (!row.grad) continue;
    // Gradients of sum(f(x) * v) in the 16-bit dtype against float32's.
    auto grads = [&](const std::vector<Tensor>& xs, Device on) {
      std::vector<Tensor> leaves;
      for (const Tensor& x : xs) {
        Tensor t = x.to(on, false, /*copy=*/true);
        leaves.push_back(t.is_floating_point() ? t.requires_grad_() : t);
      }
      Tensor y = row.fn(leaves);
      manual_seed(seed_for(std::string(row.name) + "/v"));
      Tensor v = randn(y.sizes()).to(dt).to(on, y.dtype());
      (y * v).sum().backward();
      std::vector<Tensor> g;
      for (const Tensor& l : leaves) {
        if (l.is_floating_point()) g.push_back(l.grad().defined() ? l.grad().cpu() : Tensor());
      }
      return g;
    };
    const std::vector<Tensor> g16 = grads(inputs16, device), g32 = grads(inputs32, Device(kCPU));
    const double gtol = tolerance_16bit(dt, true);
    for (size_t i = 0; i < g16.size(); ++i) {
      const std::string ctx =
          detail::str_cat(row.name, " in ", to_string(dt), " on ", device, " gradient ", i);
      ASSERT_EQ(g16[i].defined(), g32[i].defined()) << ctx;
      if (!g16[i].defined()) continue;
      EXPECT_EQ(g16[i].dtype(), dt) << ctx;
      expect_close(g16[i], g32[i].to(dt), gtol, gtol, ctx + " vs float32");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BackendParity16, ::testing::ValuesIn(rows_16bit()),
                         [](const ::testing::TestParamInfo<Row16>& info) {
                           return std::string(info.param.row->name) +
                                  (info.param.dtype == kHalf ? "_float16" : "_bfloat16");
                         });

TEST(BackendParityTable, RowNamesAreUniqueAndInputsValid) {
  std::set<std::string> seen;
  for (const OpRow& row : rows()) {
    EXPECT_TRUE(seen.insert(row.name).second) << "duplicate row " << row.name;
    EXPECT_FALSE(row.inputs.empty()) << row.name;
    EXPECT_LE(row.inputs.size(), 4u) << row.name << ": at most four inputs (a, b, c, d)";
  }
}

// The harness itself must catch a wrong gradient: x * x.detach() has autograd gradient x where the
// true derivative is 2x.
TEST(BackendParityHarness, FiniteDifferencesCatchAWrongGradient) {
  TensorFn wrong = [](const Args& x) { return x[0] * x[0].detach(); };
  TensorFn right = [](const Args& x) { return x[0] * x[0]; };
  std::vector<Tensor> inputs = {make_input(F({2, 3}, kAway), 5)};
  expect_gradients_match_finite_differences(right, inputs, Device(kCPU), "x * x");
  EXPECT_NONFATAL_FAILURE(
      expect_gradients_match_finite_differences(wrong, inputs, Device(kCPU), "x * x.detach()"),
      "autograd vs central differences");
}

TEST(BackendParityHarness, NonContiguousKeepsValuesAndChangesLayout) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{5}, std::vector<int64_t>{3, 4},
                                     std::vector<int64_t>{3, 1}, std::vector<int64_t>{2, 3, 4}}) {
    Tensor t = make_input(F(shape), 11);
    Tensor n = non_contiguous(t);
    EXPECT_FALSE(n.is_contiguous()) << IntArrayRef(shape);
    expect_close(n, t, 0, 0, "non_contiguous keeps values");
  }
}

// Inputs are drawn on the CPU and copied, but the generator itself must agree across devices too:
// the same Philox seed gives the same numbers on every device.
TEST(BackendParityRandom, SameSeedSameNumbersOnEveryDevice) {
  EMBER_SKIP_WITHOUT_CUDA();
  auto draw = [](Device device) {
    manual_seed(1234);
    Tensor u = rand({1000}, TensorOptions().device(device));
    Tensor n = randn({7, 9}, TensorOptions(kDouble).device(device));
    Tensor i = randint(-5, 5, {33}, TensorOptions(kLong).device(device));
    return std::vector<Tensor>{u, n, i};
  };
  std::vector<Tensor> cpu = draw(Device(kCPU));
  for (const Device& device : cuda_devices()) {
    std::vector<Tensor> dev = draw(device);
    expect_close(dev[0].cpu(), cpu[0], 0, 0, "rand on " + device.str());
    expect_close(dev[1].cpu(), cpu[1], 1e-12, 1e-12, "randn on " + device.str());
    expect_close(dev[2].cpu(), cpu[2], 0, 0, "randint on " + device.str());
  }
}

}  // namespace
}  // namespace ember::testing
