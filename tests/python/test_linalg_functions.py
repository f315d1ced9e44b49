"""ember.linalg's vector_norm, matrix_norm, norm, pinv, matrix_rank, matrix_exp and the top-level
matrix_exp, cholesky_solve, pinverse with their Tensor methods against PyTorch 1.13 on the same
inputs, on every device: values, dtypes and printout, gradients, keyword forms (ord as a str or
a number, dim as an int or tuple, dtype, rcond/tol), and the errors of bad input."""
import math

import numpy as np
import pytest
import torch

import ember

DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])

torch.manual_seed(0)
X = torch.randn(3, 4, 5, dtype=torch.float64)
V = torch.tensor([0.0, 1.0, -2.0, 0.0, 0.5], dtype=torch.float64)  # zeros inside
# Matrices with distinct singular values (1 to 4), for the SVD-based ords and pinv's gradient.
_U, _, _Vh = torch.linalg.svd(torch.randn(2, 5, 3, dtype=torch.float64), full_matrices=False)
M = _U @ torch.diag_embed(torch.tensor([4.0, 2.5, 1.0], dtype=torch.float64)) @ _Vh
S = torch.randn(2, 4, 4, dtype=torch.float64)
SYM = S + S.mT
LOW = torch.linalg.cholesky(S @ S.mT + 2 * torch.eye(4, dtype=torch.float64))
B = torch.randn(3, 1, 4, 2, dtype=torch.float64)


def em(t, device="cpu"):
    return ember.tensor(t.numpy()).to(device)


def close(e, t, rtol=1e-10, atol=1e-10):
    assert str(e.dtype).replace("ember", "torch") == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().cpu().numpy(), t.detach().numpy(), rtol=rtol,
                               atol=atol, equal_nan=True)


inf = math.inf
CASES = [
    ("vector_norm", lambda T, x: T.linalg.vector_norm(x), [X]),
    ("vector_norm_3_dim", lambda T, x: T.linalg.vector_norm(x, 3, dim=1), [X]),
    ("vector_norm_half_keepdim", lambda T, x: T.linalg.vector_norm(x, 0.5, (0, 2), True), [X]),
    ("vector_norm_inf", lambda T, x: T.linalg.vector_norm(x, inf, dim=-1), [X]),
    ("vector_norm_-inf", lambda T, x: T.linalg.vector_norm(x, -inf), [X]),
    ("vector_norm_1", lambda T, x: T.linalg.vector_norm(x, 1, dim=[0, 1]), [X]),
    ("vector_norm_-1", lambda T, x: T.linalg.vector_norm(x, -1.0, dim=2), [X]),
    ("vector_norm_zeros", lambda T, v: T.linalg.vector_norm(v), [V]),
    ("vector_norm_zeros_1.5", lambda T, v: T.linalg.vector_norm(v, 1.5), [V]),
    ("vector_norm_zero_vector", lambda T, v: T.linalg.vector_norm(v * 0, 3), [V]),
    ("vector_norm_dtype", lambda T, x: T.linalg.vector_norm(x.float(), dtype=T.float64), [X]),
    ("matrix_norm", lambda T, m: T.linalg.matrix_norm(m), [M]),
    ("matrix_norm_nuc", lambda T, m: T.linalg.matrix_norm(m, "nuc"), [M]),
    ("matrix_norm_2", lambda T, m: T.linalg.matrix_norm(m, 2), [M]),
    ("matrix_norm_-2", lambda T, m: T.linalg.matrix_norm(m, -2, keepdim=True), [M]),
    ("matrix_norm_1", lambda T, m: T.linalg.matrix_norm(m, 1, dim=(0, 2)), [M]),
    ("matrix_norm_-1", lambda T, m: T.linalg.matrix_norm(m, -1), [M]),
    ("matrix_norm_inf", lambda T, m: T.linalg.matrix_norm(m, inf, dim=(2, 1), keepdim=True),
     [M]),
    ("matrix_norm_-inf", lambda T, m: T.linalg.matrix_norm(m, -inf), [M]),
    ("norm", lambda T, x: T.linalg.norm(x), [X]),
    ("norm_dim", lambda T, x: T.linalg.norm(x, dim=1), [X]),
    ("norm_matrix", lambda T, m: T.linalg.norm(m[0], 2), [M]),
    ("norm_fro_dims", lambda T, x: T.linalg.norm(x, "fro", dim=(0, 2)), [X]),
    ("norm_nuc", lambda T, m: T.linalg.norm(m[1], "nuc"), [M]),
    ("norm_vector_3", lambda T, x: T.linalg.norm(x[0, 0], 3), [X]),
    ("pinv", lambda T, m: T.linalg.pinv(m), [M]),
    ("pinv_rcond", lambda T, m: T.linalg.pinv(m, 1e-15), [M]),
    ("pinv_rtol", lambda T, m: T.linalg.pinv(m, rtol=0.5), [M]),
    ("pinv_hermitian", lambda T, s: T.linalg.pinv(s, hermitian=True), [SYM]),
    ("pinverse", lambda T, m: T.pinverse(m), [M]),
    ("pinverse_method", lambda T, m: m.pinverse(rcond=1e-10), [M]),
    ("linalg.matrix_exp", lambda T, s: T.linalg.matrix_exp(s), [S]),
    ("matrix_exp", lambda T, s: T.matrix_exp(3 * s), [S]),
    ("matrix_exp_method", lambda T, s: s.matrix_exp(), [S]),
    ("cholesky_solve", lambda T, b, l: T.cholesky_solve(b, l), [B, LOW]),
    ("cholesky_solve_upper", lambda T, b, l: T.cholesky_solve(b, l.mT, upper=True), [B, LOW]),
    ("cholesky_solve_method", lambda T, b, l: b.cholesky_solve(l), [B, LOW]),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,f,inputs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(name, f, inputs, device):
    ts = [x.clone().requires_grad_() for x in inputs]
    es = [em(x, device).requires_grad_() for x in inputs]
    t_out, e_out = f(torch, *ts), f(ember, *es)
    close(e_out, t_out, rtol=1e-9, atol=1e-10)
    weights = torch.randn(t_out.shape, dtype=t_out.dtype)
    (t_out * weights).sum().backward()
    (e_out * em(weights, device)).sum().backward()
    tol = 1e-5 if name.endswith("dtype") else 1e-8  # the gradient passes a float32 cast
    for e, t in zip(es, ts):
        close(e.grad, t.grad, rtol=tol, atol=tol)


@pytest.mark.parametrize("device", DEVICES)
def test_float32_large_norm_and_zero_matrix(device):
    a = 4 * S.float()
    close(ember.linalg.matrix_exp(em(a, device)), torch.linalg.matrix_exp(a), rtol=1e-4, atol=1e-4)
    close(ember.matrix_exp(em(torch.zeros(3, 3), device)), torch.matrix_exp(torch.zeros(3, 3)))
    x = X.float()
    for ord in (2, 1, inf, 0, 3.5):
        close(ember.linalg.vector_norm(em(x, device), ord, dim=(1, 2)),
              torch.linalg.vector_norm(x, ord, dim=(1, 2)), rtol=1e-5, atol=1e-6)
    for ord in ("fro", "nuc", 1, -2):
        close(ember.linalg.matrix_norm(em(M.float(), device), ord),
              torch.linalg.matrix_norm(M.float(), ord), rtol=1e-5, atol=1e-6)


def test_matrix_rank_and_tolerances():
    low = torch.randn(4, 2, dtype=torch.float64) @ torch.randn(2, 3, dtype=torch.float64)
    scaled = M * torch.tensor([1.0, 1e-9], dtype=torch.float64).reshape(2, 1, 1)
    for call in (lambda T, a: T.linalg.matrix_rank(a),
                 lambda T, a: T.linalg.matrix_rank(a, tol=2.0),
                 lambda T, a: T.linalg.matrix_rank(a, 2.0, True) if a.shape[-1] == a.shape[-2]
                 else T.linalg.matrix_rank(a, 2.0),
                 lambda T, a: T.linalg.matrix_rank(a, atol=0.5, rtol=0.1),
                 lambda T, a: T.linalg.matrix_rank(a, rtol=0.5),
                 lambda T, a: T.linalg.pinv(a, atol=0.5)):
        for a in (low, scaled, SYM):
            t = call(torch, a)
            e = call(ember, em(a))
            close(e, t)
    close(ember.linalg.matrix_rank(em(SYM), hermitian=True),
          torch.linalg.matrix_rank(SYM, hermitian=True))


def test_printout_and_return_values():
    m = torch.tensor([[1.0, -2.0], [3.0, 4.0]])
    for call in (lambda T, a: T.linalg.vector_norm(a, 3),
                 lambda T, a: T.linalg.matrix_norm(a, "nuc", keepdim=True),
                 lambda T, a: T.linalg.norm(a, dim=0),
                 lambda T, a: T.linalg.pinv(a),
                 lambda T, a: T.linalg.matrix_rank(a),
                 lambda T, a: T.matrix_exp(a),
                 lambda T, a: a.cholesky_solve(T.eye(2))):
        assert repr(call(ember, em(m))).replace("ember", "torch") == repr(call(torch, m))
    assert ember.linalg.matrix_rank(em(m)).dtype == ember.int64
    assert not ember.linalg.matrix_rank(em(m).requires_grad_()).requires_grad
    for name in ("vector_norm", "matrix_norm", "norm", "pinv", "matrix_rank", "matrix_exp"):
        assert name in ember.linalg.__all__
        assert callable(getattr(ember.linalg, name))


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.vector_norm(T.ones(3, dtype=T.int64)),
    lambda T: T.linalg.vector_norm(T.ones(3), dtype=T.int64),
    lambda T: T.linalg.vector_norm(T.ones(3, dtype=T.float64), dtype=T.float32),
    lambda T: T.linalg.vector_norm(T.ones(3), dtype=T.float16),
    lambda T: T.linalg.vector_norm(T.ones(0), -1),
    lambda T: T.linalg.vector_norm(T.ones(0), inf),
    lambda T: T.linalg.vector_norm(T.ones(0, 3), inf, dim=0),
    lambda T: T.linalg.vector_norm(T.ones(3, 4), 2, dim=(0, 0)),
    lambda T: T.linalg.matrix_norm(T.ones(3, 4), 3),
    lambda T: T.linalg.matrix_norm(T.ones(3, 4), "abc"),
    lambda T: T.linalg.matrix_norm(T.ones(3)),
    lambda T: T.linalg.matrix_norm(T.ones(3, 4), dim=(0,)),
    lambda T: T.linalg.matrix_norm(T.ones(3, 4), dim=(0, -2)),
    lambda T: T.linalg.matrix_norm(T.ones(3, 4), dim=(0, 1, 1)),
    lambda T: T.linalg.matrix_norm(T.ones(3, 3, dtype=T.int64)),
    lambda T: T.linalg.matrix_norm(T.ones(3, 3), "nuc", dtype=T.int64),
    lambda T: T.linalg.norm(T.ones(2, 2, 2), 2),
    lambda T: T.linalg.norm(T.ones(2, 2, 2), "fro"),
    lambda T: T.linalg.norm(T.ones(2, 2, 2), dim=(0, 1, 2)),
    lambda T: T.linalg.norm(T.ones(2, 2, 2), "nuc", dim=(0, 1, 2)),
    lambda T: T.linalg.norm(T.ones(2, 2, 2), 2, dim=()),
    lambda T: T.linalg.norm(T.ones(2, 2, 2), "fro", dim=()),
    lambda T: T.linalg.norm(T.ones(2, 2), "fro", dim=1),
    lambda T: T.linalg.matrix_exp(T.ones(2, 3)),
    lambda T: T.linalg.matrix_exp(T.ones(3)),
    lambda T: T.matrix_exp(T.ones(2, 2, dtype=T.int64)),
    lambda T: T.linalg.pinv(T.ones(3)),
    lambda T: T.pinverse(T.ones(2, 2, dtype=T.int64)),
    lambda T: T.linalg.matrix_rank(T.ones(3)),
    lambda T: T.linalg.matrix_rank(T.ones(2, 2, dtype=T.int64)),
    lambda T: T.cholesky_solve(T.ones(3), T.eye(3)),
    lambda T: T.cholesky_solve(T.ones(3, 2, dtype=T.float64), T.eye(3)),
    lambda T: T.cholesky_solve(T.ones(3, 2), T.ones(3, 2)),
    lambda T: T.cholesky_solve(T.ones(4, 2), T.eye(3)),
])
def test_bad_input_raises_what_torch_raises(call):
    with pytest.raises(RuntimeError) as t_err:
        call(torch)
    with pytest.raises(RuntimeError) as e_err:
        call(ember)
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.vector_norm(T.ones(3), "fro"),
    lambda T: T.linalg.pinv(T.eye(2), 1e-3, atol=0.1),
    lambda T: T.linalg.matrix_rank(T.eye(2), tol=0.5, atol=0.1),
])
def test_bad_arguments_raise_type_error(call):
    with pytest.raises(TypeError):
        call(torch)
    with pytest.raises(TypeError):
        call(ember)
