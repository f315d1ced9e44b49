// PyTorch parity of the elementwise front ends: every unary, binary and comparison op of ops.h over
// float32/float64/float16/bfloat16/int32/int64/bool, contiguous, non-contiguous, broadcast and
// 0-dim operands, tensor-scalar forms, type promotion (result_type), errors, and gradients.
//
// Where PyTorch 1.13 rejects a case only because its CPU kernel lacks a dtype ("... not implemented
// for 'Half'"), the case is skipped; every other rejection must be an ember::Error naming the
// dtype.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "ember/autograd.h"
#include "ember/tensor_data.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

const std::vector<ScalarType> kDtypes = {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kBool};

// Tolerance for comparing a result of dtype `t` with PyTorch (both round the same float math;
// 16-bit results may differ by one unit in the last place).
std::pair<double, double> tolerance(ScalarType t) {
  switch (t) {
    case kFloat:
      return {1e-5, 1e-6};
    case kDouble:
      return {1e-12, 1e-14};
    case kHalf:
      return {2e-3, 1e-3};
    case kBFloat16:
      return {1.6e-2, 1e-2};
    default:
      return {0, 0};
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// True when `msg` names dtype `t` in any of the spellings users see.
bool names_dtype(const std::string& msg, ScalarType t) {
  std::string m = lower(msg);
  std::string py = python_name(t);
  return m.find(lower(to_string(t))) != std::string::npos ||
         m.find(lower(py.substr(py.find('.') + 1))) != std::string::npos;
}

// PyTorch 1.13 CPU kernels that simply do not exist for a dtype (not a statement about semantics).
bool is_kernel_gap(const std::string& torch_error) {
  return torch_error.find("not implemented for 'Half'") != std::string::npos ||
         torch_error.find("not implemented for 'BFloat16'") != std::string::npos;
}

std::string last_line(const std::string& s) {
  std::string t = s;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  size_t nl = t.rfind("--- code ---");
  if (nl != std::string::npos) t = t.substr(0, nl);
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

// Runs `code` (defining `out`) in PyTorch; returns the result or the Python error text.
struct TorchResult {
  Tensor out;
  std::string error;
};
TorchResult torch_eval(const std::string& code, const std::map<std::string, Tensor>& inputs) {
  try {
    return {TorchOracle::instance().run(code, inputs, {"out"}).at("out"), ""};
  } catch (const Error& e) {
    return {Tensor(), e.what()};
  }
}

// Compares Ember's result (or exception) with PyTorch's for one case; `ember_fn` is evaluated
// for each layout in `layouts` (all with the same logical values as the PyTorch inputs).
void expect_parity(const std::string& ctx, const TorchResult& expected,
                   const std::vector<std::pair<std::string, std::function<Tensor()>>>& layouts,
                   ScalarType named_dtype, double scale = 0) {
  if (!expected.out.defined() && is_kernel_gap(expected.error)) return;
  for (const auto& [layout, fn] : layouts) {
    std::string where = ctx + " [" + layout + "]";
    if (!expected.out.defined()) {
      try {
        Tensor got = fn();
        ADD_FAILURE() << where << ": PyTorch rejects this (" << last_line(expected.error)
                      << ") but Ember returned dtype " << got.dtype() << " shape " << got.sizes();
      } catch (const Error& e) {
        EXPECT_TRUE(names_dtype(e.what(), named_dtype))
            << where << ": the error should name dtype " << named_dtype << ": " << e.what();
      }
      return;  // one layout is enough to show a rejection
    }
    Tensor got;
    try {
      got = fn();
    } catch (const std::exception& e) {
      ADD_FAILURE() << where << ": Ember threw but PyTorch returns " << expected.out.dtype() << ": "
                    << e.what();
      continue;
    }
    auto [rtol, atol] = tolerance(expected.out.dtype());
    // PyTorch's 16-bit CPU kernels round intermediates (alpha * b) to the 16-bit type, Ember does
    // not: allow an ulp of the intermediate's magnitude.
    if (expected.out.dtype() == kHalf) atol = std::max(atol, 2 * 0x1p-10 * scale);
    if (expected.out.dtype() == kBFloat16) atol = std::max(atol, 2 * 0x1p-7 * scale);
    expect_close(got, expected.out, rtol, atol, where);
  }
}

// Largest |x| in `t` (0 for an empty tensor).
double max_abs(const Tensor& t) {
  double m = 0;
  for (double v : to_doubles(t)) m = std::max(m, std::fabs(v));
  return m;
}

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
      {"neg", [](const Tensor& a) { return ember::neg(a); }, "torch.neg(a)"},
      {"neg_operator", [](const Tensor& a) { return -a; }, "-a"},
      {"abs", [](const Tensor& a) { return ember::abs(a); }, "torch.abs(a)", Domain::AwayFromZero},
      {"exp", [](const Tensor& a) { return ember::exp(a); }, "torch.exp(a)"},
      {"log", [](const Tensor& a) { return ember::log(a); }, "torch.log(a)", Domain::Positive},
      {"log1p", [](const Tensor& a) { return ember::log1p(a); }, "torch.log1p(a)",
       Domain::Positive},
      {"sqrt", [](const Tensor& a) { return ember::sqrt(a); }, "torch.sqrt(a)", Domain::Positive},
      {"rsqrt", [](const Tensor& a) { return ember::rsqrt(a); }, "torch.rsqrt(a)",
       Domain::Positive},
      {"square", [](const Tensor& a) { return ember::square(a); }, "torch.square(a)"},
      {"sin", [](const Tensor& a) { return ember::sin(a); }, "torch.sin(a)"},
      {"cos", [](const Tensor& a) { return ember::cos(a); }, "torch.cos(a)"},
      {"sign", [](const Tensor& a) { return ember::sign(a); }, "torch.sign(a)",
       Domain::AwayFromZero},
      {"relu", [](const Tensor& a) { return ember::relu(a); }, "torch.relu(a)",
       Domain::AwayFromZero},
      {"sigmoid", [](const Tensor& a) { return ember::sigmoid(a); }, "torch.sigmoid(a)"},
      {"tanh", [](const Tensor& a) { return ember::tanh(a); }, "torch.tanh(a)"},
      {"gelu", [](const Tensor& a) { return ember::gelu(a); }, "F.gelu(a)"},
      {"gelu_tanh", [](const Tensor& a) { return ember::gelu(a, "tanh"); },
       "F.gelu(a, approximate='tanh')"},
      {"silu", [](const Tensor& a) { return ember::silu(a); }, "F.silu(a)"},
      {"clamp", [](const Tensor& a) { return ember::clamp(a, -1, 1); }, "torch.clamp(a, -1, 1)"},
      {"clamp_float_bounds", [](const Tensor& a) { return ember::clamp(a, -0.5, std::nullopt); },
       "torch.clamp(a, min=-0.5)"},
      {"pow_2", [](const Tensor& a) { return ember::pow(a, 2); }, "torch.pow(a, 2)"},
      {"pow_half", [](const Tensor& a) { return ember::pow(a, 0.5); }, "torch.pow(a, 0.5)",
       Domain::Positive},
      {"rpow", [](const Tensor& a) { return ember::pow(2, a); }, "torch.pow(2, a)",
       Domain::Positive},
      {"logical_not", [](const Tensor& a) { return ember::logical_not(a); }, "torch.logical_not(a)",
       Domain::SmallInt, false},
      {"isnan", [](const Tensor& a) { return ember::isnan(a); }, "torch.isnan(a)", Domain::Normal,
       false},
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
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }, "a * b"},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }, "a / b", D::Normal,
       D::AwayFromZero},
      {"pow", [](const Tensor& a, const Tensor& b) { return ember::pow(a, b); }, "torch.pow(a, b)",
       D::Positive, D::Positive},
      {"maximum", [](const Tensor& a, const Tensor& b) { return ember::maximum(a, b); },
       "torch.maximum(a, b)"},
      {"minimum", [](const Tensor& a, const Tensor& b) { return ember::minimum(a, b); },
       "torch.minimum(a, b)"},
      {"eq", [](const Tensor& a, const Tensor& b) { return a == b; }, "a == b", D::SmallInt,
       D::SmallInt, false},
      {"ne", [](const Tensor& a, const Tensor& b) { return ember::ne(a, b); }, "torch.ne(a, b)",
       D::SmallInt, D::SmallInt, false},
      {"lt", [](const Tensor& a, const Tensor& b) { return a < b; }, "a < b", D::SmallInt,
       D::SmallInt, false},
      {"le", [](const Tensor& a, const Tensor& b) { return ember::le(a, b); }, "torch.le(a, b)",
       D::SmallInt, D::SmallInt, false},
      {"gt", [](const Tensor& a, const Tensor& b) { return a > b; }, "a > b", D::SmallInt,
       D::SmallInt, false},
      {"ge", [](const Tensor& a, const Tensor& b) { return ember::ge(a, b); }, "torch.ge(a, b)",
       D::SmallInt, D::SmallInt, false},
      {"logical_and", [](const Tensor& a, const Tensor& b) { return ember::logical_and(a, b); },
       "torch.logical_and(a, b)", D::SmallInt, D::SmallInt, false},
      {"logical_or", [](const Tensor& a, const Tensor& b) { return ember::logical_or(a, b); },
       "torch.logical_or(a, b)", D::SmallInt, D::SmallInt, false},
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
std::string python_literal(const Scalar& s) {
  if (s.isBoolean()) return s.toBool() ? "True" : "False";
  if (s.isIntegral(false)) return std::to_string(s.toLong());
  std::ostringstream os;
  os.precision(17);
  os << s.toDouble();
  std::string r = os.str();
  if (r.find_first_of(".en") == std::string::npos) r += ".0";  // keep it a Python float
  return r;
}

struct ScalarCase {
  const char* name;
  Tensor (*fn)(const Tensor&, const Scalar&);
  const char* torch;  // expression over a and s
  Domain domain = Domain::Normal;
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
      {"mul", [](const Tensor& a, const Scalar& s) { return a * s; }, "a * s"},
      {"rmul", [](const Tensor& a, const Scalar& s) { return s * a; }, "s * a"},
      {"div", [](const Tensor& a, const Scalar& s) { return a / s; }, "a / s"},
      {"rdiv", [](const Tensor& a, const Scalar& s) { return s / a; }, "s / a", D::AwayFromZero},
      {"pow", [](const Tensor& a, const Scalar& s) { return ember::pow(a, s); }, "torch.pow(a, s)",
       D::Positive},
      {"rpow", [](const Tensor& a, const Scalar& s) { return ember::pow(s, a); }, "torch.pow(s, a)",
       D::Positive},
      {"eq", [](const Tensor& a, const Scalar& s) { return a == s; }, "a == s", D::SmallInt},
      {"ne", [](const Tensor& a, const Scalar& s) { return a.ne(s); }, "a != s", D::SmallInt},
      {"lt", [](const Tensor& a, const Scalar& s) { return a < s; }, "a < s", D::SmallInt},
      {"le", [](const Tensor& a, const Scalar& s) { return a.le(s); }, "a <= s", D::SmallInt},
      {"gt", [](const Tensor& a, const Scalar& s) { return a > s; }, "a > s", D::SmallInt},
      {"ge", [](const Tensor& a, const Scalar& s) { return a.ge(s); }, "a >= s", D::SmallInt},
      {"where_other", [](const Tensor& a, const Scalar& s) { return ember::where(a > 0, a, s); },
       "torch.where(a > 0, a, s)"},
      {"where_self", [](const Tensor& a, const Scalar& s) { return ember::where(a > 0, s, a); },
       "torch.where(a > 0, s, a)"},
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
      auto [rtol, atol] = tolerance(dt);
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
        auto [rtol, atol] = tolerance(dt);
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

}  // namespace
}  // namespace ember::testing
