"""ember.cuda.amp: PyTorch 1.13's torch.cuda.amp spelling of ember.amp."""
from ...amp import autocast_mode as _mode
from ...amp import grad_scaler as _scaler
from ... import _C


class autocast(_mode.autocast):
    """autocast(enabled=True, dtype=ember.float16, cache_enabled=True) on CUDA."""

    def __init__(self, enabled=True, dtype=_C.float16, cache_enabled=True):
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_scaler.GradScaler):
    """GradScaler(init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True) on CUDA; disabled (with a warning) without a device."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)

    def _warning_name(self):
        return "ember.cuda.amp.GradScaler"


def _cast_floating_cuda(value, dtype):
    """`value` with its floating CUDA tensors cast to `dtype`, through lists, tuples and dicts."""
    if isinstance(value, _C.Tensor):
        if value.is_cuda and value.is_floating_point():
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_floating_cuda(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast_floating_cuda(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Decorates the forward of a custom autograd.Function. Without cast_inputs the forward runs
    in the caller's autocast state, which custom_bwd restores for the backward; with it, inside an
    autocast region the floating CUDA arguments are cast to cast_inputs and the forward runs with
    autocast off."""
    import functools
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        if cast_inputs is None:
            ctx._fwd_used_autocast = _mode.is_autocast_enabled()
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not _mode.is_autocast_enabled():
            return fwd(*args, **kwargs)
        with autocast(enabled=False):
            return fwd(*_cast_floating_cuda(args, cast_inputs),
                       **_cast_floating_cuda(kwargs, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd):
    """Decorates the backward of a custom autograd.Function: it runs in the autocast state its
    forward (decorated with custom_fwd) ran in."""
    import functools

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(enabled=args[0]._fwd_used_autocast):
            return bwd(*args, **kwargs)

    return decorate_bwd
