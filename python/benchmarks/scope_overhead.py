#!/usr/bin/env python3
"""Cost of `with xpuperf.scope("name"):` from Python, per enter/exit pair, against a pure-Python
context manager that does nothing (the interpreter's floor for a with-statement) in the same run.

Formula: (best of --repeat timings of N iterations of the statement - best of N iterations of
`pass`) / N, in ns; timeit, the GC disabled. Tracing off, on, and on with record_ops. The timer
is the thread's CPU time (time.thread_time_ns, CLOCK_THREAD_CPUTIME_ID), so time spent waiting
for a CPU on a shared machine does not count; --wall uses time.perf_counter instead.

  scope_overhead.py [--number N] [--repeat R]
"""

import argparse
import os
import tempfile
import time
import timeit

import xpuperf


class Noop:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def per_call_ns(statement, number, repeat, env, timer):
    base = min(timeit.repeat("pass", number=number, repeat=repeat, timer=timer))
    best = min(timeit.repeat(statement, number=number, repeat=repeat, globals=env, timer=timer))
    return (best - base) / number * 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--number", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--wall", action="store_true")
    args = parser.parse_args()
    timer = time.perf_counter if args.wall else time.thread_time
    env = {"xpuperf": xpuperf, "noop": Noop()}
    rows = [("pure-Python no-op context manager", "with noop: pass", None),
            ("xpuperf.scope, tracing off", 'with xpuperf.scope("step"): pass', None),
            ("xpuperf.scope, tracing on", 'with xpuperf.scope("step"): pass', False),
            ("xpuperf.scope, tracing on + record_ops", 'with xpuperf.scope("step"): pass', True)]
    with tempfile.TemporaryDirectory() as tmp:
        for label, statement, record_ops in rows:
            if record_ops is not None:
                xpuperf.start_trace(os.path.join(tmp, "t.json"), record_ops=record_ops)
            try:
                ns = per_call_ns(statement, args.number, args.repeat, env, timer)
            finally:
                if record_ops is not None:
                    summary = xpuperf.stop_trace()
            extra = f" ({summary['dropped_events']} dropped)" if record_ops is not None else ""
            print(f"{label:42} {ns:7.0f} ns per enter/exit{extra}")


if __name__ == "__main__":
    main()
