# A small CNN (Conv2d, MaxPool2d, Flatten, Linear, CrossEntropyLoss) trained for a few steps on
# fixed 28x28 inputs.
import torch
import torch.nn as nn
import torch.optim as optim


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(4, 8, kernel_size=3), nn.ReLU(), nn.AvgPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(8 * 6 * 6, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


model = CNN()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.61 + i)
                .cos() * 0.15)
print(model)

images = (torch.arange(8 * 28 * 28, dtype=torch.float32).reshape(8, 1, 28, 28) * 0.003).sin()
labels = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7])
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.5, weight_decay=1e-4)
for step in range(4):
    optimizer.zero_grad()
    logits = model(images)
    loss = criterion(logits, labels)
    loss.backward()
    optimizer.step()
    print(step, tuple(logits.shape), f"{loss.item():.4f}")
print([round(v, 4) for v in model.classifier[1].bias.tolist()])
print(f"{model.features[0].weight.grad.abs().sum().item():.4f}")
