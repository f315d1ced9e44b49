"""ember.nn: Module and the layers, Parameter, functional and init, as torch.nn (pure Python over
the C++ kernels of ember._C._nn)."""
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import functional, init, utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import attention  # noqa: F401
