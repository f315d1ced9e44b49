"""ember.utils.checkpoint against torch.utils.checkpoint (PyTorch 1.13): the same model and
inputs give the same outputs and gradients (inputs and parameters), in both the reentrant and the
non-reentrant form; dropout inside matches the plain run; PyTorch's errors and warnings; and
get_rng_state / set_rng_state round trips."""
import pytest
import torch
import torch.utils.checkpoint  # noqa: F401  (not imported by torch itself)

import ember
from nn_compare import close, copy_params, grads_close, pair, wave


def block(lib, depth=3):
    layers = []
    for _ in range(depth):
        layers += [lib.nn.Linear(6, 6), lib.nn.Tanh()]
    return lib.nn.Sequential(*layers)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_matches_torch(use_reentrant):
    e, t = block(ember), block(torch)
    copy_params(e, t)
    ex, tx = pair(wave(4, 6), requires_grad=True)
    ey = ember.utils.checkpoint.checkpoint(e, ex, use_reentrant=use_reentrant)
    ty = torch.utils.checkpoint.checkpoint(t, tx, use_reentrant=use_reentrant)
    close(ey, ty)
    (ey * ey).sum().backward()
    (ty * ty).sum().backward()
    close(ex.grad, tx.grad)
    grads_close(e, t)


def test_tuple_outputs_and_non_tensor_arguments():
    def f(lib, x, scale, y):
        return x * scale, lib.tanh(y) * x

    ex, tx = pair(wave(3, 2), requires_grad=True)
    ey_in, ty_in = pair(wave(3, 2, offset=1.0), requires_grad=True)
    eo = ember.utils.checkpoint.checkpoint(lambda *a: f(ember, *a), ex, 2.5, ey_in)
    to = torch.utils.checkpoint.checkpoint(lambda *a: f(torch, *a), tx, 2.5, ty_in)
    assert isinstance(eo, tuple) and len(eo) == 2
    for a, b in zip(eo, to):
        close(a, b)
    (eo[0].sum() + eo[1].square().sum()).backward()
    (to[0].sum() + to[1].square().sum()).backward()
    close(ex.grad, tx.grad)
    close(ey_in.grad, ty_in.grad)


def test_dropout_replays_the_forward_masks():
    model = ember.nn.Sequential(ember.nn.Linear(8, 32), ember.nn.Dropout(0.5),
                                ember.nn.Linear(32, 8))
    x = ember.randn(5, 8)
    grads = []
    for use in (False, True):
        model.zero_grad()
        xi = x.clone().requires_grad_()
        ember.manual_seed(11)
        y = ember.utils.checkpoint.checkpoint(model, xi) if use else model(xi)
        y.square().sum().backward()
        grads.append([xi.grad] + [p.grad for p in model.parameters()])
        grads[-1].append(ember.rand(3))  # the caller's random stream after the backward
    for a, b in zip(*grads):
        assert ember.allclose(a, b, rtol=1e-6, atol=1e-7)


def test_non_reentrant_reaches_parameters_when_no_input_requires_grad():
    for lib in (ember, torch):
        lib.manual_seed(0)
        model = lib.nn.Linear(4, 2)
        y = lib.utils.checkpoint.checkpoint(model, lib.ones(3, 4), use_reentrant=False)
        y.sum().backward()
        assert model.weight.grad is not None
        assert model.weight.grad.tolist() == [[3.0] * 4] * 2


def test_reentrant_warns_when_no_input_requires_grad():
    for lib in (ember, torch):
        model = lib.nn.Linear(4, 2)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            lib.utils.checkpoint.checkpoint(model, lib.ones(3, 4))


def test_reentrant_refuses_keyword_arguments():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            lib.utils.checkpoint.checkpoint(lambda x, scale: x * scale,
                                            lib.ones(2, requires_grad=True), scale=2.0)
    x = ember.ones(2, requires_grad=True)
    y = ember.utils.checkpoint.checkpoint(lambda x, scale: x * scale, x, scale=2.0,
                                          use_reentrant=False)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(segments):
    e, t = block(ember, depth=4), block(torch, depth=4)
    copy_params(e, t)
    ex, tx = pair(wave(4, 6), requires_grad=True)
    ey = ember.utils.checkpoint.checkpoint_sequential(e, segments, ex)
    ty = torch.utils.checkpoint.checkpoint_sequential(t, segments, tx)
    close(ey, ty)
    ey.sum().backward()
    ty.sum().backward()
    close(ex.grad, tx.grad)
    grads_close(e, t)


def test_rng_state_round_trips():
    ember.manual_seed(5)
    state = ember.get_rng_state()
    assert state.dtype == ember.uint8 and tuple(state.shape) == (16,)
    a = ember.randn(4)
    ember.set_rng_state(state)
    assert ember.equal(ember.randn(4), a)
    with pytest.raises(RuntimeError, match="expected a 1-D uint8 tensor of 16 bytes"):
        ember.set_rng_state(ember.zeros(16))


def test_cuda_rng_state_is_the_one_generators_state():
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            ember.cuda.get_rng_state()
        return
    ember.manual_seed(8)
    states = ember.cuda.get_rng_state_all()
    assert len(states) == ember.cuda.device_count()
    assert all(ember.equal(s, ember.get_rng_state()) for s in states)
    a = ember.randn(3, device="cuda")
    ember.cuda.set_rng_state(states[0])
    assert ember.equal(ember.randn(3, device="cuda"), a)
    assert ember.cuda.initial_seed() == ember.initial_seed() == 8
    with pytest.raises(RuntimeError, match="Invalid device index 9"):
        ember.cuda.get_rng_state(9)
