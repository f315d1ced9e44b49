"""The Lazy modules against PyTorch 1.13's: the sizes read from the first input, the class each
becomes, the warning, state dicts before and after, loading into an uninitialized module, an
optimizer made before the first forward, device and dtype moves, and the errors."""
import warnings

import pytest
import torch

import ember
from nn_compare import close, copy_params, grads_close, pair, wave

CASES = [
    # name, constructor args, input shape, the class it becomes
    ("LazyLinear", (4,), (3, 5), "Linear"),
    ("LazyLinear", (4, False), (2, 3, 6), "Linear"),
    ("LazyConv1d", (4, 3), (2, 3, 9), "Conv1d"),
    ("LazyConv2d", (4, 3, 2, 1), (2, 6, 7, 7), "Conv2d"),
    ("LazyConv2d", (4, 3), (6, 7, 7), "Conv2d"),
    ("LazyConvTranspose1d", (4, 3, 2), (2, 3, 5), "ConvTranspose1d"),
    ("LazyConvTranspose2d", (4, 3, 2, 1, 1), (2, 2, 4, 4), "ConvTranspose2d"),
    ("LazyBatchNorm1d", (), (4, 3), "BatchNorm1d"),
    ("LazyBatchNorm2d", (), (4, 3, 2, 2), "BatchNorm2d"),
    ("LazyBatchNorm3d", (1e-3, 0.2, False), (2, 3, 2, 2, 2), "BatchNorm3d"),
    ("LazyInstanceNorm1d", (1e-5, 0.1, True, True), (2, 3, 5), "InstanceNorm1d"),
    ("LazyInstanceNorm2d", (), (2, 3, 4, 4), "InstanceNorm2d"),
    ("LazyConv3d", (2, 2), (1, 3, 4, 4, 3), "Conv3d"),
    ("LazyConvTranspose3d", (2, 2, 2), (1, 3, 2, 3, 2), "ConvTranspose3d"),
    ("LazyInstanceNorm3d", (), (2, 3, 2, 3, 2), "InstanceNorm3d"),
]


def build(lib, name, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(lib.nn, name)(*args)


@pytest.mark.parametrize("name,args,shape,becomes", CASES)
def test_first_forward_matches_torch(name, args, shape, becomes):
    e, t = build(ember, name, args), build(torch, name, args)
    assert e.has_uninitialized_params() == t.has_uninitialized_params()
    assert sorted(e.state_dict()) == sorted(t.state_dict())
    x = wave(*shape)
    ex, tx = pair(x, requires_grad=True)
    e(ex), t(tx)
    assert type(e).__name__ == type(t).__name__ == becomes
    assert type(e) is getattr(ember.nn, becomes)
    assert repr(e) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert [(n, tuple(b.shape)) for n, b in e.named_buffers()] == \
        [(n, tuple(b.shape)) for n, b in t.named_buffers()]
    for b in e.buffers():
        assert type(b) is ember.Tensor  # plain buffers, as BatchNorm's own
    # Same weights, then the same outputs and gradients as torch's initialized module.
    copy_params(e, t)
    ex, tx = pair(x, requires_grad=True)
    eo, to = e(ex), t(tx)
    close(eo, to, rtol=1e-4, atol=1e-5)
    eo.square().sum().backward()
    to.square().sum().backward()
    close(ex.grad, tx.grad, rtol=1e-4, atol=1e-5)
    grads_close(e, t)


def test_initialisation_follows_the_plain_module():
    ember.manual_seed(3)
    lazy = build(ember, "LazyLinear", (64,))
    lazy(ember.zeros(2, 100))
    bound = 1 / 100 ** 0.5  # kaiming_uniform(a=sqrt(5)) over fan_in = 100
    assert float(lazy.weight.abs().max()) <= bound
    assert float(lazy.weight.abs().max()) > 0.8 * bound
    bn = build(ember, "LazyBatchNorm2d", ())
    bn(ember.ones(2, 5, 3, 3))
    close(bn.weight, torch.ones(5))
    close(bn.running_var, torch.full((5,), 0.9))  # ones, then one momentum update of 0 variance
    assert int(bn.num_batches_tracked) == 1


def test_warns_as_torch():
    with pytest.warns(UserWarning, match="Lazy modules are a new feature under heavy development"):
        ember.nn.LazyLinear(3)


def test_optimizer_made_before_the_first_forward_trains_the_materialized_weights():
    m = build(ember, "LazyLinear", (2,))
    opt = ember.optim.SGD(m.parameters(), lr=0.5)
    weight = m.weight
    m(ember.ones(4, 3)).sum().backward()
    assert m.weight is weight and type(weight) is ember.nn.Parameter
    before = m.weight.detach().clone()
    opt.step()
    close(m.weight, torch.tensor(before.numpy()) - 0.5 * 4)


def test_uninitialized_parameter_behaves_as_torch():
    p = ember.nn.parameter.UninitializedParameter(dtype=ember.float64)
    assert repr(p) == "<UninitializedParameter>"
    assert ember.nn.parameter.is_lazy(p)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape
    p.materialize((2, 3))
    assert type(p) is ember.nn.Parameter and p.dtype == ember.float64
    assert tuple(p.shape) == (2, 3) and p.requires_grad
    b = ember.nn.parameter.UninitializedBuffer()
    assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad
    b.materialize(4, dtype=ember.float16)
    assert not ember.nn.parameter.is_lazy(b) and b.dtype == ember.float16


def test_state_dict_loads_into_an_uninitialized_module():
    src = build(ember, "LazyBatchNorm1d", ())
    src(ember.tensor(wave(6, 3)))
    dst = build(ember, "LazyBatchNorm1d", ())
    dst.load_state_dict(src.state_dict())
    assert type(dst).__name__ == "LazyBatchNorm1d"  # still waits for a forward to change class
    assert not dst.has_uninitialized_params()
    for key, value in src.state_dict().items():
        close(dst.state_dict()[key], torch.tensor(value.numpy()))
    dst(ember.tensor(wave(6, 3)))
    assert type(dst) is ember.nn.BatchNorm1d
    # torch agrees on what an uninitialized module's state dict holds.
    t = build(torch, "LazyBatchNorm1d", ())
    assert [k for k in t.state_dict()] == [k for k in build(ember, "LazyBatchNorm1d", ()).state_dict()]


def test_nested_lazy_modules_in_a_sequential():
    model = ember.nn.Sequential(build(ember, "LazyConv2d", (4, 3)), ember.nn.ReLU(),
                                ember.nn.Flatten(), build(ember, "LazyLinear", (10,)))
    out = model(ember.zeros(2, 3, 8, 8))
    assert tuple(out.shape) == (2, 10)
    assert tuple(model[3].weight.shape) == (10, 4 * 6 * 6)
    other = ember.nn.Sequential(build(ember, "LazyConv2d", (4, 3)), ember.nn.ReLU(),
                                ember.nn.Flatten(), build(ember, "LazyLinear", (10,)))
    other.load_state_dict(model.state_dict())
    close(other(ember.ones(2, 3, 8, 8)), torch.tensor(model(ember.ones(2, 3, 8, 8)).detach().numpy()))


def test_dtype_move_before_the_first_forward():
    m = build(ember, "LazyBatchNorm2d", ()).double()
    assert ember.nn.parameter.is_lazy(m.weight) and ember.nn.parameter.is_lazy(m.running_mean)
    m(ember.zeros(2, 3, 2, 2, dtype=ember.float64))
    assert m.weight.dtype == ember.float64 and m.running_mean.dtype == ember.float64


def test_errors_as_torch():
    conv = build(ember, "LazyConv2d", (4, 3, 1, 0, 1, 2))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        conv(ember.zeros(1, 3, 5, 5))
    conv1 = build(ember, "LazyConv1d", (4, 3))
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input to "
                       "LazyConv1d"):
        conv1(ember.zeros(1, 1, 3, 5))
    tconv = build(torch, "LazyConv1d", (4, 3))
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input to "
                       "LazyConv1d"):
        tconv(torch.zeros(1, 1, 3, 5))
    linear = build(ember, "LazyLinear", (3,))
    linear(ember.zeros(2, 4))
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        linear.load_state_dict(build(ember, "LazyLinear", (3,)).state_dict())
