"""HTA 0.5.0's user-annotation breakdown, ATen operator launch delays and launch-queue analyses,
over the frame of _hta_frames.rank_frame (HTA's rows, labels and dtypes; names and categories as
strings where HTA keeps symbol ids).

Each function takes the same pandas steps as HTA in the same order, so that ties (equal sums,
equal timestamps) resolve as HTA's sorts resolve them on the same machine, and HTA's quirks are
kept where they shape a result: get_aten_op_kernels_and_delay gathers the launches of every rank
asked so far into each later rank's table, and does not require the operator to be on the
launch's thread; get_time_spent_blocked_on_full_queue keeps one row per rank (its last stream
with a full queue). Plots are not drawn.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional

import numpy as np

# HTA's KERNEL_LAUNCH_CATEGORY_PATTERN, matched from the name's start (re.match).
_KERNEL_LAUNCH = re.compile(r"(cuda.*LaunchKernel)|(cuLaunchKernel)|(^runFunction)")


def aggregate_by_name(kernels, num_kernels: int, duration_ratio: float,
                      allowlist_names: Optional[set] = None):
    """HTA's _aggr_gpu_kernel_time: per name the sum, max, min, mean and std of dur (µs), by sum
    descending; past `num_kernels` names, those beyond the first num_kernels or past the
    duration_ratio quantile of the cumulative sum become "others" (aggregated over their sums),
    except names in `allowlist_names` or, without an allowlist, names whose sum is negative
    (HTA's keep mask `sum < 0`)."""
    agg = kernels.groupby(by=["name"])["dur"].agg(["sum", "max", "min", "mean", "std"])
    agg.reset_index(inplace=True)
    agg = agg.sort_values(by=["sum"], ascending=False, ignore_index=True)
    agg.fillna({"std": 0}, inplace=True)
    if agg.shape[0] > num_kernels:
        if allowlist_names is not None:
            keep = agg["name"].isin(allowlist_names)
        else:
            # Meant to be always false: a name whose durations sum below zero (sub-µs kernels
            # rounded inward) keeps its own row.
            keep = agg["sum"] < 0
        agg["cumsum"] = agg["sum"].cumsum()
        quantile = agg["cumsum"].quantile(duration_ratio)
        agg.loc[~keep & (agg["cumsum"] > quantile), "name"] = "others"
        agg.loc[~keep & (agg.index >= num_kernels), "name"] = "others"
        agg = agg.groupby(by=["name"])["sum"].agg(["sum", "max", "min", "mean", "std"])
        agg.reset_index(inplace=True)
        agg.fillna({"std": 0}, inplace=True)
    return agg


def matched_symbols(symbols, patterns: List[str]) -> set:
    """HTA's find_matched_symbols: the symbols containing any of `patterns` (HTA escapes them,
    so they match as plain text despite its docstring; an empty list matches everything)."""
    pattern = re.compile("|".join(re.escape(p) for p in patterns))
    return {s for s in symbols if pattern.search(s)}


def user_annotation_breakdown(pd, frames_by_rank: Dict[int, object], annotation: str,
                              duration_ratio: float, num_kernels: int,
                              allowlist_names: Optional[set]):
    """HTA's get_gpu_user_annotation_breakdown over {rank: frame}: per rank the annotation
    events (category `annotation`) by name, aggregated as aggregate_by_name."""
    result = pd.DataFrame({
        "name": pd.Series(dtype="str"), "sum": pd.Series(dtype="int"),
        "max": pd.Series(dtype="int"), "min": pd.Series(dtype="int"),
        "std": pd.Series(dtype="float"), "mean": pd.Series(dtype="int"),
        "rank": pd.Series(dtype="int")})
    for rank, frame in frames_by_rank.items():
        annotations = frame[frame["cat"].eq(annotation)].copy()
        agg = aggregate_by_name(annotations, num_kernels, duration_ratio, allowlist_names)
        agg["rank"] = int(rank)
        result = pd.concat([result, agg], ignore_index=True)
    result.sort_values(by=["rank", "name"], ignore_index=True, inplace=True)
    result.rename(columns={"sum": "sum (us)", "mean": "mean (us)", "max": "max (us)",
                           "min": "min (us)", "std": "stddev"}, inplace=True)
    return result


def _deepest_aten_op(pd, op_ts, op_end, start, end) -> Optional[int]:
    """The position of the ATen operator (any thread) that starts last among those holding
    [start, end]; at equal starts the one HTA's sort (pandas' default, unstable) puts first,
    found by the same sort of the same values."""
    holding = np.flatnonzero((op_ts <= start) & (op_end >= end))
    if len(holding) == 0:
        return None
    starts = op_ts[holding]
    latest = np.flatnonzero(starts == starts.max())
    if len(latest) == 1:
        return int(holding[latest[0]])
    return int(holding[pd.Series(starts).sort_values(ascending=False).index[0]])


def aten_op_kernels_and_delay(pd, frames_by_rank: Dict[int, object], sort_by: List[str]):
    """HTA's get_aten_op_kernels_and_delay over {rank: frame} (in the order asked): per rank,
    per ATen operator and sequence of kernels it launched, the number of such sequences and the
    mean delays (µs) from the operator's start to its first launch and from that launch to its
    kernel's start. Raises where HTA raises: ValueError when a launch's kernel is missing or
    repeated, KeyError when no launch falls inside an ATen operator."""
    launches = []  # over all ranks so far, as HTA's list
    result = {}
    for rank, frame in frames_by_rank.items():
        aten_ops = frame[frame["name"].str.startswith("aten::")].copy()
        op_ts = aten_ops["ts"].to_numpy()
        op_end = (aten_ops["ts"] + aten_ops["dur"]).to_numpy()
        op_tids, op_names, op_starts = (aten_ops[c].tolist() for c in ("tid", "name", "ts"))
        runtime_launches = frame[frame["name"].map(lambda n: bool(_KERNEL_LAUNCH.match(n)))]
        kernels = frame[frame["stream"] != -1]
        kernel_rows: Dict[object, List[int]] = {}
        for position, link in enumerate(kernels["index_correlation"].tolist()):
            kernel_rows.setdefault(link, []).append(position)
        kernel_ts, kernel_names = kernels["ts"].tolist(), kernels["name"].tolist()
        # Python scalars, as HTA's iterrows over its mixed-type frame gives them.
        for ts, dur, index, correlation in zip(runtime_launches["ts"].tolist(),
                                               runtime_launches["dur"].tolist(),
                                               runtime_launches["index"].tolist(),
                                               runtime_launches["correlation"].tolist()):
            op = _deepest_aten_op(pd, op_ts, op_end, ts, ts + dur)
            if op is None:
                continue
            rows = kernel_rows.get(index, [])
            if len(rows) != 1:  # HTA's Series.item()
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            device_start = kernel_ts[rows[0]]
            launches.append({
                "thread_id": op_tids[op], "aten_op_name": op_names[op],
                "aten_op_start": op_starts[op], "runtime_start": ts, "device_start": device_start,
                "aten_op_delay": ts - op_starts[op], "runtime_delay": device_start - ts,
                "correlation_id": correlation, "kernel_name": kernel_names[rows[0]]})
        stats = pd.DataFrame(launches)
        grouped = (stats.groupby(["thread_id", "aten_op_name", "aten_op_start"])
                   .agg({"kernel_name": list, "correlation_id": list, "aten_op_delay": list,
                         "runtime_delay": list})
                   .reset_index())
        grouped["kernel_sequence"] = grouped["kernel_name"].apply(" -> ".join)
        grouped["correlation_ids"] = grouped["correlation_id"].apply(
            lambda ids: ", ".join(map(str, ids)))
        grouped["first_launch_delay"] = grouped["aten_op_delay"].apply(lambda d: d[0])
        grouped["first_runtime_delay"] = grouped["runtime_delay"].apply(lambda d: d[0])
        table = (grouped.groupby(["aten_op_name", "kernel_sequence"])
                 .agg(occurrence_count=("first_runtime_delay", "count"),
                      avg_aten_op_launch_delay=("first_launch_delay", "mean"),
                      avg_runtime_delay=("first_runtime_delay", "mean"))
                 .reset_index()).sort_values(sort_by, ascending=False)
        table["avg_runtime_delay"] = table["avg_runtime_delay"].round(3)
        table["avg_aten_op_launch_delay"] = table["avg_aten_op_launch_delay"].round(3)
        result[rank] = table
    return result


def time_blocked_on_full_queue(pd, series_by_rank: Dict[int, object], max_queue_length: int,
                               trace_duration):
    """HTA's get_time_spent_blocked_on_full_queue: per rank, for a stream whose queue reached
    `max_queue_length`, the time (µs) spent there (each change point lasts until the stream's
    next one) and that time over the rank's trace duration (`trace_duration(rank)`: last ts -
    first ts). One row per rank: HTA keeps its last such stream."""
    result = {}
    for rank, series in series_by_rank.items():
        for stream in series.stream.unique():
            points = series.loc[series.stream == stream].copy()
            points["dur"] = points.ts.shift(-1) - points.ts
            points = points.loc[series.queue_length >= max_queue_length]
            if points.empty:
                continue
            at_max = points.dur.sum()
            result[rank] = [stream, at_max, at_max * 1.0 / trace_duration(rank)]
    table = pd.DataFrame.from_dict(
        result, orient="index",
        columns=["stream", "duration_at_max_queue_length",
                 "relative_duration_at_max_queue_length"])
    return table.reset_index(names="rank")


_PROFILER_STEP = re.compile(r"ProfilerStep\s*#\s*(\d+)")


def profiler_steps(pd, frames) -> list:
    """HTA's get_profiler_steps: the numbers of the ProfilerStep events (names starting with
    "ProfilerStep", the number after '#') of every rank, ascending, as numpy integers."""
    numbers = []
    for frame in frames:
        for name in frame.loc[frame["name"].str.startswith("ProfilerStep"), "name"].tolist():
            match = _PROFILER_STEP.match(name)
            numbers.append(int(match.group(1)) if match else -1)
    unique = pd.Series(numbers, dtype="int64").unique()
    return sorted(i for i in unique if i != -1)


def late_start_comm_kernels(pd, df, num_candidates: int, min_normalized_duration: float = 0.01):
    """HTA's find_stragglers_with_late_start_comm_kernels over the frames of the selected
    iterations (names as strings): the last long NCCL kernel (`ncclKernel*`, at least
    `min_normalized_duration` of the mean iteration) per rank, stream, iteration and name; of the
    (stream, name) whose durations vary most across ranks, each rank's start normalised by the
    mean iteration; per rank the number of iterations where it is among the
    `num_candidates` latest."""
    iterations = sorted(e for e in df["iteration"].unique().tolist() if e not in [-1])
    df = df.loc[df["iteration"].isin(iterations)]
    t_min = df["ts"].min()
    mean_iter_time = ((df["ts"] + df["dur"]).max() - t_min) / float(len(iterations))
    min_duration = mean_iter_time * min_normalized_duration
    long_comm = df.loc[(df["stream"] > 0) & (df["iteration"] > 0) & (df["dur"] >= min_duration)
                       & df["name"].str.startswith("ncclKernel")]
    last = long_comm.groupby(["rank", "stream", "iteration", "name"], as_index=False).last()
    last["normalized_start_time"] = (last["ts"] - t_min) / mean_iter_time
    last["duration"] = last["dur"] / mean_iter_time
    spread = last.groupby(["stream", "iteration", "name"])["duration"].std()
    by_kernel = spread.groupby(["stream", "name"]).mean()
    if by_kernel.isna().all():
        # HTA fails here in pandas' idxmax: a ValueError without any long NCCL kernel, else a
        # TypeError (pandas 3: a ValueError too); the same types here, with the reason.
        error = ValueError if by_kernel.empty else TypeError
        raise error("no straggler to find: no NCCL kernel (ncclKernel*, at least "
                    f"{min_normalized_duration:.0%} of an iteration) ran on two or more ranks in "
                    "the same iteration")
    by_kernel = by_kernel.dropna()
    (stream, name) = by_kernel.idxmax()
    metric_df = last.loc[last["stream"].eq(stream) & last["name"].eq(name)]
    metric = "normalized_start_time"
    n_stragglers = max(num_candidates, 1)
    if metric_df["iteration"].nunique() <= 1:
        values = metric_df[["rank", metric]].copy()
        threshold = values.sort_values(by=metric, ascending=False)[metric].tolist()[
            n_stragglers - 1]
        values["is_straggler"] = values[metric].apply(lambda x: 1 if x >= threshold else 0)
        return values[["rank", "is_straggler"]].copy().set_index("rank")["is_straggler"]
    values = metric_df[["rank", "iteration", metric]].copy()
    values["is_straggler"] = 0
    for iteration, group in values.groupby("iteration"):
        if iteration < 0:
            continue
        threshold = group.sort_values(by=metric, ascending=False)[metric].tolist()[
            n_stragglers - 1]
        values.loc[group.index, "is_straggler"] = group[metric].apply(
            lambda x: 1 if x >= threshold else 0)
    return values.groupby("rank")["is_straggler"].sum()


def potential_stragglers(pd, frames_by_rank: Dict[int, object], available_steps: list,
                         steps: Optional[List[int]], num_candidates: int, identify):
    """HTA's get_potential_stragglers: the frames of every rank (with HTA's iteration column)
    over the selected profiler steps, given to `identify(df, num_candidates)` -> a Series of
    straggler counts by rank; the `num_candidates` ranks counted most often."""
    num_candidates = max(num_candidates, 1)
    valid = available_steps if steps is None else [i for i in steps if i in available_steps]
    if len(valid) == 0:
        raise ValueError(f"invalid value for argument: profiler_steps={steps}; available "
                         f"profiler steps={available_steps}")
    ranks = list(frames_by_rank)
    df_all = pd.concat([frames_by_rank[r] for r in ranks], axis=0, keys=ranks,
                       names=["rank", "idx"]).reset_index()
    counts = identify(df_all.loc[df_all["iteration"].isin(valid)], num_candidates)
    return counts.sort_values(ascending=False)[:num_candidates].index.tolist()
