// The Tensor methods of the ops in ember/op_table.h, generated from the table: each method
// forwards to the free function (x.exp() is ember::exp(x)), and each in-place method writes
// through the row's primitive when nothing is recorded (ops/elementwise.h). The free functions
// themselves are the front ends in the other files of src/ops.
#include "ember/op_table.h"

#include "ops/elementwise.h"

namespace ember {

#define EMBER_UNARY_METHOD(name, Prim, method, inplace)                             \
  EMBER_OP_IF(                                                                      \
      method, Tensor Tensor::name() const { return ember::name(*this); })           \
  EMBER_OP_IF(                                                                      \
      inplace, Tensor& Tensor::name##_() const {                                    \
        return unary_inplace(const_cast<Tensor&>(*this), #name "_", UnaryOp::Prim,  \
                             static_cast<Tensor (*)(const Tensor&)>(&ember::name)); \
      })
EMBER_OP_TABLE_UNARY(EMBER_UNARY_METHOD)
#undef EMBER_UNARY_METHOD

#define EMBER_BINARY_METHOD(name, Prim, scalar, inplace)                                           \
  Tensor Tensor::name(const Tensor& other) const {                                                 \
    return ember::name(*this, other);                                                              \
  }                                                                                                \
  EMBER_OP_IF(                                                                                     \
      scalar,                                                                                      \
      Tensor Tensor::name(const Scalar& other) const { return ember::name(*this, other); })        \
  EMBER_OP_IF(                                                                                     \
      inplace, Tensor& Tensor::name##_(const Tensor& other) const {                                \
        return binary_inplace(const_cast<Tensor&>(*this), other, #name "_", BinaryOp::Prim, {},    \
                              [](const Tensor& s, const Tensor& o) { return ember::name(s, o); }); \
      })                                                                                           \
  EMBER_OP_IF(inplace,                                                                             \
              EMBER_OP_IF(                                                                         \
                  scalar, Tensor& Tensor::name##_(const Scalar& other) const {                     \
                    return binary_inplace(                                                         \
                        const_cast<Tensor&>(*this), other, #name "_", BinaryOp::Prim, {},          \
                        [](const Tensor& s, const Scalar& o) { return ember::name(s, o); });       \
                  }))
EMBER_OP_TABLE_BINARY(EMBER_BINARY_METHOD)
#undef EMBER_BINARY_METHOD

}  // namespace ember
