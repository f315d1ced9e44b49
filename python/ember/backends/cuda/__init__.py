"""ember.backends.cuda: `matmul.allow_tf32` lets float32 cuBLAS GEMMs use TF32 tensor cores (off by
default, as PyTorch since 1.12); the attention switches of PyTorch 2.x (sdp_kernel,
flash_sdp_enabled, ...) map onto ember.nn.attention's backends."""
from ..._C import _backends as _b
from ... import cuda as _cuda


def is_built():
    """Whether this Ember was built with CUDA (real or simulated devices)."""
    return _cuda.is_available() or _cuda.is_simulated()


class _MatmulSettings:
    """The object behind `ember.backends.cuda.matmul`."""

    @property
    def allow_tf32(self):
        return _b.matmul_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        _b.set_matmul_allow_tf32(bool(value))

    # Reduced-precision reductions inside float16 GEMMs: cuBLAS's default, which Ember keeps.
    allow_fp16_reduced_precision_reduction = True

    def __setattr__(self, name, value):
        if name not in ("allow_tf32", "allow_fp16_reduced_precision_reduction"):
            raise AssertionError(f"Unknown attribute {name}")
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        raise AssertionError(f"Unknown attribute {name}")


matmul = _MatmulSettings()


def _attention():
    from ...nn import attention
    return attention


def _enabled(backend):
    return backend in _attention().enabled_backends()


def flash_sdp_enabled():
    """Whether scaled_dot_product_attention may use the fused kernel on this thread now."""
    return _enabled(_attention().SDPBackend.FLASH_ATTENTION)


def math_sdp_enabled():
    return _enabled(_attention().SDPBackend.MATH)


def mem_efficient_sdp_enabled():
    """Ember has no separate memory-efficient kernel: its fused kernel never stores L x S."""
    return False


def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True):
    """PyTorch 2.0's context manager: the attention backends allowed on this thread for the block
    (ember.nn.attention.sdpa_kernel; the memory-efficient switch has nothing to choose)."""
    attention = _attention()
    chosen = []
    if enable_flash:
        chosen.append(attention.SDPBackend.FLASH_ATTENTION)
    if enable_math:
        chosen.append(attention.SDPBackend.MATH)
    return attention.sdpa_kernel(chosen)
