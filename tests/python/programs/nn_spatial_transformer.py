# A spatial transformer network as in PyTorch's STN tutorial, at toy size: a localisation net
# (Conv2d, MaxPool2d, ReLU, and a LazyLinear head whose input size comes from the first batch)
# predicts an affine map, initialised near the identity; F.affine_grid and F.grid_sample warp the
# input, and a classifier reads the result. A few SGD steps on fixed images. (Not exactly the
# identity: its samples fall on pixel centres, where bilinear sampling has kinks and the two
# libraries' gradients may take the slope of either side.)
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.simplefilter("ignore")  # the Lazy modules' warning


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.localization = nn.Sequential(nn.Conv2d(1, 4, 5), nn.MaxPool2d(2), nn.ReLU(True))
        self.fc_loc = nn.Sequential(nn.LazyLinear(8), nn.ReLU(True), nn.Linear(8, 6))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(12 * 12, 3))

    def stn(self, x):
        xs = self.localization(x).flatten(1)
        theta = self.fc_loc(xs).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)

    def forward(self, x):
        return self.classifier(self.stn(x))


model = Net()
x = (torch.arange(4 * 12 * 12, dtype=torch.float32).reshape(4, 1, 12, 12) * 0.07).sin()
y = torch.tensor([0, 1, 2, 1])
model(x)  # materialises the LazyLinear
print(type(model.fc_loc[0]).__name__, model.fc_loc[0])
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.29 + i).cos()
                * 0.1)
    model.fc_loc[2].weight.zero_()
    model.fc_loc[2].bias.copy_(torch.tensor([1.0, 0, 0, 0, 1.0, 0]))
print("identity warp error", f"{(model.stn(x) - x).abs().max().item():.4f}")
with torch.no_grad():
    model.fc_loc[2].bias.copy_(torch.tensor([0.93, 0.04, 0.03, -0.05, 0.96, 0.02]))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.4f}", f"{model.fc_loc[2].bias.norm().item():.4f}")
