"""HTA 0.5.0's CUPTI counter analysis (get_cupti_counter_data_with_operators) over the frame of
_hta_frames.rank_frame and the call graph of _hta_call_stacks.

With PyTorch's CUPTI range profiler on, each kernel is one `cuda_profiler_range` event whose args
are the counters (smsp__sass_thread_inst_executed_op_ffma_pred_on.sum, ...). HTA pairs the i-th
such event (by ts) with the i-th cudaLaunchKernel* call (by ts) and adds the CPU operators around
that launch: op_stack (names of the enclosing cpu_op events, outermost first), top_level_op and
bottom_level_op. A rank where the two counts differ is left out (HTA logs an error).

The counters are read from the trace's own args here (the native reader keeps a fixed set of
fields), once per call, only for ranks that have such events. When HTA drops the last
ProfilerStep, it narrows the integer columns (bytes, external_id, iteration, the counters) over
the rows before that drop; here bytes, external_id and iteration are narrowed over the rows kept
after it, so their dtype could be narrower than HTA's (values beyond int8/int16 only in the
dropped step). Counter columns are in sorted
order: HTA's come in the iteration order of a Python set of strings, which changes with the hash
seed from one run to the next. Not thread-safe (builds its own frames per call).
"""

from __future__ import annotations

import gzip
import json
import logging
import re
from typing import Dict, List, Optional

import numpy as np

from xpuperf import _hta_call_stacks
from xpuperf._hta_frames import downcast_dtype

PROFILER_CATEGORY = "cuda_profiler_range"
_LOG = logging.getLogger("xpuperf.hta")


def read_counters(path: str, positions: List[int]) -> Dict[int, dict]:
    """{position in traceEvents: args} of the events at `positions` (the counter events)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        events = json.load(handle)["traceEvents"]
    out = {}
    for position in positions:
        args = events[position].get("args") if 0 <= position < len(events) else None
        out[position] = args if isinstance(args, dict) else {}
    return out


def _counter_column(values: List, rows: int):
    """HTA's column of one counter: its value on the counter events, -1 elsewhere, in the
    dtype pandas gives it and to_numeric(downcast="integer") then narrows (over every row of
    the rank, `rows` of them)."""
    column = np.asarray(values)
    if column.dtype.kind in "iu":
        low, high = min(int(column.min()), -1), max(int(column.max()), -1)
        return column.astype(downcast_dtype((low, high) if rows else None))
    return column


def _iterations(pd, frame):
    """HTA's add_iteration over the rank's frame: for CPU rows (stream < 0) the number of the
    last ProfilerStep (in frame order) whose [ts, ts + dur) holds the row's ts; for GPU rows
    (stream > 0) the iteration of the row index_correlation names; -1 where none (NaN, and then
    float64, for stream 0 rows, which HTA never assigns)."""
    steps = frame.loc[frame["name"].str.startswith("ProfilerStep")]
    spans = []
    for ts, dur, name in steps[["ts", "dur", "name"]].itertuples(index=False):
        match = re.match(r"ProfilerStep\s*#\s*(\d+)", name)
        if match:
            spans.append((ts, dur, int(match.group(1))))
    iteration = pd.Series(np.nan, index=frame.index, dtype=object)

    def step_of(ts) -> int:
        found = -1
        for start, dur, number in spans:
            if start <= ts < start + dur:
                found = number
        return found

    cpu = frame["stream"].lt(0)
    iteration.loc[cpu] = frame.loc[cpu, "ts"].map(step_of)
    gpu = frame["stream"].gt(0)
    iteration.loc[gpu] = frame.loc[gpu, "index_correlation"].map(
        lambda x: iteration.loc[x] if x > 0 and x in iteration.index else -1)
    return pd.to_numeric(iteration, downcast="integer")


def counter_frame(pd, frame, events, info, first_ts) -> Optional[object]:
    """HTA's frame of one rank for get_cupti_counter_data_with_operators, or None when the
    number of counter events and of kernel launches differ (HTA logs the same error)."""
    graph = _hta_call_stacks.CallGraph(pd, frame)
    df = graph.df
    kernels = df.loc[df["cat"].eq(PROFILER_CATEGORY)].copy().sort_values("ts").reset_index(
        drop=True)
    launches = df.loc[df["cat"].str.match("cuda_runtime")
                      & df["name"].str.match("cudaLaunchKernel")].sort_values("ts").reset_index(
                          drop=True)
    if len(launches) != len(kernels):
        _LOG.error("Number of kernels launches and kernels do not match for rank %s\n"
                   " kernel launches (%d) kernels (%d)", info["rank"], len(launches),
                   len(kernels))
        return None
    names = df["name"]
    stacks, tops, bottoms = [], [], []
    for launch in launches["index"].tolist():
        stack = graph.stack_of(launch, skip_ancestors=False).sort_values("ts")
        ops = stack.loc[stack["cat"].eq("cpu_op"), "index"].to_list()
        stacks.append([names.loc[op] for op in ops])
        tops.append(names.loc[ops[0]] if ops[0] >= 0 else "")  # IndexError without ops, as HTA
        bottoms.append(names.loc[ops[-1]] if ops[-1] >= 0 else "")

    # The native columns of the counter events, by position in traceEvents.
    file_index = events["file_index"].astype(np.int64)
    where = {position: i for i, position in enumerate(file_index.tolist())}
    rows = [where[position] for position in kernels["index"].astype(np.int64).tolist()]
    counters = read_counters(info["source"], kernels["index"].astype(np.int64).tolist())
    counter_names = sorted(set().union(*[set(a) for a in counters.values()])) if counters else []
    out = pd.DataFrame({"index": kernels["index"], "cat": kernels["cat"], "name": kernels["name"],
                        "pid": kernels["pid"], "tid": kernels["tid"],
                        "ts": kernels["ts"] - first_ts, "dur": kernels["dur"],
                        "stream": kernels["stream"], "correlation": kernels["correlation"]})
    for column in ("bytes", "external_id"):
        values = events[column]
        value_range = (int(values.min()), int(values.max())) if len(values) else None
        out[column] = values[rows].astype(np.int64).astype(downcast_dtype(value_range))
    out.insert(out.columns.get_loc("bytes") + 1, "memory_bw_gbps", kernels["memory_bw_gbps"])
    for column in ("wait_on_stream", "wait_on_cuda_event_record_corr_id"):
        out.insert(out.columns.get_loc("external_id"), column, np.full(len(out), -1, np.int8))
    for column in ("input_dims", "input_type", "input_strides"):
        out.insert(out.columns.get_loc("external_id"), column,
                   pd.Series(["-1"] * len(out), dtype=object))  # HTA's default, a string
    for name in counter_names:
        values = [counters[p].get(name, -1) for p in kernels["index"].astype(np.int64).tolist()]
        out[name] = _counter_column(values, len(df)) if values else np.array([], np.int8)
    out["index_correlation"] = kernels["index_correlation"].astype(np.int8) if len(
        kernels) else kernels["index_correlation"]
    out["iteration"] = _iterations(pd, df).loc[kernels["index"]].to_numpy()
    for column in ("end", "depth", "height", "parent", "num_kernels", "kernel_dur_sum",
                   "kernel_span", "first_kernel_start", "last_kernel_end"):
        out[column] = kernels[column]
    out["index_runtime"] = launches["index"]
    out["op_stack"] = pd.Series(stacks, dtype=object)
    out["top_level_op"] = pd.Series(tops, dtype=object)
    out["bottom_level_op"] = pd.Series(bottoms, dtype=object)
    return out
