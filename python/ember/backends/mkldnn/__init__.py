"""ember.backends.mkldnn: Ember does not use oneDNN; `enabled` is kept for scripts that set it and
read by nothing."""
from .._flag_module import install

_state = {"enabled": True}


def is_available():
    return False


install(__name__, {
    "enabled": property(lambda self: _state["enabled"],
                        lambda self, value: _state.__setitem__("enabled", bool(value))),
})
