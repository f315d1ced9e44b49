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


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (the Lazy modules' placeholders): it
    holds an empty tensor of the dtype and device to use, and materialize() gives it a shape."""

    def materialize(self, shape, device=None, dtype=None):
        """Gives the tensor `shape` (uninitialised memory) on its own device and dtype unless
        others are named, and turns it into the class it stands for."""
        device = self.data.device if device is None else device
        dtype = self.data.dtype if dtype is None else dtype
        self.data = _C.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def size(self, dim=None):
        return self.shape

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def _uninitialized(cls):
    # nanobind types take a single base, so the mixin's methods are copied into each class
    # instead of inherited.
    for name, value in vars(UninitializedTensorMixin).items():
        if not name.startswith("__") or name in ("__repr__", "__reduce_ex__"):
            setattr(cls, name, value)
    return cls


def is_lazy(param):
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))


@_uninitialized
class UninitializedParameter(Parameter):
    """A Parameter whose shape is not known yet; materialize() makes it a Parameter in place, so
    an optimizer built before the first forward keeps the same object."""

    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(_C.empty(0, device=device, dtype=dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        return memo[id(self)]


class _MaterializedBuffer(_C.Tensor):
    # What a materialized UninitializedBuffer becomes: a Python class cannot turn back into the
    # extension's own Tensor type (their layouts differ), so it becomes this plain subclass; the
    # Lazy modules store a plain Tensor sharing its memory instead.
    pass


@_uninitialized
class UninitializedBuffer(_C.Tensor):
    """A buffer whose shape is not known yet (running statistics of the LazyBatchNorm modules)."""

    cls_to_become = _MaterializedBuffer

    def __init__(self, requires_grad=False, device=None, dtype=None):
        super().__init__(_C.empty(0, device=device, dtype=dtype))
        if requires_grad:
            self.requires_grad_(True)
