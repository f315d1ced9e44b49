"""The shape and indexing ops of issue 34 (roll ... cross) against PyTorch 1.13: each case runs
the same code with `m` as torch and as ember on the same inputs and compares the results and the
gradients of a weighted sum of them; then bad input raises PyTorch's exception type with its
text, and in-place forms return self."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(34)


def arr(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def idx(high, *shape):
    return RNG.integers(0, high, size=shape).astype(np.int64)


def mask(*shape):
    return RNG.random(shape) < 0.5


def lift(m, x):
    """An input for module m: numpy floats become leaves that require grad, others constants."""
    if isinstance(x, np.ndarray):
        t = m.tensor(x.tolist(), dtype=getattr(m, str(x.dtype)) if x.dtype != bool else m.bool)
        return t.requires_grad_(True) if x.dtype == np.float32 else t
    return x


def outputs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


# name, inputs, f(m, *inputs) with m the module (torch or ember)
CASES = [
    ("masked_select", [arr(3, 4), mask(4)], lambda m, a, b: m.masked_select(a, b)),
    ("masked_select_method", [arr(4), mask(3, 4)], lambda m, a, b: a.masked_select(b)),
    ("roll", [arr(3, 4)], lambda m, a: m.roll(a, (1, -3), (0, 1))),
    ("roll_flat", [arr(3, 4)], lambda m, a: a.roll(5)),
    ("roll_keywords", [arr(3, 4)], lambda m, a: m.roll(a, shifts=2, dims=1)),
    ("repeat_interleave_int", [arr(2, 3)], lambda m, a: m.repeat_interleave(a, 2, dim=1)),
    ("repeat_interleave_flat", [arr(2, 3)], lambda m, a: a.repeat_interleave(3)),
    ("repeat_interleave_tensor", [arr(3, 2)],
     lambda m, a: a.repeat_interleave(m.tensor([1, 0, 2]), dim=0)),
    ("repeat_interleave_output_size", [arr(3, 2)],
     lambda m, a: m.repeat_interleave(a, m.tensor([2, 1, 1]), 0, output_size=4)),
    ("repeat_interleave_counts", [], lambda m: m.repeat_interleave(m.tensor([2, 0, 3]))),
    ("meshgrid_ij", [arr(3), arr(2)], lambda m, a, b: m.meshgrid(a, b, indexing="ij")),
    ("meshgrid_xy_list", [arr(3), arr(2), arr(4)],
     lambda m, a, b, c: m.meshgrid([a, b, c], indexing="xy")),
    ("tile", [arr(2, 3)], lambda m, a: m.tile(a, (2, 1, 2))),
    ("tile_method", [arr(2, 3)], lambda m, a: a.tile(2)),
    ("broadcast_to", [arr(3, 1)], lambda m, a: a.broadcast_to((2, 3, 4))),
    ("broadcast_tensors", [arr(3, 1), arr(4)], lambda m, a, b: m.broadcast_tensors(a, b)),
    ("swapaxes", [arr(2, 3, 4)], lambda m, a: m.swapaxes(a, 0, 2)),
    ("swapdims", [arr(2, 3, 4)], lambda m, a: a.swapdims(1, -1)),
    ("tensor_split_sections", [arr(7, 2)], lambda m, a: m.tensor_split(a, 3)),
    ("tensor_split_indices", [arr(2, 7)], lambda m, a: a.tensor_split([1, 5], dim=1)),
    ("tensor_split_tensor", [arr(7)], lambda m, a: m.tensor_split(a, m.tensor([2, 3]))),
    ("hsplit", [arr(2, 6)], lambda m, a: m.hsplit(a, 3)),
    ("vsplit_indices", [arr(5, 2)], lambda m, a: a.vsplit([1, 3])),
    ("dsplit", [arr(2, 2, 4)], lambda m, a: m.dsplit(a, 2)),
    ("hstack", [arr(3), arr(2)], lambda m, a, b: m.hstack([a, b])),
    ("vstack", [arr(3), arr(2, 3)], lambda m, a, b: m.vstack((a, b))),
    ("dstack", [arr(2, 3), arr(2, 3, 2)], lambda m, a, b: m.dstack([a, b])),
    ("column_stack", [arr(3), arr(3, 2)], lambda m, a, b: m.column_stack([a, b])),
    ("fliplr", [arr(3, 4)], lambda m, a: m.fliplr(a)),
    ("flipud", [arr(3, 4)], lambda m, a: a.flipud()),
    ("rot90", [arr(3, 4, 2)], lambda m, a: m.rot90(a, 3, [1, 2])),
    ("rot90_default", [arr(3, 4)], lambda m, a: a.rot90()),
    ("scatter_src", [arr(3, 5), arr(3, 2)],
     lambda m, a, b: m.scatter(a, 1, m.tensor([[4, 1], [0, 2], [3, 0]]), b)),
    ("scatter_value", [arr(3, 5)],
     lambda m, a: a.scatter(1, m.tensor([[4, 1], [0, 2], [3, 0]]), -2.5)),
    ("scatter_reduce_add", [arr(3, 4), idx(4, 3, 6), arr(3, 6)],
     lambda m, a, b, c: a.detach().scatter(1, b, c.detach(), reduce="add")),
    ("scatter_multiply_value", [arr(4, 3), idx(4, 5, 3)],
     lambda m, a, b: m.scatter(a.detach(), 0, b, 2.0, reduce="multiply")),
    ("index_fill", [arr(3, 5)], lambda m, a: m.index_fill(a, 1, m.tensor([4, 0, -1]), 1.25)),
    ("index_fill_tensor", [arr(4, 3), arr()],
     lambda m, a, b: a.index_fill(0, m.tensor([1, 3]), b)),
    ("index_put", [arr(4, 3), idx(4, 5), arr(5, 3)],
     lambda m, a, b, c: m.index_put(a, (b,), c, accumulate=True)),
    ("index_put_method", [arr(4, 3), arr(2)],
     lambda m, a, b: a.index_put((m.tensor([3, 0]), m.tensor([1, 1])), b)),
    ("take", [arr(3, 4), idx(12, 2, 3)], lambda m, a, b: m.take(a, b)),
    ("take_along_dim", [arr(3, 4), idx(4, 3, 2)], lambda m, a, b: a.take_along_dim(b, dim=1)),
    ("take_along_dim_flat", [arr(3, 4), idx(12, 5)], lambda m, a, b: m.take_along_dim(a, b)),
    ("count_nonzero", [], lambda m: m.count_nonzero(m.tensor([[0, 1, 2], [3, 0, 0]]), dim=1)),
    ("count_nonzero_all", [], lambda m: m.tensor([[0.0, 1.5], [0.0, 0.0]]).count_nonzero()),
    ("count_nonzero_dims", [], lambda m: m.count_nonzero(m.tensor([[[0, 1]], [[2, 3]]]), (0, 2))),
    ("diag_embed", [arr(2, 3)], lambda m, a: m.diag_embed(a, offset=1, dim1=0, dim2=2)),
    ("diag_embed_method", [arr(3)], lambda m, a: a.diag_embed(-1)),
    ("block_diag", [arr(2, 3), arr(), arr(2)], lambda m, a, b, c: m.block_diag(a, b, c)),
    ("cartesian_prod", [arr(3), arr(2)], lambda m, a, b: m.cartesian_prod(a, b)),
    ("combinations", [arr(4)], lambda m, a: m.combinations(a, r=3)),
    ("combinations_replacement", [arr(3)],
     lambda m, a: m.combinations(a, with_replacement=True)),
    ("kron", [arr(2, 3), arr(2)], lambda m, a, b: m.kron(a, b)),
    ("kron_method", [arr(2), arr(3)], lambda m, a, b: a.kron(b)),
    ("tensordot_int", [arr(2, 3, 4), arr(3, 4, 5)], lambda m, a, b: m.tensordot(a, b, dims=2)),
    ("tensordot_lists", [arr(2, 3, 4), arr(4, 3)],
     lambda m, a, b: m.tensordot(a, b, ([1, 2], [1, 0]))),
    ("cross_default_dim", [arr(3, 4), arr(3, 4)], lambda m, a, b: m.cross(a, b)),
    ("cross_dim", [arr(2, 3), arr(2, 3)], lambda m, a, b: a.cross(b, dim=1)),
    ("tril_indices", [], lambda m: m.tril_indices(3, 4, 1)),
    ("triu_indices", [], lambda m: m.triu_indices(4, 3, -1, dtype=m.int32)),
]
for reduce in ["sum", "prod", "mean", "amax", "amin"]:
    for include_self in [True, False]:
        CASES.append((f"scatter_reduce_{reduce}_{include_self}", [arr(3, 4), idx(4, 3, 6), arr(3, 6)],
                      lambda m, a, b, c, r=reduce, s=include_self:
                      m.scatter_reduce(a, 1, b, c, r, include_self=s)))


@pytest.mark.parametrize("name,inputs,f", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch_forward_and_backward(name, inputs, f):
    ts = [lift(torch, x) for x in inputs]
    es = [lift(ember, x) for x in inputs]
    expected, got = outputs(f(torch, *ts)), outputs(f(ember, *es))
    assert len(got) == len(expected)
    loss_t, loss_e = 0, 0
    for g, e in zip(got, expected):
        assert str(g.dtype).replace("ember", "torch") == str(e.dtype), name
        assert tuple(g.shape) == tuple(e.shape), name
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-5, atol=1e-6)
        if e.requires_grad:
            w = RNG.standard_normal(tuple(e.shape)).astype(np.float32)
            loss_t = loss_t + (e * torch.tensor(w)).sum()
            loss_e = loss_e + (g * ember.tensor(w.tolist())).sum()
    if not torch.is_tensor(loss_t):
        return
    loss_t.backward()
    loss_e.backward()
    for t, e in zip(ts, es):
        if torch.is_tensor(t) and t.requires_grad:
            assert e.grad is not None, name
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_in_place_forms_return_self_and_match():
    for m in (torch, ember):
        x = m.zeros(2, 3)
        assert x.scatter_(1, m.tensor([[2], [0]]), 4.0) is x
        assert x.scatter_(1, m.tensor([[1], [1]]), m.ones(2, 1), reduce="add") is x
        assert x.scatter_reduce_(0, m.tensor([[1, 0, 0]]), m.full((1, 3), 9.0), "amin") is x
        assert x.index_fill_(1, m.tensor([0]), -1.0) is x
        assert x.index_put_((m.tensor([0]), m.tensor([2])), m.tensor(7.0), accumulate=True) is x
        if m is torch:
            expected = x
        else:
            np.testing.assert_allclose(x.numpy(), expected.numpy())


# PyTorch's exception type and the start of its message, for each op's bad input.
ERRORS = [
    (lambda m: m.roll(m.ones(2, 3), (1, 2), (0,)), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:1"),
    (lambda m: m.tensor_split(m.ones(4), 0), RuntimeError,
     "number of sections must be larger than 0, got 0"),
    (lambda m: m.hsplit(m.ones(2, 6), 4), RuntimeError,
     "torch.hsplit attempted to split along dimension 1, but the size of the dimension 6 is not "
     "divisible by the split_size 4!"),
    (lambda m: m.rot90(m.ones(2, 3), 1, [0, 0]), RuntimeError,
     "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"),
    (lambda m: m.meshgrid(m.ones(2), indexing="yx"), RuntimeError,
     "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: yx"),
    (lambda m: m.scatter(m.ones(2, 3), 1, m.tensor([[3]]), 1.0), RuntimeError,
     "index 3 is out of bounds for dimension 1 with size 3"),
    (lambda m: m.scatter_reduce(m.ones(2, 3), 1, m.tensor([[1]]), m.ones(1, 1), "max"),
     RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin."),
    (lambda m: m.take(m.ones(2, 3), m.tensor([6])), IndexError,
     "out of range: tried to access index 6 on a tensor of 6 elements."),
    (lambda m: m.index_fill(m.ones(2, 3), 1, m.tensor([1]), m.ones(1)), RuntimeError,
     "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    (lambda m: m.cross(m.ones(3, 2), m.ones(3, 2), dim=1), RuntimeError,
     "linalg.cross: inputs dimension 1 must have length 3. Got 2 and 2"),
    (lambda m: m.tensordot(m.ones(2, 3), m.ones(4, 3), ([1], [0])), RuntimeError,
     "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 4 "
     "in dim 0"),
    (lambda m: m.block_diag(m.ones(2, 2, 2)), RuntimeError,
     "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_bad_input_raises_pytorchs_error(case):
    f, kind, text = ERRORS[case]
    with pytest.raises(kind) as t_err:
        f(torch)
    assert text in str(t_err.value), "the expected text is PyTorch's own"
    with pytest.raises(kind) as e_err:
        f(ember)
    assert text in str(e_err.value)
