"""ember.autograd.Function: a differentiable operation written in Python, as torch's:

    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

forward runs without recording; its tensor outputs are then recorded on the tape with a node
named <ClassName>Backward whose backward calls the class's backward (with the GIL)."""
import functools

from . import _C


class FunctionCtx:
    """The `ctx` of forward and backward."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"save_for_backward can only save tensors or None, but got "
                                f"{type(t).__name__}")
        self._saved = tensors

    @property
    def saved_tensors(self):
        saved = getattr(self, "_saved", ())
        if saved is None:
            raise RuntimeError("Trying to backward through the graph a second time (or directly "
                               "access saved tensors after they have already been freed)")
        return saved

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = {id(t) for t in tensors}

    def mark_dirty(self, *tensors):
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx):
    pass


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call apply(*args)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"{type(self).__name__}: autograd Functions are used through their "
                           "class: call .apply(*args), not the constructor")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = BackwardCFunction()
        ctx.materialize_grads = True
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        with _NoGrad():
            result = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        if not (_C.is_grad_enabled() and any(ctx.needs_input_grad)):
            return result
        positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        inputs = [args[i] for i in positions]
        input_ids = {id(a) for a in inputs}
        non_diff = getattr(ctx, "_non_differentiable", set())
        dirty = getattr(ctx, "_dirty", set())
        outputs = list(outputs)
        recorded = []  # (position in outputs, tensor)
        for k, o in enumerate(outputs):
            if not isinstance(o, _C.Tensor) or id(o) in non_diff:
                continue
            if id(o) in input_ids and id(o) not in dirty:
                # An input returned as is: the output is a new tensor over the same memory.
                with _NoGrad():
                    o = outputs[k] = o.view_as(o)
            if o.is_floating_point():
                recorded.append((k, o))
        if not recorded:
            return outputs[0] if single else tuple(outputs)
        out_ids = {id(o) for _, o in recorded}
        saved = getattr(ctx, "_saved", ())
        # An output saved for backward is kept detached: no cycle node -> ctx -> output -> node.
        ctx._saved = tuple(t.detach() if t is not None and id(t) in out_ids else t for t in saved)
        metas = [(o.shape, o.dtype, o.device) for _, o in recorded]
        n_out = len(outputs)
        where = [k for k, _ in recorded]
        n_args = len(args)

        def backward(*grads):
            full = [None] * n_out
            for k, g, (shape, dtype, device) in zip(where, grads, metas):
                if g is None and ctx.materialize_grads:
                    g = _C.zeros(shape, dtype=dtype, device=device)
                full[k] = g
            r = cls.backward(ctx, *full)
            r = r if isinstance(r, tuple) else (r,)
            if len(r) != n_args:
                if len(r) > n_args and all(g is None for g in r[n_args:]):
                    r = r[:n_args]
                else:
                    raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect "
                                       f"number of gradients (expected {n_args}, got {len(r)})")
            for i, g in enumerate(r):
                if g is not None and not isinstance(args[i] if i < n_args else None, _C.Tensor):
                    raise RuntimeError(f"function {cls.__name__}Backward returned a gradient "
                                       f"different than None at position {i + 1}, but the "
                                       "corresponding forward input was not a Variable")
            return [r[i] for i in positions]

        _C._record_function(f"{cls.__name__}Backward", [o for _, o in recorded], inputs,
                            backward)
        return outputs[0] if single else tuple(outputs)


class _NoGrad:
    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


def once_differentiable(fn):
    """Runs a backward without recording (its result is not differentiated again)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _NoGrad():
            return fn(ctx, *args)

    return wrapper
