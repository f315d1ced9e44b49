"""ember.backends: torch.backends' switches (cuda.matmul.allow_tf32, cudnn.benchmark, ...) and
what each backend library reports. docs/backends.md says what every flag does in Ember."""
from . import cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401
