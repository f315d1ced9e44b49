"""Ember from Python: a PyTorch program runs after every word `torch` becomes `ember`.

The tensor, its ops and the device calls are compiled (ember._C, python/src); this package adds
what PyTorch itself writes in Python (docs/python.md).
"""
from . import _C
from ._C import *  # noqa: F401,F403  Tensor, dtypes, device, the ops and factories
from ._C import Tensor, device, dtype  # noqa: F401
from ._size import Size
from .return_types import _make_values_indices
from .autograd import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401
from .autograd import inference_mode, is_inference_mode_enabled  # noqa: F401
from . import _hooks  # noqa: F401  Tensor.register_hook
from . import _composites  # noqa: F401  Tensor.new_zeros, new_ones, new_empty, new_full, new_tensor
from . import _tensor_deepcopy  # noqa: F401  Tensor.__deepcopy__
from ._aliases import *  # noqa: F401,F403  multiply, greater_equal, clamp_min, ... (PyTorch's)
from . import _aliases as _alias_names
from ._tensor_ctor import tensor, as_tensor  # noqa: F401
from ._generator import Generator  # noqa: F401
from .serialization import save, load  # noqa: F401
from .utils.dlpack import from_dlpack  # noqa: F401
from . import autograd, cuda, return_types, utils  # noqa: F401
from . import nn, optim  # noqa: F401
from . import amp, cpu, profiler  # noqa: F401
from . import distributed  # noqa: F401
from . import backends  # noqa: F401
from . import linalg  # noqa: F401
from .linalg import _qr as qr, _svd as svd  # noqa: F401  torch.qr, torch.svd
Tensor.qr = linalg._qr
Tensor.svd = linalg._svd
from ._C._backends import (  # noqa: F401
    use_deterministic_algorithms, are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled)
from .autograd import profiler as _autograd_profiler  # noqa: F401  ember.autograd.profiler
from .amp.autocast_mode import (  # noqa: F401
    autocast, clear_autocast_cache, get_autocast_cpu_dtype, get_autocast_gpu_dtype,
    is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled,
    set_autocast_cache_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
    set_autocast_enabled, set_autocast_gpu_dtype)
from ._C._amp import (  # noqa: F401
    _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_)

_C._set_size_class(Size)
_C._set_return_types(_make_values_indices)

__all__ = [name for name in dir(_C) if not name.startswith("_")] + [
    "Size", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "tensor",
    "as_tensor", "autograd", "cuda", "nn", "optim", "utils", "Generator", "save", "load",
    "from_dlpack", "inference_mode", "is_inference_mode_enabled", "amp", "cpu", "profiler",
    "distributed", "autocast", "clear_autocast_cache", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
    "is_autocast_cache_enabled", "is_autocast_cpu_enabled", "is_autocast_enabled",
    "set_autocast_cache_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
    "set_autocast_enabled", "set_autocast_gpu_dtype"] + _alias_names.__all__
