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


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_conv_tbc_matches_torch(pad):
    ex, tx = pair(wave(7, 2, 3), requires_grad=True)
    ew, tw = pair(wave(3, 3, 4, offset=1.0), requires_grad=True)
    eb, tb = pair(wave(4, offset=2.0), requires_grad=True)
    eo, to = F.conv_tbc(ex, ew, eb, pad), TF.conv_tbc(tx, tw, tb, pad)
    close(eo, to, rtol=1e-4, atol=1e-5)
    eo.square().sum().backward()
    to.square().sum().backward()
    for e, t in [(ex, tx), (ew, tw), (eb, tb)]:
        close(e.grad, t.grad, rtol=1e-4, atol=1e-4)
    with pytest.raises(RuntimeError, match="Input dim 2 \\(input channels\\) is not == dim 1"):
        F.conv_tbc(ex, ember.zeros(3, 2, 4), eb)
    with pytest.raises(RuntimeError, match="Input dim 2 \\(input channels\\) is not == dim 1"):
        TF.conv_tbc(tx, torch.zeros(3, 2, 4), tb)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_pdist_matches_torch(p):
    ex, tx = pair(wave(5, 3), requires_grad=True)
    eo, to = F.pdist(ex, p), TF.pdist(tx, p)
    close(eo, to, rtol=1e-4, atol=1e-5)
    (eo * ember.tensor(wave(10, offset=1.0))).sum().backward()
    (to * torch.tensor(wave(10, offset=1.0))).sum().backward()
    close(ex.grad, tx.grad, rtol=1e-4, atol=1e-4)
    assert tuple(F.pdist(ember.ones(1, 3)).shape) == tuple(TF.pdist(torch.ones(1, 3)).shape)
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 3D"):
        F.pdist(ember.ones(2, 2, 2))


def test_native_channel_shuffle_matches_torch():
    ex, tx = pair(wave(2, 6, 2))
    close(F.native_channel_shuffle(ex, 3), TF.native_channel_shuffle(tx, 3))


def test_gumbel_softmax_samples_the_softmax_and_passes_the_soft_gradient():
    ember.manual_seed(4)
    logits = ember.tensor([[1.0, 0.0, -1.0, 2.0]]).expand(20000, 4)
    soft = F.gumbel_softmax(logits, tau=0.5)
    close(soft.sum(-1), torch.ones(20000), rtol=1e-5, atol=1e-5)
    hard = F.gumbel_softmax(logits, hard=True)
    assert set(hard.sum(-1).tolist()) == {1.0}
    assert set(hard.flatten().tolist()) == {0.0, 1.0}
    # The Gumbel-max trick: argmax frequencies are softmax(logits).
    expected = torch.tensor([[1.0, 0.0, -1.0, 2.0]]).softmax(-1)[0]
    freq = hard.mean(0)
    close(freq, expected, rtol=0, atol=0.015)
    x = ember.tensor([[0.5, 0.1, -0.3]], requires_grad=True)
    ember.manual_seed(5)
    (F.gumbel_softmax(x, hard=True) * ember.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    hard_grad = x.grad.clone()
    x.grad = None
    ember.manual_seed(5)
    (F.gumbel_softmax(x, hard=False) * ember.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    close(hard_grad, torch.tensor(x.grad.numpy()))
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(x, eps=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_and_affine_grid_match_torch(mode, padding_mode, align_corners):
    ex, tx = pair(wave(2, 3, 5, 4), requires_grad=True)
    etheta, ttheta = pair(wave(2, 2, 3, scale=1.2, offset=0.7), requires_grad=True)
    eg = F.affine_grid(etheta, [2, 3, 6, 3], align_corners=align_corners)
    tg = TF.affine_grid(ttheta, [2, 3, 6, 3], align_corners=align_corners)
    close(eg, tg)
    eo = F.grid_sample(ex, eg, mode, padding_mode, align_corners)
    to = TF.grid_sample(tx, tg, mode, padding_mode, align_corners)
    close(eo, to, rtol=1e-4, atol=1e-5)
    (eo * eo.detach().cos()).sum().backward()
    (to * to.detach().cos()).sum().backward()
    close(ex.grad, tx.grad, rtol=1e-4, atol=1e-4)
    if mode == "bilinear":
        close(etheta.grad, ttheta.grad, rtol=1e-3, atol=1e-3)


def test_grid_sample_warnings_and_errors_as_torch():
    x, g = ember.zeros(1, 1, 3, 3), ember.zeros(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.grid_sample(x, g)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.affine_grid(ember.zeros(1, 2, 3), [1, 1, 2, 2])
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or "
                       "'bicubic', but got: 'linear'"):
        F.grid_sample(x, g, mode="linear", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or "
                       "'reflection', but got: 'circular'"):
        F.grid_sample(x, g, padding_mode="circular", align_corners=False)
    with pytest.raises(ValueError, match=r"Expected a batch of 2D affine matrices of shape Nx2x3"):
        F.affine_grid(ember.zeros(1, 3, 3), [1, 1, 2, 2], align_corners=False)
    with pytest.raises(ValueError, match="Expected theta to have floating point type"):
        F.affine_grid(ember.zeros(1, 2, 3, dtype=ember.int64), [1, 1, 2, 2], align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid and input to have same batch size"):
        F.grid_sample(ember.zeros(2, 1, 3, 3), g, align_corners=False)
