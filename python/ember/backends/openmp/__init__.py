"""ember.backends.openmp: Ember's CPU kernels are built with OpenMP (their thread pool and
OpenBLAS's), so this is True."""


def is_available():
    return True
