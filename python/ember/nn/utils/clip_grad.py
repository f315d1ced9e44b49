"""torch.nn.utils.clip_grad_norm_ and clip_grad_value_ (PyTorch 1.13's signatures), one call
each into the C++ functions of ember/optim/clip_grad.h."""
from ... import _C
from ..._C import _nn
from ..._tensor_ctor import tensor


def _with_grads(parameters):
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients in place so that their joint norm is at most max_norm; returns that
    norm before clipping, as a 0-dim float32 tensor (PyTorch's total_norm)."""
    norm_type = float(norm_type)  # "inf" and float("inf") alike
    total = _nn.clip_grad_norm_(_with_grads(parameters), float(max_norm), norm_type,
                                bool(error_if_nonfinite))
    return tensor(total)


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient element into [-clip_value, clip_value] in place."""
    _nn.clip_grad_value_(_with_grads(parameters), float(clip_value))
