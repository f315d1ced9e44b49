"""parameters_to_vector / vector_to_parameters (the C++ nn::utils functions)."""
from ... import _C
from ..._C import _nn_utils


def _checked(parameters):
    parameters = list(parameters)
    for p in parameters:
        if p.device != parameters[0].device:
            raise TypeError("Found two parameters on different devices, this is currently not "
                            "supported.")
    return parameters


def parameters_to_vector(parameters):
    """One 1-D tensor: every parameter flattened, in order."""
    return _nn_utils.parameters_to_vector(_checked(parameters))


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of `vec` into the parameters. PyTorch makes each parameter a
    view of vec; Ember copies, so later writes to vec do not reach the parameters."""
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {type(vec).__name__}")
    _nn_utils.vector_to_parameters(vec, _checked(parameters))
