"""ember.cuda.RawKernel: a CUDA C++ kernel compiled at run time, in CuPy's spelling, over
ember::cuda::RawKernel (include/ember/cuda_kernel.h; NVRTC on a CUDA build, the host compiler on
simulated devices):

    add = ember.cuda.RawKernel(r'''
    extern "C" __global__ void add(const float* a, const float* b, float* y, long long n) {
        long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
        if (i < n) y[i] = a[i] + b[i];
    }''', "add")
    add(((n + 255) // 256,), (256,), (a, b, y, n))

Arguments: a tensor is passed as its data pointer (a contiguous CUDA tensor on the current
device). Scalars are typed as CuPy types them: a Python int is a 64-bit integer (`long long`,
`int64_t`), a float is `double`, a bool is `bool`; a numpy scalar keeps its type
(`numpy.int32(n)` for an `int` parameter, `numpy.float32(x)` for `float`), and so does a pair
`(value, ember_dtype)` such as `(n, ember.int32)`. Types: int32, int64, uint32, uint64, float32,
float64, bool."""
import numbers

from .. import _C

_DTYPE_NAMES = {"int32", "int64", "uint32", "uint64", "float32", "float64", "bool"}


def _dim(value, what):
    """A grid or block: an int or a tuple of 1 to 3 positive ints, as (x, y, z)."""
    dims = (value,) if isinstance(value, numbers.Integral) else value
    if not isinstance(dims, (tuple, list)) or not 1 <= len(dims) <= 3:
        raise ValueError(f"RawKernel: {what} must be an int or a tuple of 1 to 3 ints, "
                         f"got {value!r}")
    out = []
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise TypeError(f"RawKernel: {what} must hold ints, got {value!r}")
        if d < 1 or d > 0xFFFFFFFF:
            raise ValueError(f"RawKernel: every {what} dimension must be at least 1, "
                             f"got {value!r}")
        out.append(int(d))
    return tuple(out + [1] * (3 - len(out)))


def _scalar(arg, i):
    """A numpy scalar or a (value, ember dtype) pair as (type name, value)."""
    if isinstance(arg, tuple):
        if len(arg) == 2 and isinstance(arg[1], _C.dtype):
            name = str(arg[1]).rsplit(".", 1)[-1]
            if name not in _DTYPE_NAMES:
                raise TypeError(f"RawKernel: argument {i} has dtype {arg[1]}, which a kernel "
                                f"argument cannot have (one of: {', '.join(sorted(_DTYPE_NAMES))})")
            return (name, arg[0])
        raise TypeError(f"RawKernel: argument {i} is a tuple; a typed scalar is "
                        f"(value, ember dtype), e.g. (n, ember.int32)")
    dtype = getattr(arg, "dtype", None)
    if dtype is not None and type(arg).__module__ == "numpy":
        name = "bool" if dtype.kind == "b" else str(dtype)
        if name not in _DTYPE_NAMES:
            raise TypeError(f"RawKernel: argument {i} is a numpy {dtype} scalar, which a kernel "
                            f"argument cannot be (one of: {', '.join(sorted(_DTYPE_NAMES))})")
        return (name, arg.item())
    return arg


class RawKernel:
    """RawKernel(code, name, options=(), backend='nvrtc'); call it as
    kernel(grid, block, args, shared_mem=0, stream=None)."""

    def __init__(self, code, name, options=(), backend="nvrtc"):
        if backend != "nvrtc":
            raise ValueError(f"RawKernel: backend {backend!r} is not supported (only 'nvrtc')")
        if not isinstance(code, str) or not isinstance(name, str):
            raise TypeError("RawKernel(code, name): code and name must be str")
        if not _C._cuda.is_available():
            raise RuntimeError("ember.cuda.RawKernel: CUDA is not available: "
                               + _C._cuda.unavailable_reason())
        self.code = code
        self.name = name
        self.options = tuple(options)
        self.backend = backend
        self._native = _C._raw_kernel._RawKernel(code, name, list(self.options))

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        grid = _dim(grid, "grid")
        block = _dim(block, "block")
        if not isinstance(args, (tuple, list)):
            raise TypeError("RawKernel: args must be a tuple of arguments")
        if isinstance(shared_mem, bool) or not isinstance(shared_mem, numbers.Integral) \
                or shared_mem < 0:
            raise ValueError(f"RawKernel: shared_mem must be a byte count >= 0, got {shared_mem!r}")
        values = [_scalar(a, i) for i, a in enumerate(args)]
        if stream is None:
            self._native.launch(grid, block, values, int(shared_mem))
        else:
            from .streams import stream as stream_context
            with stream_context(stream):
                self._native.launch(grid, block, values, int(shared_mem))

    def __repr__(self):
        return f"<ember.cuda.RawKernel {self.name!r}>"
