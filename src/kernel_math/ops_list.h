#pragma once
// The single list of primitive ops. Each entry is (EnumName, functor struct in functors.h).
// Adding an elementwise op = one line here + one functor in functors.h + a front end in src/ops.

// Unary: out = f(x [, p.a, p.b]).
#define EMBER_UNARY_OPS(_)    \
  _(Neg, NegOp)               \
  _(Abs, AbsOp)               \
  _(Exp, ExpOp)               \
  _(Log, LogOp)               \
  _(Sqrt, SqrtOp)             \
  _(Rsqrt, RsqrtOp)           \
  _(Square, SquareOp)         \
  _(Reciprocal, ReciprocalOp) \
  _(Sin, SinOp)               \
  _(Cos, CosOp)               \
  _(Sign, SignOp)             \
  _(Erf, ErfOp)               \
  _(Log1p, Log1pOp)           \
  _(Relu, ReluOp)             \
  _(Sigmoid, SigmoidOp)       \
  _(Tanh, TanhOp)             \
  _(Gelu, GeluOp)             \
  _(GeluTanh, GeluTanhOp)     \
  _(Silu, SiluOp)             \
  _(Clamp, ClampOp)           \
  _(PowScalar, PowScalarOp)   \
  _(RPowScalar, RPowScalarOp) \
  _(LogicalNot, LogicalNotOp) \
  _(IsNan, IsNanOp)           \
  _(Round, RoundOp)           \
  _(Floor, FloorOp)           \
  _(Ceil, CeilOp)             \
  _(Trunc, TruncOp)           \
  _(Frac, FracOp)             \
  _(Tan, TanOp)               \
  _(Asin, AsinOp)             \
  _(Acos, AcosOp)             \
  _(Atan, AtanOp)             \
  _(Sinh, SinhOp)             \
  _(Cosh, CoshOp)             \
  _(Expm1, Expm1Op)           \
  _(Log2, Log2Op)             \
  _(Log10, Log10Op)           \
  _(Exp2, Exp2Op)

// Binary: out = f(a, b [, p.a]); broadcasting is done by the caller through zero strides.
#define EMBER_BINARY_OPS(_)                 \
  _(Add, AddOp)                             \
  _(Sub, SubOp)                             \
  _(Mul, MulOp)                             \
  _(Div, DivOp)                             \
  _(Pow, PowOp)                             \
  _(Maximum, MaximumOp)                     \
  _(Minimum, MinimumOp)                     \
  _(ThresholdBackward, ThresholdBackwardOp) \
  _(Eq, EqOp)                               \
  _(Ne, NeOp)                               \
  _(Lt, LtOp)                               \
  _(Le, LeOp)                               \
  _(Gt, GtOp)                               \
  _(Ge, GeOp)                               \
  _(LogicalAnd, LogicalAndOp)               \
  _(LogicalOr, LogicalOrOp)                 \
  _(LogicalXor, LogicalXorOp)               \
  _(Atan2, Atan2Op)                         \
  _(Hypot, HypotOp)                         \
  _(Remainder, RemainderOp)                 \
  _(Fmod, FmodOp)                           \
  _(DivTrunc, DivTruncOp)                   \
  _(DivFloor, DivFloorOp)                   \
  _(BitwiseAnd, BitwiseAndOp)               \
  _(BitwiseOr, BitwiseOrOp)                 \
  _(BitwiseXor, BitwiseXorOp)

// Reductions over a set of dims.
#define EMBER_REDUCE_OPS(_) \
  _(Sum, SumReduce)         \
  _(Prod, ProdReduce)       \
  _(Max, MaxReduce)         \
  _(Min, MinReduce)         \
  _(Any, AnyReduce)         \
  _(All, AllReduce)

namespace ember {

#define EMBER_ENUM_ENTRY(name, functor) name,
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

// Binary ops whose output is bool regardless of the input dtype.
constexpr bool is_comparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le ||
         op == BinaryOp::Gt || op == BinaryOp::Ge || op == BinaryOp::LogicalAnd ||
         op == BinaryOp::LogicalOr || op == BinaryOp::LogicalXor;
}

}  // namespace ember
