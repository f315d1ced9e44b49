"""ember.nn.utils.parametrize against torch.nn.utils.parametrize (PyTorch 1.13): the parametrized
value, state_dict keys, gradients and an optimizer step through the original; chains,
right_inverse on assignment, removal both ways, cached(), the swapped class, and the errors."""
import pytest
import torch
import torch.nn.utils.parametrize as tp

import ember
import ember.nn.utils.parametrize as ep
from nn_compare import close, copy_params, pair, wave


def symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(0, 1)

    return Symmetric()


def scaled(lib, k):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * k

        def right_inverse(self, X):
            return X / k

    return Scale()


def both(make, *parametrizations):
    mods = []
    for lib, p in ((ember, ep), (torch, tp)):
        lib.manual_seed(0)
        m = make(lib)
        mods.append(m)
    copy_params(mods[0], mods[1])
    for (lib, p), m in zip(((ember, ep), (torch, tp)), mods):
        for make_p in parametrizations:
            p.register_parametrization(m, "weight", make_p(lib))
    return mods


def test_value_state_dict_and_gradients_match_torch():
    e, t = both(lambda lib: lib.nn.Linear(4, 4), symmetric, lambda lib: scaled(lib, 2.0))
    assert list(e.state_dict()) == list(t.state_dict())
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert ep.type_before_parametrizations(e) is ember.nn.Linear
    close(e.weight, t.weight)
    ex, tx = pair(wave(3, 4))
    close(e(ex), t(tx))
    e(ex).square().sum().backward()
    t(tx).square().sum().backward()
    close(e.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad)
    for lib, m in ((ember, e), (torch, t)):
        lib.optim.SGD(m.parameters(), lr=0.1).step()
    close(e.weight, t.weight)
    assert ep.is_parametrized(e) and ep.is_parametrized(e, "weight")
    assert not ep.is_parametrized(e, "bias")


def test_assignment_goes_through_right_inverse():
    e, t = both(lambda lib: lib.nn.Linear(3, 3), lambda lib: scaled(lib, 4.0))
    ew, tw = pair(wave(3, 3, offset=2.0))
    e.weight = ew
    t.weight = tw
    close(e.parametrizations.weight.original, t.parametrizations.weight.original)
    close(e.weight, t.weight)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations_matches_torch(leave_parametrized):
    e, t = both(lambda lib: lib.nn.Linear(4, 4), symmetric)
    ep.remove_parametrizations(e, "weight", leave_parametrized=leave_parametrized)
    tp.remove_parametrizations(t, "weight", leave_parametrized=leave_parametrized)
    assert type(e) is ember.nn.Linear and type(t) is torch.nn.Linear
    assert list(e.state_dict()) == list(t.state_dict())
    close(e.weight, t.weight)
    assert isinstance(e.weight, ember.nn.Parameter)


def test_cached_computes_once_per_block():
    calls = []

    class Counting(ember.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2

    m = ember.nn.Linear(2, 2)
    ep.register_parametrization(m, "weight", Counting())
    calls.clear()
    with ep.cached():
        a, b = m.weight, m.weight
    assert len(calls) == 1 and a is b
    m.weight
    assert len(calls) == 2


def test_errors_match_torch():
    for lib, p in ((ember, ep), (torch, tp)):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                             "parametrized element with name 'nope'"):
            p.register_parametrization(m, "nope", symmetric(lib))

        class Flatten(lib.nn.Module):
            def forward(self, X):
                return X.reshape(-1)

        with pytest.raises(ValueError, match="may not change the shape"):
            p.register_parametrization(m, "weight", Flatten())
        with pytest.raises(ValueError, match="does not have a parametrization on bias"):
            p.remove_parametrizations(m, "bias")


@pytest.mark.parametrize("layer", ["linear", "conv_transpose"])
def test_spectral_norm_parametrization_matches_torch(layer):
    import torch.nn.utils.parametrizations as tpz
    import ember.nn.utils.parametrizations as epz
    if layer == "linear":
        make = (lambda: ember.nn.Linear(5, 4), lambda: torch.nn.Linear(5, 4))
        x = wave(3, 5)
    else:
        make = (lambda: ember.nn.ConvTranspose2d(2, 3, 2), lambda: torch.nn.ConvTranspose2d(2, 3, 2))
        x = wave(2, 2, 3, 3)
    e, t = make[0](), make[1]()
    copy_params(e, t)
    epz.spectral_norm(e, n_power_iterations=2)
    tpz.spectral_norm(t, n_power_iterations=2)
    assert list(e.state_dict()) == list(t.state_dict())
    copy_params(e, t)  # torch's u and v after its 15 initial iterations
    ex, tx = pair(x)
    for _ in range(3):
        close(e(ex), t(tx), rtol=1e-4, atol=1e-5)
    e(ex).square().sum().backward()
    t(tx).square().sum().backward()
    close(e.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad,
          rtol=1e-4, atol=1e-5)
    e.eval()
    t.eval()
    close(e(ex), t(tx), rtol=1e-4, atol=1e-5)
    for lib, m in ((ember, e), (torch, t)):
        with pytest.raises(IndexError, match="Dimension out of range"):
            (epz if lib is ember else tpz).spectral_norm(m, "bias", dim=1)
