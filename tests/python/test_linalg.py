"""ember.linalg (inv, solve, det, slogdet, cholesky, LinAlgError) and the top-level det, logdet,
slogdet, inverse, cholesky with their Tensor methods against PyTorch 1.13 on the same inputs, on every device:
values, return types and their printout, gradients, and the errors of bad input."""
import numpy as np
import pytest
import torch

import ember

DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])

torch.manual_seed(0)
A = torch.randn(3, 4, 4, dtype=torch.float64) + 3 * torch.eye(4, dtype=torch.float64)
R = torch.randn(2, 5, 5, dtype=torch.float64)  # rows get swapped: signs matter
B = torch.randn(3, 4, 2, dtype=torch.float64)
V = torch.randn(4, dtype=torch.float64)
X = torch.randn(2, 4, 4, dtype=torch.float64)


def spd(T, x):
    return x @ x.mT + 3 * T.eye(4, dtype=T.float64, device=x.device)


def em(t, device="cpu"):
    return ember.tensor(t.numpy()).to(device)


def close(e, t, rtol=1e-10, atol=1e-10):
    assert str(e.dtype).replace("ember", "torch") == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().cpu().numpy(), t.detach().numpy(), rtol=rtol,
                               atol=atol, equal_nan=True)


CASES = [
    ("linalg.inv", lambda T, a: T.linalg.inv(a), [A]),
    ("inverse", lambda T, a: T.inverse(a), [A]),
    ("inverse_method", lambda T, a: a.inverse(), [A]),
    ("linalg.solve", lambda T, a, b: T.linalg.solve(a, b), [A, B]),
    ("linalg.solve_vector", lambda T, a, v: T.linalg.solve(a, v), [A, V]),
    ("linalg.solve_left_false", lambda T, a, b: T.linalg.solve(a, b.mT, left=False), [A, B]),
    ("linalg.det", lambda T, r: T.linalg.det(r), [R]),
    ("det", lambda T, r: T.det(r), [R]),
    ("det_method", lambda T, r: r.det(), [R]),
    ("logdet", lambda T, a: T.logdet(a), [A]),
    ("logdet_method", lambda T, r: r.logdet(), [R]),
    ("linalg.slogdet", lambda T, r: T.linalg.slogdet(r)[1], [R]),
    ("slogdet", lambda T, r: T.slogdet(r).logabsdet, [R]),
    ("slogdet_method_sign", lambda T, r: r.slogdet().sign, [R]),
    ("linalg.cholesky", lambda T, x: T.linalg.cholesky(spd(T, x)), [X]),
    ("linalg.cholesky_upper", lambda T, x: T.linalg.cholesky(spd(T, x), upper=True), [X]),
    ("cholesky_method", lambda T, x: spd(T, x).cholesky(), [X]),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,f,inputs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(name, f, inputs, device):
    ts = [x.clone().requires_grad_() for x in inputs]
    es = [em(x, device).requires_grad_() for x in inputs]
    t_out, e_out = f(torch, *ts), f(ember, *es)
    close(e_out, t_out)
    assert e_out.requires_grad == t_out.requires_grad  # slogdet's sign requires grad in both
    weights = torch.randn(t_out.shape, dtype=torch.float64)
    (t_out * weights).sum().backward()
    (e_out * em(weights, device)).sum().backward()
    for e, t in zip(es, ts):
        if t.grad is None:  # slogdet's sign: PyTorch's node gives none, Ember's engine zeros
            assert e.grad is None or not e.grad.any()
            continue
        close(e.grad, t.grad, rtol=1e-8, atol=1e-9)


def test_return_types_print_as_torch():
    r = ember.linalg.slogdet(em(R[0]))
    t = torch.linalg.slogdet(R[0])
    assert repr(r).replace("ember", "torch") == repr(t)
    assert type(ember.slogdet(em(R[0]))).__name__ == type(torch.slogdet(R[0])).__name__
    sign, logabsdet = ember.slogdet(em(R[0]))
    close(sign, t.sign)
    close(logabsdet, t.logabsdet)


def test_float32_and_singular_matrices():
    a32 = A.float()
    close(ember.linalg.inv(em(a32)), torch.linalg.inv(a32), rtol=1e-5, atol=1e-6)
    singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
    close(ember.linalg.det(em(singular)), torch.linalg.det(singular))
    close(ember.linalg.slogdet(em(singular)).logabsdet, torch.linalg.slogdet(singular).logabsdet)
    close(ember.logdet(em(-torch.eye(3, dtype=torch.float64))),
          torch.logdet(-torch.eye(3, dtype=torch.float64)))


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.inv(T.zeros(2, 2)),
    lambda T: T.linalg.inv(T.stack([T.eye(2), T.zeros(2, 2)])),
    lambda T: T.linalg.solve(T.stack([T.eye(2), T.zeros(2, 2)]), T.ones(2, 2, 1)),
    lambda T: T.inverse(T.zeros(3, 3)),
    lambda T: T.linalg.cholesky(T.stack([T.eye(2), -T.eye(2)])),
])
def test_singular_matrices_raise_linalg_error(call):
    with pytest.raises(torch.linalg.LinAlgError) as t_err:
        call(torch)
    with pytest.raises(ember.linalg.LinAlgError) as e_err:
        call(ember)
    assert str(e_err.value) == str(t_err.value)
    assert isinstance(e_err.value, RuntimeError)


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.inv(T.zeros(2, 3)),
    lambda T: T.linalg.det(T.zeros(3)),
    lambda T: T.linalg.inv(T.zeros(2, 2, dtype=T.int64)),
    lambda T: T.linalg.solve(T.eye(2), T.ones(3)),
    lambda T: T.linalg.solve(T.eye(2), T.ones(2, 3), left=False),
    lambda T: T.linalg.solve(T.eye(2, dtype=T.float64), T.ones(2)),
    lambda T: T.linalg.solve(T.eye(2), T.tensor(1.0)),
])
def test_bad_input_raises_what_torch_raises(call):
    with pytest.raises(RuntimeError) as t_err:
        call(torch)
    with pytest.raises(RuntimeError) as e_err:
        call(ember)
    assert str(e_err.value) == str(t_err.value)


def test_matrix_transpose_properties():
    for name in ("mT", "mH"):
        close(getattr(em(B), name), getattr(B, name))
        with pytest.raises(RuntimeError) as t_err:
            getattr(V, name)
        with pytest.raises(RuntimeError) as e_err:
            getattr(em(V), name)
        assert str(e_err.value) == str(t_err.value)
