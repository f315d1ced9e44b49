"""ember.utils.checkpoint: activation checkpointing over the C++ ember::utils::checkpoint. The
checkpointed function runs without keeping its intermediate tensors and runs again in the backward
pass, with the random state of the first run, so dropout draws the same mask."""
import warnings

from .. import _C
from .._C import _checkpoint


def checkpoint(function, *args, use_reentrant=True, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), its activations recomputed in the backward. Gradients reach the
    tensor arguments and every parameter the function uses. Both forms of PyTorch compute the same
    gradients with backward(); use_reentrant=False also takes keyword arguments and gives the
    parameters their gradients when no argument requires grad (reentrant: none, as PyTorch)."""
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
    inputs = [args[i] for i in positions]
    if not any(t.requires_grad for t in inputs):
        if use_reentrant:
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")
        else:
            # A leaf that requires grad makes the checkpoint's node part of the graph, so the
            # recomputation runs and the parameters inside get their gradients.
            inputs.append(_C.empty(0, requires_grad=True))
    single = []

    def run(tensors):
        call_args = list(args)
        for i, t in zip(positions, tensors):
            call_args[i] = t
        out = function(*call_args, **kwargs)
        single.append(isinstance(out, _C.Tensor))
        if single[-1]:
            return [out]
        if not (isinstance(out, (tuple, list)) and all(isinstance(o, _C.Tensor) for o in out)):
            raise TypeError("checkpoint: the function must return a Tensor or a tuple of "
                            f"Tensors, got {type(out).__name__}")
        return list(out)

    outputs = _checkpoint.checkpoint(run, inputs, preserve_rng_state)
    return outputs[0] if single[0] else tuple(outputs)


def checkpoint_sequential(functions, segments, input, use_reentrant=True,
                          preserve_rng_state=True):
    """Runs `functions` (an nn.Sequential or a list of callables) in order on `input`, split into
    `segments` runs of about equal length, checkpointing every segment but the last."""
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        part = functions[start:end + 1]

        def run_segment(x, part=part):
            for f in part:
                x = f(x)
            return x

        input = checkpoint(run_segment, input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve_rng_state)
    for f in functions[end + 1:]:
        input = f(input)
    return input
