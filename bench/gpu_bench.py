#!/usr/bin/env python3
"""GPU benchmarks: Ember (bench_ember_cuda) against PyTorch eager doing the same work, with raw
CUDA/cuBLAS as the physical reference, in one run.

  python3 bench/gpu_bench.py [--ember BUILD/bench/bench_ember_cuda] [--quick]

Runs the Ember binary (which also measures the raw CUDA reference column), then the same rows in
PyTorch when `import torch` finds a CUDA device, pairs the rows by name and prints a table; the
results go to bench/results/gpu-<date>.json. GPU timings use CUDA events after a synchronize;
each figure is the median of repeated samples after a warm-up, with min and max.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_UNITS = {"us", "ms", "s"}


class Runner:
    def __init__(self, quick):
        self.sample_s = 0.005 if quick else 0.02
        self.samples = 5 if quick else 11
        self.rows = []

    def record(self, group, name, unit, work, per_call):
        per_call.sort()
        med = statistics.median(per_call)
        conv = {"us": lambda s: s * 1e6, "ms": lambda s: s * 1e3, "GB/s": lambda s: work / s / 1e9,
                "TFLOP/s": lambda s: work / s / 1e12}[unit]
        lo, hi = sorted((conv(per_call[0]), conv(per_call[-1])))
        self.rows.append({"name": name, "group": group, "column": "pytorch", "ref_label": "",
                          "unit": unit, "median": conv(med), "min": lo, "max": hi,
                          "samples": len(per_call)})
        print(f"  pytorch  {name:28s} {conv(med):12.4g} {unit}", file=sys.stderr)

    def host(self, group, name, unit, work, fn):
        """Host-side time per call (allocations, blocking copies)."""
        t0, calls = time.perf_counter(), 0
        while calls < 3 or time.perf_counter() - t0 < 0.1:
            fn()
            calls += 1
        iters = max(1, int(self.sample_s / ((time.perf_counter() - t0) / calls)))
        samples = []
        for _ in range(self.samples):
            t = time.perf_counter()
            for _ in range(iters):
                fn()
            samples.append((time.perf_counter() - t) / iters)
        self.record(group, name, unit, work, samples)

    def gpu(self, group, name, unit, work, fn):
        """GPU time per call between two CUDA events, after a synchronize."""
        import torch
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def once(iters):
            e0.record()
            for _ in range(iters):
                fn()
            e1.record()
            e1.synchronize()
            return e0.elapsed_time(e1) * 1e-3 / iters

        iters = max(1, int(self.sample_s / once(1)))
        self.record(group, name, unit, work, [once(iters) for _ in range(self.samples)])


def pytorch_rows(r):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    dev = torch.device("cuda:0")
    for mb in (1, 64):
        n = mb * (1 << 20) // 4
        r.host("alloc", f"alloc_free_{mb}MB", "us", 0, lambda: torch.empty(n, device=dev))
    n = 64 << 18
    d = torch.empty(n, device=dev)
    for kind, h in (("pageable", torch.ones(n)), ("pinned", torch.ones(n).pin_memory())):
        r.host("copy", f"h2d_{kind}_64MB", "GB/s", 4.0 * n, lambda: d.copy_(h))
        r.host("copy", f"d2h_{kind}_64MB", "GB/s", 4.0 * n, lambda: h.copy_(d))
    a, b = torch.randn(16, device=dev), torch.randn(16, device=dev)
    r.gpu("launch", "launch_add_16", "us", 0, lambda: a + b)
    x, y = torch.randn(1 << 24, device=dev), torch.randn(1 << 24, device=dev)
    r.gpu("launch", "add_16M", "GB/s", 12.0 * (1 << 24), lambda: x + y)
    k = 4096
    for name, dtype, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True),
                              ("fp16", torch.float16, False), ("bf16", torch.bfloat16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        ga, gb = torch.randn(k, k, device=dev, dtype=dtype), torch.randn(k, k, device=dev, dtype=dtype)
        r.gpu("gemm", f"gemm_{name}_4096", "TFLOP/s", 2.0 * k ** 3, lambda: torch.mm(ga, gb))
    torch.backends.cuda.matmul.allow_tf32 = False

    def step(model, opt, xb, yb):
        opt.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        opt.step()

    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
    opt = torch.optim.Adam(mlp.parameters(), lr=1e-3)
    xb, yb = torch.randn(512, 784, device=dev), torch.randint(0, 10, (512,), device=dev)
    r.gpu("train", "mlp_step_b512", "ms", 0, lambda: step(mlp, opt, xb, yb))
    cnn = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    copt = torch.optim.Adam(cnn.parameters(), lr=1e-3)
    cx, cy = torch.randn(64, 1, 28, 28, device=dev), torch.randint(0, 10, (64,), device=dev)
    r.gpu("train", "cnn_step_b64", "ms", 0, lambda: step(cnn, copt, cx, cy))
    return f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ember", default=os.path.join(ROOT, "build-gpu-check", "bench", "bench_ember_cuda"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="also write the JSON here (e.g. $OUT/gpu_bench.json on the device machine)")
    args = ap.parse_args()

    docs = []
    if os.path.exists(args.ember):
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            out = f.name
        cmd = [args.ember, "--out", out] + (["--quick"] if args.quick else [])
        subprocess.run(cmd, check=True)
        if os.path.getsize(out):
            docs.append(json.load(open(out)))
        os.unlink(out)
    else:
        print(f"gpu_bench: {args.ember} not found (build with EMBER_CUDA=ON, e.g. scripts/gpu-check)",
              file=sys.stderr)
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
        r = Runner(args.quick)
        info = pytorch_rows(r)
        docs.append({"program": "pytorch", "info": info, "rows": r.rows})
    except ImportError as e:
        print(f"gpu_bench: no PyTorch with CUDA here ({e}); Ember and raw CUDA only", file=sys.stderr)

    rows, order = {}, []
    for doc in docs:
        for row in doc["rows"]:
            if row["name"] not in rows:
                rows[row["name"]] = {"name": row["name"], "unit": row["unit"]}
                order.append(row["name"])
            rows[row["name"]][row["column"]] = row
    head = ["row", "unit", "ember", "pytorch", "ember/pytorch", "ref", "ember/ref", "ref is"]
    lines = []
    for name in order:
        row = rows[name]
        e, p, f = (row.get(c, {}).get("median") for c in ("ember", "pytorch", "ref"))
        lines.append([name, row["unit"], f"{e:.4g}" if e else "-", f"{p:.4g}" if p else "-",
                      f"{e / p:.3g}" if e and p else "-", f"{f:.4g}" if f else "-",
                      f"{e / f:.3g}" if e and f else "-", row.get("ref", {}).get("ref_label", "")])
    widths = [max(len(x) for x in col) for col in zip(head, *lines)]
    for l in [head] + lines:
        print("  ".join(c.ljust(w) for c, w in zip(l, widths)))
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = os.path.join(ROOT, "bench", "results", f"gpu-{stamp}.json")
    with open(path, "w") as f:
        json.dump({"date": stamp, "programs": [d["info"] for d in docs], "rows": [rows[n] for n in order]},
                  f, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"date": stamp, "programs": [d["info"] for d in docs], "rows": [rows[n] for n in order]},
                      f, indent=1)
    print(f"written to {path}; ratio = ember / peer (times: lower is better)", file=sys.stderr)


if __name__ == "__main__":
    main()
