"""The special functions, statistics, searches and vector products of issue 34 against PyTorch
1.13 on the same inputs: values, dtypes and shapes, gradients where PyTorch has them, keywords,
return types and the exception type of bad input."""
import numpy as np
import pytest
import torch

import ember

torch.manual_seed(0)
X = torch.randn(4, 5, dtype=torch.float64)
Y = torch.randn(4, 5, dtype=torch.float64)
POS = torch.rand(4, 5, dtype=torch.float64) + 0.5
INTS = torch.randint(-4, 5, (4, 5))
V = torch.randn(5, dtype=torch.float64)
M3 = torch.randn(3, 3, dtype=torch.float64) * 0.5
B1, B2 = torch.randn(2, 4, 3, dtype=torch.float64), torch.randn(2, 3, 5, dtype=torch.float64)


def em(t):
    return ember.tensor(t.numpy())


def close(e, t):
    """e (ember) equals t (torch): dtype, shape and values (NaN where PyTorch has NaN)."""
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            close(a, b)
        return
    assert str(e.dtype).replace("ember", "torch") == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-8,
                               equal_nan=True)


# (name, f over a module T and its inputs, the inputs): forward and, for float inputs, the
# gradient of sum(f(...)) with respect to every input.
CASES = [
    ("logit", lambda T, a: T.logit(T.sigmoid(a)), [X]),
    ("logit_eps", lambda T, a: T.logit(T.sigmoid(a), eps=0.2), [X]),
    ("polygamma", lambda T, a: T.polygamma(2, a), [POS]),
    ("polygamma_method", lambda T, a: a.polygamma(1), [POS]),
    ("lgamma", lambda T, a: T.lgamma(a), [POS]),
    ("digamma", lambda T, a: a.digamma(), [POS]),
    ("i0", lambda T, a: T.i0(a), [X]),
    ("sinc", lambda T, a: T.sinc(a), [X]),
    ("xlogy", lambda T, a, b: T.xlogy(a, b), [X, POS]),
    ("xlogy_scalar_first", lambda T, b: T.xlogy(2, b), [POS]),
    ("logaddexp", lambda T, a, b: T.logaddexp(a, b), [X, Y]),
    ("logaddexp2", lambda T, a, b: a.logaddexp2(b), [X, Y]),
    ("float_power", lambda T, a: T.float_power(a, 2.5), [POS]),
    ("float_power_scalar_first", lambda T, a: T.float_power(2, a), [X]),
    ("nan_to_num", lambda T, a: T.nan_to_num(T.log(a), nan=0.5, posinf=9.0), [X]),
    ("cummax", lambda T, a: T.cummax(a, 1).values, [X]),
    ("cummin", lambda T, a: a.cummin(dim=0)[0], [X]),
    ("logcumsumexp", lambda T, a: T.logcumsumexp(a, dim=1), [X]),
    ("kthvalue", lambda T, a: T.kthvalue(a, 2, dim=0).values, [X]),
    ("median", lambda T, a: T.median(a), [X]),
    ("median_dim", lambda T, a: a.median(dim=1, keepdim=True).values, [X]),
    ("nanmedian", lambda T, a: T.nanmedian(T.log(a), 1).values, [X]),
    ("quantile", lambda T, a: T.quantile(a, 0.3, dim=1), [X]),
    ("quantile_tensor_q",
     lambda T, a, q: T.quantile(a, T.sigmoid(q), dim=0, keepdim=True), [X, V[:3].clone()]),
    ("quantile_nearest", lambda T, a: a.quantile(0.5, interpolation="nearest"), [X]),
    ("nanquantile", lambda T, a: T.nanquantile(T.log(a), 0.6, dim=1), [X]),
    ("diff", lambda T, a, b: T.diff(a, n=2, dim=1, append=b), [X, Y]),
    ("trapezoid", lambda T, a: T.trapezoid(a, dx=0.5), [X]),
    ("trapezoid_x", lambda T, a, x: T.trapezoid(a, x, dim=1), [X, V]),
    ("trapz", lambda T, a: T.trapz(a, dim=0), [X]),
    ("cumulative_trapezoid", lambda T, a: T.cumulative_trapezoid(a, dx=2.0), [X]),
    ("dist", lambda T, a, b: T.dist(a, b, p=3), [X, Y]),
    ("renorm", lambda T, a: a.renorm(2, 0, 1.0), [X]),
    ("cdist", lambda T, a, b: T.cdist(a, b), [X, Y]),
    ("cdist_p1", lambda T, a, b: T.cdist(a, b, p=1.0), [X, Y]),
    ("cdist_mm", lambda T, a, b: T.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [X, Y]),
    ("mv", lambda T, m, v: T.mv(m, v), [X, V]),
    ("dot", lambda T, a, b: a.dot(b), [V, V * 2]),
    ("vdot", lambda T, a, b: T.vdot(a, b), [V, V + 1]),
    ("addmv", lambda T, s, m, v: T.addmv(s, m, v, beta=0.5, alpha=2), [V[:4].clone(), X, V]),
    ("baddbmm", lambda T, s, a, b: T.baddbmm(s, a, b, alpha=0.5), [V, B1, B2]),
    ("addbmm", lambda T, s, a, b: s.addbmm(a, b, beta=2), [V, B1, B2]),
    ("matrix_power", lambda T, m: T.matrix_power(m, 5), [M3]),
    ("matrix_power_negative", lambda T, m: m.matrix_power(-3),
     [M3 + 2 * torch.eye(3, dtype=torch.float64)]),
]


@pytest.mark.parametrize("name, f, inputs", CASES, ids=[c[0] for c in CASES])
def test_forward_and_backward_match_pytorch(name, f, inputs):
    ts = [t.clone().requires_grad_() for t in inputs]
    es = [em(t).requires_grad_() for t in inputs]
    expected, got = f(torch, *ts), f(ember, *es)
    close(got, expected)
    expected.sum().backward()
    got.sum().backward()
    for e, t in zip(es, ts):
        close(e.grad, t.grad)


# Integer, bool and index results (no gradient).
EXACT = [
    ("sgn", lambda T, a: T.sgn(a), [INTS]),
    ("signbit", lambda T, a: T.signbit(a), [torch.tensor([-0.0, 0.0, -1.5, 2.0])]),
    ("isposinf", lambda T, a: T.isposinf(T.log(a)), [torch.tensor([0.0, 1.0, float("inf")])]),
    ("isneginf", lambda T, a: a.log().isneginf(), [torch.tensor([0.0, 1.0, float("inf")])]),
    ("isreal", lambda T, a: T.isreal(a), [X]),
    ("heaviside", lambda T, a, b: T.heaviside(a, b), [INTS, INTS * 2]),
    ("heaviside_values_keyword", lambda T, a, b: a.heaviside(values=b), [X, Y]),
    ("heaviside_function_keyword", lambda T, a, b: T.heaviside(a, values=b), [X, Y]),
    ("gcd", lambda T, a, b: T.gcd(a, b), [INTS, INTS.flip(0) * 3]),
    ("lcm", lambda T, a, b: a.lcm(b), [INTS, INTS.flip(1)]),
    ("gcd_", lambda T, a, b: a.clone().gcd_(b), [INTS, INTS.flip(0)]),
    ("isclose", lambda T, a, b: T.isclose(a, a + b * 1e-6, rtol=1e-7, atol=1e-7), [X, Y]),
    ("isclose_equal_nan", lambda T, a: T.isclose(T.log(a), T.log(a), equal_nan=True), [X]),
    ("isin", lambda T, a, b: T.isin(a, b), [INTS, INTS[0]]),
    ("isin_invert_scalar", lambda T, a: T.isin(a, 2, invert=True), [INTS]),
    ("cummax_indices", lambda T, a: T.cummax(a, 1).indices, [INTS]),
    ("cummin_indices", lambda T, a: a.cummin(0)[1], [INTS]),
    ("kthvalue_indices", lambda T, a: a.kthvalue(3, 1).indices, [X]),
    ("median_indices", lambda T, a: T.median(a, 0).indices, [X]),
    ("median_nan_indices", lambda T, a: T.median(T.log(a), 1).indices, [X]),
    ("nanmedian_all", lambda T, a: T.nanmedian(T.log(a)), [X]),
    ("aminmax_all", lambda T, a: tuple(T.aminmax(a)), [INTS]),
    # PyTorch 1.13 has no aminmax gradient (Ember's is amin's and amax's)
    ("aminmax_dim", lambda T, a: T.aminmax(a, dim=1, keepdim=True).max, [X]),
    ("searchsorted", lambda T, s, v: T.searchsorted(T.sort(s).values, v), [V, X]),
    ("searchsorted_right_int32",
     lambda T, s, v: T.searchsorted(s.sort(dim=1).values, v, right=True, out_int32=True), [X, Y]),
    ("searchsorted_side_sorter",
     lambda T, s, v: T.searchsorted(s, v, side="right", sorter=T.argsort(s, stable=True)),
     [INTS[0], INTS]),
    ("searchsorted_scalar", lambda T, s: T.searchsorted(T.sort(s).values, 0.25), [V]),
    ("bucketize", lambda T, v, b: T.bucketize(v, T.sort(b).values, right=True), [X, V]),
    ("bincount", lambda T, a: T.bincount(a + 4), [INTS[0]]),
    ("bincount_weights", lambda T, a, w: (a + 4).bincount(w, minlength=12), [INTS[0], V]),
    ("histc", lambda T, a: T.histc(a, bins=7), [X]),
    ("histc_range", lambda T, a: a.histc(4, min=-1, max=1), [X]),
    ("unique", lambda T, a: T.unique(a), [INTS]),
    ("unique_inverse_counts",
     lambda T, a: T.unique(a, return_inverse=True, return_counts=True), [INTS]),
    ("unique_method_counts", lambda T, a: a.unique(return_counts=True), [INTS[1]]),
    ("unique_consecutive",
     lambda T, a: T.unique_consecutive(a, return_inverse=True, return_counts=True),
     [torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])]),
    ("unique_consecutive_dim",
     lambda T, a: a.unique_consecutive(dim=0, return_counts=True),
     [torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2]])]),
    ("dot_int", lambda T, a, b: T.dot(a, b), [INTS[0], INTS[1]]),
]


@pytest.mark.parametrize("name, f, inputs", EXACT, ids=[c[0] for c in EXACT])
def test_exact_results_match_pytorch(name, f, inputs):
    close(f(ember, *[em(t) for t in inputs]), f(torch, *inputs))


def test_named_results_print_as_pytorch_names_them():
    r = ember.aminmax(em(X))
    assert type(r).__name__ == "aminmax" and r.min.shape == () and r.max.shape == ()
    for name in ("cummax", "cummin"):
        r = getattr(ember, name)(em(X), 0)
        assert type(r).__name__ == name and "indices=" in repr(r)
    assert type(ember.kthvalue(em(X), 1)).__name__ == "kthvalue"
    assert type(ember.median(em(X), 0)).__name__ == "median"
    assert type(ember.nanmedian(em(X), 0)).__name__ == "nanmedian"


BAD = [
    "T.polygamma(-1, T.ones(2))",
    "T.kthvalue(T.ones(2, 3), 9)",
    "T.quantile(T.ones(0), 0.5)",
    "T.quantile(T.ones(3), 1.5)",
    "T.quantile(T.ones(3), T.tensor([0.5, 1.5]))",
    "T.quantile(T.ones(3), 0.5, interpolation='middle')",
    "T.quantile(T.ones(3, dtype=T.int64), 0.5)",
    "T.aminmax(T.ones(0))",
    "T.diff(T.tensor(1.0))",
    "T.renorm(T.ones(2, 3), 0, 0, 1)",
    "T.renorm(T.ones(2, 3), 2, 0, -1)",
    "T.cdist(T.ones(2, 3), T.ones(2, 4))",
    "T.cdist(T.ones(2, 3, dtype=T.int64), T.ones(2, 3, dtype=T.int64))",
    "T.bincount(T.tensor([-1, 2]))",
    "T.bincount(T.ones(3))",
    "T.histc(T.ones(3), 0)",
    "T.histc(T.ones(3, dtype=T.int64))",
    "T.searchsorted(T.ones(2, 3), T.ones(3, 2))",
    "T.searchsorted(T.ones(3), T.ones(2), side='middle')",
    "T.bucketize(T.ones(3), T.ones(2, 2))",
    "T.matrix_power(T.ones(3), 2)",
    "T.matrix_power(T.ones(2, 3), 2)",
    "T.mv(T.ones(2, 3), T.ones(2))",
    "T.dot(T.ones(2), T.ones(3))",
    "T.dot(T.ones(2), T.ones(2, dtype=T.float64))",
    "T.addmv(T.ones(2), T.ones(3, 4), T.ones(4))",
    "T.isclose(T.ones(2), T.ones(2, dtype=T.int64))",
    "T.heaviside(T.ones(2), T.ones(2, dtype=T.int64))",
    "T.gcd(T.ones(2), T.ones(2))",
    "T.lcm(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))",
    "T.logaddexp(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64))",
    "T.logcumsumexp(T.ones(2, dtype=T.int64), 0)",
    "T.cummax(T.ones(2, 3), 5)",
    "T.trapezoid(T.ones(2, 3), T.ones(2))",
]


@pytest.mark.parametrize("expr", BAD)
def test_bad_input_raises_what_pytorch_raises(expr):
    def kind(module):
        try:
            eval(expr, {"T": module})
        except Exception as e:  # noqa: BLE001  the type is what is compared
            return type(e).__name__
        return "no error"

    expected = kind(torch)
    assert expected != "no error", expr
    assert kind(ember) == expected, expr


def test_messages_name_the_values():
    with pytest.raises(RuntimeError, match="but got 1.5"):
        ember.quantile(ember.ones(3), 1.5)
    with pytest.raises(RuntimeError, match="size mismatch, got 2, 3x4,4"):
        ember.addmv(ember.ones(2), ember.ones(3, 4), ember.ones(4))
    with pytest.raises(RuntimeError, match="'Float'"):
        ember.gcd(ember.ones(2), ember.ones(2))
    with pytest.raises(NotImplementedError, match="dim"):
        ember.unique(ember.ones(2, 2), dim=0)
