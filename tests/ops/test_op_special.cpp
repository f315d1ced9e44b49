// The special-value sweep of the op table (tests/ops/op_info.h), over its unary elementwise rows,
// against PyTorch: ±0, ±inf, NaN, tiny and huge values in float32/float64/bfloat16; 0-dim and
// empty inputs, every form; and the sign of zero results where the row asks (floor(-0.0) = -0.0,
// ceil(-0.3) = -0.0, ...), which expect_close does not see. The binary ops' special values and
// integer edges: test_op_edge_cases.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/tensor_data.h"
#include "ops/op_info.h"
#include "support/elementwise_oracle.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

std::vector<OpInfo> unary_ops() {
  std::vector<OpInfo> out;
  for (const OpInfo& op : all_ops()) {
    if (op.elementwise == Elementwise::Unary) out.push_back(op);
  }
  return out;
}

class OpSpecial : public ::testing::TestWithParam<OpInfo> {};

TEST_P(OpSpecial, SpecialValuesVsPyTorch) {
  const OpInfo& op = GetParam();
  const std::string expr = torch_code(op.torch);
  const double inf = INFINITY, nan = NAN;
  Tensor special =
      tensor({0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, -2.5, 1e-30, 100.0, -100.0}, kDouble);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    std::string ctx = detail::str_cat(op.name, "(", dt, ", special values)");
    Tensor a = special.to(dt);
    expect_parity(ctx, torch_eval(expr, {{"a", a}}), {{"contiguous", [&] { return op.fn({a}); }}},
                  dt);
  }
  for (std::vector<int64_t> shape : {std::vector<int64_t>{}, std::vector<int64_t>{0, 3}}) {
    std::string ctx = detail::str_cat(op.name, " of shape ", IntArrayRef(shape));
    Tensor a = make_input({shape, kFloat, domain_of(op, 0)}, seed_for(ctx));
    for (const BoundForm& f : forms_of(op)) {
      expect_parity(ctx + " " + f.name, torch_eval(expr, {{"a", a}}),
                    {{"contiguous", [&] { return f.fn({a}); }}}, kFloat);
    }
  }
  if (!op.zero_sign) return;
  Tensor values = tensor({0.0, -0.0, -0.3, 0.3, -1.0, 1.0, -2.5, 2.0}, kDouble);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    std::string ctx = detail::str_cat(op.name, "(", dt, ")");
    Tensor a = values.to(dt);
    TorchResult expected = torch_eval(expr, {{"a", a}});
    ASSERT_TRUE(expected.out.defined()) << ctx << ": " << expected.error;
    for (const BoundForm& f : forms_of(op)) {
      std::vector<double> got = to_doubles(f.fn({a})), want = to_doubles(expected.out);
      ASSERT_EQ(got.size(), want.size()) << ctx;
      for (size_t i = 0; i < got.size(); ++i) {
        if (want[i] != 0 || std::isnan(got[i])) continue;
        EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i]))
            << ctx << " " << f.name << " at " << to_doubles(values)[i] << ": got " << got[i]
            << ", PyTorch " << want[i];
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpSpecial, ::testing::ValuesIn(unary_ops()), row_name);

}  // namespace
}  // namespace ember::testing
