"""torch.cuda's questions about the devices and the runtime: capability, bfloat16 support,
initialisation, seeding. Ember opens the CUDA runtime when it first lists the devices, so a build
with devices is initialised once is_available() has answered True."""
import random

from .. import _C
from .._C import _cuda


def is_initialized():
    return _cuda.is_available()


def init():
    """Opens CUDA now (PyTorch's lazy init); without a device, the error of every CUDA call."""
    if not _cuda.is_available():
        raise RuntimeError("CUDA is not available: " + _cuda.unavailable_reason())


def get_device_capability(device=None):
    """(major, minor) compute capability of the device."""
    props = _cuda.get_device_properties(_cuda.current_device() if device is None else device)
    return props.major, props.minor


def is_bf16_supported():
    """Whether bfloat16 runs natively: Ampere (8.0) or newer, as PyTorch 1.13 answers."""
    return _cuda.is_available() and get_device_capability(_cuda.current_device())[0] >= 8


def seed():
    """Seeds the generator with a random number (one generator for every device)."""
    init()
    _C.manual_seed(random.SystemRandom().getrandbits(63))


def seed_all():
    seed()


# Capability flags PyTorch exports: half precision is always there; MAGMA is not used by Ember.
has_half = True
has_magma = False


class CudaError(RuntimeError):
    """An error code of the CUDA runtime, with cudaGetErrorString's text where Ember knows it."""

    def __init__(self, code):
        self.code = code
        super().__init__(f"CUDA error {code}")


class DeferredCudaCallError(Exception):
    pass


def check_error(res):
    """Raises CudaError for a nonzero CUDA runtime status."""
    if res != 0:
        raise CudaError(res)


def is_current_stream_capturing():
    """Ember has no CUDA graph capture yet, so no stream is ever capturing."""
    return False
