# Elementwise arithmetic with tensors and Python numbers, broadcasting and type promotion.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device)
b = torch.tensor([10.0, 20.0, 30.0], device=device)
print(a + b)
print(a - 1, 1 - a)
print(a * 2, 2 * a, a / 2, 1 / a)
print(a ** 2, 2 ** a[0], a // 2, a % 4)
print(-a, abs(-a))
print(a > 2, a == b / 10, a <= 3)
i = torch.tensor([1, 2, 3], device=device)
print(i + 1, i * 1.5, i / 2, (i + 0.5).dtype, (i * 2).dtype)
print(torch.exp(a[0]).round(), a.sqrt()[1], torch.sin(a).abs().max().item() < 1.0)
print(torch.maximum(a, b / 10), torch.minimum(a, b / 5))
print(torch.tanh(torch.zeros(2, device=device)), torch.sigmoid(torch.zeros(2, device=device)))
c = a.clone()
c.add_(1)
c.mul_(2)
c += 1
c -= b / 10
print(c)
print(torch.where(a > 3, a, torch.zeros_like(a)))
print(a.clamp(min=2.0, max=5.0), torch.relu(a - 3))
print(torch.cat([a, a], dim=0).shape, torch.stack([b, b]).shape)
