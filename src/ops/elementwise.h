#pragma once
// Shared steps of the elementwise front ends: check -> promote -> broadcast -> allocate ->
// backend. Autograd recording is done by each op in unary.cpp / binary.cpp.
#include <type_traits>

#include "autograd/record.h"
#include "core/backend.h"
#include "core/broadcast.h"
#include "ember/ops.h"

namespace ember {

// out = op(a) computed in `compute` dtype (a is cast if needed); out is bool for predicates.
Tensor unary_kernel_call(UnaryOp op, const Tensor& a, ScalarType compute, OpParams p = {});
// out = op(a, b) computed in `compute` dtype after broadcasting.
Tensor binary_kernel_call(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType compute,
                          OpParams p = {});
// A scalar as a 0-dim CPU tensor of `dtype` (backends read it as a broadcast value).
Tensor wrap_scalar(const Scalar& s, ScalarType dtype);
// out = a * s into an existing `out` of a's dtype, device and shape; not recorded. One pass where
// a copy followed by a multiply would take two: DDP divides each gradient while copying it into
// its bucket (as PyTorch's mul_out).
void mul_into(const Tensor& out, const Tensor& a, const Scalar& s);
// Writes `result` into `self` as an in-place op does, and moves self's autograd history to it.
Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op);

// self = functional(self) in place. When nothing is recorded and self is floating (an in-place
// unary op keeps a floating dtype), `op` writes straight into self; otherwise the result is
// computed out of place (on a clone when recording, so saved inputs stay intact) and moved into
// self with its history. The in-place methods of ember/op_table.h (src/ops/op_table.cpp).
Tensor& unary_inplace(Tensor& self, const char* name, UnaryOp op,
                      Tensor (*functional)(const Tensor&));

// self = functional(self, other) in place: direct through `op` when nothing is recorded and the
// result keeps self's dtype, device and shape, else out of place on a clone and moved in.
template <typename Other, typename F>
Tensor& binary_inplace(Tensor& self, const Other& other, const char* name, BinaryOp op, OpParams p,
                       F functional) {
  autograd::check_inplace_allowed(self, name);
  bool grad;
  if constexpr (std::is_same_v<Other, Tensor>) {
    grad = autograd::needs_grad({self, other});
  } else {
    grad = autograd::needs_grad({self});
  }
  if (!grad) {
    if constexpr (std::is_same_v<Other, Tensor>) {
      if (other.dtype() == self.dtype() && other.device() == self.device() &&
          broadcast_dims(self.sizes(), other.sizes()).ref() == self.sizes() &&
          (op != BinaryOp::Div || is_floating_point(self.dtype()))) {
        backend_for(self).binary(op, self, self, other, p);
        self.bump_version();
        return self;
      }
    } else {
      if (result_type(self, other) == self.dtype() &&
          (op != BinaryOp::Div || is_floating_point(self.dtype()))) {
        backend_for(self).binary(op, self, self, wrap_scalar(other, self.dtype()), p);
        self.bump_version();
        return self;
      }
    }
  }
  Tensor src = grad ? self.clone() : self;
  if constexpr (std::is_same_v<Other, Tensor>) {
    // x.op_(x): both operands read the clone, so the node never holds self (no reference cycle
    // self -> grad_fn -> saved self) and its saved values survive the write.
    if (other.is_same(self)) return assign_inplace(self, functional(src, src), name);
  }
  return assign_inplace(self, functional(src, other), name);
}

}  // namespace ember
