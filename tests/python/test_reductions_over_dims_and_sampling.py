"""prod, all, any and norm along dims against torch (values and gradients), and the random
distributions of PyTorch 1.13's Tensor methods (exponential_, geometric_, cauchy_, log_normal_,
bernoulli_, random_, bernoulli, normal): their statistics, forms, dtypes and errors."""
import math

import numpy as np
import pytest
import torch

import ember
from nn_compare import close, pair, wave


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.prod(x, 1),
    lambda lib, x: x.prod(-1, keepdim=True),
    lambda lib, x: x.prod(0, dtype=lib.float64),
    lambda lib, x: x.norm(dim=1),
    lambda lib, x: x.norm(1, dim=(0, 2), keepdim=True),
    lambda lib, x: x.norm(p=3, dim=-1),
    lambda lib, x: lib.norm(x, float("inf"), dim=0),
    lambda lib, x: x.norm("fro", dim=(1, 2)),
    lambda lib, x: x.norm(2, 1, dtype=lib.float64),
])
def test_dim_reductions_match_torch(call):
    x = wave(3, 4, 2, offset=0.3) + 0.1
    x[1, 2, 0] = 0.0  # a zero in prod's slice: the exact gradient path
    ex, tx = pair(x, requires_grad=True)
    eo, to = call(ember, ex), call(torch, tx)
    assert eo.dtype == getattr(ember, str(to.dtype).split(".")[1])
    close(eo, to, rtol=1e-4, atol=1e-5)
    weights = wave(*to.shape, offset=2.0) if to.dim() else np.float32(1.5)
    (eo * ember.tensor(weights).to(eo.dtype)).sum().backward()
    (to * torch.tensor(weights).to(to.dtype)).sum().backward()
    close(ex.grad, tx.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_over_a_dim(name):
    x = np.array([[0, 1, 1], [1, 1, 1]], dtype=np.float32)
    ex, tx = pair(x)
    for dim, keepdim in [(0, False), (1, True), (-1, False)]:
        eo, to = getattr(ex, name)(dim, keepdim), getattr(tx, name)(dim=dim, keepdim=keepdim)
        assert eo.dtype == ember.bool
        assert eo.tolist() == to.tolist()
    eb = getattr(ember, name)(ember.tensor(x.astype(np.uint8)), 1)
    assert eb.dtype == ember.uint8  # uint8 stays uint8, as in PyTorch
    with pytest.raises(IndexError, match="Dimension out of range"):
        getattr(ex, name)(2)


def test_norm_errors():
    with pytest.raises(RuntimeError, match="norm\\(\\): input dtype should be either floating "
                       "point or complex. Got Long instead"):
        ember.arange(4).norm(dim=0)
    with pytest.raises(RuntimeError, match="norm\\(\\): input dtype should be either floating "
                       "point or complex. Got Long instead"):
        torch.arange(4).norm(dim=0)
    with pytest.raises(NotImplementedError, match="p='nuc'"):
        ember.ones(2, 2).norm("nuc")


def sample(method, *args, dtype=ember.float32, n=20000):
    ember.manual_seed(11)
    t = ember.empty(n, dtype=dtype)
    out = getattr(t, method)(*args)
    assert out is t
    return t.to(ember.float64).numpy()


def test_distributions():
    e = sample("exponential_", 2.0)
    assert abs(e.mean() - 0.5) < 0.02 and e.min() >= 0
    g = sample("geometric_", 0.25, dtype=ember.int64)
    assert abs(g.mean() - 4.0) < 0.12 and g.min() == 1
    c = np.sort(sample("cauchy_", 3.0, 0.5))
    assert abs(c[10000] - 3.0) < 0.03 and abs(c[5000] - 2.5) < 0.04
    ln = np.log(sample("log_normal_", 0.0, 0.5))
    assert abs(ln.mean()) < 0.02 and abs(ln.std() - 0.5) < 0.02
    b = sample("bernoulli_", 0.3, dtype=ember.float16)
    assert set(np.unique(b)) == {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    r = sample("random_", -3, 4, dtype=ember.int32)
    assert r.min() == -3 and r.max() == 3
    assert sample("random_", 10).max() == 9
    assert sample("random_", dtype=ember.uint8).max() == 255


def test_bernoulli_and_normal_forms():
    ember.manual_seed(12)
    p = ember.tensor([[0.0], [1.0], [0.8]]).expand(3, 5000)
    d = ember.bernoulli(p)
    assert d.dtype == ember.float32 and tuple(d.shape) == (3, 5000)
    m = d.mean(1).tolist()
    assert m[0] == 0.0 and m[1] == 1.0 and abs(m[2] - 0.8) < 0.03
    assert abs(float(ember.zeros(20000).bernoulli(0.25).mean()) - 0.25) < 0.02
    assert abs(float(p.bernoulli().mean()) - 0.6) < 0.02
    t = ember.zeros(2, 10000, dtype=ember.int64)
    t.bernoulli_(ember.tensor([[0.1], [0.9]]))
    assert abs(float(t.float().mean(1)[1]) - 0.9) < 0.02
    n = ember.normal(ember.tensor([[-2.0], [5.0]]), ember.full((1, 10000), 0.5))
    assert tuple(n.shape) == (2, 10000)
    assert abs(float(n[0].mean()) + 2.0) < 0.03 and abs(float(n[1].std()) - 0.5) < 0.02
    assert abs(float(ember.normal(ember.zeros(20000), 3.0).std()) - 3.0) < 0.1
    assert abs(float(ember.normal(1.5, ember.full((20000,), 2.0)).mean()) - 1.5) < 0.1
    f = ember.normal(2.0, 0.5, size=(100, 200), dtype=ember.float64)
    tf = torch.normal(2.0, 0.5, size=(100, 200), dtype=torch.float64)
    assert f.dtype == ember.float64 and tuple(f.shape) == tuple(tf.shape)
    assert abs(float(f.mean()) - 2.0) < 0.02 and abs(float(f.std()) - 0.5) < 0.02


@pytest.mark.parametrize("call,error,text", [
    (lambda lib: lib.empty(3).exponential_(-1), RuntimeError,
     "exponential_ expects lambda >= 0.0, but found lambda=-1"),
    (lambda lib: lib.empty(3).geometric_(1.5), RuntimeError,
     "geometric_ expects p to be in \\(0, 1\\), but got p=1.5"),
    (lambda lib: lib.empty(3).log_normal_(1, -2), RuntimeError,
     "log_normal_ expects std > 0.0, but found std=-2"),
    (lambda lib: lib.empty(3).bernoulli_(1.5), RuntimeError,
     "bernoulli_ expects p to be in \\[0, 1\\], but got p=1.5"),
    (lambda lib: lib.empty(3).random_(5, 2), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=2"),
    (lambda lib: lib.normal(lib.zeros(2), lib.tensor([-1.0, 1.0])), RuntimeError,
     "normal expects all elements of std >= 0.0"),
])
def test_bad_parameters_raise_as_torch(call, error, text):
    with pytest.raises(error, match=text):
        call(torch)
    with pytest.raises(error, match=text):
        call(ember)
