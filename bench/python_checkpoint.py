"""Loading and saving a PyTorch checkpoint from Python: ember vs PyTorch 1.13 in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_checkpoint.py [--mb 500]

A state dict of float32 tensors totalling --mb megabytes (a transformer's shapes: 4096x4096
matrices, then smaller ones) is written once by torch.save; then ember.load and torch.load (also
with weights_only=True) read it, and ember.save and torch.save write it, best of --repeat each,
with the file in the page cache. Each load also runs in a fresh interpreter that reports how
much its peak resident memory grew: the target (issue 37) is no more than torch.load's, i.e. no
second full copy of the data. Prints seconds, peak growth in MB, and ember's ratios to PyTorch's
(target <= 1)."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import ember
import torch


def state_dict(mb):
    sd, left, i = {}, mb << 20, 0
    for shape in [(4096, 4096)] * 64 + [(1024, 1024)] * 256 + [(4096,)] * 4096:
        n = 4 * shape[0] * (shape[1] if len(shape) > 1 else 1)
        if n > left:
            continue
        sd[f"layer{i}.weight"] = torch.full(shape, 0.5)
        left -= n
        i += 1
    return sd


def best_seconds(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


# Resident memory from /proc: VmRSS now, VmHWM the peak since it was reset (clear_refs 5), so
# that the interpreter's own start-up peak does not hide the load's.
_CHILD = """
import sys
import ember, torch
def kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
loads = {"ember.load": ember.load, "torch.load": torch.load,
         "torch.load(weights_only=True)": lambda p: torch.load(p, weights_only=True)}
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = kb("VmRSS")
obj = loads[sys.argv[1]](sys.argv[2])
print((kb("VmHWM") - before) / 1024.0)
"""


def peak_growth_mb(name, path):
    """The growth of a fresh interpreter's peak resident memory while `name` loads `path`."""
    out = subprocess.run([sys.executable, "-c", _CHILD, name, path], check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=500, help="size of the state dict")
    parser.add_argument("--repeat", type=int, default=3, help="runs timed; the best counts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sd.pt")
        sd = state_dict(args.mb)
        torch.save(sd, path)
        ember_sd = ember.load(path)
        del sd
        loads = {
            "ember.load": ember.load,
            "torch.load": torch.load,
            "torch.load(weights_only=True)": lambda p: torch.load(p, weights_only=True),
        }
        seconds = {k: best_seconds(lambda f=f: f(path), args.repeat) for k, f in loads.items()}
        growth = {k: peak_growth_mb(k, path) for k in loads}
        out = os.path.join(d, "out.pt")
        torch_sd = torch.load(path)
        save_s = {"ember.save": best_seconds(lambda: ember.save(ember_sd, out), args.repeat),
                  "torch.save": best_seconds(lambda: torch.save(torch_sd, out), args.repeat)}
    print(f"state dict of {args.mb} MB, {len(ember_sd)} tensors")
    print(f"{'':<32}{'seconds':>9}{'peak +MB':>10}")
    for k in loads:
        print(f"{k:<32}{seconds[k]:>9.3f}{growth[k]:>10.0f}")
    for k, v in save_s.items():
        print(f"{k:<32}{v:>9.3f}")
    t = seconds["torch.load"]
    print(f"ratio ember.load / torch.load: time {seconds['ember.load'] / t:.2f}, "
          f"peak memory {growth['ember.load'] / max(growth['torch.load'], 1):.2f}")
    print(f"ratio ember.load / torch.load(weights_only=True): time "
          f"{seconds['ember.load'] / seconds['torch.load(weights_only=True)']:.2f}")
    print(f"ratio ember.save / torch.save: time {save_s['ember.save'] / save_s['torch.save']:.2f}")


if __name__ == "__main__":
    main()
