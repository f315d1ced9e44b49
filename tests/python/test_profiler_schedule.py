"""ember.profiler.schedule and tensorboard_trace_handler against torch.profiler (PyTorch 1.13):
the same action for every step, the same windows handed to on_trace_ready over a training loop
(which steps each window holds), and the trace files the handler writes."""
import json
import os

import pytest
import torch
import torch.profiler

import ember
from ember.profiler import ProfilerAction, profile, schedule, tensorboard_trace_handler


@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2),
                                  dict(wait=0, warmup=2, active=1, repeat=2, skip_first=3),
                                  dict(wait=2, warmup=1, active=3, repeat=1)])
def test_schedule_actions_match_torch(args):
    ours, theirs = schedule(**args), torch.profiler.schedule(**args)
    assert [ours(s).name for s in range(30)] == [theirs(s).name for s in range(30)]


def test_schedule_errors_and_warning_match_torch():
    for lib in (ember, torch):
        with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
            lib.profiler.schedule(wait=0, warmup=0, active=0)
        with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
            lib.profiler.schedule(wait=0, warmup=0, active=1)


def windows(lib, sched, steps=11):
    """(the step on which each on_trace_ready call came, the ops' step marks in its window)."""
    calls = []
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], schedule=sched,
                              on_trace_ready=lambda p: calls.append(p.step_num)) as prof:
        for _ in range(steps):
            lib.ones(2) + 1
            prof.step()
    return calls


def test_windows_reach_on_trace_ready_when_torch_calls_it():
    for args in (dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=1),
                 dict(wait=0, warmup=1, active=3, skip_first=2)):
        assert windows(ember, schedule(**args)) == windows(torch, torch.profiler.schedule(**args))


def test_a_window_holds_only_its_steps():
    seen = []

    def ready(prof):
        adds = [e for e in prof.events() if e.name == "ember::add"]
        seen.append(len(adds))

    with profile(schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=ready) as prof:
        for step in range(8):
            for _ in range(step + 1):  # step k runs k + 1 adds
                ember.ones(2) + 1
            prof.step()
    assert seen == [3 + 4, 7 + 8]  # steps 2-3 and 6-7


@pytest.mark.parametrize("use_gzip", [False, True])
def test_tensorboard_trace_handler_writes_one_trace_per_window(tmp_path, use_gzip):
    handler = tensorboard_trace_handler(str(tmp_path / "log"), worker_name="w0",
                                        use_gzip=use_gzip)
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=handler) as prof:
        for _ in range(5):
            ember.ones(2) * 3
            prof.step()
    files = sorted(os.listdir(tmp_path / "log"))
    assert len(files) == 2
    suffix = ".pt.trace.json.gz" if use_gzip else ".pt.trace.json"
    assert all(f.startswith("w0.") and f.endswith(suffix) for f in files)
    path = tmp_path / "log" / files[0]
    if use_gzip:
        import gzip
        data = json.loads(gzip.open(path).read())
    else:
        data = json.loads(path.read_text())
    assert any(e.get("name") == "ember::mul" for e in data["traceEvents"])
    assert ProfilerAction.RECORD_AND_SAVE.value == 3
