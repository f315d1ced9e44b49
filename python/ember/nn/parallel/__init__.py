"""ember.nn.parallel: DataParallel (one process, a replica per CUDA device, Python threads) and
DistributedDataParallel (one process per device, gradients averaged by the C++ reducer), with
PyTorch's scatter, gather, replicate and parallel_apply."""
from .scatter_gather import gather, scatter, scatter_kwargs  # noqa: F401
from .replicate import replicate  # noqa: F401
from .parallel_apply import parallel_apply  # noqa: F401
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
