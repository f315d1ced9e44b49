"""FractionalMaxPool2d/3d and their functional forms against PyTorch 1.13 with the same
_random_samples: outputs, indices, gradients, the module's repr, buffer and errors."""
import pytest
import torch

import ember
import ember.nn.functional as F
from nn_compare import close, pair, wave

TF = torch.nn.functional


@pytest.mark.parametrize("kwargs", [{"output_size": (4, 5)}, {"output_ratio": 0.5},
                                    {"output_size": 3, "return_indices": True}])
def test_fractional_max_pool2d_matches_torch(kwargs):
    ex, tx = pair(wave(2, 3, 9, 10), requires_grad=True)
    es, ts = pair(abs(wave(2, 3, 2, offset=0.4)) * 0.99)
    eo = F.fractional_max_pool2d(ex, 2, _random_samples=es, **kwargs)
    to = TF.fractional_max_pool2d(tx, 2, _random_samples=ts, **kwargs)
    if kwargs.get("return_indices"):
        assert eo[1].tolist() == to[1].tolist()
        eo, to = eo[0], to[0]
    close(eo, to)
    (eo * eo.detach().cos()).sum().backward()
    (to * to.detach().cos()).sum().backward()
    close(ex.grad, tx.grad)


def test_fractional_max_pool3d_module_matches_torch():
    ex, tx = pair(wave(1, 2, 6, 7, 8), requires_grad=True)
    es, ts = pair(abs(wave(1, 2, 3, offset=1.3)) * 0.99)
    em = ember.nn.FractionalMaxPool3d(2, output_size=(3, 4, 5), _random_samples=es)
    tm = torch.nn.FractionalMaxPool3d(2, output_size=(3, 4, 5), _random_samples=ts)
    assert repr(em) == repr(tm)
    assert [n for n, _ in em.named_buffers()] == [n for n, _ in tm.named_buffers()]
    eo, to = em(ex), tm(tx)
    close(eo, to)
    eo.sum().backward()
    to.sum().backward()
    close(ex.grad, tx.grad)


def test_drawn_samples_pool_every_plane():
    ember.manual_seed(0)
    out, idx = F.fractional_max_pool2d(ember.randn(3, 2, 8, 8), 2, output_size=5,
                                       return_indices=True)
    assert tuple(out.shape) == (3, 2, 5, 5) and int(idx.max()) < 64


@pytest.mark.parametrize("make,text", [
    (lambda lib: lib.nn.FractionalMaxPool2d(2), "requires specifying either an output size, or "
     "a pooling ratio"),
    (lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
     "output_ratio must be between 0 and 1"),
    (lambda lib: lib.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
     "only one of output_size and output_ratio may be specified"),
])
def test_module_errors_as_torch(make, text):
    for lib in (torch, ember):
        with pytest.raises(ValueError, match=text):
            make(lib)
