"""ember.utils.data against torch.utils.data: datasets, samplers, collate, DataLoader options,
worker threads, and PyTorch's exception types for bad arguments."""
import collections
import threading

import numpy as np
import pytest
import torch

import ember
from ember.utils import data as ed
from torch.utils import data as td


def tensors(lib, n=10):
    return lib.arange(n * 3, dtype=lib.float32).reshape(n, 3), lib.arange(n)


def as_lists(batches):
    out = []
    for b in batches:
        if isinstance(b, (list, tuple)):
            out.append([as_lists([x])[0] for x in b])
        elif isinstance(b, dict):
            out.append({k: as_lists([v])[0] for k, v in b.items()})
        elif hasattr(b, "tolist"):
            out.append((str(b.dtype).split(".")[1], b.tolist()))
        else:
            out.append(b)
    return out


@pytest.mark.parametrize("kw", [dict(batch_size=4), dict(batch_size=4, drop_last=True),
                                dict(batch_size=3, num_workers=2), dict(batch_size=None),
                                dict(batch_size=10), dict(batch_size=4, num_workers=2,
                                                          prefetch_factor=1)])
def test_tensor_dataset_batches_match_pytorch(kw):
    e = ed.DataLoader(ed.TensorDataset(*tensors(ember)), **kw)
    t = td.DataLoader(td.TensorDataset(*tensors(torch)), **kw)
    assert len(e) == len(t)
    assert as_lists(e) == as_lists(t)


def test_tensor_dataset_fast_path_equals_per_sample_collate():
    ds = ed.TensorDataset(*tensors(ember))
    fast = list(ed.DataLoader(ds, batch_size=4))
    slow = list(ed.DataLoader(ds, batch_size=4, collate_fn=lambda b: ed.default_collate(b)))
    assert as_lists(fast) == as_lists(slow)
    sub = ed.Subset(ds, [9, 0, 4, -1])
    got = next(iter(ed.DataLoader(sub, batch_size=4)))
    assert got[1].tolist() == [9, 0, 4, 9]
    assert got[0].tolist() == [ds[i][0].tolist() for i in (9, 0, 4, 9)]


@pytest.mark.parametrize("batch", [
    [1, 2, 3], [1.5, 2.5], [True, False], ["a", "b"], [(1, 2.0), (3, 4.0)], [[1, 2], [3, 4]],
    [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
    [collections.OrderedDict(x=1), collections.OrderedDict(x=2)],
])
def test_default_collate_matches_pytorch(batch):
    e, t = ed.default_collate(batch), td.default_collate(batch)
    assert as_lists([e]) == as_lists([t])
    assert type(e).__name__ == type(t).__name__


def test_default_collate_tensors_numpy_and_namedtuple():
    Point = collections.namedtuple("Point", "x y")
    pts = [Point(1, 2.0), Point(3, 4.0)]
    e, t = ed.default_collate(pts), td.default_collate(pts)
    assert type(e) is Point and as_lists(list(e)) == as_lists(list(t))
    arrays = [np.ones(2, dtype=np.float32), np.zeros(2, dtype=np.float32)]
    assert as_lists([ed.default_collate(arrays)]) == as_lists([td.default_collate(arrays)])
    scalars = [np.float64(1.5), np.float64(2.5)]
    assert as_lists([ed.default_collate(scalars)]) == as_lists([td.default_collate(scalars)])
    stacked = ed.default_collate([ember.ones(2, 3), ember.zeros(2, 3)])
    assert stacked.shape == (2, 2, 3)


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="equal size"):
        ed.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="object"):
        ed.default_collate([object(), object()])


def test_default_convert():
    assert isinstance(ed.default_convert(np.ones(3)), ember.Tensor)
    assert ed.default_convert((1, "a")) == [1, "a"]


class Squares(ed.Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        if not 0 <= i < 7:
            raise IndexError(i)
        return ember.tensor([float(i * i)]), i


def test_python_dataset_and_samplers():
    loader = ed.DataLoader(Squares(), batch_size=3)
    got = [(x.flatten().tolist(), y.tolist()) for x, y in loader]
    assert got == [([0.0, 1.0, 4.0], [0, 1, 2]), ([9.0, 16.0, 25.0], [3, 4, 5]), ([36.0], [6])]
    assert list(ed.SequentialSampler(range(4))) == [0, 1, 2, 3]
    perm = list(ed.RandomSampler(range(20), generator=ember.Generator().manual_seed(3)))
    assert sorted(perm) == list(range(20))
    again = list(ed.RandomSampler(range(20), generator=ember.Generator().manual_seed(3)))
    assert perm == again
    with_repl = list(ed.RandomSampler(range(5), replacement=True, num_samples=30))
    assert len(with_repl) == 30 and set(with_repl) <= set(range(5))
    batches = list(ed.BatchSampler(range(10), 4, drop_last=False))
    assert batches == list(td.BatchSampler(range(10), 4, drop_last=False))
    assert len(ed.BatchSampler(range(10), 4, True)) == 2
    assert sorted(ed.SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    w = list(ed.WeightedRandomSampler([0.0, 1.0, 0.0], 5))
    assert w == [1] * 5
    assert sorted(ed.WeightedRandomSampler([1.0, 2.0, 3.0], 3, replacement=False)) == [0, 1, 2]


def test_shuffle_is_a_permutation_and_follows_manual_seed():
    ds = ed.TensorDataset(*tensors(ember, 30))
    ember.manual_seed(0)
    first = torch.cat([torch.tensor(y.tolist()) for _, y in ed.DataLoader(ds, 7, shuffle=True)])
    ember.manual_seed(0)
    second = torch.cat([torch.tensor(y.tolist()) for _, y in ed.DataLoader(ds, 7, shuffle=True)])
    assert sorted(first.tolist()) == list(range(30))
    assert first.tolist() == second.tolist()
    assert first.tolist() != list(range(30))


def test_random_split():
    ds = ed.TensorDataset(*tensors(ember, 10))
    parts = ed.random_split(ds, [7, 3], generator=ember.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [7, 3]
    idx = sorted(parts[0].indices + parts[1].indices)
    assert idx == list(range(10))
    assert [len(p) for p in ed.random_split(ds, [0.5, 0.3, 0.2])] == \
        [len(p) for p in td.random_split(range(10), [0.5, 0.3, 0.2])]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        ed.random_split(ds, [5, 4])
    with pytest.raises(TypeError, match="Generator"):
        ed.random_split(ds, [5, 5], generator=42)


def test_subset_concat_and_add():
    a, b = ed.TensorDataset(*tensors(ember, 3)), ed.TensorDataset(*tensors(ember, 2))
    both = a + b
    assert len(both) == 5 and both[4][1].item() == 1 and both[-1][1].item() == 1
    assert ed.Subset(a, [2, 0])[0][1].item() == 2


def stream_class(data):
    class Stream(data.IterableDataset):
        """0..n-1, shared out between the workers by get_worker_info()."""

        def __init__(self, n):
            self.n = n

        def __iter__(self):
            info = data.get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, self.n, step))

        def __len__(self):
            return self.n

    return Stream


Stream, TorchStream = stream_class(ed), stream_class(td)


def test_iterable_dataset_inline_and_threads_match_pytorch():
    for kw in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
               dict(batch_size=2, num_workers=2)):
        e = [b.tolist() if hasattr(b, "tolist") else b for b in ed.DataLoader(Stream(10), **kw)]
        t = [b.tolist() if hasattr(b, "tolist") else b for b in td.DataLoader(TorchStream(10), **kw)]
        assert e == t, kw
    assert len(ed.DataLoader(Stream(10), batch_size=3)) == 4


def test_worker_threads_run_init_fn_and_report_worker_info():
    seen, lock = set(), threading.Lock()

    def init(worker_id):
        with lock:
            seen.add((worker_id, ed.get_worker_info().num_workers))

    class Who(ed.Dataset):
        def __len__(self):
            return 12

        def __getitem__(self, i):
            return ed.get_worker_info().id

    ids = ember.cat(list(ed.DataLoader(Who(), batch_size=2, num_workers=3, worker_init_fn=init)))
    assert set(ids.tolist()) <= {0, 1, 2}
    assert {w for w, _ in seen} <= {0, 1, 2} and all(n == 3 for _, n in seen)
    assert ed.get_worker_info() is None


def test_worker_exception_reaches_the_main_thread_with_its_type():
    class Bad(ed.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise KeyError(f"bad index {i}")
            return i

    for workers in (0, 2):
        with pytest.raises(KeyError, match="bad index 2"):
            list(ed.DataLoader(Bad(), batch_size=1, num_workers=workers))


def test_persistent_workers_reuse_the_pool_and_early_exit_is_clean():
    ds = ed.TensorDataset(*tensors(ember, 40))
    loader = ed.DataLoader(ds, batch_size=4, num_workers=2, persistent_workers=True)
    assert sum(1 for _ in loader) == 10
    pool = loader._pool
    it = iter(loader)
    next(it)
    it.close()
    assert sum(1 for _ in loader) == 10 and loader._pool is pool
    assert len(iter(loader)) == 10


def test_pin_memory_and_collate_fn():
    ds = ed.TensorDataset(*tensors(ember, 6))
    loader = ed.DataLoader(ds, batch_size=3, pin_memory=True, collate_fn=lambda b: len(b))
    assert list(loader) == [3, 3]
    batch = next(iter(ed.DataLoader(ds, batch_size=3, pin_memory=True)))
    assert batch[0].is_pinned() == ember.cuda.is_available()


@pytest.mark.parametrize("kw,match", [
    (dict(num_workers=-1), "num_workers"),
    (dict(timeout=-1), "timeout"),
    (dict(prefetch_factor=4), "prefetch_factor"),
    (dict(persistent_workers=True), "persistent_workers"),
    (dict(sampler=[0, 1], shuffle=True), "mutually exclusive"),
    (dict(batch_sampler=[[0]], batch_size=2), "mutually exclusive"),
    (dict(batch_size=None, drop_last=True), "mutually exclusive"),
    (dict(batch_size=0), "positive integer"),
])
def test_bad_loader_arguments_raise_valueerror_as_pytorch(kw, match):
    with pytest.raises(ValueError, match=match):
        ed.DataLoader(ed.TensorDataset(*tensors(ember)), **kw)
    with pytest.raises(ValueError):
        td.DataLoader(td.TensorDataset(*tensors(torch)), **kw)


def test_bad_dataset_arguments():
    with pytest.raises(AssertionError, match="Size mismatch"):
        ed.TensorDataset(ember.ones(3), ember.ones(4))
    with pytest.raises(TypeError, match="tensors"):
        ed.TensorDataset([1, 2])
    with pytest.raises(ValueError, match="shuffle"):
        ed.DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="num_samples"):
        ed.RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError):
        len(ed.DataLoader(type("NoLen", (ed.IterableDataset,), {"__iter__": lambda s: iter(())})()))
    with pytest.raises(IndexError, match="out of bounds"):
        next(iter(ed.DataLoader(ed.TensorDataset(ember.ones(3)), batch_sampler=[[5]])))
    with pytest.raises(NotImplementedError):
        ed.Dataset()[0]


def test_index_select_and_randperm_bindings():
    t = ember.arange(12).reshape(4, 3)
    idx = ember.tensor([3, 0])
    assert t.index_select(0, idx).tolist() == [[9, 10, 11], [0, 1, 2]]
    assert ember.index_select(t, 1, ember.tensor([2])).tolist() == [[2], [5], [8], [11]]
    assert sorted(ember.randperm(9).tolist()) == list(range(9))
    assert ember.randperm(3).dtype == ember.int64
    with pytest.raises(RuntimeError, match="non-negative"):  # as torch.randperm(-1)
        ember.randperm(-1)
