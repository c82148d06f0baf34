"""Instrumenting Python code: ranges, counters and instants written by xpuperf's tracer as a
Chrome trace (Perfetto, chrome://tracing and `xpuperf analyze` open it), and durations recorded
into the in-process distributions that `xpuperf.metrics()` reads (op_execution_time_seconds,
transfer_latency_seconds, queue_size).

    xpuperf.start_trace("trace.json", record_ops=True)
    with xpuperf.scope("load_batch"):
        ...
    xpuperf.stop_trace()

While no trace runs, a scope costs one dictionary lookup and two calls that return at once.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from typing import Any, Callable, Dict, Iterator, Optional, Tuple, TypeVar, overload

from xpuperf._native import native

__all__ = ["scope", "traced", "counter", "instant", "start_trace", "stop_trace", "flush_trace",
           "tracing", "trace", "set_thread_name", "record_op", "record_transfer",
           "set_queue_depth", "timed_op"]

# Range objects by name (default category) and by (name, category); each is reentrant and
# thread-safe (the native side keeps open ranges per thread), so one per name serves every caller.
_ranges: Dict[str, Any] = {}
_categorised: Dict[Tuple[str, str], Any] = {}


def scope(name: str, category: Optional[str] = None):
    """A context manager that records one range ("X" event) named `name` on the calling thread
    from entry to exit. `category` defaults to "cpu_op"; "user_annotation" with names
    "ProfilerStep#N" marks iterations for `xpuperf analyze`, as PyTorch's profiler does."""
    if category is None:
        r = _ranges.get(name)
        if r is None:
            if not isinstance(name, str):
                raise TypeError(f"scope name must be a str, not {type(name).__name__}")
            r = _ranges.setdefault(name, native.Range(name, ""))
        return r
    key = (name, category)
    r = _categorised.get(key)
    if r is None:
        r = _categorised.setdefault(key, native.Range(name, category))
    return r


F = TypeVar("F", bound=Callable[..., Any])


@overload
def traced(function: F) -> F: ...
@overload
def traced(*, name: Optional[str] = None, category: Optional[str] = None) -> Callable[[F], F]: ...


def traced(function=None, *, name=None, category=None):
    """Decorator: every call of the function is a range named after it (its __qualname__, or
    `name`). Use as `@xpuperf.traced` or `@xpuperf.traced(name="step")`."""

    def decorate(f):
        r = scope(name or getattr(f, "__qualname__", repr(f)), category)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            with r:
                return f(*args, **kwargs)

        return wrapper

    return decorate(function) if function is not None else decorate


def counter(name: str, value: float) -> None:
    """One sample of a counter track (a "C" event). NaN and infinities are not recorded."""
    native.counter(name, float(value))


def instant(name: str, category: Optional[str] = None) -> None:
    """A point in time on the calling thread (an "i" event)."""
    native.instant(name, category or "")


def set_thread_name(name: str) -> None:
    """Names the calling thread in traces."""
    native.set_thread_name(name)


def start_trace(path: str | os.PathLike, process_name: str = "python", record_ops: bool = False,
                device: str = "cpu0") -> None:
    """Starts recording to `path` (written as "<path>.tmp-<pid>" and renamed by stop_trace, so
    `path` never holds a partial trace). record_ops=True also records every range's duration
    into op_execution_time_seconds (label op = the range's name) on `device`. ValueError when a
    trace already runs; OSError when the file cannot be created."""
    native.trace_start(os.fspath(path), process_name, bool(record_ops), device)


def stop_trace() -> Dict[str, Any]:
    """Ends the trace and writes it: returns {"path", "events_written", "dropped_events"}.
    ValueError when no trace runs."""
    return native.trace_stop()


def flush_trace() -> None:
    """Writes the events recorded so far to the temporary file (the trace stays unfinished)."""
    native.trace_flush()


def tracing() -> bool:
    """Whether a trace is recording."""
    return native.trace_enabled()


@contextlib.contextmanager
def trace(path: str | os.PathLike, process_name: str = "python", record_ops: bool = False,
          device: str = "cpu0") -> Iterator[None]:
    """`with xpuperf.trace("t.json"):` start_trace on entry, stop_trace on exit (also when the
    block raises, so an interrupted run still leaves a complete trace)."""
    start_trace(path, process_name, record_ops, device)
    try:
        yield
    finally:
        stop_trace()


def _device(device: Optional[str]) -> str:
    return "cpu0" if device is None else device


def record_op(op: str, seconds: float, device: Optional[str] = None) -> None:
    """Records one execution of `op` that took `seconds` into op_execution_time_seconds on
    `device` (default "cpu0"). ValueError for a negative or non-finite duration."""
    native.record_op(op, float(seconds), _device(device))


def record_transfer(nbytes: int, seconds: float, device: Optional[str] = None) -> None:
    """Records one transfer of `nbytes` that took `seconds` into transfer_latency_seconds (label
    buffer_size: the power of two >= nbytes, "4KiB")."""
    if not isinstance(nbytes, int) or nbytes < 0 or nbytes >= 1 << 64:
        raise ValueError(f"nbytes must be an integer in [0, 2**64) (got {nbytes!r})")
    native.record_transfer(nbytes, float(seconds), _device(device))


def set_queue_depth(depth: int, device: Optional[str] = None) -> None:
    """Sets queue_size on `device` (last value wins)."""
    if not isinstance(depth, int) or not (-(1 << 63) <= depth < 1 << 63):
        raise ValueError(f"depth must be a 64-bit integer (got {depth!r})")
    native.set_queue_depth(depth, _device(device))


@contextlib.contextmanager
def timed_op(op: str, device: Optional[str] = None) -> Iterator[None]:
    """`with xpuperf.timed_op("matmul"):` records the block's wall time (time.perf_counter) with
    record_op, whether or not a trace runs."""
    start = time.perf_counter()
    try:
        yield
    finally:
        record_op(op, time.perf_counter() - start, device)
