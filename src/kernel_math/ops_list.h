#pragma once
// The single list of primitive ops. A unary or binary entry is
//   (EnumName, functor struct in functors.h, output dtype, input dtypes):
//   output: Same (the compute dtype) or Bool (comparisons, logical ops, isnan);
//   inputs: the storage dtypes the functor is compiled for and the front end may send it:
//     Any, Floating (no bool or integer), NotBool, or Integral (bool and the integers).
// Adding an elementwise op = one line here + one functor in functors.h + a front end in src/ops.
#include <type_traits>

// Unary: out = f(x [, p.a, p.b]).
#define EMBER_UNARY_OPS(_)                  \
  _(Neg, NegOp, Same, Any)                  \
  _(Abs, AbsOp, Same, Any)                  \
  _(Exp, ExpOp, Same, Any)                  \
  _(Log, LogOp, Same, Any)                  \
  _(Sqrt, SqrtOp, Same, Any)                \
  _(Rsqrt, RsqrtOp, Same, Any)              \
  _(Square, SquareOp, Same, Any)            \
  _(Reciprocal, ReciprocalOp, Same, Any)    \
  _(Sin, SinOp, Same, Any)                  \
  _(Cos, CosOp, Same, Any)                  \
  _(Sign, SignOp, Same, Any)                \
  _(Erf, ErfOp, Same, Any)                  \
  _(Log1p, Log1pOp, Same, Any)              \
  _(Relu, ReluOp, Same, Any)                \
  _(Sigmoid, SigmoidOp, Same, Any)          \
  _(Tanh, TanhOp, Same, Any)                \
  _(Gelu, GeluOp, Same, Floating)           \
  _(GeluTanh, GeluTanhOp, Same, Floating)   \
  _(Silu, SiluOp, Same, Any)                \
  _(Clamp, ClampOp, Same, Any)              \
  _(PowScalar, PowScalarOp, Same, Any)      \
  _(RPowScalar, RPowScalarOp, Same, Any)    \
  _(LogicalNot, LogicalNotOp, Bool, Any)    \
  _(IsNan, IsNanOp, Bool, Any)              \
  _(Round, RoundOp, Same, Any)              \
  _(Floor, FloorOp, Same, Floating)         \
  _(Ceil, CeilOp, Same, Floating)           \
  _(Trunc, TruncOp, Same, Floating)         \
  _(Frac, FracOp, Same, Floating)           \
  _(Tan, TanOp, Same, Floating)             \
  _(Asin, AsinOp, Same, Floating)           \
  _(Acos, AcosOp, Same, Floating)           \
  _(Atan, AtanOp, Same, Floating)           \
  _(Sinh, SinhOp, Same, Floating)           \
  _(Cosh, CoshOp, Same, Floating)           \
  _(Expm1, Expm1Op, Same, Floating)         \
  _(Log2, Log2Op, Same, Floating)           \
  _(Log10, Log10Op, Same, Floating)         \
  _(Exp2, Exp2Op, Same, Floating)           \
  _(Erfinv, ErfinvOp, Same, Floating)       \
  _(Lgamma, LgammaOp, Same, Floating)       \
  _(Digamma, DigammaOp, Same, Floating)     \
  _(Polygamma, PolygammaOp, Same, Floating) \
  _(I0, I0Op, Same, Floating)               \
  _(I1, I1Op, Same, Floating)

// Binary: out = f(a, b [, p.a]); broadcasting is done by the caller through zero strides.
#define EMBER_BINARY_OPS(_)                               \
  _(Add, AddOp, Same, Any)                                \
  _(Sub, SubOp, Same, Any)                                \
  _(Mul, MulOp, Same, Any)                                \
  _(Div, DivOp, Same, Any)                                \
  _(Pow, PowOp, Same, Any)                                \
  _(Maximum, MaximumOp, Same, Any)                        \
  _(Minimum, MinimumOp, Same, Any)                        \
  _(ThresholdBackward, ThresholdBackwardOp, Same, Any)    \
  _(GeluBackward, GeluBackwardOp, Same, Floating)         \
  _(GeluTanhBackward, GeluTanhBackwardOp, Same, Floating) \
  _(Eq, EqOp, Bool, Any)                                  \
  _(Ne, NeOp, Bool, Any)                                  \
  _(Lt, LtOp, Bool, Any)                                  \
  _(Le, LeOp, Bool, Any)                                  \
  _(Gt, GtOp, Bool, Any)                                  \
  _(Ge, GeOp, Bool, Any)                                  \
  _(LogicalAnd, LogicalAndOp, Bool, Any)                  \
  _(LogicalOr, LogicalOrOp, Bool, Any)                    \
  _(LogicalXor, LogicalXorOp, Bool, Any)                  \
  _(Atan2, Atan2Op, Same, Floating)                       \
  _(Hypot, HypotOp, Same, Floating)                       \
  _(Remainder, RemainderOp, Same, NotBool)                \
  _(Fmod, FmodOp, Same, NotBool)                          \
  _(DivTrunc, DivTruncOp, Same, NotBool)                  \
  _(DivFloor, DivFloorOp, Same, NotBool)                  \
  _(BitwiseAnd, BitwiseAndOp, Same, Integral)             \
  _(BitwiseOr, BitwiseOrOp, Same, Integral)               \
  _(BitwiseXor, BitwiseXorOp, Same, Integral)             \
  _(Gcd, GcdOp, Same, Integral)

// Reductions over a set of dims.
#define EMBER_REDUCE_OPS(_) \
  _(Sum, SumReduce)         \
  _(Prod, ProdReduce)       \
  _(Max, MaxReduce)         \
  _(Min, MinReduce)         \
  _(Any, AnyReduce)         \
  _(All, AllReduce)

namespace ember {

#define EMBER_ENUM_ENTRY(name, ...) name,
enum class UnaryOp : int { EMBER_UNARY_OPS(EMBER_ENUM_ENTRY) Count };
enum class BinaryOp : int { EMBER_BINARY_OPS(EMBER_ENUM_ENTRY) Count };
enum class ReduceOp : int { EMBER_REDUCE_OPS(EMBER_ENUM_ENTRY) Count };
#undef EMBER_ENUM_ENTRY
// Inclusive scans: cumsum and cumprod.
enum class ScanOp : int { Sum, Prod };

// Parameters some functors take (clamp bounds, exponents, alpha of add/sub).
struct OpParams {
  double a = 0;
  double b = 0;
};

// The output column: an op with Bool output writes bool whatever its inputs' dtype.
enum class OpOutput { Same, Bool };
// The inputs column. Backends instantiate no kernel for the dtypes an op does not accept (nothing
// could reach one, and it would only add CUDA compile time); the front ends promote or reject
// first.
enum class OpInputs { Any, Floating, NotBool, Integral };

#define EMBER_OUTPUT_CASE(name, functor, output, inputs) \
  case Op::name:                                         \
    return OpOutput::output;
constexpr OpOutput output_of(UnaryOp op) {
  using Op = UnaryOp;
  switch (op) {
    EMBER_UNARY_OPS(EMBER_OUTPUT_CASE)  // one case per row
    default:
      return OpOutput::Same;
  }
}
constexpr OpOutput output_of(BinaryOp op) {
  using Op = BinaryOp;
  switch (op) {
    EMBER_BINARY_OPS(EMBER_OUTPUT_CASE)  // one case per row
    default:
      return OpOutput::Same;
  }
}
#undef EMBER_OUTPUT_CASE
constexpr bool has_bool_output(UnaryOp op) {
  return output_of(op) == OpOutput::Bool;
}
constexpr bool has_bool_output(BinaryOp op) {
  return output_of(op) == OpOutput::Bool;
}

// Whether an op whose inputs column is `inputs` is compiled for storage type scalar_t (bool, the
// integers, float, double, Half, BFloat16).
template <typename scalar_t>
constexpr bool accepts_storage(OpInputs inputs) {
  switch (inputs) {
    case OpInputs::Floating:
      return !std::is_integral_v<scalar_t>;
    case OpInputs::NotBool:
      return !std::is_same_v<scalar_t, bool>;
    case OpInputs::Integral:
      return std::is_integral_v<scalar_t>;
    default:
      return true;
  }
}

}  // namespace ember
