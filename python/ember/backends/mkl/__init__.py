"""ember.backends.mkl: Ember's CPU BLAS is OpenBLAS, not Intel MKL."""


def is_available():
    return False
