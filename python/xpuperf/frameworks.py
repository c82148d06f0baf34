"""Marking training steps of PyTorch and JAX code, so that `xpuperf analyze` finds iterations in
the tracer's trace (ranges "ProfilerStep#N" of category user_annotation, as PyTorch's profiler
writes) and op_execution_time_seconds has one series per step kind.

    for batch in loader:
        with xpuperf.frameworks.step():      # ProfilerStep#0, #1, ...
            loss = model(batch); loss.backward(); opt.step()

    train_step = xpuperf.frameworks.jax_step(jax.jit(train_step))  # blocks on the result

Neither framework is imported unless a helper that needs it is used.
"""

from __future__ import annotations

import functools
import itertools
import threading
from typing import Any, Callable, Optional

from xpuperf import tracing

__all__ = ["step", "torch_step_hook", "jax_step"]

_counter = itertools.count()
_lock = threading.Lock()


def _next_step() -> int:
    with _lock:
        return next(_counter)


class step:
    """A context manager: one iteration, recorded as the range "ProfilerStep#N" (N counts up
    from 0 in this process unless given) and, with `op`, as an op duration too."""

    def __init__(self, number: Optional[int] = None, op: Optional[str] = None):
        self.number = _next_step() if number is None else int(number)
        self._range = tracing.scope(f"ProfilerStep#{self.number}", "user_annotation")
        self._op = op
        self._start = 0.0

    def __enter__(self):
        import time

        self._start = time.perf_counter()
        self._range.__enter__()
        return self

    def __exit__(self, *exc):
        import time

        self._range.__exit__(*exc)
        if self._op:
            tracing.record_op(self._op, time.perf_counter() - self._start)
        return False


def torch_step_hook(optimizer: Any, op: Optional[str] = "train_step") -> Callable[[], None]:
    """Marks every PyTorch optimizer step as the end of an iteration: registers a step
    pre-hook and post-hook on `optimizer` (torch.optim.Optimizer) so that each interval from one
    optimizer.step() to the next is a "ProfilerStep#N" range. Returns a function that removes
    the hooks (and closes the open step)."""
    state = {"step": None}

    def open_step():
        s = step(op=op)
        s.__enter__()
        state["step"] = s

    def close_step():
        if state["step"] is not None:
            state["step"].__exit__(None, None, None)
            state["step"] = None

    def post_hook(opt, args, kwargs):
        close_step()
        open_step()

    handle = optimizer.register_step_post_hook(post_hook)
    open_step()

    def remove():
        handle.remove()
        close_step()

    return remove


def jax_step(function: Callable[..., Any], name: Optional[str] = None,
             op: Optional[str] = None) -> Callable[..., Any]:
    """Wraps a JAX function (jitted or not) so that each call is one "ProfilerStep#N" range that
    ends when the result is ready (jax.block_until_ready: JAX dispatches asynchronously, so
    without it the range would end before the work). `op` also records the duration."""
    import jax

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with step(op=op or name):
            return jax.block_until_ready(function(*args, **kwargs))

    return wrapper
