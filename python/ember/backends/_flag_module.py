"""A module whose attributes are process-wide C++ settings: assigning
`ember.backends.cudnn.benchmark = True` must reach C++, as it does in PyTorch, so such modules
swap their class for one with properties."""
import types


def flag(getter, setter):
    """A module attribute read from `getter` and written (as a bool) with `setter`."""
    return property(lambda self: getter(), lambda self, value: setter(bool(value)))


def install(module_name, properties):
    """Give the module `module_name` the `properties` (name -> property)."""
    import sys
    module = sys.modules[module_name]
    module.__class__ = type(type(module).__name__, (types.ModuleType,), dict(properties))
