"""HTA is defined once: the two implementations in this repository agree with each other, not only
each with HTA. The C++ one (`xpuperf analyze --convention hta`, trace/src/hta_*.cpp) is the
reference (docs/TRACES.md, "Which implementation is the reference"); `xpuperf.hta` builds the
frames HTA's notebooks expect, with pandas where HTA's row order and dtypes are the contract. On
every shared real trace, the tables both compute must hold the same values: the comm/compute
overlap, time by kernel type, idle time by stream and cause, the launch statistics, and of the
queue length what the order of equal timestamps cannot change."""

import json
import math
import os
import subprocess
import warnings

import pytest
from trace_files import shared_traces, single

from xpuperf.hta import TraceAnalysis

warnings.filterwarnings("ignore")


def _native(cli_path, path):
    """The trace's rank and its native HTA tables (the `hta` object of analyze's JSON)."""
    run = subprocess.run([cli_path, "analyze", path, "--convention", "hta", "--json", "-a", "hta"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    ranks = json.loads(run.stdout)["ranks"]
    return (ranks[0]["rank"], ranks[0].get("hta", {})) if ranks else (0, {})


def _close(a, b, what):
    a = float("nan") if a is None else a  # JSON writes NaN as null
    if isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), f"{what}: {a} != {b}"
        return
    assert a == pytest.approx(b, rel=1e-9, abs=1e-9), f"{what}: native {a} != python {b}"


@pytest.mark.parametrize("path", shared_traces() or ["(no shared traces)"],
                         ids=lambda p: os.path.basename(p)[:40])
def test_native_and_python_hta_agree(trace_dir, cli_path, tmp_path, path):
    rank, native = _native(cli_path, path)
    if not native.get("kernel_types"):
        pytest.skip("no GPU kernels: neither implementation has HTA's GPU tables for it")
    analysis = TraceAnalysis(trace_dir=single(tmp_path, path))
    compared = 0

    overlap = analysis.get_comm_comp_overlap(visualize=False).set_index("rank")
    for row in native.get("comm_comp_overlap", []):
        _close(row["comp_comm_overlap_pctg"], float(overlap.loc[rank, "comp_comm_overlap_pctg"]),
               "comm/compute overlap %")
        compared += 1

    kernel_types, _ = analysis.get_gpu_kernel_breakdown(visualize=False)
    python_types = {r.kernel_type: (r.sum, r.percentage) for r in kernel_types.itertuples()}
    native_types = {r["kernel_type"]: (r["sum_us"], r["percentage"]) for r in native["kernel_types"]}
    assert python_types.keys() == native_types.keys()
    for kind, (total, share) in native_types.items():
        _close(total, python_types[kind][0], f"{kind} µs")
        _close(share, python_types[kind][1], f"{kind} %")
        compared += 1

    idle, _ = analysis.get_idle_time_breakdown(ranks=[rank], visualize=False)
    python_idle = {(int(r.stream), r.idle_category): (r.idle_time, r.idle_time_ratio)
                   for r in idle.itertuples()}
    native_idle = {(r["stream"], r["idle_category"]): (r["idle_time_us"], r["idle_time_ratio"])
                   for r in native.get("idle_time", [])}
    assert python_idle.keys() == native_idle.keys()
    for key, (time_us, ratio) in native_idle.items():
        _close(time_us, python_idle[key][0], f"idle {key}")
        _close(ratio, float(python_idle[key][1]), f"idle ratio {key}")
        compared += 1

    # The queue length and the memory bandwidth depend on the order of equal timestamps, which
    # pandas' unstable sort decides (docs/TRACES.md, "equal timestamps"): only what that order
    # cannot change is compared, the number of change points of each stream's queue.
    queue = analysis.get_queue_length_summary(ranks=[rank])
    if queue is not None and len(queue) > 0:
        for row in native.get("queue_length", []):
            summary = queue.loc[(rank, row["stream"])]["queue_length"]
            _close(row["count"], float(summary["count"]), f"queue {row['stream']} count")
            compared += 1

    launches = analysis.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)
    if launches:
        frame = launches[rank]
        for row in native.get("launch_stats", []):
            if row["column"] not in frame.columns:
                continue
            series = frame[row["column"]]
            _close(row["count"], float(series.count()), f"launch {row['column']} count")
            _close(row["mean"], float(series.mean()), f"launch {row['column']} mean")
            _close(row["max"], float(series.max()), f"launch {row['column']} max")
            compared += 1
    assert compared > 0
