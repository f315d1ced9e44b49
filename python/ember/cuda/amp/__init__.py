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
