"""PyTorch's alias spellings (python/ember/_aliases.py) compute what the canonical ops compute,
as functions and as methods (in place where PyTorch has it), with torch's results."""
import pytest
import torch

import ember
from nn_compare import close, pair, wave

BINARY = ["multiply", "divide", "subtract", "true_divide", "greater", "greater_equal", "less",
          "less_equal", "not_equal", "arctan2"]
UNARY = ["negative", "absolute", "positive"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_aliases(name):
    (ea, ta), (eb, tb) = pair(wave(3, 4)), pair(wave(3, 4, offset=1.0) + 2.0)
    close(getattr(ember, name)(ea, eb), getattr(torch, name)(ta, tb))
    close(getattr(ea, name)(eb), getattr(ta, name)(tb))


@pytest.mark.parametrize("name", UNARY)
def test_unary_aliases(name):
    ea, ta = pair(wave(3, 4))
    close(getattr(ember, name)(ea), getattr(torch, name)(ta))
    close(getattr(ea, name)(), getattr(ta, name)())


@pytest.mark.parametrize("name", ["multiply_", "divide_", "subtract_", "true_divide_"])
def test_inplace_binary_aliases(name):
    (ea, ta), (eb, tb) = pair(wave(3, 4)), pair(wave(3, 4, offset=1.0) + 2.0)
    assert getattr(ea, name)(eb) is ea
    getattr(ta, name)(tb)
    close(ea, ta)


@pytest.mark.parametrize("name", ["negative_", "absolute_"])
def test_inplace_unary_aliases(name):
    ea, ta = pair(wave(3, 4))
    assert getattr(ea, name)() is ea
    getattr(ta, name)()
    close(ea, ta)


def test_clamp_min_max():
    ea, ta = pair(wave(3, 4))
    close(ember.clamp_min(ea, -0.2), torch.clamp_min(ta, -0.2))
    close(ember.clamp_max(ea, 0.3), torch.clamp_max(ta, 0.3))
    close(ea.clamp_min(0.1), ta.clamp_min(0.1))
    close(ea.clamp_max(0.1), ta.clamp_max(0.1))
    ea.clamp_min_(0.0)
    ta.clamp_min_(0.0)
    ea.clamp_max_(0.5)
    ta.clamp_max_(0.5)
    close(ea, ta)
    eg, tg = pair(wave(5), requires_grad=True)
    eg.clamp_min(0.1).sum().backward()
    tg.clamp_min(0.1).sum().backward()
    close(eg.grad, tg.grad)


def test_positive_refuses_bool_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not "
                           "supported."):
            lib.positive(lib.ones(2, dtype=lib.bool))


@pytest.mark.parametrize("name,weight", [("lerp", 0.3), ("lerp", "tensor")])
def test_lerp_forms_and_inplace(name, weight):
    (ea, ta), (eb, tb) = pair(wave(3, 4), requires_grad=True), pair(wave(3, 4, offset=2.0))
    ew, tw = pair(wave(3, 4, offset=1.0)) if weight == "tensor" else (weight, weight)
    eo, to = ember.lerp(ea, eb, ew), torch.lerp(ta, tb, tw)
    close(eo, to)
    close(ea.lerp(eb, ew), ta.lerp(tb, tw))
    eo.square().sum().backward()
    to.square().sum().backward()
    close(ea.grad, ta.grad)
    ec, tc = pair(wave(3, 4))
    assert ec.lerp_(eb, ew) is ec
    tc.lerp_(tb, tw)
    close(ec, tc)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(name):
    (ea, ta), (eb, tb) = pair(wave(3, 4)), pair(wave(3, 4, offset=1.0))
    ec, tc = pair(wave(3, 4, offset=2.0) + 3.0)
    close(getattr(ember, name)(ea, eb, ec, value=0.5), getattr(torch, name)(ta, tb, tc, value=0.5))
    close(getattr(ea, name)(eb, ec), getattr(ta, name)(tb, tc))
    assert getattr(ea, name + "_")(eb, ec, value=-2) is ea
    getattr(ta, name + "_")(tb, tc, value=-2)
    close(ea, ta)


@pytest.mark.parametrize("name,args", [
    ("conv1d", lambda lib: (lib.tensor(wave(2, 3, 8)), lib.tensor(wave(4, 3, 3)))),
    ("conv2d", lambda lib: (lib.tensor(wave(1, 2, 5, 5)), lib.tensor(wave(3, 2, 3, 3)))),
    ("conv3d", lambda lib: (lib.tensor(wave(1, 2, 4, 4, 4)), lib.tensor(wave(2, 2, 2, 2, 2)))),
    ("conv_transpose1d", lambda lib: (lib.tensor(wave(1, 3, 5)), lib.tensor(wave(3, 2, 3)))),
    ("conv_transpose2d", lambda lib: (lib.tensor(wave(1, 3, 4, 4)), lib.tensor(wave(3, 2, 2, 2)))),
    ("conv_transpose3d",
     lambda lib: (lib.tensor(wave(1, 2, 3, 3, 3)), lib.tensor(wave(2, 2, 2, 2, 2)))),
    ("pixel_shuffle", lambda lib: (lib.tensor(wave(1, 8, 3, 3)), 2)),
    ("pixel_unshuffle", lambda lib: (lib.tensor(wave(1, 2, 4, 4)), 2)),
    ("group_norm", lambda lib: (lib.tensor(wave(2, 4, 3)), 2)),
])
def test_functional_ops_under_torchs_top_level_names(name, args):
    close(getattr(ember, name)(*args(ember)), getattr(torch, name)(*args(torch)), rtol=1e-4,
          atol=1e-5)
