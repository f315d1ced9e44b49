"""SyncBatchNorm in one process against PyTorch 1.13: convert_sync_batchnorm's result (modules,
repr, state dict, mode), eval mode without a process group, and the errors. Its synchronised
training is checked over 2 ranks in test_distributed.py (distributed_programs/sync_batchnorm.py)."""
import pytest
import torch

import ember
from nn_compare import close, copy_params, pair, wave


def two_libraries(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4, momentum=0.2),
                             lib.nn.Sequential(lib.nn.BatchNorm1d(5, affine=False)),
                             lib.nn.BatchNorm3d(2, eps=1e-3, track_running_stats=False))


def test_convert_sync_batchnorm_matches_torch():
    e, t = two_libraries(ember), two_libraries(torch)
    copy_params(e, t)
    e[1].eval()
    t[1].eval()
    es = ember.nn.SyncBatchNorm.convert_sync_batchnorm(e)
    ts = torch.nn.SyncBatchNorm.convert_sync_batchnorm(t)
    assert repr(es) == repr(ts)
    assert [type(m).__name__ for m in es.modules()] == [type(m).__name__ for m in ts.modules()]
    assert list(es.state_dict()) == list(ts.state_dict())
    assert es[1].training is False and es[1].weight is e[1].weight  # the same Parameter objects
    single = ember.nn.SyncBatchNorm(4)
    assert ember.nn.SyncBatchNorm.convert_sync_batchnorm(single) is single


def test_eval_uses_running_statistics_without_a_process_group():
    e, t = ember.nn.SyncBatchNorm(3), torch.nn.BatchNorm2d(3)
    with torch.no_grad():
        t.running_mean.copy_(torch.tensor([0.5, -1.0, 2.0]))
        t.running_var.copy_(torch.tensor([2.0, 0.5, 1.5]))
        t.weight.copy_(torch.tensor([1.5, 0.5, -1.0]))
    copy_params(e, t)
    e.eval()
    t.eval()
    ex, tx = pair(wave(2, 3, 4, 4), requires_grad=True)
    eo, to = e(ex), t(tx)
    close(eo, to)
    eo.sum().backward()
    to.sum().backward()
    close(ex.grad, tx.grad)


def test_training_without_a_process_group_raises_as_torch():
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        ember.nn.SyncBatchNorm(3)(ember.ones(2, 3, 2, 2))


def test_bad_input():
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        ember.nn.SyncBatchNorm(3)(ember.ones(3))
    with pytest.raises(ValueError, match="SyncBatchNorm number of input channels should be "
                       "non-zero"):
        ember.nn.SyncBatchNorm(0)(ember.ones(2, 0, 3))
