"""torch.cuda's random-state calls. Ember has one Philox generator for every device (one seed gives
one stream on the CPU and on each CUDA device, docs/python.md), so each device's state is that
generator's state and setting one sets them all."""
from .. import _C
from .._C import _cuda


def _device_index(device):
    """The index torch.cuda accepts as `device` ('cuda', 'cuda:1', an int or an ember.device),
    checked against the devices present."""
    if not _cuda.is_available():
        raise RuntimeError("CUDA is not available: " + _cuda.unavailable_reason())
    if isinstance(device, str):
        device = _C.device(device)
    index = device if isinstance(device, int) else device.index
    index = _cuda.current_device() if index is None else index
    if not 0 <= index < _cuda.device_count():
        raise RuntimeError(f"Invalid device index {index}: {_cuda.device_count()} CUDA devices")
    return index


def get_rng_state(device="cuda"):
    """The generator state of `device` (a uint8 CPU tensor)."""
    _device_index(device)
    return _C.get_rng_state()


def get_rng_state_all():
    return [get_rng_state(i) for i in range(_cuda.device_count())]


def set_rng_state(new_state, device="cuda"):
    _device_index(device)
    _C.set_rng_state(new_state)


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def initial_seed():
    _device_index("cuda")
    return _C.initial_seed()
