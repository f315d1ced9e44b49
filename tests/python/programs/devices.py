# Device selection and moving tensors, as PyTorch's tutorials write it.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("Using", device.type, "device")

x = torch.zeros(2, 3, device=device)
print(x.shape, x.dtype, x.device.type)
y = torch.ones(2, 3).to(device)
print((x + y).sum().item())
z = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3)
print(z)
print(z.cpu())
print(z.to("cpu", torch.float64))
print(z.to(torch.int64).dtype, z.long().dtype, z.double().dtype, z.half().dtype, z.bool().dtype)
print(torch.device("cpu"), repr(torch.device("cpu")), torch.device("cpu") == torch.device("cpu"))
print(repr(torch.device("cuda", 1)), str(torch.device("cuda:1")), torch.device("cuda:1").index)
print(torch.float32, torch.float, torch.float is torch.float32, torch.long, torch.int32)
print(torch.Size([2, 5]), z.size(), z.size(1), z.dim(), z.numel(), len(z))
e = torch.eye(3, device=device)
print(e.sum(), torch.full((2, 2), 7, device=device).tolist())
print(torch.linspace(0, 1, steps=5, device=device).cpu())
print(torch.zeros_like(z).shape, torch.ones_like(z, dtype=torch.int32).cpu())
print(torch.empty(4, 2).shape, torch.arange(0, 10, 3).tolist(), torch.arange(0.0, 1.0, 0.25))
