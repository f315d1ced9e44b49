"""The "training became slower after .cuda()" doctor from Python: ember::cuda::TransferAudit
(include/ember/cuda.h) as a context manager. It counts, per step, the copies between host and
device (direction, bytes, pageable or pinned), the host syncs and their wait, kernel launches and
CPU ops, and ends its report with findings and their fixes. It counts; it does not name the line
of each copy: set_sync_debug_mode("error") turns each implicit sync into a RuntimeError whose
Python traceback names the line, and "warn" prints each one (with the C++ frames) on stderr."""
from .._C import _cuda


class TransferAudit:
    """with ember.cuda.transfer_audit() as audit: ...; audit.step() at the end of each training
    step; audit.report() (text), audit.stats() (a dict of totals), audit.findings() (a list)."""

    def __init__(self):
        self._native = None
        self._closed = None

    def __enter__(self):
        if self._native is not None:
            raise RuntimeError("transfer_audit: already open")
        self._native = _cuda._TransferAudit()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        # Keep the results readable after the block: freeze them before closing the audit.
        self._closed = (self._native.stats(), self._native.findings(), self._native.report())
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


def transfer_audit():
    """A TransferAudit to open with `with`."""
    return TransferAudit()
