# Under a launcher with 2 processes: what PyTorch 1.13's Gloo backend lacks (AVG, reduce_scatter,
# all_to_all of lists) and what only ember can be asked (the GIL is released while a collective
# waits; a DistributedSampler takes the group's rank; DDP's errors). Prints "rank R ok" at the end.
import datetime
import threading
import time

import ember
import ember.distributed as dist
import ember.nn as nn
from ember.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
assert world == 2

t = ember.tensor([2.0, 4.0]) * (rank + 1)
dist.all_reduce(t, op=dist.ReduceOp.AVG)
assert t.tolist() == [3.0, 6.0], t

out = ember.zeros(2)
dist.reduce_scatter(out, [ember.ones(2) * (rank + 1), ember.ones(2) * 10 * (rank + 1)])
assert out.tolist() == ([3.0, 3.0] if rank == 0 else [30.0, 30.0]), out
big = ember.zeros(4)
dist.all_gather_into_tensor(big, ember.ones(2) * rank)
assert big.tolist() == [0.0, 0.0, 1.0, 1.0], big
part = ember.zeros(1)
dist.reduce_scatter_tensor(part, ember.tensor([1.0, 2.0]) * (rank + 1))
assert part.tolist() == [3.0 * (rank + 1)], part
# all_to_all of tensor lists (PyTorch 1.13's Gloo refuses it): output[i] = rank i's input[rank].
outs = [ember.zeros(2) for _ in range(world)]
dist.all_to_all(outs, [ember.ones(2) * (10 * rank + j) for j in range(world)])
assert [o.tolist() for o in outs] == [[float(10 * i + rank)] * 2 for i in range(world)], outs

empty = []
dist.all_gather(empty, ember.ones(1) * rank)  # an empty list is filled (ember extension)
assert [e.item() for e in empty] == [0.0, 1.0]

# The GIL: rank 1 joins the barrier 0.5 s late; meanwhile a thread of rank 0 keeps counting.
count = [0]
stop = threading.Event()


def spin():
    while not stop.is_set():
        count[0] += 1


spinner = threading.Thread(target=spin)
spinner.start()
if rank == 1:
    time.sleep(0.5)
before = count[0]
dist.barrier()
during = count[0] - before
stop.set()
spinner.join()
if rank == 0:
    assert during > 1000, f"the thread ran only {during} times while barrier waited"

sampler = DistributedSampler(list(range(11)), shuffle=False)
assert list(sampler) == ([0, 2, 4, 6, 8, 10] if rank == 0 else [1, 3, 5, 7, 9, 0])
assert (sampler.num_replicas, sampler.rank, len(sampler)) == (2, rank, 6)
shuffled = DistributedSampler(list(range(11)), seed=3)
shuffled.set_epoch(2)
mine = ember.tensor(list(shuffled))
both = [ember.zeros(6, dtype=ember.int64) for _ in range(2)]
dist.all_gather(both, mine)
assert set(both[0].tolist() + both[1].tolist()) == set(range(11)), both

# DDP's mistakes.
model = nn.Linear(3, 2)
ddp = nn.parallel.DistributedDataParallel(model)
with ember.no_grad():
    ddp(ember.ones(2, 3))  # evaluation: no backward expected
ddp(ember.ones(2, 3))
try:
    ddp(ember.ones(2, 3))
except RuntimeError as e:
    assert "expected to have finished reduction" in str(e), e
else:
    raise AssertionError("a second forward without backward was accepted")
try:
    nn.parallel.DistributedDataParallel(nn.ReLU())
except RuntimeError as e:
    assert "doesn't have any parameter" in str(e), e
print(f"rank {rank} ok")
dist.destroy_process_group()
