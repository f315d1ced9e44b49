"""Conv1d/2d/3d and ConvTranspose1d/2d/3d over the C++ convolutions, with PyTorch's
arguments, padding modes, default initialisation and repr."""
import math

from ... import _C
from ..._C import _nn
from .. import init
from ..parameter import Parameter
from .module import Module


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    """What the four share: arguments, parameters, initialisation and repr (PyTorch's _ConvNd)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        dims = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', "
                             f"'circular'], but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, dims)
        self.stride = _ntuple(stride, dims)
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _ntuple(padding, dims)
        self.dilation = _ntuple(dilation, dims)
        self.transposed = transposed
        self.output_padding = _ntuple(output_padding, dims)
        self.groups = groups
        self.padding_mode = padding_mode
        # pad()'s amounts for the non-zero padding modes: last dim first, (before, after) each.
        self._reversed_padding_repeated_twice = []
        for d, k, p in zip(reversed(self.dilation), reversed(self.kernel_size),
                           reversed(self._explicit_padding())):
            if self.padding == "same":
                total = d * (k - 1)
                self._reversed_padding_repeated_twice += [total // 2, total - total // 2]
            else:
                self._reversed_padding_repeated_twice += [p, p]
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(_C.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_C.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _explicit_padding(self):
        return (0,) * self._dims if isinstance(self.padding, str) else self.padding

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.kernel_size):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False,
                         0, groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        if self.padding_mode != "zeros":
            padded = _nn.pad(input, self._reversed_padding_repeated_twice, self.padding_mode)
            return self._conv(padded, self.weight, self.bias, self.stride, 0, self.dilation,
                              self.groups)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                          self.dilation, self.groups)


class Conv1d(_Conv):
    _dims = 1
    _conv = staticmethod(_nn.conv1d)


class Conv2d(_Conv):
    _dims = 2
    _conv = staticmethod(_nn.conv2d)


class Conv3d(_Conv):
    _dims = 3
    _conv = staticmethod(_nn.conv3d)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{self.__class__.__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, True,
                         output_padding, groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        """The output_padding that gives output_size, as PyTorch's _ConvTransposeNd."""
        if output_size is None:
            return self.output_padding
        dims = self._dims
        output_size = list(output_size)
        if len(output_size) == dims + 2:
            output_size = output_size[2:]
        if len(output_size) != dims:
            raise ValueError(f"ConvTranspose{dims}D: for {input.dim()}D input, output_size must "
                             f"have {dims} or {dims + 2} elements (got {len(output_size)})")
        spatial = list(input.shape[-dims:])
        low = [(spatial[d] - 1) * self.stride[d] - 2 * self.padding[d] +
               self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(dims)]
        high = [low[d] + self.stride[d] - 1 for d in range(dims)]
        for d in range(dims):
            if not low[d] <= output_size[d] <= high[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {low} to {high} (for an input of "
                                 f"{input.shape[-dims:]})")
        return tuple(output_size[d] - low[d] for d in range(dims))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                          output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _dims = 1
    _conv = staticmethod(_nn.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    _dims = 2
    _conv = staticmethod(_nn.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    _dims = 3
    _conv = staticmethod(_nn.conv_transpose3d)
