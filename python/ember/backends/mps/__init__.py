"""ember.backends.mps: Apple's Metal backend, which Ember does not have (PyTorch's Quickstart asks
for it while picking a device)."""


def is_available():
    return False


def is_built():
    return False
