"""ember.autograd.gradcheck: a function's analytical gradients (backward) against central finite
differences, as torch.autograd.gradcheck does in its default (not fast) mode.

For each input x that requires grad and each output y, the numerical Jacobian column of element k
is (f(x + eps e_k) - f(x - eps e_k)) / (2 eps); the analytical row of output element j is the
gradient of y_j (a one-hot grad_outputs) with respect to x. They must agree within
atol + rtol * |numerical|, element by element."""
import warnings

from .. import _C


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians differ (a RuntimeError, as PyTorch's)."""


def _as_tuple(x):
    return (x,) if isinstance(x, _C.Tensor) else tuple(x)


def _outputs(func, inputs):
    return tuple(o for o in _as_tuple(func(*inputs)) if isinstance(o, _C.Tensor))


def _numerical_jacobian(func, inputs, x, eps):
    """Per output: a [x.numel(), y.numel()] float64 tensor (row k: d y / d x_k)."""
    import ember

    flat = x.detach().view(-1)  # shares x's storage: each element is nudged in place
    columns = None
    with ember.no_grad():
        for k in range(flat.numel()):
            original = flat[k].item()
            flat[k] = original + eps
            plus = [o.detach().reshape(-1).to(ember.float64).clone() for o in _outputs(func, inputs)]
            flat[k] = original - eps
            minus = [o.detach().reshape(-1).to(ember.float64) for o in _outputs(func, inputs)]
            flat[k] = original
            if columns is None:
                columns = [[] for _ in plus]
            for rows, p, m in zip(columns, plus, minus):
                rows.append((p - m) / (2 * eps))
    return [ember.stack(rows) for rows in columns or []]


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


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_unused):
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
