"""torch.cuda's streams and events: Stream, Event, current_stream, default_stream, set_stream,
the stream(s) context manager, and the device(i) / device_of(t) context managers."""
from .. import _C

_cuda = _C._cuda


def _index(device):
    """A CUDA ordinal from None (the current device), an int, "cuda:1" or an ember.device."""
    if device is None:
        return _cuda.current_device()
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    d = device if isinstance(device, _C.device) else _C.device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return _cuda.current_device() if d.index is None else d.index


def _wrap(handle):
    s = Stream.__new__(Stream)
    s._s = handle
    return s


class Stream:
    """A CUDA stream of `device` (default: the current device); priority 0 is normal, negative
    is higher."""

    def __init__(self, device=None, priority=0):
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise TypeError(f"priority must be an int, got {type(priority).__name__}")
        self._s = _cuda._stream_create(priority, _index(device))

    @property
    def device(self):
        return _C.device("cuda", self._s.device_index)

    @property
    def cuda_stream(self):
        return self._s.cuda_stream

    @property
    def priority(self):
        return self._s.priority

    def query(self):
        return self._s.query()

    def synchronize(self):
        self._s.synchronize()

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self._s == other._s

    def __hash__(self):
        return hash(self._s)

    def __repr__(self):
        return f"<ember.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """A CUDA event: record() on a stream, then query/synchronize/wait, and elapsed_time (ms)
    between two events made with enable_timing=True."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("ember.cuda.Event: interprocess events are not supported")
        self._e = _cuda._Event(bool(enable_timing), bool(blocking))
        self.enable_timing = bool(enable_timing)

    def record(self, stream=None):
        self._e.record((stream or current_stream())._s)

    def wait(self, stream=None):
        self._e.wait((stream or current_stream())._s)

    def query(self):
        return self._e.query()

    def synchronize(self):
        self._e.synchronize()

    def elapsed_time(self, end_event):
        if not isinstance(end_event, Event):
            raise TypeError(f"elapsed_time expects an Event, got {type(end_event).__name__}")
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("elapsed_time: both events must be created with "
                               f"enable_timing=True (this one: {self.enable_timing}, end: "
                               f"{end_event.enable_timing})")
        return self._e.elapsed_time(end_event._e)

    @property
    def cuda_event(self):
        return self._e.cuda_event

    def __repr__(self):
        return (f"<ember.cuda.Event {self.cuda_event:#x}>" if self._e.is_created
                else "<ember.cuda.Event uninitialized>")


def current_stream(device=None):
    return _wrap(_cuda._current_stream(_index(device)))


def default_stream(device=None):
    return _wrap(_cuda._default_stream(_index(device)))


def set_stream(stream):
    """Makes `stream` current on its device, and its device current."""
    if stream is None:
        return
    _cuda.set_device(stream._s.device_index)
    _cuda._set_current_stream(stream._s)


class StreamContext:
    """with ember.cuda.stream(s): work is queued on s (and s's device is current) inside the
    block; both are restored after. stream(None) does nothing."""

    def __init__(self, stream):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"stream() expects an ember.cuda.Stream or None, got "
                            f"{type(stream).__name__}")
        self.stream = stream

    def __enter__(self):
        if self.stream is None:
            return None
        self._prev_device = _cuda.current_device()
        self._prev_stream = _cuda._current_stream(self.stream._s.device_index)
        set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _cuda._set_current_stream(self._prev_stream)
            _cuda.set_device(self._prev_device)
        return False


def stream(stream):
    return StreamContext(stream)


class device:
    """with ember.cuda.device(1): the current CUDA device inside the block (None or a negative
    index: unchanged)."""

    def __init__(self, device):
        if device is None:
            self.idx = -1
        elif isinstance(device, int) and not isinstance(device, bool):
            self.idx = device
        else:
            self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = _cuda.current_device()
            if self.prev_idx != self.idx:
                _cuda.set_device(self.idx)

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _cuda.set_device(self.prev_idx)
        return False


class device_of(device):
    """ember.cuda.device(t's device) for a CUDA tensor; a no-op context for a CPU tensor."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)
