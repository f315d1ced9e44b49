"""The "training became slower after .cuda()" doctor from Python: ember::cuda::TransferAudit
(include/ember/cuda.h) as a context manager. It counts, per step, the copies between host and
device (direction, bytes, pageable or pinned), the host syncs and their wait, kernel launches and
CPU ops, and ends its report with findings and their fixes. Each copy between host and device
and each host sync is also noted with the user's Python file:line (the innermost frame outside
the ember package): events() lists them, and report() counts them by line."""
import os

from .._C import _cuda

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TransferAudit:
    """with ember.cuda.transfer_audit() as audit: ...; audit.step() at the end of each training
    step; audit.report() (text), audit.stats() (a dict of totals), audit.findings() (a list)."""

    def __init__(self):
        self._native = None
        self._closed = None

    def __enter__(self):
        if self._native is not None:
            raise RuntimeError("transfer_audit: already open")
        _cuda._enable_audit_locations(_PACKAGE_DIR)
        self._native = _cuda._TransferAudit()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        # Keep the results readable after the block: freeze them before closing the audit.
        self._closed = (self._native.stats(), self._native.findings(), self._native.report(),
                        self._native.events())
        self._native = None
        return False

    def _check(self, what):
        if self._native is None and self._closed is None:
            raise RuntimeError(f"transfer_audit.{what}(): the audit was never opened")

    def step(self):
        self._check("step")
        if self._native is None:
            raise RuntimeError("transfer_audit.step(): the audit is closed")
        self._native.step()

    def stats(self):
        self._check("stats")
        return self._native.stats() if self._native is not None else dict(self._closed[0])

    def findings(self):
        self._check("findings")
        return self._native.findings() if self._native is not None else list(self._closed[1])

    def report(self):
        self._check("report")
        return self._native.report() if self._native is not None else self._closed[2]


    def events(self):
        """Each copy between host and device and each host sync, in order: dicts with "kind"
        ("host->device copy", "device->host copy", "device->device copy", "implicit sync",
        "explicit sync"), "location" ("/path/prog.py:12", the user's line) and "bytes"."""
        self._check("events")
        return self._native.events() if self._native is not None else list(self._closed[3])


def transfer_audit():
    """A TransferAudit to open with `with`."""
    return TransferAudit()
