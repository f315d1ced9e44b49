"""How one batch is made from its indices: a TensorDataset (or a Subset of one) batched by the
default collate is one index_select per tensor; anything else is dataset[i] per index, then
collate_fn."""
from ... import _C
from ..._tensor_ctor import tensor as _tensor
from ._collate import default_collate
from .dataset import Subset, TensorDataset


def _tensor_rows(dataset):
    """(tensors, index map) when a batch of `dataset` is rows of tensors, else None."""
    maps = []
    while type(dataset) is Subset:
        maps.append(dataset.indices)
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset or not dataset.tensors:
        return None
    return dataset.tensors, maps[::-1]


class MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        rows = _tensor_rows(dataset) if auto_collation and collate_fn is default_collate else None
        self.tensors, self.maps = rows if rows else (None, None)

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self.tensors is None:
            return self.collate_fn([self.dataset[i] for i in index])
        for m in self.maps:
            index = [m[i] for i in index]
        n = self.tensors[0].size(0)
        idx = _tensor(index, dtype=_C.int64)
        if index:
            lo, hi = min(index), max(index)
            for i in (lo, hi):  # dataset[i] would raise for these, as PyTorch's indexing does
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for dimension 0 with size {n}")
            if lo < 0:
                idx = idx % n
        on = {}
        out = []
        for t in self.tensors:
            i = on.get(t.device)
            if i is None:
                i = on[t.device] = idx.to(t.device)
            out.append(t.index_select(0, i))
        return out


class IterableFetcher:
    """Batches of consecutive samples of one iterator over an IterableDataset."""

    def __init__(self, iterator, auto_collation, collate_fn, batch_size, drop_last):
        self.iterator = iterator
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.batch_size = batch_size
        self.drop_last = drop_last

    def fetch(self):
        """The next batch; StopIteration at the end."""
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        batch = []
        for sample in self.iterator:
            batch.append(sample)
            if len(batch) == self.batch_size:
                break
        if not batch or (self.drop_last and len(batch) < self.batch_size):
            raise StopIteration
        return self.collate_fn(batch)
