"""ember.optim.swa_utils against torch.optim.swa_utils: AveragedModel's equal and exponential
(avg_fn) averages over several updates, with and without buffers; update_bn's running
statistics; SWALR's learning rates; and the errors."""
import copy
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from nn_compare import close, copy_params, to_numpy, wave


def model(nn):
    return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))


def pair_of_models():
    torch.manual_seed(0)
    t = model(torch.nn).double()
    e = model(ember.nn).double()
    copy_params(e, t)
    return e, t


def train_step(e, t, k):
    """The same 'training' change in both: new parameter values and one forward in train mode
    (which moves the BatchNorm buffers)."""
    x = wave(8, 4, scale=1.5, offset=k).astype(np.float64)
    with torch.no_grad():
        for i, p in enumerate(t.parameters()):
            p.add_(torch.tensor(wave(*p.shape, scale=0.1, offset=k + i).astype(np.float64)))
    copy_params(e, t)
    t(torch.tensor(x))
    e(ember.tensor(x))


def ema(averaged, current, num_averaged):
    return 0.9 * averaged + 0.1 * current


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("avg_fn", [None, ema], ids=["equal", "ema"])
def test_averaged_model_matches_torch(avg_fn, use_buffers):
    e, t = pair_of_models()
    e_avg = ember.optim.swa_utils.AveragedModel(e, avg_fn=avg_fn, use_buffers=use_buffers)
    t_avg = torch.optim.swa_utils.AveragedModel(t, avg_fn=avg_fn, use_buffers=use_buffers)
    for k in range(6):
        train_step(e, t, k)
        e_avg.update_parameters(e)
        t_avg.update_parameters(t)
        e_state, t_state = e_avg.state_dict(), t_avg.state_dict()
        assert list(e_state) == list(t_state)
        for key in t_state:
            close(e_state[key], t_state[key], rtol=1e-12, atol=1e-14)
            assert str(e_state[key].dtype).split(".")[1] == str(t_state[key].dtype).split(".")[1]
    assert e_avg.n_averaged.item() == t_avg.n_averaged.item() == 6
    # The averaged weights differ from the model's (the average is not a copy), and forward runs
    # the averaged copy.
    assert not np.allclose(to_numpy(e_avg.module[0].weight), to_numpy(e[0].weight))
    x = wave(5, 4).astype(np.float64)
    e_avg.eval()
    t_avg.eval()
    close(e_avg(ember.tensor(x)), t_avg(torch.tensor(x)), rtol=1e-12, atol=1e-14)


def test_averaged_model_is_a_copy_with_its_own_parameters():
    e, _ = pair_of_models()
    avg = ember.optim.swa_utils.AveragedModel(e)
    assert [n for n, _ in avg.named_parameters()] == ["module." + n for n, _ in
                                                       e.named_parameters()]
    assert all(a is not b for a, b in zip(avg.parameters(), e.parameters()))
    assert "n_averaged" in dict(avg.named_buffers())


@pytest.mark.parametrize("batches", ["tensors", "tuples"])
def test_update_bn_matches_torch(batches):
    e, t = pair_of_models()
    data = [wave(8, 4, scale=2.0, offset=k).astype(np.float64) + k for k in range(5)]
    if batches == "tensors":
        e_loader = [ember.tensor(x) for x in data]
        t_loader = [torch.tensor(x) for x in data]
    else:
        e_loader = [(ember.tensor(x), ember.zeros(8)) for x in data]
        t_loader = [(torch.tensor(x), torch.zeros(8)) for x in data]
    for m in (e, t):
        m.eval()
    ember.optim.swa_utils.update_bn(e_loader, e)
    torch.optim.swa_utils.update_bn(t_loader, t)
    bn_e, bn_t = e[1], t[1]
    close(bn_e.running_mean, bn_t.running_mean, rtol=1e-12, atol=1e-14)
    close(bn_e.running_var, bn_t.running_var, rtol=1e-12, atol=1e-14)
    assert bn_e.num_batches_tracked.item() == bn_t.num_batches_tracked.item() == 5
    # momentum and the training flag are restored.
    assert bn_e.momentum == 0.1 and not e.training and not bn_e.training
    # The result is the plain average of the batch statistics, not a momentum average.
    means = np.stack([to_numpy(e[0](ember.tensor(x))).mean(0) for x in data]).mean(0)
    np.testing.assert_allclose(to_numpy(bn_e.running_mean), means, rtol=1e-10)


def test_update_bn_without_batchnorm_does_nothing():
    m = ember.nn.Linear(2, 2)
    ember.optim.swa_utils.update_bn([ember.ones(1, 2)], m)  # no BatchNorm: no pass over data


def swalr_rates(lib, **kw):
    p = lib.nn.Parameter(lib.zeros(2))
    q = lib.nn.Parameter(lib.zeros(2))
    opt = lib.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.3}], lr=0.5)
    sched = lib.optim.swa_utils.SWALR(opt, **kw)
    rates = [sched.get_last_lr()]
    for _ in range(20):
        opt.step()
        sched.step()
        rates.append(sched.get_last_lr() + [g["swa_lr"] for g in opt.param_groups])
    return rates


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=7,
                                                           anneal_strategy="linear"),
                                dict(swa_lr=0.02, anneal_epochs=0)], ids=str)
def test_swalr_matches_torch(kw):
    ours, theirs = swalr_rates(ember, **kw), swalr_rates(torch, **kw)
    for a, b in zip(ours, theirs):
        assert all(math.isclose(x, y, rel_tol=1e-12) for x, y in zip(a, b)), (a, b)


def test_swalr_after_cosine_in_sequential_lr():
    # SWA's usual recipe: anneal, then switch to SWALR at a milestone.
    rows = []
    for lib in (ember, torch):
        p = lib.nn.Parameter(lib.zeros(2))
        opt = lib.optim.SGD([p], lr=0.5)
        s = lib.optim.lr_scheduler
        seq = s.SequentialLR(opt, [s.CosineAnnealingLR(opt, T_max=10),
                                   lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=4)],
                             milestones=[8])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = []
            for _ in range(20):
                opt.step()
                seq.step()
                out.append(opt.param_groups[0]["lr"])
        rows.append(out)
    assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(*rows)), rows


def error(lib, build):
    try:
        build(lib)
    except Exception as e:  # noqa: BLE001  the type and text are what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("build", [
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], 0.1),
                                          0.01, anneal_strategy="step"),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], 0.1),
                                          0.01, anneal_epochs=-1),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], 0.1),
                                          0.01, anneal_epochs=2.5),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], 0.1),
                                          [0.01, 0.02]),
])
def test_swalr_errors_match_torch(build):
    theirs = error(torch, build)
    assert theirs is not None
    assert error(ember, build) == theirs


def test_tensor_deepcopy_as_torch():
    # AveragedModel deep-copies the model, buffers included.
    for lib in (ember, torch):
        x = lib.ones(3, dtype=lib.float64).requires_grad_()
        (x * 2).sum().backward()
        y = copy.deepcopy(x)
        assert y.requires_grad and y.grad is not None and y.grad is not x.grad
        assert y.tolist() == [1.0] * 3 and y.grad.tolist() == [2.0] * 3
        y.detach().add_(1)
        assert x.tolist() == [1.0] * 3
        pair = copy.deepcopy([x, x])
        assert pair[0] is pair[1]
    assert error(ember, lambda lib: copy.deepcopy(lib.ones(2, requires_grad=True) * 2)) == \
        error(torch, lambda lib: copy.deepcopy(lib.ones(2, requires_grad=True) * 2))
