"""Embedding: a lookup table of num_embeddings rows, initialised N(0, 1); EmbeddingBag: the sum,
mean or maximum of the rows of each bag of indices."""
from ... import _C
from ..._C import _nn
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from ...autograd import no_grad


class _EmbeddingTable(Module):
    """What Embedding and EmbeddingBag share: the table's options, the weight table and its padding
    row."""

    def _init_table(self, num_embeddings, embedding_dim, max_norm, norm_type, scale_grad_by_freq,
                    sparse, padding_idx, _weight, device, dtype, padding_message):
        # PyTorch's two modules word the padding_idx error differently; each passes its own.
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        n = num_embeddings
        if padding_idx is not None:
            if not -n <= padding_idx < n:
                raise AssertionError(padding_message)
            if padding_idx < 0:
                padding_idx += n
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_C.empty((n, self.embedding_dim), device=device, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [n, self.embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0


class Embedding(_EmbeddingTable):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 device=None, dtype=None):
        super().__init__()
        self._init_table(num_embeddings, embedding_dim, max_norm, norm_type, scale_grad_by_freq,
                         sparse, padding_idx, _weight, device, dtype,
                         "Padding_idx must be within num_embeddings")

    def forward(self, input):
        return _nn.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        out = cls(rows, cols, _weight=embeddings, padding_idx=padding_idx, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
        out.weight.requires_grad = not freeze
        return out


class EmbeddingBag(_EmbeddingTable):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self._init_table(num_embeddings, embedding_dim, max_norm, norm_type, scale_grad_by_freq,
                         sparse, padding_idx, _weight, device, dtype,
                         "padding_idx must be within num_embeddings")
        self.mode = mode
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                               self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        out = cls(rows, cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        out.weight.requires_grad = not freeze
        return out
