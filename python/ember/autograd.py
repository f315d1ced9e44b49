"""ember.autograd: gradient mode switches (context managers and decorators) and backward/grad."""
import functools

from . import _C

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
