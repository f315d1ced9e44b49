"""Tensor.register_hook (the compiled half is python/src/hooks.cpp) and its handle."""
from . import _C


class RemovableHandle:
    """What register_hook returns: remove() unregisters the hook (again: nothing)."""

    def __init__(self, tensor, hook_id):
        self._tensor = tensor
        self.id = hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self.id)
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


def register_hook(self, hook):
    """hook(grad) runs when the gradient of this tensor is computed; a tensor it returns
    replaces the gradient."""
    if not callable(hook):
        raise TypeError(f"register_hook expects a callable, got {type(hook).__name__}")
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    return RemovableHandle(self, self._register_hook(hook))


_C.Tensor.register_hook = register_hook
