# Mixed precision on the CPU: bfloat16 regions as context manager and decorator, nesting, and
# the dtypes of matmul, linear and sum outputs inside and outside a region.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
a = torch.randn(4, 8)
b = torch.randn(8, 3)
lin = nn.Linear(8, 3)

print("outside:", torch.matmul(a, b).dtype, lin(a).dtype, a.sum().dtype)
print("enabled outside:", torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype())

with torch.autocast("cpu", dtype=torch.bfloat16):
    print("enabled inside:", torch.is_autocast_cpu_enabled())
    m = torch.matmul(a, b)
    y = lin(a)
    mm = a @ b
    print("matmul:", m.dtype, "linear:", y.dtype, "@:", mm.dtype)
    print("F.linear:", F.linear(a, lin.weight, lin.bias).dtype, "mm:", torch.mm(a, b).dtype)
    print("add of float32s:", (a + a).dtype, "relu:", torch.relu(a).dtype)
    print("sum of bf16:", m.sum().dtype, "sum of float32:", a.sum().dtype)
    with torch.autocast("cpu", enabled=False):
        print("nested disabled:", torch.is_autocast_cpu_enabled(), torch.matmul(a, b).dtype)
        print("bf16 input stays:", torch.matmul(m, m.t()).dtype)
    print("after nested:", torch.is_autocast_cpu_enabled(), torch.matmul(a, b).dtype)
    with torch.cpu.amp.autocast():
        print("nested cpu.amp:", torch.matmul(a, b).dtype)

print("after region:", torch.is_autocast_cpu_enabled(), torch.matmul(a, b).dtype)


@torch.autocast("cpu", dtype=torch.bfloat16)
def forward(x):
    return lin(x)


@torch.cpu.amp.autocast()
def product(x, y):
    return x @ y


print("decorated:", forward(a).dtype, product(a, b).dtype)
print("after decorated:", torch.is_autocast_cpu_enabled(), lin(a).dtype)

# The gradient of a bfloat16 forward reaches the float32 parameters in float32.
with torch.autocast("cpu"):
    out = lin(a)
loss = out.float().pow(2).mean()
loss.backward()
print("grad dtype:", lin.weight.grad.dtype, "out requires grad:", out.requires_grad)
print("values close:", torch.allclose(out.float(), lin(a), atol=0.1))

# An exception inside a region restores the state.
try:
    with torch.autocast("cpu"):
        raise KeyError("inside")
except KeyError:
    pass
print("after exception:", torch.is_autocast_cpu_enabled())

if torch.cuda.is_available():
    with torch.autocast("cuda"):
        ca, cb = a.cuda(), b.cuda()
        print("cuda matmul:", torch.matmul(ca, cb).dtype, torch.is_autocast_enabled())
else:
    print("cuda matmul:", torch.float16, True)
print("gpu dtype:", torch.get_autocast_gpu_dtype(), torch.is_autocast_enabled())
