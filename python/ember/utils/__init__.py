"""ember.utils: data loading (ember.utils.data) and DLPack exchange (ember.utils.dlpack)."""
from . import data, dlpack  # noqa: F401
