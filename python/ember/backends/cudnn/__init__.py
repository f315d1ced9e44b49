"""ember.backends.cudnn: PyTorch's cuDNN switches, read by the CUDA convolutions (which go through
cuDNN where the build has it: every GPU build that found it, and the simulator's shim; elsewhere
they are im2col + cuBLAS and is_available() is False)."""
from contextlib import contextmanager

from ..._C import _backends as _b
from .._flag_module import flag, install


def is_available():
    return _b.cudnn_is_available()


def version():
    """cuDNN's version as an int, or None where cuDNN is not available (as PyTorch)."""
    v = _b.cudnn_version()
    return None if v < 0 else v


def is_acceptable(tensor):
    """Whether cuDNN would take `tensor` (a float CUDA tensor while cuDNN is enabled)."""
    return (_b.cudnn_enabled() and tensor.is_cuda and is_available()
            and tensor.dtype.is_floating_point)


_FLAGS = ("enabled", "benchmark", "deterministic", "allow_tf32")


@contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
    """Sets the four flags for the duration of the block (PyTorch's defaults for its arguments),
    then restores the previous values."""
    import sys
    module = sys.modules[__name__]
    saved = {name: getattr(module, name) for name in _FLAGS}
    values = dict(enabled=enabled, benchmark=benchmark, deterministic=deterministic,
                  allow_tf32=allow_tf32)
    try:
        for name, value in values.items():
            setattr(module, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


install(__name__, {
    "enabled": flag(_b.cudnn_enabled, _b.set_cudnn_enabled),
    "benchmark": flag(_b.cudnn_benchmark, _b.set_cudnn_benchmark),
    "deterministic": flag(_b.cudnn_deterministic, _b.set_cudnn_deterministic),
    "allow_tf32": flag(_b.cudnn_allow_tf32, _b.set_cudnn_allow_tf32),
})
