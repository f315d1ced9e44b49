"""The GIL is released in Ember's ops: two Python threads running large matmuls overlap, and a
Python thread keeps running while another is inside an op."""
import threading
import time

import pytest

import ember


def test_two_threads_running_matmuls_overlap_in_time():
    # Each thread notes when each of its matmuls began and ended. Were the GIL held inside the
    # op, the other thread could not even read the clock between one thread's two notes, so no
    # two intervals of different threads could intersect. Released, they intersect whether the
    # machine runs the threads in parallel or interleaves them (a wall-time speed-up would depend
    # on a free second core).
    a = ember.ones(384, 384)
    intervals = {0: [], 1: []}
    go = threading.Barrier(2)

    def work(k):
        go.wait()
        for _ in range(20):
            t0 = time.perf_counter()
            a.matmul(a)
            intervals[k].append((t0, time.perf_counter()))

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    overlapping = sum(1 for s0, e0 in intervals[0] for s1, e1 in intervals[1]
                      if s0 < e1 and s1 < e0)
    assert overlapping >= 1, f"no matmul of one thread ran while the other's did: {intervals}"


def test_a_thread_waiting_in_an_op_lets_python_run():
    # One long matmul: were the GIL held for it, the ticking thread could not run until it
    # returned (it could only between calls), so every tick below was made during the op.
    done = threading.Event()
    ticks = []

    def python_work():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    a = ember.ones(1536, 1536)
    t = threading.Thread(target=python_work)
    t.start()
    time.sleep(0.01)
    start = time.perf_counter()
    a.matmul(a)
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    assert len(during) >= 3, f"{len(during)} ticks during a {1000 * (end - start):.1f} ms matmul"


def test_set_num_threads_as_torch():
    # torch.set_num_threads / get_num_threads: the CPU's intra-op threads, process-wide.
    saved = ember.get_num_threads()
    assert isinstance(saved, int) and saved >= 1
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        seen = []
        t = threading.Thread(target=lambda: seen.append(ember.get_num_threads()))
        t.start()
        t.join()
        assert seen == [1]
        a = ember.ones(64, 64)
        assert ember.equal(a @ a, ember.full((64, 64), 64.0))
        with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
            ember.set_num_threads(0)
        with pytest.raises(RuntimeError, match="set_num_threads expects an int, but got float"):
            ember.set_num_threads(1.5)
    finally:
        ember.set_num_threads(saved)
    assert ember.get_num_threads() == saved
