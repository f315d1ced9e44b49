"""optim.lr_scheduler: PyTorch 1.13's fifteen schedulers, with its signatures, recurrences,
warnings and errors, so printed rates agree to the last digit.

The recurrences live here in Python, over the optimizer's param_groups dicts, rather than in the
C++ schedulers (include/ember/optim/*_lr.h): PyTorch lets a script edit group['lr'] (and
'momentum', 'betas', 'initial_lr', 'max_lr', ...) between steps, the chainable forms read those
edits back, and state_dict() is the scheduler's __dict__. The C++ schedulers follow the same
formulas; tests compare both against PyTorch."""
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import wraps

from .optimizer import Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_GET_LR_OUTSIDE_STEP = ("To get the last learning rate computed by the scheduler, "
                        "please use `get_last_lr()`.")


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _group_lrs(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


def _per_group(name, optimizer, value):
    """A scalar for every group, or a list/tuple with one value per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"expected {len(optimizer.param_groups)} values for {name}, "
                             f"got {len(value)}")
        return value
    return [value] * len(optimizer.param_groups)


def _count_optimizer_steps(optimizer):
    """Wraps optimizer.step so that it counts its calls (optimizer._step_count): step() uses the
    count to warn when the scheduler is stepped before the optimizer, as PyTorch does."""
    method = optimizer.step
    if getattr(method, "_with_counter", False):
        return
    owner = weakref.ref(method.__self__)
    func = method.__func__

    @wraps(func)
    def counted(*args, **kwargs):
        instance = owner()
        instance._step_count += 1
        return func(instance, *args, **kwargs)

    counted._with_counter = True
    optimizer.step = counted


class _InsideStep:
    """Marks get_lr() calls made by step(); others warn to use get_last_lr()."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def __enter__(self):
        self.scheduler._get_lr_called_within_step = True

    def __exit__(self, *exc):
        self.scheduler._get_lr_called_within_step = False


class _LRScheduler:
    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming an optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _count_optimizer_steps(optimizer)
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        # PyTorch counts the constructor as the first step (epoch 0).
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def _warn_if_outside_step(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn(_GET_LR_OUTSIDE_STEP, UserWarning)

    def print_lr(self, is_verbose, group, lr, epoch=None):
        if not is_verbose:
            return
        if epoch is None:
            print(f"Adjusting learning rate of group {group} to {lr:.4e}.")
        else:
            epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
            print(f"Epoch {epoch_str}: adjusting learning rate of group {group} to {lr:.4e}.")

    def _warn_on_step_order(self):
        if not hasattr(self.optimizer.step, "_with_counter"):
            warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate "
                          "scheduler initialization. Please, make sure to call "
                          "`optimizer.step()` before `lr_scheduler.step()`. See more details at "
                          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                          UserWarning)
        elif self.optimizer._step_count < 1:
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                          "In PyTorch 1.1.0 and later, you should call them in the opposite "
                          "order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to "
                          "do this will result in PyTorch skipping the first value of the "
                          "learning rate schedule. See more details at "
                          "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                          UserWarning)

    def step(self, epoch=None):
        if self._step_count == 1:
            self._warn_on_step_order()
        self._step_count += 1
        with _InsideStep(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = _group_lrs(self.optimizer)


# PyTorch 2.0's public name for the base class.
LRScheduler = _LRScheduler


class _LambdaScheduler(_LRScheduler):
    """LambdaLR and MultiplicativeLR: one function per group; state_dict keeps the __dict__ of
    callable objects (plain functions and lambdas are saved as None)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch, verbose)

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas  # leave the caller's dict as it was
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = initial_lr * lr_lambda(epoch)."""

    def get_lr(self):
        self._warn_if_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """lr *= lr_lambda(epoch) at every epoch after the first."""

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch > 0:
            return [group["lr"] * fn(self.last_epoch)
                    for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return _group_lrs(self.optimizer)


class StepLR(_LRScheduler):
    """lr *= gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_lrs(self.optimizer)
        return [lr * self.gamma for lr in _group_lrs(self.optimizer)]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(_LRScheduler):
    """lr *= gamma at each milestone (a milestone listed k times multiplies by gamma^k)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return _group_lrs(self.optimizer)
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in _group_lrs(self.optimizer)]

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ConstantLR(_LRScheduler):
    """lr = initial_lr * factor for the first total_iters epochs, then initial_lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        lrs = _group_lrs(self.optimizer)
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr * (1.0 / self.factor) for lr in lrs]

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(_LRScheduler):
    """The factor on initial_lr moves linearly from start_factor to end_factor over
    total_iters epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1, verbose=False):
        if start_factor > 1.0 or start_factor < 0:
            raise ValueError("Starting multiplicative factor expected to be between 0 and 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        lrs = _group_lrs(self.optimizer)
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if self.last_epoch > self.total_iters:
            return lrs
        # The ratio of this epoch's factor to the previous one's.
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor +
                               (self.last_epoch - 1) * delta)
        return [lr * ratio for lr in lrs]

    def _get_closed_form_lr(self):
        progress = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * progress)
                for base in self.base_lrs]


class ExponentialLR(_LRScheduler):
    """lr *= gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return _group_lrs(self.optimizer)
        return [lr * self.gamma for lr in _group_lrs(self.optimizer)]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(_LRScheduler):
    """lr = initial_lr * (1 - epoch / total_iters)^power, then constant after total_iters."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        lrs = _group_lrs(self.optimizer)
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return lrs
        t, n = self.last_epoch, self.total_iters
        decay = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [lr * decay for lr in lrs]

    def _get_closed_form_lr(self):
        progress = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (1.0 - progress) ** self.power for base in self.base_lrs]


class CosineAnnealingLR(_LRScheduler):
    """eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, in its chainable
    (recursive) form, which keeps oscillating past T_max."""

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        t, T, lo = self.last_epoch, self.T_max, self.eta_min
        lrs = _group_lrs(self.optimizer)
        if t == 0:
            return lrs
        if self._step_count == 1 and t > 0:
            # Resumed with last_epoch > 0: no previous lr to recur from.
            return [lo + (base - lo) * (1 + math.cos(t * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            # Leaving the minimum, where the ratio below would divide by zero.
            return [lr + (base - lo) * (1 - math.cos(math.pi / T)) / 2
                    for base, lr in zip(self.base_lrs, lrs)]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (lr - lo) + lo for lr in lrs]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) *
                (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class _SchedulerList(_LRScheduler):
    """SequentialLR and ChainedScheduler: state_dict holds each wrapped scheduler's state."""

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        saved = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = saved
        for scheduler, state in zip(self._schedulers, saved):
            scheduler.load_state_dict(state)


class SequentialLR(_SchedulerList):
    """schedulers[i] drives the lr from milestones[i - 1] on; each starts from epoch 0 (its
    closed form) when its milestone is reached."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        for i, scheduler in enumerate(schedulers):
            if scheduler.optimizer is not optimizer:
                raise ValueError(
                    "Sequential Schedulers expects all schedulers to belong to the same "
                    f"optimizer, but got schedulers at index {i} to be different than the "
                    "optimizer passed in.")
            if scheduler.optimizer is not schedulers[0].optimizer:
                raise ValueError(
                    "Sequential Schedulers expects all schedulers to belong to the same "
                    f"optimizer, but got schedulers at index 0 and {i} to be different.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # The wrapped schedulers' constructors each took a step: undo them, then start only
        # the first one from the initial lrs.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in schedulers:
            scheduler.last_epoch -= 1
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_SchedulerList):
    """Steps every scheduler in turn, so their (chainable) changes compound."""

    def __init__(self, schedulers):
        for i in range(1, len(schedulers)):
            if schedulers[i].optimizer is not schedulers[0].optimizer:
                raise ValueError(
                    "ChainedScheduler expects all schedulers to belong to the same optimizer, "
                    f"but got schedulers at index 0 and {i} to be different")
        self._schedulers = list(schedulers)
        self.optimizer = schedulers[0].optimizer
        self._last_lr = _group_lrs(self._schedulers[-1].optimizer)

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_lrs(self._schedulers[-1].optimizer)


class ReduceLROnPlateau:
    """lr = max(lr * factor, min_lr) once the metric has not improved for more than `patience`
    steps, then `cooldown` steps without counting."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.min_lrs = list(min_lr)
        else:
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.eps = eps
        self.last_epoch = 0
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        if self.mode == "min":
            if self.threshold_mode == "rel":
                return a < best * (1.0 - self.threshold)
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics, epoch=None):
        current = float(metrics)  # a 0-dim tensor as well as a number
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_lrs(self.optimizer)

    def _reduce_lr(self, epoch):
        for i, (group, min_lr) in enumerate(zip(self.optimizer.param_groups, self.min_lrs)):
            old = float(group["lr"])
            new = max(old * self.factor, min_lr)
            if old - new > self.eps:
                group["lr"] = new
                if self.verbose:
                    epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                    print(f"Epoch {epoch_str}: reducing learning rate of group {i} to "
                          f"{new:.4e}.")

    def get_last_lr(self):
        return self._last_lr

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


class CyclicLR(_LRScheduler):
    """Triangular cycles between base_lr and max_lr (step_size_up iterations up,
    step_size_down down), amplitude scaled per mode or by scale_fn; momentum cycles inversely
    between max_momentum and base_momentum."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1,
                 verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        else:
            self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum with `cycle_momentum` option "
                                 "enabled")
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for momentum, group in zip(base_momentums, optimizer.param_groups):
                    group["momentum"] = momentum
            self.base_momentums = [group["momentum"] for group in optimizer.param_groups]
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x  # exp_range

    def get_lr(self):
        """The lrs at batch last_epoch; with cycle_momentum, also sets each group's momentum."""
        self._warn_if_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base + (top - base) * scale_factor * scale
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                group["momentum"] = high - (high - low) * scale_factor * scale
        return lrs


class CosineAnnealingWarmRestarts(_LRScheduler):
    """Cosine annealing from initial_lr to eta_min over T_i epochs, restarting with
    T_i *= T_mult (SGDR)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_if_outside_step()
        phase = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * phase for base in self.base_lrs]

    def step(self, epoch=None):
        """Also takes a fractional epoch (e.g. epoch + batch / batches) for per-batch steps."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    # The restart n with T_0 * (T_mult^n - 1) / (T_mult - 1) <= epoch.
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _InsideStep(self):
            for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, self.get_lr())):
                group["lr"] = lr
                self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = _group_lrs(self.optimizer)


class OneCycleLR(_LRScheduler):
    """The 1cycle policy: lr from max_lr / div_factor up to max_lr over pct_start of
    total_steps, then down to initial_lr / final_div_factor (three_phase: back to initial_lr
    first); momentum (or Adam's beta1) cycles inversely."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is None and epochs is None and steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        else:
            if epochs <= 0 or not isinstance(epochs, int):
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if steps_per_epoch <= 0 or not isinstance(steps_per_epoch, int):
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        up_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                self._phase(up_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                self._phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                            "base_momentum", "max_momentum"),
                self._phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum",
                            "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                self._phase(up_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                self._phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum",
                            "max_momentum"),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self.anneal_func = (self._annealing_cos if anneal_strategy == "cos"
                            else self._annealing_linear)
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum with `cycle_momentum` option "
                                 "enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            highs = _per_group("max_momentum", optimizer, max_momentum)
            lows = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for high, low, group in zip(highs, lows, optimizer.param_groups):
                    self._set_momentum(group, high)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch, verbose)

    @staticmethod
    def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
        # Each phase names the group keys its ends are read from.
        return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
                "start_momentum": start_momentum, "end_momentum": end_momentum}

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    @staticmethod
    def _annealing_cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_if_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step + 1} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step <= end_step or i == last:
                    pct = (step - start_step) / (end_step - start_step)
                    lr = self.anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self.anneal_func(group[phase["start_momentum"]],
                                                    group[phase["end_momentum"]], pct)
                    break
                start_step = end_step
            lrs.append(lr)
            if self.cycle_momentum:
                self._set_momentum(group, momentum)
        return lrs
