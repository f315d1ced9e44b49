# Gaussian-process regression as the GP tutorials write it: an RBF kernel whose lengthscale and
# noise are fitted by Adam on the negative log marginal likelihood (Cholesky factor for the
# log-determinant, linalg.solve for the data term), then the posterior mean and variance at a few
# test points, the determinant functions, and the error a matrix that is not positive-definite
# raises. float64 throughout, fixed data.
import math

import torch

x = torch.linspace(-3, 3, 20, dtype=torch.float64)
y = torch.sin(x) + 0.1 * torch.cos(7 * x)
x_test = torch.linspace(-2.5, 2.5, 5, dtype=torch.float64)
eye = torch.eye(20, dtype=torch.float64)


def rbf(a, b, lengthscale):
    d = a.unsqueeze(-1) - b.unsqueeze(-2)
    return torch.exp(-0.5 * (d / lengthscale) ** 2)


log_lengthscale = torch.zeros((), dtype=torch.float64, requires_grad=True)
log_noise = torch.full((), -2.0, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([log_lengthscale, log_noise], lr=0.05)
for step in range(31):
    opt.zero_grad()
    K = rbf(x, x, log_lengthscale.exp()) + log_noise.exp() * eye
    L = torch.linalg.cholesky(K)
    alpha = torch.linalg.solve(K, y)
    nll = 0.5 * y.dot(alpha) + torch.log(torch.diagonal(L)).sum() + 10 * math.log(2 * math.pi)
    nll.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step}: nll {nll.item():.6f} lengthscale {log_lengthscale.exp().item():.4f}"
              f" noise {log_noise.exp().item():.5f}")

with torch.no_grad():
    K = rbf(x, x, log_lengthscale.exp()) + log_noise.exp() * eye
    K_star = rbf(x_test, x, log_lengthscale.exp())
    mean = K_star @ torch.linalg.solve(K, y)
    variance = 1 - (K_star @ torch.linalg.inv(K) * K_star).sum(-1)
    print("mean", mean)
    print("variance", variance.clamp(min=0).sqrt() > 0.01)
    sign, logabsdet = torch.linalg.slogdet(K)
    print(f"slogdet sign {sign.item():.0f} logabsdet {logabsdet.item():.6f}")
    print(f"logdet {torch.logdet(K).item():.6f}")
    print(f"det of the first 3x3 block {torch.det(K[:3, :3]).item():.8f}")
    upper = K.cholesky(upper=True)
    print("U^T U == K:", torch.allclose(upper.mT @ upper, K))
    print("inverse @ K == I:", torch.allclose(K.inverse() @ K, eye, atol=1e-8))

try:
    torch.linalg.cholesky(-K)
except torch.linalg.LinAlgError as e:
    print("LinAlgError:", e)
