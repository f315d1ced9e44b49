"""ember.linalg's compositions (cross, diagonal, matmul, matrix_power, multi_dot, vecdot, vander,
tensorinv, tensorsolve, cond) against PyTorch 1.13 on the same inputs, on every device: values,
PyTorch's keyword names, gradients, and the errors of bad input."""
import numpy as np
import pytest
import torch

import ember

DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])

torch.manual_seed(0)
X = torch.randn(2, 3, dtype=torch.float64)
Y = torch.randn(3, dtype=torch.float64)
U = torch.randn(3, 2, 1, dtype=torch.float64)
V = torch.randn(3, 1, 4, dtype=torch.float64)
W = torch.randn(3, 5, dtype=torch.float64)
Z = torch.randn(4, 5, dtype=torch.float64)
# Well-conditioned: n added to the diagonal keeps a random matrix's eigenvalues away from zero.
M = torch.randn(2, 3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
N6 = torch.randn(6, 6, dtype=torch.float64) + 6 * torch.eye(6, dtype=torch.float64)


def em(t, device="cpu"):
    return ember.tensor(t.numpy()).to(device)


def close(e, t, rtol=1e-9, atol=1e-10):
    assert str(e.dtype).replace("ember", "torch") == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    np.testing.assert_allclose(e.detach().cpu().numpy(), t.detach().numpy(), rtol=rtol,
                               atol=atol)


# Scalar functions of each composition, compared with their gradients (PyTorch 1.13 cannot
# differentiate cond with 1, inf or "fro": those are checked in test_cond_gradient_...).
CASES = [
    ("cross", lambda T, x, y: T.linalg.cross(x, y.expand(2, 3)).sin().sum(), [X, Y]),
    ("cross_dim", lambda T, u, v: T.linalg.cross(u, v, dim=0).pow(2).sum(), [U, V]),
    ("diagonal", lambda T, m: T.linalg.diagonal(m, offset=1, dim1=0, dim2=2).exp().sum(), [M]),
    ("matmul", lambda T, y, w: T.linalg.matmul(y, w).sin().sum(), [Y, W]),
    ("matrix_power", lambda T, m: T.linalg.matrix_power(m, 3).sin().sum(), [M]),
    ("matrix_power_negative", lambda T, m: T.linalg.matrix_power(m, -2).sum(), [M]),
    ("multi_dot", lambda T, y, w, z: T.linalg.multi_dot([y, w, z.mT, z]).pow(2).sum(), [Y, W, Z]),
    ("multi_dot_tuple", lambda T, x, w, z: T.linalg.multi_dot((x, w, z.mT)).sum(), [X, W, Z]),
    ("vecdot", lambda T, x, y: T.linalg.vecdot(x, y).exp().sum(), [X, Y]),
    ("vecdot_dim", lambda T, u, v: T.linalg.vecdot(u, v, dim=0).sin().sum(), [U, V]),
    ("vander", lambda T, x: T.linalg.vander(x).cos().sum(), [X]),
    ("vander_N", lambda T, y: T.linalg.vander(y, N=5).sum(), [Y]),
    ("tensorinv", lambda T, n: T.linalg.tensorinv(n.reshape(2, 3, 6)).sum(), [N6]),
    ("tensorinv_ind", lambda T, n: T.linalg.tensorinv(n.reshape(6, 2, 3), ind=1).pow(2).sum(),
     [N6]),
    ("tensorsolve", lambda T, n, x: T.linalg.tensorsolve(n.reshape(2, 3, 6), x).pow(2).sum(),
     [N6, X]),
    ("tensorsolve_dims", lambda T, n, x: T.linalg.tensorsolve(n.reshape(6, 2, 3), x,
                                                              dims=(0,)).sum(), [N6, X]),
    ("cond", lambda T, m: T.linalg.cond(m).sum(), [M]),
    ("cond_minus_2_wide", lambda T, w: T.linalg.cond(w, -2), [W]),
    ("cond_nuc", lambda T, m: T.linalg.cond(m, "nuc").sum(), [M]),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,f,inputs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(name, f, inputs, device):
    ts = [x.clone().requires_grad_() for x in inputs]
    es = [em(x, device).requires_grad_() for x in inputs]
    t_out, e_out = f(torch, *ts), f(ember, *es)
    close(e_out, t_out)
    t_out.backward()
    e_out.backward()
    for e, t in zip(es, ts):
        close(e.grad, t.grad, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("device", DEVICES)
def test_outputs_match_torch(device):
    L = (torch.linalg, ember.linalg)
    cases = [
        lambda L, d: L.cross(d(X), d(X.flip(-1)), dim=-1),
        lambda L, d: L.diagonal(d(M)),
        lambda L, d: L.matmul(d(M), d(Y)),
        lambda L, d: L.matrix_power(d(M), 0),
        lambda L, d: L.multi_dot([d(Y), d(W), d(Z.mT), d(Y.new_ones(4))]),
        lambda L, d: L.vecdot(d(U), d(V)),
        lambda L, d: L.vander(d(Y), N=2),
        lambda L, d: L.vander(d(Y).long()),
        lambda L, d: L.tensorinv(d(N6).reshape(6, 3, 2), ind=1),
        lambda L, d: L.tensorsolve(d(N6).reshape(2, 3, 6), d(X), dims=None),
        lambda L, d: L.cond(d(M), 1),
        lambda L, d: L.cond(d(M), -1.0),
        lambda L, d: L.cond(d(M), float("inf")),
        lambda L, d: L.cond(d(M), -float("inf")),
        lambda L, d: L.cond(d(M), "fro"),
        lambda L, d: L.cond(d(M), 2),
        lambda L, d: L.cond(d(M).float(), p=-2),
        lambda L, d: L.cond(d(torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)), 1),
        lambda L, d: L.cond(d(torch.zeros(2, 2, dtype=torch.float64)), "nuc"),
        lambda L, d: L.cond(d(torch.zeros(3, 0, 0)), True),
    ]
    for i, case in enumerate(cases):
        t = case(L[0], lambda x: x)
        e = case(L[1], lambda x: em(x, device) if isinstance(x, torch.Tensor) else x)
        close(e, t, rtol=1e-6 if t.dtype == torch.float32 else 1e-9)


def test_keywords_are_torchs():
    # The names PyTorch 1.13 binds, which are input/other where its docs write A/B.
    for lib in (torch, ember):
        A = em(M) if lib is ember else M
        lib.linalg.cross(input=A[0], other=A[1], dim=0)
        lib.linalg.diagonal(A=A, offset=1, dim1=0, dim2=1)
        lib.linalg.matmul(input=A, other=A)
        lib.linalg.matrix_power(input=A, n=2)
        lib.linalg.multi_dot(tensors=[A[0], A[1]])
        lib.linalg.vecdot(x=A, y=A, dim=0)
        lib.linalg.vander(x=A[0, 0], N=3)
        lib.linalg.tensorinv(input=A[0], ind=1)
        lib.linalg.tensorsolve(input=A[0], other=A[0, 0], dims=None)
        lib.linalg.cond(input=A, p="fro")
    names = {"cond", "cross", "diagonal", "matmul", "matrix_power", "multi_dot", "tensorinv",
             "tensorsolve", "vander", "vecdot"}
    assert names <= set(ember.linalg.__all__)


@pytest.mark.parametrize("device", DEVICES)
def test_cond_gradient_through_the_inverse_is_the_norms(device):
    # PyTorch 1.13 fails in backward for these norms; Ember's gradient is that of
    # norm(A) * norm(A^-1), which PyTorch differentiates.
    for p in (1, -1, float("inf"), -float("inf"), "fro"):
        t = M.clone().requires_grad_()
        (torch.linalg.matrix_norm(t, p) * torch.linalg.matrix_norm(torch.linalg.inv(t), p)).sum() \
            .backward()
        e = em(M, device).requires_grad_()
        ember.linalg.cond(e, p).sum().backward()
        close(e.grad, t.grad, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.cross(T.ones(2, 3), T.ones(3)),
    lambda T: T.linalg.cross(T.ones(2, 4), T.ones(2, 4)),
    lambda T: T.linalg.cross(T.ones(3, 2), T.ones(1, 2), dim=0),
    lambda T: T.linalg.cross(T.ones(2, 3), T.ones(2, 3, dtype=T.float64)),
    lambda T: T.linalg.cross(T.ones(2, 3, dtype=T.bool), T.ones(2, 3, dtype=T.bool)),
    lambda T: T.linalg.diagonal(T.ones(2, 3, 4), dim1=-1, dim2=2),
    lambda T: T.linalg.matrix_power(T.ones(3, 4), 2),
    lambda T: T.linalg.matrix_power(T.ones(3, 3, dtype=T.int64), -1),
    lambda T: T.linalg.matrix_power(T.zeros(3, 3), -1),
    lambda T: T.linalg.multi_dot([]),
    lambda T: T.linalg.multi_dot([T.ones(2, 3, 3), T.ones(3, 4)]),
    lambda T: T.linalg.multi_dot([T.ones(3, 3), T.ones(3), T.ones(3, 4)]),
    lambda T: T.linalg.multi_dot([T.ones(3, 3), T.ones(3, 4), T.ones(5, 4)]),
    lambda T: T.linalg.multi_dot([T.ones(3, 3), T.ones(3, 4, dtype=T.int64)]),
    lambda T: T.linalg.vecdot(T.ones(2, 3), T.ones(2, 3, dtype=T.float64)),
    lambda T: T.linalg.vecdot(T.ones(2, 3, dtype=T.int64), T.ones(2, 3)),
    lambda T: T.linalg.vander(T.ones(3, dtype=T.bool)),
    lambda T: T.linalg.vander(T.ones(3), N=1),
    lambda T: T.linalg.tensorinv(T.ones(4, 6, 24), ind=0),
    lambda T: T.linalg.tensorinv(T.ones(4, 6, 8, 4)),
    lambda T: T.linalg.tensorinv(T.zeros(2, 2), ind=1),
    lambda T: T.linalg.tensorsolve(T.ones(2, 3, 6), T.ones(2, 4)),
    lambda T: T.linalg.tensorsolve(T.zeros(2, 3, 6), T.ones(2, 3)),
    lambda T: T.linalg.tensorsolve(T.ones(2, 3, 6), T.ones(2, 3), dims=(0, 0)),
    lambda T: T.linalg.cond(T.ones(3)),
    lambda T: T.linalg.cond(T.eye(3), 3),
    lambda T: T.linalg.cond(T.eye(3), "abc"),
    lambda T: T.linalg.cond(T.ones(3, 4), 1.0),
    lambda T: T.linalg.cond(T.ones(3, 4), -float("inf")),
    lambda T: T.linalg.cond(T.ones(3, 4), "nuc"),
    lambda T: T.linalg.cond(T.ones(3, 3, dtype=T.int64)),
    lambda T: T.linalg.cond(T.ones(3, 3, dtype=T.int64), "fro"),
])
def test_bad_input_raises_what_torch_raises(call):
    with pytest.raises(RuntimeError) as t_err:
        call(torch)
    with pytest.raises(RuntimeError) as e_err:
        call(ember)
    assert type(e_err.value).__name__ == type(t_err.value).__name__
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.diagonal(T.ones(3)),
    lambda T: T.linalg.cross(T.ones(3, 3), T.ones(3, 3), dim=5),
    lambda T: T.linalg.vecdot(T.ones(2, 3), T.ones(2, 3), dim=3),
    lambda T: T.linalg.tensorsolve(T.ones(2, 3, 6), T.ones(2, 3), dims=(5,)),
])
def test_bad_dims_raise_torchs_index_error(call):
    with pytest.raises(IndexError) as t_err:
        call(torch)
    with pytest.raises(IndexError) as e_err:
        call(ember)
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.vander(T.ones(3), 2),  # N is keyword-only
    lambda T: T.linalg.cross(T.ones(3), T.ones(3), 0),  # so is dim
    lambda T: T.linalg.vander(T.ones(3), N=2.0),
    lambda T: T.linalg.multi_dot(T.ones(3, 3)),
    lambda T: T.linalg.cond(T.eye(3), [1]),
])
def test_bad_arguments_raise_type_error(call):
    with pytest.raises(TypeError):
        call(torch)
    with pytest.raises(TypeError):
        call(ember)
