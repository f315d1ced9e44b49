#!/usr/bin/env python3
"""GPU benchmarks: Ember (bench_ember_cuda) against PyTorch eager doing the same work, with raw
CUDA/cuBLAS as the physical reference, in one run.

  python3 bench/gpu_bench.py [--ember BUILD/bench/bench_ember_cuda] [--quick] [--out FILE]
  python3 bench/gpu_bench.py --self-test     # the table and target logic on made-up rows

Runs the Ember binary (which also measures the raw CUDA reference column), then the same rows in
PyTorch when `import torch` finds a CUDA device, pairs the rows by name and prints a table with
issue 11's target for each row (TARGETS: met, MISSED or not measured); the results go to
bench/results/gpu-<date>.json. GPU timings use CUDA events after a synchronize;
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


# Issue 11 item 3's targets: (row, peer, op, ratio) on ember / peer, with the units of the row
# (times: lower is better, so "<="; GB/s and TFLOP/s: ">="). "ref" is the raw CUDA/cuBLAS column
# measured by bench_ember_cuda.
TARGETS = [
    ("alloc_free_1MB", "pytorch", "<=", 1.0),
    ("alloc_free_1MB", "ref", "<=", 0.01),  # >= 100x faster than cudaMalloc + cudaFree
    ("h2d_pinned_256MB", "ref", ">=", 0.95),
    ("d2h_pinned_256MB", "ref", ">=", 0.95),
    ("add_64M", "pytorch", ">=", 0.9),
    ("mul_64M", "pytorch", ">=", 0.9),
    ("sum_64M", "pytorch", ">=", 0.9),
    ("sum0_8192x8192", "pytorch", ">=", 0.9),
    ("softmax_8192x4096", "pytorch", ">=", 0.9),
    ("gemm_fp16_8192", "pytorch", ">=", 0.95),
    ("gemm_bf16_8192", "pytorch", ">=", 0.95),
    ("mlp_step_b128", "pytorch", "<=", 0.8),
    ("cnn_step_b64", "pytorch", "<=", 0.8),
    ("amp_fp16_mlp_step_b128", "pytorch", "<=", 0.8),  # issue 12
    ("amp_fp16_cnn_step_b64", "pytorch", "<=", 0.8),
    ("amp_bf16_mlp_step_b128", "pytorch", "<=", 0.8),
    ("amp_bf16_cnn_step_b64", "pytorch", "<=", 0.8),
    ("launch_add_16", "pytorch", "<=", 0.5),
    ("chain10_16", "pytorch", "<=", 0.5),
]


def pytorch_rows(r):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    dev = torch.device("cuda:0")
    for mb, name in ((1, "alloc_free_1MB"), (64, "alloc_free_64MB")):
        n = mb * (1 << 20) // 4
        r.host("alloc", name, "us", 0, lambda: torch.empty(n, device=dev))
    n = 64 << 18
    d = torch.empty(n, device=dev)
    for kind, h in (("pageable", torch.ones(n)), ("pinned", torch.ones(n).pin_memory())):
        r.host("copy", f"h2d_{kind}_64MB", "GB/s", 4.0 * n, lambda: d.copy_(h))
        r.host("copy", f"d2h_{kind}_64MB", "GB/s", 4.0 * n, lambda: h.copy_(d))
    big = 256 << 18
    dbig, hbig = torch.empty(big, device=dev), torch.ones(big).pin_memory()
    r.gpu("copy", "h2d_pinned_256MB", "GB/s", 4.0 * big, lambda: dbig.copy_(hbig, non_blocking=True))
    r.gpu("copy", "d2h_pinned_256MB", "GB/s", 4.0 * big, lambda: hbig.copy_(dbig, non_blocking=True))
    del dbig, hbig

    a, b = torch.randn(16, device=dev), torch.randn(16, device=dev)
    r.host("launch", "launch_add_16", "us", 0, lambda: a + b)

    def chain():
        c = a
        for _ in range(10):
            c = c + b
        return c

    r.host("launch", "chain10_16", "us", 0, chain)
    torch.cuda.synchronize()
    x, y = torch.randn(1 << 24, device=dev), torch.randn(1 << 24, device=dev)
    r.gpu("launch", "add_16M", "GB/s", 12.0 * (1 << 24), lambda: x + y)

    n = 1 << 26
    x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
    r.gpu("kernels", "add_64M", "GB/s", 12.0 * n, lambda: x + y)
    r.gpu("kernels", "mul_64M", "GB/s", 12.0 * n, lambda: x * y)
    r.gpu("kernels", "sum_64M", "GB/s", 4.0 * n, lambda: x.sum())
    m = x.view(8192, 8192)
    r.gpu("kernels", "sum0_8192x8192", "GB/s", 4.0 * n + 4.0 * 8192, lambda: m.sum(0))
    r.gpu("kernels", "argmax_64M", "GB/s", 4.0 * n, lambda: x.argmax())
    logits = x.view(2048, 32768)
    r.gpu("kernels", "argmax_rows_2048x32768", "GB/s", 4.0 * n, lambda: logits.argmax(-1))
    sm = x[: 8192 * 4096].view(8192, 4096)
    r.gpu("kernels", "softmax_8192x4096", "GB/s", 2.0 * 4 * 8192 * 4096, lambda: torch.softmax(sm, 1))
    del x, y, m, sm, logits

    for name, k, dtype, tf32 in (("gemm_fp32_4096", 4096, torch.float32, False),
                                 ("gemm_tf32_4096", 4096, torch.float32, True),
                                 ("gemm_fp16_4096", 4096, torch.float16, False),
                                 ("gemm_bf16_4096", 4096, torch.bfloat16, False),
                                 ("gemm_fp16_8192", 8192, torch.float16, False),
                                 ("gemm_bf16_8192", 8192, torch.bfloat16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        ga, gb = torch.randn(k, k, device=dev, dtype=dtype), torch.randn(k, k, device=dev, dtype=dtype)
        r.gpu("gemm", name, "TFLOP/s", 2.0 * k ** 3, lambda: torch.mm(ga, gb))
    torch.backends.cuda.matmul.allow_tf32 = False

    def step(model, opt, xb, yb):
        opt.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        opt.step()

    for batch, name in ((128, "mlp_step_b128"), (512, "mlp_step_b512")):
        torch.manual_seed(0)
        mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
        opt = torch.optim.Adam(mlp.parameters(), lr=1e-3)
        xb, yb = torch.randn(batch, 784, device=dev), torch.randint(0, 10, (batch,), device=dev)
        r.gpu("train", name, "ms", 0, lambda: step(mlp, opt, xb, yb))
    # The CNN of bench/train_cases.h (make_cnn).
    cnn = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    copt = torch.optim.Adam(cnn.parameters(), lr=1e-3)
    cx, cy = torch.randn(64, 1, 28, 28, device=dev), torch.randint(0, 10, (64,), device=dev)
    r.gpu("train", "cnn_step_b64", "ms", 0, lambda: step(cnn, copt, cx, cy))

    # Mixed precision (issue 12): forward and loss under autocast; float16 with a GradScaler.
    def amp_step(model, opt, xb, yb, dtype, scaler):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=dtype):
            loss = F.cross_entropy(model(xb), yb)
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()

    for tag, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        torch.manual_seed(0)
        amlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
        aopt = torch.optim.Adam(amlp.parameters(), lr=1e-3)
        ascaler = torch.cuda.amp.GradScaler() if tag == "fp16" else None
        ax, ay = torch.randn(128, 784, device=dev), torch.randint(0, 10, (128,), device=dev)
        r.gpu("amp", "amp_fp16_mlp_step_b128" if tag == "fp16" else "amp_bf16_mlp_step_b128", "ms", 0,
              lambda: amp_step(amlp, aopt, ax, ay, dtype, ascaler))
        acnn = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
                             nn.Linear(128, 10)).to(dev)
        acopt = torch.optim.Adam(acnn.parameters(), lr=1e-3)
        acscaler = torch.cuda.amp.GradScaler() if tag == "fp16" else None
        r.gpu("amp", "amp_fp16_cnn_step_b64" if tag == "fp16" else "amp_bf16_cnn_step_b64", "ms", 0,
              lambda: amp_step(acnn, acopt, cx, cy, dtype, acscaler))
    return f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}"


def pair(docs):
    """Rows by name with one entry per column (ember, ref, pytorch), ratios ember/peer and the
    issue's targets with their verdict ("met", "MISSED", or "not measured")."""
    rows, order = {}, []
    for doc in docs:
        for row in doc["rows"]:
            if row["name"] not in rows:
                rows[row["name"]] = {"name": row["name"], "unit": row["unit"]}
                order.append(row["name"])
            rows[row["name"]][row["column"]] = row
    for name, peer, op, limit in TARGETS:
        if name not in rows:
            rows[name] = {"name": name, "unit": "-"}
            order.append(name)
    for row in rows.values():
        for peer in ("pytorch", "ref"):
            e, p = (row.get(c, {}).get("median") for c in ("ember", peer))
            if e and p:
                row["ratio_" + peer] = e / p
        row["targets"] = []
    for name, peer, op, limit in TARGETS:
        row = rows[name]
        ratio = row.get("ratio_" + peer)
        verdict = "not measured" if ratio is None else (
            "met" if (ratio <= limit if op == "<=" else ratio >= limit) else "MISSED")
        row["targets"].append({"vs": peer, "op": op, "ratio": limit, "verdict": verdict})
    return [rows[n] for n in order]


def table(rows):
    head = ["row", "unit", "ember", "pytorch", "ember/pytorch", "ref", "ember/ref", "ref is",
            "target (issue 11)"]
    lines = []
    for row in rows:
        e, p, f = (row.get(c, {}).get("median") for c in ("ember", "pytorch", "ref"))
        rp, rf = row.get("ratio_pytorch"), row.get("ratio_ref")
        target = "; ".join(f"{t['op']} {t['ratio']:g}x {t['vs']}: {t['verdict']}" for t in row["targets"])
        lines.append([row["name"], row["unit"], f"{e:.4g}" if e else "-", f"{p:.4g}" if p else "-",
                      f"{rp:.3g}" if rp else "-", f"{f:.4g}" if f else "-", f"{rf:.3g}" if rf else "-",
                      row.get("ref", {}).get("ref_label", ""), target])
    widths = [max(len(x) for x in col) for col in zip(head, *lines)]
    out = ["  ".join(c.ljust(w) for c, w in zip(l, widths)).rstrip() for l in [head] + lines]
    verdicts = [t["verdict"] for row in rows for t in row["targets"]]
    out.append(f"targets: {verdicts.count('met')} met, {verdicts.count('MISSED')} missed, "
               f"{verdicts.count('not measured')} not measured (of {len(verdicts)})")
    return "\n".join(out)


def self_test():
    """Exercises pairing, ratios, targets and the table on made-up rows (no GPU, no timing), and
    checks that every target row is measured by both programs under the same name."""
    import inspect
    cpp = open(os.path.join(ROOT, "bench", "bench_ember_cuda.cpp")).read()
    py = inspect.getsource(pytorch_rows)
    for name in sorted({t[0] for t in TARGETS}):
        assert f'"{name}"' in cpp, f"bench_ember_cuda.cpp has no row {name}"
        assert f'"{name}"' in py, f"pytorch_rows has no row {name}"

    def doc(column, values):
        return {"rows": [{"name": n, "unit": u, "column": column, "median": v,
                          "ref_label": "fake" if column == "ref" else ""} for n, u, v in values]}

    ember = doc("ember", [("alloc_free_1MB", "us", 0.8), ("gemm_fp16_8192", "TFLOP/s", 700.0),
                          ("launch_add_16", "us", 6.0), ("sum_64M", "GB/s", 2000.0),
                          ("h2d_pinned_256MB", "GB/s", 50.0), ("extra_row", "ms", 1.0)])
    ref = doc("ref", [("alloc_free_1MB", "us", 100.0), ("h2d_pinned_256MB", "GB/s", 51.0),
                      ("gemm_fp16_8192", "TFLOP/s", 720.0)])
    torch = doc("pytorch", [("alloc_free_1MB", "us", 1.0), ("gemm_fp16_8192", "TFLOP/s", 750.0),
                            ("launch_add_16", "us", 10.0), ("sum_64M", "GB/s", 2600.0),
                            ("extra_row", "ms", 2.0)])
    rows = {r["name"]: r for r in pair([ember, ref, torch])}
    verdict = {(n, t["vs"]): t["verdict"] for n, r in rows.items() for t in r["targets"]}
    expected = {("alloc_free_1MB", "pytorch"): "met",        # 0.8 <= 1.0
                ("alloc_free_1MB", "ref"): "met",            # 0.008 <= 0.01
                ("gemm_fp16_8192", "pytorch"): "MISSED",     # 0.933 < 0.95
                ("launch_add_16", "pytorch"): "MISSED",      # 0.6 > 0.5
                ("sum_64M", "pytorch"): "MISSED",            # 0.769 < 0.9
                ("h2d_pinned_256MB", "ref"): "met",          # 0.980 >= 0.95
                ("softmax_8192x4096", "pytorch"): "not measured"}
    for key, want in expected.items():
        assert verdict[key] == want, f"{key}: {verdict[key]} != {want}"
    assert abs(rows["extra_row"]["ratio_pytorch"] - 0.5) < 1e-12 and not rows["extra_row"]["targets"]
    assert len(verdict) == len(TARGETS)
    text = table(list(rows.values()))
    assert "<= 0.5x pytorch: MISSED" in text and "<= 0.01x ref: met" in text, text
    assert f"targets: 3 met, 3 missed, {len(TARGETS) - 6} not measured (of {len(TARGETS)})" in text, text
    print(text)
    print("gpu_bench self-test passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ember", default=os.path.join(ROOT, "build-gpu-check", "bench", "bench_ember_cuda"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="also write the JSON here (e.g. $OUT/gpu_bench.json on the device machine)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 unless both Ember's and PyTorch's rows ran (the GPU proof's mode)")
    ap.add_argument("--self-test", action="store_true",
                    help="check the pairing, ratio and target logic on made-up rows (no GPU needed)")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return 0

    docs, status = [], 0
    if os.path.exists(args.ember):
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            out = f.name
        cmd = [args.ember, "--out", out] + (["--quick"] if args.quick else [])
        try:
            subprocess.run(cmd, check=True)
            if os.path.getsize(out):
                docs.append(json.load(open(out)))
        except subprocess.CalledProcessError as e:
            print(f"gpu_bench: {args.ember} failed ({e}); PyTorch rows only", file=sys.stderr)
            status = 1
        os.unlink(out)
    else:
        print(f"gpu_bench: {args.ember} not found (build with EMBER_CUDA=ON, e.g. scripts/gpu-check)",
              file=sys.stderr)
        status = 1 if args.strict else status
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
        r = Runner(args.quick)
        info = pytorch_rows(r)
        docs.append({"program": "pytorch", "info": info, "rows": r.rows})
    except ImportError as e:
        print(f"gpu_bench: no PyTorch with CUDA here ({e}); Ember and raw CUDA only", file=sys.stderr)
        status = 1 if args.strict else status
    except Exception as e:  # noqa: BLE001 - a PyTorch-side failure must not read as a pass
        print(f"gpu_bench: the PyTorch rows failed: {type(e).__name__}: {e}", file=sys.stderr)
        status = 1

    rows = pair(docs)
    print(table(rows))
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    result = {"date": stamp, "programs": [d.get("info", "") for d in docs], "rows": rows}
    path = os.path.join(ROOT, "bench", "results", f"gpu-{stamp}.json")
    for dest in [path] + ([args.out] if args.out else []):
        with open(dest, "w") as f:
            json.dump(result, f, indent=1)
    print(f"written to {path}; ratio = ember / peer (times: lower is better)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
