"""nn.utils.parametrizations (PyTorch 1.13): spectral_norm as a parametrization. The weight is
divided by its largest singular value, estimated by power iteration with vectors _u and _v kept
as buffers of the parametrization (n_power_iterations per read in training mode, 15 when it is
registered). `orthogonal` needs matrix_exp and QR as ops, which Ember does not have yet."""
from ... import _C
from ...autograd import no_grad
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _normalized


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = self._reshape_weight_to_matrix(weight)
            h, w = matrix.shape
            with no_grad():
                self.register_buffer("_u", _normalized(matrix.new_empty(h).normal_(0, 1), eps))
                self.register_buffer("_v", _normalized(matrix.new_empty(w).normal_(0, 1), eps))
            self._power_method(matrix, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, matrix, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                # In place: the buffers carry the estimate from one read to the next.
                self._u.copy_(_normalized(_C.matmul(matrix, self._v), self.eps))
                self._v.copy_(_normalized(_C.matmul(matrix.t(), self._u), self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return _normalized(weight, self.eps)
        matrix = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / (u * _C.matmul(matrix, v)).sum()

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Registers the spectral-norm parametrization on module.<name> and returns the module; dim
    defaults to 1 for transposed convolutions and 0 otherwise."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _C.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
