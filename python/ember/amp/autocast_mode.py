"""ember.autocast: a region (context manager or decorator) over the C++ autocast state
(include/ember/amp/autocast.h). Which ops cast, and to what, is decided by the C++ policy table
(src/amp/policy.h) inside each op's front end, so ops called from Python follow it unchanged."""
import functools
import warnings

from .. import _C
from .._C import _amp

_DEVICE_TYPES = ("cuda", "cpu")


class autocast:
    """autocast(device_type, dtype=None, enabled=True, cache_enabled=None), as torch.autocast
    of PyTorch 1.13: "cpu" regions run in bfloat16 only (another dtype warns, then entering raises RuntimeError), "cuda" regions are switched off (with a
    warning) when no CUDA device exists."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if device_type not in _DEVICE_TYPES:
            raise RuntimeError("User specified autocast device_type must be 'cuda' or 'cpu', "
                               f"got {device_type!r}")
        if not isinstance(enabled, bool):
            raise TypeError(f"autocast: enabled must be a bool, got {type(enabled).__name__}")
        self.device = device_type
        self.fast_dtype = _amp.get_autocast_dtype(device_type) if dtype is None else dtype
        if not isinstance(self.fast_dtype, _C.dtype):
            raise TypeError(f"autocast: dtype must be an ember dtype, got {dtype!r}")
        self._cache_enabled = (_amp.is_autocast_cache_enabled() if cache_enabled is None
                               else bool(cache_enabled))
        if enabled and device_type == "cuda" and not _C._cuda.is_available():
            warnings.warn("autocast: device_type 'cuda' was given but CUDA is not available; "
                          "the region is disabled")
            enabled = False
        if enabled and device_type == "cpu" and self.fast_dtype is not _C.bfloat16:
            warnings.warn("autocast: CPU regions support ember.bfloat16 only (as PyTorch 1.13); "
                          f"got {self.fast_dtype}, the region is disabled")
            enabled = False
        if enabled and device_type == "cuda" and self.fast_dtype not in (_C.float16,
                                                                          _C.bfloat16):
            raise RuntimeError("autocast: CUDA regions run in ember.float16 or ember.bfloat16, "
                               f"got {self.fast_dtype}")
        self._enabled = enabled
        self._guards = []

    def _open(self):
        if self.device == "cpu" and self.fast_dtype is not _C.bfloat16:
            # PyTorch 1.13 warns when the region is made and refuses it when entered.
            raise RuntimeError("autocast: CPU regions support ember.bfloat16 only, got "
                               f"{self.fast_dtype}")
        # A disabled CUDA region keeps the dtype as it is (it may be one CUDA refuses).
        dtype = self.fast_dtype if self._enabled else None
        return _amp._AutocastGuard(self.device, dtype, self._enabled, self._cache_enabled)

    def __enter__(self):
        self._guards.append(self._open())
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._guards.pop().exit()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            guard = self._open()
            try:
                return func(*args, **kwargs)
            finally:
                guard.exit()
        return decorate_autocast


def is_autocast_enabled():
    return _amp.is_autocast_enabled("cuda")


def is_autocast_cpu_enabled():
    return _amp.is_autocast_enabled("cpu")


def set_autocast_enabled(enabled):
    _amp.set_autocast_enabled("cuda", enabled)


def set_autocast_cpu_enabled(enabled):
    _amp.set_autocast_enabled("cpu", enabled)


def get_autocast_gpu_dtype():
    return _amp.get_autocast_dtype("cuda")


def get_autocast_cpu_dtype():
    return _amp.get_autocast_dtype("cpu")


def set_autocast_gpu_dtype(dtype):
    _amp.set_autocast_dtype("cuda", dtype)


def set_autocast_cpu_dtype(dtype):
    if isinstance(dtype, _C.dtype) and dtype is not _C.bfloat16:
        raise RuntimeError("set_autocast_cpu_dtype: CPU autocast supports ember.bfloat16 only "
                           "(as PyTorch 1.13)")
    _amp.set_autocast_dtype("cpu", dtype)


is_autocast_cache_enabled = _amp.is_autocast_cache_enabled
set_autocast_cache_enabled = _amp.set_autocast_cache_enabled
clear_autocast_cache = _amp.clear_autocast_cache
