"""ember.autocast and GradScaler: the autocast state functions and regions against PyTorch 1.13,
the C++ policy table reached from Python (each listed op's output dtype against torch's), and
GradScaler's enabled path on the CPU (ember.amp.GradScaler("cpu"), as PyTorch 2 allows) against
hand-computed scales, with PyTorch's errors."""
import threading
import warnings

import pytest
import torch

import ember


def spelled(dtype):
    return str(dtype).split(".")[-1]


def test_state_functions_match_pytorch():
    for lib in (torch, ember):
        assert lib.is_autocast_cpu_enabled() is False
        assert lib.is_autocast_enabled() is False
        assert spelled(lib.get_autocast_cpu_dtype()) == "bfloat16"
        assert spelled(lib.get_autocast_gpu_dtype()) == "float16"
        assert lib.is_autocast_cache_enabled() is True
        lib.set_autocast_cpu_enabled(True)
        assert lib.is_autocast_cpu_enabled() is True
        lib.set_autocast_cpu_enabled(False)
        lib.set_autocast_gpu_dtype(lib.bfloat16)
        assert lib.get_autocast_gpu_dtype() is lib.bfloat16
        lib.set_autocast_gpu_dtype(lib.float16)
        lib.set_autocast_cache_enabled(False)
        assert lib.is_autocast_cache_enabled() is False
        lib.set_autocast_cache_enabled(True)
        lib.clear_autocast_cache()


def test_set_autocast_enabled_applies_the_policy():
    a = ember.ones(2, 3)
    ember.set_autocast_cpu_enabled(True)
    try:
        assert (a @ a.t()).dtype is ember.bfloat16
    finally:
        ember.set_autocast_cpu_enabled(False)
    assert (a @ a.t()).dtype is ember.float32


def policy_table(t):
    F = t.nn.functional
    a = (t.arange(24, dtype=t.float32).reshape(2, 3, 4) * .1).sin()
    w = (t.arange(12, dtype=t.float32).reshape(3, 4) * .1).cos()
    img = (t.arange(150, dtype=t.float32).reshape(2, 3, 5, 5) * .1).sin()
    k = (t.arange(108, dtype=t.float32).reshape(4, 3, 3, 3) * .1).cos()
    out = {}
    with t.autocast("cpu"):
        lin = F.linear(a[0], w)
        out["matmul"] = t.matmul(a[0], w.t())
        out["mm"] = t.mm(a[0], w.t())
        out["bmm"] = a.bmm(a.transpose(1, 2))
        out["linear"] = F.linear(a, w)
        out["conv2d"] = F.conv2d(img, k)
        out["relu"] = F.relu(a)
        out["softmax"] = F.softmax(a, -1)
        out["log_softmax"] = F.log_softmax(a, -1)
        out["cross_entropy"] = F.cross_entropy(F.linear(a[0, :2], w), t.tensor([0, 1]))
        out["mse_loss"] = F.mse_loss(lin, lin.detach())
        out["cat"] = t.cat([lin, lin.float()], 0)
        out["sum"] = lin.sum()
        out["exp"] = lin.exp()
        out["layer_norm"] = F.layer_norm(lin, (3,))
        out["max_pool2d"] = F.max_pool2d(F.conv2d(img, k), 2)
        out["batch_norm"] = F.batch_norm(F.conv2d(img, k), None, None, training=True)
    return {name: spelled(v.dtype) for name, v in out.items()}


def test_policy_reaches_ops_called_from_python():
    # One policy table: the C++ front ends cast; Python only opens the region.
    assert policy_table(ember) == policy_table(torch)


def test_region_forms_and_restoring():
    a = ember.ones(2, 2)
    with ember.autocast("cpu"):
        with ember.autocast("cpu", enabled=False):
            assert (a @ a).dtype is ember.float32
        assert (a @ a).dtype is ember.bfloat16
    with ember.cpu.amp.autocast():
        assert ember.is_autocast_cpu_enabled()

    region = ember.autocast("cpu", dtype=ember.bfloat16)

    @region
    def f(x):
        if x is None:
            raise KeyError("inside")
        return (x @ x).dtype

    assert f(a) is ember.bfloat16
    with pytest.raises(KeyError):
        f(None)
    assert not ember.is_autocast_cpu_enabled()
    with region:  # the same object opens twice, nested
        with region:
            assert ember.is_autocast_cpu_enabled()
        assert ember.is_autocast_cpu_enabled()
    assert not ember.is_autocast_cpu_enabled()


def test_state_is_per_thread():
    seen = []
    with ember.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append(ember.is_autocast_cpu_enabled()))
        t.start()
        t.join()
        assert ember.is_autocast_cpu_enabled()
    assert seen == [False]


def test_bad_autocast_arguments_match_pytorch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError):
            lib.autocast("tpu")
        with pytest.warns(UserWarning):
            region = lib.autocast("cpu", dtype=lib.float32)
        with pytest.raises(RuntimeError):
            with region:
                pass
        with pytest.warns(UserWarning):
            region = lib.cpu.amp.autocast(dtype=lib.float16)
        with pytest.raises(RuntimeError):
            with region:
                pass
        assert lib.is_autocast_cpu_enabled() is False
        with pytest.raises(RuntimeError):
            lib.set_autocast_cpu_dtype(lib.float16)
    with pytest.raises(TypeError):
        ember.autocast("cpu", dtype="bfloat16")
    with pytest.raises(TypeError):
        ember.set_autocast_cpu_dtype(None)
    with pytest.raises(RuntimeError):  # C++ ValueError: only float16 and bfloat16
        ember.set_autocast_gpu_dtype(ember.float32)


def test_cuda_region_without_cuda_warns_and_disables():
    for lib in (torch, ember):
        if lib.cuda.is_available():  # ember on the SIM build: the region is on
            with lib.cuda.amp.autocast():
                assert lib.is_autocast_enabled() is True
            continue
        with pytest.warns(UserWarning):
            region = lib.cuda.amp.autocast()
        with region:
            assert lib.is_autocast_enabled() is False


# GradScaler


def params_with_grads(*grads):
    ps = []
    for g in grads:
        p = ember.zeros(len(g), requires_grad=True)
        p.grad = ember.tensor(g)
        ps.append(p)
    return ps


def test_scale_unscale_step_update_hand_computed():
    scaler = ember.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    assert scaler.is_enabled() and scaler.get_scale() == 8.0
    (p,) = params_with_grads([8.0, -16.0])
    opt = ember.optim.SGD([p], lr=1.0)
    out = scaler.scale(ember.tensor([1.0, 2.0]))
    assert out.tolist() == [8.0, 16.0]
    pair = scaler.scale([ember.ones(1), (ember.ones(1) * 2,)])
    assert pair[0].tolist() == [8.0] and pair[1][0].tolist() == [16.0]
    scaler.unscale_(opt)
    assert p.grad.tolist() == [1.0, -2.0]
    assert scaler.step(opt) is None  # SGD.step() returns None; the step ran:
    assert p.tolist() == [-1.0, 2.0]
    scaler.update()
    assert scaler.get_scale() == 8.0 and scaler._get_growth_tracker() == 1
    # The second clean step reaches growth_interval: the scale doubles, the tracker restarts.
    scaler.scale(ember.ones(1))
    p.grad = ember.tensor([8.0, 8.0])
    scaler.step(opt)
    assert p.tolist() == [-2.0, 1.0]
    scaler.update()
    assert scaler.get_scale() == 16.0 and scaler._get_growth_tracker() == 0


def test_inf_gradient_skips_the_step_and_backs_off():
    scaler = ember.amp.GradScaler("cpu", init_scale=1024.0)
    p, q = params_with_grads([1.0, float("inf")], [2.0, 4.0])
    opt1 = ember.optim.SGD([p], lr=1.0)
    opt2 = ember.optim.SGD([q], lr=1.0)
    scaler.scale(ember.ones(1))
    scaler.step(opt1)
    scaler.step(opt2)
    assert p.tolist() == [0.0, 0.0]  # skipped: inf found among opt1's gradients
    assert q.tolist() == [-2.0 / 1024, -4.0 / 1024]  # opt2's were finite: it stepped
    scaler.update()
    assert scaler.get_scale() == 512.0 and scaler._get_growth_tracker() == 0
    p.grad = ember.tensor([float("nan"), 0.0])
    scaler.scale(ember.ones(1))
    scaler.step(opt1)
    scaler.update()
    assert scaler.get_scale() == 256.0 and p.tolist() == [0.0, 0.0]


def test_state_machine_errors():
    scaler = ember.amp.GradScaler("cpu")
    (p,) = params_with_grads([1.0])
    opt = ember.optim.SGD([p], lr=0.1)
    with pytest.raises(AssertionError):
        scaler.step(opt)  # no scale() yet
    scaler.scale(ember.ones(1))
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="Closure"):
        scaler.step(opt, closure=lambda: None)
    scaler.update()
    scaler.unscale_(opt)  # a fresh iteration after update()
    with pytest.raises(AssertionError):
        ember.amp.GradScaler("cpu").update()
    empty = ember.amp.GradScaler("cpu")
    empty.scale(ember.ones(1))
    with pytest.raises(AssertionError):
        empty.update()  # no inf checks recorded
    (h,) = params_with_grads([1.0])
    h.grad = h.grad.half()
    with pytest.raises(ValueError):
        scaler.unscale_(ember.optim.SGD([h], lr=0.1))
    with pytest.raises(AssertionError):
        ember.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError):
        ember.amp.GradScaler("cpu", backoff_factor=1.5)
    with pytest.raises(RuntimeError):
        ember.amp.GradScaler("tpu")
    with pytest.raises(ValueError):
        scaler.scale("loss")


def test_update_new_scale_and_state_dict():
    scaler = ember.amp.GradScaler("cpu", init_scale=4.0, growth_factor=3.0,
                                  backoff_factor=0.25, growth_interval=7)
    scaler.scale(ember.ones(1))
    scaler.update(32.0)
    assert scaler.get_scale() == 32.0
    scaler.update(ember.tensor([2.0]))
    assert scaler.get_scale() == 2.0
    for bad in (ember.tensor([1.0, 2.0]), ember.tensor([1.0], requires_grad=True), 3):
        with pytest.raises(AssertionError):
            scaler.update(bad)
    sd = scaler.state_dict()
    assert sd == {"scale": 2.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                  "growth_interval": 7, "_growth_tracker": 0}
    other = ember.amp.GradScaler("cpu")
    other.load_state_dict(sd)
    assert other.state_dict() == sd and other.get_growth_interval() == 7
    with pytest.raises(RuntimeError, match="empty"):
        other.load_state_dict({})
    other.set_growth_factor(4.0)
    other.set_backoff_factor(0.125)
    other.set_growth_interval(3)
    assert (other.get_growth_factor(), other.get_backoff_factor(),
            other.get_growth_interval()) == (4.0, 0.125, 3)


def test_step_passes_arguments_and_returns_the_result():
    class Counting(ember.optim.SGD):
        def step(self, closure=None, extra=None):
            super().step()
            return extra

    scaler = ember.amp.GradScaler("cpu")
    (p,) = params_with_grads([1.0])
    opt = Counting([p], lr=0.5)
    scaler.scale(ember.ones(1))
    assert scaler.step(opt, extra="ran") == "ran"


def test_training_with_scaler_equals_training_without():
    def train(use):
        ember.manual_seed(0)
        model = ember.nn.Linear(3, 2)
        opt = ember.optim.Adam(model.parameters(), lr=0.1)
        scaler = ember.amp.GradScaler("cpu", enabled=use)
        x = (ember.arange(12, dtype=ember.float32).reshape(4, 3) * 0.1).sin()
        for _ in range(3):
            opt.zero_grad()
            scaler.scale(model(x).pow(2).mean()).backward()
            scaler.step(opt)
            scaler.update()
        return model.weight.tolist()

    assert train(True) == train(False)  # power-of-two scales unscale exactly


def test_cuda_scaler_without_cuda_is_disabled_as_in_pytorch():
    for lib in (torch, ember):
        if lib.cuda.is_available():  # ember on the SIM build: enabled, PyTorch's initial scale
            scaler = lib.cuda.amp.GradScaler()
            assert scaler.is_enabled() is True and scaler.get_scale() == 65536.0
            x = lib.ones(2, device="cuda")
            assert scaler.scale(x).tolist() == [65536.0, 65536.0]
            assert lib.amp.GradScaler("cuda").is_enabled() is True
            continue
        with pytest.warns(UserWarning):
            scaler = lib.cuda.amp.GradScaler()
        assert scaler.is_enabled() is False
        assert scaler.get_scale() == 1.0 and scaler.state_dict() == {}
        x = lib.ones(2)
        assert scaler.scale(x) is x
    if not ember.cuda.is_available():
        with pytest.warns(UserWarning):
            assert ember.amp.GradScaler("cuda").is_enabled() is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.cuda.amp.GradScaler(enabled=False).is_enabled() is False


def test_scaling_kernels_hand_computed():
    grads = [ember.tensor([2.0, 4.0]), ember.tensor([8.0]).double()]
    found = ember.zeros(1)
    ember._amp_foreach_non_finite_check_and_unscale_(grads[:1], found, ember.tensor([0.5]))
    assert grads[0].tolist() == [1.0, 2.0] and found.item() == 0.0
    bad = [ember.tensor([1.0, float("inf")])]
    ember._amp_foreach_non_finite_check_and_unscale_(bad, found, ember.tensor([0.5]))
    assert found.item() == 1.0
    scale, tracker = ember.tensor([16.0]), ember.zeros(1, dtype=ember.int32)
    out = ember._amp_update_scale_(scale, tracker, found, 2.0, 0.5, 1)
    assert out.item() == 8.0 and scale.item() == 8.0 and tracker.item() == 0
    ember._amp_update_scale_(scale, tracker, ember.zeros(1), 2.0, 0.5, 1)
    assert scale.item() == 16.0
