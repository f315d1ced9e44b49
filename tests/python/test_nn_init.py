"""ember.nn.init against torch.nn.init (PyTorch 1.13): gains and fans value for value, the
deterministic initialisers element for element, the random ones by their bounds and moments, the
deprecated aliases' warnings and every error text."""
import math
import warnings

import pytest
import torch

import ember
from ember.nn import init


def test_every_public_name_of_torch_nn_init_exists():
    names = [n for n in dir(torch.nn.init) if not n.startswith("_")
             and callable(getattr(torch.nn.init, n)) and n not in ("Tensor",)]
    missing = [n for n in names if not hasattr(init, n)]
    assert missing == []


@pytest.mark.parametrize("nonlinearity,param", [
    ("linear", None), ("conv3d", None), ("conv_transpose2d", None), ("sigmoid", None),
    ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == \
        torch.nn.init.calculate_gain(nonlinearity, param)


def test_calculate_gain_errors_match():
    for args in (("swish",), ("leaky_relu", "x")):
        with pytest.raises(ValueError) as theirs:
            torch.nn.init.calculate_gain(*args)
        with pytest.raises(ValueError, match=str(theirs.value)):
            init.calculate_gain(*args)


@pytest.mark.parametrize("shape", [(3, 5), (4, 2, 3), (2, 6, 3, 3), (8, 4, 1, 2, 3)])
def test_fans(shape):
    assert init._calculate_fan_in_and_fan_out(ember.empty(*shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


@pytest.mark.parametrize("shape,groups", [((4, 3, 3), 1), ((6, 2, 3), 3), ((4, 3, 3, 3), 2),
                                          ((6, 1, 3, 2, 3), 2), ((4, 4, 1, 1), 4)])
def test_dirac_matches_torch(shape, groups):
    w = ember.randn(*shape)
    assert init.dirac_(w, groups) is w
    expected = torch.nn.init.dirac_(torch.empty(*shape), groups)
    assert w.tolist() == expected.tolist()


def test_trunc_normal_bounds_and_moments_match_torch():
    for mean, std, a, b in ((0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0), (0.0, 0.02, -0.04, 0.04)):
        w = ember.empty(400, 500)
        assert init.trunc_normal_(w, mean, std, a, b) is w
        torch.manual_seed(0)
        t = torch.nn.init.trunc_normal_(torch.empty(400, 500), mean, std, a, b)
        assert w.min().item() >= a and w.max().item() <= b
        assert abs(w.mean().item() - t.mean().item()) < 0.01 * std
        assert abs(w.std().item() - t.std().item()) < 0.01 * std


def test_trunc_normal_warns_as_torch_when_the_mean_is_far():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="mean is more than 2 std from"):
            lib.nn.init.trunc_normal_(lib.empty(10), mean=10.0, std=1.0, a=-2.0, b=2.0)


def test_orthogonal_rows_are_orthonormal_times_gain():
    for shape in ((3, 5), (6, 2), (4, 2, 3)):
        w = ember.empty(*shape)
        init.orthogonal_(w, gain=2)
        flat = torch.tensor(w.tolist()).double().reshape(shape[0], -1)
        gram = flat @ flat.t() if flat.shape[0] <= flat.shape[1] else flat.t() @ flat
        assert torch.allclose(gram, 4 * torch.eye(gram.shape[0], dtype=torch.double), atol=1e-5)


def test_sparse_zeroes_ceil_of_sparsity_rows_per_column():
    w = ember.empty(10, 7)
    init.sparse_(w, 0.25, std=0.5)
    t = torch.nn.init.sparse_(torch.empty(10, 7), 0.25, std=0.5)
    ours = (torch.tensor(w.tolist()) == 0).sum(0)
    assert ours.tolist() == (t == 0).sum(0).tolist() == [3] * 7


@pytest.mark.parametrize("name,args,shape", [
    ("dirac_", (), (2, 2)), ("dirac_", (2,), (5, 2, 3)), ("orthogonal_", (), (4,)),
    ("sparse_", (0.1,), (4,)), ("xavier_uniform_", (), (4,)), ("kaiming_normal_", (), (4,)),
    ("kaiming_uniform_", (0, "fan_avg"), (4, 4)), ("eye_", (), (2, 2, 2))])
def test_errors_match_torch(name, args, shape):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.nn.init, name)(torch.empty(*shape), *args)
    with pytest.raises(ValueError) as ours:
        getattr(init, name)(ember.empty(*shape), *args)
    assert str(ours.value) == str(theirs.value)


def test_zero_element_kaiming_warns_and_is_a_no_op():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            lib.nn.init.kaiming_uniform_(lib.empty(0, 3))


@pytest.mark.parametrize("old,args,shape", [
    ("uniform", (), (3, 4)), ("normal", (), (3, 4)), ("constant", (0.5,), (3, 4)),
    ("eye", (), (3, 4)), ("dirac", (), (3, 3, 3)), ("xavier_uniform", (), (3, 4)),
    ("xavier_normal", (), (3, 4)), ("kaiming_uniform", (), (3, 4)),
    ("kaiming_normal", (), (3, 4)), ("orthogonal", (), (3, 4)), ("sparse", (0.5,), (3, 4))])
def test_deprecated_names_warn_as_torch(old, args, shape):
    messages = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(lib.nn.init, old)(lib.empty(*shape), *args)
        assert tuple(out.shape) == shape
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1]


def test_random_initialisers_have_torchs_bounds():
    w = ember.empty(64, 32, 3)
    init.kaiming_uniform_(w, a=math.sqrt(5))
    bound = 1 / math.sqrt(32 * 3)  # gain sqrt(2 / 6) * sqrt(3 / fan_in)
    assert w.abs().max().item() <= bound
    assert w.abs().max().item() > 0.95 * bound
    w = ember.empty(300, 400)
    init.xavier_normal_(w, gain=2.0)
    assert abs(w.std().item() - 2.0 * math.sqrt(2.0 / 700)) < 0.002
