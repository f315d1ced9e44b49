"""ember.autograd: gradient mode switches (context managers and decorators), inference_mode,
backward/grad, and the Python Function (ember/_function.py)."""
import functools
import threading

from .. import _C

is_grad_enabled = _C.is_grad_enabled


class _GradMode:
    """Sets the grad mode inside a `with` block or a decorated function, then restores it."""

    _enabled = True

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):
    _enabled = False


class enable_grad(_GradMode):
    _enabled = True


class set_grad_enabled(_GradMode):
    """Switches the mode at once (as a call) and restores it when used as a context manager."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled() expects a bool, got {type(mode).__name__}")
        self._prev = _C.is_grad_enabled()
        self._enabled = mode
        _C._set_grad_enabled(mode)

    def __enter__(self):
        return None

    def __call__(self, func):
        _C._set_grad_enabled(self._prev)
        mode = self._enabled

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper


def _as_list(x):
    if x is None:
        return []
    return [x] if isinstance(x, _C.Tensor) else list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False):
    _C._backward(_as_list(tensors), _as_list(grad_tensors), retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    return _C._grad(_as_list(outputs), _as_list(inputs), _as_list(grad_outputs), retain_graph,
                    create_graph, allow_unused)


# ---- inference mode ----
# Ember has no inference tensors: inference_mode turns recording off, as no_grad does, and
# is_inference_mode_enabled() reports the block (per thread).
_inference = threading.local()


def is_inference_mode_enabled():
    return getattr(_inference, "on", False)


class inference_mode:
    """Context manager and decorator: no recording inside; inference_mode(False) leaves the
    grad mode as it is and reports the block as outside inference mode."""

    def __init__(self, mode=True):
        if not isinstance(mode, bool):
            raise TypeError(f"inference_mode() expects a bool, got {type(mode).__name__}")
        self.mode = mode

    def __enter__(self):
        self._prev = (_C.is_grad_enabled(), is_inference_mode_enabled())
        if self.mode:
            _C._set_grad_enabled(False)
        _inference.on = self.mode
        return None

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev[0])
        _inference.on = self._prev[1]
        return False

    def __call__(self, func):
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)

        return wrapper


from .._function import Function, FunctionCtx, once_differentiable  # noqa: E402,F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401
from . import functional  # noqa: E402,F401
from .variable import Variable  # noqa: E402,F401
