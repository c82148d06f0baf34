"""HTA 0.5.0's get_cupti_counter_data_with_operators and xpuperf.hta's on the same files: equal
frames (columns, dtypes, index, values; counter columns compared by name, since HTA's order
follows Python's string hash seed) on the shared CUPTI profiler trace and on generated ones."""

import glob
import gzip
import json
import logging
import os
import warnings

import pandas as pd
import pytest

from xpuperf.hta import TraceAnalysis as XpuperfAnalysis

hta_trace_analysis = pytest.importorskip("hta.trace_analysis", reason="skipped: HTA not installed")
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

# Columns HTA derives from its call graph, where it differs on threads with tid 0 (the CUPTI
# profiler writes its events on pid 0, tid 0): HTA roots a thread's tree at -|tid|, which for
# tid 0 is the label of the trace's first event. docs/PYTHON.md states the difference.
_TID0_COLUMNS = ("depth", "parent")


def _both(directory, **kwargs):
    theirs = hta_trace_analysis.TraceAnalysis(trace_dir=str(directory))
    ours = XpuperfAnalysis(trace_dir=str(directory))
    return (theirs.get_cupti_counter_data_with_operators(**kwargs),
            ours.get_cupti_counter_data_with_operators(**kwargs))


def _assert_equal(theirs, ours):
    assert len(theirs) == len(ours)
    for t, o in zip(theirs, ours):
        assert sorted(t.columns) == sorted(o.columns)
        t = t[list(o.columns)]
        on_tid0 = o["tid"].astype(str).eq("0")
        for column in _TID0_COLUMNS:
            assert t[column].dtype == o[column].dtype, column
            pd.testing.assert_series_equal(t.loc[~on_tid0, column], o.loc[~on_tid0, column])
        rest = [c for c in o.columns if c not in _TID0_COLUMNS or not on_tid0.any()]
        pd.testing.assert_frame_equal(t[rest], o[rest])


def _link(tmp_path, path):
    directory = tmp_path / "trace"
    directory.mkdir()
    os.symlink(os.path.abspath(path), directory / os.path.basename(path))
    return directory


def test_shared_cupti_trace(trace_dir, tmp_path):
    paths = sorted(glob.glob(os.path.join(trace_dir, "cupti_profiler__*.json*")))
    if not paths:
        pytest.skip(f"skipped: no cupti_profiler__* trace in {trace_dir}")
    for n, path in enumerate(paths):
        base = tmp_path / f"t{n}"
        base.mkdir()
        theirs, ours = _both(_link(base, path))
        assert len(ours) == 1 and len(ours[0]) > 0
        _assert_equal(theirs, ours)


def _event(name, cat, ts, dur, pid, tid, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
            "args": args}


def _generated(launches=2, ranges=2, counters=True):
    """Two operators, each launching one kernel, and one counter event per kernel (on pid 1,
    tid 1, so the call graph columns compare too)."""
    ev = [
        _event("ProfilerStep#1", "user_annotation", 1000, 400, 10, 10),
        _event("aten::conv2d", "cpu_op", 1010, 100, 10, 10, **{"External id": 1}),
        _event("aten::convolution", "cpu_op", 1020, 80, 10, 10, **{"External id": 2}),
        _event("aten::relu", "cpu_op", 1200, 50, 10, 10, **{"External id": 3}),
    ]
    for i in range(launches):
        start = 1030 if i == 0 else 1210
        ev.append(_event("cudaLaunchKernel", "cuda_runtime", start, 5, 10, 10,
                         correlation=100 + i, **{"External id": 2 + i}))
        ev.append(_event(f"kernel_{i}", "kernel", start + 20, 30, 0, 7, stream=7,
                         correlation=100 + i, device=0, **{"External id": 2 + i}))
    for i in range(ranges):
        args = {}
        if counters:
            args = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1000 * (i + 1),
                    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": 70000 * i}
        ev.append(_event(f"kernel_{i}", "cuda_profiler_range", 2000 + 100 * i, 100, 1, 1, **args))
    return {"schemaVersion": 1, "traceEvents": ev}


@pytest.mark.parametrize("launches,ranges", [(2, 2), (1, 2)], ids=["paired", "mismatched"])
def test_generated(tmp_path, launches, ranges):
    directory = tmp_path / "trace"
    directory.mkdir()
    with gzip.open(directory / "rank-0.json.gz", "wt") as handle:
        json.dump(_generated(launches, ranges), handle)
    theirs, ours = _both(directory)
    _assert_equal(theirs, ours)
    assert len(ours) == (1 if launches == ranges else 0)
    if ours:
        assert ours[0]["op_stack"].tolist() == [["aten::conv2d", "aten::convolution"],
                                                ["aten::relu"]]


def test_without_counter_events(tmp_path):
    directory = tmp_path / "trace"
    directory.mkdir()
    trace = _generated(ranges=0)
    (directory / "rank-0.json").write_text(json.dumps(trace))
    theirs, ours = _both(directory)
    assert theirs == [] and ours == []


def test_two_ranks_and_the_last_step_dropped(tmp_path):
    """ranks=[0, 1] over two files (distributedInfo), each with two ProfilerSteps, so that both
    drop the last step's CPU events; the first step holds the counter events (iteration 1)."""
    directory = tmp_path / "trace"
    directory.mkdir()
    for rank in (0, 1):
        trace = _generated()
        trace["distributedInfo"] = {"rank": rank, "world_size": 2}
        trace["traceEvents"][0]["dur"] = 1150  # ProfilerStep#1: [1000, 2150)
        trace["traceEvents"].append(_event("ProfilerStep#2", "user_annotation", 2150, 500, 10, 10))
        trace["traceEvents"].append(_event("aten::add", "cpu_op", 2200, 50, 10, 10))
        with gzip.open(directory / f"rank-{rank}.json.gz", "wt") as handle:
            json.dump(trace, handle)
    theirs, ours = _both(directory, ranks=[0, 1])
    _assert_equal(theirs, ours)
    assert [len(frame) for frame in ours] == [2, 2]
    assert ours[1]["iteration"].tolist() == [1, 1]
