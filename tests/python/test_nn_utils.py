"""ember.nn.utils against torch.nn.utils (PyTorch 1.13): parameters_to_vector and back,
weight_norm and spectral_norm (parameters, buffers, outputs, gradients, removal, errors), and the
conv/linear + BatchNorm fusion."""
import pytest
import torch

import ember
from nn_compare import close, copy_params, grads_close, pair, wave


def modules(make_e, make_t):
    e, t = make_e(), make_t()
    copy_params(e, t)
    return e, t


def test_parameters_to_vector_and_back():
    e, t = modules(lambda: ember.nn.Linear(3, 4), lambda: torch.nn.Linear(3, 4))
    ev = ember.nn.utils.parameters_to_vector(e.parameters())
    tv = torch.nn.utils.parameters_to_vector(t.parameters())
    close(ev, tv)
    ember.nn.utils.vector_to_parameters(ev * 2, e.parameters())
    torch.nn.utils.vector_to_parameters(tv * 2, t.parameters())
    close(e.weight, t.weight)
    close(e.bias, t.bias)


def test_vector_to_parameters_errors():
    params = list(ember.nn.Linear(3, 4).parameters())
    with pytest.raises(TypeError, match="expected ember.Tensor, but got: list"):
        ember.nn.utils.vector_to_parameters([1.0], params)
    with pytest.raises(RuntimeError, match="the vector has 5 elements but the parameters have 16"):
        ember.nn.utils.vector_to_parameters(ember.zeros(5), params)
    with pytest.raises(RuntimeError, match="expected a 1-D vector, got shape"):
        ember.nn.utils.vector_to_parameters(ember.zeros(4, 4), params)


@pytest.mark.parametrize("dim", [0, 1, None, -1])
@pytest.mark.parametrize("layer", ["linear", "conv"])
def test_weight_norm_matches_torch(layer, dim):
    if layer == "linear":
        e, t = modules(lambda: ember.nn.Linear(5, 4), lambda: torch.nn.Linear(5, 4))
        x = wave(3, 5)
    else:
        e, t = modules(lambda: ember.nn.Conv2d(2, 3, 2), lambda: torch.nn.Conv2d(2, 3, 2))
        x = wave(2, 2, 4, 4)
    assert ember.nn.utils.weight_norm(e, dim=dim) is e
    torch.nn.utils.weight_norm(t, dim=dim)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    close(e.weight_g, t.weight_g)
    close(e.weight_v, t.weight_v)
    with ember.no_grad():  # the hook recomputes weight from g and v on each call
        e.weight_g.mul_(1.5)
    with torch.no_grad():
        t.weight_g.mul_(1.5)
    ex, tx = pair(x)
    close(e(ex), t(tx))
    e(ex).square().sum().backward()
    t(tx).square().sum().backward()
    grads_close(e, t)
    ember.nn.utils.remove_weight_norm(e)
    torch.nn.utils.remove_weight_norm(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    close(e.weight, t.weight)
    assert isinstance(e.weight, ember.nn.Parameter)


def test_weight_norm_errors_match_torch():
    for lib in (ember, torch):
        m = lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the "
                                               "same parameter weight"):
            lib.nn.utils.weight_norm(m)
        with pytest.raises(ValueError, match="weight_norm of 'bias' not found in"):
            lib.nn.utils.remove_weight_norm(m, "bias")


@pytest.mark.parametrize("layer", ["linear", "conv", "conv_transpose"])
def test_spectral_norm_matches_torch(layer):
    if layer == "linear":
        make = (lambda: ember.nn.Linear(5, 4), lambda: torch.nn.Linear(5, 4))
        x = wave(3, 5)
    elif layer == "conv":
        make = (lambda: ember.nn.Conv2d(2, 3, 2), lambda: torch.nn.Conv2d(2, 3, 2))
        x = wave(2, 2, 4, 4)
    else:  # dim 1 by default: the transposed convolution's output channels
        make = (lambda: ember.nn.ConvTranspose2d(2, 3, 2), lambda: torch.nn.ConvTranspose2d(2, 3, 2))
        x = wave(2, 2, 3, 3)
    e, t = modules(*make)
    ember.nn.utils.spectral_norm(e, n_power_iterations=2)
    torch.nn.utils.spectral_norm(t, n_power_iterations=2)
    assert list(e.state_dict()) == list(t.state_dict())
    copy_params(e, t)  # torch's random u and v
    ex, tx = pair(x)
    for _ in range(3):  # each training-mode call runs the power iteration on the buffers
        close(e(ex), t(tx), rtol=1e-4, atol=1e-5)
    close(e.weight_u, t.weight_u, rtol=1e-4, atol=1e-6)
    close(e.weight_v, t.weight_v, rtol=1e-4, atol=1e-6)
    e(ex).square().sum().backward()
    t(tx).square().sum().backward()
    grads_close(e, t)
    e.eval()
    t.eval()
    u_before = e.weight_u.clone()
    close(e(ex), t(tx), rtol=1e-4, atol=1e-5)
    assert ember.equal(e.weight_u, u_before)  # eval mode leaves the estimate alone
    ember.nn.utils.remove_spectral_norm(e)
    torch.nn.utils.remove_spectral_norm(t)
    assert list(e.state_dict()) == list(t.state_dict())
    close(e.weight, t.weight, rtol=1e-4, atol=1e-6)


def test_spectral_norm_errors_match_torch():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but "
                                             "got n_power_iterations=0"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            lib.nn.utils.spectral_norm(m)
        with pytest.raises(ValueError, match="spectral_norm of 'bias' not found in"):
            lib.nn.utils.remove_spectral_norm(m, "bias")
        with pytest.raises(ValueError, match="cannot be applied as parameter `bias` is None"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), name="bias")


def eval_pair(make_e, make_t):
    e, t = modules(make_e, make_t)
    with torch.no_grad():  # statistics that are not the defaults
        for name, value in t.state_dict().items():
            if name.endswith(("running_mean", "weight", "bias")):
                value.copy_(torch.tensor(wave(*value.shape, scale=0.7, offset=len(name))))
            if name.endswith("running_var"):
                value.copy_(torch.tensor(wave(*value.shape, offset=1.0)) ** 2 + 0.5)
    copy_params(e, t)
    return e.eval(), t.eval()


@pytest.mark.parametrize("kind", ["conv", "conv_transpose", "linear", "conv_no_bias"])
def test_fusion_matches_torch_and_the_unfused_pair(kind):
    if kind == "linear":
        e, t = eval_pair(lambda: ember.nn.Sequential(ember.nn.Linear(5, 4),
                                                     ember.nn.BatchNorm1d(4)),
                         lambda: torch.nn.Sequential(torch.nn.Linear(5, 4),
                                                     torch.nn.BatchNorm1d(4)))
        x = wave(3, 5)
        fused_e = ember.nn.utils.fuse_linear_bn_eval(e[0], e[1])
        fused_t = torch.nn.utils.fusion.fuse_linear_bn_eval(t[0], t[1])
    else:
        transpose = kind == "conv_transpose"
        layer = "ConvTranspose2d" if transpose else "Conv2d"
        bias = kind != "conv_no_bias"
        e, t = eval_pair(
            lambda: ember.nn.Sequential(getattr(ember.nn, layer)(2, 3, 2, bias=bias),
                                        ember.nn.BatchNorm2d(3)),
            lambda: torch.nn.Sequential(getattr(torch.nn, layer)(2, 3, 2, bias=bias),
                                        torch.nn.BatchNorm2d(3)))
        x = wave(2, 2, 4, 4)
        fused_e = ember.nn.utils.fuse_conv_bn_eval(e[0], e[1], transpose=transpose)
        fused_t = torch.nn.utils.fusion.fuse_conv_bn_eval(t[0], t[1], transpose=transpose)
    close(fused_e.weight, fused_t.weight)
    close(fused_e.bias, fused_t.bias)
    assert isinstance(fused_e.weight, ember.nn.Parameter) and fused_e is not e[0]
    ex, tx = pair(x)
    close(fused_e(ex), e(ex), rtol=1e-5, atol=1e-5)
    close(fused_e(ex), t(tx), rtol=1e-5, atol=1e-5)


def test_fusion_refuses_training_mode():
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        ember.nn.utils.fuse_conv_bn_eval(ember.nn.Conv2d(1, 1, 1), ember.nn.BatchNorm2d(1))
