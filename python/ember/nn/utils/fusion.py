"""Folding an eval-mode BatchNorm into the convolution or linear layer before it (inference):
y = gamma * (W x + b - mean) / sqrt(var + eps) + beta is one layer with scaled W and shifted b."""
import copy

from ... import _C
from ..parameter import Parameter


def _scale_and_shift(bias, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(per-channel scale, fused bias) of a BatchNorm with these statistics after a layer with
    `bias` (None: zero); a BatchNorm without affine parameters has weight 1 and bias 0."""
    if bias is None:
        bias = _C.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = _C.ones_like(bn_rm)
    if bn_b is None:
        bn_b = _C.zeros_like(bn_rm)
    scale = bn_w * _C.rsqrt(bn_rv + bn_eps)
    return scale, (bias - bn_rm) * scale + bn_b


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The (weight, bias) Parameters of the convolution that computes bn(conv(x)). A transposed
    convolution's weight holds output channels in dim 1."""
    scale, bias = _scale_and_shift(conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    return Parameter(conv_w * scale.reshape(shape)), Parameter(bias)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` whose output equals bn(conv(x)) with both in eval mode."""
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of the Linear layer that computes bn(linear(x))."""
    scale, bias = _scale_and_shift(linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b)
    return Parameter(linear_w * scale.unsqueeze(-1)), Parameter(bias)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` whose output equals bn(linear(x)) with both in eval mode."""
    assert not (linear.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused
