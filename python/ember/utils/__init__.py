"""ember.utils: data loading (ember.utils.data), DLPack exchange (ember.utils.dlpack), C++
extensions (ember.utils.cpp_extension) and activation checkpointing (ember.utils.checkpoint)."""
from . import checkpoint, cpp_extension, data, dlpack  # noqa: F401
