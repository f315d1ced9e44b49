"""ember.amp: mixed precision (docs/python.md, "Mixed precision, the profiler and the doctor")."""
from .autocast_mode import autocast  # noqa: F401
from .grad_scaler import GradScaler, OptState  # noqa: F401
