"""The transfer audit names the user's Python file:line of each host-device copy and sync: the
C++ audit asks the bindings' location hook, which reads the innermost Python frame outside the
ember package (so calls through ember's own Python, such as ember.tensor, name the caller)."""
import sys
import threading

import pytest

import ember

needs_cuda = pytest.mark.skipif(not ember.cuda.is_available(), reason="no CUDA device")


def here():
    return f"{__file__}:{sys._getframe(1).f_lineno}"


def kinds_at(events, location):
    return sorted(e["kind"] for e in events if e["location"] == location)


@needs_cuda
def test_item_and_cpu_are_reported_at_their_lines():
    x = ember.ones(4, device="cuda")
    with ember.cuda.transfer_audit() as audit:
        loss = (x * 2).sum().item(); item_line = here()  # noqa: E702
        host = x.cpu(); cpu_line = here()  # noqa: E702
        back = ember.tensor([1.0, 2.0], device="cuda"); h2d_line = here()  # noqa: E702
        audit.step()
    assert loss == 8.0 and host.tolist() == [1.0] * 4 and back.is_cuda
    events = audit.events()  # readable after the block
    assert kinds_at(events, item_line) == ["device->host copy", "implicit sync"]
    assert kinds_at(events, cpu_line) == ["device->host copy", "implicit sync"]
    assert "host->device copy" in kinds_at(events, h2d_line)
    assert all(e["location"] for e in events), events
    d2h = [e for e in events if e["kind"] == "device->host copy"]
    assert [e["bytes"] for e in d2h] == [4, 16]
    report = audit.report()
    name = "test_audit_locations.py:" + item_line.rsplit(":", 1)[1]
    assert name in report, report
    assert "1 device->host copy (4 bytes), 1 implicit sync" in report


@needs_cuda
def test_each_thread_reports_its_own_line():
    x = ember.ones(2, device="cuda")
    lines = {}

    def work():
        x.sum().item(); lines["thread"] = here()  # noqa: E702

    with ember.cuda.transfer_audit() as audit:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    assert kinds_at(audit.events(), lines["thread"]) == ["device->host copy", "implicit sync"]


@needs_cuda
def test_events_are_per_audit():
    x = ember.ones(2, device="cuda")
    x.cpu()  # before the audit: not listed
    with ember.cuda.transfer_audit() as audit:
        pass
    assert audit.events() == []
    with ember.cuda.transfer_audit() as outer:
        x.cpu()
        with ember.cuda.transfer_audit() as inner:
            x.cpu(); inner_line = here()  # noqa: E702
    assert len(outer.events()) == 4
    assert [e["location"] for e in inner.events()] == [inner_line, inner_line]


def test_cpu_work_records_no_events():
    with ember.cuda.transfer_audit() as audit:
        ember.ones(3).sum().item()
    assert audit.events() == []
    assert "Where" not in audit.report()
