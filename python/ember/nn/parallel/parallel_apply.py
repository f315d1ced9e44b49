"""parallel_apply: each replica called on its own Python thread, with the caller's grad mode and
autocast state, its device current and that device's current stream (as the caller saw it)
current. Ember's kernels release the GIL, so the replicas' ops overlap; a replica's error is
raised in the caller, naming the replica and its device, with the replica's traceback."""
import threading
import traceback

from ... import _C
from ...amp import autocast_mode as _amp
from .scatter_gather import _device


def _cuda_available():
    return _C._cuda.is_available()


class _Failure:
    def __init__(self, exc, where):
        self.exc_type = type(exc)
        self.message = (f"Caught {self.exc_type.__name__} {where}.\nOriginal "
                        + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))

    def reraise(self):
        try:
            error = self.exc_type(self.message)
        except Exception:  # a type whose constructor takes other arguments
            raise RuntimeError(self.message) from None
        raise error


def _device_of(obj):
    """The device of the first tensor inside `obj`, or None."""
    if isinstance(obj, _C.Tensor):
        return obj.device
    if isinstance(obj, (list, tuple)):
        for x in obj:
            d = _device_of(x)
            if d is not None:
                return d
    if isinstance(obj, dict):
        for x in obj.values():
            d = _device_of(x)
            if d is not None:
                return d
    return None


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number "
                             f"of inputs {len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError("The number of modules is not equal to the number of kwargs")
    else:
        kwargs_tup = ({},) * len(modules)
    if devices is not None:
        devices = [_device(d) for d in devices]
    else:
        devices = [_device_of(i) for i in inputs]
    cuda = _cuda_available()
    from ...cuda import streams as _streams
    streams = [_streams.current_stream(d) if cuda and d is not None and d.type == "cuda" else None
               for d in devices]
    grad_enabled = _C.is_grad_enabled()
    autocast_state = (_amp.is_autocast_enabled(), _amp.get_autocast_gpu_dtype(),
                      _amp.is_autocast_cpu_enabled(), _amp.get_autocast_cpu_dtype())
    results = [None] * len(modules)

    def worker(i, module, args, kwargs, device, stream):
        # A new thread starts with the defaults: carry the caller's state over.
        _C._set_grad_enabled(grad_enabled)
        cuda_on, cuda_dtype, cpu_on, cpu_dtype = autocast_state
        _amp.set_autocast_gpu_dtype(cuda_dtype)
        _amp.set_autocast_enabled(cuda_on)
        _amp.set_autocast_cpu_dtype(cpu_dtype)
        _amp.set_autocast_cpu_enabled(cpu_on)
        try:
            if device is not None and device.type == "cuda":
                from ...cuda import device as _cuda_device, stream as _cuda_stream
                with _cuda_device(device.index), _cuda_stream(stream):
                    out = module(*_as_tuple(args), **kwargs)
            else:
                out = module(*_as_tuple(args), **kwargs)
            results[i] = out
        except Exception as e:  # noqa: BLE001  raised in the caller
            results[i] = _Failure(e, f"in replica {i} on device {device}")

    jobs = list(zip(range(len(modules)), modules, inputs, kwargs_tup, devices, streams))
    if len(jobs) > 1:
        threads = [threading.Thread(target=worker, args=job) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        worker(*jobs[0])
    outputs = []
    for r in results:
        if isinstance(r, _Failure):
            r.reraise()
        outputs.append(r)
    return outputs


def _as_tuple(args):
    return args if isinstance(args, (list, tuple)) else (args,)
