// PyTorch parity of the irregular elementwise front ends and the operators (add/sub with alpha,
// gelu, clamp, pow(Scalar, Tensor), rounding divisions, -a, a % b, s * a, ...) over
// float32/float64/float16/bfloat16/int32/int64/bool, contiguous, non-contiguous, broadcast and
// 0-dim operands, tensor-scalar forms, type promotion (result_type), errors, and gradients; and
// the cross-op checks (special values, integer edges, double backward) of the binary math ops.
// The ops of ember/op_table.h get the same sweeps from their rows in
// tests/ops/test_op_database.cpp.
//
// Where PyTorch 1.13 rejects a case only because its CPU kernel lacks a dtype ("... not implemented
// for 'Half'"), the case is skipped (support/elementwise_oracle.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "ember/autograd.h"
#include "ember/tensor_data.h"
#include "support/elementwise_oracle.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

const std::vector<ScalarType>& kDtypes = kElementwiseDtypes;

// ---------------------------------------------------------------- unary
struct UnaryCase {
  const char* name;
  Tensor (*fn)(const Tensor&);
  const char* torch;  // expression over a
  Domain domain = Domain::Normal;
  bool differentiable = true;
};

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"neg_operator", [](const Tensor& a) { return -a; }, "-a"},
      {"gelu", [](const Tensor& a) { return ember::gelu(a); }, "F.gelu(a)"},
      {"gelu_tanh", [](const Tensor& a) { return ember::gelu(a, "tanh"); },
       "F.gelu(a, approximate='tanh')"},
      {"clamp", [](const Tensor& a) { return ember::clamp(a, -1, 1); }, "torch.clamp(a, -1, 1)"},
      {"clamp_float_bounds", [](const Tensor& a) { return ember::clamp(a, -0.5, std::nullopt); },
       "torch.clamp(a, min=-0.5)"},
      {"rpow", [](const Tensor& a) { return ember::pow(2, a); }, "torch.pow(2, a)",
       Domain::Positive},
  };
  return cases;
}

TEST(ElementwiseParity, UnaryEveryDtypeAndLayout) {
  for (const UnaryCase& op : unary_cases()) {
    for (ScalarType dt : kDtypes) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ")");
      Tensor a = make_input({{3, 4}, dt, op.domain}, seed_for(ctx));
      TorchResult expected = torch_eval(std::string("out = ") + op.torch, {{"a", a}});
      expect_parity(ctx, expected,
                    {{"contiguous", [&] { return op.fn(a); }},
                     {"non-contiguous", [&] { return op.fn(non_contiguous(a)); }}},
                    dt);
      if (expected.out.defined()) {
        // The expanded layout (stride 0) gives row 0 everywhere.
        TorchResult rows =
            torch_eval(std::string("a = a[0:1].expand(3, 4)\nout = ") + op.torch, {{"a", a}});
        ASSERT_TRUE(rows.out.defined()) << rows.error;
        expect_parity(ctx, rows,
                      {{"expanded",
                        [&] {
                          return op.fn(a.slice(0, 0, 1).expand({3, 4}));
                        }}},
                      dt);
      }
    }
  }
}

TEST(ElementwiseParity, UnarySpecialValues) {
  const double inf = INFINITY, nan = NAN;
  Tensor special =
      tensor({0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, -2.5, 1e-30, 100.0, -100.0}, kDouble);
  for (const UnaryCase& op : unary_cases()) {
    for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ", special values)");
      Tensor a = special.to(dt);
      expect_parity(ctx, torch_eval(std::string("out = ") + op.torch, {{"a", a}}),
                    {{"contiguous", [&] { return op.fn(a); }}}, dt);
    }
  }
}

// floor/ceil/trunc of an integer tensor are the same values in the same dtype, in a new tensor
// (as PyTorch, which returns a copy); the in-place forms leave integers as they are.
TEST(ElementwiseParity, RoundingOpsCopyIntegers) {
  for (auto fn : {+[](const Tensor& a) { return ember::floor(a); },
                  +[](const Tensor& a) { return ember::ceil(a); },
                  +[](const Tensor& a) { return ember::trunc(a); }}) {
    Tensor a = tensor({-3.0, 0.0, 7.0}, kDouble).to(kLong);
    Tensor out = fn(a);
    EXPECT_EQ(out.dtype(), kLong);
    EXPECT_TRUE(out.equal(a));
    out.fill_(5);
    EXPECT_EQ(a.sum().item<int64_t>(), 4) << "the result must not share the input's memory";
  }
  Tensor i = tensor({-3.0, 2.0}, kDouble).to(kInt);
  EXPECT_EQ(i.floor_().dtype(), kInt);
  EXPECT_EQ(i.ceil_().sum().item<int64_t>(), -1);
  EXPECT_EQ(i.trunc_().sum().item<int64_t>(), -1);
  Tensor f = tensor({-2.5, 2.5}, kFloat);
  EXPECT_TRUE(f.clone().floor_().equal(tensor({-3.0, 2.0}, kFloat)));
  EXPECT_TRUE(f.clone().ceil_().equal(tensor({-2.0, 3.0}, kFloat)));
  EXPECT_TRUE(f.clone().trunc_().equal(tensor({-2.0, 2.0}, kFloat)));
  EXPECT_TRUE(f.clone().fix_().equal(tensor({-2.0, 2.0}, kFloat)));
}

TEST(ElementwiseParity, ZeroDimAndEmpty) {
  for (const UnaryCase& op : unary_cases()) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{}, std::vector<int64_t>{0, 3}}) {
      std::string ctx = detail::str_cat(op.name, " of shape ", IntArrayRef(shape));
      Tensor a = make_input({shape, kFloat, op.domain}, seed_for(ctx));
      expect_parity(ctx, torch_eval(std::string("out = ") + op.torch, {{"a", a}}),
                    {{"contiguous", [&] { return op.fn(a); }}}, kFloat);
    }
  }
}

// ---------------------------------------------------------------- binary
struct BinaryCase {
  const char* name;
  Tensor (*fn)(const Tensor&, const Tensor&);
  const char* torch;  // expression over a, b
  Domain a_domain = Domain::Normal;
  Domain b_domain = Domain::Normal;
  bool differentiable = true;
  double alpha = 0;  // the alpha of add/sub, which scales b before the sum
};

const std::vector<BinaryCase>& binary_cases() {
  using D = Domain;
  static const std::vector<BinaryCase> cases = {
      {"add", [](const Tensor& a, const Tensor& b) { return ember::add(a, b); }, "torch.add(a, b)"},
      {"add_alpha", [](const Tensor& a, const Tensor& b) { return ember::add(a, b, 2); },
       "torch.add(a, b, alpha=2)", D::Normal, D::Normal, true, 2},
      {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }, "a - b"},
      {"sub_alpha", [](const Tensor& a, const Tensor& b) { return ember::sub(a, b, 3); },
       "torch.sub(a, b, alpha=3)", D::Normal, D::Normal, true, 3},
      {"remainder_operator", [](const Tensor& a, const Tensor& b) { return a % b; }, "a % b",
       D::Normal, D::AwayFromZero},
      {"div_trunc", [](const Tensor& a, const Tensor& b) { return ember::div(a, b, "trunc"); },
       "torch.div(a, b, rounding_mode='trunc')", D::Normal, D::AwayFromZero},
      {"div_floor", [](const Tensor& a, const Tensor& b) { return a.div(b, "floor"); },
       "torch.div(a, b, rounding_mode='floor')", D::Normal, D::AwayFromZero},
      {"bitwise_and", [](const Tensor& a, const Tensor& b) { return ember::bitwise_and(a, b); },
       "torch.bitwise_and(a, b)", D::SmallInt, D::SmallInt, false},
      {"bitwise_or_operator", [](const Tensor& a, const Tensor& b) { return a | b; }, "a | b",
       D::SmallInt, D::SmallInt, false},
      {"bitwise_xor_operator", [](const Tensor& a, const Tensor& b) { return a ^ b; }, "a ^ b",
       D::SmallInt, D::SmallInt, false},
      {"bitwise_and_operator", [](const Tensor& a, const Tensor& b) { return a & b; }, "a & b",
       D::SmallInt, D::SmallInt, false},
  };
  return cases;
}

struct Shapes {
  const char* name;
  std::vector<int64_t> a, b;
};
const Shapes kSameShape = {"same shape", {3, 4}, {3, 4}};
const std::vector<Shapes> kBroadcastShapes = {
    {"broadcast", {3, 1, 4}, {2, 1}},
    {"0-dim rhs", {3, 4}, {}},
    {"0-dim lhs", {}, {3, 4}},
    {"both 0-dim", {}, {}},
};

TEST(ElementwiseParity, BinaryEveryDtypePairSameShape) {
  for (const BinaryCase& op : binary_cases()) {
    for (ScalarType da : kDtypes) {
      for (ScalarType db : kDtypes) {
        std::string ctx = detail::str_cat(op.name, "(", da, ", ", db, ")");
        Tensor a = make_input({kSameShape.a, da, op.a_domain}, seed_for(ctx + "a"));
        Tensor b = make_input({kSameShape.b, db, op.b_domain}, seed_for(ctx + "b"));
        TorchResult expected = torch_eval(std::string("out = ") + op.torch, {{"a", a}, {"b", b}});
        expect_parity(
            ctx, expected,
            {{"contiguous", [&] { return op.fn(a, b); }},
             {"non-contiguous lhs", [&] { return op.fn(non_contiguous(a), b); }},
             {"non-contiguous both", [&] { return op.fn(non_contiguous(a), non_contiguous(b)); }}},
            da == kBool || db == kBool ? kBool : da, max_abs(a) + op.alpha * max_abs(b));
      }
    }
  }
}

TEST(ElementwiseParity, BinaryBroadcastAndZeroDim) {
  // All dtype pairs that involve a 0-dim operand exercise the dims-outrank-0-dim promotion rule.
  for (const BinaryCase& op : binary_cases()) {
    for (const Shapes& shapes : kBroadcastShapes) {
      for (ScalarType da : kDtypes) {
        for (ScalarType db : kDtypes) {
          std::string ctx = detail::str_cat(op.name, "(", da, IntArrayRef(shapes.a), ", ", db,
                                            IntArrayRef(shapes.b), ") ", shapes.name);
          Tensor a = make_input({shapes.a, da, op.a_domain}, seed_for(ctx + "a"));
          Tensor b = make_input({shapes.b, db, op.b_domain}, seed_for(ctx + "b"));
          expect_parity(ctx, torch_eval(std::string("out = ") + op.torch, {{"a", a}, {"b", b}}),
                        {{"contiguous", [&] { return op.fn(a, b); }},
                         {"non-contiguous", [&] { return op.fn(non_contiguous(a), b); }}},
                        da == kBool || db == kBool ? kBool : da,
                        max_abs(a) + op.alpha * max_abs(b));
        }
      }
    }
  }
}

// ---------------------------------------------------------------- tensor-scalar
struct ScalarCase {
  const char* name;
  Tensor (*fn)(const Tensor&, const Scalar&);
  const char* torch;  // expression over a and s
  Domain domain = Domain::Normal;
  bool differentiable = true;  // in a; comparisons are recognised by their expression
};

const std::vector<ScalarCase>& scalar_cases() {
  using D = Domain;
  static const std::vector<ScalarCase> cases = {
      {"add", [](const Tensor& a, const Scalar& s) { return a + s; }, "a + s"},
      {"radd", [](const Tensor& a, const Scalar& s) { return s + a; }, "s + a"},
      {"add_alpha", [](const Tensor& a, const Scalar& s) { return ember::add(a, s, 2); },
       "torch.add(a, s, alpha=2)"},
      {"sub", [](const Tensor& a, const Scalar& s) { return a - s; }, "a - s"},
      {"rsub", [](const Tensor& a, const Scalar& s) { return s - a; }, "s - a"},
      {"rmul", [](const Tensor& a, const Scalar& s) { return s * a; }, "s * a"},
      {"rdiv", [](const Tensor& a, const Scalar& s) { return s / a; }, "s / a", D::AwayFromZero},
      {"rpow", [](const Tensor& a, const Scalar& s) { return ember::pow(s, a); }, "torch.pow(s, a)",
       D::Positive},
      {"where_other", [](const Tensor& a, const Scalar& s) { return ember::where(a > 0, a, s); },
       "torch.where(a > 0, a, s)"},
      {"where_self", [](const Tensor& a, const Scalar& s) { return ember::where(a > 0, s, a); },
       "torch.where(a > 0, s, a)"},
      {"rremainder", [](const Tensor& a, const Scalar& s) { return s % a; }, "s % a",
       D::AwayFromZero, false},  // PyTorch has no derivative for a scalar dividend
      {"div_trunc", [](const Tensor& a, const Scalar& s) { return ember::div(a, s, "trunc"); },
       "torch.div(a, s, rounding_mode='trunc')"},
      {"div_floor", [](const Tensor& a, const Scalar& s) { return a.div(s, "floor"); },
       "torch.div(a, s, rounding_mode='floor')"},
      {"rbitwise_or", [](const Tensor& a, const Scalar& s) { return s | a; }, "s | a", D::SmallInt,
       false},
  };
  return cases;
}

TEST(ElementwiseParity, TensorScalarEveryDtype) {
  const std::vector<Scalar> scalars = {Scalar(int64_t{2}), Scalar(-3), Scalar(2.5), Scalar(true)};
  for (const ScalarCase& op : scalar_cases()) {
    for (ScalarType dt : kDtypes) {
      for (const Scalar& s : scalars) {
        std::string lit = python_literal(s);
        std::string ctx = detail::str_cat(op.name, "(", dt, ", ", lit, ")");
        Tensor a = make_input({{3, 4}, dt, op.domain}, seed_for(ctx));
        std::string code = "s = " + lit + "\nout = " + op.torch;
        expect_parity(ctx, torch_eval(code, {{"a", a}}),
                      {{"contiguous", [&] { return op.fn(a, s); }},
                       {"non-contiguous", [&] { return op.fn(non_contiguous(a), s); }}},
                      dt);
      }
    }
  }
}

// ---------------------------------------------------------------- promotion
TEST(ElementwiseParity, ResultTypeMatchesTorch) {
  const std::vector<ScalarType> all = {kByte, kChar,  kShort,  kInt,  kLong,
                                       kHalf, kFloat, kDouble, kBool, kBFloat16};
  const std::vector<Scalar> scalars = {Scalar(true), Scalar(int64_t{3}), Scalar(1.5)};
  std::map<std::string, Tensor> inputs;
  std::string dts = "DT = [";
  for (size_t i = 0; i < all.size(); ++i) {
    inputs["x" + std::to_string(i)] = zeros({2}, all[i]);
    inputs["z" + std::to_string(i)] = zeros({}, all[i]);
    dts += std::string(python_name(all[i])) + ", ";
  }
  dts += "]\n";
  // One request for the whole table: codes are indices into DT.
  std::string code = dts +
                     "n = len(DT)\n"
                     "X = [globals()['x%d' % i] for i in range(n)]\n"
                     "Z = [globals()['z%d' % i] for i in range(n)]\n"
                     "S = [True, 3, 1.5]\n"
                     "def table(L, R): return torch.tensor([[DT.index(torch.result_type(l, "
                     "r)) for r in R] for l in L])\n"
                     "xx = table(X, X)\nxz = table(X, Z)\nzx = table(Z, X)\nzz = table(Z, Z)\n"
                     "xs = table(X, S)\nzs = table(Z, S)\n";
  auto r = TorchOracle::instance().run(code, inputs, {"xx", "xz", "zx", "zz", "xs", "zs"});
  auto check = [&](const char* name, bool l_zero, bool r_zero) {
    std::vector<int64_t> codes = r.at(name).to_vector<int64_t>();
    for (size_t i = 0; i < all.size(); ++i) {
      for (size_t j = 0; j < all.size(); ++j) {
        Tensor l = l_zero ? zeros({}, all[i]) : zeros({2}, all[i]);
        Tensor rr = r_zero ? zeros({}, all[j]) : zeros({2}, all[j]);
        EXPECT_EQ(result_type(l, rr), all[codes[i * all.size() + j]])
            << "result_type(" << all[i] << (l_zero ? " 0-dim" : " tensor") << ", " << all[j]
            << (r_zero ? " 0-dim" : " tensor") << ")";
      }
    }
  };
  check("xx", false, false);
  check("xz", false, true);
  check("zx", true, false);
  check("zz", true, true);
  for (const char* name : {"xs", "zs"}) {
    std::vector<int64_t> codes = r.at(name).to_vector<int64_t>();
    bool zero = std::string(name) == "zs";
    for (size_t i = 0; i < all.size(); ++i) {
      for (size_t j = 0; j < scalars.size(); ++j) {
        Tensor l = zero ? zeros({}, all[i]) : zeros({2}, all[i]);
        EXPECT_EQ(result_type(l, scalars[j]), all[codes[i * scalars.size() + j]])
            << "result_type(" << all[i] << (zero ? " 0-dim" : " tensor") << ", scalar "
            << python_literal(scalars[j]) << ")";
      }
    }
  }
}

TEST(ElementwiseParity, ResultTypeFollowsDefaultDtype) {
  set_default_dtype(kDouble);
  ScalarType int_plus_float = result_type(zeros({2}, kLong), Scalar(0.5));
  ScalarType div_dtype = (ones({2}, kLong) / ones({2}, kLong)).dtype();
  set_default_dtype(kFloat);
  EXPECT_EQ(int_plus_float, kDouble);
  EXPECT_EQ(div_dtype, kDouble);
  EXPECT_EQ(result_type(zeros({2}, kLong), Scalar(0.5)), kFloat);
}

// ---------------------------------------------------------------- errors
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ElementwiseErrors, ShapeMismatchNamesBothShapes) {
  struct Case {
    const char* name;
    std::function<Tensor()> fn;
  };
  Tensor a = zeros({2, 3}), b = zeros({4});
  std::vector<Case> cases = {
      {"add", [&] { return a + b; }},
      {"mul", [&] { return ember::mul(a, b); }},
      {"lt", [&] { return a < b; }},
      {"maximum", [&] { return ember::maximum(a, b); }},
      {"where", [&] { return ember::where(a > 0, a, b); }},
      {"logical_and", [&] { return ember::logical_and(a, b); }},
  };
  for (const Case& c : cases) {
    std::string msg = error_of(c.fn);
    ASSERT_FALSE(msg.empty()) << c.name << " of shapes [2, 3] and [4] did not throw";
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << c.name << ": " << msg;
    EXPECT_NE(msg.find("[4]"), std::string::npos) << c.name << ": " << msg;
  }
  EXPECT_THROW(a.add_(zeros({3, 3})), Error);
  // In place, the result shape must be self's shape.
  std::string msg = error_of([&] { zeros({3}).add_(zeros({2, 3})); });
  EXPECT_NE(msg.find("[3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
}

TEST(ElementwiseErrors, UnsupportedDtypeNamesOpAndDtype) {
  struct Case {
    const char* op;
    ScalarType dtype;
    std::function<Tensor()> fn;
  };
  std::vector<Case> cases = {
      {"gelu", kLong, [] { return ember::gelu(ones({2}, kLong)); }},
      {"silu", kInt, [] { return ember::silu(ones({2}, kInt)); }},
      {"gelu", kBool, [] { return ember::gelu(ones({2}, kBool)); }},
      // PyTorch: "floor_vml_cpu" not implemented for 'Bool', "frac_cpu" ... for 'Long'.
      {"floor", kBool, [] { return ember::floor(ones({2}, kBool)); }},
      {"ceil", kBool, [] { return ember::ceil(ones({2}, kBool)); }},
      {"trunc", kBool, [] { return ember::trunc(ones({2}, kBool)); }},
      {"trunc", kBool, [] { return ember::fix(ones({2}, kBool)); }},
      {"floor", kBool, [] { return ones({2}, kBool).floor_(); }},
      {"frac", kBool, [] { return ember::frac(ones({2}, kBool)); }},
      {"frac", kInt, [] { return ember::frac(ones({2}, kInt)); }},
      {"frac", kLong, [] { return ones({2}, kLong).frac(); }},
  };
  for (const Case& c : cases) {
    std::string msg;
    try {
      c.fn();
    } catch (const TypeError& e) {
      msg = e.what();
    } catch (const Error& e) {
      ADD_FAILURE() << c.op << "(" << c.dtype << ") threw a non-TypeError: " << e.what();
      continue;
    }
    ASSERT_FALSE(msg.empty()) << c.op << "(" << c.dtype << ") did not throw";
    EXPECT_NE(msg.find(c.op), std::string::npos) << msg;
    EXPECT_TRUE(names_dtype(msg, c.dtype)) << msg;
  }
  // Bool negation and subtraction: PyTorch's messages, which say what to use instead.
  std::string neg = error_of([] { return -ones({2}, kBool); });
  EXPECT_NE(neg.find("bool"), std::string::npos) << neg;
  EXPECT_NE(neg.find("logical_not"), std::string::npos) << neg;
  std::string sub = error_of([] { return ones({2}, kBool) - ones({2}, kBool); });
  EXPECT_NE(sub.find("bool"), std::string::npos) << sub;
  // The process keeps working after errors.
  EXPECT_EQ((ones({2}) + ones({2})).sum().item<double>(), 4.0);
}

TEST(ElementwiseErrors, InPlaceCannotChangeDtypeCategory) {
  // PyTorch: result type Float can't be cast to the desired output type Long.
  Tensor i = ones({2}, kLong);
  std::string msg = error_of([&] { i.add_(ones({2}, kFloat)); });
  ASSERT_FALSE(msg.empty()) << "int64.add_(float32) did not throw";
  EXPECT_TRUE(names_dtype(msg, kFloat) && names_dtype(msg, kLong)) << msg;
  i.add_(ones({2}, kInt));  // same category: allowed
  EXPECT_EQ(i.dtype(), kLong);
  EXPECT_EQ(i.sum().item<int64_t>(), 4);
}

// ---------------------------------------------------------------- backward
// Gradients of every differentiable op compared with PyTorch's, including the reduction of
// broadcast dims and 0-dim operands back to the input shapes.
TEST(ElementwiseBackward, UnaryMatchesTorch) {
  for (const UnaryCase& op : unary_cases()) {
    if (!op.differentiable) continue;
    for (ScalarType dt : {kFloat, kDouble}) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ") backward");
      Tensor a = make_input({{3, 4}, dt, op.domain}, seed_for(ctx));
      Tensor g = make_input({{3, 4}, dt}, seed_for(ctx + "g"));
      Tensor x = a.clone().requires_grad_(true);
      op.fn(x).backward(g);
      auto r = TorchOracle::instance().run(std::string("a.requires_grad_(True)\nout = ") +
                                               op.torch + "\nout.backward(g)\nga = a.grad",
                                           {{"a", a}, {"g", g}}, {"ga"});
      auto [rtol, atol] = elementwise_tolerance(dt);
      expect_close(x.grad(), r.at("ga"), rtol * 10, atol * 10, ctx);
    }
  }
}

TEST(ElementwiseBackward, BinaryMatchesTorchWithBroadcasting) {
  std::vector<Shapes> shapes = {kSameShape};
  shapes.insert(shapes.end(), kBroadcastShapes.begin(), kBroadcastShapes.end());
  for (const BinaryCase& op : binary_cases()) {
    if (!op.differentiable) continue;
    for (ScalarType dt : {kFloat, kDouble}) {
      for (const Shapes& sh : shapes) {
        std::string ctx = detail::str_cat(op.name, "(", dt, ") backward, ", sh.name);
        Tensor a = make_input({sh.a, dt, op.a_domain}, seed_for(ctx + "a"));
        Tensor b = make_input({sh.b, dt, op.b_domain}, seed_for(ctx + "b"));
        Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true);
        Tensor out = op.fn(xa, xb);
        Tensor g = make_input({std::vector<int64_t>(out.sizes().begin(), out.sizes().end()), dt},
                              seed_for(ctx + "g"));
        out.backward(g);
        auto r = TorchOracle::instance().run(
            std::string("a.requires_grad_(True)\nb.requires_grad_(True)\nout = ") + op.torch +
                "\nout.backward(g)\nga = a.grad\ngb = b.grad",
            {{"a", a}, {"b", b}, {"g", g}}, {"ga", "gb"});
        auto [rtol, atol] = elementwise_tolerance(dt);
        expect_close(xa.grad(), r.at("ga"), rtol * 10, atol * 10, ctx + " d/da");
        expect_close(xb.grad(), r.at("gb"), rtol * 10, atol * 10, ctx + " d/db");
      }
    }
  }
}

TEST(ElementwiseBackward, TensorScalarMatchesTorch) {
  for (const ScalarCase& op : scalar_cases()) {
    for (const Scalar& s : {Scalar(int64_t{2}), Scalar(2.5)}) {
      std::string lit = python_literal(s);
      std::string ctx = detail::str_cat(op.name, "(float64, ", lit, ") backward");
      if (std::string(op.torch).find("==") != std::string::npos ||
          std::string(op.torch).find('<') != std::string::npos ||
          std::string(op.torch).find('>') != std::string::npos ||
          std::string(op.torch).find("!=") != std::string::npos) {
        if (std::string(op.name).rfind("where", 0) != 0) continue;  // comparisons: no gradient
      }
      if (!op.differentiable) continue;
      Tensor a = make_input({{3, 4}, kDouble, op.domain}, seed_for(ctx));
      Tensor g = make_input({{3, 4}, kDouble}, seed_for(ctx + "g"));
      Tensor x = a.clone().requires_grad_(true);
      op.fn(x, s).backward(g);
      auto r =
          TorchOracle::instance().run("s = " + lit + "\na.requires_grad_(True)\nout = " + op.torch +
                                          "\nout.backward(g)\nga = a.grad",
                                      {{"a", a}, {"g", g}}, {"ga"});
      expect_close(x.grad(), r.at("ga"), 1e-11, 1e-13, ctx);
    }
  }
}

TEST(ElementwiseBackward, WhereRoutesGradients) {
  Tensor c = make_input({{4}, kBool}, 7);
  Tensor a = make_input({{3, 1}, kDouble}, 8), b = make_input({{3, 4}, kDouble}, 9);
  Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true);
  ember::where(c, xa, xb).sum().backward();
  auto r = TorchOracle::instance().run(
      "a.requires_grad_(True)\nb.requires_grad_(True)\n"
      "torch.where(c, a, b).sum().backward()\nga = a.grad\ngb = b.grad",
      {{"c", c}, {"a", a}, {"b", b}}, {"ga", "gb"});
  expect_close(xa.grad(), r.at("ga"), 1e-12, 0, "where d/da");
  expect_close(xb.grad(), r.at("gb"), 1e-12, 0, "where d/db");
}

// ---------------------------------------------------------------- binary math extras
using autograd::variable_list;

// bitwise_not (x ^ all ones) over integer and bool dtypes; floating dtypes are rejected.
TEST(ElementwiseParity, BitwiseNotEveryDtype) {
  for (ScalarType dt : {kByte, kChar, kShort, kInt, kLong, kBool, kFloat, kDouble}) {
    std::string ctx = detail::str_cat("bitwise_not(", dt, ")");
    Tensor a = make_input({{3, 4}, dt, Domain::SmallInt}, seed_for(ctx));
    if (dt == kByte) a = a + 250;  // the top of uint8's range
    TorchResult expected = torch_eval("out = torch.bitwise_not(a)", {{"a", a}});
    expect_parity(ctx, expected,
                  {{"function", [&] { return ember::bitwise_not(a); }},
                   {"operator", [&] { return ~non_contiguous(a); }},
                   {"method", [&] { return a.bitwise_not(); }}},
                  dt);
  }
}

// lerp, addcmul, addcdiv: dtypes (their rejections included), broadcasting, 0-dim operands.
struct TernaryCase {
  const char* name;
  Tensor (*fn)(const Tensor&, const Tensor&, const Tensor&);
  const char* torch;  // expression over a, b, c
  Domain c_domain = Domain::Normal;
};
const std::vector<TernaryCase>& ternary_cases() {
  static const std::vector<TernaryCase> cases = {
      {"lerp_tensor_weight",
       [](const Tensor& a, const Tensor& b, const Tensor& c) { return ember::lerp(a, b, c); },
       "torch.lerp(a, b, c)", Domain::Unit},
      {"lerp_weight_over_half",
       [](const Tensor& a, const Tensor& b, const Tensor& c) { return a.lerp(b, c * 2 + 0.3); },
       "torch.lerp(a, b, c * 2 + 0.3)", Domain::Unit},
      {"lerp_scalar_small",
       [](const Tensor& a, const Tensor& b, const Tensor&) { return ember::lerp(a, b, 0.3); },
       "torch.lerp(a, b, 0.3)"},
      {"lerp_scalar_large",
       [](const Tensor& a, const Tensor& b, const Tensor&) { return a.lerp(b, 1.7); },
       "torch.lerp(a, b, 1.7)"},
      {"addcmul",
       [](const Tensor& a, const Tensor& b, const Tensor& c) { return ember::addcmul(a, b, c); },
       "torch.addcmul(a, b, c)"},
      {"addcmul_value",
       [](const Tensor& a, const Tensor& b, const Tensor& c) { return a.addcmul(b, c, 2.5); },
       "torch.addcmul(a, b, c, value=2.5)"},
      {"addcmul_int_value",
       [](const Tensor& a, const Tensor& b, const Tensor& c) {
         return ember::addcmul(a, b, c, -3);
       },
       "torch.addcmul(a, b, c, value=-3)"},
      {"addcdiv",
       [](const Tensor& a, const Tensor& b, const Tensor& c) { return ember::addcdiv(a, b, c); },
       "torch.addcdiv(a, b, c)", Domain::AwayFromZero},
      {"addcdiv_value",
       [](const Tensor& a, const Tensor& b, const Tensor& c) { return a.addcdiv(b, c, -0.5); },
       "torch.addcdiv(a, b, c, value=-0.5)", Domain::AwayFromZero},
  };
  return cases;
}

TEST(ElementwiseParity, TernaryDtypesAndBroadcasting) {
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
  for (const TernaryCase& op : ternary_cases()) {
    for (const Combo& dt : combos) {
      for (const Shapes3& sh : shapes) {
        std::string ctx =
            detail::str_cat(op.name, "(", dt.a, ", ", dt.b, ", ", dt.c, ") ", sh.name);
        Tensor a = make_input({sh.a, dt.a}, seed_for(ctx + "a"));
        Tensor b = make_input({sh.b, dt.b}, seed_for(ctx + "b"));
        Tensor c = make_input({sh.c, dt.c, op.c_domain}, seed_for(ctx + "c"));
        expect_parity(ctx,
                      torch_eval(std::string("out = ") + op.torch, {{"a", a}, {"b", b}, {"c", c}}),
                      {{"contiguous", [&] { return op.fn(a, b, c); }},
                       {"non-contiguous", [&] { return op.fn(non_contiguous(a), b, c); }}},
                      dt.a == kBool || dt.b == kBool || dt.c == kBool ? kBool : dt.a,
                      4 * (max_abs(a) + max_abs(b) * std::max(1.0, max_abs(c))));
      }
    }
  }
}

TEST(ElementwiseBackward, TernaryMatchesTorchWithBroadcasting) {
  for (const TernaryCase& op : ternary_cases()) {
    for (std::vector<std::vector<int64_t>> sh :
         {std::vector<std::vector<int64_t>>{{3, 4}, {3, 4}, {3, 4}},
          std::vector<std::vector<int64_t>>{{3, 1, 4}, {2, 1}, {4}},
          std::vector<std::vector<int64_t>>{{}, {3, 4}, {}}}) {
      std::string ctx = detail::str_cat(op.name, " backward ", IntArrayRef(sh[0]),
                                        IntArrayRef(sh[1]), IntArrayRef(sh[2]));
      Tensor a = make_input({sh[0], kDouble}, seed_for(ctx + "a"));
      Tensor b = make_input({sh[1], kDouble}, seed_for(ctx + "b"));
      Tensor c = make_input({sh[2], kDouble, op.c_domain}, seed_for(ctx + "c"));
      Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true),
             xc = c.clone().requires_grad_(true);
      Tensor out = op.fn(xa, xb, xc);
      Tensor g = make_input({out.sizes().vec(), kDouble}, seed_for(ctx + "g"));
      // First and second derivatives: d(sum(g * out))/d(inputs), then the gradient of the sum of
      // squares of those.
      variable_list first = autograd::grad({out}, {xa, xb, xc}, {g}, true, true, true);
      Tensor second_sum = zeros({}, kDouble);
      for (const Tensor& d : first)
        if (d.defined() && d.requires_grad()) second_sum = second_sum + (d * d).sum();
      auto r = TorchOracle::instance().run(
          std::string("for t in (a, b, c): t.requires_grad_(True)\nout = ") + op.torch +
              "\nfirst = torch.autograd.grad(out, (a, b, c), g, create_graph=True, "
              "allow_unused=True)\n"
              "s = sum((d * d).sum() for d in first if d is not None and d.requires_grad)\n"
              "second = torch.autograd.grad(s, (a, b, c), allow_unused=True) if "
              "torch.is_tensor(s) else (None, None, None)\n"
              "z = lambda d, t: torch.zeros_like(t) if d is None else d\n"
              "ga, gb, gc = (z(d, t) for d, t in zip(first, (a, b, c)))\n"
              "sa, sb, sc = (z(d, t) for d, t in zip(second, (a, b, c)))\n",
          {{"a", a}, {"b", b}, {"c", c}, {"g", g}}, {"ga", "gb", "gc", "sa", "sb", "sc"});
      const char* names[] = {"a", "b", "c"};
      const Tensor inputs[] = {xa, xb, xc};
      for (int i = 0; i < 3; ++i) {
        Tensor got = first[i].defined() ? first[i] : zeros_like(inputs[i]);
        expect_close(got.detach(), r.at(std::string("g") + names[i]), 1e-10, 1e-12,
                     ctx + " d/d" + names[i]);
      }
      if (second_sum.requires_grad()) {
        variable_list second = autograd::grad({second_sum}, {xa, xb, xc}, {}, true, false, true);
        for (int i = 0; i < 3; ++i) {
          Tensor got = second[i].defined() ? second[i] : zeros_like(inputs[i]);
          expect_close(got, r.at(std::string("s") + names[i]), 1e-10, 1e-12,
                       ctx + " second derivative d/d" + names[i]);
        }
      }
    }
  }
}

// Gradients of gradients of the differentiable binary ops, against PyTorch.
TEST(ElementwiseBackward, BinaryMathDoubleBackward) {
  struct Case {
    const char* name;
    Tensor (*fn)(const Tensor&, const Tensor&);
    const char* torch;
    Domain b_domain;
  };
  const std::vector<Case> cases = {
      {"atan2", [](const Tensor& a, const Tensor& b) { return ember::atan2(a, b); },
       "torch.atan2(a, b)", Domain::Normal},
      {"hypot", [](const Tensor& a, const Tensor& b) { return ember::hypot(a, b); },
       "torch.hypot(a, b)", Domain::Normal},
      {"remainder", [](const Tensor& a, const Tensor& b) { return ember::remainder(a, b); },
       "torch.remainder(a, b)", Domain::AwayFromZero},
      {"fmod", [](const Tensor& a, const Tensor& b) { return ember::fmod(a, b); },
       "torch.fmod(a, b)", Domain::AwayFromZero},
  };
  for (const Case& op : cases) {
    std::string ctx = detail::str_cat(op.name, " double backward");
    Tensor a = make_input({{3, 4}, kDouble}, seed_for(ctx + "a"));
    Tensor b = make_input({{4}, kDouble, op.b_domain}, seed_for(ctx + "b"));
    Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true);
    variable_list first = autograd::grad({op.fn(xa, xb).sum()}, {xa, xb}, {}, true, true);
    Tensor s = (first[0] * first[0]).sum() + (first[1] * first[1]).sum();
    ASSERT_TRUE(s.requires_grad()) << ctx;
    variable_list second = autograd::grad({s}, {xa, xb}, {}, true, false, true);
    auto r = TorchOracle::instance().run(
        std::string("a.requires_grad_(True)\nb.requires_grad_(True)\nout = ") + op.torch +
            "\nfa, fb = torch.autograd.grad(out.sum(), (a, b), create_graph=True)\n"
            "s = (fa * fa).sum() + (fb * fb).sum()\n"
            "sa, sb = torch.autograd.grad(s, (a, b), allow_unused=True)\n"
            "sa = torch.zeros_like(a) if sa is None else sa\n"
            "sb = torch.zeros_like(b) if sb is None else sb\n",
        {{"a", a}, {"b", b}}, {"sa", "sb"});
    for (int i = 0; i < 2; ++i) {
      Tensor got = second[i].defined() ? second[i] : zeros_like(i == 0 ? a : b);
      expect_close(got, r.at(i == 0 ? "sa" : "sb"), 1e-10, 1e-12,
                   ctx + (i == 0 ? " d/da" : " d/db"));
    }
  }
}

// inf, NaN and signed zeros as dividend and divisor, against PyTorch bit for bit (the sign of a
// zero included).
TEST(ElementwiseParity, BinaryMathSpecialValues) {
  const double inf = INFINITY, nan = NAN;
  const std::vector<double> values = {0.0, -0.0, inf, -inf, nan, 5.0, -5.0, 2.5, -0.75, 1e-30};
  std::vector<double> av, bv;
  for (double x : values) {
    for (double y : values) {
      av.push_back(x);
      bv.push_back(y);
    }
  }
  struct Case {
    const char* name;
    Tensor (*fn)(const Tensor&, const Tensor&);
    const char* torch;
  };
  const std::vector<Case> cases = {
      {"remainder", [](const Tensor& a, const Tensor& b) { return a % b; }, "a % b"},
      {"fmod", [](const Tensor& a, const Tensor& b) { return ember::fmod(a, b); },
       "torch.fmod(a, b)"},
      {"atan2", [](const Tensor& a, const Tensor& b) { return ember::atan2(a, b); },
       "torch.atan2(a, b)"},
      {"hypot", [](const Tensor& a, const Tensor& b) { return ember::hypot(a, b); },
       "torch.hypot(a, b)"},
      {"floor_divide", [](const Tensor& a, const Tensor& b) { return ember::floor_divide(a, b); },
       "torch.floor_divide(a, b)"},
      {"div_trunc", [](const Tensor& a, const Tensor& b) { return ember::div(a, b, "trunc"); },
       "torch.div(a, b, rounding_mode='trunc')"},
  };
  for (const Case& op : cases) {
    for (ScalarType dt : {kFloat, kDouble}) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ", special values)");
      Tensor a = tensor(av, kDouble).to(dt), b = tensor(bv, kDouble).to(dt);
      TorchResult expected = torch_eval(std::string("out = ") + op.torch, {{"a", a}, {"b", b}});
      ASSERT_TRUE(expected.out.defined()) << ctx << ": " << expected.error;
      Tensor got = op.fn(a, b);
      auto [rtol, atol] = elementwise_tolerance(dt);
      expect_close(got, expected.out, rtol, atol, ctx);
      std::vector<double> g = to_doubles(got), e = to_doubles(expected.out);
      for (size_t i = 0; i < g.size(); ++i) {
        if (g[i] == 0 && e[i] == 0) {
          EXPECT_EQ(std::signbit(g[i]), std::signbit(e[i]))
              << ctx << ": sign of zero for (" << av[i] << ", " << bv[i] << ")";
        }
      }
    }
  }
}

// Integer remainder/fmod/floor division: the signs of every quadrant and the ends of each integer
// range, against PyTorch. MIN / -1 wraps to MIN as PyTorch's int8/int16 kernels do (its int32 and
// int64 kernels trap on it, so those are checked without PyTorch).
TEST(ElementwiseParity, IntegerDivisionEdges) {
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  const std::vector<std::pair<const char*, Fn>> ops = {
      {"torch.remainder(a, b)", [](const Tensor& a, const Tensor& b) { return a % b; }},
      {"torch.fmod(a, b)", [](const Tensor& a, const Tensor& b) { return ember::fmod(a, b); }},
      {"torch.floor_divide(a, b)",
       [](const Tensor& a, const Tensor& b) { return ember::floor_divide(a, b); }},
      {"torch.div(a, b, rounding_mode='trunc')",
       [](const Tensor& a, const Tensor& b) { return ember::div(a, b, "trunc"); }},
  };
  for (ScalarType dt : {kByte, kChar, kShort, kInt, kLong}) {
    std::vector<int64_t> av, bv;
    if (dt == kByte) {
      av = {7, 255, 0, 128, 1, 200};
      bv = {2, 16, 3, 255, 255, 7};
    } else {
      const int64_t lo = dt == kChar    ? -128
                         : dt == kShort ? -32768
                         : dt == kInt   ? INT32_MIN
                                        : INT64_MIN;
      av = {7, -7, 7, -7, lo, -(lo + 1), 0, lo + 1};
      bv = {2, 2, -2, -2, 3, -1, -5, -1};
      if (dt == kChar || dt == kShort) {
        av.push_back(lo);
        bv.push_back(-1);
      }
    }
    Tensor a = tensor(av, kLong).to(dt), b = tensor(bv, kLong).to(dt);
    for (const auto& [expr, fn] : ops) {
      std::string ctx = detail::str_cat(expr, " ", dt);
      TorchResult expected = torch_eval(std::string("out = ") + expr, {{"a", a}, {"b", b}});
      ASSERT_TRUE(expected.out.defined()) << ctx << ": " << expected.error;
      expect_close(fn(a, b), expected.out, 0, 0, ctx);
    }
  }
  for (ScalarType dt : {kInt, kLong}) {
    const int64_t lo = dt == kInt ? INT32_MIN : INT64_MIN;
    Tensor a = tensor(std::vector<int64_t>{lo}, kLong).to(dt);
    Tensor b = tensor(std::vector<int64_t>{-1}, kLong).to(dt);
    EXPECT_EQ((a % b).item<int64_t>(), 0) << dt;
    EXPECT_EQ(ember::fmod(a, b).item<int64_t>(), 0) << dt;
    EXPECT_EQ(ember::floor_divide(a, b).item<int64_t>(), lo) << dt;
    EXPECT_EQ(ember::div(a, b, "trunc").item<int64_t>(), lo) << dt;
  }
}

TEST(ElementwiseErrors, BinaryMathBadInput) {
  auto expect_error = [](const char* what, std::function<void()> fn,
                         std::vector<std::string> needles) {
    std::string msg = error_of(fn);
    ASSERT_FALSE(msg.empty()) << what << " did not throw";
    for (const std::string& n : needles)
      EXPECT_NE(msg.find(n), std::string::npos) << what << ": " << msg;
  };
  Tensor f = ones({2}), i = ones({2}, kLong), z = zeros({2}, kInt);
  // Bitwise ops take integers and bools only.
  expect_error("bitwise_and(float)", [&] { ember::bitwise_and(f, f); }, {"bitwise_and", "Float"});
  expect_error("bitwise_or(long, float)", [&] { (void)(i | f); }, {"bitwise_or", "Float", "Long"});
  expect_error("bitwise_xor(long, 1.5)", [&] { (void)(i ^ 1.5); }, {"bitwise_xor", "Float"});
  expect_error("bitwise_not(double)", [&] { ~ones({2}, kDouble); }, {"bitwise_not", "Double"});
  EXPECT_THROW(ember::bitwise_and(f, f), TypeError);
  // Integer division by zero: ZeroDivisionError for tensors and scalars, before any result.
  for (ScalarType dt : {kByte, kInt, kLong}) {
    Tensor a = tensor({5, 6}, kLong).to(dt), zero = tensor({1, 0}, kLong).to(dt);
    EXPECT_THROW(ember::remainder(a, zero), ZeroDivisionError) << dt;
    EXPECT_THROW(ember::fmod(a, zero), ZeroDivisionError) << dt;
    EXPECT_THROW(ember::floor_divide(a, zero), ZeroDivisionError) << dt;
    EXPECT_THROW(ember::div(a, zero, "trunc"), ZeroDivisionError) << dt;
    EXPECT_THROW(ember::div(a, zero, "floor"), ZeroDivisionError) << dt;
    EXPECT_THROW(a % 0, ZeroDivisionError) << dt;
    EXPECT_THROW(ember::fmod(a, 0), ZeroDivisionError) << dt;
    EXPECT_THROW(a.floor_divide(0), ZeroDivisionError) << dt;
    EXPECT_THROW(ember::div(a, 0, "floor"), ZeroDivisionError) << dt;
    EXPECT_THROW(7 % zero, ZeroDivisionError) << dt;
  }
  expect_error("remainder(int, zero)", [&] { ember::remainder(i, z); },
               {"ZeroDivisionError", "remainder", "Long", "Int"});
  // A bool divisor promotes to an integer (false is zero); bool itself has no remainder.
  expect_error("remainder(long, false)", [&] { ember::remainder(i, zeros({2}, kBool)); },
               {"ZeroDivisionError", "Bool"});
  expect_error("remainder(bool, bool)",
               [&] { ember::remainder(ones({2}, kBool), ones({2}, kBool)); },
               {"remainder", "Bool"});
  // Floats divide by zero into NaN / inf, as in PyTorch.
  EXPECT_TRUE(std::isnan((f % 0).sum().item<float>()));
  EXPECT_TRUE(std::isnan(ember::fmod(f, zeros({2})).sum().item<float>()));
  // Rounding mode, dtype and shape checks.
  expect_error("div(rounding_mode='round')", [&] { ember::div(f, f, "round"); },
               {"rounding_mode", "'trunc'", "'floor'", "'round'"});
  expect_error("hypot(long)", [&] { ember::hypot(i, i); }, {"hypot", "Long"});
  expect_error("lerp(long)", [&] { ember::lerp(i, i, 0.5); }, {"lerp", "Long"});
  expect_error("lerp(float, double)", [&] { ember::lerp(f, ones({2}, kDouble), 0.5); },
               {"lerp", "end", "float32", "float64"});
  expect_error("lerp(weight double)", [&] { ember::lerp(f, f, ones({2}, kDouble)); },
               {"lerp", "weight", "float64"});
  expect_error("addcdiv(int, int)", [&] { ember::addcdiv(f, i, i); },
               {"addcdiv", "Integer division"});
  expect_error("addcmul(bool)",
               [&] { ember::addcmul(ones({2}, kBool), ones({2}, kBool), ones({2}, kBool)); },
               {"addcmul", "Bool"});
  Tensor a = zeros({2, 3}), b = zeros({4});
  for (auto& [name, fn] : std::vector<std::pair<const char*, std::function<Tensor()>>>{
           {"remainder", [&] { return a % b; }},
           {"fmod", [&] { return ember::fmod(a, b); }},
           {"atan2", [&] { return ember::atan2(a, b); }},
           {"hypot", [&] { return ember::hypot(a, b); }},
           {"floor_divide", [&] { return ember::floor_divide(a, b); }},
           {"bitwise_and", [&] { return ember::bitwise_and(a.to(kInt), b.to(kInt)); }},
           {"logical_xor", [&] { return ember::logical_xor(a, b); }},
           {"lerp", [&] { return ember::lerp(a, b, 0.5); }},
           {"addcmul", [&] { return ember::addcmul(a, a, b); }}}) {
    std::string msg = error_of(fn);
    ASSERT_FALSE(msg.empty()) << name << " of shapes [2, 3] and [4] did not throw";
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << name << ": " << msg;
    EXPECT_NE(msg.find("[4]"), std::string::npos) << name << ": " << msg;
  }
}

// Rounding divisions have no gradient (PyTorch: zeros for div with a rounding mode; floor_divide
// and bitwise ops are not differentiable) and remainder by a scalar passes the gradient through.
TEST(ElementwiseBackward, RoundingDivisionGradients) {
  Tensor x = tensor({5.5, -3.25, 0.75}, kDouble).requires_grad_(true);
  Tensor y = tensor({2.0, 2.0, -0.5}, kDouble).requires_grad_(true);
  variable_list g = autograd::grad({ember::div(x, y, "floor").sum()}, {x, y});
  EXPECT_EQ(g[0].abs().sum().item<double>(), 0.0);
  EXPECT_EQ(g[1].abs().sum().item<double>(), 0.0);
  EXPECT_FALSE(ember::floor_divide(x, y).requires_grad());
  EXPECT_FALSE(ember::logical_xor(x, y).requires_grad());
  // remainder: d/db = -floor(a / b); fmod: d/db = -trunc(a / b).
  variable_list gr = autograd::grad({ember::remainder(x, y).sum()}, {x, y});
  EXPECT_TRUE(equal(gr[1], tensor({-2.0, 2.0, 2.0}, kDouble))) << gr[1];
  variable_list gf = autograd::grad({ember::fmod(x, y).sum()}, {x, y});
  EXPECT_TRUE(equal(gf[1], tensor({-2.0, 1.0, 1.0}, kDouble))) << gf[1];
}

}  // namespace
}  // namespace ember::testing
