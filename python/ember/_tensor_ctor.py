"""ember.tensor(data) and ember.as_tensor: tensors from Python numbers, (nested) lists and numpy
arrays, with PyTorch's dtype inference (floats: the default dtype, ints: int64, bools: bool)."""
import numpy as np

from . import _C


def _from_data(data, dtype, device, copy):
    if isinstance(data, _C.Tensor):
        out = data.detach()
        if copy:
            out = out.clone()
        return out.to(device=device, dtype=dtype) if (dtype or device) else out
    is_array = isinstance(data, np.ndarray)
    array = np.asarray(data)
    if array.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__} elements: nested "
                        "sequences must be rectangular lists of numbers")
    if array.dtype.kind not in "biuf":
        raise TypeError(f"can't convert np.ndarray of type numpy.{array.dtype}")
    # Python floats take the default dtype unless a dtype is asked for: then they go there from
    # their own double values, rounded once (tensor([0.1], dtype=float64) is exactly 0.1).
    if not is_array and array.dtype.kind == "f" and dtype is None:
        array = array.astype(np.float32 if _C.get_default_dtype() == _C.float32 else np.float64)
    if copy or not array.flags.writeable:
        array = array.copy()
    out = _C.from_numpy(np.require(array, requirements="C"))
    if dtype is not None or device is not None:
        out = out.to(device=device, dtype=dtype)
    return out


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    out = _from_data(data, dtype, device, copy=True)
    if requires_grad:
        out.requires_grad_(True)
    return out


def as_tensor(data, dtype=None, device=None):
    return _from_data(data, dtype, device, copy=False)
