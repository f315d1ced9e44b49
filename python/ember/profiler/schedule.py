"""torch.profiler's schedule and trace handler: the wait / warmup / active cycle that profiles a
few training steps out of many, and on_trace_ready's handler that writes one Chrome trace per
recorded window into a TensorBoard log folder."""
import enum
import os
import socket
import time
import warnings


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """step -> ProfilerAction: skip_first steps, then cycles of `wait` idle steps, `warmup` steps
    and `active` recorded steps (the last one saves), `repeat` times (0: until the end)."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")

    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """on_trace_ready handler: writes <dir_name>/<worker>.<ms>.pt.trace.json(.gz) per window,
    the worker named <hostname>_<pid> unless given."""

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        # PyTorch names the file by the millisecond; two windows saved within one millisecond
        # would overwrite each other, so a taken name moves on to the next millisecond.
        suffix = ".pt.trace.json.gz" if use_gzip else ".pt.trace.json"
        ms = time.time_ns() // 1000000
        while os.path.exists(os.path.join(dir_name, f"{worker_name}.{ms}{suffix}")):
            ms += 1
        path = os.path.join(dir_name, f"{worker_name}.{ms}{suffix}")
        if use_gzip:
            import gzip
            plain = path[:-3] + ".tmp"
            prof.export_chrome_trace(plain)
            with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
                dst.write(src.read())
            os.remove(plain)
        else:
            prof.export_chrome_trace(path)

    return handler_fn
