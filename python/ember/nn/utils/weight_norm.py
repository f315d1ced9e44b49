"""weight_norm: w = g * v / ||v||, with the norm over every dim but `dim` (Salimans & Kingma, 2016);
g and v become the parameters and w is recomputed by a forward pre-hook, as PyTorch 1.13's
nn.utils.weight_norm."""
from ..parameter import Parameter


def _norm_except_dim(v, dim):
    """The 2-norm of `v` over every dim but `dim` (keeping v's rank), or over all of v (0-dim)
    when dim is -1."""
    if dim == -1:
        return (v * v).sum().sqrt()
    dim = dim % v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return (v * v).sum(others, keepdim=True).sqrt()


class WeightNorm:
    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same parameter "
                                   f"{name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        delattr(module, name)
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        delattr(module, self.name + "_g")
        delattr(module, self.name + "_v")
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparameterises `module.<name>` as <name>_g * <name>_v / ||<name>_v|| (dim None: one
    norm over the whole tensor) and returns the module."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Folds the reparameterisation back into a plain parameter `name`."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
