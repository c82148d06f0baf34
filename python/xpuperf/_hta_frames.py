"""HTA's per-rank trace frame rebuilt from the native reader's columns, and the analyses of HTA
that depend on its row order, row labels or column dtypes (idle time breakdown, CUDA kernel
launch statistics).

HTA keeps a rank's events in a pandas DataFrame in file order, labelled by their position in
traceEvents (column `index`); when it drops the last ProfilerStep, the frame becomes the kept GPU
kernels (relabelled 0..k-1 by its merge) followed by the kept CPU events (their file positions).
Its idle-time breakdown looks up each kernel's launch by label (`join(on="index_correlation")`),
so a label shared by a kernel and a CPU event yields two rows, and it sorts kernels with pandas'
default (unstable) sort. To give HTA's numbers exactly, the frame is rebuilt here in HTA's order
with HTA's labels (from each event's file position, carried by the reader) and the same pandas
operations are applied to it. The reader does the parsing, HTA's row selection, rounding and
index_correlation (trace/src/hta_convention.cpp).
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


def _downcast_dtype(values: np.ndarray, wide: bool):
    """The integer dtype pandas' to_numeric(downcast="integer") gives a column holding `values`
    (HTA downcasts every integer column of the parsed trace)."""
    if wide or len(values) == 0:
        return np.int64 if wide else np.int8
    low, high = int(values.min()), int(values.max())
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return dtype
    return np.int64


def rank_frame(pd, events, time_dtype, dropped_last_step: bool):
    """HTA's frame of one rank (columns ts, dur, stream, cat, name, correlation, index,
    index_correlation, in HTA's dtypes; index = HTA's row labels), in HTA's row order. `events`
    is TraceRun.events(i). ts is not aligned (HTA subtracts the run's first timestamp): only
    differences of it are used."""
    strings = np.array(events["strings"], dtype=object)
    file_index = events["file_index"].astype(np.int64)
    stream = events["stream"]
    name = events["name"]
    sync_ids = [i for i, s in enumerate(events["strings"]) if s in ("Event Sync", "Context Sync")]
    is_gpu = ((stream >= 0) & (events["correlation"] >= 0)) | np.isin(name, sync_ids)
    if dropped_last_step:
        gpu = np.flatnonzero(is_gpu)
        gpu = gpu[np.argsort(file_index[gpu], kind="stable")]
        cpu = np.flatnonzero(~is_gpu)
        cpu = cpu[np.argsort(file_index[cpu], kind="stable")]
        order = np.concatenate([gpu, cpu])
        labels = np.concatenate([np.arange(len(gpu), dtype=np.int64), file_index[cpu]])
    else:
        order = np.argsort(file_index, kind="stable")
        labels = file_index[order]
    wide = bool(np.any(events["hta_flags"] & 8))  # kHtaStreamWide: 4294967295 in HTA's column
    stream_dtype = _downcast_dtype(stream, wide)
    stream_values = stream[order].astype(np.int64)
    if wide:
        stream_values[stream_values == np.iinfo(np.int32).max] = 4294967295
    ts = events["ts_ns"][order] // 1000
    dur = events["dur_ns"][order] // 1000
    if time_dtype is np.int64:
        # Whole-µs traces: HTA's integer columns are downcast (before its alignment, which
        # subtracts a scalar of the same dtype); fractional ones are float64.
        ts_dtype, dur_dtype = _downcast_dtype(ts, False), _downcast_dtype(dur, False)
    else:
        ts_dtype = dur_dtype = np.float64
    correlation = events["correlation"][order]
    return pd.DataFrame({
        "ts": ts.astype(ts_dtype),
        "dur": dur.astype(dur_dtype),
        "stream": stream_values.astype(stream_dtype),
        "cat": strings[events["category"][order]],
        "name": strings[events["name"][order]],
        "correlation": correlation.astype(_downcast_dtype(correlation, False)),
        "index": file_index[order],
        "index_correlation": events["hta_index_correlation"][order].astype(np.int64),
    }, index=pd.Index(labels))


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
