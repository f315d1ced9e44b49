"""ember.utils.dlpack: DLPack capsules in and out, sharing memory (torch.utils.dlpack's calls)."""
from .. import _C


def to_dlpack(tensor):
    """A "dltensor" capsule over `tensor`'s memory, for another library's from_dlpack."""
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"to_dlpack expects an ember.Tensor, got {type(tensor).__name__}")
    return tensor.__dlpack__()


def from_dlpack(ext_tensor):
    """A tensor over the memory of `ext_tensor` (an object with __dlpack__, or a capsule)."""
    return _C._from_dlpack(ext_tensor)
