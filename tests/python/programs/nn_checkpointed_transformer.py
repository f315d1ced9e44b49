# A transformer block stack trained with activation checkpointing (torch.utils.checkpoint): each
# pre-norm encoder layer, with dropout, runs under checkpoint, so its activations are recomputed
# in the backward with the forward's random state. The same model without checkpointing, from
# the same weights and seed, must give the same losses and gradients; checkpoint_sequential runs
# a plain MLP the same way. Weights are set deterministically (random streams differ between
# libraries by design, so only the comparisons within one library are printed for dropout runs).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Blocks(nn.Module):
    def __init__(self, d_model=16, nhead=2, layers=3, dropout=0.0, use_checkpoint=False):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=dropout,
                                       activation="gelu", batch_first=True, norm_first=True)
            for _ in range(layers))
        self.use_checkpoint = use_checkpoint

    def forward(self, x, mask):
        for layer in self.layers:
            if self.use_checkpoint:
                x = checkpoint(layer, x, mask, use_reentrant=False)
            else:
                x = layer(x, mask)
        return x


def fill(model):
    with torch.no_grad():
        for i, (name, p) in enumerate(model.named_parameters()):
            if name.endswith(("norm1.weight", "norm2.weight")):
                p.fill_(1.0)
                continue
            p.copy_((torch.arange(p.numel(), dtype=torch.float64).reshape(p.shape) * 0.37 + i)
                    .sin() * 0.3)


x = (torch.arange(2 * 6 * 16, dtype=torch.float64).reshape(2, 6, 16) * 0.05).cos()
mask = nn.Transformer.generate_square_subsequent_mask(6).double()


def train(use_checkpoint, dropout, steps=4):
    torch.manual_seed(0)
    model = Blocks(dropout=dropout, use_checkpoint=use_checkpoint).double()
    fill(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.002)
    losses = []
    for _ in range(steps):
        inp = x.clone().requires_grad_()
        loss = model(inp, mask).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    norm = sum(p.grad.pow(2).sum() for p in model.parameters()).sqrt().item()
    return losses, norm, inp.grad.abs().sum().item()


plain = train(False, 0.0)
ckpt = train(True, 0.0)
print("losses", [f"{v:.6f}" for v in plain[0]])
print("grad norm", f"{plain[1]:.6f}", "input grad", f"{plain[2]:.6f}")
print("checkpointed equals plain:",
      all(abs(a - b) < 1e-12 for a, b in zip(plain[0], ckpt[0])),
      abs(plain[1] - ckpt[1]) < 1e-12, abs(plain[2] - ckpt[2]) < 1e-12)

plain = train(False, 0.2)
ckpt = train(True, 0.2)
print("with dropout, checkpointed equals plain:",
      all(abs(a - b) < 1e-12 for a, b in zip(plain[0], ckpt[0])),
      abs(plain[1] - ckpt[1]) < 1e-12, abs(plain[2] - ckpt[2]) < 1e-12)

mlp = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(8, 8), nn.Tanh())]).double()
fill(mlp)
inp = (torch.arange(3 * 8, dtype=torch.float64).reshape(3, 8) * 0.1).sin().requires_grad_()
out = checkpoint_sequential(mlp, 2, inp)
out.sum().backward()
print("sequential", f"{out.sum().item():.6f}", f"{inp.grad.sum().item():.6f}",
      f"{mlp[0].weight.grad.sum().item():.6f}")
