"""The padding modules over F.pad: ReflectionPad, ReplicationPad, ConstantPad (1d/2d/3d) and
ZeroPad2d, with PyTorch's arguments and repr."""
from .. import functional as F
from .module import Module


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _Pad(Module):
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ReflectionPad1d(_Pad):
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_Pad):
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_Pad):
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_Pad):
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_Pad):
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_Pad):
    _dims, _mode = 3, "replicate"


class ConstantPad1d(_ConstantPad):
    _dims = 1


class ConstantPad2d(_ConstantPad):
    _dims = 2


class ConstantPad3d(_ConstantPad):
    _dims = 3


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
