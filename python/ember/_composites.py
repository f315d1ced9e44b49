"""The Tensor methods `new_zeros`, `new_ones`, `new_empty`, `new_full` and `new_tensor`: Python's
keyword-rich factories over the compiled ones (the ops that lived here, tril/triu, diag, trace,
diagonal, repeat, movedim, unflatten, argwhere, are C++ ops now, in ember/ops.h)."""
from . import _C


def _sizes(args, what):
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(args[0])
    for a in args:
        if not isinstance(a, int):
            raise TypeError(f"{what}(): size must be a sequence of ints, got {type(a).__name__}")
    return tuple(args)


def _like(self, dtype, device):
    return (self.dtype if dtype is None else dtype), (self.device if device is None else device)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.zeros(_sizes(size, "new_zeros"), dtype=dtype, device=device,
                    requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.ones(_sizes(size, "new_ones"), dtype=dtype, device=device,
                   requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.empty(_sizes(size, "new_empty"), dtype=dtype, device=device,
                    requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.full(tuple(size), fill_value, dtype=dtype, device=device,
                   requires_grad=requires_grad)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._tensor_ctor import tensor
    dtype, device = _like(self, dtype, device)
    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


_METHODS = {
    "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
    "new_full": new_full, "new_tensor": new_tensor,
}
for _name, _fn in _METHODS.items():
    setattr(_C.Tensor, _name, _fn)
