"""HTA's per-rank trace frame rebuilt from the native reader's columns, and the analyses of HTA
that depend on its row order, row labels or column dtypes (idle time breakdown, CUDA kernel
launch statistics, queue length and memory bandwidth counters).

HTA keeps a rank's events in a pandas DataFrame in file order, labelled by their position in
traceEvents (column `index`); when it drops the last ProfilerStep, the frame becomes the kept GPU
kernels (in file order, each repeated once per kept CPU event of its correlation) followed by the
kept CPU events. Its analyses pick rows in that order (the streams come out in the order of their
first kernel there), look up launches by label (`join(on="index_correlation")`) and sort with
pandas' default (unstable) sort, whose order of equal timestamps depends on the input order.
To give HTA's numbers exactly, the frame is rebuilt here in HTA's order, with HTA's labels and
dtypes (from each event's file position and the column ranges, carried by the reader), and the
same pandas operations are applied to it. The reader does the parsing, HTA's row selection,
rounding, index_correlation and the last step's drop (trace/src/hta_convention.cpp).
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

# HTA's kernel categories for the idle time breakdown (breakdown_analysis.py).
KERNEL_CATEGORIES = ("kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy",
                     "mtia_ccp_events")
# HTA's IdleTimeType values and their names in the frame.
_HOST_WAIT, _KERNEL_WAIT, _OTHER = 0, 1, 2
_IDLE_NAMES = {_HOST_WAIT: "host_wait", _KERNEL_WAIT: "kernel_wait", _OTHER: "other"}


# TraceEvent::hta_flags bits (trace.h): the event gave its pid / tid as a string.
_STRING_PID, _STRING_TID = 16, 32


def downcast_dtype(value_range, wide: bool = False):
    """The integer dtype pandas' to_numeric(downcast="integer") gives a column whose values span
    `value_range` ((min, max) or None when empty): HTA downcasts every integer column of the
    parsed trace, before it drops the last step (TraceRun.info()["hta_ranges"])."""
    if wide:
        return np.int64
    if value_range is None:
        return np.int8
    low, high = value_range
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return dtype
    return np.int64


def _thread_ids(values: np.ndarray, value_range, any_string: bool, strings, is_string):
    """HTA's pid or tid column: the trace's integers (downcast), or, when some element of
    traceEvents gave a string (the reader stores it as -(1 + string id) and flags the event,
    `is_string`), a column of Python objects, ints and strings, as pandas builds it."""
    if not any_string:
        return values.astype(downcast_dtype(value_range))
    column = values.astype(np.int64).astype(object)  # Python ints
    if is_string.any():
        column[is_string] = np.array(strings, dtype=object)[-1 - values[is_string]]
    return column


def is_gpu_kernel(events) -> np.ndarray:
    """HTA's GPUKernelFilter per event: stream >= 0 and a correlation, or a CUDA sync event."""
    sync_ids = [i for i, s in enumerate(events["strings"]) if s in ("Event Sync", "Context Sync")]
    return (((events["stream"] >= 0) & (events["correlation"] >= 0))
            | np.isin(events["name"], sync_ids))


def row_order(events, dropped_last_step: bool) -> np.ndarray:
    """The events' positions in HTA's row order (the module's docstring)."""
    file_index = events["file_index"].astype(np.int64)
    if not dropped_last_step:
        return np.argsort(file_index, kind="stable")
    is_gpu = is_gpu_kernel(events)
    gpu = np.flatnonzero(is_gpu)
    gpu = gpu[np.argsort(file_index[gpu], kind="stable")]
    cpu = np.flatnonzero(~is_gpu)
    cpu = cpu[np.argsort(file_index[cpu], kind="stable")]
    return np.concatenate([gpu, cpu])


def rank_frame(pd, events, info, dropped_last_step: bool):
    """HTA's frame of one rank (columns ts, dur, stream, cat, name, correlation, index,
    index_correlation, in HTA's dtypes; index = HTA's row labels), in HTA's row order. `events`
    is TraceRun.events(i), `info` TraceRun.info(i). ts is not aligned (HTA subtracts the
    run's first timestamp; the counters do that themselves)."""
    strings = np.array(events["strings"], dtype=object)
    file_index = events["file_index"].astype(np.int64)
    stream = events["stream"]
    order = row_order(events, dropped_last_step)
    labels = file_index[order]
    wide = bool(np.any(events["hta_flags"] & 8))  # kHtaStreamWide: 4294967295 in HTA's column
    ranges = info["hta_ranges"]
    stream_dtype = downcast_dtype(ranges["stream"], wide)
    stream_values = stream[order].astype(np.int64)
    if wide:
        stream_values[stream_values == np.iinfo(np.int32).max] = 4294967295
    ts = events["ts_ns"][order] // 1000
    dur = events["dur_ns"][order] // 1000
    # pandas makes a column float64 when some element of traceEvents lacks the field (NaN);
    # HTA's rounding of fractional timestamps makes ts whole numbers again (int64 unless NaN),
    # and dur = floor(end) - ts. Integer columns are then downcast.
    ts_dtype = np.float64 if info["elements_without_ts"] else downcast_dtype(ranges["ts"])
    dur_dtype = np.float64 if info["hta_float_times"] else downcast_dtype(ranges["dur"])
    correlation = events["correlation"][order]
    # args."memory bandwidth (GB/s)", 0.0 where absent (HTA's default); the last one of an
    # event wins, as in Python's json.
    gbps = np.zeros(len(order), dtype=np.float64)
    bandwidth = dict(zip(events["bandwidth_file_index"].tolist(),
                         events["bandwidth_gbps"].tolist()))
    if bandwidth:
        keys = np.fromiter(bandwidth.keys(), dtype=np.int64, count=len(bandwidth))
        values = np.fromiter(bandwidth.values(), dtype=np.float64, count=len(bandwidth))
        sorter = np.argsort(keys)
        keys, values = keys[sorter], values[sorter]
        positions = file_index[order]
        found = np.minimum(np.searchsorted(keys, positions), len(keys) - 1)
        hit = keys[found] == positions
        gbps[hit] = values[found[hit]]
    return pd.DataFrame({
        "memory_bw_gbps": gbps,
        "pid": _thread_ids(events["pid"][order], ranges["pid"], info["string_pids"],
                           events["strings"], (events["hta_flags"][order] & _STRING_PID) != 0),
        "tid": _thread_ids(events["tid"][order], ranges["tid"], info["string_tids"],
                           events["strings"], (events["hta_flags"][order] & _STRING_TID) != 0),
        "ts": ts.astype(ts_dtype),
        "dur": dur.astype(dur_dtype),
        "stream": stream_values.astype(stream_dtype),
        "cat": strings[events["category"][order]],
        "name": strings[events["name"][order]],
        "correlation": correlation.astype(downcast_dtype(ranges["correlation"])),
        "index": file_index[order].astype(downcast_dtype(ranges["index"])),
        "index_correlation": events["hta_index_correlation"][order].astype(np.int64),
    }, index=pd.Index(labels.astype(downcast_dtype(ranges["index"]))))


# HTA's CPU calls that launch work on the GPU (cuda_kernel_analysis.py).
_LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC",
             "runFunction - job_prep_and_submit_for_execution")
_MEMORY_LAUNCHES = ("cudaMemsetAsync", "cudaMemcpyAsync")


def kernel_launch_stats(pd, frame, include_memory_events: bool):
    """HTA's cuda_kernel_launch_stats of one rank: per launch (correlation) the CPU call's and the
    GPU op's duration and the launch delay (GPU start - CPU end, clipped at 0), all µs."""
    launches = frame[frame["name"].isin(_LAUNCHES)].correlation
    if include_memory_events:
        memory = frame[frame["name"].isin(_MEMORY_LAUNCHES)].correlation
        launches = pd.concat([launches, memory])
    cpu = frame[frame["stream"].eq(-1)]
    gpu = frame[frame["stream"].ne(-1)]
    columns = ["correlation", "dur", "name", "ts"]
    joined = pd.merge(cpu[cpu["correlation"].isin(launches)][columns],
                      gpu[gpu["correlation"].isin(launches)][columns], how="inner",
                      on="correlation")
    joined["launch_delay"] = joined["ts_y"] - joined["ts_x"] - joined["dur_x"]
    joined["launch_delay"] = joined["launch_delay"].clip(lower=0)
    renamed = joined.rename(columns={"dur_x": "cpu_duration", "dur_y": "gpu_duration"})
    return renamed[["correlation", "cpu_duration", "gpu_duration", "launch_delay"]]


def idle_time_for_stream(pd, stream, gpu_kernels, consecutive_kernel_delay: int,
                         show_idle_interval_stats: bool):
    """HTA's _analyze_idle_time_for_stream, the same pandas operations in the same order."""
    interval_stats = None
    kernels = gpu_kernels[gpu_kernels.stream == stream].copy().sort_values(by="ts")
    kernels["end_ts"] = kernels.ts + kernels.dur
    kernels["prev_end_ts"] = kernels.end_ts.shift(1)
    kernels["idle_interval"] = kernels["ts"] - kernels["prev_end_ts"]
    kernels["idle_category"] = _OTHER
    # Host wait: the launch began after the previous kernel ended (the CPU was late).
    is_host_wait = kernels["ts_runtime"] > kernels["prev_end_ts"]
    kernels.loc[is_host_wait, "idle_category"] = _HOST_WAIT
    # Kernel wait: a gap shorter than the launch delay between back-to-back kernels.
    is_kernel_wait = ~is_host_wait & (kernels["idle_interval"] < consecutive_kernel_delay)
    kernels.loc[is_kernel_wait, "idle_category"] = _KERNEL_WAIT
    groups = kernels.groupby("idle_category")
    if show_idle_interval_stats:
        interval_stats = groups.idle_interval.describe()
        interval_stats.insert(0, "stream", stream)
    result = pd.DataFrame(groups.idle_interval.sum())
    total = result.idle_interval.sum()
    result["stream"] = stream
    result["idle_time_ratio"] = result["idle_interval"] / total
    result.rename(columns={"idle_interval": "idle_time"}, inplace=True)
    return result, interval_stats


def idle_time_breakdown(pd, frame, rank: int, streams: Optional[List[int]],
                        consecutive_kernel_delay: int, show_idle_interval_stats: bool):
    """HTA's BreakdownAnalysis.get_idle_time_breakdown for one rank's frame."""
    selected = frame[frame["stream"].ne(-1) & frame["cat"].isin(KERNEL_CATEGORIES)]
    pre = selected.drop(columns=["cat"]).set_index("index_correlation")
    # The launch of each kernel, looked up by HTA's row label (see the module's docstring).
    gpu_kernels = pre.join(frame[["ts", "index"]], on="index_correlation", rsuffix="_runtime")
    if not streams:
        streams = list(gpu_kernels.stream.unique())
    results, stats = [], []
    for stream in streams:
        breakdown, interval = idle_time_for_stream(pd, stream, gpu_kernels,
                                                   consecutive_kernel_delay,
                                                   show_idle_interval_stats)
        results.append(breakdown)
        if interval is not None:
            stats.append(interval)
    result = pd.concat(results)
    result.rename(mapper=_IDLE_NAMES, axis=0, inplace=True)
    result.reset_index(inplace=True)
    result["rank"] = rank
    interval_stats = pd.concat(stats).round(2) if show_idle_interval_stats else None
    if interval_stats is not None:
        interval_stats.insert(0, "rank", rank)
        interval_stats.rename(mapper=_IDLE_NAMES, axis=0, inplace=True)
    result = result[["rank", "stream", "idle_category", "idle_time", "idle_time_ratio"]].round(2)
    return result, interval_stats


# HTA's runtime calls that enqueue GPU work (TraceSymbolTable.get_runtime_launch_events_query).
RUNTIME_LAUNCHES = ("cudaMemsetAsync", "cudaMemcpyAsync", "cudaLaunchKernel",
                    "cudaLaunchKernelExC", "cuLaunchKernel",
                    "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
                    "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
                    "hipMemcpyWithStream")


def queue_length_time_series(pd, frame, first_ts):
    """HTA's _get_queue_length_time_series_for_rank: per stream, the number of GPU ops launched
    and not yet started, at each launch (+1) and each op's start (-1); None without any.
    `first_ts` is HTA's alignment (the run's first timestamp, µs, in its dtype)."""
    frame = frame.assign(ts=frame["ts"] - first_ts)
    runtime_calls = frame[frame["name"].isin(RUNTIME_LAUNCHES)
                          & (frame["index_correlation"] > 0)].copy()
    runtime_calls.drop(["stream", "pid", "tid"], axis=1, inplace=True)
    runtime_calls["queue"] = 1
    gpu_kernels = frame[frame["stream"].ne(-1)].copy()
    gpu_kernels["queue"] = -1
    # A launch takes the pid, tid and stream of its GPU op.
    runtime_calls = runtime_calls.join(
        gpu_kernels[["stream", "pid", "tid", "correlation"]].set_index("correlation"),
        on="correlation")
    gpu_kernels = gpu_kernels[gpu_kernels["correlation"].isin(runtime_calls["correlation"])]
    if len(runtime_calls) != len(gpu_kernels):
        # HTA's assertion, with the reason.
        raise AssertionError(f"{len(runtime_calls)} launches but {len(gpu_kernels)} GPU ops of "
                             "them: they do not pair up one to one")
    merged = pd.concat([runtime_calls, gpu_kernels]).sort_values(by="ts").set_index("index")
    per_stream = []
    for _, stream_df in merged.groupby("stream"):
        stream_df["queue_length"] = stream_df["queue"].cumsum()
        per_stream.append(stream_df)
    if not per_stream:
        return None
    return pd.concat(per_stream)[["ts", "pid", "tid", "stream", "queue_length"]]


def queue_length_summary(pd, series_by_rank):
    """HTA's get_queue_length_summary_from_time_series: describe() of queue_length per rank and
    stream over the change points (not weighted by time, as HTA)."""
    results = []
    for rank, rank_df in series_by_rank.items():
        rank_df["rank"] = rank
        results.append(rank_df[["rank", "stream", "queue_length"]].groupby(["rank", "stream"])
                       .describe())
    return pd.concat(results) if results else None


def _memory_kernel_type(name: str) -> str:
    """HTA's get_memory_kernel_type: "Memset", "Memcpy XtoY" (the name's first 11 characters) or
    "Memcpy Unknown"."""
    if name[:6] == "Memset":
        return "Memset"
    if name[:6] != "Memcpy":
        return "Memcpy Unknown"
    return name[:11]


def memory_bw_time_series(pd, frame, first_ts, kernel_types):
    """HTA's _get_memory_bw_time_series_for_rank: per memory-op kind (Memcpy DtoH, HtoD, DtoD,
    Memset ...) the bandwidth in use (GB/s, the sum of the running ops' memory_bw_gbps) at each
    op's start and end; None without memory ops. `kernel_types(names)` gives HTA's kernel type
    of each name."""
    frame = frame.assign(ts=frame["ts"] - first_ts)
    gpu_kernels = frame[frame["stream"].ne(-1)].copy()
    names = gpu_kernels["name"].to_numpy()
    unique = list(dict.fromkeys(names.tolist()))
    type_of = dict(zip(unique, kernel_types(unique)))
    gpu_kernels["kernel_type"] = [type_of[n] for n in names.tolist()]
    memory = gpu_kernels[gpu_kernels.kernel_type == "MEMORY"].copy()
    memory["name"] = [_memory_kernel_type(n) for n in memory["name"].tolist()]
    # A 0 µs op counts as 1 µs (HTA's guard against negative values).
    memory.loc[memory.dur == 0, ["dur"]] = 1
    starts = memory[["ts", "name", "pid", "memory_bw_gbps"]]
    ends = memory[["ts", "name", "dur", "pid", "memory_bw_gbps"]].copy()
    ends.ts = ends.ts + ends.dur
    ends.memory_bw_gbps = -ends.memory_bw_gbps
    series = pd.concat([starts, ends[["ts", "pid", "name", "memory_bw_gbps"]]],
                       ignore_index=True).sort_values(by="ts")
    per_kind = []
    for _, kind_df in series.groupby("name"):
        kind_df.memory_bw_gbps = kind_df.memory_bw_gbps.cumsum()
        per_kind.append(kind_df)
    if not per_kind:
        return None
    return pd.concat(per_kind)[["ts", "pid", "name", "memory_bw_gbps"]]


def memory_bw_summary(pd, series_by_rank):
    """HTA's get_memory_bw_summary: describe() of the bandwidth per rank and memory-op kind over
    the points where it is positive."""
    results = []
    for rank, rank_df in series_by_rank.items():
        rank_df["rank"] = rank
        rank_df = rank_df[rank_df.memory_bw_gbps > 0]
        results.append(rank_df[["rank", "name", "memory_bw_gbps"]].groupby(["rank", "name"])
                       .describe())
    return pd.concat(results) if results else None
