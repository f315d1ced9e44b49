"""AdaptiveLogSoftmaxWithLoss (Grave et al.'s efficient softmax for large vocabularies), with
PyTorch 1.13's arguments, submodules (head, tail), outputs and errors: the same computation as the
C++ module of src/nn/adaptive.cpp, written with ember ops over the Python Linear layers."""
from collections import namedtuple

from ... import _C
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > (n_classes - 1)
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        kw = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            out = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, out, bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input, target):
        targ_dim = target.dim()
        if targ_dim == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs "
                                   f"with size {input.size()}")
        elif targ_dim == 0:
            if input.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs "
                                   f"with size {input.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = targ_dim > 0
        x = input if batched else input.unsqueeze(0)
        t = target if batched else target.unsqueeze(0)
        output = _C.zeros(t.shape[0], dtype=x.dtype, device=x.device)
        gather_inds = t.to(_C.int64)
        used_rows = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            in_cluster = (t >= low) & (t < high)
            rows = in_cluster.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            used_rows += rows.numel()
            if i == 0:
                continue
            relative = t.index_select(0, rows).to(_C.int64) - low
            cluster_output = self.tail[i - 1](x.index_select(0, rows))
            gather_inds = _C.where(in_cluster, self.shortlist_size + i - 1, gather_inds)
            local = cluster_output.log_softmax(1).gather(1, relative.unsqueeze(1)).squeeze(1)
            output = output.index_add(0, rows, local)
        if used_rows != t.shape[0]:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{t.min().item()}, {t.max().item()}] were "
                               "found. ")
        head_logprob = self.head(x).log_softmax(1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = head_output.log_softmax(1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = self.tail[i](input).log_softmax(1)
            k = self.shortlist_size + i
            parts.append(cluster_logprob + head_logprob[:, k:k + 1])
        return _C.cat(parts, 1)

    def log_prob(self, input):
        """Every class's log-probability for a batch [N, in_features] (2-D only, as PyTorch)."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        return self.log_prob(input).argmax(dim=1)
