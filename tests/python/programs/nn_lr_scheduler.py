# Learning-rate schedules over epochs: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR,
# LambdaLR, ReduceLROnPlateau, and param_groups with their own rates.
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler

model = nn.Linear(2, 1)


def run(make, epochs=8):
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = make(optimizer)
    rates = []
    for _ in range(epochs):
        optimizer.step()
        scheduler.step()
        rates.append(round(scheduler.get_last_lr()[0], 8))
    print(type(scheduler).__name__, rates)


run(lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5))
run(lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.1))
run(lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9))
run(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01), epochs=12)
run(lambda o: lr_scheduler.LambdaLR(o, lambda epoch: 1.0 / (epoch + 1)))

optimizer = optim.Adam([
    {"params": model.weight},
    {"params": model.bias, "lr": 0.5},
], lr=0.01)
scheduler = lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
for _ in range(3):
    optimizer.step()
    scheduler.step()
print([round(v, 6) for v in scheduler.get_last_lr()])
print([sorted(g.keys()) for g in optimizer.param_groups][1])

optimizer = optim.SGD(model.parameters(), lr=1.0)
plateau = lr_scheduler.ReduceLROnPlateau(optimizer, patience=2, factor=0.5)
for loss in [1.0, 0.9, 0.95, 0.95, 0.95, 0.94, 0.96, 0.97, 0.98]:
    plateau.step(loss)
    print(loss, optimizer.param_groups[0]["lr"])
