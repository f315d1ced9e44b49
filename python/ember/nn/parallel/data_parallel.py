"""DataParallel: one process, the module on device_ids[0]; each forward scatters the inputs along
`dim` over the devices, replicates the module (differentiable parameter copies), runs the
replicas on Python threads (parallel_apply) and gathers the outputs on output_device. Without
CUDA devices, or with one, it calls the module."""
from ... import _C
from ..modules.module import Module
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs


def _device_index(d, what):
    if isinstance(d, bool):
        raise TypeError(f"DataParallel: {what} must be device indices or CUDA devices, got a bool")
    if isinstance(d, int):
        return d
    d = _C.device(d) if isinstance(d, str) else d
    if not isinstance(d, _C.device):
        raise TypeError(f"DataParallel: {what} must be device indices or CUDA devices, got "
                        f"{type(d).__name__}")
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return 0 if d.index is None else d.index


def _check_devices(device_ids, count):
    # PyTorch finds a bad id when it reads the device's properties ("Invalid device id", an
    # AssertionError); say which id and how many devices there are.
    if not device_ids:
        raise ValueError("DataParallel: device_ids is empty")
    for i in device_ids:
        if not 0 <= i < count:
            raise AssertionError(
                f"Invalid device id: DataParallel got device id {i}, but there "
                f"{'is' if count == 1 else 'are'} {count} CUDA device{'' if count == 1 else 's'}"
                f" (ids 0 to {count - 1})")
    if len(set(device_ids)) != len(device_ids):
        raise ValueError(f"DataParallel: device_ids has duplicates: {device_ids}")


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel: module must be an ember.nn.Module, got "
                            f"{type(module).__name__}")
        if not _C._cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        count = _C._cuda.device_count()
        if device_ids is None:
            device_ids = list(range(count))
        device_ids = [_device_index(d, "device_ids") for d in device_ids]
        _check_devices(device_ids, count)
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = device_ids
        self.output_device = _device_index(output_device, "output_device")
        self.src_device_obj = _C.device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of "
                                   f"them on device: {t.device}")
        inputs, kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not kwargs:
            inputs, kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module, device_ids):
        return replicate(module, device_ids, not _C.is_grad_enabled())

    def scatter(self, inputs, kwargs, device_ids):
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form: one DataParallel forward of `module` on `inputs`."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if not _C._cuda.is_available():
        return module(*inputs, **(module_kwargs or {}))
    dp = DataParallel(module, device_ids, output_device, dim)
    return dp(*inputs, **(module_kwargs or {}))
