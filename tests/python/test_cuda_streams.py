"""ember.cuda streams, events and the stream/device context managers. On a CPU build they raise
RuntimeError saying CUDA is not available; on the SIM build (two simulated devices) they run."""
import pytest

import ember

cuda = ember.cuda


def test_without_cuda_streams_raise_and_null_contexts_work():
    with cuda.stream(None) as s:
        assert s is None
    with cuda.device(-1), cuda.device(None), cuda.device_of(ember.ones(1)):
        pass
    with pytest.raises(TypeError, match="Stream or None"):
        cuda.stream("s0")
    if cuda.is_available():
        return
    for make in (cuda.Stream, cuda.current_stream, cuda.default_stream,
                 lambda: cuda.Event().record(), lambda: cuda.device(0).__enter__()):
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            make()




def cuda_or_unavailable(test):
    """Runs `test` where CUDA (or SIM) is available; elsewhere asserts the calls it makes raise
    RuntimeError, as torch.cuda's do on a CPU-only build."""
    def run():
        if cuda.is_available():
            test()
        else:
            with pytest.raises(RuntimeError, match="CUDA is not available"):
                test()
    run.__name__ = test.__name__
    return run


@cuda_or_unavailable
def test_streams():
    s = cuda.Stream()
    assert s.device == ember.device("cuda", 0) and s.priority == 0
    assert s != cuda.default_stream() and cuda.current_stream() == cuda.default_stream()
    assert cuda.default_stream().cuda_stream == 0
    assert "ember.cuda.Stream device=cuda:0" in repr(s)
    with cuda.stream(s) as entered:
        assert entered is s and cuda.current_stream() == s
        x = ember.ones(64, 64, device="cuda") * 3
    assert cuda.current_stream() == cuda.default_stream()
    cuda.current_stream().wait_stream(s)
    s.synchronize()
    assert s.query() and x.sum().item() == 3 * 64 * 64
    hi = cuda.Stream(priority=-1)
    assert hi.priority <= 0 and len({s, hi, cuda.Stream(device=1)}) == 3
    with pytest.raises(TypeError, match="priority"):
        cuda.Stream(priority="high")


@cuda_or_unavailable
def test_events():
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    assert "uninitialized" in repr(start) and start.query()
    start.record()
    y = ember.ones(128, 128, device="cuda") @ ember.ones(128, 128, device="cuda")
    end.record()
    end.synchronize()
    assert end.query() and isinstance(start.elapsed_time(end), float)
    assert start.elapsed_time(end) >= 0 and y[0, 0].item() == 128
    s = cuda.Stream()
    ev = s.record_event()
    cuda.current_stream().wait_event(ev)
    ev.wait(cuda.current_stream())
    with pytest.raises(TypeError, match="Event"):
        start.elapsed_time(3)
    plain_a, plain_b = cuda.Event(), cuda.Event()
    plain_a.record()
    plain_b.record()
    plain_b.synchronize()
    with pytest.raises(RuntimeError, match="enable_timing"):
        plain_a.elapsed_time(plain_b)  # no enable_timing: RuntimeError, as PyTorch
    with pytest.raises(NotImplementedError, match="interprocess"):
        cuda.Event(interprocess=True)


@cuda_or_unavailable
def test_device_context_managers():
    assert cuda.current_device() == 0
    with cuda.device(1):
        assert cuda.current_device() == 1
        assert ember.ones(1, device="cuda").device == ember.device("cuda:1")
        with cuda.device("cuda:0"):
            assert cuda.current_device() == 0
        assert cuda.current_device() == 1
    assert cuda.current_device() == 0
    t = ember.ones(1, device="cuda:1")
    with cuda.device_of(t):
        assert cuda.current_device() == 1
    s1 = cuda.Stream(device=1)
    with cuda.stream(s1):
        assert cuda.current_device() == 1 and cuda.current_stream() == s1
    assert cuda.current_device() == 0 and cuda.current_stream(1) == cuda.default_stream(1)
    with pytest.raises(ValueError, match="Expected a cuda device"):
        cuda.device("cpu")
