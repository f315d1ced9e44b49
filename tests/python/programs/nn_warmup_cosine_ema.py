# A ResNet-style training recipe in miniature: SGD with Nesterov momentum and weight decay, a
# linear warm-up followed by cosine annealing (LinearLR + CosineAnnealingLR in SequentialLR),
# gradient clipping, an exponential moving average of the weights (swa_utils.AveragedModel with
# an avg_fn), and the EMA model's BatchNorm statistics recomputed with update_bn. Weights and data
# are set deterministically (random streams differ between libraries by design), in float64 so
# that 80 steps of a chaotic little network print the same digits in both.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import SGD
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR
from torch.optim.swa_utils import AveragedModel, update_bn


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + x)


class TinyResNet(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                                  nn.ReLU())
        self.block = Block(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.block(self.stem(x))), 1))


def fill(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            if p.dim() > 1:
                p.copy_((torch.arange(p.numel(), dtype=torch.float64).reshape(p.shape) * 0.61 + i)
                        .sin() * 0.3)
        model.fc.bias.zero_()  # BatchNorm's ones and zeros are deterministic already


images = (torch.arange(32 * 3 * 8 * 8, dtype=torch.float64).reshape(32, 3, 8, 8) * 0.013).sin()
labels = torch.arange(32) % 4
batches = [(images[i:i + 8], labels[i:i + 8]) for i in range(0, 32, 8)]

model = TinyResNet().double()
fill(model)
optimizer = SGD(model.parameters(), lr=0.2, momentum=0.9, nesterov=True, weight_decay=5e-4)
warmup = LinearLR(optimizer, start_factor=0.1, total_iters=4)
cosine = CosineAnnealingLR(optimizer, T_max=16, eta_min=1e-3)
scheduler = SequentialLR(optimizer, [warmup, cosine], milestones=[4])
ema = AveragedModel(model, avg_fn=lambda avg, p, n: 0.8 * avg + 0.2 * p)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(20):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        ema.update_parameters(model)
        total += loss.item()
    scheduler.step()
    if epoch % 4 == 3 or epoch < 2:
        print(f"epoch {epoch} loss {total / len(batches):.4f} last norm {norm.item():.3f} "
              f"lr {scheduler.get_last_lr()[0]:.6f}")

print("averaged", ema.n_averaged.item(), "updates")
print("ema fc.bias", [round(v, 4) for v in ema.module.fc.bias.tolist()])
update_bn(batches, ema)
print("ema stem running_mean", [round(v, 4) for v in ema.module.stem[1].running_mean.tolist()[:3]])
print("ema batches tracked", ema.module.block.bn2.num_batches_tracked.item())
model.eval()
ema.eval()
with torch.no_grad():
    for name, net in [("model", model), ("ema", ema)]:
        logits = net(images)
        correct = (logits.argmax(1) == labels).sum().item()
        print(name, f"loss {loss_fn(logits, labels).item():.4f}", "correct", correct, "of 32")
print(sorted(scheduler.state_dict()))
