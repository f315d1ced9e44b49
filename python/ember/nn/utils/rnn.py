"""Packed sequences for the recurrent layers, as torch.nn.utils.rnn: a PackedSequence holds the
time steps of a batch sorted by length (longest first) one after the other; batch_sizes[t] rows
belong to step t. The packing itself is C++ (nn::utils::rnn)."""
from collections import namedtuple

from ... import _C
from ..._C import _nn

_PackedSequenceBase = namedtuple("PackedSequence",
                                 ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = sorted_indices.argsort()
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: None if t is None else t.to(data.device))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cuda(self, *args, **kwargs):
        return self.to(self.data.cuda(*args, **kwargs).device)

    def cpu(self):
        return self.to("cpu")

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _lengths_tensor(lengths):
    if isinstance(lengths, _C.Tensor):
        return lengths.to("cpu").to(_C.int64)
    from ... import tensor  # the package's constructor, imported late to avoid a cycle
    return tensor([int(n) for n in lengths], dtype=_C.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    return PackedSequence(*_nn.pack_padded_sequence(input, _lengths_tensor(lengths), batch_first,
                                                    enforce_sorted))


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    if total_length is not None and total_length < sequence.batch_sizes.shape[0]:
        raise ValueError("Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {sequence.batch_sizes.shape[0]}")
    return _nn.pad_packed_sequence(sequence.data, sequence.batch_sizes, sequence.sorted_indices,
                                   sequence.unsorted_indices, batch_first, padding_value,
                                   total_length)


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    return _nn.pad_sequence(list(sequences), batch_first, padding_value)


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)
