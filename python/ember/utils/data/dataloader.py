"""DataLoader: batches of a dataset, in order, optionally fetched by worker threads.

Workers are threads, not processes (docs/python.md): ember's ops release the GIL, so batches
made of tensor ops overlap, and no fork of a process holding a thread pool or a CUDA context is
needed. Every wait of the main thread (a future or a queue) releases the GIL."""
import collections
import concurrent.futures
import itertools
import queue
import threading

from ... import _C
from ._collate import default_collate, default_convert
from ._fetch import IterableFetcher, MapFetcher
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

_local = threading.local()
WorkerInfo = collections.namedtuple("WorkerInfo", "id num_workers seed dataset")


def get_worker_info():
    """In a worker thread: its WorkerInfo(id, num_workers, seed, dataset); elsewhere None."""
    return getattr(_local, "info", None)


def _pin(data):
    if isinstance(data, _C.Tensor):
        return data.pin_memory() if data.is_cpu else data
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        return type(data)({k: _pin(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin(v) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin(v) for v in data)
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=2, persistent_workers=False, pin_memory_device=""):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"num_workers option should be non-negative; use num_workers=0 to "
                             f"disable multiprocessing (got num_workers={num_workers})")
        if timeout < 0:
            raise ValueError(f"timeout option should be non-negative, got timeout={timeout}")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing "
                             f"(got prefetch_factor={prefetch_factor}, num_workers=0)")
        if prefetch_factor is not None and prefetch_factor < 1:
            raise ValueError(f"prefetch_factor option should be positive, got {prefetch_factor}")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            raise ValueError("ember's DataLoader workers are threads: multiprocessing_context "
                             f"is not used (got {multiprocessing_context!r})")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.persistent_workers = persistent_workers
        self._pool = None
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        if self._iterable:
            return self.batch_size is not None
        return self.batch_sampler is not None

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)  # TypeError when the dataset has no length, as in PyTorch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self._auto_collation else self.sampler)

    def __iter__(self):
        return _LoaderIter(self)

    # ---- worker threads ----
    def _worker_seed(self):
        if self.generator is not None:
            return self.generator._random.getrandbits(62)
        return int(_C.randint(0, 2**62, (1,)).item())

    def _start_worker(self, worker_id, seed):
        _local.info = WorkerInfo(worker_id, self.num_workers, seed + worker_id, self.dataset)
        if self.worker_init_fn is not None:
            self.worker_init_fn(worker_id)

    def _thread_pool(self):
        if self._pool is not None:
            return self._pool
        ids = itertools.count()
        lock = threading.Lock()
        seed = self._worker_seed()

        def init():
            with lock:
                worker_id = next(ids)
            self._start_worker(worker_id, seed)

        pool = concurrent.futures.ThreadPoolExecutor(
            self.num_workers, thread_name_prefix="ember-dataloader", initializer=init)
        if self.persistent_workers:
            self._pool = pool
        return pool

    def __del__(self):
        if getattr(self, "_pool", None) is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


class _LoaderIter:
    """One epoch: next() gives the next batch; len() the number of batches."""

    def __init__(self, loader):
        self._loader = loader
        self._pin = loader.pin_memory and _C._cuda.is_available()
        self._len = None
        if loader._iterable:
            gen = self._iterable_threads() if loader.num_workers else self._iterable_inline()
        else:
            gen = self._map_threads() if loader.num_workers else self._map_inline()
        self._gen = gen

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._gen)

    def __len__(self):
        return len(self._loader)

    def close(self):
        self._gen.close()

    def __del__(self):
        gen = getattr(self, "_gen", None)
        if gen is not None:
            gen.close()

    def _finish(self, batch):
        return _pin(batch) if self._pin else batch

    def _indices(self):
        ld = self._loader
        return iter(ld.batch_sampler if ld._auto_collation else ld.sampler)

    def _map_inline(self):
        ld = self._loader
        fetcher = MapFetcher(ld.dataset, ld._auto_collation, ld.collate_fn)
        for index in self._indices():
            yield self._finish(fetcher.fetch(index))

    def _map_threads(self):
        ld = self._loader
        fetcher = MapFetcher(ld.dataset, ld._auto_collation, ld.collate_fn)
        pool = ld._thread_pool()
        window = ld.num_workers * ld.prefetch_factor
        pending = collections.deque()
        indices = self._indices()
        work = (lambda index: self._finish(fetcher.fetch(index)))
        try:
            for index in itertools.islice(indices, window):
                pending.append(pool.submit(work, index))
            while pending:
                future = pending.popleft()
                batch = self._result(future)
                for index in itertools.islice(indices, 1):
                    pending.append(pool.submit(work, index))
                yield batch
        finally:
            for f in pending:
                f.cancel()
            if pool is not ld._pool:
                pool.shutdown(wait=False, cancel_futures=True)

    def _result(self, future):
        timeout = self._loader.timeout or None
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None

    def _iterable_inline(self):
        ld = self._loader
        fetcher = IterableFetcher(iter(ld.dataset), ld._auto_collation, ld.collate_fn,
                                  ld.batch_size, ld.drop_last)
        while True:
            try:
                batch = fetcher.fetch()
            except StopIteration:
                return
            yield self._finish(batch)

    def _iterable_threads(self):
        """Each worker thread iterates the dataset (shard with get_worker_info()); batches are
        taken from the workers in turn, as PyTorch's worker processes are."""
        ld = self._loader
        stop = threading.Event()
        queues = [queue.Queue(maxsize=ld.prefetch_factor) for _ in range(ld.num_workers)]
        seed = ld._worker_seed()
        done = object()

        def put(q, item):
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def run(worker_id, q):
            try:
                ld._start_worker(worker_id, seed)
                fetcher = IterableFetcher(iter(ld.dataset), ld._auto_collation, ld.collate_fn,
                                          ld.batch_size, ld.drop_last)
                while not stop.is_set():
                    try:
                        batch = self._finish(fetcher.fetch())
                    except StopIteration:
                        break
                    if not put(q, (True, batch)):
                        return
                put(q, (True, done))
            except BaseException as e:  # noqa: BLE001  re-raised in the main thread
                put(q, (False, e))

        threads = [threading.Thread(target=run, args=(i, q), daemon=True,
                                    name=f"ember-dataloader-{i}") for i, q in enumerate(queues)]
        for t in threads:
            t.start()
        timeout = ld.timeout or None
        try:
            active = list(range(ld.num_workers))
            while active:
                for w in list(active):
                    try:
                        ok, item = queues[w].get(timeout=timeout)
                    except queue.Empty:
                        raise RuntimeError(
                            f"DataLoader timed out after {timeout} seconds") from None
                    if not ok:
                        raise item
                    if item is done:
                        active.remove(w)
                        continue
                    yield item
        finally:
            stop.set()
