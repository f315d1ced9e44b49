"""ember.optim.lr_scheduler against torch.optim.lr_scheduler: every scheduler of PyTorch 1.13,
stepped 60 times on the same two-group optimizer, sets the same learning rates (and momenta,
for the cycling ones) at every step; sequential and chained ones, lrs edited by hand between
steps, the deprecated step(epoch), state_dict round trips (also across the two libraries), and
the errors and warnings."""
import math
import warnings

import pytest
import torch

import ember

STEPS = 60


def make_optimizer(lib, kind="SGD"):
    a = lib.nn.Parameter(lib.zeros(2))
    b = lib.nn.Parameter(lib.zeros(3))
    groups = [{"params": [a]}, {"params": [b], "lr": 0.02}]
    if kind == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, kind)(groups, lr=0.1)


def snapshot(opt, sched):
    """What a script can read after a step: the scheduler's last lrs, each group's lr and
    momentum (or Adam's beta1)."""
    # PyTorch 1.13's ReduceLROnPlateau has _last_lr but no get_last_lr() (Ember's has both).
    row = list(sched._last_lr) + [g["lr"] for g in opt.param_groups]
    for g in opt.param_groups:
        if "momentum" in g:
            row.append(g["momentum"])
        if "betas" in g:
            row.append(g["betas"][0])
    return row


def run(lib, make, steps=STEPS, kind="SGD", between=None):
    """The rows of snapshot() after construction and after each step. make(sched_module, opt)
    builds the scheduler; between(opt, step) may edit the groups after a step."""
    opt = make_optimizer(lib, kind)
    sched = make(lib.optim.lr_scheduler, opt)
    rows = [snapshot(opt, sched)]
    for i in range(steps):
        opt.step()
        sched.step()
        if between is not None:
            between(opt, i)
        rows.append(snapshot(opt, sched))
    return rows


def assert_rows_equal(ours, theirs, rel=1e-12):
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert len(a) == len(b), f"step {i}: {a} vs {b}"
        for x, y in zip(a, b):
            assert math.isclose(x, y, rel_tol=rel, abs_tol=1e-300), f"step {i}: {a} vs {b}"


class Halve:
    """A callable object (its __dict__ goes into LambdaLR's state_dict)."""

    def __init__(self, every):
        self.every = every

    def __call__(self, epoch):
        return 0.5 ** (epoch // self.every)


SCHEDULERS = {
    "LambdaLR": lambda s, o: s.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR-per-group": lambda s, o: s.LambdaLR(o, [lambda e: 1 / (e + 1), Halve(7)]),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lambda e: 0.97 if e % 2 else 0.99),
    "StepLR": lambda s, o: s.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[5, 20, 20, 40], gamma=0.3),
    "ConstantLR": lambda s, o: s.ConstantLR(o, factor=0.25, total_iters=8),
    "ConstantLR-defaults": lambda s, o: s.ConstantLR(o),
    "LinearLR": lambda s, o: s.LinearLR(o, start_factor=0.05, end_factor=0.9, total_iters=20),
    "LinearLR-decay": lambda s, o: s.LinearLR(o, start_factor=1.0, end_factor=0.1,
                                              total_iters=30),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.93),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o, total_iters=40, power=2.0),
    "PolynomialLR-defaults": lambda s, o: s.PolynomialLR(o),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=15, eta_min=1e-4),
    "CyclicLR-triangular": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=7,
                                                   step_size_down=5),
    "CyclicLR-triangular2": lambda s, o: s.CyclicLR(o, [0.01, 0.002], [0.1, 0.05],
                                                    step_size_up=4, mode="triangular2",
                                                    base_momentum=[0.7, 0.8],
                                                    max_momentum=0.95),
    "CyclicLR-exp_range": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=6,
                                                  mode="exp_range", gamma=0.97),
    "CyclicLR-scale_fn": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=5,
                                                 scale_fn=lambda x: 1 / (1 + 0.1 * x),
                                                 scale_mode="iterations",
                                                 cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(
        o, T_0=5, T_mult=2, eta_min=1e-3),
    "CosineAnnealingWarmRestarts-T_mult1": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=7),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=STEPS),
    "OneCycleLR-three_phase-linear": lambda s, o: s.OneCycleLR(
        o, max_lr=0.4, epochs=6, steps_per_epoch=10, pct_start=0.25, anneal_strategy="linear",
        three_phase=True, div_factor=10.0, final_div_factor=100.0),
    "OneCycleLR-no-momentum": lambda s, o: s.OneCycleLR(o, max_lr=0.3, total_steps=STEPS + 5,
                                                       cycle_momentum=False),
    "SequentialLR-warmup-cosine": lambda s, o: s.SequentialLR(
        o, [s.LinearLR(o, start_factor=0.01, total_iters=10),
            s.CosineAnnealingLR(o, T_max=40, eta_min=1e-5)], milestones=[10]),
    "SequentialLR-three": lambda s, o: s.SequentialLR(
        o, [s.ConstantLR(o, factor=0.1, total_iters=5), s.ExponentialLR(o, gamma=0.9),
            s.StepLR(o, step_size=4, gamma=0.5)], milestones=[5, 25]),
    "SequentialLR-multistep-poly": lambda s, o: s.SequentialLR(
        o, [s.MultiStepLR(o, milestones=[3, 6], gamma=0.5), s.PolynomialLR(o, 20, 1.5)],
        milestones=[12]),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler(
        [s.ConstantLR(o, factor=0.1, total_iters=10), s.ExponentialLR(o, gamma=0.95)]),
    "ChainedScheduler-three": lambda s, o: s.ChainedScheduler(
        [s.LinearLR(o, start_factor=0.2, total_iters=8), s.CosineAnnealingLR(o, T_max=12),
         s.MultiStepLR(o, milestones=[30, 45], gamma=0.5)]),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_learning_rates_match_torch(name):
    make = SCHEDULERS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_rows_equal(run(ember, make), run(torch, make))


@pytest.mark.parametrize("name", ["OneCycleLR", "OneCycleLR-three_phase-linear"])
def test_one_cycle_cycles_adam_beta1(name):
    make = SCHEDULERS[name]
    ours, theirs = run(ember, make, kind="Adam"), run(torch, make, kind="Adam")
    assert_rows_equal(ours, theirs)


def halve_at(step):
    def between(opt, i):
        if i == step:
            for g in opt.param_groups:
                g["lr"] *= 0.5
    return between


@pytest.mark.parametrize("name", ["MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
                                  "LinearLR", "ExponentialLR", "PolynomialLR",
                                  "CosineAnnealingLR", "ChainedScheduler",
                                  "SequentialLR-warmup-cosine"])
def test_lrs_edited_between_steps_carry_through(name):
    # The chainable forms recur from the group's current lr, as PyTorch's do.
    make = SCHEDULERS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_rows_equal(run(ember, make, between=halve_at(6)),
                          run(torch, make, between=halve_at(6)))


def test_reduce_lr_on_plateau_matches_torch():
    metrics = [1.0 / (1 + i) if i < 10 else 0.1 + 0.001 * math.sin(i) for i in range(STEPS)]
    for kw in (dict(), dict(mode="max", patience=2, factor=0.5, cooldown=3, min_lr=[0.001, 0.0]),
               dict(threshold_mode="abs", threshold=0.01, patience=1, eps=1e-3)):
        seqs = []
        for lib in (ember, torch):
            opt = make_optimizer(lib)
            sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
            seq = []
            for m in metrics:
                sched.step(lib.tensor(m) if lib is ember else m)
                seq.append(snapshot(opt, sched) + [sched.num_bad_epochs, sched.cooldown_counter])
            seqs.append(seq)
        assert_rows_equal(*seqs)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
                                  "ExponentialLR", "PolynomialLR", "CosineAnnealingLR",
                                  "LambdaLR", "CyclicLR-triangular",
                                  "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_uses_closed_form_and_warns(name):
    make = SCHEDULERS[name]
    epochs = [3, 4, 10, 2, 17, 17, 30, 0, 8]
    if name == "CosineAnnealingWarmRestarts":
        epochs += [2.5, 12.25]  # fractional epochs, per-batch stepping
    seqs = []
    for lib in (ember, torch):
        opt = make_optimizer(lib)
        sched = make(lib.optim.lr_scheduler, opt)
        seq = []
        for e in epochs:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                sched.step(e)
            seq.append(snapshot(opt, sched))
            seq.append([len(caught)] + [hash(str(w.message)) for w in caught])
        seqs.append(seq)
    assert_rows_equal(*seqs)


def test_sequential_and_chained_step_each_scheduler_as_torch():
    # The wrapped schedulers' own counters advance as PyTorch's do.
    for lib in (ember, torch):
        opt = make_optimizer(lib)
        s = lib.optim.lr_scheduler
        warm, cos = s.LinearLR(opt, total_iters=4), s.CosineAnnealingLR(opt, T_max=10)
        seq = s.SequentialLR(opt, [warm, cos], milestones=[4])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the milestone's step(0) warns in both
            for _ in range(7):
                opt.step()
                seq.step()
        if lib is ember:
            ours = (warm.last_epoch, cos.last_epoch, seq.last_epoch, warm._step_count,
                    cos._step_count)
        else:
            theirs = (warm.last_epoch, cos.last_epoch, seq.last_epoch, warm._step_count,
                      cos._step_count)
    assert ours == theirs


def drop_callables(state):
    """A state_dict without its bound methods and functions (PyTorch's OneCycleLR and CyclicLR
    store theirs there); nested scheduler states are cleaned too."""
    clean = {}
    for key, value in state.items():
        if callable(value) or type(value).__name__ == "WeakMethod":
            continue
        if key == "_schedulers":
            value = [drop_callables(v) for v in value]
        clean[key] = value
    return clean


ROUND_TRIP = ["LambdaLR-per-group", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
              "LinearLR", "ExponentialLR", "PolynomialLR", "CosineAnnealingLR",
              "CyclicLR-triangular2", "CyclicLR-exp_range", "CosineAnnealingWarmRestarts",
              "OneCycleLR", "OneCycleLR-three_phase-linear", "SequentialLR-warmup-cosine",
              "SequentialLR-three", "ChainedScheduler-three"]


@pytest.mark.parametrize("source", ["ember", "torch"])
@pytest.mark.parametrize("name", ROUND_TRIP)
def test_state_dict_round_trip(name, source):
    """20 steps, then the state (and the groups' lrs) into a fresh scheduler from either
    library; the next 40 steps match an uninterrupted run."""
    make = SCHEDULERS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = run(torch, make)
        lib = ember if source == "ember" else torch
        opt = make_optimizer(lib)
        sched = make(lib.optim.lr_scheduler, opt)
        for _ in range(20):
            opt.step()
            sched.step()
        state = drop_callables(sched.state_dict())
        groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
        # The groups' keys the scheduler added ('initial_lr', 'max_lr', ...) are the same.
        ours_opt = make_optimizer(ember)
        ours = make(ember.optim.lr_scheduler, ours_opt)
        assert set(ours_opt.param_groups[0]) == set(opt.param_groups[0])
        assert set(drop_callables(ours.state_dict())) == set(state)
        for g, saved in zip(ours_opt.param_groups, groups):
            g.update(saved)
        ours.load_state_dict(state)
        rows = []
        for _ in range(40):
            ours_opt.step()
            ours.step()
            rows.append(snapshot(ours_opt, ours))
    assert_rows_equal(rows, whole[21:])


def test_reduce_lr_on_plateau_state_dict_round_trip():
    opt = make_optimizer(ember)
    sched = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=1)
    for m in [1, 2, 2, 2]:
        sched.step(m)
    t_opt = make_optimizer(torch)
    t_sched = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, mode="max", patience=1)
    for m in [1, 2, 2, 2]:
        t_sched.step(m)
    assert sched.state_dict() == t_sched.state_dict()
    fresh = ember.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(ember))
    fresh.load_state_dict(t_sched.state_dict())
    assert fresh.mode == "max" and fresh.mode_worse == -math.inf and fresh.best == 2


def error_of(lib, build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            build(lib)
        except Exception as e:  # noqa: BLE001  the type and text are what is compared
            return type(e).__name__, str(e)
    return None


def step_past_total(lib):
    opt = make_optimizer(lib)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
    for _ in range(11):
        opt.step()
        sched.step()


def other_optimizer(lib, wrap):
    o1, o2 = make_optimizer(lib), make_optimizer(lib)
    s = lib.optim.lr_scheduler
    return wrap(s, o1, [s.StepLR(o1, 2), s.ExponentialLR(o2, 0.9)])


def s(lib):
    return lib.optim.lr_scheduler


def too_many_milestones(lib):
    o = make_optimizer(lib)
    return s(lib).SequentialLR(o, [s(lib).StepLR(o, 2), s(lib).StepLR(o, 3)], milestones=[2, 4])


ERRORS = {
    "OneCycleLR past total_steps": step_past_total,
    "OneCycleLR no length": lambda lib: s(lib).OneCycleLR(make_optimizer(lib), 0.1),
    "OneCycleLR total_steps 0": lambda lib: s(lib).OneCycleLR(make_optimizer(lib), 0.1, 0),
    "OneCycleLR epochs float": lambda lib: s(lib).OneCycleLR(make_optimizer(lib), 0.1,
                                                             epochs=2.0, steps_per_epoch=3),
    "OneCycleLR steps_per_epoch": lambda lib: s(lib).OneCycleLR(make_optimizer(lib), 0.1,
                                                                epochs=2, steps_per_epoch=-1),
    "OneCycleLR pct_start": lambda lib: s(lib).OneCycleLR(make_optimizer(lib), 0.1, 10,
                                                          pct_start=1.5),
    "OneCycleLR anneal": lambda lib: s(lib).OneCycleLR(make_optimizer(lib), 0.1, 10,
                                                       anneal_strategy="step"),
    "OneCycleLR max_lr list": lambda lib: s(lib).OneCycleLR(make_optimizer(lib), [0.1], 10),
    "OneCycleLR no momentum": lambda lib: s(lib).OneCycleLR(
        lib.optim.LBFGS([lib.nn.Parameter(lib.zeros(1))]), 0.1, 10),
    "CyclicLR mode": lambda lib: s(lib).CyclicLR(make_optimizer(lib), 0.1, 1.0, mode="tri"),
    "CyclicLR no momentum": lambda lib: s(lib).CyclicLR(make_optimizer(lib, "Adam"), 0.1, 1.0),
    "CyclicLR base_lr list": lambda lib: s(lib).CyclicLR(make_optimizer(lib), [0.1] * 3, 1.0),
    "WarmRestarts T_0": lambda lib: s(lib).CosineAnnealingWarmRestarts(make_optimizer(lib), 0),
    "WarmRestarts T_0 float": lambda lib: s(lib).CosineAnnealingWarmRestarts(
        make_optimizer(lib), 2.0),
    "WarmRestarts T_mult": lambda lib: s(lib).CosineAnnealingWarmRestarts(
        make_optimizer(lib), 2, T_mult=0),
    "WarmRestarts epoch": lambda lib: s(lib).CosineAnnealingWarmRestarts(
        make_optimizer(lib), 2).step(-1),
    "ConstantLR factor": lambda lib: s(lib).ConstantLR(make_optimizer(lib), factor=2),
    "LinearLR start": lambda lib: s(lib).LinearLR(make_optimizer(lib), start_factor=-0.1),
    "LinearLR end": lambda lib: s(lib).LinearLR(make_optimizer(lib), end_factor=1.5),
    "LambdaLR count": lambda lib: s(lib).LambdaLR(make_optimizer(lib), [lambda e: 1.0]),
    "MultiplicativeLR count": lambda lib: s(lib).MultiplicativeLR(make_optimizer(lib),
                                                                  (lambda e: 1.0,) * 3),
    "StepLR not optimizer": lambda lib: s(lib).StepLR(object(), 2),
    "resume without initial_lr": lambda lib: s(lib).StepLR(make_optimizer(lib), 2,
                                                           last_epoch=4),
    "SequentialLR milestones": lambda lib: too_many_milestones(lib),
    "SequentialLR optimizer": lambda lib: other_optimizer(
        lib, lambda s, o, ss: s.SequentialLR(o, ss, [3])),
    "ChainedScheduler optimizer": lambda lib: other_optimizer(
        lib, lambda s, o, ss: s.ChainedScheduler(ss)),
    "ReduceLROnPlateau factor": lambda lib: s(lib).ReduceLROnPlateau(make_optimizer(lib),
                                                                     factor=1.0),
    "ReduceLROnPlateau mode": lambda lib: s(lib).ReduceLROnPlateau(make_optimizer(lib),
                                                                   mode="lowest"),
    "ReduceLROnPlateau threshold_mode": lambda lib: s(lib).ReduceLROnPlateau(
        make_optimizer(lib), threshold_mode="pct"),
    "ReduceLROnPlateau min_lr": lambda lib: s(lib).ReduceLROnPlateau(make_optimizer(lib),
                                                                     min_lr=[0.1]),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    ours, theirs = error_of(ember, ERRORS[name]), error_of(torch, ERRORS[name])
    assert theirs is not None
    assert ours == theirs


def caught_warnings(lib, body):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body(lib)
    return [(w.category.__name__, str(w.message)) for w in caught]


def scheduler_before_optimizer(lib):
    opt = make_optimizer(lib)
    sched = lib.optim.lr_scheduler.StepLR(opt, 2)
    sched.step()
    opt.step()


def get_lr_outside_step(lib):
    opt = make_optimizer(lib)
    lib.optim.lr_scheduler.ExponentialLR(opt, 0.5).get_lr()


def optimizer_step_replaced(lib):
    opt = make_optimizer(lib)
    sched = lib.optim.lr_scheduler.StepLR(opt, 2)
    opt.step = lambda closure=None: None
    opt.step()
    sched.step()


def in_order(lib):
    opt = make_optimizer(lib)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=5)
    for _ in range(5):
        opt.step()
        sched.step()


@pytest.mark.parametrize("body", [scheduler_before_optimizer, get_lr_outside_step,
                                  optimizer_step_replaced, in_order],
                         ids=lambda f: f.__name__)
def test_warnings_match_torch(body):
    assert caught_warnings(ember, body) == caught_warnings(torch, body)


def test_all_names_of_torch_are_there():
    for name in torch.optim.lr_scheduler.__all__:
        assert name in ember.optim.lr_scheduler.__all__
        assert hasattr(ember.optim.lr_scheduler, name), name


def printed(lib, body, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body(lib)
    return capsys.readouterr().out


def verbose_schedules(lib):
    opt = make_optimizer(lib)
    s = lib.optim.lr_scheduler
    sched = s.StepLR(opt, step_size=2, gamma=0.5, verbose=True)
    for _ in range(3):
        opt.step()
        sched.step()
    sched.step(7)
    sched.step(2.5)
    plateau = s.ReduceLROnPlateau(opt, patience=0, verbose=True)
    for m in [1.0, 2.0, 3.0]:
        plateau.step(m)
    warm = s.CosineAnnealingWarmRestarts(opt, T_0=3, verbose=True)
    warm.step()
    warm.step(1.5)


def test_verbose_prints_as_torch(capsys):
    theirs = printed(torch, verbose_schedules, capsys)
    assert "adjusting learning rate" in theirs
    assert printed(ember, verbose_schedules, capsys) == theirs
