# The collectives every rank runs, under a launcher (2 processes, Gloo). Each rank prints its
# results, prefixed with its rank, in one write.
import datetime

import torch
import torch.distributed as dist

dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
out = [f"world {world} initialized {dist.is_initialized()} backend {dist.get_backend()}"]

for op in [dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX]:
    t = torch.tensor([1.5, -2.0, 3.0]) * (rank + 1)
    dist.all_reduce(t, op=op)
    out.append(f"all_reduce {t.tolist()}")
t = torch.arange(4, dtype=torch.int64) + 10 * rank
dist.all_reduce(t)
out.append(f"all_reduce int64 {t.tolist()}")

b = torch.full((2, 2), float(rank + 7))
dist.broadcast(b, src=1)
out.append(f"broadcast {b.tolist()}")

parts = [torch.zeros(3) for _ in range(world)]
dist.all_gather(parts, torch.ones(3) * rank)
out.append(f"all_gather {[p.tolist() for p in parts]}")

work = dist.all_reduce(torch.ones(5) * (rank + 1), async_op=True)
work.wait()
out.append(f"async completed {work.is_completed()} success {work.is_success()}")
w = torch.ones(2)
handle = dist.broadcast(w, 0, async_op=True)
handle.wait()
out.append(f"async broadcast {w.tolist()}")

if rank == 0:
    dist.send(torch.tensor([4.0, 5.0]), dst=1)
else:
    r = torch.zeros(2)
    dist.recv(r, src=0)
    out.append(f"recv {r.tolist()}")

dist.barrier()
dist.destroy_process_group()
out.append(f"destroyed, initialized {dist.is_initialized()}")
# One write per rank (a pipe keeps a write of up to 4 KiB whole), so lines do not interleave.
print("\n".join(f"rank {rank}: {line}" for line in out), flush=True)
