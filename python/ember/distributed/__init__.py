"""ember.distributed: torch.distributed over the C++ process groups (include/ember/distributed,
docs/distributed.md): Gloo for CPU tensors, NCCL for CUDA tensors on real CUDA builds. One default
group per process (init_process_group); collectives take no other group. Every call that
communicates or waits releases the GIL."""
import datetime as _datetime
import os as _os

from .._C import _distributed as _dist
from .._C._distributed import ReduceOp  # noqa: F401  SUM, AVG, PRODUCT, MIN, MAX


class DistError(RuntimeError):
    """A failure of the process group, a collective or the rendezvous."""


class DistBackendError(DistError):
    """A collective failed in the backend: a peer died, mismatched collectives, a timeout."""


class DistStoreError(DistError):
    """The rendezvous store: unreachable, or a key did not arrive in time."""


class DistNetworkError(DistError):
    """A network failure outside the store."""


_dist._set_error_types(DistError, DistBackendError, DistStoreError, DistNetworkError)

# torch.distributed.constants.default_pg_timeout.
default_pg_timeout = _datetime.timedelta(minutes=30)


class Backend:
    GLOO = "gloo"
    NCCL = "nccl"


class _World:
    """dist.group.WORLD: the default group (the only one ember.distributed knows)."""

    def __repr__(self):
        return "<ember.distributed.group.WORLD>"


class group:  # noqa: N801  torch.distributed.group
    WORLD = _World()


def _check_group(group):
    if group is not None and not isinstance(group, _World):
        raise NotImplementedError("ember.distributed: only the default group (group=None or "
                                  "group.WORLD) is supported; new_group is not bound")


def is_available():
    return _dist.is_available()


def is_initialized():
    return _dist.is_initialized()


def init_process_group(backend=None, init_method=None, timeout=default_pg_timeout,
                       world_size=-1, rank=-1, store=None, group_name="", pg_options=None):
    """backend "gloo" or "nccl"; init_method "env://" (MASTER_ADDR, MASTER_PORT, RANK,
    WORLD_SIZE, as ember-run and torchrun set) or "tcp://host:port" with rank and world_size."""
    if store is not None:
        raise NotImplementedError("init_process_group: store= is not bound; use init_method")
    if backend is None:
        backend = "gloo"
    backend = str(backend).lower()
    if init_method is None:
        init_method = "env://"
    if not isinstance(timeout, _datetime.timedelta):
        raise TypeError("Expected timeout argument to be of type datetime.timedelta")
    if init_method.startswith("env://"):
        # PyTorch's env:// takes an explicit rank/world_size over the variables.
        if rank != -1:
            _os.environ["RANK"] = str(rank)
        if world_size != -1:
            _os.environ["WORLD_SIZE"] = str(world_size)
    _dist.init_process_group(backend, init_method, int(world_size), int(rank),
                             timeout.total_seconds())


def destroy_process_group(group=None):
    _check_group(group)
    _dist.destroy_process_group()


def _require_init():
    if not _dist.is_initialized():
        raise RuntimeError("Default process group has not been initialized, please make sure to "
                           "call init_process_group.")


def get_rank(group=None):
    _check_group(group)
    return _dist.get_rank()


def get_world_size(group=None):
    _check_group(group)
    return _dist.get_world_size()


def get_backend(group=None):
    _check_group(group)
    _require_init()
    return _dist.get_backend()


def _op(op):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be an ember.distributed.ReduceOp, got {type(op).__name__}")
    return op


class Work:
    """The handle of an async_op=True collective: wait() blocks (GIL released) until it is done
    and raises its error; is_completed(), is_success(), result(), source_rank()."""

    __slots__ = ("_native",)

    def __init__(self, native):
        self._native = native

    def wait(self, timeout=None):
        seconds = 0.0 if timeout is None else (
            timeout.total_seconds() if isinstance(timeout, _datetime.timedelta) else float(timeout))
        return self._native.wait(seconds)

    def is_completed(self):
        return self._native.is_completed()

    def is_success(self):
        return self._native.is_success()

    def result(self):
        return self._native.result()

    def source_rank(self):
        return self._native.source_rank()

    def __repr__(self):
        return f"<ember.distributed.Work {self._native.op_name}>"


def _finish(native, async_op):
    return Work(native) if async_op else None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_group(group)
    _require_init()
    return _finish(_dist.all_reduce(tensor, _op(op), bool(async_op)), async_op)


def broadcast(tensor, src, group=None, async_op=False):
    _check_group(group)
    _require_init()
    return _finish(_dist.broadcast(tensor, int(src), bool(async_op)), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list: world_size tensors shaped as tensor, written in place (an empty list is
    filled with new ones, an ember extension)."""
    _check_group(group)
    _require_init()
    if not isinstance(tensor_list, list):
        raise TypeError("all_gather: tensor_list must be a list of tensors")
    return _finish(_dist.all_gather(tensor_list, tensor, bool(async_op)), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_group(group)
    _require_init()
    return _finish(_dist.all_gather_into_tensor(output_tensor, input_tensor, bool(async_op)),
                   async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    _check_group(group)
    _require_init()
    return _finish(_dist.reduce_scatter(output, list(input_list), _op(op), bool(async_op)),
                   async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_group(group)
    _require_init()
    return _finish(_dist.reduce_scatter_tensor(output, input, _op(op), bool(async_op)), async_op)


def send(tensor, dst, group=None, tag=0):
    _check_group(group)
    _require_init()
    _dist.isend(tensor, int(dst), int(tag)).wait(0.0)


def recv(tensor, src=None, group=None, tag=0):
    """Returns the sender's rank."""
    _check_group(group)
    _require_init()
    return _dist.recv(tensor, src, int(tag))


def isend(tensor, dst, group=None, tag=0):
    _check_group(group)
    _require_init()
    return Work(_dist.isend(tensor, int(dst), int(tag)))


def irecv(tensor, src=None, group=None, tag=0):
    _check_group(group)
    _require_init()
    return Work(_dist.irecv(tensor, src, int(tag)))


def barrier(group=None, async_op=False, device_ids=None):
    _check_group(group)
    _require_init()
    return _finish(_dist.barrier(bool(async_op)), async_op)


from ._composed import (  # noqa: E402,F401
    P2POp, all_gather_object, all_to_all, all_to_all_single, batch_isend_irecv,
    broadcast_object_list, gather, gather_object, get_process_group_ranks, reduce, scatter,
    scatter_object_list)
