"""AdaptiveLogSoftmaxWithLoss against PyTorch 1.13: submodules and state dict, output, loss and
every gradient for batched and unbatched input, log_prob, predict, and the errors."""
import pytest
import torch

import ember
from nn_compare import close, copy_params, grads_close, pair, wave


def both(*args, **kwargs):
    e = ember.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs)
    copy_params(e, t)
    return e, t


@pytest.mark.parametrize("kwargs", [{}, {"div_value": 2.0, "head_bias": True}])
def test_forward_backward_log_prob_and_predict(kwargs):
    e, t = both(16, 20, [4, 9, 15], **kwargs)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [tuple(p.shape) for p in e.parameters()] == [tuple(p.shape) for p in t.parameters()]
    ex, tx = pair(wave(7, 16), requires_grad=True)
    target = [0, 5, 19, 9, 3, 14, 12]
    eo, to = e(ex, ember.tensor(target)), t(tx, torch.tensor(target))
    close(eo.output, to.output, rtol=1e-5, atol=1e-5)
    close(eo.loss, to.loss, rtol=1e-5, atol=1e-5)
    eo.loss.backward()
    to.loss.backward()
    close(ex.grad, tx.grad, rtol=1e-4, atol=1e-5)
    grads_close(e, t)
    close(e.log_prob(ex), t.log_prob(tx), rtol=1e-5, atol=1e-5)
    assert e.predict(ex).tolist() == t.predict(tx).tolist()


def test_unbatched_input():
    e, t = both(8, 10, [3, 6])
    ex, tx = pair(wave(8))
    eo, to = e(ex, ember.tensor(7)), t(tx, torch.tensor(7))
    assert tuple(eo.output.shape) == tuple(to.output.shape) == ()
    close(eo.output, to.output)
    with pytest.raises(IndexError):  # log_prob takes batches only, in both
        t.log_prob(tx)
    with pytest.raises(IndexError):
        e.log_prob(ex)


@pytest.mark.parametrize("make,call,error,text", [
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3]), None, ValueError,
     "cutoffs should be a sequence of unique, positive integers sorted in an increasing order"),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]), None, ValueError,
     "where each value is between 1 and n_classes-1"),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6]),
     lambda lib, m: m(lib.zeros(3, 8), lib.tensor([1, 2])), RuntimeError,
     "Input and target should have the same size in the batch dimension"),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6]),
     lambda lib, m: m(lib.zeros(2, 8), lib.tensor([1, 12])), RuntimeError,
     r"Target values should be in \[0, 9\], but values in range \[1, 12\] were found"),
    (lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6]),
     lambda lib, m: m(lib.zeros(2, 2, 8), lib.zeros(2, 2, dtype=lib.int64)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
])
def test_errors_as_torch(make, call, error, text):
    for lib in (torch, ember):
        with pytest.raises(error, match=text):
            m = make(lib)
            call(lib, m)
