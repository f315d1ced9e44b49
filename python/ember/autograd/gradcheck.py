"""ember.autograd.gradcheck: a function's analytical gradients (backward) against central finite
differences, as torch.autograd.gradcheck does in its default (not fast) mode.

For each input x that requires grad and each output y, the numerical Jacobian column of element k
is (f(x + eps e_k) - f(x - eps e_k)) / (2 eps); the analytical row of output element j is the
gradient of y_j (a one-hot grad_outputs) with respect to x. They must agree within
atol + rtol * |numerical|, element by element.

fast_mode=True checks one random direction instead of whole Jacobians, as PyTorch's fast mode:
for a random unit vector u of the input and a random vector v of the output, v . (J u) from
finite differences along u against u . (J^T v) from one backward.

gradgradcheck checks second derivatives: gradcheck of the function that maps (inputs,
grad_outputs) to the gradients backward gives with create_graph=True."""
import warnings

from .. import _C


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians differ (a RuntimeError, as PyTorch's)."""


def _as_tuple(x):
    return (x,) if isinstance(x, _C.Tensor) else tuple(x)


def _outputs(func, inputs):
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, _C.Tensor))


def _flat_outputs(func, inputs):
    """func's tensor outputs, flattened float64 copies. func runs with grad mode on, as in
    PyTorch: gradgradcheck's function calls backward itself."""
    import ember

    return [o.detach().reshape(-1).to(ember.float64).clone() for o in _outputs(func, inputs)]


def _central_difference(func, inputs, move, eps):
    """Per output: (f(x + eps d) - f(x - eps d)) / (2 eps), flattened, in float64. move(s) puts
    the input at its original value plus s times the direction d (in place), move(0) back."""
    move(eps)
    plus = _flat_outputs(func, inputs)
    move(-eps)
    minus = _flat_outputs(func, inputs)
    move(0)
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _numerical_jacobian(func, inputs, x, eps):
    """Per output: a [x.numel(), y.numel()] float64 tensor (row k: d y / d x_k)."""
    import ember

    flat = x.detach().view(-1)  # shares x's storage: each element is nudged in place
    columns = None
    for k in range(flat.numel()):
        original = flat[k].item()
        rows_k = _central_difference(
            func, inputs, lambda s, k=k, original=original: flat.__setitem__(k, original + s), eps)
        if columns is None:
            columns = [[] for _ in rows_k]
        for rows, r in zip(columns, rows_k):
            rows.append(r)
    return [ember.stack(rows) for rows in columns or []]


def _numerical_directional(func, inputs, x, u, eps):
    """Per output: the derivative along u, flattened, in float64."""
    flat = x.detach().view(-1)
    original = flat.clone()
    return _central_difference(
        func, inputs, lambda s: flat.copy_(original + (u * s).to(flat.dtype)), eps)


def _analytical_jacobian(outputs, x):
    """Per output: a [x.numel(), y.numel()] float64 tensor from backward with one-hot grads."""
    import ember

    jacobians = []
    for y in outputs:
        rows = []
        for j in range(y.numel()):
            onehot = ember.zeros(y.numel(), dtype=y.dtype, device=y.device)
            onehot[j] = 1
            g = ember.autograd.grad(y, [x], grad_outputs=[onehot.view(y.shape)],
                                    retain_graph=True, allow_unused=True)[0]
            if g is None:
                g = ember.zeros(x.numel(), dtype=ember.float64, device=x.device)
            rows.append(g.detach().reshape(-1).to(ember.float64))
        if rows:
            jacobians.append(ember.stack(rows, 1))
        else:
            jacobians.append(ember.zeros(x.numel(), 0, dtype=ember.float64, device=x.device))
    return jacobians


def _random_like(t, seed):
    """A float64 vector of t's numel, uniform in [-1, 1), from its own seeded stream (the global
    generator is left alone, so a check does not change what the program draws next)."""
    import random

    import ember

    draw = random.Random(seed)
    values = [draw.uniform(-1.0, 1.0) for _ in range(t.numel())]
    return ember.tensor(values, dtype=ember.float64, device=t.device)


def _fast_check(func, inputs, checked, eps, atol, rtol):
    """(input, output, numerical, analytical) of the first direction that disagrees, or None."""
    import ember

    outputs = _outputs(func, inputs)
    vs = [_random_like(y, 1000 + o) for o, y in enumerate(outputs)]
    analytical = {}
    for i in checked:  # every backward before the nudges (saved tensors keep their versions)
        x = inputs[i]
        u = _random_like(x, i)
        u = u / u.norm() if float(u.norm()) > 0 else u
        per_output = []
        for y, v in zip(outputs, vs):
            g = ember.autograd.grad(y, [x], grad_outputs=[v.to(y.dtype).view(y.shape)],
                                    retain_graph=True, allow_unused=True)[0]
            a = 0.0 if g is None else float((g.detach().reshape(-1).to(ember.float64) * u).sum())
            per_output.append(a)
        analytical[i] = (u, per_output)
    for i in checked:
        u, per_output = analytical[i]
        numerical = _numerical_directional(func, inputs, inputs[i], u, eps)
        for o, (n_vec, v, a) in enumerate(zip(numerical, vs, per_output)):
            n = float((n_vec * v).sum())
            if abs(a - n) > atol + rtol * abs(n):
                return i, o, n, a
    return None


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              fast_mode=False, **_unused):
    """True when func's gradients match finite differences for every input that requires grad;
    otherwise raises GradcheckError (or returns False with raise_exception=False)."""
    inputs = _as_tuple(inputs)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, _C.Tensor) and t.requires_grad]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in checked:
        if str(inputs[i].dtype) not in ("ember.float64", "ember.complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex.")
    if fast_mode:
        bad = _fast_check(func, inputs, checked, eps, atol, rtol)
        if bad is None:
            return True
        if not raise_exception:
            return False
        i, o, n, a = bad
        raise GradcheckError(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{n}\nanalytical:{a}\n(fast mode: one random direction; "
                             "rerun with fast_mode=False for the whole Jacobians)\n")
    # Every analytical Jacobian first: the finite differences nudge the inputs in place, which
    # the graph's saved tensors would then refuse (their version moved).
    outputs = _outputs(func, inputs)
    analytical = {i: _analytical_jacobian(outputs, inputs[i]) for i in checked}
    for i in checked:
        numerical = _numerical_jacobian(func, inputs, inputs[i], eps)
        for o, (n, a) in enumerate(zip(numerical, analytical[i])):
            if bool(((a - n).abs() <= atol + rtol * n.abs()).all()):
                continue
            if not raise_exception:
                return False
            raise GradcheckError(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                                 f"numerical:{n}\nanalytical:{a}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, fast_mode=False, **_unused):
    """gradcheck of func's first derivatives: the function (inputs, grad_outputs) -> the
    gradients of func's outputs with respect to its inputs that require grad, computed with
    create_graph=True. grad_outputs default to random tensors in [-1, 1) that require grad."""
    import ember

    inputs = _as_tuple(inputs)
    outputs = [o for o in _outputs(func, inputs) if o.requires_grad]
    if grad_outputs is None:
        grad_outputs = tuple(
            (ember.rand(o.shape, dtype=o.dtype, device=o.device) * 2 - 1).requires_grad_()
            for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n = len(grad_outputs)

    def first_derivatives(*args):
        xs, gs = args[:-n] if n else args, args[-n:] if n else ()
        ys = [o for o in _outputs(func, xs) if o.requires_grad]
        wrt = [x for x in xs if isinstance(x, _C.Tensor) and x.requires_grad]
        grads = ember.autograd.grad(ys, wrt, grad_outputs=list(gs), create_graph=True,
                                    allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode)
