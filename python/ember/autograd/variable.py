"""autograd.Variable: PyTorch's deprecated wrapper, kept for old scripts. Since PyTorch 0.4 it
returns the tensor itself (requires_grad set as asked), and every tensor is a Variable."""
from .. import _C


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad) if requires_grad else data.detach()
