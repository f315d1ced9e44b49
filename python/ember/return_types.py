"""The named pairs that reductions over a dim return (x.max(dim), x.sort(), x.topk(k) are (values, indices)), printing
as PyTorch's ember.return_types.max(values=..., indices=...)."""
from collections import namedtuple


def _pair(name, fields=("values", "indices")):
    base = namedtuple(name, fields)

    def __repr__(self):
        parts = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"ember.return_types.{name}(\n{parts})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                "__module__": "ember.return_types"})


max = _pair("max")  # noqa: A001  PyTorch's name
min = _pair("min")  # noqa: A001
sort = _pair("sort")
topk = _pair("topk")
cummax = _pair("cummax")
cummin = _pair("cummin")
kthvalue = _pair("kthvalue")
median = _pair("median")
nanmedian = _pair("nanmedian")
aminmax = _pair("aminmax", ("min", "max"))
slogdet = _pair("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _pair("linalg_slogdet", ("sign", "logabsdet"))
linalg_qr = _pair("linalg_qr", ("Q", "R"))
linalg_eigh = _pair("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd = _pair("linalg_svd", ("U", "S", "Vh"))
qr = _pair("qr", ("Q", "R"))
svd = _pair("svd", ("U", "S", "V"))
linalg_lu_factor = _pair("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _pair("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu = _pair("linalg_lu", ("P", "L", "U"))
linalg_inv_ex = _pair("linalg_inv_ex", ("inverse", "info"))
linalg_cholesky_ex = _pair("linalg_cholesky_ex", ("L", "info"))
linalg_solve_ex = _pair("linalg_solve_ex", ("result", "info"))
linalg_lstsq = _pair("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_PAIRS = {"max": max, "min": min, "sort": sort, "topk": topk, "cummax": cummax,
          "cummin": cummin, "kthvalue": kthvalue, "median": median, "nanmedian": nanmedian,
          "aminmax": aminmax, "slogdet": slogdet, "linalg_slogdet": linalg_slogdet}


def _make_values_indices(name, values, indices):
    return _PAIRS[name](values, indices)
