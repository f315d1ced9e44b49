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
    ("MaxPool2d(2)", (2, 3, 6, 6), None),
    ("MaxPool2d(3, stride=2, padding=1)", (1, 2, 7, 7), None),
    ("AvgPool2d(2)", (2, 3, 6, 6), None),
    ("AdaptiveAvgPool2d((2, 3))", (1, 2, 6, 7), None),
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
    ("LogSoftmax(dim=-1)", (4, 5), None),
    ("BatchNorm1d(5)", (8, 5), None),
    ("BatchNorm2d(3)", (4, 3, 5, 5), None),
    ("LayerNorm(5)", (4, 5), None),
    ("LayerNorm([3, 4])", (2, 3, 4), None),
    ("Embedding(10, 4)", (3, 5), 10),
    ("Embedding(10, 4, padding_idx=0)", (3, 5), 10),
    ("Flatten()", (2, 3, 4), None),
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
