"""ember.cpu.amp: PyTorch 1.13's torch.cpu.amp spelling of ember.autocast("cpu")."""
from ...amp import autocast_mode as _mode
from ... import _C


class autocast(_mode.autocast):
    """autocast(enabled=True, dtype=ember.bfloat16, cache_enabled=True) on the CPU."""

    def __init__(self, enabled=True, dtype=_C.bfloat16, cache_enabled=True):
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
