"""The profile context manager, its results and record_function."""
import enum
import functools
import warnings

from .._C import _profiler
from .schedule import ProfilerAction

_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1

    def __repr__(self):
        return f"ProfilerActivity.{self.name}"

    __str__ = __repr__


def supported_activities():
    """CPU, and CUDA when a CUDA device is available."""
    return {ProfilerActivity(a) for a in _profiler.supported_activities()}


class _KeyAverages(list):
    """key_averages(): one FunctionEventAvg per name (key, count, cpu_time_total, ...), a list
    with PyTorch's summary table."""

    def __init__(self, native):
        super().__init__(native[i] for i in range(len(native)))
        self._native = native

    def table(self, sort_by=None, row_limit=100, **unused):
        """PyTorch's table; sort_by names a column as torch does ("cpu_time_total",
        "self_cuda_time_total", "count", ...) or None for first appearance."""
        return self._native.table("" if sort_by is None else sort_by, row_limit)

    def __str__(self):
        return self.table()


class profile:
    """profile(activities=None, record_shapes=False, profile_memory=False, with_stack=False,
    on_trace_ready=None): records every op while open (or between start() and stop()).
    activities=None records what supported_activities() lists. One profile records at a time.
    with_stack is accepted and warned about (no Python stacks are recorded). With a schedule,
    step() moves through its actions: each RECORD window is recorded alone and, after its
    RECORD_AND_SAVE step, handed to on_trace_ready; the results are the last window's."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, **unused):
        if activities is None:
            activities = supported_activities()
        self.activities = set(activities)
        for a in self.activities:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile: activities must be ProfilerActivity values, got {a!r}")
        if len(self.activities) == 0:
            raise AssertionError("No valid profiler activities found")
        if with_stack or with_flops or with_modules:
            warnings.warn("ember.profiler.profile records no Python stacks, flops or modules; "
                          "with_stack, with_flops and with_modules are ignored")
        self.record_shapes = bool(record_shapes)
        self.profile_memory = bool(profile_memory)
        self.on_trace_ready = on_trace_ready
        self.schedule = schedule
        self.step_num = 0
        self.current_action = None
        self._native = None
        self._stopped = False
        self._recording = False

    def start(self):
        if self._native is not None and self.schedule is None:
            raise RuntimeError("profile: already started")
        if self.schedule is None:
            self._start_window()
            return
        self.current_action = self.schedule(self.step_num)
        if self.current_action in _RECORDING:
            self._start_window()

    def stop(self):
        if self.schedule is None and self._native is None:
            raise RuntimeError("profile: stop() before start()")
        if self._recording:
            self._end_window(save=True)

    def _start_window(self):
        order = sorted(self.activities, key=lambda a: a.value)
        self._native = _profiler._Profile([a.value for a in order], self.record_shapes,
                                          self.profile_memory)
        self._recording = True
        self._stopped = False

    def _end_window(self, save):
        self._native.stop()
        self._stopped = True
        self._recording = False
        if save and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.stop()
        return False

    def step(self):
        """Ends a training step: the steps show as ProfilerStep#N ranges; with a schedule, also
        moves to the next step's action (a window that ends is saved)."""
        if self.schedule is None:
            self._results_native("step").step()
            return
        if self._recording:
            self._native.step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self._recording and (previous == ProfilerAction.RECORD_AND_SAVE
                                or self.current_action not in _RECORDING):
            self._end_window(save=True)
        if not self._recording and self.current_action in _RECORDING:
            self._start_window()

    def _results_native(self, what):
        if self._native is None:
            raise RuntimeError(f"profile.{what}(): the profile was never started")
        return self._native

    def events(self):
        """Every recorded range (name, kind, device, start_us, end_us, cpu_time, ...)."""
        return self._results_native("events").events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        if group_by_stack_n:
            raise NotImplementedError("key_averages: no stacks are recorded to group by")
        return _KeyAverages(self._results_native("key_averages").key_averages(
            group_by_input_shape))

    def export_chrome_trace(self, path):
        """A Chrome trace-event JSON file (chrome://tracing, ui.perfetto.dev)."""
        self._results_native("export_chrome_trace").export_chrome_trace(str(path))


class record_function:
    """record_function(name): a named range around a block (with) or every call of a function
    (decorator), nested as the code nests. Costs next to nothing when no profile records."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function: name must be a str, got {type(name).__name__}")
        self.name = name
        self.args = args
        self._ranges = []

    def __enter__(self):
        self._ranges.append(_profiler._RecordFunction(self.name))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._ranges.pop().end()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            r = _profiler._RecordFunction(self.name)
            try:
                return func(*args, **kwargs)
            finally:
                r.end()
        return wrapped
