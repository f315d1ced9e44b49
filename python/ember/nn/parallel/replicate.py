"""replicate: a copy of a module per device whose parameters are differentiable copies of the
module's (Tensor.to records the copy, so each replica's gradient flows back into the original
parameter's .grad, where autograd sums them). On the module's own device the copy is the
parameter itself, and the buffers are the module's own, so batch-norm statistics are updated from
that replica only, as in PyTorch. The replicas are shallow copies of the Python modules: their
parameters are plain tensors in the instance dict, not registered Parameters."""
from collections import OrderedDict

from ... import _C
from .scatter_gather import _device


def _shallow_copy(module):
    replica = module.__new__(type(module))
    d = replica.__dict__
    d.update(module.__dict__)
    d["_parameters"] = OrderedDict()
    d["_buffers"] = module._buffers.copy()
    d["_modules"] = module._modules.copy()
    d["_is_replica"] = True
    return replica


def replicate(network, devices, detach=False):
    devices = [_device(d) for d in devices]
    modules = list(network.modules())
    index = {id(m): i for i, m in enumerate(modules)}
    params = list(network.parameters())
    buffers = list(network.buffers())
    record = _C.is_grad_enabled() and not detach
    copies = []
    for device in devices:
        with _GradMode(record):
            param_copy = {id(p): p.to(device) for p in params}
        with _GradMode(False):
            buffer_copy = {id(b): b.to(device) for b in buffers if not b.requires_grad}
        with _GradMode(record):
            buffer_copy.update({id(b): b.to(device) for b in buffers if b.requires_grad})
        replicas = [_shallow_copy(m) for m in modules]
        for m, r in zip(modules, replicas):
            d = r.__dict__
            for key, child in m._modules.items():
                value = None if child is None else replicas[index[id(child)]]
                d["_modules"][key] = value
                d[key] = value
            for key, p in m._parameters.items():
                d[key] = None if p is None else param_copy[id(p)]
            for key, b in m._buffers.items():
                value = None if b is None else buffer_copy[id(b)]
                d["_buffers"][key] = value
                d[key] = value
        copies.append(replicas[0])
    return copies


class _GradMode:
    """set_grad_enabled(mode) as a context manager, without importing ember.autograd here."""

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False
