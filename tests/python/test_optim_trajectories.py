"""Every ember.optim optimizer against torch.optim (1.13) for 50 float64 steps with every
option: parameters after each step within 1e-6, state_dict() key for key, and each library's
state_dict loaded by the other half way through, both carrying on to the same parameters."""
import zlib

import numpy as np
import pytest
import torch

import ember
from nn_compare import to_numpy

STEPS = 50
RESUME_AT = 25

CASES = [
    ("SGD", dict(lr=0.05, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01, maximize=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5,
                     eps=1e-6)),
    ("Adagrad", dict(lr=0.1, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.5))),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1,
                   momentum_decay=0.01)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-3, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.02, etas=(0.3, 1.5), step_sizes=(0.005, 0.05), maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=10, weight_decay=0.1, maximize=True)),
]


def to_torch(value):
    return torch.tensor(to_numpy(value)) if isinstance(value, ember.Tensor) else value


def to_ember(value):
    return ember.tensor(value.numpy()) if isinstance(value, torch.Tensor) else value


def convert(state_dict, fn):
    return {"state": {i: {k: fn(v) for k, v in s.items()} for i, s in state_dict["state"].items()},
            "param_groups": state_dict["param_groups"]}


class Run:
    """One library's parameters [w, b] and optimizer, stepped on shared gradients."""

    def __init__(self, lib, name, kw, values):
        self.lib = lib
        self.params = [lib.tensor(v).requires_grad_(True) for v in values]
        self.opt = getattr(lib.optim, name)(self.params, **kw)

    def step(self, grads, k):
        w, b = self.params
        w.grad = self.lib.tensor(grads[0][k])
        b.grad = None if k == 1 else self.lib.tensor(grads[1][k])  # b must be skipped once
        self.opt.step()

    def values(self):
        return [to_numpy(p) for p in self.params]


def check_same(e_run, t_run, what):
    for e, t in zip(e_run.values(), t_run.values()):
        np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-9, err_msg=what)


def check_state_dicts_match(e_sd, t_sd):
    assert e_sd["param_groups"] == t_sd["param_groups"]
    assert sorted(e_sd["state"]) == sorted(t_sd["state"])
    for i, t_state in t_sd["state"].items():
        assert sorted(e_sd["state"][i]) == sorted(t_state), i
        t_present = {k: v for k, v in t_state.items() if v is not None}
        for key, value in t_present.items():
            mine = e_sd["state"][i][key]
            if isinstance(value, torch.Tensor):
                assert isinstance(mine, ember.Tensor), key
                assert str(mine.dtype).split(".")[-1] == str(value.dtype).split(".")[-1], key
                np.testing.assert_allclose(to_numpy(mine), value.numpy(), rtol=1e-6, atol=1e-9,
                                           err_msg=key)
            else:
                assert type(mine) is type(value) and mine == value, key


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{'-'.join(sorted(k))}" for n, k in CASES])
def test_50_steps_and_state_dicts_match_torch(name, kw):
    rng = np.random.default_rng(zlib.crc32(f"{name}{sorted(kw.items())}".encode()))
    start = [rng.standard_normal((3, 4)), rng.standard_normal(4)]
    grads = [rng.standard_normal((STEPS, 3, 4)), rng.standard_normal((STEPS, 4))]
    e_run, t_run = Run(ember, name, kw, start), Run(torch, name, kw, start)
    assert e_run.opt.defaults == t_run.opt.defaults
    assert repr(e_run.opt) == repr(t_run.opt)
    for k in range(STEPS):
        e_run.step(grads, k)
        t_run.step(grads, k)
        check_same(e_run, t_run, f"{name} step {k + 1}")
        if k + 1 == RESUME_AT:
            e_sd, t_sd = e_run.opt.state_dict(), t_run.opt.state_dict()
            check_state_dicts_match(e_sd, t_sd)
            # Each library picks up the other's state dict over copies of the parameters.
            e_resumed = Run(ember, name, kw, t_run.values())
            e_resumed.opt.load_state_dict(convert(t_sd, to_ember))
            t_resumed = Run(torch, name, kw, e_run.values())
            t_resumed.opt.load_state_dict(convert(e_sd, to_torch))
        elif k + 1 > RESUME_AT:
            e_resumed.step(grads, k)
            t_resumed.step(grads, k)
    check_state_dicts_match(e_run.opt.state_dict(), t_run.opt.state_dict())
    check_same(e_resumed, t_run, f"{name}: ember resumed from torch's state dict")
    check_same(e_run, t_resumed, f"{name}: torch resumed from ember's state dict")


def test_adagrad_state_exists_from_construction():
    e = ember.optim.Adagrad([ember.nn.Parameter(ember.zeros(2))], initial_accumulator_value=0.5)
    t = torch.optim.Adagrad([torch.nn.Parameter(torch.zeros(2))], initial_accumulator_value=0.5)
    check_state_dicts_match(e.state_dict(), t.state_dict())


BAD = [
    ("Adagrad", dict(lr=-0.1), "Invalid learning rate: -0.1"),
    ("Adagrad", dict(lr_decay=-1), "Invalid lr_decay value: -1"),
    ("Adagrad", dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value"),
    ("Adagrad", dict(eps=-1), "Invalid epsilon value: -1"),
    ("RAdam", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    ("RAdam", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("NAdam", dict(momentum_decay=-1), "Invalid momentum_decay value: -1"),
    ("NAdam", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    ("Adamax", dict(eps=-1), "Invalid epsilon value: -1"),
    ("Adadelta", dict(rho=1.5), "Invalid rho value: 1.5"),
    ("Adadelta", dict(lr=-1), "Invalid learning rate: -1"),
    ("Rprop", dict(etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
    ("Rprop", dict(lr=-1), "Invalid learning rate: -1"),
    ("ASGD", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("ASGD", dict(lr=-1), "Invalid learning rate: -1"),
]


@pytest.mark.parametrize("name,kw,message", BAD, ids=[f"{n}-{sorted(k)}" for n, k, _ in BAD])
def test_bad_options_raise_torchs_error(name, kw, message):
    for lib in (ember, torch):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
            getattr(lib.optim, name)([lib.nn.Parameter(lib.zeros(2))], **kw)
