#pragma once
// Shared steps of the elementwise front ends: check -> promote -> broadcast -> allocate ->
// backend. Autograd recording is done by each op in unary.cpp / binary.cpp.
#include "autograd/record.h"
#include "core/backend.h"
#include "ember/ops.h"

namespace ember {

// out = op(a) computed in `compute` dtype (a is cast if needed); out is bool for predicates.
Tensor unary_kernel_call(UnaryOp op, const Tensor& a, ScalarType compute, OpParams p = {});
// out = op(a, b) computed in `compute` dtype after broadcasting.
Tensor binary_kernel_call(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType compute,
                          OpParams p = {});
// A scalar as a 0-dim CPU tensor of `dtype` (backends read it as a broadcast value).
Tensor wrap_scalar(const Scalar& s, ScalarType dtype);
// Writes `result` into `self` as an in-place op does, and moves self's autograd history to it.
Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op);
// Throws when an in-place op would modify a leaf that requires grad.
void check_inplace_allowed(const Tensor& self, const char* op);

}  // namespace ember
