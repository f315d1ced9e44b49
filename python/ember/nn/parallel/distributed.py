"""DistributedDataParallel: one process per device. Construction checks that every rank built the
same model and broadcasts rank 0's parameters and buffers; during each backward the C++ reducer
(ember::nn::parallel::GradientSynchronizer, the one behind the C++ DDP) averages the gradients:
post-accumulate-grad hooks on the parameters copy each gradient into its bucket, full buckets are
all-reduced asynchronously while backward goes on, and at the end of backward every .grad holds
the average over the ranks. No Python runs per parameter or per bucket."""
import contextlib

from ... import _C
from ..modules.module import Module
from .scatter_gather import _device


def _tensors_in(obj, out):
    if isinstance(obj, _C.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _tensors_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors_in(x, out)
    return out


def _to_device(obj, device):
    if isinstance(obj, _C.Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(x, device) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(x, device) for x in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=25,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        from ... import distributed as dist
        dist._check_group(process_group)
        if gradient_as_bucket_view or static_graph:
            raise NotImplementedError("DistributedDataParallel: gradient_as_bucket_view and "
                                      "static_graph are not implemented in ember")
        if not isinstance(module, Module):
            raise TypeError("DistributedDataParallel: module must be an ember.nn.Module, got "
                            f"{type(module).__name__}")
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        devices = {p.device for _, p in named}
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        on_cuda = any(d.type == "cuda" for d in devices)
        if device_ids and (not on_cuda or len(devices) > 1):
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters "
                f"{ {p.device for p in module.parameters()} }.")
        self.dim = dim
        self.module = module
        self.device_ids = [_device(d).index for d in device_ids] if device_ids else None
        self.device = next(iter(devices)) if len(devices) == 1 else None
        self.output_device = (_device(output_device if output_device is not None
                                      else self.device_ids[0]).index
                              if self.device_ids else None)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        initial_state = list(module.parameters()) + list(module.buffers())
        self._sync = _C._distributed.GradientSynchronizer(
            [n for n, _ in named], [p for _, p in named], initial_state, float(bucket_cap_mb),
            bool(find_unused_parameters), bool(broadcast_buffers))

    def forward(self, *inputs, **kwargs):
        self._sync.pre_forward(list(self.module.buffers()) if self.broadcast_buffers else [])
        if self.device_ids:
            device = _C.device("cuda", self.device_ids[0])
            inputs, kwargs = _to_device(inputs, device), _to_device(kwargs, device)
        output = self.module(*inputs, **kwargs)
        if _C.is_grad_enabled() and self.require_backward_grad_sync:
            self._sync.post_forward(_tensors_in(output, []))
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside only accumulate into .grad; the next
        synchronized backward averages the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _bucket_indices(self):
        """Parameter indices (among those requiring grad) per bucket, in reduction order."""
        return self._sync.bucket_indices()

    def _last_backward_stats(self):
        return self._sync.last_backward_stats()
