"""ember.nn.functional's remaining PyTorch 1.13 names against torch.nn.functional: normalize,
the in-place activation spellings and the deprecated upsample functions."""
import pytest
import torch

import ember
import ember.nn.functional as F
from nn_compare import close, pair, wave

TF = torch.nn.functional


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize_forward_and_backward(p, dim):
    x = wave(3, 4, 2, offset=0.5)
    ex, tx = pair(x, requires_grad=True)
    eo, to = F.normalize(ex, p=p, dim=dim), TF.normalize(tx, p=p, dim=dim)
    close(eo, to)
    (eo * ember.tensor(wave(3, 4, 2, offset=1.0))).sum().backward()
    (to * torch.tensor(wave(3, 4, 2, offset=1.0))).sum().backward()
    close(ex.grad, tx.grad, rtol=1e-4, atol=1e-5)


def test_normalize_eps_keeps_zero_rows_finite():
    ex, tx = pair([[0.0, 0.0], [3.0, 4.0]])
    close(F.normalize(ex, eps=1e-3), TF.normalize(tx, eps=1e-3))
    out = ember.empty(2, 2)
    F.normalize(ex, out=out)
    close(out, TF.normalize(tx))


def test_normalize_bad_input():
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.normalize(ember.ones(2, 3), dim=2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        TF.normalize(torch.ones(2, 3), dim=2)


@pytest.mark.parametrize("name,args", [("elu_", (0.7,)), ("celu_", (1.3,)), ("selu_", ()),
                                       ("leaky_relu_", (0.2,)), ("hardtanh_", (-0.5, 0.25)),
                                       ("threshold_", (0.1, -2.0))])
def test_inplace_spellings_write_through(name, args):
    ex, tx = pair(wave(4, 5, scale=2.0))
    er = getattr(F, name)(ex, *args)
    getattr(TF, name)(tx, *args)
    assert er is ex
    close(ex, tx)


@pytest.mark.parametrize("name,kwargs", [
    ("upsample", {"scale_factor": 2}),
    ("upsample", {"size": (5, 3), "mode": "bilinear", "align_corners": False}),
    ("upsample_nearest", {"size": 6}),
    ("upsample_bilinear", {"scale_factor": 1.5}),
])
def test_deprecated_upsample_functions_warn_and_match(name, kwargs):
    ex, tx = pair(wave(1, 2, 3, 4))
    with pytest.warns(UserWarning, match=f"nn.functional.{name} is deprecated"):
        eo = getattr(F, name)(ex, **kwargs)
    with pytest.warns(UserWarning):
        to = getattr(TF, name)(tx, **kwargs)
    close(eo, to)
