"""Tensor methods and functions that PyTorch programs use often and that are compositions of
Ember's compiled ops: the `new_*` factories, `repeat`, `tril`/`triu`, `diag`/`diagonal`/`trace`,
`movedim`, `unflatten`, `argwhere`. Gradients flow through the ops they are made of (the graph has
those ops' nodes, not one node named after the composite)."""
from . import _C


def _sizes(args, what):
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(args[0])
    for a in args:
        if not isinstance(a, int):
            raise TypeError(f"{what}(): size must be a sequence of ints, got {type(a).__name__}")
    return tuple(args)


def _like(self, dtype, device):
    return (self.dtype if dtype is None else dtype), (self.device if device is None else device)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.zeros(_sizes(size, "new_zeros"), dtype=dtype, device=device,
                    requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.ones(_sizes(size, "new_ones"), dtype=dtype, device=device,
                   requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.empty(_sizes(size, "new_empty"), dtype=dtype, device=device,
                    requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    dtype, device = _like(self, dtype, device)
    return _C.full(tuple(size), fill_value, dtype=dtype, device=device,
                   requires_grad=requires_grad)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._tensor_ctor import tensor
    dtype, device = _like(self, dtype, device)
    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def repeat(self, *sizes):
    """Tiles the tensor: each dim i repeated sizes[i] times (leading new dims allowed)."""
    reps = _sizes(sizes, "repeat")
    if len(reps) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           f"of dimensions of tensor (repeat dims {len(reps)}, tensor {self.dim()})")
    shape = (1,) * (len(reps) - self.dim()) + tuple(self.shape)
    # [r0, s0, r1, s1, ...] read in row-major order is the tiling; one copy at the final reshape.
    pairs = [d for s in shape for d in (1, s)]
    expanded = [d for r, s in zip(reps, shape) for d in (r, s)]
    return self.reshape(shape).reshape(pairs).expand(expanded).reshape(
        [r * s for r, s in zip(reps, shape)])


def _band_mask(rows, cols, device, diagonal, lower):
    """True on and below (lower) or on and above the diagonal `diagonal` of a rows x cols grid."""
    offset = (_C.arange(cols, device=device).unsqueeze(0)
              - _C.arange(rows, device=device).unsqueeze(1))
    return offset <= diagonal if lower else offset >= diagonal


def _band(self, diagonal, lower):
    if self.dim() < 2:  # PyTorch's words: its kernel asks for dim -2 first
        n = self.dim()
        raise IndexError(f"{'tril' if lower else 'triu'}: Dimension out of range (expected to be "
                         f"in range of [{-max(n, 1)}, {max(n, 1) - 1}], but got -2)")
    return _band_mask(self.shape[-2], self.shape[-1], self.device, diagonal, lower)


def tril(input, diagonal=0):
    return _C.where(_band(input, diagonal, True), input, 0)


def triu(input, diagonal=0):
    return _C.where(_band(input, diagonal, False), input, 0)


def tril_(self, diagonal=0):
    return self.masked_fill_(~_band(self, diagonal, True), 0)


def triu_(self, diagonal=0):
    return self.masked_fill_(~_band(self, diagonal, False), 0)


def _diagonal_view(input, offset):
    """The diagonal of a 2-D tensor (offset > 0 above the main one), as a strided slice."""
    if input.dim() != 2:
        raise RuntimeError(f"diagonal: only 2-D tensors are supported here, got {input.dim()}-D")
    n, m = input.shape
    if offset >= 0:
        start, length = offset, min(n, m - offset)
    else:
        start, length = -offset * m, min(n + offset, m)
    if length <= 0:
        return input.reshape(-1)[:0]
    return input.reshape(-1)[start:start + (length - 1) * (m + 1) + 1:m + 1]


def diagonal(input, offset=0):
    return _diagonal_view(input, offset)


def diag(input, diagonal=0):
    """A 1-D tensor made the diagonal of a square matrix, or a 2-D tensor's diagonal."""
    if input.dim() == 2:
        return _diagonal_view(input, diagonal)
    if input.dim() != 1:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    k = abs(diagonal)
    n = input.shape[0] + k
    padded = _C.cat([input, input.new_zeros(k)]) if k else input
    on_band = (_band_mask(n, n, input.device, diagonal, True)
               & _band_mask(n, n, input.device, diagonal, False))
    # Above the main diagonal row i holds input[i]; below it column j holds input[j].
    values = padded.unsqueeze(1) if diagonal >= 0 else padded.unsqueeze(0)
    return _C.where(on_band, values, 0)


def trace(input):
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return _diagonal_view(input, 0).sum()


def movedim(input, source, destination):
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError("movedim() takes (int source, int destination) or (tuple of ints source, "
                        f"tuple of ints destination), got ({type(source).__name__}, "
                        f"{type(destination).__name__})")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError("movedim: Invalid source or destination dims: source "
                           f"({src} dims) should contain the same number of dims as "
                           f"destination ({dst} dims)")
    n = input.dim()
    src = [d % n if -n <= d < n else _bad_dim(d, n) for d in src]
    dst = [d % n if -n <= d < n else _bad_dim(d, n) for d in dst]
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    return input.permute([o if o is not None else next(rest) for o in order])


def _bad_dim(d, n):
    raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                     f"but got {d})")


def unflatten(input, dim, sizes):
    n = input.dim()
    d = dim % n if -n <= dim < n else _bad_dim(dim, n)
    shape = list(input.shape)
    return input.view(shape[:d] + list(sizes) + shape[d + 1:])


def argwhere(input):
    return input.nonzero()


_METHODS = {
    "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
    "new_full": new_full, "new_tensor": new_tensor, "repeat": repeat, "tril": tril,
    "triu": triu, "tril_": tril_, "triu_": triu_, "diagonal": diagonal, "diag": diag,
    "trace": trace, "movedim": movedim, "unflatten": unflatten, "argwhere": argwhere,
}
FUNCTIONS = {"tril": tril, "triu": triu, "diagonal": diagonal, "diag": diag, "trace": trace,
             "movedim": movedim, "argwhere": argwhere, "unflatten": unflatten}
for _name, _fn in _METHODS.items():
    setattr(_C.Tensor, _name, _fn)
