// The op database: one row per op of ember/op_table.h, generated from the table, run as ggml's
// test-backend-ops / PyTorch's OpInfo run theirs. The table gives each row its name and forms
// (free function, method, in-place method, tensor-scalar overloads); this file adds only what
// the table cannot know, in extras(): the input domain, tolerances, whether the op is
// differentiable, and the PyTorch expression when it is not `torch.<name>(a[, b])`.
//
// For every row and every form it has:
//   OpDatabase.Cpu/<op>       seeded inputs vs PyTorch, non-contiguous inputs, every form equal
//                             to the free function, gradients by finite differences (float64)
//   OpDatabase.Cuda/<op>      every CUDA device (SIM builds simulate two) vs the CPU, contiguous
//                             and not, every dtype, gradients by finite differences on the device
//   OpDatabase.Dtypes/<op>    every dtype (binary: every dtype pair, broadcast and 0-dim
//                             operands; tensor-scalar with int, float and bool scalars) vs PyTorch,
//                             PyTorch's rejections as ember::Errors naming the dtype
//   OpDatabase.Backward/<op>  gradients vs PyTorch in float32/float64 (broadcast dims reduced),
//                             second derivatives where the row asks
//   OpDatabase.Special/<op>   unary: ±0, ±inf, NaN, tiny and huge values; 0-dim and empty
//                             inputs; the sign of zero results where the row asks
//   OpDatabase16/<op>_float16, _bfloat16: every form again in 16 bits on every device against
//                             float32 on the rounded values (4 ulps; gradients 8 ulps)
// OpTableCoverage checks that every table op has a row, a method where the table says so, and
// a line in docs/ops.md, and that extras() names only table ops.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/op_table.h"
#include "ember/tensor_data.h"
#include "support/cuda_skip.h"
#include "support/elementwise_oracle.h"
#include "support/test_util.h"
#include "support/torch_oracle.h"

namespace ember::testing {
namespace {

using Args = std::vector<Tensor>;
using Unary = Tensor (*)(const Tensor&);
using Binary = Tensor (*)(const Tensor&, const Tensor&);
using WithScalar = Tensor (*)(const Tensor&, const Scalar&);

// What the table cannot say about an op.
struct Extra {
  Domain a = Domain::Normal;  // input domains
  Domain b = Domain::Normal;
  ScalarType dtype = kFloat;       // the dtype of the Cpu/Cuda/16-bit rows' inputs
  const char* torch = nullptr;     // PyTorch over a (and b), default torch.<name>(a[, b])
  bool grad = true;                // differentiable: gradients vs PyTorch and finite differences
  bool finite_differences = true;  // false where the op jumps too often for central differences
  double rtol = 1e-5, atol = 1e-6;
  Scalar scalar = 2.5;           // the scalar operand of the tensor-scalar forms (its kind too)
  bool double_backward = false;  // second derivatives vs PyTorch
  bool zero_sign = false;        // zero results carry PyTorch's sign
};

const std::map<std::string, Extra>& extras() {
  using D = Domain;
  static const std::map<std::string, Extra> m = [] {
    std::map<std::string, Extra> e;
    auto pos = [](Extra x = {}) {
      x.a = D::Positive;
      return x;
    };
    Extra second;
    second.double_backward = true;
    Extra second_signed = second;
    second_signed.zero_sign = true;
    // unary
    e["abs"].a = D::AwayFromZero;
    e["log"] = pos();
    e["log1p"] = pos();
    e["sqrt"] = pos();
    e["rsqrt"] = pos();
    e["tan"] = second_signed;
    e["tan"].a = D::Unit;
    e["asin"] = second_signed;
    e["asin"].a = D::Unit;
    e["acos"] = second;
    e["acos"].a = D::Unit;
    e["atan"] = second_signed;
    e["sinh"] = second_signed;
    e["cosh"] = second;
    e["expm1"] = second_signed;
    e["log2"] = pos(second);
    e["log10"] = pos(second);
    e["exp2"] = second;
    e["sign"].a = D::AwayFromZero;
    for (const char* r : {"floor", "ceil", "trunc", "frac"}) e[r] = second_signed;
    e["round"].grad = false;
    e["relu"].a = D::AwayFromZero;
    e["logical_not"] = {D::SmallInt, D::Normal, kFloat, nullptr, false};
    e["isnan"].grad = false;
    e["isinf"].grad = false;  // their infinities: test_matrix_parts (IsInfIsFinite)
    e["isfinite"].grad = false;
    e["silu"].torch = "F.silu(a)";
    e["bitwise_not"] = {D::SmallInt, D::Normal, kLong, nullptr, false};
    // binary
    e["div"].b = D::AwayFromZero;
    e["div"].scalar = 4;
    e["pow"].a = D::Positive;
    e["pow"].scalar = -1.5;
    // a / b jumps at the integers: gradients vs PyTorch only (test_backend_parity keeps rows with
    // inputs shaped to stay between the jumps for finite differences).
    for (const char* r : {"remainder", "fmod"}) {
      e[r].b = D::AwayFromZero;
      e[r].finite_differences = false;
      e[r].scalar = -1.5;
    }
    e["floor_divide"] = {D::Normal, D::AwayFromZero, kFloat, nullptr, false};
    for (const char* r :
         {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}) {
      e[r] = {D::SmallInt, D::SmallInt, kFloat, nullptr, false};
      e[r].scalar = 1;
    }
    for (const char* r : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
      e[r] = {D::SmallInt, D::SmallInt, kLong, nullptr, false};
      e[r].scalar = int64_t{5};  // a float scalar makes PyTorch's result float: no bitwise op
    }
    return e;
  }();
  return m;
}

// One row: the forms the table lists, as functions, and the extras.
struct OpInfo {
  const char* name = nullptr;
  bool binary = false;
  Unary fn1 = nullptr, method1 = nullptr, inplace1 = nullptr;
  Binary fn2 = nullptr, method2 = nullptr, inplace2 = nullptr;
  WithScalar fn_s = nullptr, method_s = nullptr, inplace_s = nullptr;
  Extra x;
};

// The rows, generated from the table. In-place forms run on a clone (inputs stay untouched).
std::vector<OpInfo> table_rows() {
  std::vector<OpInfo> rows;
#define UNARY_ROW(op, Prim, method, inplace)                         \
  {                                                                  \
    OpInfo r;                                                        \
    r.name = #op;                                                    \
    r.fn1 = [](const Tensor& a) { return ember::op(a); };            \
    EMBER_OP_IF(                                                     \
        method, r.method1 = [](const Tensor& a) { return a.op(); };) \
    EMBER_OP_IF(                                                     \
        inplace, r.inplace1 = [](const Tensor& a) {                  \
          Tensor y = a.clone();                                      \
          Tensor& z = y.op##_();                                     \
          EXPECT_TRUE(z.is_same(y)) << #op "_ returns self";         \
          return y;                                                  \
        };)                                                          \
    rows.push_back(r);                                               \
  }
#define BINARY_ROW(op, Prim, scalar, inplace)                                               \
  {                                                                                         \
    OpInfo r;                                                                               \
    r.name = #op;                                                                           \
    r.binary = true;                                                                        \
    r.fn2 = [](const Tensor& a, const Tensor& b) { return ember::op(a, b); };               \
    r.method2 = [](const Tensor& a, const Tensor& b) { return a.op(b); };                   \
    EMBER_OP_IF(                                                                            \
        scalar, r.fn_s = [](const Tensor& a, const Scalar& s) { return ember::op(a, s); };) \
    EMBER_OP_IF(                                                                            \
        scalar, r.method_s = [](const Tensor& a, const Scalar& s) { return a.op(s); };)     \
    EMBER_OP_IF(                                                                            \
        inplace, r.inplace2 = [](const Tensor& a, const Tensor& b) {                        \
          Tensor y = a.clone();                                                             \
          EXPECT_TRUE(y.op##_(b).is_same(y)) << #op "_ returns self";                       \
          return y;                                                                         \
        };)                                                                                 \
    EMBER_OP_IF(inplace, EMBER_OP_IF(                                                       \
                             scalar, r.inplace_s = [](const Tensor& a, const Scalar& s) {   \
                               Tensor y = a.clone();                                        \
                               EXPECT_TRUE(y.op##_(s).is_same(y)) << #op "_ returns self";  \
                               return y;                                                    \
                             };))                                                           \
    rows.push_back(r);                                                                      \
  }
  EMBER_OP_TABLE_UNARY(UNARY_ROW)
  EMBER_OP_TABLE_BINARY(BINARY_ROW)
#undef UNARY_ROW
#undef BINARY_ROW
  for (OpInfo& r : rows) {
    auto it = extras().find(r.name);
    if (it != extras().end()) r.x = it->second;
  }
  return rows;
}

const std::vector<OpInfo>& rows() {
  static const std::vector<OpInfo> r = table_rows();
  return r;
}

std::string torch_expr(const OpInfo& op) {
  if (op.x.torch) return op.x.torch;
  return std::string("torch.") + op.name + (op.binary ? "(a, b)" : "(a)");
}
std::string torch_scalar_expr(const OpInfo& op) {
  return std::string("torch.") + op.name + "(a, s)";
}

// A named form of the op as a function of the inputs (a[, b]) with the scalar bound.
struct Form {
  std::string name;
  std::function<Tensor(const Args&)> fn;
  bool scalar;   // takes op.x.scalar as its second operand
  bool inplace;  // writes its first input (a clone of it)
};
// An in-place form applies where the result keeps the first input's dtype and shape (PyTorch
// rejects the rest, or casts back, which the free function's result does not show).
bool applies(const Form& f, const Tensor& result, const Tensor& a) {
  return !f.inplace || (result.dtype() == a.dtype() && result.sizes() == a.sizes());
}
std::vector<Form> forms(const OpInfo& op) {
  std::vector<Form> f;
  const Scalar s = op.x.scalar;
  if (!op.binary) {
    f.push_back({"free", [g = op.fn1](const Args& x) { return g(x.at(0)); }, false, false});
    if (op.method1)
      f.push_back({"method", [g = op.method1](const Args& x) { return g(x.at(0)); }, false, false});
    if (op.inplace1)
      f.push_back(
          {"in-place", [g = op.inplace1](const Args& x) { return g(x.at(0)); }, false, true});
    return f;
  }
  f.push_back({"free", [g = op.fn2](const Args& x) { return g(x.at(0), x.at(1)); }, false, false});
  f.push_back(
      {"method", [g = op.method2](const Args& x) { return g(x.at(0), x.at(1)); }, false, false});
  if (op.inplace2) {
    f.push_back({"in-place", [g = op.inplace2](const Args& x) { return g(x.at(0), x.at(1)); },
                 false, true});
  }
  if (op.fn_s) {
    f.push_back(
        {"free scalar", [g = op.fn_s, s](const Args& x) { return g(x.at(0), s); }, true, false});
    f.push_back({"method scalar", [g = op.method_s, s](const Args& x) { return g(x.at(0), s); },
                 true, false});
  }
  if (op.inplace_s) {
    f.push_back({"in-place scalar", [g = op.inplace_s, s](const Args& x) { return g(x.at(0), s); },
                 true, true});
  }
  return f;
}

// The Cpu/Cuda/16-bit inputs: a {3, 4}, b {4} (broadcast), of the row's dtype.
Args make_inputs(const OpInfo& op, ScalarType dtype) {
  Args xs = {make_input({{3, 4}, dtype, op.x.a}, seed_for(std::string(op.name) + "/a"))};
  if (op.binary)
    xs.push_back(make_input({{4}, dtype, op.x.b}, seed_for(std::string(op.name) + "/b")));
  return xs;
}

Args to_device(const Args& xs, Device device, bool contiguous) {
  Args out;
  for (const Tensor& x : xs) {
    Tensor t = x.to(device);
    out.push_back(contiguous ? t : non_contiguous(t));
  }
  return out;
}

bool is_floating(ScalarType t) {
  return is_floating_point(t);
}

// Every form on `device`, contiguous and not, against the CPU result of the free form.
void expect_forms_match(const OpInfo& op, const Args& xs, Device device, const std::string& what) {
  std::vector<Form> fs = forms(op);
  const Tensor ref_tensor = fs[0].fn(xs);
  Tensor ref_scalar;
  for (const Form& f : fs) {
    if (f.scalar && !ref_scalar.defined()) ref_scalar = f.fn(xs);
  }
  for (const Form& f : fs) {
    const Tensor& ref = f.scalar ? ref_scalar : ref_tensor;
    if (!applies(f, ref, xs[0])) continue;
    for (bool contiguous : {true, false}) {
      std::string ctx = detail::str_cat(op.name, " (", f.name, what, ") on ", device,
                                        contiguous ? "" : " non-contiguous");
      Tensor out;
      try {
        out = f.fn(to_device(xs, device, contiguous));
      } catch (const std::exception& e) {
        ADD_FAILURE() << ctx << " threw: " << e.what();
        continue;
      }
      EXPECT_EQ(out.device(), device) << ctx;
      ASSERT_EQ(out.dtype(), ref.dtype()) << ctx;
      expect_close(out.cpu(), ref, op.x.rtol, op.x.atol, ctx + " vs the CPU free function");
    }
  }
}

void expect_finite_differences(const OpInfo& op, const Args& xs, Device device) {
  if (!op.x.grad || !op.x.finite_differences || !is_floating(op.x.dtype)) return;
  for (const Form& f : forms(op)) {
    expect_gradients_match_finite_differences(f.fn, xs, device,
                                              std::string(op.name) + " (" + f.name + ")");
  }
}

class OpDatabase : public ::testing::TestWithParam<OpInfo> {};

TEST_P(OpDatabase, Cpu) {
  const OpInfo& op = GetParam();
  const Args xs = make_inputs(op, op.x.dtype);
  std::map<std::string, Tensor> named = {{"a", xs[0]}};
  if (op.binary) named["b"] = xs[1];
  auto r = TorchOracle::instance().run("out = " + torch_expr(op), named, {"out"});
  expect_close(forms(op)[0].fn(xs), r.at("out"), op.x.rtol, op.x.atol,
               std::string(op.name) + ": Ember vs PyTorch `" + torch_expr(op) + "`");
  if (op.fn_s) {
    std::string code = "s = " + python_literal(op.x.scalar) + "\nout = " + torch_scalar_expr(op);
    auto rs = TorchOracle::instance().run(code, named, {"out"});
    expect_close(op.fn_s(xs[0], op.x.scalar), rs.at("out"), op.x.rtol, op.x.atol,
                 std::string(op.name) + " with scalar " + python_literal(op.x.scalar));
  }
  expect_forms_match(op, xs, Device(kCPU), "");
  expect_finite_differences(op, xs, Device(kCPU));
}

TEST_P(OpDatabase, Cuda) {
  EMBER_SKIP_WITHOUT_CUDA();
  const OpInfo& op = GetParam();
  for (const Device& device : cuda_devices()) {
    expect_forms_match(op, make_inputs(op, op.x.dtype), device, "");
    expect_finite_differences(op, make_inputs(op, op.x.dtype), device);
    // Every dtype the CPU accepts, the device must give alike.
    for (ScalarType dt : kElementwiseDtypes) {
      if (dt == op.x.dtype) continue;
      const Args xs = make_inputs(op, dt);
      try {
        forms(op)[0].fn(xs);
      } catch (const Error&) {
        continue;  // rejected on the CPU: Dtypes checks the error
      }
      expect_forms_match(op, xs, device, detail::str_cat(", ", dt));
    }
  }
}

std::vector<std::pair<std::string, std::function<Tensor()>>> layouts_of(
    const std::function<Tensor(const Tensor&)>& f, const Tensor& a) {
  return {{"contiguous", [f, a] { return f(a); }},
          {"non-contiguous", [f, a] { return f(non_contiguous(a)); }}};
}

TEST_P(OpDatabase, Dtypes) {
  const OpInfo& op = GetParam();
  const std::string expr = torch_expr(op);
  if (!op.binary) {
    for (ScalarType dt : kElementwiseDtypes) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ")");
      Tensor a = make_input({{3, 4}, dt, op.x.a}, seed_for(ctx));
      TorchResult expected = torch_eval("out = " + expr, {{"a", a}});
      for (const Form& f : forms(op)) {
        if (expected.out.defined() && !applies(f, expected.out, a)) continue;
        expect_parity(ctx + " " + f.name, expected,
                      layouts_of([&](const Tensor& t) { return f.fn({t}); }, a), dt);
      }
      if (!expected.out.defined()) continue;
      // The expanded layout (stride 0) gives row 0 everywhere.
      TorchResult rows = torch_eval("a = a[0:1].expand(3, 4)\nout = " + expr, {{"a", a}});
      ASSERT_TRUE(rows.out.defined()) << rows.error;
      expect_parity(ctx, rows,
                    {{"expanded",
                      [&] {
                        return op.fn1(a.slice(0, 0, 1).expand({3, 4}));
                      }}},
                    dt);
    }
    return;
  }
  struct Shapes {
    const char* name;
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> shapes = {{"same shape", {3, 4}, {3, 4}},
                                      {"broadcast", {3, 1, 4}, {2, 1}},
                                      {"0-dim rhs", {3, 4}, {}},
                                      {"0-dim lhs", {}, {3, 4}},
                                      {"both 0-dim", {}, {}}};
  for (const Shapes& sh : shapes) {
    for (ScalarType da : kElementwiseDtypes) {
      for (ScalarType db : kElementwiseDtypes) {
        std::string ctx = detail::str_cat(op.name, "(", da, IntArrayRef(sh.a), ", ", db,
                                          IntArrayRef(sh.b), ") ", sh.name);
        Tensor a = make_input({sh.a, da, op.x.a}, seed_for(ctx + "a"));
        Tensor b = make_input({sh.b, db, op.x.b}, seed_for(ctx + "b"));
        TorchResult expected = torch_eval("out = " + expr, {{"a", a}, {"b", b}});
        std::vector<std::pair<std::string, std::function<Tensor()>>> layouts = {
            {"contiguous", [&] { return op.fn2(a, b); }},
            {"method", [&] { return op.method2(a, b); }},
            {"non-contiguous lhs", [&] { return op.fn2(non_contiguous(a), b); }},
            {"non-contiguous both", [&] { return op.fn2(non_contiguous(a), non_contiguous(b)); }}};
        expect_parity(ctx, expected, layouts, da == kBool || db == kBool ? kBool : da);
      }
    }
  }
  if (!op.fn_s) return;
  for (ScalarType dt : kElementwiseDtypes) {
    for (const Scalar& s : {Scalar(int64_t{2}), Scalar(-3), Scalar(2.5), Scalar(true)}) {
      std::string lit = python_literal(s);
      std::string ctx = detail::str_cat(op.name, "(", dt, ", ", lit, ")");
      Tensor a = make_input({{3, 4}, dt, op.x.a}, seed_for(ctx));
      TorchResult expected =
          torch_eval("s = " + lit + "\nout = " + torch_scalar_expr(op), {{"a", a}});
      expect_parity(ctx, expected,
                    {{"free", [&] { return op.fn_s(a, s); }},
                     {"method", [&] { return op.method_s(a, s); }},
                     {"non-contiguous", [&] { return op.fn_s(non_contiguous(a), s); }}},
                    dt);
    }
  }
}

TEST_P(OpDatabase, Backward) {
  const OpInfo& op = GetParam();
  if (!op.x.grad) GTEST_SKIP() << op.name << " is not differentiable";
  const std::string expr = torch_expr(op);
  for (ScalarType dt : {kFloat, kDouble}) {
    auto [rtol, atol] = elementwise_tolerance(dt);
    if (!op.binary) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ") backward");
      Tensor a = make_input({{3, 4}, dt, op.x.a}, seed_for(ctx));
      Tensor g = make_input({{3, 4}, dt}, seed_for(ctx + "g"));
      auto r = TorchOracle::instance().run(
          "a.requires_grad_(True)\nout = " + expr + "\nout.backward(g)\nga = a.grad",
          {{"a", a}, {"g", g}}, {"ga"});
      for (const Form& f : forms(op)) {
        Tensor x = a.clone().requires_grad_(true);
        f.fn({x}).backward(g);
        expect_close(x.grad(), r.at("ga"), rtol * 10, atol * 10, ctx + " " + f.name);
      }
      continue;
    }
    struct Shapes {
      const char* name;
      std::vector<int64_t> a, b;
    };
    for (const Shapes& sh :
         {Shapes{"same shape", {3, 4}, {3, 4}}, Shapes{"broadcast", {3, 1, 4}, {2, 1}},
          Shapes{"0-dim rhs", {3, 4}, {}}, Shapes{"0-dim lhs", {}, {3, 4}}}) {
      std::string ctx = detail::str_cat(op.name, "(", dt, ") backward, ", sh.name);
      Tensor a = make_input({sh.a, dt, op.x.a}, seed_for(ctx + "a"));
      Tensor b = make_input({sh.b, dt, op.x.b}, seed_for(ctx + "b"));
      Tensor probe = op.fn2(a, b);
      Tensor g = make_input({std::vector<int64_t>(probe.sizes().begin(), probe.sizes().end()), dt},
                            seed_for(ctx + "g"));
      auto r = TorchOracle::instance().run(
          "a.requires_grad_(True)\nb.requires_grad_(True)\nout = " + expr +
              "\nout.backward(g)\nga = a.grad\ngb = b.grad",
          {{"a", a}, {"b", b}, {"g", g}}, {"ga", "gb"});
      for (Binary f : {op.fn2, op.method2}) {
        Tensor xa = a.clone().requires_grad_(true), xb = b.clone().requires_grad_(true);
        f(xa, xb).backward(g);
        expect_close(xa.grad(), r.at("ga"), rtol * 10, atol * 10, ctx + " d/da");
        expect_close(xb.grad(), r.at("gb"), rtol * 10, atol * 10, ctx + " d/db");
      }
    }
    if (op.fn_s && dt == kDouble) {
      for (const Scalar& s : {Scalar(int64_t{2}), Scalar(2.5)}) {
        std::string lit = python_literal(s);
        std::string ctx = detail::str_cat(op.name, "(float64, ", lit, ") backward");
        Tensor a = make_input({{3, 4}, kDouble, op.x.a}, seed_for(ctx));
        Tensor g = make_input({{3, 4}, kDouble}, seed_for(ctx + "g"));
        Tensor x = a.clone().requires_grad_(true);
        op.fn_s(x, s).backward(g);
        auto r = TorchOracle::instance().run(
            "s = " + lit + "\na.requires_grad_(True)\nout = " + torch_scalar_expr(op) +
                "\nout.backward(g)\nga = a.grad",
            {{"a", a}, {"g", g}}, {"ga"});
        expect_close(x.grad(), r.at("ga"), 1e-11, 1e-13, ctx);
      }
    }
  }
  if (!op.x.double_backward || op.binary) return;
  // The gradient is built from differentiable ops, so a second derivative matches PyTorch's.
  std::string ctx = detail::str_cat(op.name, " double backward");
  Tensor a = make_input({{3, 4}, kDouble, op.x.a}, seed_for(ctx));
  Tensor x = a.clone().requires_grad_(true);
  auto g = autograd::grad({op.fn1(x).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(g[0].defined()) << ctx;
  auto r = TorchOracle::instance().run(
      "a.requires_grad_(True)\ng, = torch.autograd.grad((lambda a: " + expr +
          ")(a).sum(), a, create_graph=True)\n"
          "gg = torch.autograd.grad(g.sum(), a, allow_unused=True)[0] if g.requires_grad else "
          "None\n"
          "gg = torch.zeros_like(a) if gg is None else gg",
      {{"a", a}}, {"g", "gg"});
  expect_close(g[0].detach(), r.at("g"), 1e-10, 1e-12, ctx + " (first)");
  Tensor gg;
  if (g[0].requires_grad()) {
    gg = autograd::grad({g[0].sum()}, {x}, {}, std::nullopt, false, /*allow_unused=*/true)[0];
  }
  if (!gg.defined()) gg = zeros_like(a);
  expect_close(gg, r.at("gg"), 1e-10, 1e-12, ctx + " (second)");
}

TEST_P(OpDatabase, Special) {
  const OpInfo& op = GetParam();
  if (op.binary) GTEST_SKIP() << "binary special values: test_elementwise_parity";
  const std::string expr = "out = " + torch_expr(op);
  const double inf = INFINITY, nan = NAN;
  Tensor special =
      tensor({0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, -2.5, 1e-30, 100.0, -100.0}, kDouble);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    std::string ctx = detail::str_cat(op.name, "(", dt, ", special values)");
    Tensor a = special.to(dt);
    expect_parity(ctx, torch_eval(expr, {{"a", a}}), {{"contiguous", [&] { return op.fn1(a); }}},
                  dt);
  }
  for (std::vector<int64_t> shape : {std::vector<int64_t>{}, std::vector<int64_t>{0, 3}}) {
    std::string ctx = detail::str_cat(op.name, " of shape ", IntArrayRef(shape));
    Tensor a = make_input({shape, kFloat, op.x.a}, seed_for(ctx));
    for (const Form& f : forms(op)) {
      expect_parity(ctx + " " + f.name, torch_eval(expr, {{"a", a}}),
                    {{"contiguous", [&] { return f.fn({a}); }}}, kFloat);
    }
  }
  if (!op.x.zero_sign) return;
  // expect_close does not tell -0.0 from +0.0: floor(-0.0) = -0.0, ceil(-0.3) = -0.0, ...
  Tensor values = tensor({0.0, -0.0, -0.3, 0.3, -1.0, 1.0, -2.5, 2.0}, kDouble);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    std::string ctx = detail::str_cat(op.name, "(", dt, ")");
    Tensor a = values.to(dt);
    TorchResult expected = torch_eval(expr, {{"a", a}});
    ASSERT_TRUE(expected.out.defined()) << ctx << ": " << expected.error;
    for (const Form& f : forms(op)) {
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

INSTANTIATE_TEST_SUITE_P(Ops, OpDatabase, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<OpInfo>& info) {
                           return std::string(info.param.name);
                         });

// ---- 16-bit floats: every float32 row again in float16 and bfloat16 on every device ----
struct Row16 {
  const OpInfo* op;
  ScalarType dtype;
};
std::vector<Row16> rows_16bit() {
  std::vector<Row16> out;
  for (const OpInfo& op : rows()) {
    if (op.x.dtype != kFloat) continue;
    for (ScalarType dt : {kHalf, kBFloat16}) out.push_back({&op, dt});
  }
  return out;
}

class OpDatabase16 : public ::testing::TestWithParam<Row16> {};

TEST_P(OpDatabase16, MatchesFloat32OnEveryDevice) {
  const OpInfo& op = *GetParam().op;
  const ScalarType dt = GetParam().dtype;
  const double ulp = dt == kHalf ? 1.0 / 1024 : 1.0 / 128;
  Args inputs16;
  for (const Tensor& x : make_inputs(op, kFloat)) inputs16.push_back(x.to(dt));
  Args inputs32;
  for (const Tensor& x : inputs16) inputs32.push_back(x.to(kFloat));  // the rounded values
  for (const Form& f : forms(op)) {
    const Tensor ref = f.fn(inputs32);
    if (!applies(f, ref, inputs32[0])) continue;
    const ScalarType expected_dtype = ref.dtype() == kFloat ? dt : ref.dtype();
    const Tensor expected = ref.to(expected_dtype);
    for (const Device& device : test_devices()) {
      for (bool contiguous : {true, false}) {
        const std::string ctx =
            detail::str_cat(op.name, " (", f.name, ") in ", to_string(dt), " on ", device,
                            contiguous ? "" : " (non-contiguous)");
        Tensor out;
        try {
          out = f.fn(to_device(inputs16, device, contiguous));
        } catch (const std::exception& e) {
          ADD_FAILURE() << ctx << " threw: " << e.what();
          continue;
        }
        EXPECT_EQ(out.device(), device) << ctx;
        ASSERT_EQ(out.dtype(), expected_dtype) << ctx;
        expect_close(out.cpu(), expected, 4 * ulp, 4 * ulp, ctx + " vs float32");
      }
      if (!op.x.grad) continue;
      // Gradients of sum(f(x) * v) in the 16-bit dtype against float32's.
      auto grads = [&](const Args& xs, Device on) {
        Args leaves;
        for (const Tensor& x : xs)
          leaves.push_back(x.to(on, false, /*copy=*/true).requires_grad_());
        Tensor y = f.fn(leaves);
        manual_seed(seed_for(std::string(op.name) + "/v"));
        Tensor v = randn(y.sizes()).to(dt).to(on, y.dtype());
        (y * v).sum().backward();
        Args g;
        for (const Tensor& l : leaves) g.push_back(l.grad().defined() ? l.grad().cpu() : Tensor());
        return g;
      };
      const Args g16 = grads(inputs16, device), g32 = grads(inputs32, Device(kCPU));
      for (size_t i = 0; i < g16.size(); ++i) {
        const std::string ctx = detail::str_cat(op.name, " (", f.name, ") in ", to_string(dt),
                                                " on ", device, " gradient ", i);
        ASSERT_EQ(g16[i].defined(), g32[i].defined()) << ctx;
        if (!g16[i].defined()) continue;
        EXPECT_EQ(g16[i].dtype(), dt) << ctx;
        expect_close(g16[i], g32[i].to(dt), 8 * ulp, 8 * ulp, ctx + " vs float32");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpDatabase16, ::testing::ValuesIn(rows_16bit()),
                         [](const ::testing::TestParamInfo<Row16>& info) {
                           return std::string(info.param.op->name) +
                                  (info.param.dtype == kHalf ? "_float16" : "_bfloat16");
                         });

// ---- aliases: every form equals the target's ----
TEST(OpDatabaseAliases, EqualTheirTargets) {
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
TEST(OpDatabaseInPlace, IntegerTensorsKeepTheirDtypeOrAreRefused) {
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

// ---- coverage ----
std::set<std::string> table_names(bool with_aliases) {
  std::set<std::string> names;
#define NAME(op, ...) names.insert(#op);
  EMBER_OP_TABLE_UNARY(NAME)
  EMBER_OP_TABLE_BINARY(NAME)
  if (with_aliases) {
    EMBER_OP_TABLE_UNARY_ALIASES(NAME)
  }
#undef NAME
  return names;
}

TEST(OpTableCoverage, EveryOpHasARowAndTheFormsTheTableLists) {
  std::set<std::string> in_rows;
  for (const OpInfo& op : rows()) {
    EXPECT_TRUE(in_rows.insert(op.name).second) << "duplicate row " << op.name;
    EXPECT_TRUE(op.binary ? op.fn2 && op.method2 : op.fn1 != nullptr) << op.name;
  }
  EXPECT_EQ(in_rows, table_names(false));
  // The forms each row has are the table's (a wrong flag would not compile: the method would be
  // missing, or declared and never defined and fail to link).
#define UNARY_FORMS(op, Prim, method, inplace)              \
  for (const OpInfo& r : rows()) {                          \
    if (std::string(r.name) != #op) continue;               \
    EXPECT_EQ(r.method1 != nullptr, bool(method)) << #op;   \
    EXPECT_EQ(r.inplace1 != nullptr, bool(inplace)) << #op; \
  }
  EMBER_OP_TABLE_UNARY(UNARY_FORMS)
#undef UNARY_FORMS
  // extras() speaks only of table ops (a renamed op must not silently lose its domain).
  for (const auto& [name, extra] : extras()) {
    EXPECT_TRUE(table_names(false).count(name))
        << "extras() names " << name << ", which is not in ember/op_table.h";
  }
}

TEST(OpTableCoverage, DocsListEveryOp) {
  std::ifstream in(source_dir() + "/docs/ops.md");
  ASSERT_TRUE(in) << "docs/ops.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const std::string& name : table_names(true)) {
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos)
        << "docs/ops.md does not list `" << name << "` (ember/op_table.h)";
  }
}

}  // namespace
}  // namespace ember::testing
