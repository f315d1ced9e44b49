"""PyTorch 1.13 DistributedDataParallel on Gloo, the peer of Ember's DDP parity test.

Started once per rank (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in the environment) with the
directory the Ember test wrote the initial parameters and the data to, as raw float32 files:
param_<i>.f32 (the model's parameters in registration order), x.f32 [steps, world * b, 10] and
y.f32 [steps, world * b, 3]. Trains the same MLP with SGD (momentum 0.9) and then, from the same
start, with Adam; rank 0 writes the results as sgd_<i>.f32 and adam_<i>.f32.
"""
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def make_model(directory):
    model = torch.nn.Sequential(
        torch.nn.Linear(10, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32), torch.nn.Tanh(),
        torch.nn.Linear(32, 3))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            values = np.fromfile(os.path.join(directory, f"param_{i}.f32"), dtype=np.float32)
            p.copy_(torch.from_numpy(values).reshape(p.shape))
    return model


def main():
    directory, steps, per_rank = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    x = torch.from_numpy(np.fromfile(os.path.join(directory, "x.f32"), dtype=np.float32))
    y = torch.from_numpy(np.fromfile(os.path.join(directory, "y.f32"), dtype=np.float32))
    x = x.reshape(steps, world * per_rank, 10)
    y = y.reshape(steps, world * per_rank, 3)
    for name in ("sgd", "adam"):
        model = make_model(directory)
        ddp = DistributedDataParallel(model)
        if name == "sgd":
            opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
        else:
            opt = torch.optim.Adam(ddp.parameters(), lr=1e-2)
        rows = slice(rank * per_rank, (rank + 1) * per_rank)
        for step in range(steps):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(ddp(x[step, rows]), y[step, rows])
            loss.backward()
            opt.step()
        if rank == 0:
            for i, p in enumerate(model.parameters()):
                p.detach().numpy().astype(np.float32).tofile(
                    os.path.join(directory, f"{name}_{i}.f32"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
