# A tutorial-style MLP on a small fixed dataset: SGD with momentum, then Adam; weights set
# deterministically (random streams differ between libraries by design).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def fill(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.37 + i)
                    .sin() * 0.2)


x = (torch.arange(64 * 16, dtype=torch.float32).reshape(64, 16) * 0.01).sin()
y = torch.arange(64) % 4

for name in ["sgd", "adam"]:
    model = MLP()
    fill(model)
    if name == "sgd":
        optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        optimizer = optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(5):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        print(name, step, f"{loss.item():.4f}")
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).sum().item()
    print(name, "correct", correct, "of", len(y))
    print(name, "fc2.bias", [round(v, 4) for v in model.fc2.bias.tolist()])

# MSE regression with a Sequential and a changed learning rate mid-way
reg = nn.Sequential(nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 1))
fill(reg)
target = x.sum(1, keepdim=True) * 0.1
opt = optim.SGD(reg.parameters(), lr=0.05)
for step in range(4):
    if step == 2:
        opt.param_groups[0]["lr"] = 0.01
    opt.zero_grad()
    loss = nn.MSELoss()(reg(x), target)
    loss.backward()
    opt.step()
    print("mse", step, f"{loss.item():.5f}", opt.param_groups[0]["lr"])
