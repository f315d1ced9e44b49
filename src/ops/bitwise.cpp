// Bitwise and/or/xor/not on integer and bool tensors (floating dtypes are rejected, as PyTorch
// does), and logical_xor. None has a gradient.
#include "ops/elementwise.h"

namespace ember {

namespace {

void check_bitwise_dtype(const char* op, ScalarType result, ScalarType a, ScalarType b) {
  EMBER_CHECK(is_integral(result, /*include_bool=*/true), TypeError, "\"", op,
              "\" not implemented for '", to_string(result), "' (got ", to_string(a), " and ",
              to_string(b), " operands; bitwise ops take integer and bool tensors)");
}

Tensor bitwise(BinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  ScalarType dt = result_type(a, b);
  check_bitwise_dtype(name, dt, a.dtype(), b.dtype());
  return binary_kernel_call(op, a, b, dt);
}
Tensor bitwise(BinaryOp op, const char* name, const Tensor& a, const Scalar& b) {
  ScalarType dt = result_type(a, b);
  check_bitwise_dtype(name, dt, a.dtype(), b.isBoolean() ? kBool : b.type());
  return binary_kernel_call(op, a, wrap_scalar(b, dt), dt);
}

}  // namespace

Tensor bitwise_and(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::BitwiseAnd, "bitwise_and", a, b);
}
Tensor bitwise_and(const Tensor& a, const Scalar& b) {
  return bitwise(BinaryOp::BitwiseAnd, "bitwise_and", a, b);
}
Tensor bitwise_or(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::BitwiseOr, "bitwise_or", a, b);
}
Tensor bitwise_or(const Tensor& a, const Scalar& b) {
  return bitwise(BinaryOp::BitwiseOr, "bitwise_or", a, b);
}
Tensor bitwise_xor(const Tensor& a, const Tensor& b) {
  return bitwise(BinaryOp::BitwiseXor, "bitwise_xor", a, b);
}
Tensor bitwise_xor(const Tensor& a, const Scalar& b) {
  return bitwise(BinaryOp::BitwiseXor, "bitwise_xor", a, b);
}
// ~x is x ^ (all ones): true for bool, -1 for the integers (255 for uint8).
Tensor bitwise_not(const Tensor& a) {
  EMBER_CHECK(is_integral(a.dtype(), /*include_bool=*/true), TypeError,
              "\"bitwise_not\" not implemented for '", to_string(a.dtype()),
              "' (bitwise ops take integer and bool tensors)");
  const Scalar all_ones = a.dtype() == kBool ? Scalar(true) : Scalar(int64_t{-1});
  return binary_kernel_call(BinaryOp::BitwiseXor, a, wrap_scalar(all_ones, a.dtype()), a.dtype());
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return binary_kernel_call(BinaryOp::LogicalXor, a, b, result_type(a, b));
}

}  // namespace ember
