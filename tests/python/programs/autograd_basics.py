# A tiny expression differentiated, as in the autograd tutorial.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.ones(2, 2, requires_grad=True, device=device)
print(x)
y = x + x
print(y)
print(y.grad_fn.name(), x.grad_fn, x.is_leaf, y.is_leaf, y.requires_grad)
z = y * y
out = z.sum()
print(z, out)
out.backward()
print(x.grad)

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
loss = ((w * 2 + b) ** 2).sum()
loss.backward()
print(w.grad, b.grad)
with torch.no_grad():
    w -= 0.1 * w.grad
print(w)
w.grad.zero_()
print(w.grad)

print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled(), (w * 2).requires_grad)


@torch.no_grad()
def evaluate(t):
    return t * 2


print(evaluate(w).requires_grad, torch.is_grad_enabled())
with torch.enable_grad():
    print((w * 2).requires_grad)
v = torch.tensor([1.0, 1.0, 1.0])
s = w * 3
s.backward(v)
print(w.grad)
print(w.detach().requires_grad, w.detach().numpy().tolist())

# mean records one node, named as PyTorch names it.
m = torch.arange(6.0).reshape(2, 3).requires_grad_()
print(m.mean().grad_fn.name(), m.mean(1).grad_fn.name())
m.mean(dtype=torch.float64).backward()
print(m.grad)
