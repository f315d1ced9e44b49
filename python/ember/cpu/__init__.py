"""ember.cpu: holds ember.cpu.amp, as torch.cpu does."""
from . import amp  # noqa: F401
