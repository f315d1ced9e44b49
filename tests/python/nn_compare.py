"""Helpers of the nn/optim unit tests: the same module built in ember and torch, parameters
copied across through numpy, and outputs and gradients compared."""
import numpy as np
import torch

import ember


def to_numpy(t):
    return np.array(t.detach().cpu().numpy())


def pair(data, requires_grad=False):
    """(ember tensor, torch tensor) holding the same values."""
    a = np.asarray(data)
    e = ember.tensor(a)
    t = torch.tensor(a)
    if requires_grad:
        e.requires_grad_(True)
        t.requires_grad_(True)
    return e, t


def wave(*shape, scale=1.0, offset=0.0):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n, dtype=np.float32) * 0.37 + offset) * scale).reshape(shape)


def copy_params(e_module, t_module):
    """torch's parameters and buffers into the ember module (same names, same shapes)."""
    t_state = t_module.state_dict()
    e_state = e_module.state_dict()
    assert list(e_state) == list(t_state)
    with ember.no_grad():
        for key, value in e_state.items():
            value.copy_(ember.tensor(to_numpy(t_state[key])).to(value.dtype))


def close(e, t, rtol=1e-5, atol=1e-6):
    assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
    np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=rtol, atol=atol)


def grads_close(e_module, t_module, rtol=1e-4, atol=1e-5):
    e_named = dict(e_module.named_parameters())
    t_named = dict(t_module.named_parameters())
    assert list(e_named) == list(t_named)
    for name in t_named:
        assert (e_named[name].grad is None) == (t_named[name].grad is None), name
        if t_named[name].grad is not None:
            close(e_named[name].grad, t_named[name].grad, rtol, atol)
