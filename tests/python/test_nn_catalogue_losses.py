"""The catalogue's layers (issue 34) in ember.nn against torch.nn: CTCLoss, EmbeddingBag,
Embedding's max_norm and scale_grad_by_freq, TripletMarginWithDistanceLoss, RReLU, Softmax2d,
LPPool1d/2d, CrossMapLRN2d and F.gumbel_softmax, forward and backward on the same values, on every device, in
float32 and float64; reprs; bad input with PyTorch's exception types and texts."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as EF
import torch.nn.functional as TF
from nn_compare import to_numpy

DEVICES = ["cpu"] + (["cuda"] if ember.cuda.is_available() else [])
DTYPES = [np.float32, np.float64]


def tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-11)


def leaf(values, device, requires_grad=True):
    """(ember leaf on device, torch leaf) with the same values."""
    e = ember.tensor(values).to(device)
    t = torch.tensor(values)
    if requires_grad and values.dtype.kind == "f":
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def check(e_out, t_out, dtype, e_leaves=(), t_leaves=(), seed=0):
    """Outputs equal; then the same upstream gradient gives the same leaf gradients."""
    np.testing.assert_allclose(to_numpy(e_out), to_numpy(t_out), **tol(dtype))
    if not e_leaves:
        return
    gy = np.random.default_rng(seed).standard_normal(tuple(t_out.shape)).astype(dtype)
    e_out.backward(ember.tensor(gy).to(e_out.device))
    t_out.backward(torch.tensor(gy))
    for e, t in zip(e_leaves, t_leaves):
        np.testing.assert_allclose(to_numpy(e.grad), to_numpy(t.grad), **tol(dtype))


def log_probs(shape, dtype, seed=1):
    x = np.random.default_rng(seed).standard_normal(shape)
    x = x - np.log(np.exp(x).sum(-1, keepdims=True))
    return x.astype(dtype)


# ---- CTCLoss ----

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("layout", ["padded", "concatenated", "lists"])
def test_ctc_loss(device, dtype, reduction, zero_infinity, layout):
    lp = log_probs((10, 3, 5), dtype)
    padded = np.array([[1, 1, 2, 3], [4, 2, 0, 0], [3, 3, 3, 0]])
    target_lengths = [4, 2, 3]
    input_lengths = [10, 8, 4]  # the third cannot fit 3, 3, 3 (needs 5 steps): infinite
    targets = padded if layout != "concatenated" else np.array([1, 1, 2, 3, 4, 2, 3, 3, 3])
    e_lp, t_lp = leaf(lp, device)
    e_tg, t_tg = ember.tensor(targets).to(device), torch.tensor(targets)
    if layout == "lists":
        e_in, t_in, e_tl, t_tl = input_lengths, input_lengths, target_lengths, target_lengths
    else:
        e_in, t_in = ember.tensor(input_lengths), torch.tensor(input_lengths)
        e_tl, t_tl = ember.tensor(target_lengths), torch.tensor(target_lengths)
    e_loss = ember.nn.CTCLoss(reduction=reduction, zero_infinity=zero_infinity)
    t_loss = torch.nn.CTCLoss(reduction=reduction, zero_infinity=zero_infinity)
    e_out = e_loss(e_lp, e_tg, e_in, e_tl)
    t_out = t_loss(t_lp, t_tg, t_in, t_tl)
    check(e_out, t_out, dtype, [e_lp], [t_lp])
    # The functional form with a blank other than 0.
    e_f = EF.ctc_loss(e_lp.detach(), e_tg, e_in, e_tl, blank=0, reduction=reduction,
                      zero_infinity=zero_infinity)
    np.testing.assert_allclose(to_numpy(e_f), to_numpy(t_out.detach()), **tol(dtype))


@pytest.mark.parametrize("device", DEVICES)
def test_ctc_loss_blank_and_unbatched(device):
    lp = log_probs((7, 4), np.float64, seed=3)
    e_lp, t_lp = leaf(lp, device)
    e_out = EF.ctc_loss(e_lp, ember.tensor([0, 1, 1]).to(device), ember.tensor(7),
                        ember.tensor(3), blank=3)
    t_out = TF.ctc_loss(t_lp, torch.tensor([0, 1, 1]), torch.tensor(7), torch.tensor(3), blank=3)
    check(e_out, t_out, np.float64, [e_lp], [t_lp])


def test_ctc_loss_bad_input():
    lp = ember.tensor(log_probs((5, 2, 4), np.float32))
    tg = ember.tensor([[1, 2, 3], [1, 1, 0]])
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 5, but "
                                           "got value 6"):
        EF.ctc_loss(lp, tg, [5, 6], [3, 2])
    with pytest.raises(RuntimeError, match="Expected tensor to have size at least 4 at dimension "
                                           "1, but got size 3 for argument #2 'targets'"):
        EF.ctc_loss(lp, tg, [5, 5], [4, 2])
    with pytest.raises(RuntimeError, match="input_lengths must be of size batch_size"):
        EF.ctc_loss(lp, tg, [5], [3, 2])
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        EF.ctc_loss(lp, tg, [5, 5], [3, 2], blank=4)
    with pytest.raises(RuntimeError, match="Expected target_lengths to have value at least 0"):
        EF.ctc_loss(lp, tg, [5, 5], [3, -1])
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        EF.ctc_loss(lp, tg, [5, 5], [3, 2], reduction="avg")
    assert repr(ember.nn.CTCLoss()) == repr(torch.nn.CTCLoss())


# ---- EmbeddingBag and Embedding ----

BAG_CASES = [
    # (mode, offsets, include_last_offset, padding_idx, per_sample_weights, scale_grad_by_freq)
    ("sum", [0, 3, 3, 7], False, None, False, False),
    ("sum", [0, 3, 3, 7], False, None, True, False),
    ("sum", [0, 2, 6, 9], True, 7, True, False),
    ("mean", [0, 3, 3, 7], False, None, False, False),
    ("mean", [0, 2, 6, 9], True, -3, False, True),
    ("sum", [0, 5], False, 2, False, True),
    ("max", [0, 3, 3, 7], False, None, False, False),
    ("max", [0, 2, 6, 9], True, 7, False, False),
]


def bags_by_hand(idx, weight, offsets, mode, include_last_offset, padding_idx, psw):
    """torch's embedding_bag (sum or mean) from F.embedding with scale_grad_by_freq."""
    rows = TF.embedding(idx, weight, padding_idx=padding_idx, scale_grad_by_freq=True)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    pad = padding_idx % weight.shape[0] if padding_idx is not None else -1
    starts = offsets[:-1] if include_last_offset else offsets
    ends = offsets[1:] if include_last_offset else offsets[1:] + [len(idx)]
    out = []
    for s, e in zip(starts, ends):
        keep = idx[s:e] != pad
        bag = rows[s:e][keep].sum(0)
        out.append(bag / max(int(keep.sum()), 1) if mode == "mean" else bag)
    return torch.stack(out)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", BAG_CASES)
def test_embedding_bag(device, dtype, case):
    mode, offsets, last, padding_idx, weighted, by_freq = case
    rng = np.random.default_rng(4)
    weight = rng.standard_normal((10, 4)).astype(dtype)
    idx = np.array([1, 7, 7, 3, 0, 9, 2, 5, 7])
    e_bag = ember.nn.EmbeddingBag(10, 4, mode=mode, include_last_offset=last,
                                  padding_idx=padding_idx, scale_grad_by_freq=by_freq,
                                  _weight=ember.tensor(weight)).to(device)
    t_bag = torch.nn.EmbeddingBag(10, 4, mode=mode, include_last_offset=last,
                                  padding_idx=padding_idx, scale_grad_by_freq=by_freq,
                                  _weight=torch.tensor(weight))
    assert repr(e_bag) == repr(t_bag)
    e_psw = t_psw = None
    if weighted:
        e_psw, t_psw = leaf(rng.standard_normal(9).astype(dtype), device)
    e_out = e_bag(ember.tensor(idx).to(device), ember.tensor(offsets).to(device), e_psw)
    if by_freq:
        # PyTorch 1.13's embedding_bag divides each row's gradient by the count of another
        # index; the reference is F.embedding's scale_grad_by_freq, bagged by hand.
        t_out = bags_by_hand(torch.tensor(idx), t_bag.weight, offsets, mode, last, padding_idx,
                             t_psw)
    else:
        t_out = t_bag(torch.tensor(idx), torch.tensor(offsets), t_psw)
    e_leaves = [e_bag.weight] + ([e_psw] if weighted else [])
    t_leaves = [t_bag.weight] + ([t_psw] if weighted else [])
    check(e_out, t_out, dtype, e_leaves, t_leaves)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_and_from_pretrained(device, mode):
    weight = np.random.default_rng(5).standard_normal((6, 3))
    idx = np.array([[0, 5, 2], [2, 4, 1]])
    e_bag = ember.nn.EmbeddingBag.from_pretrained(ember.tensor(weight), freeze=False, mode=mode)
    t_bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(weight), freeze=False, mode=mode)
    e_bag.to(device)
    check(e_bag(ember.tensor(idx).to(device)), t_bag(torch.tensor(idx)), np.float64,
          [e_bag.weight], [t_bag.weight])
    frozen = ember.nn.EmbeddingBag.from_pretrained(ember.tensor(weight))
    assert not frozen.weight.requires_grad


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
@pytest.mark.parametrize("bag", [False, True])
def test_max_norm_renormalises_in_place(device, norm_type, bag):
    weight = np.random.default_rng(6).standard_normal((8, 3)) * 2
    idx = np.array([1, 4, 4, 6, 0])
    if bag:
        e_m = ember.nn.EmbeddingBag(8, 3, max_norm=1.5, norm_type=norm_type,
                                    _weight=ember.tensor(weight)).to(device)
        t_m = torch.nn.EmbeddingBag(8, 3, max_norm=1.5, norm_type=norm_type,
                                    _weight=torch.tensor(weight))
        e_out = e_m(ember.tensor(idx).to(device), ember.tensor([0, 2]).to(device))
        t_out = t_m(torch.tensor(idx), torch.tensor([0, 2]))
    else:
        e_m = ember.nn.Embedding(8, 3, max_norm=1.5, norm_type=norm_type,
                                 _weight=ember.tensor(weight)).to(device)
        t_m = torch.nn.Embedding(8, 3, max_norm=1.5, norm_type=norm_type,
                                 _weight=torch.tensor(weight))
        e_out = e_m(ember.tensor(idx).to(device))
        t_out = t_m(torch.tensor(idx))
    assert repr(e_m) == repr(t_m)
    check(e_out, t_out, np.float64, [e_m.weight], [t_m.weight])
    np.testing.assert_allclose(to_numpy(e_m.weight), to_numpy(t_m.weight), rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_scale_grad_by_freq(device):
    weight = np.random.default_rng(7).standard_normal((5, 2))
    idx = np.array([[0, 1, 1], [4, 1, 0]])
    e_m = ember.nn.Embedding(5, 2, scale_grad_by_freq=True, padding_idx=4,
                             _weight=ember.tensor(weight)).to(device)
    t_m = torch.nn.Embedding(5, 2, scale_grad_by_freq=True, padding_idx=4,
                             _weight=torch.tensor(weight))
    assert repr(e_m) == repr(t_m)
    check(e_m(ember.tensor(idx).to(device)), t_m(torch.tensor(idx)), np.float64, [e_m.weight],
          [t_m.weight])


def test_embedding_bag_bad_input():
    w = ember.randn(5, 3)
    idx = ember.tensor([1, 2, 4, 4])
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        EF.embedding_bag(idx.reshape(2, 2), w, ember.tensor([0, 1]))
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        EF.embedding_bag(idx, w)
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        EF.embedding_bag(idx, w, ember.tensor([0, 2]), mode="min")
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for "
                                                  "mode='sum' \\(got mode='max'\\)"):
        EF.embedding_bag(idx, w, ember.tensor([0, 2]), mode="max",
                         per_sample_weights=ember.ones(4))
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        EF.embedding_bag(idx, w, ember.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="padding_idx must be within the number of embeddings, "
                                           "-5 through 4, but got 7"):
        EF.embedding_bag(idx, w, ember.tensor([0, 2]), padding_idx=7)
    with pytest.raises(AssertionError):
        ember.nn.EmbeddingBag(5, 3, padding_idx=5)


# ---- TripletMarginWithDistanceLoss, RReLU, Softmax2d, LPPool, gumbel_softmax ----

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("custom", [False, True])
def test_triplet_margin_with_distance_loss(device, dtype, reduction, swap, custom):
    rng = np.random.default_rng(8)
    values = [rng.standard_normal((4, 6)).astype(dtype) for _ in range(3)]
    e_in = [leaf(v, device)[0] for v in values]
    t_in = [torch.tensor(v, requires_grad=True) for v in values]
    e_dist = (lambda a, b: 1 - EF.cosine_similarity(a, b)) if custom else None
    t_dist = (lambda a, b: 1 - TF.cosine_similarity(a, b)) if custom else None
    e_loss = ember.nn.TripletMarginWithDistanceLoss(distance_function=e_dist, margin=0.7,
                                                    swap=swap, reduction=reduction)
    t_loss = torch.nn.TripletMarginWithDistanceLoss(distance_function=t_dist, margin=0.7,
                                                    swap=swap, reduction=reduction)
    if not custom:
        assert repr(e_loss) == repr(t_loss)
    check(e_loss(*e_in), t_loss(*t_in), dtype, e_in, t_in)


LAYER_CASES = [
    ("Softmax2d()", (2, 3, 4, 5), False),
    ("Softmax2d()", (3, 4, 5), False),
    ("LPPool1d(2, 3)", (2, 3, 10), False),
    ("LPPool1d(3, 4, stride=2, ceil_mode=True)", (2, 3, 10), False),
    ("LPPool2d(1.5, (3, 2), stride=(2, 1))", (2, 3, 7, 8), True),
    ("LPPool2d(2, 3, ceil_mode=True)", (2, 3, 7, 8), True),
    ("RReLU(0.1, 0.4)", (4, 5), False),
    ("CrossMapLRN2d(3, alpha=0.3, beta=0.6, k=2)", (2, 7, 3, 4), False),
    ("CrossMapLRN2d(4, alpha=0.3, beta=0.6, k=2)", (2, 7, 3, 4), False),
    ("CrossMapLRN2d(5)", (2, 3, 3, 4), False),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LAYER_CASES)
def test_layers(device, dtype, case):
    text, shape, positive = case
    x = np.random.default_rng(9).standard_normal(shape).astype(dtype)
    if positive:
        x = np.abs(x) + np.asarray(0.1, dtype)
    e_m = eval("ember.nn." + text).eval()
    t_m = eval("torch.nn." + text).eval()
    assert repr(e_m) == repr(t_m)
    e_x, t_x = leaf(x, device)
    check(e_m(e_x), t_m(t_x), dtype, [e_x], [t_x])


def test_functional_forms():
    x = np.random.default_rng(10).standard_normal((2, 3, 6, 6))
    for e_out, t_out in [
        (EF.lp_pool2d(ember.tensor(x), 2, 2), TF.lp_pool2d(torch.tensor(x), 2, 2)),
        (EF.lp_pool1d(ember.tensor(x[0]), 1, 3, 1), TF.lp_pool1d(torch.tensor(x[0]), 1, 3, 1)),
        (EF.rrelu(ember.tensor(x)), TF.rrelu(torch.tensor(x))),
    ]:
        np.testing.assert_allclose(to_numpy(e_out), to_numpy(t_out), rtol=1e-12)
    e = ember.tensor(x)
    EF.rrelu_(e)
    np.testing.assert_allclose(to_numpy(e), to_numpy(TF.rrelu(torch.tensor(x))), rtol=1e-12)
    with pytest.raises(ValueError, match="expected input to be 3D or 4D"):
        ember.nn.Softmax2d()(ember.ones(2, 3))


def test_rrelu_training_statistics():
    ember.manual_seed(0)
    x = ember.randn(100000, dtype=ember.float64) - 3
    m = ember.nn.RReLU(0.2, 0.5)
    y = m(x)
    slopes = to_numpy(y / x)[to_numpy(x) < 0]
    assert slopes.min() >= 0.2 and slopes.max() <= 0.5
    assert abs(slopes.mean() - 0.35) < 0.003
    assert abs(slopes.var() - 0.3 ** 2 / 12) < 0.0005


def test_gumbel_softmax():
    ember.manual_seed(0)
    logits = ember.tensor([1.0, 0.0, -1.0, 2.0], dtype=ember.float64)
    hard = EF.gumbel_softmax(logits.expand(40000, 4).contiguous(), hard=True)
    np.testing.assert_allclose(to_numpy(hard.sum(1)), np.ones(40000))
    freq = to_numpy(hard.mean(0))
    np.testing.assert_allclose(freq, to_numpy(logits.softmax(0)), atol=0.01)
    soft = EF.gumbel_softmax(logits.expand(100, 4).contiguous(), tau=0.5)
    np.testing.assert_allclose(to_numpy(soft.sum(1)), np.ones(100), rtol=1e-12)
