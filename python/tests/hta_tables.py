#!/usr/bin/env python3
"""Writes xpuperf.hta's tables for every trace in a directory as JSON, for comparing two
environments (python/tests/test_hta_pandas3.py: pandas 3 against pandas 2.2.3).

    hta_tables.py TRACE_DIR OUT.json

Each trace file is read as a run of its own; every method of TraceAnalysis that returns tables
is called on its rank, and TraceDiff.compare_traces on the trace_compare pair when present.
Frames are written as columns, dtypes (pandas 3's `str` written as `object`, its name for the
same strings under pandas 2), index and values (repr); an exception as its type and message.
Run it with a fixed PYTHONHASHSEED: symbol ids and the critical path's row order follow it."""

import contextlib
import io
import json
import logging
import os
import sys
import tempfile
import warnings

import pandas as pd

from xpuperf.hta import TraceAnalysis, TraceDiff

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def normalized(value):
    if isinstance(value, pd.DataFrame):
        return {"columns": [str(c) for c in value.columns],
                "dtypes": [str(d).replace("str", "object") for d in value.dtypes],
                "index": [repr(i) for i in value.index.tolist()],
                "values": [[repr(v) for v in row] for row in value.astype(object).values.tolist()]}
    if isinstance(value, pd.Series):
        return {"name": str(value.name), "index": [repr(i) for i in value.index.tolist()],
                "values": [repr(v) for v in value.tolist()]}
    if isinstance(value, dict):
        return {str(k): normalized(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalized(v) for v in value]
    return repr(value)


def critical_path(a, rank):
    graph, ok = a.critical_path_analysis(rank, "", None)
    return graph.get_critical_path_breakdown(), graph.summary(), ok


CALLS = {
    "temporal": lambda a, r: a.get_temporal_breakdown(visualize=False),
    "kernels": lambda a, r: a.get_gpu_kernel_breakdown(visualize=False),
    "overlap": lambda a, r: a.get_comm_comp_overlap(visualize=False),
    "idle": lambda a, r: a.get_idle_time_breakdown(ranks=[r], visualize=False,
                                                   show_idle_interval_stats=True),
    "launches": lambda a, r: a.get_cuda_kernel_launch_stats(ranks=[r], visualize=False),
    "queue": lambda a, r: a.get_queue_length_summary(ranks=[r]),
    "queue_series": lambda a, r: a.get_queue_length_time_series(ranks=[r]),
    "blocked": lambda a, r: a.get_time_spent_blocked_on_full_queue(
        a.get_queue_length_time_series(ranks=[r])),
    "bandwidth": lambda a, r: a.get_memory_bw_summary(ranks=[r]),
    "bandwidth_series": lambda a, r: a.get_memory_bw_time_series(ranks=[r]),
    "annotations": lambda a, r: a.get_gpu_user_annotation_breakdown(visualize=False),
    "annotated_kernels": lambda a, r: a.get_gpu_kernels_with_user_annotations(r),
    "aten": lambda a, r: a.get_aten_op_kernels_and_delay(ranks=[r]),
    "steps": lambda a, r: a.get_profiler_steps(),
    "stragglers": lambda a, r: a.get_potential_stragglers(),
    "counters": lambda a, r: a.get_cupti_counter_data_with_operators(ranks=[r]),
    "sequences": lambda a, r: a.get_frequent_cuda_kernel_sequences(
        "aten::", tempfile.mkdtemp(), rank=r),
    "critical_path": critical_path,
    "trace": lambda a, r: a.t.get_trace(r),
}


def main():
    trace_dir, out = sys.argv[1], sys.argv[2]
    tables = {}
    names = sorted(n for n in os.listdir(trace_dir) if n.endswith((".json", ".json.gz")))
    runs = {}
    for name in names:
        directory = tempfile.mkdtemp()
        os.symlink(os.path.join(trace_dir, name), os.path.join(directory, name))
        runs[name] = directory
        analysis = TraceAnalysis(trace_dir=directory)
        rank = analysis._ranks[0]
        for label, call in CALLS.items():
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    tables[f"{name} {label}"] = normalized(call(analysis, rank))
            except Exception as error:  # the same error in both environments is a match too
                tables[f"{name} {label}"] = f"{type(error).__name__}: {error}"
    pair = [n for n in names if n.startswith("trace_compare__")]
    if len(pair) == 2:
        tables["compare_traces"] = normalized(TraceDiff.compare_traces(runs[pair[0]],
                                                                       runs[pair[1]]))
    with open(out, "w") as handle:
        json.dump({"pandas": pd.__version__, "tables": tables}, handle)


if __name__ == "__main__":
    main()
