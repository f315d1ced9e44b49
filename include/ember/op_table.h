#pragma once
// The op table: one row per op whose free function, Tensor method and in-place method share one
// spelling and one signature shape. Everything that is uniform about such an op is generated from
// its row, with X-macros (no code generator):
//
//   - the free functions' declarations in ember/ops.h,
//   - the Tensor methods' declarations in ember/tensor.h and their forwarding definitions
//     (src/ops/op_table.cpp: `Tensor Tensor::exp() const { return ember::exp(*this); }`),
//   - the in-place methods (`exp_`), also in src/ops/op_table.cpp,
//   - its row in the tests' op table (tests/ops/op_rows_elementwise.cpp, swept by
//     tests/ops/test_op_*.cpp): every form on every device against the CPU and PyTorch,
//     gradients, every dtype, 16-bit sweeps,
//   - the list of ops in docs/ops.md (checked by that test).
//
// What a row does NOT generate is the op itself: the primitive in src/kernel_math/ops_list.h, its
// functor in src/kernel_math/functors.h and the front end (dtype rules, gradient) in src/ops/*.cpp
// stay written by hand (docs/architecture.md, "Adding an op").
//
// Ops with irregular signatures are NOT in the table and are declared by hand in ops.h/tensor.h:
// add/sub (alpha), div with a rounding mode, pow(Scalar, Tensor), remainder(Scalar, Tensor),
// round(decimals), clamp/clamp_min/clamp_max (optional bounds), gelu (approximate), where,
// lerp/addcmul/addcdiv (three operands), reductions and scans (dims, keepdim, dtype), softmax,
// linear algebra, views, indexing and the operators (+ - * / % & | ^ ~ == ...). A table op may
// have such extra overloads (div, pow, remainder, round): they are declared next to the table's.
//
// Columns (every column is a token; flags are 0 or 1):
//
// EMBER_OP_TABLE_UNARY(_)   _(name, Prim, method, inplace)
//   ember::name(const Tensor&) -> Tensor                  always
//   Tensor::name() const -> Tensor                        method == 1
//   Tensor::name_() const -> Tensor&                      inplace == 1
//   Prim: the UnaryOp of src/kernel_math/ops_list.h the op runs; the in-place method writes through
//   it directly when nothing is recorded and the tensor is floating. On an integer tensor an op
//   whose result is floating (sin_, log_...) is refused as PyTorch refuses it ("result type Float
//   can't be cast to the desired output type Long"). `Composite` for ops that are not one unary
//   kernel (they cannot have inplace == 1); ops whose result is always bool have none.
//
// EMBER_OP_TABLE_BINARY(_)  _(name, Prim, scalar, inplace)
//   ember::name(const Tensor&, const Tensor&) -> Tensor   always
//   Tensor::name(const Tensor&) const -> Tensor           always
//   ember::name(const Tensor&, const Scalar&) -> Tensor   scalar == 1
//   Tensor::name(const Scalar&) const -> Tensor           scalar == 1
//   Tensor::name_(const Tensor&) const -> Tensor&         inplace == 1 (and name_(const Scalar&)
//                                                         when scalar == 1)
//   Prim: the BinaryOp of src/kernel_math/ops_list.h (the in-place methods' direct path);
//   `Composite` for ops that are not one binary kernel (they cannot have inplace == 1).
//
// EMBER_OP_TABLE_UNARY_ALIASES(_)  _(alias, target, method, inplace)
//   libtorch's other names of a unary table op: inline ember::alias(a) = ember::target(a), and
//   Tensor::alias() / alias_() forwarding to target() / target_() by the same flags.
//
// Iterating the table (how ops.h, tensor.h, src/ops/op_table.cpp and the Python bindings of
// issue 23 use it): define a macro with the row's parameters, expand the list with it, undefine it.
// EMBER_OP_IF(flag, ...) keeps its arguments when flag is 1 and drops them when it is 0, so a form
// that does not exist is never named. A nanobind/pybind11 module binds every row as
//
//   #define BIND_UNARY(name, Prim, method, inplace)
//     m.def(#name, static_cast<Tensor (*)(const Tensor&)>(&ember::name));
//     EMBER_OP_IF(method, cls.def(#name, static_cast<Tensor (Tensor::*)() const>(&Tensor::name));)
//     EMBER_OP_IF(inplace, cls.def(#name "_", &Tensor::name##_);)
//   EMBER_OP_TABLE_UNARY(BIND_UNARY)
//   #undef BIND_UNARY
//
// (one logical line, continued with backslashes), and the binary rows alike, casting to
// `Tensor (*)(const Tensor&, const Tensor&)` and, under EMBER_OP_IF(scalar, ...), to
// `Tensor (*)(const Tensor&, const Scalar&)`. The Python name is the row's name (PyTorch spells
// these ops as libtorch does). The irregular ops above are bound by hand.
//
// Adding a row here without a front end fails to link (ember::name is declared, never defined);
// adding a front end without a row leaves the op without a method, without tests and
// without docs, which tests/ops/test_op_coverage.cpp (OpCoverage) reports.

#define EMBER_OP_IF(flag, ...) EMBER_OP_IF_##flag(__VA_ARGS__)
#define EMBER_OP_IF_0(...)
#define EMBER_OP_IF_1(...) __VA_ARGS__

// clang-format off
// Unary elementwise ops. neg, abs, relu, sign, square, round, floor, ceil, trunc keep integer
// dtypes (floor/ceil/trunc/round return a copy of an integer input; bool is rejected); frac is
// x - trunc(x), floating dtypes only; logical_not, isnan, isinf and isfinite return bool (an
// integer or bool tensor is finite everywhere); bitwise_not takes integer
// and bool tensors only (x ^ all ones); silu takes floating dtypes only; every other op turns
// integers and bool into the default float dtype. round is half to even, as torch.round.
// sgn keeps every dtype (sign of a real tensor); signbit, isposinf, isneginf and isreal return
// bool (isreal is true everywhere on a real tensor); sinc is sin(pi x) / (pi x), 1 at 0; lgamma,
// digamma and i0 (modified Bessel, order 0) promote integers as the float ops do.
#define EMBER_OP_TABLE_UNARY(_)        \
  _(neg,         Neg,        1, 1)     \
  _(abs,         Abs,        1, 1)     \
  _(exp,         Exp,        1, 1)     \
  _(log,         Log,        1, 1)     \
  _(log1p,       Log1p,      1, 1)     \
  _(sqrt,        Sqrt,       1, 1)     \
  _(rsqrt,       Rsqrt,      1, 1)     \
  _(square,      Square,     1, 1)     \
  _(sin,         Sin,        1, 1)     \
  _(cos,         Cos,        1, 1)     \
  _(tan,         Tan,        1, 1)     \
  _(asin,        Asin,       1, 1)     \
  _(acos,        Acos,       1, 1)     \
  _(atan,        Atan,       1, 1)     \
  _(sinh,        Sinh,       1, 1)     \
  _(cosh,        Cosh,       1, 1)     \
  _(tanh,        Tanh,       1, 1)     \
  _(expm1,       Expm1,      1, 1)     \
  _(log2,        Log2,       1, 1)     \
  _(log10,       Log10,      1, 1)     \
  _(exp2,        Exp2,       1, 1)     \
  _(erf,         Erf,        1, 1)     \
  _(erfinv,      Erfinv,     1, 1)     \
  _(sign,        Sign,       1, 1)     \
  _(floor,       Floor,      1, 1)     \
  _(ceil,        Ceil,       1, 1)     \
  _(trunc,       Trunc,      1, 1)     \
  _(frac,        Frac,       1, 1)     \
  _(round,       Round,      1, 1)     \
  _(relu,        Relu,       1, 1)     \
  _(sigmoid,     Sigmoid,    1, 1)     \
  _(silu,        Silu,       0, 0)     \
  _(logical_not, LogicalNot, 1, 0)     \
  _(isnan,       IsNan,      1, 0)     \
  _(isinf,       Composite,  1, 0)     \
  _(isfinite,    Composite,  1, 0)     \
  _(bitwise_not, Composite,  1, 0)     \
  _(sinc,        Composite,  1, 0)     \
  _(sgn,         Composite,  1, 0)     \
  _(signbit,     Composite,  1, 0)     \
  _(isposinf,    Composite,  1, 0)     \
  _(isneginf,    Composite,  1, 0)     \
  _(isreal,      Composite,  1, 0)     \
  _(lgamma,      Lgamma,     1, 1)     \
  _(digamma,     Digamma,    1, 1)     \
  _(i0,          I0,         1, 1)

// libtorch's aliases of unary table ops.
#define EMBER_OP_TABLE_UNARY_ALIASES(_) \
  _(fix,    trunc, 1, 1)                \
  _(arcsin, asin,  1, 1)                \
  _(arccos, acos,  1, 1)                \
  _(arctan, atan,  1, 1)

// Binary elementwise ops: PyTorch's type promotion and broadcasting (a 0-dim CPU tensor may meet
// a tensor of any device). eq ... ge and logical_* return bool. remainder is Python's modulo
// (the divisor's sign), fmod C's (the dividend's); integer division by zero throws
// ZeroDivisionError (on CUDA: a device-side assert). floor_divide rounds toward -inf (PyTorch
// 1.13) and keeps integers; no gradient. bitwise_* take integer and bool tensors only; atan2 and
// hypot promote integers to the default float dtype. xlogy is x * log(y), 0 where x == 0 (NaN
// where y is); logaddexp(2) is log(e^a + e^b) (base 2), floating only; heaviside(a, values) is
// 0 / values / 1 for a < 0 / == 0 / > 0, both of one dtype; float_power computes in float64;
// gcd and lcm take integer tensors only (non-negative results, gcd(0, 0) = 0).
#define EMBER_OP_TABLE_BINARY(_)            \
  _(mul,          Mul,         1, 1)        \
  _(div,          Div,         1, 1)        \
  _(pow,          Pow,         1, 0)        \
  _(maximum,      Maximum,     0, 0)        \
  _(minimum,      Minimum,     0, 0)        \
  _(remainder,    Remainder,   1, 0)        \
  _(fmod,         Fmod,        1, 0)        \
  _(floor_divide, DivFloor,    1, 0)        \
  _(atan2,        Atan2,       0, 0)        \
  _(hypot,        Hypot,       0, 0)        \
  _(eq,           Eq,          1, 0)        \
  _(ne,           Ne,          1, 0)        \
  _(lt,           Lt,          1, 0)        \
  _(le,           Le,          1, 0)        \
  _(gt,           Gt,          1, 0)        \
  _(ge,           Ge,          1, 0)        \
  _(logical_and,  LogicalAnd,  0, 0)        \
  _(logical_or,   LogicalOr,   0, 0)        \
  _(logical_xor,  LogicalXor,  0, 0)        \
  _(bitwise_and,  BitwiseAnd,  1, 0)        \
  _(bitwise_or,   BitwiseOr,   1, 0)        \
  _(bitwise_xor,  BitwiseXor,  1, 0)        \
  _(xlogy,        Composite,   1, 0)        \
  _(logaddexp,    Composite,   0, 0)        \
  _(logaddexp2,   Composite,   0, 0)        \
  _(heaviside,    Composite,   0, 0)        \
  _(float_power,  Composite,   1, 0)        \
  _(gcd,          Gcd,         0, 1)        \
  _(lcm,          Composite,   0, 0)
// clang-format on
