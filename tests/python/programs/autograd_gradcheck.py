# Checking custom gradients as the extending-autograd tutorial does: gradcheck and gradgradcheck
# on double-precision inputs, in full and fast mode, and what a wrong backward gives.
import torch
from torch.autograd import gradcheck, gradgradcheck


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2


class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3


x = torch.linspace(-1.0, 1.0, 5, dtype=torch.double, requires_grad=True)
w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.double, requires_grad=True)
print("cube", gradcheck(Cube.apply, (x,)), gradgradcheck(Cube.apply, (x,)))
print("fast", gradcheck(Cube.apply, (x,), fast_mode=True),
      gradgradcheck(Cube.apply, (x,), fast_mode=True))
print("matmul tanh", gradcheck(lambda a, b: (a @ b).tanh(), (w, w.detach().t().clone())))
print("second order", gradgradcheck(lambda a: (a @ a).sin().sum(0), (w,)))
print("wrong", gradcheck(Wrong.apply, (x,), raise_exception=False),
      gradcheck(Wrong.apply, (x,), fast_mode=True, raise_exception=False))
try:
    gradcheck(Wrong.apply, (x,))
except RuntimeError as e:
    print("error:", str(e).splitlines()[0])
print("inputs untouched", x.detach())
