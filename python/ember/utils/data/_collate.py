"""default_collate (a list of samples -> one batch, stacked as PyTorch stacks them) and
default_convert (one sample, when automatic batching is off)."""
import collections.abc

import numpy as np

from ... import _C
from ..._tensor_ctor import tensor as _tensor

_NOT_COLLATABLE = ("default_collate: a batch must hold tensors, numpy arrays, numbers, dicts or "
                   "lists; found {}")


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _numpy_kind(x):
    """'array', 'scalar' or None for numpy values (numpy is optional)."""
    mod = type(x).__module__
    if mod != "numpy":
        return None
    if type(x).__name__ in ("str_", "bytes_", "memmap") or getattr(x, "dtype", None) is None:
        return None
    return "scalar" if x.shape == () and type(x).__name__ != "ndarray" else "array"


def default_collate(batch):
    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _C.stack(list(batch), 0)
    kind = _numpy_kind(elem)
    if kind == "array":
        if elem.dtype.kind in "OSUa":
            raise TypeError(_NOT_COLLATABLE.format(elem.dtype))
        return default_collate([_C.from_numpy(b) for b in batch])
    if kind == "scalar":
        return _tensor(np.asarray(batch))  # the arrays' dtype, as PyTorch's as_tensor keeps it
    if isinstance(elem, float):
        return _tensor(batch, dtype=_C.float64)
    if isinstance(elem, int):
        return _tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(out)
        except TypeError:
            return out
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(s) != size for s in batch):
            raise RuntimeError(
                f"each element in list of batch should be of equal size (sizes: "
                f"{sorted({len(s) for s in batch})})")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            return type(elem)(columns)
        except TypeError:
            return columns
    raise TypeError(_NOT_COLLATABLE.format(type(elem)))


def default_convert(data):
    if isinstance(data, _C.Tensor):
        return data
    kind = _numpy_kind(data)
    if kind == "array" and data.dtype.kind not in "OSUa":
        return _C.from_numpy(data)
    if kind == "scalar":
        return _tensor(np.asarray(data))
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        out = {key: default_convert(v) for key, v in data.items()}
        try:
            return type(data)(out)
        except TypeError:
            return out
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        try:
            return type(data)([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
