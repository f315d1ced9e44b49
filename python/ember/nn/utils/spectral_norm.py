"""spectral_norm: w = w_orig / sigma(w_orig), sigma the largest singular value estimated by power
iteration with persistent vectors u and v (Miyato et al., 2018), recomputed by a forward pre-hook
(one or more iterations per training-mode forward, none in eval), as PyTorch 1.13's
nn.utils.spectral_norm. The state dict holds <name>_orig, <name>_u and <name>_v."""
from ... import _C
from ...autograd import no_grad
from ..parameter import Parameter


def _normalized(x, eps):
    """x / max(||x||, eps) for a vector (F.normalize(x, dim=0, eps=eps))."""
    return x / (x * x).sum().sqrt().clamp(min=eps)


def _mv(matrix, vector):
    return _C.matmul(matrix, vector)


class SpectralNorm:
    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix with the output dim `dim` as its rows."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # In place: the buffers carry the estimate from one forward to the next.
                    v.copy_(_normalized(_mv(matrix.t(), u), self.eps))
                    u.copy_(_normalized(_mv(matrix, v), self.eps))
                # sigma's graph must not see the next iteration's in-place updates.
                u = u.clone()
                v = v.clone()
        sigma = (u * _mv(matrix, v)).sum()
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = _normalized(weight.new_empty(h).normal_(0, 1), fn.eps)
            v = _normalized(weight.new_empty(w).normal_(0, 1), fn.eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Applies spectral normalisation to `module.<name>` and returns the module; dim defaults to
    1 for transposed convolutions (their output channels) and 0 otherwise."""
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d
        transposed = (ConvTranspose1d, ConvTranspose2d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
