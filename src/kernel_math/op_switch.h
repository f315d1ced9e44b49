#pragma once
// The dtype-support switch of the unary and binary families, written once for both backends:
// maps a UnaryOp/BinaryOp to its functor and calls the backend's kernel with it, or, for a functor
// not compiled for the storage dtype (the inputs column of ops_list.h; its front end never
// asks), throws without instantiating a kernel. Host code; the switch lives in a function
// because a #define inside a macro argument is not portable (nvcc).
#include "ember/dtype.h"
#include "ember/error.h"
#include "kernel_math/functors.h"
#include "kernel_math/ops_list.h"

namespace ember {

// Names a functor type for the generic lambda of visit_unary_op/visit_binary_op:
// [&](auto op) { kernel<typename decltype(op)::type, scalar_t>(...); }.
template <typename Op>
struct OpTag {
  using type = Op;
};

// Calls run(OpTag<functor of op>{}) if that functor supports scalar_t; `dtype` names it otherwise.
template <typename scalar_t, typename Run>
void visit_unary_op(UnaryOp op, ScalarType dtype, Run&& run) {
  switch (op) {
#define EMBER_UNARY_CASE(name, functor, output, inputs)                                           \
  case UnaryOp::name:                                                                             \
    if constexpr (accepts_storage<scalar_t>(OpInputs::inputs)) {                                  \
      run(OpTag<functor>{});                                                                      \
    } else {                                                                                      \
      throw TypeError(                                                                            \
          ::ember::detail::str_cat("unary op " #name " is not compiled for ", to_string(dtype))); \
    }                                                                                             \
    break;
    EMBER_UNARY_OPS(EMBER_UNARY_CASE)
#undef EMBER_UNARY_CASE
    default:
      throw NotImplementedError("unknown unary op");
  }
}

template <typename scalar_t, typename Run>
void visit_binary_op(BinaryOp op, ScalarType dtype, Run&& run) {
  switch (op) {
#define EMBER_BINARY_CASE(name, functor, output, inputs)                                           \
  case BinaryOp::name:                                                                             \
    if constexpr (accepts_storage<scalar_t>(OpInputs::inputs)) {                                   \
      run(OpTag<functor>{});                                                                       \
    } else {                                                                                       \
      throw TypeError(                                                                             \
          ::ember::detail::str_cat("binary op " #name " is not compiled for ", to_string(dtype))); \
    }                                                                                              \
    break;
    EMBER_BINARY_OPS(EMBER_BINARY_CASE)
#undef EMBER_BINARY_CASE
    default:
      throw NotImplementedError("unknown binary op");
  }
}

}  // namespace ember
