#pragma once
// The op table of the tests: one OpInfo row per op (or per variant of an op: `sum_dim`,
// `max_dim_indices`), in the manner of PyTorch's OpInfo and ggml's test-backend-ops. Every sweep
// (tests/ops/test_op_*.cpp, one binary each) runs over all_ops() and checks each row for what the
// row says it has: devices vs the CPU and PyTorch, meta shapes, 16-bit dtypes, and for
// elementwise rows every dtype, special values and gradients vs PyTorch. Adding an op is one row.
//
// Where the rows come from:
//   op_rows_elementwise.cpp  the ops of ember/op_table.h, generated from that table, plus the
//                            irregular elementwise ops, the operators, casts and in-place forms
//   op_rows_reductions.cpp   reductions, softmax, sorting, scans, matmul and einsum
//   op_rows_shape.cpp        views, parts of matrices, indexing, joining; rearranging,
//                            splitting and stacking, combinations (more_shape_rows)
//   op_rows_indexing.cpp     scatter, scatter_reduce, index_fill, index_put, take,
//                            take_along_dim, masked_select
//   op_rows_nn.cpp           convolution and pooling windows, nn layers, activations, losses
//   op_rows_math.cpp         special functions, statistics, searches, vector products
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ember/ops.h"
#include "support/test_util.h"

namespace ember::testing {

using Args = std::vector<Tensor>;
using OpFn = std::function<Tensor(const Args&)>;
using ScalarOpFn = std::function<Tensor(const Tensor&, const Scalar&)>;

// Which elementwise sweeps a row takes part in (test_op_dtypes, test_op_special,
// test_op_gradients). The shape of the inputs follows: a; a, b; a with a scalar; a, b, c.
enum class Elementwise { None, Unary, Binary, TensorScalar, Ternary };

// Another spelling of the row's op (method, in-place on a clone, ...): it must give what the op
// gives. An in-place form runs only where the result keeps the first input's dtype and shape.
struct Form {
  std::string name;
  OpFn fn;
  bool inplace = false;
};
struct ScalarForm {
  std::string name;
  ScalarOpFn fn;
  bool inplace = false;
};

struct OpInfo {
  // ---- every row: the first fields, in order, so that a row is one brace list ----
  std::string name;               // unique, [A-Za-z0-9_]: the GoogleTest name
  std::vector<InputSpec> inputs;  // seeded CPU inputs a to f (their dtype and domain)
  OpFn fn;                        // the op over the inputs; null for a row of scalar forms only
  std::string torch;              // PyTorch over a, b, c, d ("s1; s2; value"); "": none
  bool grad = false;              // differentiable in its floating inputs
  double rtol = 1e-5, atol = 1e-6;

  // ---- what some rows add ----
  std::vector<Form> forms;               // other spellings over the same inputs
  std::vector<ScalarForm> scalar_forms;  // (a, s) spellings; the first one is the free function
  std::string torch_scalar;              // PyTorch over a and s, for the scalar forms
  Scalar scalar = 2.5;                   // the scalar the devices sweeps bind
  bool finite_differences = true;        // false where the op jumps too often
  bool torch_gradients = true;           // false where PyTorch refuses a gradient Ember gives
  bool data_dependent_shape = false;     // on meta: NotImplementedError instead of a shape
  Elementwise elementwise = Elementwise::None;
  bool double_backward = false;      // elementwise: second derivatives vs PyTorch
  bool zero_sign = false;            // unary: zero results carry PyTorch's sign
  bool magnitude_tolerance = false;  // dtype sweep: 16-bit results within an ulp of |a| + alpha|b|
  double alpha = 0;                  // the alpha of add/sub, for that tolerance
  bool letter_seeds = false;         // inputs seeded by "<name>/a", "<name>/b" (op_table rows)
  std::vector<std::string> covers;   // ops of ember/ops.h this row covers besides its name's
};

// Every row of every family, in family order. Names are unique (test_op_coverage checks).
const std::vector<OpInfo>& all_ops();

// The rows of one family (op_rows_<family>.cpp).
std::vector<OpInfo> elementwise_rows();
std::vector<OpInfo> reduction_rows();
std::vector<OpInfo> shape_rows();
std::vector<OpInfo> more_shape_rows();
std::vector<OpInfo> indexing_rows();
std::vector<OpInfo> nn_rows();
std::vector<OpInfo> math_rows();
std::vector<OpInfo> linalg_decomposition_rows();
std::vector<OpInfo> linalg_function_rows();
std::vector<OpInfo> linalg_composite_rows();
// The ops that op_rows_elementwise.cpp gives extras (domains, tolerances, ...) beyond
// ember/op_table.h: each must be a table op (test_op_coverage).
std::vector<std::string> op_table_extra_names();

// A spelling of a row as a function of its inputs: the op, its forms, and its scalar forms with
// the row's scalar bound. forms_of(op)[0] is the op itself (or its first scalar form).
struct BoundForm {
  std::string name;
  OpFn fn;
  bool scalar = false;   // a scalar form (compared with the first scalar form)
  bool inplace = false;  // writes a clone of its first input
};
std::vector<BoundForm> forms_of(const OpInfo& op);

// The row's seeded CPU inputs; with `dtype`, every input retyped to it (the elementwise rows'
// every-dtype runs).
Args make_inputs(const OpInfo& op);
Args make_inputs(const OpInfo& op, ScalarType dtype);
Args to_device(const Args& xs, Device device, bool contiguous);
// True when an in-place form applies: the result keeps the first input's dtype and shape.
bool form_applies(const BoundForm& f, const Tensor& result, const Tensor& a);
// Python for the oracle: "out = <torch>" (statements "s1; s2; value" become lines).
std::string torch_code(const std::string& expr);
// The rows with a float32 input, which the 16-bit sweep runs again in float16 and bfloat16.
bool has_float32_input(const OpInfo& op);

// GoogleTest prints a row by its name.
void PrintTo(const OpInfo& op, std::ostream* os);
// The GoogleTest name of a row.
std::string row_name(const ::testing::TestParamInfo<OpInfo>& info);

// The domain of input i (Normal when the row has fewer inputs).
Domain domain_of(const OpInfo& op, size_t i);

}  // namespace ember::testing
