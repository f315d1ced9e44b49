"""PyTorch 1.13's side of the distributed benchmark: the same rows as bench_distributed.cpp, with
torch.distributed on Gloo and torch.nn.parallel.DistributedDataParallel. Started by ember-run (the
torchrun variables) or alone; rank 0 prints one JSON object per row."""
import json
import os
import sys
import time

import torch
import torch.distributed as dist

ALLREDUCE_BYTES = 25 << 20
BATCH = 64


def make_mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(784, 1024), torch.nn.ReLU(),
                               torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                               torch.nn.Linear(1024, 10))


def row(name, unit, value, note):
    print(json.dumps({"name": name, "unit": unit, "value": value, "note": note}), flush=True)


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def time_steps(forward, opt, warmup, steps):
    torch.manual_seed(1)
    x = torch.randn(BATCH, 784)
    y = torch.randint(0, 10, (BATCH,))
    times = []
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        opt.zero_grad()
        torch.nn.functional.cross_entropy(forward(x), y).backward()
        opt.step()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    return median(times)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    if "WORLD_SIZE" not in os.environ:
        model = make_mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        row("mlp_step_1proc", "ms", time_steps(model, opt, 5, steps),
            "784-1024-1024-10 MLP, batch 64, SGD, one process")
        return
    dist.init_process_group("gloo")
    report = dist.get_rank() == 0
    buffer = torch.ones(ALLREDUCE_BYTES // 4)
    times = []
    for i in range(3 + steps):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(buffer)
        if i >= 3:
            times.append((time.perf_counter() - t0) * 1e3)
    ar_ms = median(times)
    if report:
        row("allreduce_25MiB", "ms", ar_ms, "float32 sum, 2 processes, Gloo")
        row("allreduce_25MiB_bw", "GB/s", ALLREDUCE_BYTES / (ar_ms * 1e-3) / 1e9,
            "algorithm bandwidth: bytes / time")
    model = make_mlp()
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    ms = torch.tensor([time_steps(ddp, opt, 5, steps)], dtype=torch.float64)
    dist.all_reduce(ms, op=dist.ReduceOp.MAX)
    if report:
        row("ddp_mlp_step", "ms", ms.item(),
            "784-1024-1024-10 MLP, batch 64 per process, SGD, 2 processes, Gloo")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
