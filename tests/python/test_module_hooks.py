"""nn.Module hooks against PyTorch 1.13: register_full_backward_hook (grad_input and grad_output
as PyTorch passes them, a replaced grad_input reaching the inputs, removal, the order with the
forward hooks), and the forward (pre-)hooks' handles."""
import pytest
import torch

import ember
from nn_compare import close, copy_params, pair, wave


def record_hooks(lib, model, calls):
    def hook(module, grad_input, grad_output):
        calls.append(("backward", type(module).__name__,
                      [None if g is None else g.tolist() for g in grad_input],
                      [None if g is None else g.tolist() for g in grad_output]))
    return model.register_full_backward_hook(hook)


def run_both(make, x, input_requires_grad=True):
    results = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        results.append(make(lib))
    copy_params(results[0], results[1])
    calls = ([], [])
    outs = []
    for (lib, model, c) in zip((ember, torch), results, calls):
        handle = record_hooks(lib, model, c)
        xi = lib.tensor(x)
        if input_requires_grad:
            xi.requires_grad_()
        y = model(xi)
        (y * lib.tensor(wave(*y.shape))).sum().backward()
        outs.append((xi, handle))
    return results, calls, outs


def assert_calls_close(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a[:2] == b[:2]
        for ga, gb in zip(a[2] + a[3], b[2] + b[3]):
            assert (ga is None) == (gb is None)
            if ga is not None:
                close(ember.tensor(ga), torch.tensor(gb))


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_full_backward_hook_arguments_match_torch(input_requires_grad):
    make = lambda lib: lib.nn.Linear(3, 2)  # noqa: E731
    _, calls, _ = run_both(make, wave(4, 3), input_requires_grad)
    assert len(calls[1]) == 1
    assert_calls_close(calls[0], calls[1])


def test_hooks_on_nested_modules_run_in_backward_order():
    make = lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(),  # noqa: E731
                                         lib.nn.Linear(4, 2))
    models = []
    calls = ([], [])
    for lib, c in zip((ember, torch), calls):
        model = make(lib)
        models.append(model)
        for m in list(model.children()) + [model]:
            record_hooks(lib, m, c)
    copy_params(models[0], models[1])
    for lib, model in zip((ember, torch), models):
        x = lib.tensor(wave(5, 3)).requires_grad_()
        model(x).sum().backward()
    assert [c[1] for c in calls[1]] == ["Linear", "Tanh", "Linear", "Sequential"]
    assert_calls_close(calls[0], calls[1])


def test_returned_grad_input_replaces_the_gradient():
    for lib in (ember, torch):
        lin = lib.nn.Linear(3, 3)
        handle = lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0 + 7,))
        x = lib.ones(2, 3, requires_grad=True)
        lin(x).sum().backward()
        assert x.grad.tolist() == [[7.0] * 3] * 2
        handle.remove()
        x.grad = None
        lin(x).sum().backward()
        assert x.grad.tolist() != [[7.0] * 3] * 2


def test_a_wrong_number_of_gradients_is_an_error():
    for lib in (ember, torch):
        lin = lib.nn.Linear(3, 3)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of "
                                               "grad_input, got 2, but expected 1"):
            lin(lib.ones(2, 3, requires_grad=True)).sum().backward()


def test_forward_hooks_see_the_same_values():
    seen = ([], [])
    for lib, s in zip((ember, torch), seen):
        lin = lib.nn.Linear(2, 2)
        pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        post = lin.register_forward_hook(lambda m, args, out: s.append(tuple(out.shape)))
        with lib.no_grad():
            lin(lib.ones(1, 2))
        pre.remove()
        post.remove()
        lin(lib.ones(1, 2))
    assert seen[0] == seen[1] == [(1, 2)]
