"""nn.Module: parameters, buffers and submodules registered on attribute assignment, their
traversal, state_dict/load_state_dict, train/eval, device and dtype moves, and PyTorch's repr.

Registered values live in _parameters/_buffers/_modules (PyTorch's dicts, which users and
state_dict read) and also in the instance __dict__, so that `self.weight` in a forward is a plain
attribute read; __setattr__/__delattr__ keep the two in step."""
from collections import OrderedDict, namedtuple

from ... import _C
from ..parameter import Parameter, is_lazy

_IncompatibleKeysBase = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class _IncompatibleKeys(_IncompatibleKeysBase):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _to_args(args, kwargs):
    """(device, dtype, non_blocking) of Module.to's overloads."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _C.Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, (str, int, _C.device)):
            device = _C.device(a) if not isinstance(a, int) else _C.device("cuda", a)
        elif isinstance(a, bool):
            non_blocking = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments: got "
                            f"{type(a).__name__}")
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError("nn.Module.to only accepts floating point dtypes, but got desired "
                        f"dtype={dtype}")
    return device, dtype, non_blocking


class Module:
    """Base class of every layer and model; subclasses set attributes in __init__ and define
    forward."""

    training: bool

    def __init__(self):
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        backward_hooks = _BackwardHooks(self) if self._backward_hooks else None
        if backward_hooks is not None:
            args = backward_hooks.wrap_inputs(args)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            r = hook(self, args, out)
            if r is not None:
                out = r
        if backward_hooks is not None:
            out = backward_hooks.wrap_outputs(out)
        return out

    # ---- registration ----
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError("cannot assign to a Module before Module.__init__() call")
        params, buffers, modules = d["_parameters"], d["_buffers"], d["_modules"]
        if isinstance(value, Parameter):
            buffers.pop(name, None)
            modules.pop(name, None)
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(ember.nn.Parameter or None expected)")
            self.register_parameter(name, None)
        elif isinstance(value, Module):
            params.pop(name, None)
            buffers.pop(name, None)
            modules[name] = value
            d[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (ember.nn.Module or None expected)")
            modules[name] = None
            d[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, _C.Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(ember.Tensor or None expected)")
            buffers[name] = value
            d[name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for key in ("_parameters", "_buffers", "_modules"):
            self.__dict__[key].pop(name, None)
        self.__dict__.pop(name, None) if name in self.__dict__ else object.__delattr__(self, name)

    def __getattr__(self, name):
        # Only reached when normal lookup fails: values placed in the dicts directly.
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if key in d and name in d[key]:
                return d[key][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f'parameter name can\'t contain "." or be empty, got "{name}"')
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (ember.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             "parameters must be created explicitly.")
        self._parameters[name] = param
        self.__dict__[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f'buffer name can\'t contain "." or be empty, got "{name}"')
        if name in self.__dict__ and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, _C.Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(ember Tensor or None required)")
        self._buffers[name] = tensor
        self.__dict__[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f'module name can\'t contain "." or be empty, got "{name}"')
        self._modules[name] = module
        self.__dict__[name] = module

    register_module = add_module

    def register_forward_hook(self, hook):
        return _Handle(self._forward_hooks, hook)

    def register_forward_pre_hook(self, hook):
        return _Handle(self._forward_pre_hooks, hook)

    def register_full_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) runs once the gradients with respect to the
        module's tensor inputs are computed; it may return new grad_input (a tuple)."""
        return _Handle(self._backward_hooks, hook)

    def get_submodule(self, target):
        mod = self
        for part in target.split(".") if target else []:
            if part not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{part}`")
            mod = mod._modules[part]
        return mod

    # ---- traversal ----
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, dict_name, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in getattr(mod, dict_name).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- state ----
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars or is_lazy(p) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or is_lazy(b) else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        for name, module in self.named_modules():
            if hasattr(module, "_lazy_load_hook"):  # a Lazy module takes the loaded shapes
                module._lazy_load_hook(state_dict, name + "." if name else "")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict:
            if missing:
                errors.append("Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
        copies = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, _C.Tensor):
                errors.append(f'While copying the parameter named "{key}", expected ember.Tensor '
                              f"or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
            elif value.shape != target.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model is "
                              f"{target.shape}.")
            else:
                copies.append((target, value))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self._get_name(), "\n\t".join(errors)))
        with _C_no_grad():
            for target, value in copies:
                target.copy_(value)
        return _IncompatibleKeys(missing, unexpected)

    # ---- modes ----
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g = g.detach()
                    p.grad = g
                g.requires_grad_(False)
                g.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- device and dtype ----
    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        with _C_no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                p.data = fn(p)
                if p.grad is not None:
                    p.grad = fn(p.grad)
            for name, b in self._buffers.items():
                if b is not None and is_lazy(b):
                    b.data = fn(b)  # stays an UninitializedBuffer with the new device or dtype
                elif b is not None:
                    self._buffers[name] = self.__dict__[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        device, dtype, non_blocking = _to_args(args, dict(kwargs))

        def convert(t):
            if dtype is not None and t.is_floating_point():
                return t.to(device=device, dtype=dtype, non_blocking=non_blocking)
            return t.to(device=device, non_blocking=non_blocking) if device is not None else t

        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    def _float_to(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._float_to(_C.float32)

    def double(self):
        return self._float_to(_C.float64)

    def half(self):
        return self._float_to(_C.float16)

    def bfloat16(self):
        return self._float_to(_C.bfloat16)

    # ---- printing ----
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _indent(repr(module), 2)
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"

    def __dir__(self):
        keys = set(dir(type(self))) | set(self.__dict__)
        return sorted(k for k in keys if not k[0].isdigit())


class _BackwardHooks:
    """The module's full backward hooks for one call: identity nodes around the forward catch
    grad_output (on the outputs) and grad_input (on the inputs), as PyTorch's BackwardHook."""

    def __init__(self, module):
        self.module = module
        self.grad_output = None
        self.n_inputs = 0
        self.input_positions = []

    def _run_hooks(self, grad_input):
        for hook in list(self.module._backward_hooks.values()):
            r = hook(self.module, grad_input, self.grad_output)
            if r is not None:
                if not isinstance(r, tuple) or len(r) != len(grad_input):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(r) if isinstance(r, tuple) else 1}, but "
                                       f"expected {len(grad_input)}")
                grad_input = r
        return grad_input

    def wrap_inputs(self, args):
        positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        self.n_inputs = len(positions)
        self.input_positions = [i for i in positions if args[i].requires_grad]
        if not (_C.is_grad_enabled() and self.input_positions):
            return args
        inputs = [args[i] for i in self.input_positions]
        with _C_no_grad():
            views = [t.view_as(t) for t in inputs]
        slot = {i: k for k, i in enumerate(positions)}
        requiring = [slot[i] for i in self.input_positions]

        def backward(*grads):
            grad_input = [None] * self.n_inputs
            for k, g in zip(requiring, grads):
                grad_input[k] = g
            grad_input = self._run_hooks(tuple(grad_input))
            return [grad_input[k] for k in requiring]

        _C._record_function("BackwardHookFunctionBackward", views, inputs, backward)
        args = list(args)
        for i, v in zip(self.input_positions, views):
            args[i] = v
        return tuple(args)

    def wrap_outputs(self, out):
        single = isinstance(out, _C.Tensor)
        outs = [out] if single else list(out) if isinstance(out, (tuple, list)) else None
        if outs is None or not _C.is_grad_enabled():
            return out
        positions = [i for i, o in enumerate(outs) if isinstance(o, _C.Tensor) and o.requires_grad]
        if not positions:
            return out
        tensors = [outs[i] for i in positions]
        with _C_no_grad():
            views = [t.view_as(t) for t in tensors]
        slot = {i: k for k, i in enumerate(i for i, o in enumerate(outs)
                                            if isinstance(o, _C.Tensor))}

        def backward(*grads):
            grad_output = [None] * len(slot)
            for i, g in zip(positions, grads):
                grad_output[slot[i]] = g
            self.grad_output = tuple(grad_output)
            if not self.input_positions:  # no input gradient will come: PyTorch calls now
                self._run_hooks((None,) * self.n_inputs)
            return list(grads)

        _C._record_function("BackwardHookFunctionBackward", views, tensors, backward)
        for i, v in zip(positions, views):
            outs[i] = v
        return outs[0] if single else type(out)(outs)


class _Handle:
    """What register_forward_hook returns: remove() takes the hook off."""

    _next_id = 0

    def __init__(self, hooks, hook):
        self._hooks = hooks
        self.id = _Handle._next_id
        _Handle._next_id += 1
        hooks[self.id] = hook

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _C_no_grad():
    from ...autograd import no_grad
    return no_grad()
