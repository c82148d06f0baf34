#!/usr/bin/env python3
"""The floor under a notebook cell that returns a pandas DataFrame from a fresh interpreter: what
the first DataFrame of a process costs, and the first call into xpuperf's native trace reader,
each against the same call made a second time in the same process.

Each sample is a fresh Python process that imports numpy, pandas and xpuperf.hta (imports are not
timed) and then times, with time.perf_counter:
  - first_frame / second_frame: pd.DataFrame of HTA's temporal-breakdown shape (one row: five
    int64 columns and three float64 ones, from a dict of numpy columns, as HTA's dtypes need);
  - first_read / second_read: xpuperf's native read of TRACE in HTA's convention (what
    TraceAnalysis(trace_dir=...) does before any pandas work), when a trace is given.
Prints the median of --repeat samples of each, in ms. The difference between a first and a
second call is the cost of touching that code and its data for the first time in the process.

  cell_floor.py [--repeat N] [TRACE_DIR]
      (in an environment with pandas and xpuperf: PYTHONPATH=build/python)
"""

import argparse
import statistics
import subprocess
import sys

PROGRAM = """
import sys, time
import numpy as np, pandas as pd
import xpuperf.hta
from xpuperf._native import native

def frame():
    ints = {name: np.asarray([7]) for name in ("rank", "idle_time(us)", "compute_time(us)",
                                               "non_compute_time(us)", "kernel_time(us)")}
    floats = {name: np.asarray([12.5]) for name in ("idle_time_pctg", "compute_time_pctg",
                                                    "non_compute_time_pctg")}
    return pd.DataFrame({**ints, **floats})

def timed(call):
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1e3

out = [timed(frame), timed(frame)]
if len(sys.argv) > 1:
    read = lambda: native.TraceRun(sys.argv[1], "hta", False)
    out += [timed(read), timed(read)]
print(" ".join(f"{v:.4f}" for v in out))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("trace_dir", nargs="?")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    argv = [sys.executable, "-c", PROGRAM] + ([args.trace_dir] if args.trace_dir else [])
    samples = []
    for _ in range(args.repeat):
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        samples.append([float(v) for v in out.split()])
    names = ["first_frame", "second_frame", "first_read", "second_read"]
    for i, name in enumerate(names[:len(samples[0])]):
        values = sorted(s[i] for s in samples)
        print(f"{name:13} median {statistics.median(values):.3f} ms "
              f"(min {values[0]:.3f}, max {values[-1]:.3f}, {len(values)} processes)")


if __name__ == "__main__":
    main()
