# The profiler as the tutorials use it: ops and record_function ranges recorded, a table, and a
# Chrome trace that parses as JSON with the same names. Op names differ by library prefix
# (aten::mm, ember::mm) and Ember records its backend kernels (mean as sum and div, pow as
# pow_scalar), so the program prints whether each op shows under one of its names; no times.
import json
import os
import tempfile

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)
x = torch.randn(32, 8, device=device)
activities = [ProfilerActivity.CPU]
if torch.cuda.is_available():
    activities.append(ProfilerActivity.CUDA)


@record_function("loss_fn")
def loss_fn(out):
    return out.pow(2).mean()


with profile(activities=activities, record_shapes=True, profile_memory=True) as prof:
    for _ in range(2):
        with record_function("forward"):
            out = model(x)
        loss = loss_fn(out)
        with torch.autograd.profiler.record_function("backward"):
            loss.backward()
        prof.step()

names = {e.key for e in prof.key_averages()}
base = {n.split("::")[-1] for n in names}
spellings = {"mm": {"mm", "addmm", "linear"}, "relu": {"relu"}, "pow": {"pow", "pow_scalar"},
             "mean": {"mean", "sum"}}
for op, alternatives in spellings.items():
    print(op, "recorded:", bool(alternatives & base))
for label in ["forward", "loss_fn", "backward"]:
    print(label, "recorded:", label in names)
counts = {e.key: e.count for e in prof.key_averages()}
print("forward count:", counts["forward"], "loss_fn count:", counts["loss_fn"])

# All rows: which ones a 5-row table keeps depends on timings, which vary on a loaded machine.
table = prof.key_averages().table(sort_by="cpu_time_total")
print("table names forward:", "forward" in table, "has header:", "Name" in table)

path = os.path.join(tempfile.mkdtemp(), "trace.json")
prof.export_chrome_trace(path)
with open(path) as f:
    trace = json.load(f)
events = trace["traceEvents"] if isinstance(trace, dict) else trace
trace_names = {e.get("name") for e in events}
print("trace has labels:", all(n in trace_names for n in ["forward", "loss_fn", "backward"]))
print("trace has mm:", any(str(n).endswith("mm") for n in trace_names))
print("profiled on", device)
