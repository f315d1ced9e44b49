# DistributedDataParallel with 2 processes on Gloo (started by a launcher that sets RANK,
# WORLD_SIZE, MASTER_ADDR and MASTER_PORT): every rank builds its model with other weights (DDP
# broadcasts rank 0's), trains on its half of the batch with SGD and momentum, with a
# gradient-accumulation step under no_sync; rank 0 then checks that both ranks hold the same
# parameters and that they equal single-process training on the whole batch.
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def make(seed_rank):
    model = Net()
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_((torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) * 0.31 + i)
                    .sin() * (0.4 + 0.1 * seed_rank))
    return model


x = (torch.arange(24 * 6, dtype=torch.float32).reshape(24, 6) * 0.05).cos()
y = torch.arange(24) % 3
per_rank = 24 // world
mine = slice(rank * per_rank, (rank + 1) * per_rank)

model = make(rank)
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(ddp(x[mine]), y[mine])
    loss.backward()
    opt.step()
    total = loss.detach().clone()
    dist.all_reduce(total)
    if rank == 0:
        print("step", step, f"{total.item() / world:.5f}")
# Gradient accumulation: two half-batches, the first under no_sync.
opt.zero_grad()
half = per_rank // 2
with ddp.no_sync():
    F.cross_entropy(ddp(x[mine][:half]), y[mine][:half]).backward()
F.cross_entropy(ddp(x[mine][half:]), y[mine][half:]).backward()
opt.step()

flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
gathered = [torch.zeros_like(flat) for _ in range(world)]
dist.all_gather(gathered, flat)
if rank == 0:
    ref = make(0)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for step in range(4):
        ref_opt.zero_grad()
        F.cross_entropy(ref(x), y).backward()
        ref_opt.step()
    ref_opt.zero_grad()
    for r in range(world):
        part = slice(r * per_rank, (r + 1) * per_rank)
        for piece in (slice(0, half), slice(half, per_rank)):
            (F.cross_entropy(ref(x[part][piece]), y[part][piece]) / world).backward()
    ref_opt.step()
    ref_flat = torch.cat([p.detach().reshape(-1) for p in ref.parameters()])
    print("ranks equal", all(torch.equal(g, gathered[0]) for g in gathered))
    print("equal to one process", torch.allclose(ref_flat, flat, atol=1e-6))
    print("fc2.bias", [round(v, 4) for v in model.fc2.bias.tolist()])
    print(list(ddp.state_dict().keys()))
dist.barrier()
dist.destroy_process_group()
