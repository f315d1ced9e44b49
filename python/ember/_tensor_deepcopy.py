"""Tensor.__deepcopy__ (copy.deepcopy of a tensor, and so of a Module's buffers): PyTorch 1.13's
rules, a clone of a leaf that keeps requires_grad and deep-copies the grad; a non-leaf raises."""
from . import _C
from .autograd import no_grad


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment")
    if id(self) in memo:
        return memo[id(self)]
    with no_grad():
        out = self.clone()
    out.requires_grad_(self.requires_grad)
    if self.grad is not None:
        out.grad = _deepcopy(self.grad, memo)
    memo[id(self)] = out
    return out


_C.Tensor.__deepcopy__ = _deepcopy
