# Under a launcher with 2 processes: SyncBatchNorm (converted from a model's BatchNorm2d, under
# DistributedDataParallel) on each rank's half of a batch gives what one process gives with
# BatchNorm2d on the whole batch: outputs, input gradients, parameter gradients (DDP's average of
# the ranks' sums), running statistics, and the parameters after two SGD steps. PyTorch 1.13's
# SyncBatchNorm refuses CPU tensors, so this program is Ember's own. Prints "rank R ok".
import copy
import datetime

import ember
import ember.distributed as dist
import ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
assert world == 2


def model():
    ember.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4, momentum=0.3),
                         nn.ReLU(), nn.Conv2d(4, 2, 1), nn.BatchNorm2d(2))


def close(a, b, tol=1e-5):
    return float((a - b).abs().max()) <= tol * (1 + float(b.abs().max()))


x = (ember.arange(8 * 3 * 5 * 5, dtype=ember.float32).reshape(8, 3, 5, 5) * 0.37).sin() * 2 + 0.5
w = (ember.arange(8 * 2 * 5 * 5, dtype=ember.float32).reshape(8, 2, 5, 5) * 0.11).cos()
half = slice(rank * 4, rank * 4 + 4)

single = model()
synced = nn.SyncBatchNorm.convert_sync_batchnorm(copy.deepcopy(single))
assert type(synced[1]) is nn.SyncBatchNorm and type(synced[4]) is nn.SyncBatchNorm
ddp = DDP(synced)
opt_single = ember.optim.SGD(single.parameters(), lr=0.1)
opt_synced = ember.optim.SGD(ddp.parameters(), lr=0.1)
for step in range(2):
    xs = x.clone().requires_grad_()
    out = single(xs)
    (out * w).sum().backward()
    xr = x[half].clone().requires_grad_()
    mine = ddp(xr)
    (mine * w[half]).sum().backward()
    assert close(mine, out[half]), f"step {step}: outputs differ"
    assert close(xr.grad, xs.grad[half]), f"step {step}: input gradients differ"
    for (name, p), q in zip(single.named_parameters(), synced.parameters()):
        # DDP averages the ranks' gradients; one process has their sum.
        assert close(q.grad * world, p.grad, 1e-4), f"step {step}: {name} gradient differs"
    for (name, b), c in zip(single.named_buffers(), synced.buffers()):
        assert close(c.to(ember.float64), b.to(ember.float64)), f"step {step}: {name} differs"
    for p in single.parameters():
        p.grad.div_(world)
    opt_single.step()
    opt_synced.step()
    opt_single.zero_grad()
    opt_synced.zero_grad()
for p, q in zip(single.parameters(), synced.parameters()):
    assert close(q, p)

# Eval uses the running statistics and no collective (rank 1 alone would hang otherwise).
synced.eval()
single.eval()
if rank == 1:
    assert close(synced(x[:2]), single(x[:2]))
dist.barrier()
print(f"rank {rank} ok")
