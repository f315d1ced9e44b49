"""ember.nn.attention: PyTorch 2.x's torch.nn.attention, the choice of the backend of
F.scaled_dot_product_attention.

    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    backend, refused = last_choice()   # MATH, and why the backends tried before it said no
"""
import contextlib

from ..._C import _nn

SDPBackend = _nn.SDPBackend

__all__ = ["SDPBackend", "sdpa_kernel", "last_choice", "enabled_backends"]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Allows only `backends` (one SDPBackend or a list) for scaled_dot_product_attention on this
    thread inside the block; nested blocks restore the outer choice. `set_priority` is accepted
    for PyTorch's signature; the order of trial is Ember's (the fused kernel first)."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    else:
        backends = list(backends)
    assert all(isinstance(b, SDPBackend) for b in backends), \
        "Backend must be an instance of SDPBackend"
    guard = _nn._SdpaKernelGuard(backends)
    try:
        yield {}
    finally:
        guard.close()


def enabled_backends():
    """The backends scaled_dot_product_attention may use now on this thread, in trial order."""
    return list(_nn._sdpa_enabled_backends())


def last_choice():
    """(backend, reasons): the backend of this thread's last scaled_dot_product_attention call
    and, for each backend tried before it, why it refused ("FLASH_ATTENTION: ...")."""
    backend, refused = _nn._sdpa_last_choice()
    return backend, list(refused)
