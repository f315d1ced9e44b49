// The op table's edge cases (tests/ops/op_info.h): what is not one row's sweep. Rounding ops on
// integers, result_type against torch.result_type for every dtype pair with tensors, 0-dim
// tensors and Python scalars, the default dtype, error messages (shapes, unsupported dtypes,
// in-place category changes, bad input of the binary math ops), where's gradient routing,
// bitwise_not over every integer dtype, the binary math ops' special values and integer-range
// edges, rounding divisions' gradients; the op_table.h aliases equal their targets in every form,
// in-place unary ops on integer tensors; and libtorch's method spellings of irregular ops
// (x.gather(1, i), x.logsumexp(..), c.addmm(a, b), ...) equal the free functions on every device.
//
// Where PyTorch 1.13 rejects a case only because its CPU kernel lacks a dtype ("... not implemented
// for 'Half'"), the case is skipped (support/elementwise_oracle.h).
#include <gtest/gtest.h>

#include <cmath>

#include "ember/autograd.h"
#include "ember/op_table.h"
#include "ember/tensor_data.h"
#include "support/elementwise_oracle.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

using autograd::variable_list;

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
// The message of the ember::Error that fn throws, or "" when it throws none.
template <typename Fn>
std::string thrown_message(Fn&& fn) {
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
    std::string msg = thrown_message(c.fn);
    ASSERT_FALSE(msg.empty()) << c.name << " of shapes [2, 3] and [4] did not throw";
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << c.name << ": " << msg;
    EXPECT_NE(msg.find("[4]"), std::string::npos) << c.name << ": " << msg;
  }
  EXPECT_THROW(a.add_(zeros({3, 3})), Error);
  // In place, the result shape must be self's shape.
  std::string msg = thrown_message([&] { zeros({3}).add_(zeros({2, 3})); });
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
  std::string neg = thrown_message([] { return -ones({2}, kBool); });
  EXPECT_NE(neg.find("bool"), std::string::npos) << neg;
  EXPECT_NE(neg.find("logical_not"), std::string::npos) << neg;
  std::string sub = thrown_message([] { return ones({2}, kBool) - ones({2}, kBool); });
  EXPECT_NE(sub.find("bool"), std::string::npos) << sub;
  // The process keeps working after errors.
  EXPECT_EQ((ones({2}) + ones({2})).sum().item<double>(), 4.0);
}

TEST(ElementwiseErrors, InPlaceCannotChangeDtypeCategory) {
  // PyTorch: result type Float can't be cast to the desired output type Long.
  Tensor i = ones({2}, kLong);
  std::string msg = thrown_message([&] { i.add_(ones({2}, kFloat)); });
  ASSERT_FALSE(msg.empty()) << "int64.add_(float32) did not throw";
  EXPECT_TRUE(names_dtype(msg, kFloat) && names_dtype(msg, kLong)) << msg;
  i.add_(ones({2}, kInt));  // same category: allowed
  EXPECT_EQ(i.dtype(), kLong);
  EXPECT_EQ(i.sum().item<int64_t>(), 4);
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
      {"xlogy", [](const Tensor& a, const Tensor& b) { return ember::xlogy(a, b); },
       "torch.xlogy(a, b)"},
      {"logaddexp", [](const Tensor& a, const Tensor& b) { return ember::logaddexp(a, b); },
       "torch.logaddexp(a, b)"},
      {"logaddexp2", [](const Tensor& a, const Tensor& b) { return ember::logaddexp2(a, b); },
       "torch.logaddexp2(a, b)"},
      {"heaviside", [](const Tensor& a, const Tensor& b) { return ember::heaviside(a, b); },
       "torch.heaviside(a, b)"},
      {"float_power", [](const Tensor& a, const Tensor& b) { return ember::float_power(a, b); },
       "torch.float_power(a, b)"},
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
    std::string msg = thrown_message(fn);
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
    std::string msg = thrown_message(fn);
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

// ---- aliases: every form equals the target's ----
TEST(OpTableAliases, EqualTheirTargets) {
  for (const Device& dev : test_devices()) {
    Tensor x = make_input({{3, 4}, kDouble, Domain::Unit}, 1).to(dev);
#define ALIAS_CHECK(alias, target, method, inplace)                                   \
  EXPECT_TRUE(ember::alias(x).equal(ember::target(x))) << #alias << " on " << dev;    \
  EMBER_OP_IF(method, EXPECT_TRUE(x.alias().equal(ember::target(x))) << #alias "()";) \
  EMBER_OP_IF(inplace, EXPECT_TRUE(x.clone().alias##_().equal(ember::target(x))) << #alias "_";)
    EMBER_OP_TABLE_UNARY_ALIASES(ALIAS_CHECK)
#undef ALIAS_CHECK
  }
}

// ---- in-place unary ops on integer tensors: kept dtypes work, floating results are refused ----
TEST(OpTableInPlace, IntegerTensorsKeepTheirDtypeOrAreRefused) {
  for (const Device& dev : test_devices()) {
    const Tensor i = tensor({-3, 0, 4}, kLong).to(dev);
    Tensor a = i.clone();
    EXPECT_TRUE(a.abs_().equal(tensor({3, 0, 4}, kLong).to(dev))) << dev;
    Tensor s = i.clone();
    EXPECT_TRUE(s.sign_().equal(tensor({-1, 0, 1}, kLong).to(dev))) << dev;
    Tensor q = i.clone();
    EXPECT_TRUE(q.square_().equal(tensor({9, 0, 16}, kLong).to(dev))) << dev;
    Tensor t = i.clone();
    const std::string msg = error_of<TypeError>([&] { t.sin_(); });
    EXPECT_TRUE(contains(msg, "sin_") && contains(msg, "can't be cast to the desired output type"))
        << msg;
    EXPECT_TRUE(t.equal(i)) << "a refused in-place op leaves its tensor as it was, on " << dev;
  }
}

TEST(TensorMethodSpellings, EqualTheFreeFunctions) {
  for (const Device& dev : test_devices()) {
    const std::string ctx = dev.str();
    Tensor x = make_input({3, 4}, kDouble, 1).to(dev);
    Tensor v = make_input({4}, kDouble, 3).to(dev);
    Tensor m = make_input({4, 5}, kDouble, 4).to(dev);
    Tensor c = make_input({3, 5}, kDouble, 5).to(dev);
    int64_t cols[] = {0, 3, 1, 2, 2, 0};
    Tensor idx = from_blob(cols, {3, 2}, TensorOptions().dtype(kLong)).clone().to(dev);
    EXPECT_TRUE(x.gather(1, idx).equal(gather(x, 1, idx))) << ctx;
    EXPECT_TRUE(x.logsumexp({1}, true).equal(logsumexp(x, {1}, true))) << ctx;
    EXPECT_TRUE(v.outer(v).equal(outer(v, v))) << ctx;
    EXPECT_TRUE(c.addmm(x, m, 0.5, 2).equal(addmm(c, x, m, 0.5, 2))) << ctx;
    EXPECT_TRUE(clamp_min(x, 0.1).equal(x.clamp(0.1, std::nullopt))) << ctx;
    EXPECT_TRUE(clamp_max(x, -0.1).equal(x.clamp(std::nullopt, -0.1))) << ctx;
    // Gradients flow through the method spellings as through the free functions.
    Tensor leaf = x.detach().requires_grad_();
    leaf.gather(1, idx).sum().backward();
    Tensor expected = zeros({3, 4}, TensorOptions().dtype(kDouble).device(dev));
    for (int64_t r = 0; r < 3; ++r) {
      for (int64_t k = 0; k < 2; ++k) {
        expected[r][cols[r * 2 + k]] += 1.0;
      }
    }
    EXPECT_TRUE(leaf.grad().equal(expected)) << ctx;
    // Errors are the free functions' own.
    EXPECT_THROW(x.gather(2, idx), Error) << ctx;
    EXPECT_THROW(x.addmm(x, x), Error) << ctx;
  }
}

}  // namespace
}  // namespace ember::testing
