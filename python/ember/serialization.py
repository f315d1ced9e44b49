"""ember.save / ember.load: Python objects of tensors in safetensors files, or in PyTorch's own
zip format (torch.save's .pt / .pth files).

Which format: ember.save writes PyTorch's format to a path ending in .pt or .pth (or with
format="pt"), safetensors otherwise (or with format="safetensors"); ember.load recognises either
by the file's first bytes. PyTorch files are read by Ember's restricted unpickler (C++, see
include/ember/serialize_pt.h), which accepts only what torch.load(weights_only=True) accepts, and
never runs code from the file: loading is always weights-only.

In safetensors files, the tensors are the file's named tensors (a flat dict of str -> tensor keeps its keys as names, so
the file opens in safetensors' other readers); the containers around them (dict, OrderedDict,
list, tuple, Size), the numbers, strings and None, each tensor's device and requires_grad, and
which entries are one shared tensor, are a JSON string in the file's metadata ("ember.python").
Arbitrary objects (PyTorch pickles them) cannot be stored: save raises TypeError naming them."""
import collections
import json
import os

from . import _C

_KEY = "ember.python"


class _Writer:
    def __init__(self):
        self.tensors = []  # (name, tensor)
        self.names = set()
        self.seen = {}  # id(tensor) -> name: one tensor saved once, shared again on load

    def name_for(self, path):
        base = ".".join(str(p) for p in path) or "tensor"
        name, i = base, 1
        while name in self.names or name == "__metadata__":
            name, i = f"{base}#{i}", i + 1
        self.names.add(name)
        return name

    def encode(self, obj, path):
        if isinstance(obj, _C.Tensor):
            name = self.seen.get(id(obj))
            if name is None:
                name = self.seen[id(obj)] = self.name_for(path)
                self.tensors.append((name, obj.detach()))
            node = {"T": name, "device": str(obj.device)}
            if obj.requires_grad:
                node["requires_grad"] = True
            if type(obj).__name__ == "Parameter":
                node["parameter"] = True
            return node
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return {"V": obj}
        if isinstance(obj, _C.dtype):
            return {"dtype": str(obj).split(".", 1)[1]}
        if isinstance(obj, _C.device):
            return {"device": str(obj)}
        if isinstance(obj, dict):
            items = [[self.encode(k, path + ["<key>"]), self.encode(v, path + [k])]
                     for k, v in obj.items()]
            if isinstance(obj, collections.OrderedDict):
                return {"OD": items}
            if type(obj) is not dict:
                raise TypeError(self._unsupported(obj, path))
            return {"D": items}
        if isinstance(obj, (list, tuple)):
            items = [self.encode(v, path + [i]) for i, v in enumerate(obj)]
            if type(obj) is list:
                return {"L": items}
            if type(obj) is tuple:
                return {"U": items}
            if type(obj).__name__ == "Size":
                return {"S": items}
        raise TypeError(self._unsupported(obj, path))

    @staticmethod
    def _unsupported(obj, path):
        where = "".join(f"[{p!r}]" for p in path)
        return (f"ember.save cannot store an object of type {type(obj).__name__} (at obj{where}):"
                " its files are safetensors, which hold tensors, and around them dicts, "
                "OrderedDicts, lists, tuples, numbers, strings, None, dtypes and devices")


_PT_SUFFIXES = (".pt", ".pth")
_ZIP_MAGIC = b"PK\x03\x04"


def _format_for(f, format):
    if format is None:
        is_path = isinstance(f, (str, os.PathLike))
        return "pt" if is_path and os.fspath(f).lower().endswith(_PT_SUFFIXES) else "safetensors"
    if format not in ("pt", "safetensors"):
        raise ValueError(f"ember.save: format must be 'pt' or 'safetensors', got {format!r}")
    return format


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         *, format=None):
    """Writes `obj` to the path (or the writable binary file object) `f`; a path is replaced
    atomically. Paths ending in .pt / .pth (or format="pt") get PyTorch's zip format, which
    torch.load reads (also with weights_only=True); others safetensors."""
    if _format_for(f, format) == "pt":
        if isinstance(f, (str, os.PathLike)):
            _C._save_pt_file(obj, os.fspath(f))
        elif hasattr(f, "write"):
            f.write(_C._save_pt_bytes(obj))
        else:
            raise TypeError(f"ember.save: f must be a path or a writable file object, got "
                            f"{type(f).__name__}")
        return
    writer = _Writer()
    structure = writer.encode(obj, [])
    metadata = {_KEY: json.dumps(structure, separators=(",", ":"))}
    if isinstance(f, (str, os.PathLike)):
        _C._save_file(writer.tensors, os.fspath(f), metadata)
    elif hasattr(f, "write"):
        f.write(_C._save_bytes(writer.tensors, metadata))
    else:
        raise TypeError(f"ember.save: f must be a path or a writable file object, got "
                        f"{type(f).__name__}")


def _target_device(map_location, saved, tensor):
    """The tensor `tensor` (on the CPU, saved from device `saved`) placed as map_location says."""
    if map_location is None:
        where = saved
    elif callable(map_location):
        out = map_location(tensor, saved)
        if not isinstance(out, _C.Tensor):
            raise TypeError(f"ember.load: map_location returned {type(out).__name__} for a "
                            f"tensor saved on {saved}; it must return a tensor")
        return out
    elif isinstance(map_location, dict):
        where = map_location.get(saved, saved)
    else:
        where = map_location
    device = where if isinstance(where, _C.device) else _C.device(str(where))
    if device.type == "cuda" and not _C._cuda.is_available():
        raise RuntimeError(
            f"Attempting to deserialize object on a CUDA device ({device}) but "
            "ember.cuda.is_available() is False. If you are running on a CPU-only machine, "
            "please use ember.load with map_location=ember.device('cpu') to map your tensors "
            "to the CPU.")
    return tensor if device.type == "cpu" else tensor.to(device)


class _Reader:
    def __init__(self, tensors, map_location):
        self.tensors = tensors
        self.map_location = map_location
        self.done = {}

    def decode(self, node):
        (kind, value), *rest = node.items()
        if kind == "T":
            if value in self.done:
                return self.done[value]
            t = _target_device(self.map_location, node.get("device", "cpu"), self.tensors[value])
            if node.get("parameter"):
                from .nn import Parameter  # only files that hold Parameters need ember.nn
                t = Parameter(t, requires_grad=node.get("requires_grad", False))
            elif node.get("requires_grad"):
                t.requires_grad_(True)
            self.done[value] = t
            return t
        if kind == "V":
            return value
        if kind == "dtype":
            return getattr(_C, value)
        if kind == "device":
            return _C.device(value)
        if kind in ("D", "OD"):
            out = collections.OrderedDict() if kind == "OD" else {}
            for k, v in value:
                out[self.decode(k)] = self.decode(v)
            return out
        items = [self.decode(v) for v in value]
        if kind == "L":
            return items
        if kind == "U":
            return tuple(items)
        if kind == "S":
            from ._size import Size
            return Size(items)
        raise RuntimeError(f"unknown entry {kind!r} in the file's {_KEY} metadata")


def _header_metadata(data):
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8:8 + n]).get("__metadata__", {})


def _load_pt(load, map_location):
    """A PyTorch file through the C++ reader; each tensor placed as map_location says."""
    def make_tensor(tensor, location, requires_grad, is_parameter):
        t = _target_device(map_location, location, tensor)
        if is_parameter:
            from .nn import Parameter  # only files that hold Parameters need ember.nn
            return Parameter(t, requires_grad=requires_grad)
        return t
    return load(make_tensor)  # a refused file raises pickle.UnpicklingError, as PyTorch's


def _is_pickle(head):
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def load(f, map_location=None, pickle_module=None, *, weights_only=False, **pickle_load_args):
    """Reads what ember.save wrote, any safetensors file (its tensors as a dict by name), or a
    file of torch.save (its object; only what weights_only=True allows, whatever weights_only
    says)."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", path)
        with open(path, "rb") as fh:
            head = fh.read(4)
        if head == _ZIP_MAGIC or _is_pickle(head):
            return _load_pt(lambda make: _C._load_pt_file(path, make), map_location)
        tensors, metadata = _C._load_file(path)
        name = path
    elif hasattr(f, "read"):
        data = f.read()
        name = getattr(f, "name", None) or f"<{type(f).__name__}>"
        if data[:4] == _ZIP_MAGIC or _is_pickle(data[:4]):
            return _load_pt(lambda make: _C._load_pt_bytes(data, str(name), make), map_location)
        tensors = _C._load_bytes(data, str(name))
        metadata = _header_metadata(data)
    else:
        raise TypeError(f"ember.load: f must be a path or a readable file object, got "
                        f"{type(f).__name__}")
    structure = metadata.get(_KEY)
    if structure is None:
        content = metadata.get("ember.content")
        reader = _Reader(tensors, map_location)
        placed = {k: reader.decode({"T": k}) for k in tensors}
        if content == "tensor" and len(placed) == 1:
            return next(iter(placed.values()))
        if content == "tensor_list":
            return [placed[str(i)] for i in range(len(placed))]
        return placed
    try:
        node = json.loads(structure)
    except ValueError as e:
        raise RuntimeError(f"ember.load: {name}: the {_KEY} metadata is not valid JSON ({e})")
    return _Reader(tensors, map_location).decode(node)
