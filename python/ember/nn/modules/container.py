"""Sequential, ModuleList and ModuleDict: submodules registered under their index or key;
ParameterList and ParameterDict: parameters registered the same way."""
import operator
from collections import OrderedDict

from .module import Module


class _IndexedModules(Module):
    """What Sequential and ModuleList share: submodules in order, reached by position."""

    def _position(self, idx):
        n = len(self._modules)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return idx % n

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class Sequential(_IndexedModules):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def _index(self, idx):
        return self._position(idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[self._index(idx)]
        self.add_module(key, module)

    def __delitem__(self, idx):
        keys = list(self._modules.keys())
        for key in (keys[idx] if isinstance(idx, slice) else [keys[self._index(idx)]]):
            delattr(self, key)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(_IndexedModules):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, idx):
        return str(self._position(idx))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx, module):
        self.add_module(self._index(idx), module)

    def extend(self, modules):
        if not hasattr(modules, "__iter__"):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " +
                            type(modules).__name__)
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        for key in list(self._modules):
            delattr(self, key)
        self.extend(items)

    def __iadd__(self, modules):
        return self.extend(modules)


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        module = self._modules[key]
        delattr(self, key)
        return module

    def clear(self):
        for key in list(self._modules):
            delattr(self, key)

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module


# PyTorch's legacy type names, which ParameterDict's repr shows (torch.typename).
_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
               "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
               "bool": "BoolTensor"}


def _type_name(p):
    name = _TYPE_NAMES[str(p.dtype).split(".")[-1]]
    return f"ember.cuda.{name}" if p.is_cuda else f"ember.{name}"


def _parameter_line(key, p, legacy_type_name):
    """One line of ParameterList/ParameterDict's repr, as PyTorch 1.13 writes it: the list names
    the dtype, the dict the legacy type name."""
    from ... import _C
    from ..parameter import Parameter
    if isinstance(p, _C.Tensor):
        size = "x".join(str(s) for s in p.shape)
        device = f" (GPU {p.get_device()})" if p.is_cuda else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        what = _type_name(p) if legacy_type_name else p.dtype
        return f"  ({key}): {kind} containing: [{what} of size {size}{device}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


def _as_parameter(value):
    from ... import _C
    from ..parameter import Parameter
    if isinstance(value, _C.Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """Parameters held in a list, registered under their positions ("0", "1", ...)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key(self, idx):
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._key(idx))

    def __setitem__(self, idx, param):
        setattr(self, self._key(idx), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p, False) for k, p in enumerate(self))


class ParameterDict(Module):
    """Parameters held under string keys, in insertion order."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {type(key).__name__}")
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def update(self, parameters):
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif hasattr(parameters, "items"):  # a plain mapping: sorted, as PyTorch 1.13 does
            pairs = sorted(parameters.items())
        else:
            pairs = parameters
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p, True) for k, p in self.items())
