# The rooted and the object collectives every rank runs, under a launcher (2 processes, Gloo):
# reduce, gather, scatter, all_gather_object, gather_object, broadcast_object_list and
# scatter_object_list. Each rank prints its results, prefixed with its rank, in one write.
import datetime

import torch
import torch.distributed as dist

dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
out = []

t = torch.tensor([1.0, 2.0, 3.0]) * (rank + 1)
dist.reduce(t, dst=0, op=dist.ReduceOp.SUM)
if rank == 0:
    out.append(f"reduce {t.tolist()}")

if rank == 1:
    parts = [torch.zeros(2) for _ in range(world)]
    dist.gather(torch.full((2,), float(rank + 5)), parts, dst=1)
    out.append(f"gather {[p.tolist() for p in parts]}")
else:
    dist.gather(torch.full((2,), float(rank + 5)), dst=1)

received = torch.zeros(3, dtype=torch.int64)
pieces = [torch.arange(3) + 10 * i for i in range(world)] if rank == 0 else None
dist.scatter(received, pieces, src=0)
out.append(f"scatter {received.tolist()}")

objects = [None] * world
dist.all_gather_object(objects, {"rank": rank, "name": f"worker{rank}", "list": [rank] * 3})
out.append(f"all_gather_object {objects}")

gathered = [None] * world if rank == 0 else None
dist.gather_object(("from", rank), gathered, dst=0)
if rank == 0:
    out.append(f"gather_object {gathered}")

items = ["config", {"lr": 0.1, "steps": 7}, 3.5] if rank == 1 else [None, None, None]
dist.broadcast_object_list(items, src=1)
out.append(f"broadcast_object_list {items}")

mine = [None]
dist.scatter_object_list(mine, [f"for rank {i}" for i in range(world)] if rank == 0 else None,
                         src=0)
out.append(f"scatter_object_list {mine}")

# all_to_all_single (PyTorch 1.13's Gloo has it, not all_to_all of lists: ember_only.py checks
# that one), point-to-point batches and the group's ranks.
exchanged = torch.zeros(4)
dist.all_to_all_single(exchanged, torch.arange(4.0) + 10 * rank)
out.append(f"all_to_all_single {exchanged.tolist()}")
peer = 1 - rank
sent = torch.tensor([float(rank)] * 2)
got = torch.zeros(2)
works = dist.batch_isend_irecv([dist.P2POp(dist.isend, sent, peer),
                                dist.P2POp(dist.irecv, got, peer)])
for w in works:
    w.wait()
out.append(f"batch_isend_irecv {got.tolist()}")
out.append(f"group ranks {dist.get_process_group_ranks(dist.group.WORLD)}")

dist.barrier()
dist.destroy_process_group()
print("\n".join(f"rank {rank}: {line}" for line in out), flush=True)
