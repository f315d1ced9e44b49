"""PyTorch's other spellings of existing ops (torch.multiply, Tensor.greater_equal_, ...), as
functions of ember and methods of Tensor: each is the canonical op under PyTorch's alias name, so
there is nothing to test but that the names exist and forward (tests/python/test_aliases.py)."""
from . import _C

# alias -> canonical name, for the function and the method (and their in-place forms).
_SAME = {
    "multiply": "mul", "divide": "div", "subtract": "sub", "true_divide": "div",
    "negative": "neg", "absolute": "abs", "greater": "gt", "greater_equal": "ge", "less": "lt",
    "less_equal": "le", "not_equal": "ne", "arctan2": "atan2",
}
_INPLACE = ["multiply", "divide", "subtract", "true_divide", "negative", "absolute"]


def clamp_min(input, min):
    return input.clamp(min=min)


def clamp_max(input, max):
    return input.clamp(max=max)


def positive(input):
    """The input itself (the unary plus), refused for bool as PyTorch does."""
    if input.dtype == _C.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# torch.conv1d, torch.pixel_shuffle, ...: PyTorch's top-level names of these functional ops.
_FUNCTIONAL = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
               "conv_transpose3d", "pixel_shuffle", "pixel_unshuffle"]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """torch.group_norm: F.group_norm with ATen's trailing cudnn_enabled flag (ignored)."""
    return _C._nn.group_norm(input, num_groups, weight, bias, eps)


def _install():
    functions = {"clamp_min": clamp_min, "clamp_max": clamp_max, "positive": positive,
                 "group_norm": group_norm}
    for name in _FUNCTIONAL:
        functions[name] = getattr(_C._nn, name)
    for alias, name in _SAME.items():
        if hasattr(_C, name):
            functions[alias] = getattr(_C, name)
        setattr(_C.Tensor, alias, getattr(_C.Tensor, name))
    for alias in _INPLACE:
        setattr(_C.Tensor, alias + "_", getattr(_C.Tensor, _SAME[alias] + "_"))
    _C.Tensor.clamp_min = clamp_min
    _C.Tensor.clamp_max = clamp_max
    _C.Tensor.clamp_min_ = lambda self, min: self.clamp_(min=min)
    _C.Tensor.clamp_max_ = lambda self, max: self.clamp_(max=max)
    _C.Tensor.positive = positive
    return functions


globals().update(_install())
__all__ = (["clamp_min", "clamp_max", "positive", "group_norm"] + _FUNCTIONAL +
           [a for a in _SAME if hasattr(_C, _SAME[a])])
