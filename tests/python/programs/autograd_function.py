# Custom autograd Functions written in Python (the extending-autograd tutorial's pattern).
import torch


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class Clamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        print("needs_input_grad", ctx.needs_input_grad)
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        inside = ((x >= ctx.low) & (x <= ctx.high)).to(grad_output.dtype)
        return grad_output * inside, None, None


class MulAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, c):
        ctx.save_for_backward(a, b)
        return a * b + c

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a, g


x = torch.tensor([-1.0, 0.0, 0.5, 2.0], requires_grad=True)
y = MyExp.apply(x)
print(y.detach(), y.requires_grad)
y.sum().backward()
print("exp grad", x.grad, torch.allclose(x.grad, x.detach().exp()))

# A finite-difference check of the custom backward, as gradcheck does.
eps = 1e-3
xd = torch.tensor([0.3, -0.2, 1.1], dtype=torch.float64, requires_grad=True)
MyExp.apply(xd).sum().backward()
numeric = (MyExp.apply(xd.detach() + eps) - MyExp.apply(xd.detach() - eps)) / (2 * eps)
print("gradcheck", torch.allclose(xd.grad, numeric, rtol=1e-5, atol=1e-6))

x.grad = None
z = Clamp.apply(x, -0.5, 1.0)
print(z.detach())
(z * 3).sum().backward()
print("clamp grad", x.grad)

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.tensor([0.5, 0.5], requires_grad=True)
out = MulAdd.apply(a, b, c)
out.backward(torch.tensor([1.0, 10.0]))
print(out.detach(), a.grad, b.grad, c.grad)

with torch.no_grad():
    print(MyExp.apply(x).requires_grad)
ga, = torch.autograd.grad(MyExp.apply(a).sum(), a)
print("autograd.grad", ga)

h = torch.tensor([1.0, 2.0], requires_grad=True)
doubled = h * 2
handle = doubled.register_hook(lambda g: g * 10)
doubled.sum().backward()
print("hooked grad", h.grad)
handle.remove()
h.grad = None
(h * 2).sum().backward()
print("after remove", h.grad)

with torch.inference_mode():
    print("inference", (h * 2).requires_grad, torch.is_inference_mode_enabled())
