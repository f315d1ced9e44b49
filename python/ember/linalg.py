"""torch.linalg's square-matrix functions, each one C++ call (include/ember/linalg.h): inv,
solve, det, slogdet and cholesky, on float32/float64 batches of matrices on any device, differentiable.
LinAlgError (a RuntimeError) is what a singular matrix raises, as torch.linalg.LinAlgError."""
from ._C import _LinAlgError as LinAlgError
from ._C._linalg import cholesky, det, inv, slogdet, solve

__all__ = ["LinAlgError", "cholesky", "det", "inv", "slogdet", "solve"]
