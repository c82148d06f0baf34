#!/usr/bin/env python3
"""get_temporal_breakdown (or, with --method critical_path, critical_path_analysis over the
whole trace and its get_critical_path_breakdown) end to end, HTA 0.5.0 against xpuperf.hta,
side by side in one run.

Each measurement is a fresh Python process that imports the package, constructs
TraceAnalysis(trace_dir=D) and calls get_temporal_breakdown(visualize=False): process start to
result, as wall time and as the process's CPU time (user + sys, getrusage of the child: on a
shared machine the steadier figure), the median of --repeat runs (alternating HTA and
xpuperf). Each trace is in its own directory (HTA reads directories). And, as in a notebook where
the packages are imported already, construct + call alone ("cell"): its wall time and its CPU
time (this process's threads and the children HTA's process pool ran, getrusage). Prints one row per trace and the ratios HTA / xpuperf.

  hta_speed.py [--repeat N] [--method temporal_breakdown|critical_path] TRACE...
      (run in an environment with HTA and xpuperf)
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAM = """
import logging, resource, sys, time, warnings
warnings.filterwarnings("ignore"); logging.disable(logging.CRITICAL)
from {module} import TraceAnalysis
import pandas
def cpu():  # this process and its finished children (HTA parses in a process pool)
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
t1, c1 = time.perf_counter(), cpu()
{call}
print(time.perf_counter() - t1, cpu() - c1)
"""
CALLS = {
    "temporal_breakdown":
        "TraceAnalysis(trace_dir=sys.argv[1]).get_temporal_breakdown(visualize=False)",
    # The file as rank 0 (trace_files), the whole trace as the window.
    "critical_path":
        "graph, ok = TraceAnalysis(trace_files={0: sys.argv[2]}, trace_dir=sys.argv[1])"
        ".critical_path_analysis(0, '', None)\n"
        "assert ok and len(graph.get_critical_path_breakdown()) > 0",
}


def run(module, directory, method, name):
    """(wall s, CPU s of the process: user + sys, in-process s of construct + call)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    program = PROGRAM.format(module=module, call=CALLS[method])
    out = subprocess.run([sys.executable, "-c", program, directory, name],
                         check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    call_wall, call_cpu = map(float, out.strip().splitlines()[-1].split())
    return wall, cpu, call_wall, call_cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--method", choices=sorted(CALLS), default="temporal_breakdown")
    parser.add_argument("traces", nargs="+")
    args = parser.parse_args()
    print(f"{'trace':36} {'HTA s':>7} {'xp s':>7} {'wall x':>6} | {'HTA cpu':>7} {'xp cpu':>7} "
          f"{'cpu x':>6} | {'HTA cell':>8} {'xp cell':>8} {'wall x':>6} {'cpu x':>6}")
    ratios, cpu_ratios, call_ratios = [], [], []
    for path in args.traces:
        with tempfile.TemporaryDirectory() as directory:
            os.symlink(os.path.abspath(path), os.path.join(directory, os.path.basename(path)))
            hta, ours = [], []
            for _ in range(args.repeat):
                name = os.path.basename(path)
                hta.append(run("hta.trace_analysis", directory, args.method, name))
                ours.append(run("xpuperf.hta", directory, args.method, name))
        med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
        h_e2e, x_e2e = med(hta, 0), med(ours, 0)
        h_cpu, x_cpu = med(hta, 1), med(ours, 1)
        h_call, x_call = med(hta, 3), med(ours, 3)
        h_cell, x_cell = med(hta, 2), med(ours, 2)
        call_ratios.append(h_call / x_call)
        ratios.append(h_e2e / x_e2e)
        cpu_ratios.append(h_cpu / x_cpu)
        print(f"{os.path.basename(path)[:36]:36} {h_e2e:7.2f} {x_e2e:7.3f} {h_e2e / x_e2e:5.1f}x | "
              f"{h_cpu:7.2f} {x_cpu:7.3f} {h_cpu / x_cpu:5.1f}x | "
              f"{h_cell:8.3f} {x_cell:8.4f} {h_cell / x_cell:5.0f}x {h_call / x_call:5.0f}x")
    print(f"end to end, wall: min {min(ratios):.1f}x median {statistics.median(ratios):.1f}x; "
          f"CPU: min {min(cpu_ratios):.1f}x median {statistics.median(cpu_ratios):.1f}x; "
          f"cell (CPU): min {min(call_ratios):.0f}x "
          f"median {statistics.median(call_ratios):.0f}x")


if __name__ == "__main__":
    main()
