// The elementwise plumbing shared by unary.cpp and binary.cpp.
#include "ops/elementwise.h"

#include "core/broadcast.h"
#include "core/tensor_factory.h"

namespace ember {

Tensor wrap_scalar(const Scalar& s, ScalarType dtype) {
  Tensor t = make_empty({}, dtype, Device(kCPU));
  cpu_backend().fill(t, s);
  return t;
}

static Tensor cast_for_compute(const Tensor& t, ScalarType compute) {
  if (t.dtype() == compute) return t;
  NoGradGuard no_grad;  // the op's own backward casts gradients back
  return t.to(compute);
}

Tensor unary_kernel_call(UnaryOp op, const Tensor& a, ScalarType compute, OpParams p) {
  Tensor in = cast_for_compute(a, compute);
  Tensor out = make_empty(a.sizes(), has_bool_output(op) ? kBool : compute, a.device());
  backend_for(out).unary(op, out, in, p);
  return out;
}

Tensor binary_kernel_call(BinaryOp op, const Tensor& a, const Tensor& b, ScalarType compute,
                          OpParams p) {
  // A 0-dim CPU tensor may meet a tensor of any device, as in PyTorch (it acts as a scalar).
  Device device = a.device();
  if (a.device() != b.device()) {
    if (a.dim() == 0 && a.is_cpu()) {
      device = b.device();
    } else if (!(b.dim() == 0 && b.is_cpu())) {
      check_same_device(a, b, "binary op");
    }
  }
  DimVector shape = broadcast_dims(a.sizes(), b.sizes());
  Tensor x = cast_for_compute(a, compute), y = cast_for_compute(b, compute);
  Tensor out = make_empty(shape, has_bool_output(op) ? kBool : compute, device);
  backend_for(out).binary(op, out, x, y, p);
  return out;
}

void mul_into(const Tensor& out, const Tensor& a, const Scalar& s) {
  EMBER_CHECK(out.dtype() == a.dtype() && out.device() == a.device() && out.sizes() == a.sizes(),
              ValueError, "mul_into: out (", to_string(out.dtype()), " ", out.device(), " ",
              out.sizes(), ") must match the input (", to_string(a.dtype()), " ", a.device(), " ",
              a.sizes(), ")");
  backend_for(out).binary(BinaryOp::Mul, out, a, wrap_scalar(s, out.dtype()), {});
  out.bump_version();
}

Tensor& assign_inplace(Tensor& self, const Tensor& result, const char* op) {
  EMBER_CHECK(result.sizes() == self.sizes(), ValueError, op, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", result.sizes());
  EMBER_CHECK(is_floating_point(self.dtype()) || !is_floating_point(result.dtype()), TypeError, op,
              ": result type ", to_string(result.dtype()),
              " can't be cast to the desired output type ", to_string(self.dtype()));
  {
    NoGradGuard no_grad;
    backend_for(self).copy(self, result, false);
  }
  self.bump_version();
  if (result.requires_grad() && GradMode::is_enabled()) {
    auto& meta = self.unsafeGetTensorImpl()->ensure_autograd_meta();
    auto* rm = result.unsafeGetTensorImpl()->autograd_meta();
    meta.requires_grad = true;
    meta.grad_fn = rm->grad_fn;
    meta.output_nr = rm->output_nr;
  }
  return self;
}

Tensor& unary_inplace(Tensor& self, const char* name, UnaryOp op,
                      Tensor (*functional)(const Tensor&)) {
  autograd::check_inplace_allowed(self, name);
  bool grad = autograd::needs_grad({self});
  if (!grad && is_floating_point(self.dtype())) {
    backend_for(self).unary(op, self, self, {});
    self.bump_version();
    return self;
  }
  return assign_inplace(self, functional(grad ? self.clone() : self), name);
}

}  // namespace ember
