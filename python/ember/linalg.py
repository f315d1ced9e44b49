"""torch.linalg, each function one C++ call (include/ember/linalg.h; docs/linalg.md): the
square-matrix functions (inv, solve, det, slogdet, cholesky), the decompositions (qr, eigh, svd,
lu), least squares and the functions built on them (norms, pinv, matrix_exp, cond, ...), on
float32/float64 batches of matrices on any device, differentiable.
LinAlgError (a RuntimeError) is what a singular matrix raises, as torch.linalg.LinAlgError."""
from . import return_types as _return_types
from ._C import _LinAlgError as LinAlgError
from ._C import _linalg
from ._C._linalg import (cholesky, cond, cross, det, diagonal, eigvalsh, householder_product, inv,
                         lu_solve, matmul, matrix_exp, matrix_norm, matrix_power, matrix_rank,
                         multi_dot, norm, pinv, slogdet, solve, solve_triangular, svdvals,
                         tensorinv, tensorsolve, vander, vecdot, vector_norm)


# The functions that return several tensors name them as PyTorch's return types.
def qr(A, mode="reduced"):
    return _return_types.linalg_qr(*_linalg.qr(A, mode))


def eigh(A, UPLO="L"):
    return _return_types.linalg_eigh(*_linalg.eigh(A, UPLO))


def svd(A, full_matrices=True, *, driver=None):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    return _return_types.linalg_svd(*_linalg.svd(A, full_matrices))


def lu_factor(A, *, pivot=True):
    return _return_types.linalg_lu_factor(*_linalg.lu_factor(A, pivot=pivot))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    return _return_types.linalg_lu_factor_ex(
        *_linalg.lu_factor_ex(A, pivot=pivot, check_errors=check_errors))


def lu(A, *, pivot=True):
    return _return_types.linalg_lu(*_linalg.lu(A, pivot=pivot))


def inv_ex(A, *, check_errors=False):
    return _return_types.linalg_inv_ex(*_linalg.inv_ex(A, check_errors=check_errors))


def cholesky_ex(A, *, upper=False, check_errors=False):
    return _return_types.linalg_cholesky_ex(
        *_linalg.cholesky_ex(A, upper=upper, check_errors=check_errors))


def solve_ex(A, B, *, left=True, check_errors=False):
    return _return_types.linalg_solve_ex(
        *_linalg.solve_ex(A, B, left=left, check_errors=check_errors))


def lstsq(A, B, rcond=None, *, driver=None):
    return _return_types.linalg_lstsq(*_linalg.lstsq(A, B, rcond, driver=driver))


def _qr(input, some=True):
    """torch.qr (deprecated in PyTorch, still called): linalg.qr's reduced or complete form."""
    return _return_types.qr(*_linalg._qr_some(input, some))


def _svd(input, some=True, compute_uv=True):
    """torch.svd (deprecated in PyTorch, still called): V rather than Vh; compute_uv=False
    zero-fills square U and V."""
    return _return_types.svd(*_linalg._svd_some(input, some, compute_uv))


__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
           "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power",
           "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex",
           "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]
