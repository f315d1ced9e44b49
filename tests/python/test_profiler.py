"""ember.profiler over the C++ profiler: ops called from Python recorded by their C++ front ends,
record_function as context manager and decorator (nesting kept), steps, key averages and their
table, the Chrome trace, and the errors."""
import json

import pytest

import ember
from ember.profiler import ProfilerActivity, profile, record_function


def run_model():
    x = ember.ones(4, 3, requires_grad=True)
    w = ember.ones(3, 2)
    with record_function("outer"):
        with record_function("inner"):
            y = (x @ w).relu()
    y.sum().backward()


def test_ops_and_ranges_are_recorded_with_nesting():
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        run_model()
    events = prof.events()
    by_name = {e.name: e for e in events}
    assert {"ember::mm", "ember::relu", "outer", "inner"} <= set(by_name)
    assert by_name["inner"].parent == by_name["outer"].id
    assert by_name["outer"].kind == "user_annotation" and by_name["ember::mm"].kind == "op"
    forward_mm = [e for e in events if e.name == "ember::mm" and e.parent == by_name["inner"].id]
    assert len(forward_mm) == 1
    assert [s[-2:] for s in forward_mm[0].input_shapes] == [[4, 3], [3, 2]]
    assert forward_mm[0].device == "cpu"
    assert all(e.end_us >= e.start_us for e in events)


def test_decorator_step_and_key_averages():
    @record_function("decorated")
    def f(x):
        return x * 2

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            f(ember.ones(2))
            prof.step()
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["decorated"].count == 3
    assert rows["ember::mul"].count == 3
    assert "ProfilerStep#1" in rows
    assert rows["decorated"].cpu_time_total >= 0
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=2)
    assert "decorated" in prof.key_averages().table() and "Name" in table
    assert str(prof.key_averages()) == prof.key_averages().table()
    with pytest.raises(RuntimeError):  # C++ ValueError: an unknown column
        prof.key_averages().table(sort_by="no_such_column")


def test_chrome_trace_parses(tmp_path):
    path = tmp_path / "trace.json"
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        run_model()
    prof.export_chrome_trace(path)
    trace = json.loads(path.read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    names = {e.get("name") for e in events}
    assert {"ember::mm", "outer", "inner"} <= names


def test_autograd_profiler_alias_and_activities():
    assert ember.autograd.profiler.record_function is record_function
    assert ProfilerActivity.CPU in ember.profiler.supported_activities()
    assert (ProfilerActivity.CUDA in ember.profiler.supported_activities()) == \
        ember.cuda.is_available()
    assert repr(ProfilerActivity.CUDA) == "ProfilerActivity.CUDA"


def test_on_trace_ready_and_start_stop():
    seen = []
    prof = profile(activities=[ProfilerActivity.CPU], on_trace_ready=seen.append)
    prof.start()
    ember.ones(2) + 1
    prof.stop()
    prof.stop()  # idempotent
    assert seen == [prof]
    assert "ember::add" in {e.name for e in prof.events()}


def test_errors():
    with pytest.raises(TypeError):
        profile(activities=["cpu"])
    with pytest.raises(TypeError):
        record_function(3)
    prof = profile(activities=[ProfilerActivity.CPU])
    with pytest.raises(RuntimeError):
        prof.key_averages()
    with pytest.raises(RuntimeError):
        prof.stop()
    with profile(activities=[ProfilerActivity.CPU]):
        with pytest.raises(RuntimeError):  # one profile records at a time
            with profile(activities=[ProfilerActivity.CPU]):
                pass
    with pytest.warns(UserWarning):
        profile(activities=[ProfilerActivity.CPU], with_stack=True)


def test_record_function_without_profile_is_harmless():
    with record_function("nothing"):
        y = ember.ones(2) * 3
    assert y.tolist() == [3.0, 3.0]
    assert ember._C._profiler.is_enabled() is False
