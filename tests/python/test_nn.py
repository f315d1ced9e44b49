"""ember.nn against torch.nn: every layer and loss forward and backward on the same inputs and
parameters, Module's bookkeeping, init, and bad inputs raising PyTorch's exception types."""
import math

import numpy as np
import pytest
import torch

import ember
from nn_compare import close, copy_params, grads_close, pair, to_numpy, wave

# (constructor text, input shape, integer input classes or None): built in both libraries.
LAYERS = [
    ("Linear(6, 4)", (3, 6), None),
    ("Linear(6, 4, bias=False)", (2, 3, 6), None),
    ("Conv2d(2, 3, 3)", (2, 2, 7, 7), None),
    ("Conv2d(2, 4, (3, 2), stride=2, padding=1, bias=False)", (1, 2, 8, 9), None),
    ("Conv2d(4, 4, 3, padding=1, groups=2, dilation=1)", (1, 4, 5, 5), None),
    ("Conv2d(2, 3, 3, padding=1, padding_mode='replicate')", (1, 2, 5, 6), None),
    ("Conv2d(2, 3, (4, 3), padding='same')", (1, 2, 6, 6), None),
    ("Conv1d(3, 4, 3)", (2, 3, 9), None),
    ("Conv1d(4, 6, 4, padding='same', groups=2, bias=False, padding_mode='circular')",
     (2, 4, 8), None),
    ("Conv1d(3, 2, 3, stride=2, padding=2, dilation=2, padding_mode='reflect')", (1, 3, 10),
     None),
    ("ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1)", (2, 3, 5), None),
    ("ConvTranspose2d(4, 6, 3, stride=2, groups=2, bias=False)", (1, 4, 4, 5), None),
    ("ConvTranspose2d(3, 2, (3, 2), stride=(2, 1), padding=(1, 0), dilation=2, "
     "output_padding=(1, 1))", (2, 3, 4, 4), None),
    ("MaxPool2d(2)", (2, 3, 6, 6), None),
    ("MaxPool2d(3, stride=2, padding=1)", (1, 2, 7, 7), None),
    ("AvgPool2d(2)", (2, 3, 6, 6), None),
    ("AdaptiveAvgPool2d((2, 3))", (1, 2, 6, 7), None),
    ("AdaptiveMaxPool2d((2, 3))", (1, 2, 6, 7), None),
    ("MaxPool1d(3, stride=2, padding=1, ceil_mode=True)", (2, 3, 9), None),
    ("AvgPool1d(3, stride=2, padding=1, count_include_pad=False)", (2, 3, 8), None),
    ("AdaptiveAvgPool1d(4)", (2, 3, 9), None),
    ("AdaptiveMaxPool1d(4)", (2, 3, 9), None),
    ("ReLU()", (4, 5), None),
    ("LeakyReLU(0.2)", (4, 5), None),
    ("ELU()", (4, 5), None),
    ("Sigmoid()", (4, 5), None),
    ("Tanh()", (4, 5), None),
    ("SiLU()", (4, 5), None),
    ("GELU()", (4, 5), None),
    ("GELU(approximate='tanh')", (4, 5), None),
    ("Softplus()", (4, 5), None),
    ("Softmax(dim=1)", (4, 5), None),
    ("Softmin(dim=1)", (4, 5), None),
    ("ReLU6()", (4, 5), None),
    ("Hardtanh(-0.5, 0.8)", (4, 5), None),
    ("SELU()", (4, 5), None),
    ("CELU(alpha=0.7)", (4, 5), None),
    ("Mish()", (4, 5), None),
    ("Hardswish()", (4, 5), None),
    ("Hardsigmoid()", (4, 5), None),
    ("Threshold(0.2, -1.5)", (4, 5), None),
    ("Hardshrink(0.3)", (4, 5), None),
    ("Softshrink()", (4, 5), None),
    ("GLU()", (4, 6), None),
    ("PReLU()", (4, 5), None),
    ("PReLU(5, init=0.1)", (2, 5, 3), None),
    ("Softsign()", (4, 5), None),
    ("Tanhshrink()", (4, 5), None),
    ("LogSigmoid()", (4, 5), None),
    ("LogSoftmax(dim=-1)", (4, 5), None),
    ("BatchNorm1d(5)", (8, 5), None),
    ("BatchNorm2d(3)", (4, 3, 5, 5), None),
    ("GroupNorm(2, 6)", (3, 6, 4, 5), None),
    ("GroupNorm(3, 6, eps=1e-3, affine=False)", (2, 6, 7), None),
    ("InstanceNorm1d(4)", (2, 4, 7), None),
    ("InstanceNorm2d(3, affine=True, track_running_stats=True)", (2, 3, 5, 4), None),
    ("InstanceNorm2d(3, affine=True)", (3, 5, 4), None),
    ("LayerNorm(5)", (4, 5), None),
    ("LayerNorm([3, 4])", (2, 3, 4), None),
    ("Embedding(10, 4)", (3, 5), 10),
    ("Embedding(10, 4, padding_idx=0)", (3, 5), 10),
    ("Flatten()", (2, 3, 4), None),
    ("Unfold((2, 3), padding=1, stride=(2, 1))", (2, 3, 5, 6), None),
    ("Fold((4, 5), (2, 2))", (2, 12, 12), None),
    ("LocalResponseNorm(3, alpha=0.3)", (2, 5, 4, 4), None),
    ("BatchNorm3d(3)", (2, 3, 2, 3, 4), None),
    ("ReflectionPad1d(2)", (2, 3, 5), None),
    ("ReflectionPad2d((1, 0, 2, 1))", (1, 2, 4, 5), None),
    ("ReflectionPad3d(1)", (1, 1, 3, 3, 3), None),
    ("ReplicationPad1d((1, 3))", (2, 3, 4), None),
    ("ReplicationPad2d(2)", (1, 2, 3, 3), None),
    ("ReplicationPad3d((1, 0, 0, 1, 1, 0))", (1, 2, 2, 3, 3), None),
    ("ConstantPad1d(2, 3.5)", (2, 4), None),
    ("ConstantPad2d((1, 0, 2, 1), -1.0)", (2, 3, 3), None),
    ("ConstantPad3d(1, 0.5)", (1, 2, 2, 2), None),
    ("ZeroPad2d((1, 1, 2, 0))", (1, 2, 3, 3), None),
    ("Unflatten(1, (2, 3))", (4, 6), None),
    ("PixelShuffle(2)", (2, 8, 3, 4), None),
    ("PixelUnshuffle(2)", (2, 2, 6, 4), None),
    ("Upsample(scale_factor=2)", (1, 2, 3, 4), None),
    ("Upsample(size=(5, 7), mode='bilinear', align_corners=False)", (1, 2, 3, 4), None),
    ("Upsample(scale_factor=(2.0, 1.5), mode='bilinear')", (1, 2, 3, 4), None),
    ("Upsample(size=9, mode='linear')", (2, 3, 4), None),
    ("UpsamplingNearest2d(scale_factor=2)", (1, 2, 3, 4), None),
    ("UpsamplingBilinear2d(size=(4, 6))", (1, 2, 3, 4), None),
    ("Identity()", (2, 3), None),
    ("Dropout(0.3)", (4, 5), None),
]


def build(text):
    return eval("ember.nn." + text), eval("torch.nn." + text)


@pytest.mark.parametrize("text,shape,classes", LAYERS, ids=[x[0] for x in LAYERS])
def test_layer_matches_torch_forward_and_backward(text, shape, classes):
    e_mod, t_mod = build(text)
    assert repr(e_mod) == repr(t_mod)
    copy_params(e_mod, t_mod)
    if "Dropout" in text:  # random masks differ by design: compare eval mode (the identity)
        e_mod.eval()
        t_mod.eval()
    if classes:
        data = (np.arange(np.prod(shape)) * 7 % classes).reshape(shape)
        e_in, t_in = pair(data)
    else:
        e_in, t_in = pair(wave(*shape, scale=2.0), requires_grad=True)
    e_out, t_out = e_mod(e_in), t_mod(t_in)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    weights = wave(*t_out.shape, offset=1.0)
    (e_out * ember.tensor(weights)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    grads_close(e_mod, t_mod)
    if not classes:
        close(e_in.grad, t_in.grad, rtol=1e-4, atol=1e-5)
    for (name, e_buf), (_, t_buf) in zip(e_mod.named_buffers(), t_mod.named_buffers()):
        close(e_buf, t_buf)


LOSSES = [
    ("MSELoss()", "float"), ("MSELoss(reduction='sum')", "float"),
    ("MSELoss(reduction='none')", "float"), ("L1Loss()", "float"),
    ("SmoothL1Loss(beta=0.5)", "float"), ("CrossEntropyLoss()", "class"),
    ("CrossEntropyLoss(reduction='sum', label_smoothing=0.1)", "class"),
    ("CrossEntropyLoss(ignore_index=1)", "class"), ("NLLLoss()", "class"),
    ("NLLLoss2d()", "class"),
    ("BCELoss()", "prob"), ("BCEWithLogitsLoss()", "prob"),
    ("BCEWithLogitsLoss(reduction='none')", "prob"),
]


@pytest.mark.parametrize("text,kind", LOSSES, ids=[x[0] for x in LOSSES])
def test_loss_matches_torch(text, kind):
    e_loss, t_loss = build(text)
    assert repr(e_loss) == repr(t_loss)
    x = wave(6, 4, scale=1.5)
    if kind == "prob":
        x = 1 / (1 + np.exp(-x)) if text.startswith("BCELoss") else x
        target = (np.arange(24).reshape(6, 4) % 3 == 0).astype(np.float32)
    elif kind == "class":
        target = np.arange(6) % 4
        if text.startswith("NLL"):
            x = x - np.log(np.exp(x).sum(1, keepdims=True))
    else:
        target = wave(6, 4, offset=2.0)
    e_x, t_x = pair(x.astype(np.float32), requires_grad=True)
    e_y, t_y = pair(target)
    e_out, t_out = e_loss(e_x, e_y), t_loss(t_x, t_y)
    close(e_out, t_out, rtol=1e-5, atol=1e-6)
    e_out.sum().backward()
    t_out.sum().backward()
    close(e_x.grad, t_x.grad, rtol=1e-4, atol=1e-6)


FUNCTIONAL = [
    ("relu", lambda F, x: F.relu(x)),
    ("gelu", lambda F, x: F.gelu(x)),
    ("softmax", lambda F, x: F.softmax(x, dim=1)),
    ("log_softmax", lambda F, x: F.log_softmax(x, dim=0)),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.1)),
    ("max_pool2d", lambda F, x: F.max_pool2d(x.reshape(1, 1, 4, 6), 2)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x.reshape(1, 1, 4, 6), (2, 3))),
    ("dropout_eval", lambda F, x: F.dropout(x, 0.5, training=False)),
    ("layer_norm", lambda F, x: F.layer_norm(x, (6,))),
    ("mse_loss", lambda F, x: F.mse_loss(x, x * 0.5)),
    ("l1_loss", lambda F, x: F.l1_loss(x, x * 0.5, reduction="sum")),
    ("cross_entropy", lambda F, x: F.cross_entropy(x, (x.argmax(1) + 1) % 6)),
    ("pad", lambda F, x: F.pad(x, (1, 2))),
]


@pytest.mark.parametrize("name,f", FUNCTIONAL, ids=[x[0] for x in FUNCTIONAL])
def test_functional_matches_torch(name, f):
    e_x, t_x = pair(wave(4, 6, scale=2.0), requires_grad=True)
    e_out, t_out = f(ember.nn.functional, e_x), f(torch.nn.functional, t_x)
    close(e_out, t_out, rtol=1e-5, atol=1e-6)
    e_out.sum().backward()
    t_out.sum().backward()
    close(e_x.grad, t_x.grad, rtol=1e-4, atol=1e-6)


def test_functional_conv_linear_embedding_one_hot():
    e_x, t_x = pair(wave(2, 3, 6, 6))
    e_w, t_w = pair(wave(4, 3, 3, 3, offset=0.5))
    e_b, t_b = pair(wave(4, offset=1.5))
    close(ember.nn.functional.conv2d(e_x, e_w, e_b, stride=2, padding=1),
          torch.nn.functional.conv2d(t_x, t_w, t_b, stride=2, padding=1), rtol=1e-4)
    e_w2, t_w2 = pair(wave(5, 6))
    close(ember.nn.functional.linear(e_x, e_w2), torch.nn.functional.linear(t_x, t_w2))
    e_i, t_i = pair(np.array([[1, 0], [4, 3]]))
    close(ember.nn.functional.embedding(e_i, e_w2), torch.nn.functional.embedding(t_i, t_w2))
    close(ember.nn.functional.one_hot(e_i, 5), torch.nn.functional.one_hot(t_i, 5))


def test_batch_norm_running_stats_and_eval():
    e_bn, t_bn = build("BatchNorm2d(3, momentum=0.3)")
    e_x, t_x = pair(wave(4, 3, 2, 2, scale=3.0, offset=0.2))
    for _ in range(2):
        e_bn(e_x)
        t_bn(t_x)
    close(e_bn.running_mean, t_bn.running_mean)
    close(e_bn.running_var, t_bn.running_var)
    assert e_bn.num_batches_tracked.item() == t_bn.num_batches_tracked.item() == 2
    close(e_bn.eval()(e_x), t_bn.eval()(t_x), rtol=1e-4)


def test_module_registration_and_traversal():
    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.ReLU())
            self.heads = ember.nn.ModuleList([ember.nn.Linear(3, 1), ember.nn.Linear(3, 2)])
            self.table = ember.nn.ModuleDict({"a": ember.nn.Linear(1, 1)})
            self.scale = ember.nn.Parameter(ember.ones(1))
            self.register_buffer("count", ember.zeros(()))
            self.register_buffer("tmp", ember.zeros(()), persistent=False)

    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "body.0.weight", "body.0.bias", "heads.0.weight", "heads.0.bias",
                     "heads.1.weight", "heads.1.bias", "table.a.weight", "table.a.bias"]
    assert list(net.state_dict())[:2] == ["scale", "count"]
    assert "tmp" not in net.state_dict()
    assert [n for n, _ in net.named_modules()][:4] == ["", "body", "body.0", "body.1"]
    assert len(list(net.children())) == 3
    assert len(net.heads) == 2 and net.table["a"] is net.table.a
    # reassigning replaces, None removes from parameters(), del forgets
    net.scale = ember.nn.Parameter(ember.zeros(2))
    assert net._parameters["scale"].shape == ember.Size([2])
    net.scale = None
    assert "scale" not in [n for n, _ in net.named_parameters()]
    del net.table
    assert "table" not in net._modules
    # shared parameters are listed once
    lin = ember.nn.Linear(2, 2)
    shared = ember.nn.Sequential(lin, lin)
    assert len(list(shared.parameters())) == 2
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and "Linear" in seen


def test_forward_hooks_and_requires_grad():
    lin = ember.nn.Linear(2, 2)
    calls = []
    handle = lin.register_forward_hook(lambda m, inp, out: calls.append(tuple(out.shape)))
    lin(ember.ones(3, 2))
    handle.remove()
    lin(ember.ones(3, 2))
    assert calls == [(3, 2)]
    lin.requires_grad_(False)
    assert not lin.weight.requires_grad and not lin.bias.requires_grad


def test_to_keeps_parameter_objects_and_converts_dtype():
    lin = ember.nn.Linear(2, 2)
    weight = lin.weight
    lin.to(ember.float64)
    assert lin.weight is weight and weight.dtype == ember.float64 and weight.requires_grad
    lin.half().float()
    assert lin.bias.dtype == ember.float32
    emb = ember.nn.Embedding(3, 2).double()
    assert emb(ember.tensor([1])).dtype == ember.float64
    with pytest.raises(TypeError):
        lin.to(ember.int64)


def test_parameter_prints_and_subclasses_tensor():
    p = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0]))).replace("torch", "ember")
    assert isinstance(p, ember.Tensor) and p.requires_grad and p.is_leaf
    frozen = ember.nn.Parameter(ember.zeros(1), requires_grad=False)
    assert not frozen.requires_grad
    assert type(p * 2) is ember.Tensor
    import copy
    q = copy.deepcopy(p)
    assert type(q) is ember.nn.Parameter and q.data_ptr() != p.data_ptr()
    with pytest.raises(TypeError):
        ember.nn.Parameter([1.0])


def test_default_initialisation_bounds():
    lin = ember.nn.Linear(100, 50)
    bound = 1 / math.sqrt(100)
    assert lin.weight.abs().max().item() <= bound
    assert lin.bias.abs().max().item() <= bound
    assert to_numpy(lin.weight).std() > bound / 3
    conv = ember.nn.Conv2d(4, 8, 3)
    assert conv.weight.abs().max().item() <= 1 / math.sqrt(36)
    emb = ember.nn.Embedding(1000, 8, padding_idx=2)
    assert abs(to_numpy(emb.weight).std() - 1.0) < 0.1
    assert emb.weight[2].abs().sum().item() == 0


def test_init_functions_match_torch_formulas():
    e_w = ember.empty(30, 20)
    for f, args in [("constant_", (0.3,)), ("ones_", ()), ("zeros_", ()), ("eye_", ())]:
        t_w = torch.empty(30, 20)
        getattr(ember.nn.init, f)(e_w, *args)
        getattr(torch.nn.init, f)(t_w, *args)
        close(e_w, t_w)
    for nl in ["linear", "relu", "tanh", "sigmoid", "leaky_relu", "conv2d"]:
        assert ember.nn.init.calculate_gain(nl) == pytest.approx(torch.nn.init.calculate_gain(nl))
    w = ember.nn.init.xavier_uniform_(ember.empty(30, 20), gain=2.0)
    assert w.abs().max().item() <= 2.0 * math.sqrt(6 / 50)
    w = ember.nn.init.kaiming_uniform_(ember.empty(30, 20), nonlinearity="relu")
    assert w.abs().max().item() <= math.sqrt(2) * math.sqrt(3 / 20)
    w = ember.nn.init.normal_(ember.empty(200, 50), 1.0, 0.5)
    assert abs(w.mean().item() - 1.0) < 0.05
    with pytest.raises(ValueError):
        ember.nn.init.xavier_uniform_(ember.empty(3))
    with pytest.raises(ValueError):
        ember.nn.init.calculate_gain("bogus")


@pytest.mark.parametrize("make,exc", [
    (lambda nn: nn.Linear(3, 2)(ember.ones(2, 4)), (ValueError, RuntimeError)),
    (lambda nn: nn.Conv2d(3, 2, 3)(ember.ones(1, 2, 5, 5)), (ValueError, RuntimeError)),
    (lambda nn: nn.CrossEntropyLoss()(ember.ones(2, 3), ember.tensor([0, 5])), IndexError),
    (lambda nn: nn.MSELoss(reduction="avg")(ember.ones(2), ember.ones(2)), ValueError),
    (lambda nn: nn.Dropout(1.5), ValueError),
    (lambda nn: nn.BatchNorm1d(3)(ember.ones(3)), ValueError),
    (lambda nn: nn.Conv2d(3, 2, 3, groups=2), ValueError),
    (lambda nn: nn.Embedding(3, 2, padding_idx=5), AssertionError),
    (lambda nn: nn.Module().register_buffer("x", [1]), TypeError),
    (lambda nn: nn.Module().register_parameter("a.b", None), KeyError),
    (lambda nn: nn.Linear(2, 2).nonexistent, AttributeError),
])
def test_bad_input_raises(make, exc):
    with pytest.raises(exc):
        make(ember.nn)


def test_load_state_dict_round_trip_and_errors_match_torch():
    def make(nn):
        return nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))

    e_net, t_net = make(ember.nn), make(torch.nn)
    copy_params(e_net, t_net)
    target = make(ember.nn)
    result = target.load_state_dict(e_net.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    for (k, a), b in zip(target.state_dict().items(), t_net.state_dict().values()):
        close(a, b)
    bad = e_net.state_dict()
    bad.pop("0.bias")
    with pytest.raises(RuntimeError) as e_err:
        target.load_state_dict(bad)
    t_bad = t_net.state_dict()
    t_bad.pop("0.bias")
    with pytest.raises(RuntimeError) as t_err:
        t_net.load_state_dict(t_bad)
    assert str(e_err.value) == str(t_err.value)
    assert to_numpy(target[0].bias).shape == (2,)


def test_conv_transpose_output_size_and_bad_input():
    e_mod, t_mod = build("ConvTranspose2d(3, 2, 3, stride=2, padding=1)")
    copy_params(e_mod, t_mod)
    e_x, t_x = pair(wave(1, 3, 4, 4))
    for size in ([8, 7], [1, 2, 8, 8], (7, 8)):
        close(e_mod(e_x, output_size=size), t_mod(t_x, output_size=size), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=r"valid sizes range from \[7, 7\] to \[8, 8\]"):
        e_mod(e_x, output_size=[9, 9])
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        ember.nn.ConvTranspose1d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        ember.nn.Conv1d(2, 2, 3, padding_mode="mirror")
    with pytest.raises(RuntimeError, match="smaller than either stride or dilation"):
        ember.nn.functional.conv_transpose2d(e_x, e_mod.weight, output_padding=2)
    with pytest.raises(RuntimeError, match="to have 2 channels, but got 3"):
        ember.nn.functional.conv1d(ember.ones(1, 3, 5), ember.ones(4, 2, 3))
    # The process goes on: the module still computes.
    assert tuple(e_mod(e_x).shape) == (1, 2, 7, 7)


def test_functional_convolutions_match_torch():
    e_x, t_x = pair(wave(2, 4, 7, scale=2.0), requires_grad=True)
    e_w, t_w = pair(wave(4, 2, 3, offset=1.0), requires_grad=True)
    for kwargs in ({"stride": 2, "padding": 1, "output_padding": 1}, {"groups": 2, "dilation": 2}):
        e_out = ember.nn.functional.conv_transpose1d(e_x, e_w, **kwargs)
        t_out = torch.nn.functional.conv_transpose1d(t_x, t_w, **kwargs)
        close(e_out, t_out, rtol=1e-4, atol=1e-5)
    e_w2, t_w2 = pair(wave(6, 2, 3, offset=2.0), requires_grad=True)
    e_out = ember.nn.functional.conv1d(e_x, e_w2, padding="same", groups=2)
    t_out = torch.nn.functional.conv1d(t_x, t_w2, padding="same", groups=2)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    e_out.sum().backward()
    t_out.sum().backward()
    close(e_x.grad, t_x.grad, rtol=1e-4, atol=1e-5)
    close(e_w2.grad, t_w2.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                                  "FeatureAlphaDropout"])
def test_dropout_variants(name):
    e_mod, t_mod = build(f"{name}(0.4)")
    assert repr(e_mod) == repr(t_mod)
    shape = {"Dropout1d": (6, 8, 5), "Dropout3d": (3, 8, 2, 3, 2)}.get(name, (6, 8, 4, 5))
    ember.manual_seed(3)
    x = ember.ones(*shape, dtype=ember.float64)
    y = e_mod(x)
    if name != "AlphaDropout":  # whole channels: constant over the positions
        flat = y.reshape(shape[0], shape[1], -1)
        assert ember.equal(flat.amax(2), flat.amin(2))
    e_mod.eval()
    assert ember.equal(e_mod(x), x)
    with pytest.raises(ValueError, match="between 0 and 1"):
        getattr(ember.nn, name)(1.5)


def test_dropout1d_unbatched_drops_rows():
    ember.manual_seed(4)
    y = ember.nn.functional.dropout1d(ember.ones(32, 6), 0.5)
    assert ember.equal(y.amax(1), y.amin(1))
    assert 0 < int((y[:, 0] == 0).sum()) < 32


# The margin, ranking, embedding and count losses: module text, the input builders by name.
MORE_LOSSES = [
    ("HuberLoss(delta=0.7)", ["x", "x2"]),
    ("SoftMarginLoss(reduction='sum')", ["x", "sign"]),
    ("MultiLabelSoftMarginLoss()", ["x", "probs"]),
    ("MultiLabelMarginLoss(reduction='none')", ["x", "listed"]),
    ("HingeEmbeddingLoss(0.5)", ["x", "sign"]),
    ("MultiMarginLoss(p=2, margin=0.8)", ["x", "cls"]),
    ("PoissonNLLLoss(full=True)", ["x", "counts"]),
    ("PoissonNLLLoss(log_input=False)", ["pos", "counts"]),
    ("GaussianNLLLoss(full=True)", ["x", "x2", "var"]),
    ("MarginRankingLoss(0.3)", ["x", "x2", "sign"]),
    ("CosineEmbeddingLoss(0.2, reduction='none')", ["x", "x2", "row"]),
    ("TripletMarginLoss(p=1, swap=True)", ["x", "x2", "x3"]),
    ("PairwiseDistance(p=3.0)", ["x", "x2"]),
]


@pytest.mark.parametrize("text,args", MORE_LOSSES, ids=[x[0] for x in MORE_LOSSES])
def test_more_losses_match_torch(text, args):
    e_loss, t_loss = build(text)
    assert repr(e_loss) == repr(t_loss)
    data = {
        "x": wave(4, 5, scale=2.0), "x2": wave(4, 5, offset=1.0), "x3": wave(4, 5, offset=2.0),
        "pos": wave(4, 5) ** 2 + 0.1,
        "sign": np.sign(wave(4, 5, offset=0.3)), "row": np.array([1.0, -1.0, -1.0, 1.0]),
        "probs": (wave(4, 5, offset=0.5) > 0).astype(np.float32),
        "listed": np.array([[3, 0, -1, 1, 1], [2, 4, -1, 0, 4], [-1, 2, 0, 0, 0],
                            [1, 3, 2, 4, -1]]),
        "cls": np.array([0, 3, 4, 1]),
        "counts": np.abs(wave(4, 5, offset=0.7)) * 4, "var": wave(4, 5) ** 2 + 0.1,
    }
    pairs = [pair(data[name].astype(np.float32) if data[name].dtype.kind == "f" else data[name],
                  requires_grad=(i == 0)) for i, name in enumerate(args)]
    e_out = e_loss(*[p[0] for p in pairs])
    t_out = t_loss(*[p[1] for p in pairs])
    close(e_out, t_out, rtol=1e-5, atol=1e-6)
    e_out.sum().backward()
    t_out.sum().backward()
    close(pairs[0][0].grad, pairs[0][1].grad, rtol=1e-4, atol=1e-6)


def test_more_losses_bad_input():
    x = ember.ones(4, 5)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        ember.nn.MultiMarginLoss(p=3)
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        ember.nn.functional.margin_ranking_loss(x, x, ember.ones(4))
    with pytest.raises(ValueError, match="var has negative entry"):
        ember.nn.functional.gaussian_nll_loss(x, x, -x)
    assert float(ember.nn.functional.huber_loss(x, x)) == 0.0


RNNS = [
    "RNN(3, 4)",
    "RNN(3, 4, num_layers=2, nonlinearity='relu', bidirectional=True)",
    "LSTM(3, 4, batch_first=True)",
    "LSTM(3, 4, num_layers=2, bidirectional=True)",
    "GRU(3, 4, bias=False)",
    "GRU(3, 4, num_layers=2, batch_first=True, bidirectional=True)",
]


def _rnn_outputs(out):
    """The tensors of an RNN's (output, state) result, flattened."""
    output, state = out
    return [output] + (list(state) if isinstance(state, tuple) else [state])


@pytest.mark.parametrize("text", RNNS)
def test_rnn_matches_torch(text):
    e_mod, t_mod = build(text)
    assert repr(e_mod) == repr(t_mod)
    assert [n for n, _ in e_mod.named_parameters()] == [n for n, _ in t_mod.named_parameters()]
    copy_params(e_mod, t_mod)
    batch_first = "batch_first=True" in text
    shape = (2, 5, 3) if batch_first else (5, 2, 3)
    layers = (2 if "num_layers=2" in text else 1) * (2 if "bidirectional" in text else 1)
    for with_state in (False, True):
        e_x, t_x = pair(wave(*shape, scale=1.5), requires_grad=True)
        args_e, args_t = [e_x], [t_x]
        if with_state:
            h = [pair(wave(layers, 2, 4, offset=k), requires_grad=True) for k in (1.0, 2.0)]
            if text.startswith("LSTM"):
                args_e.append((h[0][0], h[1][0]))
                args_t.append((h[0][1], h[1][1]))
            else:
                args_e.append(h[0][0])
                args_t.append(h[0][1])
        e_out, t_out = _rnn_outputs(e_mod(*args_e)), _rnn_outputs(t_mod(*args_t))
        e_total, t_total = None, None
        for k, (e, t) in enumerate(zip(e_out, t_out)):
            close(e, t, rtol=1e-4, atol=1e-5)
            weights = wave(*t.shape, offset=k)
            e_term = (e * ember.tensor(weights)).sum()
            t_term = (t * torch.tensor(weights)).sum()
            e_total = e_term if e_total is None else e_total + e_term
            t_total = t_term if t_total is None else t_total + t_term
        for module in (e_mod, t_mod):
            module.zero_grad()
        e_total.backward()
        t_total.backward()
        close(e_x.grad, t_x.grad, rtol=1e-4, atol=1e-5)
        grads_close(e_mod, t_mod)
    # Unbatched input: [T, I].
    e_x, t_x = pair(wave(5, 3))
    for e, t in zip(_rnn_outputs(e_mod(e_x)), _rnn_outputs(t_mod(t_x))):
        close(e, t, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("text,layers", [("LSTM(3, 5, proj_size=2)", 1),
                                         ("LSTM(3, 5, num_layers=2, bidirectional=True, "
                                          "batch_first=True, proj_size=3)", 4),
                                         ("LSTM(3, 5, num_layers=2, bias=False, proj_size=1)", 2)])
def test_lstm_proj_size_matches_torch(text, layers):
    """A projected LSTM: h (and the output) proj_size wide through weight_hr, c hidden_size wide."""
    e_mod, t_mod = build(text)
    assert repr(e_mod) == repr(t_mod)
    assert [(n, tuple(p.shape)) for n, p in e_mod.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t_mod.named_parameters()]
    copy_params(e_mod, t_mod)
    proj = t_mod.proj_size
    shape = (2, 5, 3) if t_mod.batch_first else (5, 2, 3)
    e_x, t_x = pair(wave(*shape, scale=1.5), requires_grad=True)
    e_h, t_h = pair(wave(layers, 2, proj, offset=1.0), requires_grad=True)
    e_c, t_c = pair(wave(layers, 2, 5, offset=2.0), requires_grad=True)
    e_out = _rnn_outputs(e_mod(e_x, (e_h, e_c)))
    t_out = _rnn_outputs(t_mod(t_x, (t_h, t_c)))
    for k, (e, t) in enumerate(zip(e_out, t_out)):
        close(e, t, rtol=1e-4, atol=1e-5)
    sum((e * ember.tensor(wave(*t.shape, offset=k))).sum()
        for k, (e, t) in enumerate(zip(e_out, t_out))).backward()
    sum((t * torch.tensor(wave(*t.shape, offset=k))).sum()
        for k, t in enumerate(t_out)).backward()
    for e, t in ((e_x, t_x), (e_h, t_h), (e_c, t_c)):
        close(e.grad, t.grad, rtol=1e-4, atol=1e-5)
    grads_close(e_mod, t_mod)
    for e, t in zip(_rnn_outputs(e_mod(ember.tensor(wave(5, 3)))),
                    _rnn_outputs(t_mod(torch.tensor(wave(5, 3))))):  # unbatched
        close(e, t, rtol=1e-4, atol=1e-5)
    for bad in ("LSTM(3, 5, proj_size=5)", "LSTM(3, 5, proj_size=-1)", "GRU(3, 5, proj_size=2)"):
        with pytest.raises(ValueError):
            eval("torch.nn." + bad)
        with pytest.raises(ValueError):
            eval("ember.nn." + bad)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size"):
        e_mod(e_x, (e_c, e_c))


CELLS = ["RNNCell(3, 4)", "RNNCell(3, 4, bias=False, nonlinearity='relu')", "LSTMCell(3, 4)",
         "LSTMCell(3, 4, bias=False)", "GRUCell(3, 4)"]


@pytest.mark.parametrize("text", CELLS)
def test_rnn_cells_match_torch(text):
    e_mod, t_mod = build(text)
    assert repr(e_mod) == repr(t_mod)
    assert [n for n, _ in e_mod.named_parameters()] == [n for n, _ in t_mod.named_parameters()]
    copy_params(e_mod, t_mod)
    lstm = text.startswith("LSTM")
    for batch in ((2,), ()):  # batched [B, I] and unbatched [I]
        for with_state in (False, True):
            e_x, t_x = pair(wave(*batch, 3, scale=1.5), requires_grad=True)
            args_e, args_t = [e_x], [t_x]
            if with_state:
                h = [pair(wave(*batch, 4, offset=k), requires_grad=True) for k in (1.0, 2.0)]
                args_e.append((h[0][0], h[1][0]) if lstm else h[0][0])
                args_t.append((h[0][1], h[1][1]) if lstm else h[0][1])
            e_out, t_out = e_mod(*args_e), t_mod(*args_t)
            e_out = list(e_out) if lstm else [e_out]
            t_out = list(t_out) if lstm else [t_out]
            e_total, t_total = 0, 0
            for k, (e, t) in enumerate(zip(e_out, t_out)):
                close(e, t, rtol=1e-4, atol=1e-5)
                weights = wave(*t.shape, offset=k)
                e_total = e_total + (e * ember.tensor(weights)).sum()
                t_total = t_total + (t * torch.tensor(weights)).sum()
            for module in (e_mod, t_mod):
                module.zero_grad()
            e_total.backward()
            t_total.backward()
            close(e_x.grad, t_x.grad, rtol=1e-4, atol=1e-5)
            grads_close(e_mod, t_mod)


def test_rnn_cells_bad_input():
    cell = ember.nn.GRUCell(3, 4)
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1-D or 2-D but received 3-D"):
        cell(ember.ones(1, 2, 3))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 5 expected 3"):
        cell(ember.ones(2, 5))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        cell(ember.ones(2, 3), ember.ones(3, 4))
    with pytest.raises(ValueError, match="Unknown nonlinearity: sigmoid"):
        ember.nn.RNNCell(3, 4, nonlinearity="sigmoid")
    assert tuple(cell(ember.ones(2, 3)).shape) == (2, 4)  # still works


@pytest.mark.parametrize("text", ["LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)",
                                  "LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True, "
                                  "proj_size=2)",
                                  "GRU(3, 4, batch_first=True)"])
def test_packed_rnn_matches_torch(text):
    e_mod, t_mod = build(text)
    copy_params(e_mod, t_mod)
    e_x, t_x = pair(wave(3, 5, 3, scale=1.5), requires_grad=True)
    lengths = [3, 5, 2]
    e_p = ember.nn.utils.rnn.pack_padded_sequence(e_x, lengths, batch_first=True,
                                                  enforce_sorted=False)
    t_p = torch.nn.utils.rnn.pack_padded_sequence(t_x, lengths, batch_first=True,
                                                  enforce_sorted=False)
    close(e_p.data, t_p.data)
    assert e_p.batch_sizes.tolist() == t_p.batch_sizes.tolist()
    assert e_p.sorted_indices.tolist() == t_p.sorted_indices.tolist()
    e_out, t_out = e_mod(e_p), t_mod(t_p)
    assert isinstance(e_out[0], ember.nn.utils.rnn.PackedSequence)
    e_y, e_len = ember.nn.utils.rnn.pad_packed_sequence(e_out[0], batch_first=True)
    t_y, t_len = torch.nn.utils.rnn.pad_packed_sequence(t_out[0], batch_first=True)
    assert e_len.tolist() == t_len.tolist() == lengths
    close(e_y, t_y, rtol=1e-4, atol=1e-5)
    e_states = list(e_out[1]) if isinstance(e_out[1], tuple) else [e_out[1]]
    t_states = list(t_out[1]) if isinstance(t_out[1], tuple) else [t_out[1]]
    for e, t in zip(e_states, t_states):
        close(e, t, rtol=1e-4, atol=1e-5)
    (e_y.sum() + sum(s.sum() for s in e_states)).backward()
    (t_y.sum() + sum(s.sum() for s in t_states)).backward()
    close(e_x.grad, t_x.grad, rtol=1e-4, atol=1e-5)
    grads_close(e_mod, t_mod)


def test_packing_helpers_match_torch():
    seqs = [wave(4, 2), wave(2, 2, offset=1.0), wave(5, 2, offset=2.0)]
    e_seqs = [ember.tensor(s) for s in seqs]
    t_seqs = [torch.tensor(s) for s in seqs]
    close(ember.nn.utils.rnn.pad_sequence(e_seqs, batch_first=True, padding_value=-1.0),
          torch.nn.utils.rnn.pad_sequence(t_seqs, batch_first=True, padding_value=-1.0))
    e_p = ember.nn.utils.rnn.pack_sequence(e_seqs, enforce_sorted=False)
    t_p = torch.nn.utils.rnn.pack_sequence(t_seqs, enforce_sorted=False)
    close(e_p.data, t_p.data)
    e_y, e_len = ember.nn.utils.rnn.pad_packed_sequence(e_p, padding_value=0.5, total_length=7)
    t_y, t_len = torch.nn.utils.rnn.pad_packed_sequence(t_p, padding_value=0.5, total_length=7)
    close(e_y, t_y)
    assert e_len.tolist() == t_len.tolist()
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ember.nn.utils.rnn.pack_sequence(e_seqs)
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        ember.nn.utils.rnn.pad_packed_sequence(e_p, total_length=3)
    lstm = ember.nn.LSTM(2, 3)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        lstm(ember.ones(4, 1, 5))
    with pytest.raises(RuntimeError, match="Expected hidden\\[0\\] size"):
        lstm(ember.ones(4, 1, 2), (ember.zeros(2, 1, 3), ember.zeros(2, 1, 3)))
    assert tuple(lstm(ember.ones(4, 1, 2))[0].shape) == (4, 1, 3)


def test_channel_shuffle_matches_torch():
    e_mod, t_mod = build("ChannelShuffle(2)")
    assert repr(e_mod) == repr(t_mod)
    e_x, t_x = pair(wave(2, 4, 3, 3), requires_grad=True)
    e_out = e_mod(e_x)
    close(e_out, t_mod(t_x.detach()))
    # PyTorch has no derivative for it; the gradient is the weights shuffled back.
    weights = wave(2, 4, 3, 3, offset=1.0)
    (e_out * ember.tensor(weights)).sum().backward()
    back = torch.tensor(weights).reshape(2, 2, 2, 3, 3).transpose(1, 2).reshape(2, 4, 3, 3)
    close(e_x.grad, back)


def test_bilinear_matches_torch():
    e_mod, t_mod = build("Bilinear(4, 5, 3)")
    assert repr(e_mod) == repr(t_mod)
    copy_params(e_mod, t_mod)
    e_a, t_a = pair(wave(6, 4), requires_grad=True)
    e_b, t_b = pair(wave(6, 5, offset=1.0), requires_grad=True)
    e_out, t_out = e_mod(e_a, e_b), t_mod(t_a, t_b)
    close(e_out, t_out, rtol=1e-4, atol=1e-5)
    e_out.sum().backward()
    t_out.sum().backward()
    close(e_a.grad, t_a.grad, rtol=1e-4, atol=1e-5)
    close(e_b.grad, t_b.grad, rtol=1e-4, atol=1e-5)
    grads_close(e_mod, t_mod)
    with pytest.raises(RuntimeError, match="input2 size does not match weight size"):
        e_mod(e_a, e_a)


def _rename(text):
    return text.replace("torch.", "ember.")


def test_parameter_list_and_dict_match_torch():
    shapes = [(2, 3), (4,), (3, 1)]
    e_list = ember.nn.ParameterList([ember.nn.Parameter(ember.ones(*s)) for s in shapes[:2]])
    t_list = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(*s)) for s in shapes[:2]])
    e_list.append(ember.zeros(*shapes[2]))  # a plain tensor becomes a Parameter
    t_list.append(torch.zeros(*shapes[2]))
    assert repr(e_list) == _rename(repr(t_list))
    assert len(e_list) == 3 and isinstance(e_list[2], ember.nn.Parameter)
    assert [n for n, _ in e_list.named_parameters()] == [n for n, _ in t_list.named_parameters()]
    assert list(e_list.state_dict()) == list(t_list.state_dict())
    assert [tuple(p.shape) for p in e_list[1:]] == [tuple(p.shape) for p in t_list[1:]]
    assert tuple(e_list[-1].shape) == (3, 1)
    with pytest.raises(IndexError, match="index 3 is out of range"):
        e_list[3]

    e_dict = ember.nn.ParameterDict({"b": ember.nn.Parameter(ember.ones(2)), "a": ember.ones(3)})
    t_dict = torch.nn.ParameterDict({"b": torch.nn.Parameter(torch.ones(2)), "a": torch.ones(3)})
    e_dict["c"] = ember.nn.Parameter(ember.zeros(1, 2))
    t_dict["c"] = torch.nn.Parameter(torch.zeros(1, 2))
    assert repr(e_dict) == _rename(repr(t_dict))
    assert list(e_dict.keys()) == list(t_dict.keys())
    assert list(e_dict.state_dict()) == list(t_dict.state_dict())
    assert "a" in e_dict and "z" not in e_dict and len(e_dict) == 3
    assert tuple(e_dict.pop("b").shape) == (2,)
    assert list(e_dict.keys()) == ["a", "c"] and len(list(e_dict.parameters())) == 2

    # Parameters in a list train like any other: gradients reach them through the module.
    class Scale(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.scales = ember.nn.ParameterList([ember.nn.Parameter(ember.full((3,), 2.0))])

        def forward(self, x):
            return x * self.scales[0]

    m = Scale()
    m(ember.ones(3)).sum().backward()
    assert m.scales[0].grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, "inf"])
def test_clip_grad_norm_matches_torch(norm_type):
    e_mod, t_mod = build("Linear(3, 2)")
    copy_params(e_mod, t_mod)
    e_x, t_x = pair(wave(4, 3, scale=3.0))
    (e_mod(e_x) ** 2).sum().backward()
    (t_mod(t_x) ** 2).sum().backward()
    e_norm = ember.nn.utils.clip_grad_norm_(e_mod.parameters(), 0.7, norm_type)
    t_norm = torch.nn.utils.clip_grad_norm_(t_mod.parameters(), 0.7, norm_type)
    close(e_norm, t_norm, rtol=1e-5)
    grads_close(e_mod, t_mod, rtol=1e-5, atol=1e-6)
    # A single tensor, and clip_grad_value_.
    ember.nn.utils.clip_grad_value_(e_mod.weight, 0.01)
    torch.nn.utils.clip_grad_value_(t_mod.weight, 0.01)
    grads_close(e_mod, t_mod, rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_skips_parameters_without_grads_and_reports_nonfinite():
    w = ember.nn.Parameter(ember.ones(3))
    assert float(ember.nn.utils.clip_grad_norm_([w], 1.0)) == 0.0  # no gradient at all
    w.grad = ember.tensor([float("inf"), 1.0, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        ember.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
