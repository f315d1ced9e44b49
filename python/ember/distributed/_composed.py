"""The collectives of torch.distributed that Ember builds from the bound ones (all_reduce,
broadcast, all_gather): reduce, gather, scatter, and the object collectives, which pickle each
object into a uint8 tensor. They move more data than a native rooted collective would (reduce is
an all_reduce), which is correct for every rank; `async_op=True` runs them to completion and
returns a finished handle."""
import io
import pickle

from .. import _C
from .._tensor_ctor import tensor as _tensor


class _CompletedWork:
    """What a composed collective returns for async_op=True: it already ran."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True


def _api():
    """ember.distributed itself (this module is imported by it, so not at import time)."""
    import ember.distributed as dist
    return dist


def _done(async_op):
    return _CompletedWork() if async_op else None


def _object_device():
    """Object bytes travel as CPU tensors with Gloo and on the current device with NCCL."""
    dist = _api()
    if dist.get_backend() == "nccl":
        return _C.device("cuda", _C._cuda.current_device())
    return _C.device("cpu")


def _to_tensor(obj):
    buffer = io.BytesIO()
    pickle.Pickler(buffer).dump(obj)
    data = list(buffer.getvalue())
    return _tensor(data, dtype=_C.uint8).to(_object_device())


def _to_object(tensor, size):
    return pickle.loads(bytes(tensor[:size].cpu().tolist()))


def reduce(tensor, dst, op=None, group=None, async_op=False):
    """The reduction of every rank's tensor lands in `tensor` on rank dst (the other ranks hold
    it too: this is an all_reduce)."""
    dist = _api()
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM if op is None else op, group=group)
    return _done(async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Rank dst receives every rank's tensor into gather_list (given on dst only)."""
    dist = _api()
    rank = dist.get_rank()
    if rank == dst:
        if gather_list is None or len(gather_list) != dist.get_world_size():
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    parts = [_C.empty_like(tensor) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, tensor, group=group)
    if rank == dst:
        for out, part in zip(gather_list, parts):
            out.copy_(part)
    return _done(async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank i receives scatter_list[i] of rank src (given on src only) into `tensor`."""
    dist = _api()
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank == src:
        if scatter_list is None or len(scatter_list) != world:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    for i in range(world):
        piece = scatter_list[i].clone() if rank == src else _C.empty_like(tensor)
        dist.broadcast(piece, src, group=group)
        if i == rank:
            tensor.copy_(piece)
    return _done(async_op)


def all_gather_object(object_list, obj, group=None):
    """object_list[i] = rank i's obj, on every rank."""
    dist = _api()
    world = dist.get_world_size()
    data = _to_tensor(obj)
    sizes = [_C.zeros(1, dtype=_C.int64, device=data.device) for _ in range(world)]
    dist.all_gather(sizes, _tensor([data.numel()], dtype=_C.int64).to(data.device),
                    group=group)
    longest = max(int(s.item()) for s in sizes)
    padded = _C.zeros(longest, dtype=_C.uint8, device=data.device)
    padded[:data.numel()] = data
    parts = [_C.zeros(longest, dtype=_C.uint8, device=data.device) for _ in range(world)]
    dist.all_gather(parts, padded, group=group)
    for i in range(world):
        object_list[i] = _to_object(parts[i], int(sizes[i].item()))


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Rank dst receives every rank's obj into object_gather_list (given on dst only)."""
    dist = _api()
    if dist.get_rank() == dst and (object_gather_list is None
                                   or len(object_gather_list) != dist.get_world_size()):
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    gathered = [None] * dist.get_world_size()
    all_gather_object(gathered, obj, group=group)
    if dist.get_rank() == dst:
        object_gather_list[:] = gathered


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Rank src's objects replace object_list's on every rank (same length everywhere)."""
    dist = _api()
    is_src = dist.get_rank() == src
    data = _to_tensor(list(object_list)) if is_src else None
    size = _tensor([data.numel() if is_src else 0], dtype=_C.int64).to(_object_device())
    dist.broadcast(size, src, group=group)
    payload = data if is_src else _C.zeros(int(size.item()), dtype=_C.uint8,
                                             device=_object_device())
    dist.broadcast(payload, src, group=group)
    if not is_src:
        object_list[:] = _to_object(payload, int(size.item()))


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0,
                        group=None):
    """scatter_object_output_list[0] = rank src's scatter_object_input_list[rank]."""
    dist = _api()
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    objects = list(scatter_object_input_list) if dist.get_rank() == src else \
        [None] * dist.get_world_size()
    broadcast_object_list(objects, src=src, group=group)
    scatter_object_output_list[0] = objects[dist.get_rank()]


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Rank r's output holds the r-th equal chunk (along dim 0) of every rank's input, in rank
    order. Uneven splits are not composed from all_gather and are refused."""
    dist = _api()
    if output_split_sizes is not None or input_split_sizes is not None:
        raise NotImplementedError("ember.distributed.all_to_all_single: only equal splits "
                                  "(output_split_sizes=None, input_split_sizes=None)")
    world, rank = dist.get_world_size(), dist.get_rank()
    if input.size(0) % world != 0:
        raise ValueError(f"all_to_all_single: dim 0 ({input.size(0)}) must divide by the world "
                         f"size {world}")
    everything = [_C.empty_like(input) for _ in range(world)]
    dist.all_gather(everything, input.contiguous(), group=group)
    chunk = input.size(0) // world
    output.copy_(_C.cat([t[rank * chunk:(rank + 1) * chunk] for t in everything]))
    return _done(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[i] on rank r = input_tensor_list[r] of rank i. Every tensor must have
    one shape (an all_gather per destination carries them)."""
    dist = _api()
    world, rank = dist.get_world_size(), dist.get_rank()
    if len(input_tensor_list) != world or len(output_tensor_list) != world:
        raise ValueError("all_to_all: the input and output lists must have world_size tensors")
    shapes = {tuple(t.shape) for t in list(input_tensor_list) + list(output_tensor_list)}
    if len(shapes) != 1:
        raise NotImplementedError("ember.distributed.all_to_all: tensors of different shapes "
                                  "are not supported")
    for j in range(world):
        parts = [_C.empty_like(input_tensor_list[j]) for _ in range(world)]
        dist.all_gather(parts, input_tensor_list[j].contiguous(), group=group)
        if j == rank:
            for out, part in zip(output_tensor_list, parts):
                out.copy_(part)
    return _done(async_op)


class P2POp:
    """One point-to-point operation for batch_isend_irecv: op is isend or irecv."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        dist = _api()
        if op not in (dist.isend, dist.irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Starts every operation and returns their Work handles, in order."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise RuntimeError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                           "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


def get_process_group_ranks(group):
    """The global ranks of `group`: every rank, for the default group (the only one Ember has)."""
    dist = _api()
    dist._check_group(group)
    return list(range(dist.get_world_size()))
