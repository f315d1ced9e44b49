# Subscripts: ints, slices, None, Ellipsis, index and mask tensors; assignment through them.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.arange(12, device=device).reshape(3, 4)
print(x[0], x[-1], x[1, 2], x[1][2].item())
print(x[:, 1], x[1:, ::2], x[..., -1])
print(x[None].shape, x[:, None, :].shape, x[..., None].shape)
print(x[torch.tensor([2, 0], device=device)])
print(x[x > 6])
print(x[[0, 2]])
y = x.clone()
y[0] = 100
y[1, 1:3] = torch.tensor([-1, -2], device=device)
y[y > 10] = 0
y[:, 0] += 5
print(y)
print(len(x), x.shape[0], x.size(-1))
z = torch.zeros(2, 3, device=device)
z[1] = torch.ones(3, device=device) * 2
z[0, 0] = 1.5
print(z)
