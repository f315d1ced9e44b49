"""Datasets: map-style (Dataset, TensorDataset, Subset, ConcatDataset), IterableDataset, and
random_split."""
import bisect
import math

from ... import _C
from ..._generator import _python_random


class Dataset:
    """A map-style dataset: __getitem__(index) and, usually, __len__."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read as a stream: __iter__ yields the samples."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other):
        raise TypeError("IterableDataset does not support + (ChainDataset is not provided)")


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors); the DataLoader takes a batch of them with one
    index_select per tensor."""

    def __init__(self, *tensors):
        for t in tensors:
            if not isinstance(t, _C.Tensor):
                raise TypeError(f"TensorDataset takes tensors, got {type(t).__name__}")
        sizes = [t.size(0) for t in tensors]
        assert all(s == sizes[0] for s in sizes), (
            f"Size mismatch between tensors: sizes along dim 0 are {sizes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0) if self.tensors else 0


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ChainDataset(IterableDataset):
    """The iterable datasets one after another (iterated lazily, as PyTorch's ChainDataset)."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError(
                    f"absolute value of index {idx} should not exceed dataset length {len(self)}")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def _split_lengths(lengths, n):
    """Integer lengths from `lengths`: counts, or fractions summing to 1 (remainders spread
    round-robin, as PyTorch 1.13 does)."""
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1):
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1: {frac}")
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        return counts
    for x in lengths:
        if not isinstance(x, int) or isinstance(x, bool) or x < 0:
            raise ValueError(f"random_split lengths must be non-negative ints or fractions "
                             f"summing to 1, got {lengths}")
    if sum(lengths) != n:
        raise ValueError(f"Sum of input lengths ({sum(lengths)}) does not equal the length of "
                         f"the input dataset ({n})!")
    return lengths


def random_split(dataset, lengths, generator=None):
    """Subsets of a random permutation of `dataset`'s indices with the given lengths."""
    counts = _split_lengths(lengths, len(dataset))
    order = list(range(sum(counts)))
    _python_random(generator).shuffle(order)
    out, start = [], 0
    for c in counts:
        out.append(Subset(dataset, order[start:start + c]))
        start += c
    return out
