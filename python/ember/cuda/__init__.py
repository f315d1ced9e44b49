"""ember.cuda: torch.cuda's calls for devices, properties, synchronization and memory, amp, and
the doctor (the sync debug mode and the transfer audit), and RawKernel (CuPy's spelling)."""
from .._C import OutOfMemoryError  # noqa: F401  a RuntimeError, as torch.cuda's
from .._C._cuda import (  # noqa: F401
    _CudaDeviceProperties, current_device, device_count, empty_cache, get_device_name,
    get_device_properties, is_available, is_simulated, manual_seed, manual_seed_all,
    max_memory_allocated, max_memory_reserved, memory_allocated, memory_reserved, memory_summary,
    reset_peak_memory_stats, set_device, synchronize, set_sync_debug_mode, get_sync_debug_mode)
from .streams import (  # noqa: F401,E402
    Event, Stream, StreamContext, current_stream, default_stream, device, device_of, set_stream,
    stream)
from ._audit import TransferAudit, transfer_audit  # noqa: F401,E402
from ._raw_kernel import RawKernel  # noqa: F401,E402
from . import amp  # noqa: F401,E402
from .random import (  # noqa: F401,E402
    get_rng_state, get_rng_state_all, initial_seed, set_rng_state, set_rng_state_all)
from .memory import (  # noqa: F401,E402
    max_memory_cached, mem_get_info, memory_cached, memory_stats, memory_stats_as_nested_dict,
    reset_max_memory_allocated, reset_max_memory_cached, set_per_process_memory_fraction)
from ._device_queries import (  # noqa: F401,E402
    CudaError, DeferredCudaCallError, check_error, get_device_capability, has_half, has_magma,
    init, is_bf16_supported, is_current_stream_capturing, is_initialized, seed, seed_all)
