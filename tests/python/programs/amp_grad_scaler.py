# A GradScaler training sequence as the tutorials write it. Without CUDA, PyTorch 1.13's
# torch.cuda.amp.GradScaler warns and disables itself (scale() returns its input, step() just
# steps); with CUDA it scales by powers of two, which unscale exactly, so both print the same
# losses and parameters. The inf step is checked on the CUDA branch only.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
x = (torch.arange(64, dtype=torch.float32).reshape(16, 4) * 0.1).sin().to(device)
y = (torch.arange(32, dtype=torch.float32).reshape(16, 2) * 0.3).cos().to(device)
m1 = nn.Linear(4, 3)
m2 = nn.Linear(3, 2)
with torch.no_grad():  # the same start under both libraries (their random streams differ)
    for i, p in enumerate(list(m1.parameters()) + list(m2.parameters())):
        p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.37 + i).sin())
m1.to(device)
m2.to(device)
opt1 = torch.optim.SGD(m1.parameters(), lr=0.1, momentum=0.9)
opt2 = torch.optim.Adam(m2.parameters(), lr=0.01)
scaler = torch.cuda.amp.GradScaler()
print("enabled iff cuda:", scaler.is_enabled() == torch.cuda.is_available())

for step in range(4):
    opt1.zero_grad()
    opt2.zero_grad()
    with torch.autocast(device, enabled=False):
        loss = F.mse_loss(m2(torch.relu(m1(x))), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt1)
    print(step, "grad norm", round(m1.weight.grad.norm().item(), 4))
    scaler.step(opt1)
    scaler.step(opt2)
    scaler.update()
    print(step, "loss", round(loss.item(), 4))

print("weights", [round(v, 4) for v in m1.weight.flatten().tolist()[:4]])
print("bias", [round(v, 4) for v in m2.bias.tolist()])


def closure():
    opt1.zero_grad()
    loss = F.mse_loss(m2(torch.relu(m1(x))), y)
    loss.backward()
    return loss


if scaler.is_enabled():
    # Closures are refused while scaling; unscale_ twice is an error; an inf gradient skips the
    # step and halves the scale.
    try:
        scaler.step(opt1, closure=closure)
    except RuntimeError:
        print("closure refused")
    opt1.zero_grad()
    loss = F.mse_loss(m2(torch.relu(m1(x))), y)
    scaler.scale(loss).backward()
    with torch.no_grad():  # before unscale_, which is where the scaler looks for infs
        m1.weight.grad[0, 0] = float("inf")
    scaler.unscale_(opt1)
    try:
        scaler.unscale_(opt1)
    except RuntimeError:
        print("second unscale_ refused")
    before = m1.weight.detach().clone()
    scale = scaler.get_scale()
    scaler.step(opt1)
    scaler.update()
    print("inf step skipped:", torch.equal(before, m1.weight.detach()))
    print("scale halved:", scaler.get_scale() == scale * 0.5)
else:
    print("closure refused")
    print("second unscale_ refused")
    print("inf step skipped:", True)
    print("scale halved:", True)

# A disabled scaler passes everything through, closures included.
off = torch.cuda.amp.GradScaler(enabled=False)
print("disabled closure loss", round(off.step(opt1, closure=closure).item(), 4))
print("disabled", off.get_scale(), off.state_dict(), off.scale(loss) is loss, off.is_enabled())
off.unscale_(opt1)
off.update()
off.load_state_dict({"scale": 8.0})
print("still", off.get_scale())
