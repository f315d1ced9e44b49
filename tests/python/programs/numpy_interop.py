# numpy in and out, sharing memory.
import numpy as np
import torch

a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
t = torch.from_numpy(a)
print(t, t.dtype)
a[0, 0] = 10
print(t[0, 0].item())
t[1, 1] = -1
print(a.tolist())
n = torch.arange(4).numpy()
print(n, n.dtype)
print(torch.tensor(np.array([1, 2, 3])).dtype, torch.tensor(np.array([1.5, 2.5])).dtype)
print(torch.tensor([1, 2]).dtype, torch.tensor([1.0, 2]).dtype, torch.tensor([True, False]))
print(torch.tensor(3.5), torch.tensor([[1, 2], [3, 4]], dtype=torch.float32))
print(torch.ones(2, 3).t().numpy().strides, np.asarray(torch.ones(2)).tolist())
