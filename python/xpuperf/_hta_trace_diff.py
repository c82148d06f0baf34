"""HTA 0.5.0's TraceDiff (hta.trace_diff) over xpuperf.hta's frames: per op name, the counts
and total duration (µs) of two traces' ops in the chosen ranks and ProfilerStep iterations, and
their differences. The same pandas steps as HTA, so the same columns, dtypes and row order.

Iterations as HTA's add_iteration: a CPU event belongs to the ProfilerStep#N whose interval
[ts, ts + dur) holds its start (the last such step in the trace's order), a GPU op to its
launch's (index_correlation), anything else to -1. Not thread-safe (caches per trace).
"""

from __future__ import annotations

import functools
import os
import random
import re
from enum import Enum
from typing import Dict, List, Optional

import numpy as np


class DeviceType(Enum):
    CPU = 1
    GPU = 2
    ALL = 3


def _iterations(pd, frame):
    """HTA's iteration column of one rank's frame."""
    steps = frame.loc[frame["name"].str.startswith("ProfilerStep")]
    step_rows = [(ts, dur, int(re.match(r"ProfilerStep\s*#\s*(\d+)", name).group(1)))
                 for ts, dur, name in zip(steps["ts"], steps["dur"], steps["name"])]
    ts = frame["ts"].to_numpy()
    stream = frame["stream"].to_numpy().astype(np.int64)
    iteration = np.full(len(frame), np.nan)
    for i in np.flatnonzero(stream < 0):
        found = -1
        for start, dur, number in step_rows:
            if start <= ts[i] < start + dur:
                found = number
        iteration[i] = found
    by_index = {int(k): v for k, v, s in zip(frame["index"], iteration, stream) if s < 0}
    correlation = frame["index_correlation"].to_numpy()
    for i in np.flatnonzero(stream > 0):
        x = int(correlation[i])
        iteration[i] = by_index.get(x, np.nan) if x > 0 else -1
    return pd.to_numeric(pd.Series(iteration, index=frame.index), downcast="integer")


class LabeledTrace:
    """HTA's LabeledTrace: a trace directory (or an xpuperf.hta.TraceAnalysis, `t`) and the
    label its columns get in the comparison."""

    def __init__(self, label: Optional[str] = None, t=None, trace_dir: Optional[str] = None):
        from xpuperf.hta import TraceAnalysis

        self.label = label if label else f"t{random.randint(0, 10)}"
        if t is not None:
            self.t = t
        elif trace_dir is not None and os.path.isdir(trace_dir):
            # HTA parses the directory itself here (Trace.parse_traces): every step is kept.
            self.t = TraceAnalysis(trace_dir=trace_dir, include_last_profiler_step=True)
        else:
            raise ValueError("either a trace object or a valid trace dir must be provided in "
                             "LabeledTrace.__init__()")

    def ranks(self) -> List[int]:
        return sorted(self.t._ranks)

    def iterations(self) -> List[int]:
        """Every ProfilerStep number named in the trace files (the dropped last step too)."""
        numbers = set()
        for i in range(len(self.t._ranks)):
            for s in self.t._run.events(i)["strings"]:
                if s.startswith("ProfilerStep"):
                    numbers.add(int(s.replace("ProfilerStep#", "")))
        return sorted(numbers)

    def _rank_frame(self, rank: int):
        index = self.t._rank_index(rank)
        frame = self.t._frame(index).copy()
        frame["iteration"] = _iterations(_pandas(), frame)
        return frame

    def extract_ops(self, rank=None, iteration=None, device_type: DeviceType = DeviceType.ALL):
        pd = _pandas()
        all_ranks = self.ranks()
        if rank is None:
            if not all_ranks:
                raise ValueError(f"Trace {self.label} doesn't have any rank.")
            ranks = all_ranks[:1]
        elif isinstance(rank, int):
            ranks = [rank]
        elif isinstance(rank, list):
            ranks = rank
        else:
            raise ValueError(f"Invalid type for argument `rank` {rank}.")
        for r in ranks:
            if r not in all_ranks:
                raise ValueError(f"Invalid argument rank={rank}.")
        all_iterations = self.iterations()
        if iteration is None:
            if not all_iterations:
                raise ValueError(f"Trace {self.label} doesn't have any iteration.")
            iterations = all_iterations[:1]
        elif isinstance(iteration, int):
            iterations = [iteration]
        elif isinstance(iteration, list):
            iterations = iteration
        else:
            raise ValueError(f"Invalid type for argument `iteration` {iteration}.")
        for number in iterations:
            if number not in all_iterations:
                raise ValueError(f"Invalid argument iteration={number}.")
        if len(ranks) == 1:
            df = self._rank_frame(ranks[0])
        else:
            df = pd.concat([self._rank_frame(r) for r in ranks], axis=0, keys=all_ranks,
                           names=["rank", "idx"]).reset_index()
        df = df[df["iteration"].isin(iterations)]
        if device_type == DeviceType.CPU:
            return df[df["stream"].eq(-1)]
        if device_type == DeviceType.GPU:
            return df[df["stream"].ne(-1)]
        return df

    def get_ops_summary(self, ops):
        df = ops[["cat", "name", "dur"]].groupby(["cat", "name"]).aggregate(["count", "sum"])
        df.columns = ["_".join(col).rstrip("_") for col in df.columns.values]
        df.reset_index(inplace=True)
        df.rename(columns={"dur_count": "counts", "dur_sum": "total_duration"}, inplace=True)
        df["short_name"] = df["name"].apply(shorten_name)
        return df[["cat", "name", "short_name", "counts", "total_duration"]]


_MEMORY_KERNEL = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")


@functools.lru_cache(maxsize=1 << 16)
def shorten_name(name: str) -> str:
    """HTA's shorten_name: a name without its <template arguments>, (arguments) and "->", the
    last space-separated word of what remains; memory ops and names without "<" or "(" as
    they are."""
    if _MEMORY_KERNEL.match(name) is not None:
        return name
    if name.find("<") < 0 and name.find("(") < 0:
        return name
    kept: List[str] = []
    for c in name.replace("->", ""):
        if c in ">)":
            opener = "<" if c == ">" else "("
            while kept and kept[-1] != opener:
                kept.pop()
            if kept and kept[-1] == opener:
                kept.pop()
        else:
            kept.append(c)
    return "".join(kept).split(" ")[-1]


def _pandas():
    import pandas as pd

    return pd


def _adapt(t, default_label: str) -> LabeledTrace:
    from xpuperf.hta import TraceAnalysis

    if isinstance(t, str):
        return LabeledTrace(label=default_label, trace_dir=t)
    if isinstance(t, TraceAnalysis):
        return LabeledTrace(label=default_label, t=t)
    if isinstance(t, LabeledTrace):
        return t
    raise ValueError(f"Invalid argument type for ({t}).")


class TraceDiff:
    """HTA's TraceDiff: compare_traces and ops_diff (the visualize_* plots are not drawn)."""

    @classmethod
    def compare_traces(cls, control, test, control_rank=None, test_rank=None,
                       control_iteration=None, test_iteration=None,
                       device_type: DeviceType = DeviceType.ALL, use_short_name: bool = False):
        """Per op name (or short name): each trace's counts and total_duration (µs) as
        <label>_counts, <label>_total_duration, and diff_counts, diff_duration (test - control),
        counts_change_categories ("+", "-", "=")."""
        pd = _pandas()
        control_trace = _adapt(control, "Control")
        test_trace = _adapt(test, "Test")
        if control_trace.label == test_trace.label:
            test_trace.label = f"{test_trace.label}_control"
            test_trace.label = f"{test_trace.label}_test"
        control_label, test_label = control_trace.label, test_trace.label
        column = "short_name" if use_short_name else "name"
        control_summary = (control_trace.get_ops_summary(
            control_trace.extract_ops(control_rank, control_iteration, device_type))
            .groupby(column)[["counts", "total_duration"]].sum())
        test_summary = (test_trace.get_ops_summary(
            test_trace.extract_ops(test_rank, test_iteration, device_type))
            .groupby(column)[["counts", "total_duration"]].sum())
        comp = pd.concat([control_summary, test_summary], axis=1, join="outer",
                         keys=[control_label, test_label])
        comp.fillna(0, inplace=True)
        if isinstance(comp.columns, pd.MultiIndex):
            comp.columns = ["_".join(col).rstrip("_") for col in comp.columns]
        comp["diff_counts"] = comp[f"{test_label}_counts"] - comp[f"{control_label}_counts"]
        comp["diff_duration"] = (comp[f"{test_label}_total_duration"]
                                 - comp[f"{control_label}_total_duration"])
        comp["counts_change_categories"] = comp["diff_counts"].apply(
            lambda c: "+" if c > 0 else "-" if c < 0 else "=")
        return comp

    @classmethod
    def ops_diff(cls, control, test, control_rank=None, test_rank=None, control_iteration=None,
                 test_iteration=None, device_type: DeviceType = DeviceType.ALL) -> Dict:
        """The op names added, deleted, increased, decreased and unchanged (by count)."""
        control_trace = _adapt(control, "Control")
        test_trace = _adapt(test, "Test")
        df = cls.compare_traces(control_trace, test_trace, control_rank, test_rank,
                                control_iteration, test_iteration, device_type)
        col_control = f"{control_trace.label}_counts"
        col_test = f"{test_trace.label}_counts"
        return {
            "added": df.loc[df[col_control].eq(0) & df[col_test].gt(0)].index.tolist(),
            "deleted": df.loc[df[col_control].gt(0) & df[col_test].eq(0)].index.tolist(),
            "increased": df.loc[df[col_control].gt(0) & df["diff_counts"].gt(0)].index.tolist(),
            "decreased": df.loc[df[col_test].gt(0) & df["diff_counts"].lt(0)].index.tolist(),
            "unchanged": df.loc[df[col_test].gt(0) & df["diff_counts"].eq(0)].index.tolist(),
        }
