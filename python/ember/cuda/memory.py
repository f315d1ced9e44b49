"""torch.cuda's memory calls beyond the common ones: the allocator's statistics as PyTorch lays
them out (a flat dict sorted by key, or nested at the dots), free and total device memory, the
per-process cap, and the deprecated 'cached' names, which warn as PyTorch 1.13's do."""
import collections
import warnings

from .._C import _cuda


def memory_stats(device=None):
    """The caching allocator's counters ("allocated_bytes.all.current", ...), sorted by key."""
    return collections.OrderedDict(sorted(_cuda.memory_stats(device).items()))


def memory_stats_as_nested_dict(device=None):
    nested = {}
    for key, value in _cuda.memory_stats(device).items():
        node = nested
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return nested


def mem_get_info(device=None):
    """(free, total) bytes of the device, as cudaMemGetInfo reports them."""
    return _cuda.mem_get_info(device)


def set_per_process_memory_fraction(fraction, device=None):
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _cuda.set_per_process_memory_fraction(fraction, device)


def memory_cached(device=None):
    warnings.warn("torch.cuda.memory_cached has been renamed to torch.cuda.memory_reserved",
                  FutureWarning)
    return _cuda.memory_reserved(device)


def max_memory_cached(device=None):
    warnings.warn("torch.cuda.max_memory_cached has been renamed to "
                  "torch.cuda.max_memory_reserved", FutureWarning)
    return _cuda.max_memory_reserved(device)


def reset_max_memory_allocated(device=None):
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning)
    return _cuda.reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    warnings.warn("torch.cuda.reset_max_memory_cached now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning)
    return _cuda.reset_peak_memory_stats(device)
