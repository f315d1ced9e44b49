// The elementwise rows: the ops of ember/op_table.h, generated from the table (every form the
// table gives an op: free function, method, in-place method, tensor-scalar overloads), then by
// hand the irregular elementwise ops (gelu, clamp, add/sub with alpha, rounding divisions, lerp,
// addcmul, where, ...), the operators, casts and in-place methods.
//
// A table op needs no code here. table_extras() holds only what the table cannot know: the input
// domains (Positive for log, Unit for asin, ...), the dtype of the inputs (int64 for the bitwise
// ops), "not differentiable", "no finite differences" (remainder and fmod jump at every integer
// ratio; the *_between_jumps rows below compose inputs that stay between the jumps), the scalar
// operand, second derivatives and zero signs to check, and a PyTorch expression other than
// `torch.<op>(a[, b])`.
#include <map>

#include "ember/autograd.h"
#include "ember/op_table.h"
#include "ember/tensor_data.h"
#include "ops/op_row_helpers.h"

namespace ember::testing {

using namespace rows;

namespace {

// What the table cannot say about an op.
struct Extra {
  Domain a = Domain::Normal;  // input domains
  Domain b = Domain::Normal;
  ScalarType dtype = kFloat;       // the dtype of the inputs
  const char* torch = nullptr;     // PyTorch over a (and b), default torch.<name>(a[, b])
  bool grad = true;                // differentiable
  bool finite_differences = true;  // false where the op jumps too often for central differences
  double rtol = 1e-5, atol = 1e-6;
  Scalar scalar = 2.5;  // the scalar operand of the tensor-scalar forms (its kind too)
  bool double_backward = false;
  bool zero_sign = false;
};

const std::map<std::string, Extra>& table_extras() {
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
    e["erf"] = second_signed;
    e["erfinv"] = second_signed;
    e["erfinv"].a = D::Unit;
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
    e["sgn"].a = D::AwayFromZero;
    // For real inputs sgn is sign; PyTorch 1.13's sgn backward returns uninitialised memory for
    // real tensors (the values change from run to run), so the oracle computes torch.sign.
    e["sgn"].torch = "torch.sign(a)";
    for (const char* r : {"signbit", "isposinf", "isneginf", "isreal"}) e[r].grad = false;
    e["lgamma"] = pos(second);
    e["digamma"] = pos(second);
    e["i0"] = second;
    // binary
    e["div"].b = D::AwayFromZero;
    e["div"].scalar = 4;
    e["pow"].a = D::Positive;
    e["pow"].scalar = -1.5;
    // a / b jumps at the integers: gradients vs PyTorch only (remainder_between_jumps and
    // fmod_between_jumps keep inputs shaped to stay between the jumps for finite differences).
    for (const char* r : {"remainder", "fmod"}) {
      e[r].b = D::AwayFromZero;
      e[r].finite_differences = false;
      e[r].scalar = -1.5;
    }
    // Second derivatives against PyTorch (remainder and fmod: zero, as PyTorch's).
    for (const char* r : {"atan2", "hypot", "remainder", "fmod"}) e[r].double_backward = true;
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
    e["xlogy"].b = D::Positive;
    e["heaviside"] = {D::SmallInt, D::Normal, kFloat, nullptr, false};
    e["float_power"].a = D::Positive;
    for (const char* r : {"gcd", "lcm"}) e[r] = {D::SmallInt, D::SmallInt, kLong, nullptr, false};
    return e;
  }();
  return m;
}

// The table's rows, with their extras: a {3, 4} and b {4} (broadcast) of the extra's dtype.
// In-place forms run on a clone (inputs stay untouched) and must return self.
std::vector<OpInfo> table_rows() {
  std::vector<OpInfo> out;
  auto start = [](const char* name, bool binary) {
    Extra x;
    auto it = table_extras().find(name);
    if (it != table_extras().end()) x = it->second;
    OpInfo r;
    r.name = name;
    r.inputs = {{{3, 4}, x.dtype, x.a}};
    if (binary) r.inputs.push_back({{4}, x.dtype, x.b});
    r.torch = x.torch ? x.torch : "torch." + r.name + (binary ? "(a, b)" : "(a)");
    r.grad = x.grad;
    r.finite_differences = x.finite_differences;
    r.rtol = x.rtol;
    r.atol = x.atol;
    r.scalar = x.scalar;
    r.double_backward = x.double_backward;
    r.zero_sign = x.zero_sign;
    r.elementwise = binary ? Elementwise::Binary : Elementwise::Unary;
    r.letter_seeds = true;
    return r;
  };
#define UNARY_ROW(op, Prim, method, inplace)                                                     \
  {                                                                                              \
    OpInfo r = start(#op, false);                                                                \
    r.fn = [](const Args& x) { return ember::op(x.at(0)); };                                     \
    EMBER_OP_IF(method,                                                                          \
                r.forms.push_back({"method", [](const Args& x) { return x.at(0).op(); }});)      \
    EMBER_OP_IF(inplace, r.forms.push_back({"in-place",                                          \
                                            [](const Args& x) {                                  \
                                              Tensor y = x.at(0).clone();                        \
                                              Tensor& z = y.op##_();                             \
                                              EXPECT_TRUE(z.is_same(y)) << #op "_ returns self"; \
                                              return y;                                          \
                                            },                                                   \
                                            true});)                                             \
    out.push_back(r);                                                                            \
  }
#define BINARY_ROW(op, Prim, scalar, inplace)                                                      \
  {                                                                                                \
    OpInfo r = start(#op, true);                                                                   \
    r.fn = [](const Args& x) { return ember::op(x.at(0), x.at(1)); };                              \
    r.forms.push_back({"method", [](const Args& x) { return x.at(0).op(x.at(1)); }});              \
    EMBER_OP_IF(inplace, r.forms.push_back({"in-place",                                            \
                                            [](const Args& x) {                                    \
                                              Tensor y = x.at(0).clone();                          \
                                              EXPECT_TRUE(y.op##_(x.at(1)).is_same(y))             \
                                                  << #op "_ returns self";                         \
                                              return y;                                            \
                                            },                                                     \
                                            true});)                                               \
    EMBER_OP_IF(scalar, r.torch_scalar = "torch." #op "(a, s)";)                                   \
    EMBER_OP_IF(scalar,                                                                            \
                r.scalar_forms.push_back({"free scalar", [](const Tensor& a, const Scalar& s) {    \
                                            return ember::op(a, s);                                \
                                          }});)                                                    \
    EMBER_OP_IF(scalar,                                                                            \
                r.scalar_forms.push_back(                                                          \
                    {"method scalar", [](const Tensor& a, const Scalar& s) { return a.op(s); }});) \
    EMBER_OP_IF(                                                                                   \
        inplace,                                                                                   \
        EMBER_OP_IF(scalar, r.scalar_forms.push_back({"in-place scalar",                           \
                                                      [](const Tensor& a, const Scalar& s) {       \
                                                        Tensor y = a.clone();                      \
                                                        EXPECT_TRUE(y.op##_(s).is_same(y))         \
                                                            << #op "_ returns self";               \
                                                        return y;                                  \
                                                      },                                           \
                                                      true});))                                    \
    out.push_back(r);                                                                              \
  }
  EMBER_OP_TABLE_UNARY(UNARY_ROW)
  EMBER_OP_TABLE_BINARY(BINARY_ROW)
#undef UNARY_ROW
#undef BINARY_ROW
  return out;
}

// The irregular elementwise ops in the dtype, special-value and gradient sweeps. Their inputs on
// the devices: a {3, 4}; a {3, 4} and b {4}; a {3, 4} with the row's scalar; a, b, c {3, 4}.
// Finite differences only where a row says so (kinks and jumps: clamp, rounding divisions).
OpInfo unary(const char* name, OpFn fn, const char* torch, Domain d = Domain::Normal,
             bool grad = true) {
  OpInfo r{name, {F({3, 4}, d)}, std::move(fn), torch, grad};
  r.elementwise = Elementwise::Unary;
  r.finite_differences = false;
  return r;
}
OpInfo binary(const char* name, OpFn fn, const char* torch, InputSpec a, InputSpec b,
              bool grad = true, double alpha = 0) {
  OpInfo r{name, {std::move(a), std::move(b)}, std::move(fn), torch, grad};
  r.elementwise = Elementwise::Binary;
  r.finite_differences = false;
  r.magnitude_tolerance = true;
  r.alpha = alpha;
  return r;
}
OpInfo tensor_scalar(const char* name, ScalarOpFn fn, const char* torch, Domain d = Domain::Normal,
                     bool grad = true) {
  OpInfo r{name, {F({3, 4}, d)}, nullptr, "", grad};
  r.scalar_forms = {{"free", std::move(fn)}};
  r.torch_scalar = torch;
  r.elementwise = Elementwise::TensorScalar;
  r.finite_differences = false;
  return r;
}
// A tensor-scalar row of integer ops: int64 input, an integer scalar on the devices.
OpInfo integer_tensor_scalar(OpInfo r) {
  r.inputs = {T({3, 4}, kLong, kSmall)};
  r.scalar = int64_t{5};
  return r;
}
// Rows whose weight is a scalar leave c unused: they take a and b only.
OpInfo ternary(const char* name, OpFn fn, const char* torch, Domain c = Domain::Normal,
               bool uses_c = true) {
  OpInfo r{name, {F({3, 4}), F({3, 4}), F({3, 4}, c)}, std::move(fn), torch, true};
  if (!uses_c) r.inputs.pop_back();
  r.elementwise = Elementwise::Ternary;
  r.finite_differences = false;
  return r;
}
OpInfo with_finite_differences(OpInfo r) {
  r.finite_differences = true;
  return r;
}

std::vector<OpInfo> irregular_elementwise_rows() {
  using D = Domain;
  const InputSpec a34 = F({3, 4}), b4 = F({4}), b4_away = F({4}, kAway);
  const InputSpec i34 = T({3, 4}, kLong, kSmall), i4 = T({4}, kLong, kSmall);
  return {
      // ---- unary ----
      with_finite_differences(unary("neg_operator", OP(-a), "-a")),
      with_finite_differences(unary("gelu", OP(ember::gelu(a)), "F.gelu(a)")),
      with_finite_differences(
          unary("gelu_tanh", OP(ember::gelu(a, "tanh")), "F.gelu(a, approximate='tanh')")),
      unary("clamp_int_bounds", OP(ember::clamp(a, -1, 1)), "torch.clamp(a, -1, 1)"),
      unary("clamp_float_bounds", OP(ember::clamp(a, -0.5, std::nullopt)),
            "torch.clamp(a, min=-0.5)"),
      unary("pow_int_base", OP(ember::pow(2, a)), "torch.pow(2, a)", D::Positive),
      // ---- binary ----
      with_finite_differences(
          binary("add", OP(ember::add(a, b)), "torch.add(a, b)", a34, F({3, 4}))),
      binary("add_alpha_int", OP(ember::add(a, b, 2)), "torch.add(a, b, alpha=2)", a34, b4, true,
             2),
      binary("sub_operator", OP(a - b), "a - b", a34, b4),
      binary("sub_alpha_int", OP(ember::sub(a, b, 3)), "torch.sub(a, b, alpha=3)", a34, b4, true,
             3),
      binary("remainder_operator", OP(a % b), "a % b", a34, b4_away),
      binary("div_trunc", OP(ember::div(a, b, "trunc")), "torch.div(a, b, rounding_mode='trunc')",
             a34, b4_away),
      binary("div_floor", OP(a.div(b, "floor")), "torch.div(a, b, rounding_mode='floor')", a34,
             b4_away),
      binary("bitwise_or_operator", OP(a | b), "a | b", i34, i4, false),
      binary("bitwise_xor_operator", OP(a ^ b), "a ^ b", i34, i4, false),
      binary("bitwise_and_operator", OP(a & b), "a & b", i34, i4, false),
      // ---- tensor-scalar ----
      tensor_scalar(
          "scalar_add", [](const Tensor& a, const Scalar& s) { return a + s; }, "a + s"),
      tensor_scalar(
          "scalar_radd", [](const Tensor& a, const Scalar& s) { return s + a; }, "s + a"),
      tensor_scalar(
          "scalar_add_alpha", [](const Tensor& a, const Scalar& s) { return ember::add(a, s, 2); },
          "torch.add(a, s, alpha=2)"),
      tensor_scalar(
          "scalar_sub", [](const Tensor& a, const Scalar& s) { return a - s; }, "a - s"),
      tensor_scalar(
          "scalar_rsub", [](const Tensor& a, const Scalar& s) { return s - a; }, "s - a"),
      tensor_scalar(
          "scalar_rmul", [](const Tensor& a, const Scalar& s) { return s * a; }, "s * a"),
      tensor_scalar(
          "scalar_rdiv", [](const Tensor& a, const Scalar& s) { return s / a; }, "s / a",
          D::AwayFromZero),
      tensor_scalar(
          "scalar_rpow", [](const Tensor& a, const Scalar& s) { return ember::pow(s, a); },
          "torch.pow(s, a)", D::Positive),
      tensor_scalar(
          "scalar_where_other",
          [](const Tensor& a, const Scalar& s) { return ember::where(a > 0, a, s); },
          "torch.where(a > 0, a, s)"),
      tensor_scalar(
          "scalar_where_self",
          [](const Tensor& a, const Scalar& s) { return ember::where(a > 0, s, a); },
          "torch.where(a > 0, s, a)"),
      // PyTorch has no derivative for a scalar dividend
      tensor_scalar(
          "scalar_rremainder", [](const Tensor& a, const Scalar& s) { return s % a; }, "s % a",
          D::AwayFromZero, false),
      tensor_scalar(
          "scalar_div_trunc",
          [](const Tensor& a, const Scalar& s) { return ember::div(a, s, "trunc"); },
          "torch.div(a, s, rounding_mode='trunc')"),
      tensor_scalar(
          "scalar_div_floor", [](const Tensor& a, const Scalar& s) { return a.div(s, "floor"); },
          "torch.div(a, s, rounding_mode='floor')"),
      integer_tensor_scalar(tensor_scalar(
          "scalar_rbitwise_or", [](const Tensor& a, const Scalar& s) { return s | a; }, "s | a",
          D::SmallInt, false)),
      // ---- ternary: lerp, addcmul, addcdiv (first and second derivatives vs PyTorch) ----
      ternary("lerp_tensor_weight", OP(ember::lerp(a, b, c)), "torch.lerp(a, b, c)", D::Unit),
      ternary("lerp_weight_over_half", OP(a.lerp(b, c * 2 + 0.3)), "torch.lerp(a, b, c * 2 + 0.3)",
              D::Unit),
      ternary("lerp_scalar_small", OP(ember::lerp(a, b, 0.3)), "torch.lerp(a, b, 0.3)", D::Normal,
              false),
      ternary("lerp_scalar_large", OP(a.lerp(b, 1.7)), "torch.lerp(a, b, 1.7)", D::Normal, false),
      ternary("addcmul_unit_value", OP(ember::addcmul(a, b, c)), "torch.addcmul(a, b, c)"),
      ternary("addcmul_value", OP(a.addcmul(b, c, 2.5)), "torch.addcmul(a, b, c, value=2.5)"),
      ternary("addcmul_int_value", OP(ember::addcmul(a, b, c, -3)),
              "torch.addcmul(a, b, c, value=-3)"),
      ternary("addcdiv_unit_value", OP(ember::addcdiv(a, b, c)), "torch.addcdiv(a, b, c)",
              D::AwayFromZero),
      ternary("addcdiv_value", OP(a.addcdiv(b, c, -0.5)), "torch.addcdiv(a, b, c, value=-0.5)",
              D::AwayFromZero),
  };
}

// The irregular elementwise ops, the operators, casts and in-place methods on the devices (and
// meta, 16 bits), with finite differences where `true`.
std::vector<OpInfo> device_rows() {
  return {
      // ---- unary ----
      {"clamp", {F({3, 4})}, OP(ember::clamp(a, -0.5, 0.5)), "torch.clamp(a, -0.5, 0.5)", true},
      also(also({"clamp_min", {F({3, 4})}, OP(a.clamp_min(0.2)), "a.clamp_min(0.2)", true}, "free",
                OP(ember::clamp_min(a, 0.2))),
           "clamp", OP(a.clamp(0.2, std::nullopt))),
      also(also({"clamp_max", {F({3, 4})}, OP(a.clamp_max(-0.1)), "a.clamp_max(-0.1)", true},
                "free", OP(ember::clamp_max(a, -0.1))),
           "clamp", OP(a.clamp(std::nullopt, -0.1))),
      {"clamp_int64", {T({3, 4}, kLong)}, OP(ember::clamp(a, -2, 2)), "torch.clamp(a, -2, 2)"},
      {"pow_scalar_base", {F({3, 4})}, OP(ember::pow(2.0, a)), "torch.pow(2.0, a)", true},

      // ---- binary, broadcasting, scalars, promotion ----
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
      {"remainder_between_jumps",
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
      {"fmod_between_jumps",
       {F({3, 4}, kUnit), F({4}, kUnit)},
       OP(ember::fmod(a * 0.5 + 3, b * -0.1 - 2)),
       "torch.fmod(a * 0.5 + 3, b * -0.1 - 2)",
       true},
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
      {"round_scaled", {F({3, 4})}, OP(ember::round(a * 4)), "torch.round(a * 4)"},
      {"round_decimals_float64", {T({3, 4}, kDouble)}, OP(a.round(2)), "a.round(decimals=2)"},
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
       OP([&] {
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
}

}  // namespace

std::vector<std::string> op_table_extra_names() {
  std::vector<std::string> names;
  for (const auto& entry : table_extras()) names.push_back(entry.first);
  return names;
}

std::vector<OpInfo> elementwise_rows() {
  std::vector<OpInfo> out = table_rows();
  for (auto part : {irregular_elementwise_rows, device_rows}) {
    std::vector<OpInfo> rows = part();
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

}  // namespace ember::testing
