"""The Lazy modules: layers whose input size (in_features, in_channels, num_features) is read
from the first batch they see, as PyTorch 1.13's LazyModuleMixin does. Until then their weights
are UninitializedParameters; the first forward materializes them in place (so an optimizer made
before it holds the same objects), runs the usual initialisation and turns the module into the
plain class (LazyLinear becomes Linear)."""
import warnings

from ... import _C
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .module import Module, _C_no_grad
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d,
                            InstanceNorm3d)


class LazyModuleMixin:
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters)
        warnings.warn("Lazy modules are a new feature under heavy development so changes to the "
                      "API or functionality can happen at any moment.")

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in (*self._parameters.values(), *self._buffers.values()))

    def _materialize_buffers(self, shape):
        # Buffers become plain tensors (see parameter._MaterializedBuffer).
        for name, buf in list(self._buffers.items()):
            if is_lazy(buf):
                buf.materialize(shape)
                setattr(self, name, buf.detach())

    def _lazy_load_hook(self, state_dict, prefix):
        """Called by load_state_dict before it compares shapes: an uninitialized entry takes
        the shape of the initialized value being loaded."""
        for name, t in (*self._parameters.items(), *self._buffers.items()):
            key = prefix + name
            if t is None or not is_lazy(t) or key not in state_dict or is_lazy(state_dict[key]):
                continue
            with _C_no_grad():
                t.materialize(state_dict[key].shape)
            if name in self._buffers:
                setattr(self, name, t.detach())

    def _infer_parameters(self, module, input):
        module.initialize_parameters(*input)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """Linear whose in_features is the last size of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        kw = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter(**kw)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**kw)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with _C_no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        spatial = self._dims
        if input.dim() not in (spatial + 1, spatial + 2):
            raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        self.in_channels = input.shape[1] if input.dim() == spatial + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        with _C_no_grad():
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _make_lazy(self, out_channels, bias, device, dtype):
        kw = {"device": device, "dtype": dtype}
        self.weight = UninitializedParameter(**kw)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**kw)


def _lazy_conv(conv_cls):
    class LazyConv(_LazyConvXdMixin, conv_cls):
        cls_to_become = conv_cls

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                     bias=True, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                             padding_mode, device=device, dtype=dtype)
            self._make_lazy(out_channels, bias, device, dtype)

    LazyConv.__name__ = LazyConv.__qualname__ = "Lazy" + conv_cls.__name__
    LazyConv.__doc__ = f"{conv_cls.__name__} whose in_channels is read from the first input."
    return LazyConv


def _lazy_conv_transpose(conv_cls):
    class LazyConvTranspose(_LazyConvXdMixin, conv_cls):
        cls_to_become = conv_cls

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                     dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                             dilation, padding_mode, device=device, dtype=dtype)
            self._make_lazy(out_channels, bias, device, dtype)

    LazyConvTranspose.__name__ = LazyConvTranspose.__qualname__ = "Lazy" + conv_cls.__name__
    LazyConvTranspose.__doc__ = f"{conv_cls.__name__} whose in_channels is read from the first input."
    return LazyConvTranspose


class _LazyNormBase(LazyModuleMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        kw = {"device": device, "dtype": dtype}
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**kw)
            self.bias = UninitializedParameter(**kw)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**kw)
            self.running_var = UninitializedBuffer(**kw)
            self.num_batches_tracked = _C.zeros((), dtype=_C.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        # PyTorch 1.13 reads dim 1 for every input, batched or not.
        self.num_features = input.shape[1]
        with _C_no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            self._materialize_buffers((self.num_features,))
            self.reset_parameters()


def _lazy_norm(norm_cls):
    class LazyNorm(_LazyNormBase, norm_cls):
        cls_to_become = norm_cls

        # affine and track_running_stats default to True for the instance norms too, as in
        # PyTorch 1.13 (unlike InstanceNorm's own defaults).
        def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                     device=None, dtype=None):
            super().__init__(eps, momentum, affine, track_running_stats, device, dtype)

    LazyNorm.__name__ = LazyNorm.__qualname__ = "Lazy" + norm_cls.__name__
    LazyNorm.__doc__ = f"{norm_cls.__name__} whose num_features is read from the first input."
    return LazyNorm


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d)
LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d)
