"""ember.linalg's decompositions (qr, eigh, eigvalsh, svd, svdvals) and the top-level ember.qr /
ember.svd with their Tensor methods, against PyTorch 1.13 on the same inputs, on every device:
values (vectors up to sign), return types and their printout, gradients through sign-free
functions of the outputs, and the errors of bad input."""
import numpy as np
import pytest
import torch

import ember

DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])

torch.manual_seed(0)
TALL = torch.randn(2, 5, 3, dtype=torch.float64)
WIDE = torch.randn(3, 6, dtype=torch.float64)
_S = torch.randn(3, 4, 4, dtype=torch.float64)
SYM = _S + _S.mT
WELL = torch.randn(2, 3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
RHS = torch.randn(2, 3, 2, dtype=torch.float64)


def em(t, device="cpu"):
    return ember.tensor(t.numpy()).to(device)


def close(e, t, rtol=1e-9, atol=1e-9):
    assert str(e.dtype).replace("ember", "torch") == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    np.testing.assert_allclose(e.detach().cpu().numpy(), t.detach().numpy(), rtol=rtol,
                               atol=atol)


def signed(v):
    """Each column turned so that its largest-magnitude entry is positive (numpy)."""
    v = np.asarray(v)
    idx = np.abs(v).argmax(axis=-2)[..., None, :]
    return v * np.sign(np.take_along_axis(v, idx, axis=-2))


def close_up_to_sign(e, t):
    np.testing.assert_allclose(signed(e.detach().cpu().numpy()), signed(t.detach().numpy()),
                               rtol=1e-8, atol=1e-8)


# Sign-free (or sign-fixed) scalar functions of each decomposition, compared with their gradients.
CASES = [
    ("linalg.qr", lambda T, a: sum((x ** 2).sum() for x in T.linalg.qr(a)) + T.linalg.qr(a).Q.sin().sum(), [TALL]),
    ("linalg.qr_wide", lambda T, a: T.linalg.qr(a).R.sin().sum() + T.linalg.qr(a).Q.cos().sum(), [WIDE]),
    ("linalg.qr_complete_wide", lambda T, a: T.linalg.qr(a, mode="complete").Q.exp().sum(), [WIDE]),
    ("qr", lambda T, a: T.qr(a).R.sum(), [TALL]),
    ("qr_method", lambda T, a: a.qr(some=True)[0].sin().sum(), [TALL]),
    ("linalg.eigh", lambda T, a: T.linalg.eigh(a).eigenvalues.pow(3).sum()
     + T.linalg.eigh(a).eigenvectors.pow(4).sum(), [SYM]),
    ("linalg.eigh_upper", lambda T, a: T.linalg.eigh(a, UPLO="U")[1].pow(2).mul(a).sum(), [SYM]),
    ("linalg.eigvalsh", lambda T, a: T.linalg.eigvalsh(a).exp().sum(), [SYM]),
    ("linalg.svd", lambda T, a: T.linalg.svd(a, full_matrices=False).S.sum()
     + T.linalg.svd(a, full_matrices=False).U.pow(4).sum(), [TALL]),
    ("linalg.svd_uvh", lambda T, a: (lambda r: (r.U @ r.Vh).sin().sum())(
        T.linalg.svd(a, full_matrices=False)), [WIDE]),
    ("linalg.svd_full_values", lambda T, a: T.linalg.svd(a).S.pow(2).sum(), [WIDE]),
    ("linalg.svdvals", lambda T, a: T.linalg.svdvals(a).pow(3).sum(), [TALL]),
    ("svd", lambda T, a: T.svd(a).S.sum() + T.svd(a).V.pow(2).sum(), [TALL]),
    ("svd_method", lambda T, a: a.svd()[1].exp().sum(), [WIDE]),
    ("linalg.lu_factor", lambda T, a: T.linalg.lu_factor(a).LU.sin().sum(), [WELL]),
    ("linalg.lu", lambda T, a: (lambda r: (r.L * r.U).sum() + r.U.sum())(T.linalg.lu(a)), [WELL]),
    ("linalg.lu_solve", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b).sin().sum(),
     [WELL, RHS]),
    ("linalg.lu_solve_adjoint_right", lambda T, a, b: T.linalg.lu_solve(
        *T.linalg.lu_factor(a), b.mT, left=False, adjoint=True).exp().sum(), [WELL, RHS]),
    ("linalg.solve_triangular", lambda T, a, b: T.linalg.solve_triangular(
        a, b, upper=False).sin().sum(), [WELL, RHS]),
    ("linalg.householder_product", lambda T, a, t: T.linalg.householder_product(
        a, t[0, 0, :2]).sin().sum(), [TALL[0], WELL]),
    ("linalg.lstsq", lambda T, a, b: T.linalg.lstsq(a, b[:, :2]).solution.pow(2).sum(),
     [TALL[0], TALL[1]]),
    ("linalg.inv_ex", lambda T, a: T.linalg.inv_ex(a).inverse.sum(), [WELL]),
    ("linalg.solve_ex", lambda T, a, b: T.linalg.solve_ex(a, b).result.sin().sum(), [WELL, RHS]),
    ("linalg.cholesky_ex", lambda T, a: T.linalg.cholesky_ex(a @ a.mT).L.sum(), [WELL]),
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
        close(e.grad, t.grad, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("device", DEVICES)
def test_outputs_match_torch(device):
    for mode in ("reduced", "complete", "r"):
        t, e = torch.linalg.qr(TALL, mode=mode), ember.linalg.qr(em(TALL, device), mode=mode)
        close(e.R, t.R)
        if mode != "r":
            close(e.Q, t.Q)
    t, e = torch.linalg.eigh(SYM), ember.linalg.eigh(em(SYM, device))
    close(e.eigenvalues, t.eigenvalues)
    close_up_to_sign(e.eigenvectors, t.eigenvectors)
    t, e = torch.linalg.svd(TALL, full_matrices=False), ember.linalg.svd(em(TALL, device), False)
    close(e.S, t.S)
    close_up_to_sign(e.U, t.U)
    close_up_to_sign(e.Vh.mT, t.Vh.mT)
    t, e = torch.linalg.svd(WIDE), ember.linalg.svd(em(WIDE, device))
    assert tuple(e.Vh.shape) == tuple(t.Vh.shape) == (6, 6)
    close(e.Vh @ e.Vh.mT, torch.eye(6, dtype=torch.float64))
    t, e = torch.svd(TALL, compute_uv=False), ember.svd(em(TALL, device), compute_uv=False)
    close(e.U, t.U)
    close(e.V, t.V)
    close(e.S, t.S)
    close(ember.linalg.svdvals(em(TALL.float(), device)), torch.linalg.svdvals(TALL.float()),
          rtol=1e-5, atol=1e-5)


def test_ex_forms_and_lstsq_outputs():
    singular = torch.stack([torch.eye(2, dtype=torch.float64), torch.zeros(2, 2, dtype=torch.float64)])
    for name in ("inv_ex", "cholesky_ex"):
        t, e = getattr(torch.linalg, name)(singular), getattr(ember.linalg, name)(em(singular))
        assert type(e).__name__ == type(t).__name__
        close(e.info, t.info)
    t = torch.linalg.lu_factor_ex(singular)
    e = ember.linalg.lu_factor_ex(em(singular))
    close(e.info, t.info)
    close(e.pivots, t.pivots)
    for driver in (None, "gels", "gelsd", "gelss"):
        t = torch.linalg.lstsq(TALL, TALL[..., :2] + 1, driver=driver)
        e = ember.linalg.lstsq(em(TALL), em(TALL[..., :2] + 1), driver=driver)
        close(e.solution, t.solution)
        close(e.residuals, t.residuals)
        close(e.rank, t.rank)
        close(e.singular_values, t.singular_values)


def test_return_types_print_as_torch():
    x = torch.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
    pairs = [
        (torch.linalg.qr(x), ember.linalg.qr(em(x)), ("Q", "R")),
        (torch.linalg.eigh(x), ember.linalg.eigh(em(x)), ("eigenvalues", "eigenvectors")),
        (torch.linalg.svd(x), ember.linalg.svd(em(x)), ("U", "S", "Vh")),
        (torch.qr(x), ember.qr(em(x)), ("Q", "R")),
        (torch.svd(x), ember.svd(em(x)), ("U", "S", "V")),
    ]
    for t, e, fields in pairs:
        assert type(e).__name__ == type(t).__name__
        assert len(e) == len(t) == len(fields)
        for i, field in enumerate(fields):
            assert getattr(e, field) is e[i]
            assert tuple(getattr(e, field).shape) == tuple(getattr(t, field).shape)
    # Vectors up to sign: this matrix's come out alike from LAPACK in both libraries.
    assert repr(ember.linalg.eigh(em(x))).replace("ember", "torch") == repr(torch.linalg.eigh(x))
    assert repr(ember.linalg.qr(em(x))).replace("ember", "torch") == repr(torch.linalg.qr(x))


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.qr(T.ones(3, 2), mode="economic"),
    lambda T: T.linalg.eigh(T.eye(2), UPLO="X"),
    lambda T: T.linalg.eigh(T.ones(3, 2)),
    lambda T: T.linalg.svd(T.ones(3)),
    lambda T: T.svd(T.ones(3)),
    lambda T: T.linalg.eigvalsh(T.ones(2, 3)),
    lambda T: T.linalg.svdvals(T.ones(2, 2, dtype=T.int64)),
    lambda T: T.linalg.qr(T.ones(3, 2, requires_grad=True), mode="r")[1].sum().backward(),
    lambda T: T.linalg.qr(T.ones(3, 2, requires_grad=True), mode="complete")[0].sum().backward(),
    lambda T: T.linalg.lu_factor(T.eye(2), pivot=False),
    lambda T: T.linalg.lu_factor(T.stack([T.eye(2), T.zeros(2, 2)])),
    lambda T: T.linalg.lu_solve(T.eye(2), T.ones(2, dtype=T.int64), T.ones(2, 1)),
    lambda T: T.linalg.solve_triangular(T.eye(2), T.ones(2), upper=True),
    lambda T: T.linalg.lstsq(T.eye(2), T.ones(2, 1), driver="foo"),
    lambda T: T.linalg.inv_ex(T.zeros(2, 2), check_errors=True),
    lambda T: T.linalg.householder_product(T.ones(2, 3), T.ones(2)),
])
def test_bad_input_raises_what_torch_raises(call):
    with pytest.raises(RuntimeError) as t_err:
        call(torch)
    with pytest.raises(RuntimeError) as e_err:
        call(ember)
    assert str(e_err.value) == str(t_err.value)
