"""ember.autograd.functional against torch.autograd.functional (PyTorch 1.13): jacobian, hessian,
vjp, jvp, hvp and vhp on the same functions and inputs, single and tuple inputs and outputs,
create_graph, strict mode and the errors."""
import numpy as np
import pytest
import torch

import ember
from nn_compare import close


def to_both(arrays):
    return (tuple(ember.tensor(a) for a in arrays), tuple(torch.tensor(a) for a in arrays))


def compare(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            compare(a, b)
    else:
        close(ours, theirs, rtol=1e-9, atol=1e-10)


X = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]], dtype=np.float64)
Y = np.array([0.9, -0.2, 0.6], dtype=np.float64)


def f_single(lib):
    return lambda x: lib.tanh(x) * x.sum(1, keepdim=True)


def f_pair(lib):
    return lambda x, y: ((x * y).exp().sum(0), (x.sin() * y).sum())


def f_scalar(lib):
    return lambda x, y: (x.pow(3) * y).sum() + (x * x).sum() * y.sum()


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian(create_graph):
    (ex,), (tx,) = to_both([X])
    compare(ember.autograd.functional.jacobian(f_single(ember), ex, create_graph=create_graph),
            torch.autograd.functional.jacobian(f_single(torch), tx, create_graph=create_graph))
    ei, ti = to_both([X, Y])
    ours = ember.autograd.functional.jacobian(f_pair(ember), ei)
    theirs = torch.autograd.functional.jacobian(f_pair(torch), ti)
    compare(ours, theirs)


def test_hessian():
    ei, ti = to_both([X, Y])
    compare(ember.autograd.functional.hessian(f_scalar(ember), ei),
            torch.autograd.functional.hessian(f_scalar(torch), ti))
    (ex,), (tx,) = to_both([Y])
    compare(ember.autograd.functional.hessian(lambda x: (x.exp() * x).sum(), ex),
            torch.autograd.functional.hessian(lambda x: (x.exp() * x).sum(), tx))


def test_vjp_and_jvp():
    ei, ti = to_both([X, Y])
    ev, tv = to_both([np.ones(3), np.array(2.0)])
    compare(ember.autograd.functional.vjp(f_pair(ember), ei, ev),
            torch.autograd.functional.vjp(f_pair(torch), ti, tv))
    eu, tu = to_both([X * 0.5 - 0.1, Y + 1.0])
    compare(ember.autograd.functional.jvp(f_pair(ember), ei, eu),
            torch.autograd.functional.jvp(f_pair(torch), ti, tu))
    (ex,), (tx,) = to_both([Y])
    compare(ember.autograd.functional.vjp(lambda x: (x * x).sum(), ex),
            torch.autograd.functional.vjp(lambda x: (x * x).sum(), tx))


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_hvp_and_vhp(name):
    ei, ti = to_both([X, Y])
    ev, tv = to_both([X[::-1].copy(), Y * 2])
    compare(getattr(ember.autograd.functional, name)(f_scalar(ember), ei, ev),
            getattr(torch.autograd.functional, name)(f_scalar(torch), ti, tv))


def test_create_graph_allows_a_second_derivative():
    results = []
    for lib in (ember, torch):
        x = lib.tensor(Y, requires_grad=True)
        _, g = lib.autograd.functional.vjp(lambda t: (t ** 3).sum(), x, create_graph=True)
        g.sum().backward()
        results.append(x.grad)
    compare(*results)


def test_strict_mode_and_unused_inputs():
    ei, ti = to_both([X, Y])
    unused = lambda lib: lambda x, y: x.sum(0) * 2  # noqa: E731
    compare(ember.autograd.functional.jacobian(unused(ember), ei),
            torch.autograd.functional.jacobian(unused(torch), ti))
    for lib, inputs in ((ember, ei), (torch, ti)):
        with pytest.raises(RuntimeError, match="independent of input 1. This is not allowed in "
                                               "strict mode"):
            lib.autograd.functional.jacobian(unused(lib), inputs, strict=True)


def test_errors_match_torch():
    for lib in (ember, torch):
        x = lib.tensor(Y)
        with pytest.raises(RuntimeError, match="The vector v can only be None if the "
                                               "user-provided function returns a single Tensor "
                                               "with a single element."):
            lib.autograd.functional.vjp(lambda t: t * 2, x)
        with pytest.raises(RuntimeError, match="The vector v can only be None if the input to "
                                               "the user-provided function is a single Tensor "
                                               "with a single element."):
            lib.autograd.functional.jvp(lambda t: t * 2, x)
        with pytest.raises(TypeError, match="The inputs given to jacobian must be either a "
                                            "Tensor or a tuple of Tensors"):
            lib.autograd.functional.jacobian(lambda t: t, [x])
        with pytest.raises(RuntimeError, match="The given v should contain a single Tensor."):
            lib.autograd.functional.vjp(lambda t: t * 2, x, (x, x))
        with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 but "
                                               "got 1."):
            lib.autograd.functional.vjp(lambda t: (t * 2, t), x, (x,))
        with pytest.raises(RuntimeError, match="Entry 1 in v has invalid size"):
            lib.autograd.functional.vjp(lambda t: (t * 2, t), x, (x, x[:2]))
        with pytest.raises(RuntimeError, match="v has invalid size: should be"):
            lib.autograd.functional.vjp(lambda t: t * 2, x, lib.ones(2, dtype=x.dtype))
        with pytest.raises(AssertionError, match='Expected strategy to be either "forward-mode" or '
                                             '"reverse-mode"'):
            lib.autograd.functional.jacobian(lambda t: t, x, strategy="sideways")


def test_variable_is_the_tensor_as_in_torch():
    for lib in (ember, torch):
        v = lib.autograd.Variable(lib.ones(2), requires_grad=True)
        assert type(v) is lib.Tensor and v.requires_grad and v.is_leaf
        assert isinstance(lib.ones(1), lib.autograd.Variable)
        assert not lib.autograd.Variable(lib.ones(2)).requires_grad
        with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
            lib.autograd.Variable([1, 2])
