"""ember.cuda.amp.custom_fwd / custom_bwd and ember.utils.data.ChainDataset against PyTorch 1.13:
the autocast state a custom Function's forward and backward see, the inputs cast_inputs casts (on
the SIM build's devices; without CUDA autocast("cuda") is off and both are no-ops, as PyTorch's),
and the chained iteration, length and errors."""
import pytest
import torch
import torch.utils.data

import ember


def make_function(lib, seen, cast_inputs=None):
    amp = lib.cuda.amp

    class Scale(lib.autograd.Function):
        @staticmethod
        @amp.custom_fwd(cast_inputs=cast_inputs)
        def forward(ctx, x):
            seen.append(("forward", lib.is_autocast_enabled(), x.dtype))
            return x * 2

        @staticmethod
        @amp.custom_bwd
        def backward(ctx, grad):
            seen.append(("backward", lib.is_autocast_enabled()))
            return grad * 2

    return Scale


def run(lib, cast_inputs, device):
    seen = []
    f = make_function(lib, seen, cast_inputs)
    x = lib.ones(3, device=device, requires_grad=True)
    with lib.cuda.amp.autocast():
        y = f.apply(x)
    y.sum().backward()
    return seen, x.grad.tolist()


@pytest.mark.parametrize("cast_inputs", [None, "float16"])
def test_custom_fwd_and_bwd(cast_inputs):
    if ember.cuda.is_available():
        seen, grad = run(ember, cast_inputs and ember.float16, "cuda")
        if cast_inputs is None:
            assert seen == [("forward", True, ember.float32), ("backward", True)]
        else:
            assert seen == [("forward", False, ember.float16), ("backward", False)]
        assert grad == [2.0, 2.0, 2.0]
        return
    # Without CUDA, autocast("cuda") is disabled: the forward sees no autocast and no cast.
    with pytest.warns(UserWarning):
        seen, grad = run(ember, cast_inputs and ember.float16, "cpu")
    with pytest.warns(UserWarning):
        t_seen, t_grad = run(torch, cast_inputs and torch.float16, "cpu")
    assert [s[:2] for s in seen] == [s[:2] for s in t_seen]
    assert grad == t_grad


class Numbers(ember.utils.data.IterableDataset):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


class TorchNumbers(torch.utils.data.IterableDataset):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


def test_chain_dataset_matches_torch():
    ours = ember.utils.data.ChainDataset([Numbers(0, 3), Numbers(10, 12)])
    theirs = torch.utils.data.ChainDataset([TorchNumbers(0, 3), TorchNumbers(10, 12)])
    assert list(ours) == list(theirs) == [0, 1, 2, 10, 11]
    assert len(ours) == len(theirs) == 5
    loader = ember.utils.data.DataLoader(ours, batch_size=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 10], [11]]


def test_chain_dataset_refuses_map_style_members_as_torch():
    ours = ember.utils.data.ChainDataset([Numbers(0, 1), ember.utils.data.TensorDataset(
        ember.ones(2))])
    theirs = torch.utils.data.ChainDataset([TorchNumbers(0, 1), torch.utils.data.TensorDataset(
        torch.ones(2))])
    for d in (ours, theirs):
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            list(d)
