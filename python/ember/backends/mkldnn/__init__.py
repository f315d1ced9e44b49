"""ember.backends.mkldnn: whether Ember's CPU backend uses oneDNN (its float32 convolutions and
bfloat16 GEMMs, as PyTorch's CPU backend does). `enabled = False` sends them to the composed
im2col + OpenBLAS paths; is_available() is False in a build without oneDNN."""
from contextlib import contextmanager

from ..._C import _backends as _b
from .._flag_module import flag, install


def is_available():
    return _b.mkldnn_is_available()


@contextmanager
def flags(enabled=False):
    """Sets `enabled` for the duration of the block, then restores it (PyTorch's signature)."""
    saved = _b.mkldnn_enabled()
    _b.set_mkldnn_enabled(bool(enabled))
    try:
        yield
    finally:
        _b.set_mkldnn_enabled(saved)


install(__name__, {"enabled": flag(_b.mkldnn_enabled, _b.set_mkldnn_enabled)})
