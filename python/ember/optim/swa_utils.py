"""optim.swa_utils: weight averaging (stochastic weight averaging, and an EMA through avg_fn),
the SWA learning-rate schedule, and recomputing BatchNorm statistics for averaged weights;
PyTorch 1.13's AveragedModel, SWALR and update_bn."""
import itertools
import math
from copy import deepcopy

from .. import _C
from ..autograd import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from .lr_scheduler import _LRScheduler

__all__ = ["AveragedModel", "update_bn", "SWALR"]


def _equal_average(averaged_param, model_param, num_averaged):
    return averaged_param + (model_param - averaged_param) / (num_averaged + 1)


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers, with use_buffers=True) are running
    averages of `model`'s, updated by update_parameters(model). avg_fn(averaged, current,
    n_averaged) gives the new average; the default weighs every update equally, e.g.
    `lambda avg, p, n: 0.9 * avg + 0.1 * p` is an exponential moving average. The first update
    copies `model`'s values."""

    def __init__(self, model, device=None, avg_fn=None, use_buffers=False):
        super().__init__()
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.zeros((), dtype=_C.long, device=device))
        self.avg_fn = _equal_average if avg_fn is None else avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        if self.use_buffers:
            averaged = itertools.chain(self.module.parameters(), self.module.buffers())
            current = itertools.chain(model.parameters(), model.buffers())
        else:
            # self.parameters() is self.module's: n_averaged is a buffer, not a parameter.
            averaged, current = self.parameters(), model.parameters()
        first = int(self.n_averaged.item()) == 0
        for p_avg, p_model in zip(averaged, current):
            device = p_avg.device
            value = p_model.detach().to(device)
            if first:
                p_avg.detach().copy_(value)
            else:
                p_avg.detach().copy_(self.avg_fn(p_avg.detach(), value,
                                                 self.n_averaged.to(device)))
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    """Recomputes every BatchNorm's running_mean and running_var in `model` as the plain
    average over one pass of `loader` (batches are tensors, or lists/tuples whose first element
    is the input)."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.running_mean = _C.zeros_like(module.running_mean)
                module.running_var = _C.ones_like(module.running_var)
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            # momentum None: a cumulative average over the batches seen.
            module.momentum = None
            module.num_batches_tracked *= 0
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(_LRScheduler):
    """Anneals each group's lr to swa_lr over anneal_epochs ('cos' or 'linear'), then holds
    it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = self._format_param(optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', "
                             f"instead got {anneal_strategy}")
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _format_param(optimizer, swa_lrs):
        if isinstance(swa_lrs, (list, tuple)):
            if len(swa_lrs) != len(optimizer.param_groups):
                raise ValueError("swa_lr must have the same length as optimizer.param_groups: "
                                 f"swa_lr has {len(swa_lrs)}, optimizer.param_groups has "
                                 f"{len(optimizer.param_groups)}")
            return swa_lrs
        return [swa_lrs] * len(optimizer.param_groups)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # The lr the annealing started from, recovered from the current lr at progress alpha.
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        self._warn_if_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        starts = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                  for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, starts)]
