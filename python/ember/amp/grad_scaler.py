"""GradScaler for Python optimizers: PyTorch's per-optimizer bookkeeping (ready, unscaled,
stepped) in Python over the two C++ device ops of include/ember/amp/scaling_ops.h (one fused
unscale + inf/NaN check per device and dtype, the scale update on the device). The C++
ember::amp::GradScaler steps C++ optimizers; a Python optimizer's step() (closures, edited
param_groups, subclasses) must stay in Python, so only the kernels are shared."""
import enum
import warnings

from .. import _C
from .._C import _amp


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True), PyTorch 2's torch.amp.GradScaler. "cpu" works too (the
    kernels run on the CPU); "cuda" without a CUDA device warns and disables the scaler."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if device not in ("cuda", "cpu"):
            raise RuntimeError(f"GradScaler: device must be 'cuda' or 'cpu', got {device!r}")
        self._device = device
        if enabled and device == "cuda" and not _C._cuda.is_available():
            warnings.warn(f"{self._warning_name()} is enabled, but CUDA is not available; "
                          "disabling it")
            enabled = False
        self._enabled = bool(enabled)
        if self._enabled:
            if not growth_factor > 1.0:
                raise AssertionError("GradScaler: growth_factor must be > 1.0")
            if not backoff_factor < 1.0:
                raise AssertionError("GradScaler: backoff_factor must be < 1.0")
            self._init_scale = float(init_scale)
            self._scale = None
            self._growth_factor = float(growth_factor)
            self._backoff_factor = float(backoff_factor)
            self._growth_interval = int(growth_interval)
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def _warning_name(self):
        return "ember.amp.GradScaler"

    def _state_of(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def _check_scale_growth_tracker(self, funcname):
        if self._scale is None:
            raise AssertionError(f"GradScaler.{funcname}() found no scale: call "
                                 "scaler.scale(loss) earlier in the iteration")
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = _C.full((1,), self._init_scale, dtype=_C.float32, device=dev)
        self._growth_tracker = _C.full((1,), self._init_growth_tracker, dtype=_C.int32,
                                       device=dev)

    def scale(self, outputs):
        """outputs (a tensor, or nested lists/tuples/iterables of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _C.Tensor):
            if outputs.device.type != self._device:
                raise AssertionError(f"GradScaler({self._device!r}).scale: expected a "
                                     f"{self._device} tensor, got one on {outputs.device}")
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)
        copies = {}  # one copy of the scale per device per call

        def apply(value):
            if isinstance(value, _C.Tensor):
                if value.device.type != self._device:
                    raise AssertionError(f"GradScaler({self._device!r}).scale: expected a "
                                         f"{self._device} tensor, got one on {value.device}")
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(value.device)
                if value.device not in copies:
                    copies[value.device] = self._scale.to(device=value.device,
                                                          non_blocking=True)
                return value * copies[value.device]
            if isinstance(value, (list, tuple)):
                return type(value)(apply(v) for v in value)
            if hasattr(value, "__iter__") and not isinstance(value, (str, bytes)):
                return map(apply, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        per_device = {}  # device -> dtype -> grads
        for group in optimizer.param_groups:
            for param in group["params"]:
                grad = param.grad
                if grad is None:
                    continue
                if not allow_fp16 and grad.dtype is _C.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                per_device.setdefault(grad.device, {}).setdefault(grad.dtype, []).append(grad)
        found = {}
        for dev, by_dtype in per_device.items():
            found_here = found_inf.to(device=dev, copy=True)
            inv_here = inv_scale.to(device=dev)
            for grads in by_dtype.values():
                _amp._amp_foreach_non_finite_check_and_unscale_(grads, found_here, inv_here)
            found[dev] = found_here
        return found

    def unscale_(self, optimizer):
        """Divides optimizer's gradients by the scale, once per iteration, before step()."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._state_of(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = (1.0 / self._scale.double()).float()
        found_inf = _C.full((1,), 0.0, dtype=_C.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) unless a gradient was inf or NaN; returns its result
        (None when skipped). A closure is refused while the scaler is enabled, as in PyTorch."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        state = self._state_of(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Backs the scale off after an inf/NaN step, grows it after growth_interval clean
        ones, or sets it to new_scale (a float or a 1-element float32 tensor)."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element float32 tensor with "
                          "requires_grad=False.")
                if not isinstance(new_scale, _C.Tensor):
                    raise AssertionError(reason)
                if new_scale.numel() != 1 or new_scale.requires_grad or \
                        new_scale.dtype is not _C.float32:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [found.to(device=scale.device, non_blocking=True)
                          for state in self._per_optimizer_states.values()
                          for found in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            combined = found_infs[0]
            for f in found_infs[1:]:
                combined = combined + f
            _amp._amp_update_scale_(scale, tracker, combined, self._growth_factor,
                                    self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = {}

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker as Python
        numbers; {} when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)
