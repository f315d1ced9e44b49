"""ember.autograd.profiler: torch.autograd.profiler's record_function (the same class as
ember.profiler.record_function)."""
from ..profiler import record_function  # noqa: F401
