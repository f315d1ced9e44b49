"""ember.utils: data loading (ember.utils.data), DLPack exchange (ember.utils.dlpack) and C++
extensions (ember.utils.cpp_extension)."""
from . import cpp_extension, data, dlpack  # noqa: F401
