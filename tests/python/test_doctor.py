"""The doctor from Python: ember.cuda.set_sync_debug_mode / get_sync_debug_mode and the transfer
audit (ember::cuda::TransferAudit) as a context manager. On a CUDA (SIM) build the audit counts
the host-device copies and syncs and "error" mode turns an implicit sync into a RuntimeError
whose traceback names the Python line."""
import pytest

import ember


@pytest.fixture(autouse=True)
def default_mode():
    yield
    ember.cuda.set_sync_debug_mode(0)


def test_sync_debug_mode_values():
    for value, expected in [(1, 1), (2, 2), (0, 0), ("warn", 1), ("error", 2), ("default", 0)]:
        ember.cuda.set_sync_debug_mode(value)
        assert ember.cuda.get_sync_debug_mode() == expected


def test_sync_debug_mode_bad_values():
    with pytest.raises(RuntimeError):
        ember.cuda.set_sync_debug_mode("loud")
    with pytest.raises(RuntimeError):
        ember.cuda.set_sync_debug_mode(3)
    with pytest.raises(TypeError):
        ember.cuda.set_sync_debug_mode(1.5)
    assert ember.cuda.get_sync_debug_mode() == 0


def test_transfer_audit_counts_steps_and_reports():
    with ember.cuda.transfer_audit() as audit:
        for _ in range(2):
            (ember.ones(8) * 2).sum()
            audit.step()
        live = audit.stats()
    assert live["steps"] == 2
    assert audit.stats() == live  # readable after the block
    assert isinstance(audit.report(), str) and audit.report()
    assert isinstance(audit.findings(), list)
    with pytest.raises(RuntimeError):
        audit.step()  # closed
    with pytest.raises(RuntimeError):
        ember.cuda.TransferAudit().report()  # never opened


@pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a CUDA (or SIM) device")
def test_audit_counts_copies_and_error_mode_names_the_line():
    with ember.cuda.transfer_audit() as audit:
        x = ember.ones(256).cuda()
        x.sum().item()
        audit.step()
    s = audit.stats()
    assert s["h2d_pageable"] + s["h2d_pinned"] >= 1 and s["h2d_bytes"] >= 1024
    assert s["d2h_small"] >= 1 and s["implicit_syncs"] >= 1
    ember.cuda.set_sync_debug_mode("error")
    with pytest.raises(RuntimeError) as info:
        x.sum().item()
    assert info.traceback[-1].path.name == "test_doctor.py"
