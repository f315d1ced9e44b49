"""ember.autograd.functional: derivatives of a whole function, built on autograd.grad as PyTorch
1.13's torch.autograd.functional (reverse mode; jvp and hvp by the double-backward trick: the
gradient with respect to a dummy grad_output is linear in it, so differentiating it again gives the
forward-mode product). `vectorize=True` is accepted and computes the same row by row."""
from .. import _C
from . import enable_grad as _enable_grad
from . import grad as _grad


def _as_tuple(x, arg_name, fn_name):
    """(tuple of tensors, whether x was a tuple), checking every element is a Tensor."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, _C.Tensor):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                                f"tuple of Tensors but the value at index {i} has type "
                                f"{type(t)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the given {arg_name} has type {type(t)}.")
    return items, is_tuple


def _tuple_postprocess(res, to_unpack):
    """Unpacks the nested tuples the way the user's inputs and outputs were given."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _prepare(inputs, create_graph):
    """Inputs the function is called on: leaves that require grad, or views keeping the user's
    graph when create_graph asks for a differentiable result."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _finish(values, create_graph):
    return tuple(v if v is None or create_graph else v.detach() for v in values)


def _grads(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """autograd.grad over the outputs that take part in a graph; None where an input is unused."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gos = zip(*pairs)
    return tuple(_grad(list(outs), list(inputs), list(gos), retain_graph=retain_graph,
                       create_graph=create_graph, allow_unused=True))


def _fill_unused(grads, refs, strict, fn_name, what):
    result = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The {what} for input {i} of {fn_name} is independent of the "
                                   "inputs. This is not allowed in strict mode.")
            g = _C.zeros_like(ref)
        result.append(g)
    return tuple(result)


def _check_v(v, outputs, fn_name, condition, outputs_tuple=True):
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {condition} a single "
                               "Tensor with a single element.")
        return (_C.ones_like(outputs[0]),)
    v, _ = _as_tuple(v, "v", fn_name)
    if len(v) != len(outputs):
        if not outputs_tuple:
            raise RuntimeError("The given v should contain a single Tensor.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(outputs)} but got "
                           f"{len(v)}.")
    for i, (a, b) in enumerate(zip(v, outputs)):
        if tuple(a.shape) != tuple(b.shape):
            where = f"Entry {i} in v" if outputs_tuple else "v"
            raise RuntimeError(f"{where} has invalid size: should be {b.shape} but got "
                               f"{a.shape}.")
    return v


def _call(func, inputs, fn_name):
    outputs = func(*inputs)
    outputs, is_tuple = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    return outputs, is_tuple


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`."""
    inputs, inputs_tuple = _as_tuple(inputs, "inputs", "vjp")
    with _enable_grad():
        inputs = _prepare(inputs, create_graph)
        outputs, outputs_tuple = _call(func, inputs, "vjp")
        v = _check_v(v, outputs, "vjp", "user-provided function returns", outputs_tuple)
        grads = _grads(outputs, inputs, v, create_graph)
        grads = _fill_unused(grads, inputs, strict, "vjp", "output")
    return (_tuple_postprocess(_finish(outputs, create_graph), outputs_tuple),
            _tuple_postprocess(_finish(grads, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product at `inputs`."""
    inputs, inputs_tuple = _as_tuple(inputs, "inputs", "jvp")
    with _enable_grad():
        inputs = _prepare(inputs, create_graph)
        v = _check_v(v, inputs, "jvp", "input to the user-provided function is",
                     inputs_tuple)
        outputs, outputs_tuple = _call(func, inputs, "jvp")
        # u is a dummy grad_output: grad_inputs = J^T u is linear in u, so d(grad_inputs . v)/du
        # is J v.
        dummies = tuple(_C.zeros_like(o).requires_grad_(True) for o in outputs)
        grad_inputs = _grads(outputs, inputs, dummies, create_graph=True)
        grad_inputs = _fill_unused(grad_inputs, inputs, strict, "jvp", "backward")
        pairs = [(g, vi) for g, vi in zip(grad_inputs, v) if g.requires_grad]
        if pairs:
            gs, vs = zip(*pairs)
            products = _grad(list(gs), list(dummies), list(vs), create_graph=create_graph,
                             allow_unused=True)
        else:
            products = (None,) * len(outputs)
        products = _fill_unused(products, outputs, strict, "jvp", "output")
    return (_tuple_postprocess(_finish(outputs, create_graph), outputs_tuple),
            _tuple_postprocess(_finish(products, create_graph), outputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """d func / d inputs: for one input and one output a Tensor of shape out.shape + in.shape;
    tuples of those when the inputs or the outputs are tuples (outputs outer)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                         "Hint: If your function has more outputs than inputs, "
                         '"forward-mode" tends to be more performant. Otherwise, prefer to use '
                         '"reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("torch.autograd.functional.jacobian: `strategy=\"forward-mode\"` "
                                  "only implemented for `vectorize=True`.")
    inputs, inputs_tuple = _as_tuple(inputs, "inputs", "jacobian")
    with _enable_grad():
        inputs = _prepare(inputs, create_graph)
        outputs, outputs_tuple = _call(func, inputs, "jacobian")
        jac = []
        for i, out in enumerate(outputs):
            flat = out.reshape(-1)
            rows = [[] for _ in inputs]
            for j in range(flat.numel()):
                if out.requires_grad:
                    g = _grad([flat[j]], list(inputs), retain_graph=True,
                              create_graph=create_graph, allow_unused=True)
                else:
                    g = [None] * len(inputs)
                for k, (gk, inp) in enumerate(zip(g, inputs)):
                    if gk is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not allowed "
                                               "in strict mode.")
                        gk = _C.zeros_like(inp)
                    rows[k].append(gk)
            jac.append(tuple(
                (_C.stack(r) if r else _C.zeros((0,) + tuple(inp.shape), dtype=inp.dtype,
                                                  device=inp.device)).reshape(
                    tuple(out.shape) + tuple(inp.shape))
                for r, inp in zip(rows, inputs)))
    jac = tuple(_finish(row, create_graph) for row in jac)
    return _tuple_postprocess(jac, (outputs_tuple, inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function returning one element: for one input a Tensor of shape
    in.shape + in.shape; a tuple of tuples for several inputs."""
    inputs, inputs_tuple = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*inp):
        out = func(*inp)
        out, _ = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if len(out) != 1 or out[0].numel() != 1:
            raise RuntimeError("The function given in hessian should return a single Tensor "
                               "with a single element.")
        g = _grad([out[0]], list(inp), create_graph=True, allow_unused=True)
        return tuple(_C.zeros_like(i) if gi is None else gi for i, gi in zip(inp, g))

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    # jacobian saw a tuple of inputs and a tuple of gradients: unpack both for one input.
    return res if inputs_tuple else res[0][0]


def _second_order(func, inputs, v, create_graph, strict, fn_name, transpose):
    inputs, inputs_tuple = _as_tuple(inputs, "inputs", fn_name)
    with _enable_grad():
        inputs = _prepare(inputs, create_graph)
        outputs, _ = _call(func, inputs, fn_name)
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(f"The function given in {fn_name} should return a single Tensor "
                               "with a single element.")
        v = _check_v(v, inputs, fn_name, "input to the user-provided function is",
                     inputs_tuple)
        jac = _grads(outputs, inputs, (_C.ones_like(outputs[0]),), create_graph=True)
        jac = _fill_unused(jac, inputs, strict, fn_name, "jacobian")
        if transpose:  # hvp: H v through a dummy, as jvp
            dummies = tuple(_C.zeros_like(i).requires_grad_(True) for i in inputs)
            pairs = [(j, d) for j, d in zip(jac, dummies) if j.requires_grad]
            double = _grads([p[0] for p in pairs], inputs, [p[1] for p in pairs],
                            create_graph=True) if pairs else (None,) * len(inputs)
            double = _fill_unused(double, inputs, strict, fn_name, "double backward")
            pairs = [(d, vi) for d, vi in zip(double, v) if d.requires_grad]
            result = _grad([p[0] for p in pairs], list(dummies), [p[1] for p in pairs],
                           create_graph=create_graph, allow_unused=True) \
                if pairs else (None,) * len(inputs)
        else:  # vhp: v^T H
            pairs = [(j, vi) for j, vi in zip(jac, v) if j.requires_grad]
            result = _grad([p[0] for p in pairs], list(inputs), [p[1] for p in pairs],
                           create_graph=create_graph, allow_unused=True) \
                if pairs else (None,) * len(inputs)
        result = _fill_unused(result, inputs, strict, fn_name, "double backward")
    return (_finish(outputs, create_graph)[0],
            _tuple_postprocess(_finish(result, create_graph), inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a function returning one element."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp", transpose=False)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a function returning one element."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp", transpose=True)
