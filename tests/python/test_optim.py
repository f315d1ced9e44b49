"""ember.optim against torch.optim: the same parameters and gradients give the same updates for
every optimizer and option set, param_groups edits, state and state_dict, schedulers, errors."""
import numpy as np
import pytest
import torch

import ember
from nn_compare import close, copy_params, wave

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, maximize=True)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("RAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("Adadelta", dict(lr=0.5)),
    ("Rprop", dict(lr=0.01)),
    ("ASGD", dict(lr=0.05, t0=2)),
]


def models():
    def make(nn):
        return nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 3))

    # A fixed start: torch's initial values (copied into ember) would otherwise differ per run,
    # and LBFGS's line search magnifies float32 rounding differently from one start to another.
    torch.manual_seed(0)
    e, t = make(ember.nn), make(torch.nn)
    copy_params(e, t)
    return e, t


def train(lib, model, opt, steps=4):
    x = lib.tensor(wave(6, 5))
    y = lib.tensor(np.arange(6) % 3)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{sorted(k)}" for n, k in CASES])
def test_optimizer_matches_torch(name, kw):
    e_model, t_model = models()
    e_opt = getattr(ember.optim, name)(e_model.parameters(), **kw)
    t_opt = getattr(torch.optim, name)(t_model.parameters(), **kw)
    assert e_opt.defaults == t_opt.defaults
    assert repr(e_opt) == repr(t_opt)
    np.testing.assert_allclose(train(ember, e_model, e_opt), train(torch, t_model, t_opt),
                               rtol=1e-5)
    for e_p, t_p in zip(e_model.parameters(), t_model.parameters()):
        close(e_p, t_p, rtol=1e-4, atol=1e-6)
    e_state = e_opt.state[e_model[0].weight]
    t_state = t_opt.state[t_model[0].weight]
    assert sorted(t_state) == sorted(e_state)
    for key, value in t_state.items():
        if isinstance(value, torch.Tensor):
            close(e_state[key], value, rtol=1e-4, atol=1e-7)
        else:
            assert e_state[key] == value


def test_param_groups_lr_edit_and_add_param_group():
    e_model, t_model = models()
    e_opt = ember.optim.SGD([{"params": e_model[0].parameters()}], lr=0.1, momentum=0.5)
    t_opt = torch.optim.SGD([{"params": t_model[0].parameters()}], lr=0.1, momentum=0.5)
    e_opt.add_param_group({"params": e_model[2].parameters(), "lr": 0.3})
    t_opt.add_param_group({"params": t_model[2].parameters(), "lr": 0.3})
    assert [g["lr"] for g in e_opt.param_groups] == [0.1, 0.3]
    train(ember, e_model, e_opt, 2)
    train(torch, t_model, t_opt, 2)
    for e_g, t_g in zip(e_opt.param_groups, t_opt.param_groups):
        e_g["lr"] = t_g["lr"] = e_g["lr"] * 0.5
        e_g["momentum"] = t_g["momentum"] = 0.0
    np.testing.assert_allclose(train(ember, e_model, e_opt, 2), train(torch, t_model, t_opt, 2),
                               rtol=1e-5)
    for e_p, t_p in zip(e_model.parameters(), t_model.parameters()):
        close(e_p, t_p, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError):
        e_opt.add_param_group({"params": e_model[0].weight})


def test_zero_grad_modes():
    e_model, _ = models()
    opt = ember.optim.SGD(e_model.parameters(), lr=0.1)
    train(ember, e_model, opt, 1)
    opt.zero_grad()
    assert e_model[0].weight.grad.abs().sum().item() == 0
    opt.zero_grad(set_to_none=True)
    assert all(p.grad is None for p in e_model.parameters())


def test_state_dict_round_trip_continues_identically():
    e_model, t_model = models()
    e_opt = ember.optim.Adam(e_model.parameters(), lr=0.01)
    t_opt = torch.optim.Adam(t_model.parameters(), lr=0.01)
    train(ember, e_model, e_opt, 3)
    train(torch, t_model, t_opt, 3)
    e_sd, t_sd = e_opt.state_dict(), t_opt.state_dict()
    assert e_sd["param_groups"] == t_sd["param_groups"]
    assert sorted(e_sd["state"]) == sorted(t_sd["state"])
    fresh = ember.optim.Adam(e_model.parameters(), lr=0.5)
    fresh.load_state_dict(e_sd)
    assert fresh.param_groups[0]["lr"] == 0.01
    assert fresh.state[e_model[0].weight]["step"].item() == 3
    np.testing.assert_allclose(train(ember, e_model, fresh, 2), train(torch, t_model, t_opt, 2),
                               rtol=1e-5)
    other = ember.optim.Adam([{"params": e_model[0].parameters()},
                              {"params": e_model[2].parameters()}])
    with pytest.raises(ValueError):
        other.load_state_dict(e_sd)


def test_lbfgs_matches_torch():
    e_model, t_model = models()
    results = []
    for lib, model in ((ember, e_model), (torch, t_model)):
        opt = lib.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)
        x = lib.tensor(wave(6, 5))
        y = lib.tensor(np.arange(6) % 3)

        def closure():
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            return loss

        results.append([opt.step(closure).item() for _ in range(3)])
    np.testing.assert_allclose(results[0], results[1], rtol=1e-4)
    for e_p, t_p in zip(e_model.parameters(), t_model.parameters()):
        close(e_p, t_p, rtol=1e-3, atol=1e-5)


SCHEDULES = [
    ("StepLR", dict(step_size=2, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[1, 3, 3], gamma=0.5)),
    ("ExponentialLR", dict(gamma=0.8)),
    ("CosineAnnealingLR", dict(T_max=3, eta_min=0.001)),
    ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e)),
]


@pytest.mark.parametrize("name,kw", SCHEDULES, ids=[s[0] for s in SCHEDULES])
def test_scheduler_matches_torch(name, kw):
    rates = []
    for lib in (ember, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.2)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
        seq = []
        for _ in range(10):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr()[0])
        rates.append(seq)
    assert rates[0] == rates[1]


def test_reduce_lr_on_plateau_matches_torch():
    rates = []
    for lib in (ember, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=1.0)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=1,
                                                          cooldown=1, factor=0.5, min_lr=0.1)
        seq = []
        for metric in [1, 2, 2, 2, 2, 3, 1, 1, 1, 1, 1, 1]:
            sched.step(metric)
            seq.append(opt.param_groups[0]["lr"])
        rates.append(seq)
    assert rates[0] == rates[1]


@pytest.mark.parametrize("make,exc", [
    (lambda p: ember.optim.SGD(p, lr=-0.1), ValueError),
    (lambda p: ember.optim.SGD(p), ValueError),
    (lambda p: ember.optim.SGD(p, lr=0.1, momentum=-1), ValueError),
    (lambda p: ember.optim.Adam(p, eps=-1), ValueError),
    (lambda p: ember.optim.Adam(p, betas=(0.9, 1.0)), ValueError),
    (lambda p: ember.optim.RMSprop(p, alpha=-1), ValueError),
    (lambda p: ember.optim.SGD([], lr=0.1), ValueError),
    (lambda p: ember.optim.SGD(p[0], lr=0.1), TypeError),
    (lambda p: ember.optim.SGD([{"params": set(p)}], lr=0.1), TypeError),
    (lambda p: ember.optim.SGD([1.0], lr=0.1), TypeError),
    (lambda p: ember.optim.SGD([p[0] * 2], lr=0.1), ValueError),
    (lambda p: ember.optim.SGD([p[0], p[0]] and [{"params": p}, {"params": p}], lr=0.1),
     ValueError),
    (lambda p: ember.optim.LBFGS(p).step(), TypeError),
    (lambda p: ember.optim.LBFGS(p).step(None), RuntimeError),
    (lambda p: ember.optim.lr_scheduler.StepLR(object(), 1), TypeError),
])
def test_bad_arguments_raise(make, exc):
    params = [ember.nn.Parameter(ember.ones(2))]
    with pytest.raises(exc):
        make(params)
