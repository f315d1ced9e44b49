"""nn.utils.parametrize (PyTorch 1.13): a parameter or buffer expressed as a function of other
tensors. The original moves to module.parametrizations[name].original (original0, original1, ...
when right_inverse returns several), and the module's class is swapped for a subclass with a
property `name` that computes the parametrized value on every read (once per block inside
cached())."""
from contextlib import contextmanager

from ... import _C
from ...autograd import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Inside the block each parametrized tensor is computed once and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register(module, name, value):
    """`value` on `module` as a parameter when it is one, else as a buffer."""
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_original(original, value):
    """The original keeps its identity (optimizers hold it) when right_inverse kept its shape."""
    if tuple(value.shape) != tuple(original.shape) or value.dtype != original.dtype:
        raise ValueError("ember's parametrize keeps the original tensor: right_inverse must "
                         f"return its shape and dtype {tuple(original.shape)} {original.dtype}, "
                         f"got {tuple(value.shape)} {value.dtype}")
    with no_grad():
        original.copy_(value)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to `original` (or originals)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = tuple(original.shape), original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if isinstance(new, _C.Tensor):
            self.is_tensor = True
            self.ntensors = 1
            _set_original(original, new)
            _register(self, "original", original)
        else:
            if not isinstance(new, (tuple, list)):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                 f"(list, tuple...). Got {type(new).__name__}")
            self.is_tensor = False
            self.ntensors = len(new)
            for i, t in enumerate(new):
                t = t.detach()
                if isinstance(original, Parameter):
                    t = Parameter(t, original.requires_grad)
                _register(self, f"original{i}", t)
        if not self.unsafe:
            z = self()
            if not isinstance(z, _C.Tensor):
                raise ValueError("A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the "
                                 f"tensor, unless `unsafe` flag is enabled.\nunparametrized "
                                 f"dtype: {original_dtype}\nparametrized dtype: {z.dtype}")
            if tuple(z.shape) != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the "
                                 "tensor, unless `unsafe` flag is enabled.\nunparametrized "
                                 f"shape: {_C_size(original_shape)}\nparametrized shape: "
                                 f"{_C_size(tuple(z.shape))}")

    def right_inverse(self, value):
        """Assigning `module.name = value` stores right_inverse(value) in the originals."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                _set_original(self.original, value)
            else:
                for i, t in enumerate(value):
                    _set_original(getattr(self, f"original{i}"), t)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _C_size(shape):
    from ..._size import Size
    return Size(shape)


def _inject_new_class(module):
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module, tensor_name=None):
    parametrizations = module.__dict__.get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes module.<tensor_name> = parametrization(original) from now on; a second call on the
    same name chains the parametrizations."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe and not plist.unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, _C.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(x).__name__}.")
            if x.dtype != y.dtype or tuple(x.shape) != tuple(y.shape):
                raise ValueError("Registering a parametrization may not change the shape or "
                                 "dtype of the tensor, unless the `unsafe` flag is enabled.")
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Puts a plain parameter (or buffer) back: the current parametrized value, or the original
    when leave_parametrized is False."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_original(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            value = getattr(module, tensor_name)
        if plist.original0.requires_grad:
            original = Parameter(value.detach(), True)
        else:
            original = value.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before register_parametrization swapped it."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)
