"""ember.nn.DataParallel for Python modules. Without CUDA (the CPU build) it calls the module;
on the SIM build (two simulated CUDA devices) it splits the batch over both devices: gradients
equal single-device training, each replica runs on its own thread with its device current and
the caller's grad and autocast modes, errors name the replica, and the only host copies are
the scatter's (the transfer audit counts them). The training loop against PyTorch is
programs/nn_data_parallel.py."""
import threading
import time

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

two_devices = pytest.mark.skipif(
    not (ember.cuda.is_available() and ember.cuda.device_count() >= 2),
    reason="needs two CUDA devices (the SIM build has two simulated ones)")


class Probe(nn.Module):
    """A Linear that notes, per call, its thread, devices, grad and autocast modes."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.calls = []

    def forward(self, x):
        self.calls.append(dict(thread=threading.current_thread(), input=str(x.device),
                               weight=str(self.fc.weight.device),
                               current=ember.cuda.current_device()
                               if ember.cuda.is_available() else None,
                               grad=ember.is_grad_enabled(),
                               autocast=ember.is_autocast_cpu_enabled(),
                               rows=x.shape[0]))
        return self.fc(x)


def batch(n=8, device="cpu"):
    return (ember.arange(n * 4, dtype=ember.float32).reshape(n, 4) * 0.1).sin().to(device)


def test_without_devices_it_calls_the_module():
    if ember.cuda.is_available():
        pytest.skip("CPU build only")
    model = Probe()
    dp = nn.DataParallel(model, device_ids=[7])  # as PyTorch without CUDA: ids are ignored
    assert dp.module is model and dp.device_ids == []
    out = dp(batch())
    assert out.shape == (8, 3) and len(model.calls) == 1
    assert model.calls[0]["thread"] is threading.current_thread()
    assert list(dp.state_dict()) == ["module.fc.weight", "module.fc.bias"]
    with pytest.raises(TypeError):
        nn.DataParallel(lambda x: x)


def test_scatter_and_gather_keep_structure():
    from ember.nn.parallel import gather, scatter_kwargs
    x = batch(5)
    inputs, kwargs = scatter_kwargs((x, "tag"), {"scale": 2.0}, ["cpu", "cpu"], dim=0)
    assert [i[0].shape[0] for i in inputs] == [3, 2] and inputs[1][1] == "tag"
    assert kwargs == ({"scale": 2.0}, {"scale": 2.0})
    joined = gather([(inputs[0][0], {"a": inputs[0][0]}), (inputs[1][0], {"a": inputs[1][0]})],
                    -1)
    assert ember.equal(joined[0], x) and ember.equal(joined[1]["a"], x)


@two_devices
def test_gradients_equal_single_device_and_replicas_run_on_their_threads():
    model = Probe().to("cuda:0")
    reference = Probe().to("cuda:0")
    reference.load_state_dict(model.state_dict())
    dp = nn.DataParallel(model)
    assert dp.device_ids == [0, 1] and dp.output_device == 0
    x = batch(8, "cuda:0")
    with ember.autocast("cpu", enabled=False):
        out = dp(x)
    assert out.device == ember.device("cuda:0") and out.shape == (8, 3)
    out.pow(2).sum().backward()
    reference(x).pow(2).sum().backward()
    for p, q in zip(model.parameters(), reference.parameters()):
        assert p.grad.device == ember.device("cuda:0")
        assert ember.allclose(p.grad, q.grad, atol=1e-5)
    calls = model.calls
    assert sorted(c["input"] for c in calls) == ["cuda:0", "cuda:1"]
    assert all(c["input"] == c["weight"] == f"cuda:{c['current']}" for c in calls)
    assert len({c["thread"] for c in calls}) == 2
    assert threading.current_thread() not in {c["thread"] for c in calls}
    assert all(c["grad"] and c["rows"] == 4 for c in calls)
    assert model.fc.weight.grad is not None and list(model.parameters())[0].is_leaf

    model.calls.clear()
    with ember.no_grad():
        out = dp(x)
    assert not out.requires_grad and not any(c["grad"] for c in model.calls)
    model.calls.clear()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        dp(x)
    assert all(c["autocast"] for c in model.calls)
    model.calls.clear()
    dp(batch(1, "cuda:0"))  # a batch shorter than the device count uses fewer devices
    assert [c["input"] for c in model.calls] == ["cuda:0"]


@two_devices
def test_mistakes_are_named():
    with pytest.raises(AssertionError, match=r"device id 5, but there are 2 CUDA devices"):
        nn.DataParallel(nn.Linear(2, 2).cuda(), device_ids=[0, 5])
    dp = nn.DataParallel(nn.Linear(4, 3))  # left on the CPU
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on "
                                           r"device cuda:0 \(device_ids\[0\]\) but found one of "
                                           r"them on device: cpu"):
        dp(batch(4, "cuda:0"))

    class Fails(nn.Module):
        def forward(self, x):
            if x.device == ember.device("cuda:1"):
                raise ValueError("bad chunk")
            return x

    with pytest.raises(ValueError, match=r"Caught ValueError in replica 1 on device cuda:1"):
        nn.DataParallel(Fails())(batch(4, "cuda:0"))


@two_devices
def test_batch_norm_statistics_come_from_the_first_device():
    model = nn.BatchNorm1d(4).cuda()
    x = batch(8, "cuda:0")
    nn.DataParallel(model)(x)
    expected = x[:4].mean(0) * 0.1
    assert ember.allclose(model.running_mean, expected, atol=1e-6)
    assert model.num_batches_tracked.item() == 1


@two_devices
def test_no_host_copies_beyond_scatter_and_gather():
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).cuda()
    dp = nn.DataParallel(model)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    x_dev, x_host = batch(64).reshape(16, 16).cuda(), batch(64).reshape(16, 16)
    y = (ember.arange(16) % 4).cuda()
    for x, host_in in [(x_dev, 0), (x_host, 2)]:
        with ember.cuda.transfer_audit() as audit:
            for _ in range(2):
                opt.zero_grad()
                F.cross_entropy(dp(x), y).backward()
                opt.step()
                audit.step()
        s = audit.stats()
        # The batch's two chunks go to their devices (from the host when it is there); the
        # parameters, the outputs and the gradients move between the devices only.
        assert s["h2d_pageable"] + s["h2d_pinned"] == 2 * host_in, s
        assert s["d2h_pageable"] + s["d2h_pinned"] == 0, s
        assert s["d2d"] > 0, s


@two_devices
def test_replicas_overlap_in_time():
    class Slow(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.ones(400, 400).cuda() * 0.001)
            self.spans = []

        def forward(self, x):
            start = time.perf_counter()
            for _ in range(10):
                x = x @ self.w
            ember.cuda.synchronize()
            self.spans.append((start, time.perf_counter()))
            return x

    model = Slow()
    dp = nn.DataParallel(model)
    x = ember.ones(800, 400).cuda()
    for _ in range(3):
        model.spans.clear()
        with ember.no_grad():
            dp(x)
        (a0, a1), (b0, b1) = model.spans
        if a0 < b1 and b0 < a1:
            return
    pytest.fail(f"the replicas' forwards never overlapped: {model.spans}")
