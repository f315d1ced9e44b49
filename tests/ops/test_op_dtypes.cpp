// The dtype sweep of the op table (tests/ops/op_info.h), over its elementwise rows, against
// PyTorch (support/elementwise_oracle.h: PyTorch's rejections must be ember::Errors naming the
// dtype; cases PyTorch's CPU lacks a kernel for are skipped):
//   unary         every dtype, every form, contiguous, non-contiguous and expanded (stride 0)
//   binary        every dtype pair over same-shape, broadcast and 0-dim operands, every form,
//                 non-contiguous lhs and both
//   tensor-scalar every dtype with int, negative int, float and bool scalars, every scalar form
//   ternary       dtype combinations (rejections included) over broadcast and 0-dim operands
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/op_info.h"
#include "support/elementwise_oracle.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

using Layouts = std::vector<std::pair<std::string, std::function<Tensor()>>>;

std::vector<OpInfo> elementwise_ops() {
  std::vector<OpInfo> out;
  for (const OpInfo& op : all_ops()) {
    if (op.elementwise != Elementwise::None) out.push_back(op);
  }
  return out;
}

// The forms over tensors only (the op, method, in-place), without the scalar forms.
std::vector<BoundForm> tensor_forms(const OpInfo& op) {
  std::vector<BoundForm> out;
  for (const BoundForm& f : forms_of(op)) {
    if (!f.scalar) out.push_back(f);
  }
  return out;
}

void unary_dtypes(const OpInfo& op) {
  const std::string expr = torch_code(op.torch);
  for (ScalarType dt : kElementwiseDtypes) {
    std::string ctx = detail::str_cat(op.name, "(", dt, ")");
    Tensor a = make_input({{3, 4}, dt, domain_of(op, 0)}, seed_for(ctx));
    TorchResult expected = torch_eval(expr, {{"a", a}});
    for (const BoundForm& f : tensor_forms(op)) {
      if (expected.out.defined() && !form_applies(f, expected.out, a)) continue;
      expect_parity(ctx + " " + f.name, expected,
                    {{"contiguous", [&] { return f.fn({a}); }},
                     {"non-contiguous", [&] { return f.fn({non_contiguous(a)}); }}},
                    dt);
    }
    if (!expected.out.defined()) continue;
    // The expanded layout (stride 0) gives row 0 everywhere.
    TorchResult rows = torch_eval("a = a[0:1].expand(3, 4)\n" + expr, {{"a", a}});
    ASSERT_TRUE(rows.out.defined()) << rows.error;
    expect_parity(ctx, rows,
                  {{"expanded",
                    [&] {
                      return op.fn({a.slice(0, 0, 1).expand({3, 4})});
                    }}},
                  dt);
  }
}

void binary_dtypes(const OpInfo& op) {
  struct Shapes {
    const char* name;
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> shapes = {{"same shape", {3, 4}, {3, 4}},
                                      {"broadcast", {3, 1, 4}, {2, 1}},
                                      {"0-dim rhs", {3, 4}, {}},
                                      {"0-dim lhs", {}, {3, 4}},
                                      {"both 0-dim", {}, {}}};
  const std::string expr = torch_code(op.torch);
  for (const Shapes& sh : shapes) {
    for (ScalarType da : kElementwiseDtypes) {
      for (ScalarType db : kElementwiseDtypes) {
        std::string ctx = detail::str_cat(op.name, "(", da, IntArrayRef(sh.a), ", ", db,
                                          IntArrayRef(sh.b), ") ", sh.name);
        Tensor a = make_input({sh.a, da, domain_of(op, 0)}, seed_for(ctx + "a"));
        Tensor b = make_input({sh.b, db, domain_of(op, 1)}, seed_for(ctx + "b"));
        TorchResult expected = torch_eval(expr, {{"a", a}, {"b", b}});
        Layouts layouts;
        for (const BoundForm& f : tensor_forms(op)) {
          if (f.inplace) continue;  // in place: the devices and 16-bit sweeps
          layouts.push_back({f.name, [&a, &b, fn = f.fn] { return fn({a, b}); }});
        }
        layouts.push_back({"non-contiguous lhs", [&] { return op.fn({non_contiguous(a), b}); }});
        layouts.push_back({"non-contiguous both", [&] {
                             return op.fn({non_contiguous(a), non_contiguous(b)});
                           }});
        const double scale = op.magnitude_tolerance ? max_abs(a) + op.alpha * max_abs(b) : 0;
        expect_parity(ctx, expected, layouts, da == kBool || db == kBool ? kBool : da, scale);
      }
    }
  }
}

void tensor_scalar_dtypes(const OpInfo& op) {
  const std::string expr = "out = " + op.torch_scalar;
  for (ScalarType dt : kElementwiseDtypes) {
    for (const Scalar& s : {Scalar(int64_t{2}), Scalar(-3), Scalar(2.5), Scalar(true)}) {
      std::string lit = python_literal(s);
      std::string ctx = detail::str_cat(op.name, "(", dt, ", ", lit, ")");
      Tensor a = make_input({{3, 4}, dt, domain_of(op, 0)}, seed_for(ctx));
      TorchResult expected = torch_eval("s = " + lit + "\n" + expr, {{"a", a}});
      Layouts layouts;
      for (const ScalarForm& f : op.scalar_forms) {
        if (f.inplace) continue;
        layouts.push_back({f.name, [&a, &s, fn = f.fn] { return fn(a, s); }});
      }
      const ScalarOpFn first = op.scalar_forms[0].fn;
      layouts.push_back({"non-contiguous", [&] { return first(non_contiguous(a), s); }});
      expect_parity(ctx, expected, layouts, dt);
    }
  }
}

void ternary_dtypes(const OpInfo& op) {
  struct Combo {
    ScalarType a, b, c;
  };
  const std::vector<Combo> combos = {
      {kFloat, kFloat, kFloat},  {kDouble, kDouble, kDouble}, {kHalf, kHalf, kHalf},
      {kFloat, kDouble, kFloat}, {kFloat, kFloat, kDouble},   {kLong, kLong, kLong},
      {kInt, kLong, kInt},       {kLong, kFloat, kInt},       {kDouble, kInt, kFloat},
      {kBool, kBool, kBool},     {kInt, kBool, kBool},
  };
  struct Shapes3 {
    const char* name;
    std::vector<int64_t> a, b, c;
  };
  const std::vector<Shapes3> shapes = {{"same shape", {3, 4}, {3, 4}, {3, 4}},
                                       {"broadcast", {3, 1, 4}, {2, 1}, {4}},
                                       {"0-dim operands", {3, 4}, {}, {}},
                                       {"0-dim self", {}, {3, 4}, {1, 4}}};
  const std::string expr = torch_code(op.torch);
  for (const Combo& dt : combos) {
    for (const Shapes3& sh : shapes) {
      std::string ctx = detail::str_cat(op.name, "(", dt.a, ", ", dt.b, ", ", dt.c, ") ", sh.name);
      Tensor a = make_input({sh.a, dt.a}, seed_for(ctx + "a"));
      Tensor b = make_input({sh.b, dt.b}, seed_for(ctx + "b"));
      Tensor c = make_input({sh.c, dt.c, domain_of(op, 2)}, seed_for(ctx + "c"));
      expect_parity(ctx, torch_eval(expr, {{"a", a}, {"b", b}, {"c", c}}),
                    {{"contiguous",
                      [&] {
                        return op.fn({a, b, c});
                      }},
                     {"non-contiguous",
                      [&] {
                        return op.fn({non_contiguous(a), b, c});
                      }}},
                    dt.a == kBool || dt.b == kBool || dt.c == kBool ? kBool : dt.a,
                    4 * (max_abs(a) + max_abs(b) * std::max(1.0, max_abs(c))));
    }
  }
}

class OpDtypes : public ::testing::TestWithParam<OpInfo> {};

TEST_P(OpDtypes, EveryDtypeVsPyTorch) {
  const OpInfo& op = GetParam();
  switch (op.elementwise) {
    case Elementwise::Unary:
      unary_dtypes(op);
      break;
    case Elementwise::Binary:
      binary_dtypes(op);
      break;
    case Elementwise::TensorScalar:
      break;
    case Elementwise::Ternary:
      ternary_dtypes(op);
      break;
    case Elementwise::None:
      FAIL() << op.name << " is not an elementwise row";
  }
  if (!op.scalar_forms.empty()) tensor_scalar_dtypes(op);
}

INSTANTIATE_TEST_SUITE_P(Ops, OpDtypes, ::testing::ValuesIn(elementwise_ops()), row_name);

}  // namespace
}  // namespace ember::testing
