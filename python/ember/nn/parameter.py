"""nn.Parameter: a Tensor subclass that a Module registers as a learnable parameter."""
from .. import _C


class Parameter(_C.Tensor):
    """Shares `data`'s memory, detached from its history, requiring grad unless told otherwise."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Parameter(data): data must be a Tensor, got {type(data).__name__}")
        super().__init__(data.detach())
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, proto):
        return (Parameter, (self.detach(), self.requires_grad))
