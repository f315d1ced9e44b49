# nn.DataParallel as the tutorials use it: the model moved to the device, wrapped when there is
# more than one GPU (on a machine without one, or with one, the wrapper just calls the module),
# trained with SGD; a second copy trains without the wrapper. Both must print the same numbers:
# the batch split over the devices gives the whole batch's gradient. The forward returns a tuple
# (gathered element by element).
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("device", device.type)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 24)
        self.fc2 = nn.Linear(24, 3)

    def forward(self, x):
        h = torch.tanh(self.fc1(x))
        return self.fc2(h), h.mean(1)


def fill(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.29 + i)
                    .cos() * 0.3)


x = (torch.arange(32 * 12, dtype=torch.float32).reshape(32, 12) * 0.03).sin().to(device)
y = (torch.arange(32) % 3).to(device)

results = {}
for wrapped in [True, False]:
    model = Net().to(device)
    fill(model)
    net = nn.DataParallel(model) if wrapped else model
    opt = torch.optim.SGD(net.parameters(), lr=0.2, momentum=0.9)
    for step in range(6):
        opt.zero_grad()
        logits, h = net(x)
        loss = F.cross_entropy(logits, y) + 0.1 * h.pow(2).mean()
        loss.backward()
        opt.step()
        print("wrapped" if wrapped else "single", step, f"{loss.item():.5f}",
              tuple(logits.shape), logits.device.type)
    results[wrapped] = [p.detach().cpu() for p in model.parameters()]
    if wrapped:
        print(type(net).__name__, list(net.state_dict().keys()))
        print(net)
print("same parameters", all(torch.allclose(a, b, atol=1e-5)
                             for a, b in zip(results[True], results[False])))
print("fc2.bias", [round(v, 4) for v in results[True][3].tolist()])

