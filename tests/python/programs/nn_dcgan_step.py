# A small DCGAN (generator: ConvTranspose2d, BatchNorm2d, ReLU, Tanh; discriminator: Conv2d,
# LeakyReLU, GroupNorm, Flatten, Linear; BCEWithLogitsLoss) trained for a few steps on
# fixed images, as the PyTorch DCGAN tutorial does at toy size.
import torch
import torch.nn as nn
import torch.optim as optim

generator = nn.Sequential(
    nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False), nn.BatchNorm2d(16), nn.ReLU(True),
    nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(True),
    nn.ConvTranspose2d(8, 1, 4, 2, 1, bias=False), nn.Tanh())
discriminator = nn.Sequential(
    nn.Conv2d(1, 8, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(8, 16, 4, 2, 1, bias=False), nn.GroupNorm(4, 16), nn.LeakyReLU(0.2),
    nn.Flatten(), nn.Linear(16 * 4 * 4, 1))
for k, model in enumerate((generator, discriminator)):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.37
                     + i + k).sin() * 0.2)
print(generator)
print(discriminator)

noise = (torch.arange(4 * 8, dtype=torch.float32).reshape(4, 8, 1, 1) * 0.3).cos()
real = (torch.arange(4 * 16 * 16, dtype=torch.float32).reshape(4, 1, 16, 16) * 0.05).sin()
criterion = nn.BCEWithLogitsLoss()
opt_d = optim.Adam(discriminator.parameters(), lr=0.002, betas=(0.5, 0.999))
opt_g = optim.Adam(generator.parameters(), lr=0.002, betas=(0.5, 0.999))
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)
for step in range(3):
    fake = generator(noise)
    opt_d.zero_grad()
    loss_d = criterion(discriminator(real), ones) + criterion(discriminator(fake.detach()), zeros)
    loss_d.backward()
    opt_d.step()
    opt_g.zero_grad()
    loss_g = criterion(discriminator(fake), ones)
    loss_g.backward()
    opt_g.step()
    print(step, tuple(fake.shape), f"{loss_d.item():.4f}", f"{loss_g.item():.4f}")
print([round(v, 4) for v in generator[1].running_mean.tolist()[:4]])
print(f"{generator[0].weight.grad.abs().sum().item():.4f}")
