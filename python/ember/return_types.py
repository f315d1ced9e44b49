"""The named pairs that reductions over a dim return (x.max(dim), x.sort(), x.topk(k) are (values, indices)), printing
as PyTorch's ember.return_types.max(values=..., indices=...)."""
from collections import namedtuple


def _pair(name):
    base = namedtuple(name, ["values", "indices"])

    def __repr__(self):
        return f"ember.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                "__module__": "ember.return_types"})


max = _pair("max")  # noqa: A001  PyTorch's name
min = _pair("min")  # noqa: A001
sort = _pair("sort")
topk = _pair("topk")
_PAIRS = {"max": max, "min": min, "sort": sort, "topk": topk}


def _make_values_indices(name, values, indices):
    return _PAIRS[name](values, indices)
