"""scatter and gather for DataParallel: tensors split along `dim` over the devices and joined back
on the output device, both differentiable (Tensor.to and cat record the copies), with PyTorch's
recursion through tuples, lists, dicts and namedtuples."""
import warnings

from ... import _C


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def _device(d):
    """A device argument: an int is a CUDA ordinal, -1 the CPU (PyTorch's output_device=-1)."""
    if isinstance(d, _C.device):
        return d
    if isinstance(d, int) and not isinstance(d, bool):
        return _C.device("cpu") if d == -1 else _C.device("cuda", d)
    return _C.device(d)


def _scatter_tensor(t, devices, dim):
    chunks = t.chunk(len(devices), dim)
    return [c.to(devices[i]) for i, c in enumerate(chunks)]


def scatter(inputs, target_gpus, dim=0):
    """A list with one element per device used (fewer when the batch is shorter)."""
    devices = [_device(d) for d in target_gpus]

    def scatter_map(obj):
        if isinstance(obj, _C.Tensor):
            return _scatter_tensor(obj, devices, dim)
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]

    try:
        return scatter_map(inputs)
    finally:
        scatter_map = None  # noqa: F841  break the closure's reference cycle, as PyTorch does


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    inputs = scatter(inputs, target_gpus, dim) if inputs else []
    kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(inputs) < len(kwargs):
        inputs.extend(() for _ in range(len(kwargs) - len(inputs)))
    elif len(kwargs) < len(inputs):
        kwargs.extend({} for _ in range(len(inputs) - len(kwargs)))
    return tuple(inputs), tuple(kwargs)


def _gather_tensors(tensors, destination, dim):
    if all(t.dim() == 0 for t in tensors) and dim == 0:
        warnings.warn("Was asked to gather along dimension 0, but all input tensors were "
                      "scalars; will instead unsqueeze and return a vector.")
        tensors = [t.view(1) for t in tensors]
    moved = [t.to(destination) for t in tensors]
    return moved[0] if len(moved) == 1 else _C.cat(moved, dim)


def gather(outputs, target_device, dim=0):
    """The replicas' outputs joined along `dim` on target_device (-1: the CPU)."""
    destination = _device(target_device)

    def gather_map(outs):
        out = outs[0]
        if isinstance(out, _C.Tensor):
            return _gather_tensors(outs, destination, dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outs)))
        return type(out)(map(gather_map, zip(*outs)))

    try:
        return gather_map(outputs)
    finally:
        gather_map = None  # noqa: F841
