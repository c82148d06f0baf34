"""HTA's get_gpu_kernels_with_user_annotations and the symbol table its frames are encoded with.

HTA returns the GPU kernels of a rank's frame with every column of that frame (cat and name as
ids of its symbol table) and `user_annotation`, the id of the GPU user annotation the kernel is
attributed to: of the annotations on the kernel's pid and tid whose [ts, end) overlaps the
kernel's [ts, end), the one HTA processes last, i.e. the last in its descending sort by duration
(the innermost). The frame's columns past those the other analyses use (bytes, wait_on_*, input_*,
external_id, iteration) come from the native reader (TraceRun.events/info, hta_* fields), built
here in HTA's dtypes and column order.
"""

from __future__ import annotations

from typing import Dict, List

import numpy as np

from xpuperf import _hta_frames
from xpuperf._hta_trace_diff import shorten_name

_NO_ITERATION = np.iinfo(np.int32).min  # kHtaNoIteration: NaN in HTA's iteration column


class SymbolTable:
    """HTA's TraceSymbolTable of a run: the symbols (categories and names of the rows HTA keeps,
    before the last step's drop) and their ids. Built as HTA builds it: per rank, ascending,
    the iteration order of set(categories) | set(names), so that within one Python process the
    ids are HTA's (Python's string hashes, and with them a set's order, vary per process)."""

    def __init__(self, infos_by_rank: List[Dict]):
        self.sym_table: List[str] = []
        self.sym_index: Dict[str, int] = {}
        for info in infos_by_rank:
            symbols = set(info["hta_symbol_categories"]).union(set(info["hta_symbol_names"]))
            for symbol in symbols:
                if symbol not in self.sym_index:
                    self.sym_index[symbol] = len(self.sym_table)
                    self.sym_table.append(symbol)

    def get_sym_table(self) -> List[str]:
        return self.sym_table

    def get_sym_id_map(self) -> Dict[str, int]:
        return self.sym_index


def _ids(names: np.ndarray, symbols: SymbolTable) -> np.ndarray:
    index = symbols.sym_index
    return np.fromiter((index[n] for n in names.tolist()), dtype=np.int64, count=len(names))


def kernel_frame(pd, frame, events, info, dropped_last_step: bool, symbols: SymbolTable,
                 first_ts):
    """HTA's frame of the rank restricted to its GPU kernels (GPUKernelFilter), every column in
    HTA's order and dtype, ts aligned by `first_ts`, plus end and user_annotation = -1.
    `frame` is the rank's _hta_frames.rank_frame."""
    order = _hta_frames.row_order(events, dropped_last_step)
    kernels = trace_frame(pd, frame, events, info, dropped_last_step, symbols, first_ts,
                          _hta_frames.is_gpu_kernel(events)[order], aligned_end=True)
    kernels["user_annotation"] = np.full(len(kernels), -1, dtype=np.int64)
    return kernels


def trace_frame(pd, frame, events, info, dropped_last_step: bool, symbols: SymbolTable,
                first_ts, selected=None, aligned_end: bool = False):
    """HTA's frame of the rank (its Trace.get_trace(rank)): every column in HTA's order and
    dtype, cat and name as ids of `symbols`, ts aligned by `first_ts`; the rows of `frame` (the
    rank's _hta_frames.rank_frame) where `selected` (a mask in its row order) holds, or all of
    them. HTA computes `end` before it aligns ts, so its end stays in the trace's clock; with
    `aligned_end`, end = the aligned ts + dur (the frame of the annotated GPU kernels). The
    input_dims, input_type and input_strides columns are HTA's default "-1" (the reader does
    not keep the operators' input shapes)."""
    order = _hta_frames.row_order(events, dropped_last_step)
    if selected is None:
        selected = np.ones(len(order), dtype=bool)
    rows = order[selected]
    ranges = info["hta_ranges"]
    sub = frame[selected]
    ts = sub["ts"] - first_ts
    dur = sub["dur"]
    # round_down_time_stamps ran at parse when ts was float64 (fractional or missing ts): it
    # made `end` then, right after dur; otherwise parse_trace_file appends it last.
    end_after_dur = bool(info["fractional_timestamps"] or info["elements_without_ts"])
    iteration = events["hta_iteration"][rows]
    if info["hta_iteration_nan"]:
        iteration = np.where(iteration == _NO_ITERATION, np.nan, iteration.astype(np.float64))
    else:
        iteration = iteration.astype(_hta_frames.downcast_dtype(ranges["iteration"]))
    n = len(rows)

    def column(name):
        return events[name][rows].astype(np.int64).astype(
            _hta_frames.downcast_dtype(ranges[name]))

    # The symbol id of each of the reader's strings, then of each row's category and name.
    index = symbols.sym_index
    symbol_of = np.array([index.get(s, -1) for s in events["strings"]], dtype=np.int64)
    columns = {"index": sub["index"], "cat": symbol_of[events["category"][rows]],
               "name": symbol_of[events["name"][rows]], "pid": sub["pid"],
               "tid": sub["tid"], "ts": ts, "dur": dur}
    end = ts + dur if aligned_end else sub["ts"] + dur
    if end_after_dur:
        columns["end"] = end
    defaults = np.full(n, "-1", dtype=object)  # HTA's default of the Input * args
    columns.update({
        "stream": sub["stream"], "correlation": sub["correlation"], "bytes": column("bytes"),
        "memory_bw_gbps": sub["memory_bw_gbps"], "wait_on_stream": column("wait_on_stream"),
        "wait_on_cuda_event_record_corr_id": column("wait_on_cuda_event_record_corr_id"),
        "input_dims": defaults, "input_type": defaults.copy(), "input_strides": defaults.copy(),
        "external_id": column("external_id"),
        "index_correlation": sub["index_correlation"].to_numpy().astype(
            _hta_frames.downcast_dtype(ranges["index_correlation"])),
        "iteration": iteration})
    if not end_after_dur:
        columns["end"] = end
    return pd.DataFrame({k: np.asarray(v) for k, v in columns.items()}, index=sub.index)


def annotate(pd, kernels, frame, first_ts, symbols: SymbolTable) -> None:
    """HTA's _associate_gpu_kernels_with_user_annotations on `kernels` (kernel_frame), from the
    gpu_user_annotation rows of the rank's `frame`: per annotation in HTA's order (descending
    duration, pandas' sort), the kernels on its pid and tid that overlap it take its name id."""
    notes = frame[frame["cat"] == "gpu_user_annotation"]
    notes = notes.assign(ts=notes["ts"] - first_ts)
    notes = notes.assign(end=notes["ts"] + notes["dur"])[["pid", "tid", "ts", "end", "dur",
                                                          "name"]]
    notes = notes.sort_values("dur", ascending=False)
    # As HTA, both sides become left-closed intervals, which fails where an end precedes its
    # start: a sub-microsecond op of a trace with fractional timestamps, after HTA's rounding.
    for what, rows in (("GPU user annotation", notes), ("GPU kernel", kernels)):
        try:
            pd.IntervalIndex.from_arrays(rows["ts"], rows["end"], closed="left")
        except ValueError as error:
            raise ValueError(f"a {what} ends before it starts once rounded to whole µs as HTA "
                             f"rounds (ts up, end down); HTA fails here too ({error})") from None
    note_ids = _ids(notes["name"].to_numpy(), symbols)
    k_ts, k_end = kernels["ts"].to_numpy(), kernels["end"].to_numpy()
    assigned = kernels["user_annotation"].to_numpy().copy()
    # The kernels of each pid and tid, so that each annotation is matched against its own.
    positions: Dict[tuple, List[int]] = {}
    for position, key in enumerate(zip(kernels["pid"].tolist(), kernels["tid"].tolist())):
        positions.setdefault(key, []).append(position)
    groups = {key: (np.asarray(at), k_ts[at], k_end[at]) for key, at in positions.items()}
    n_ts, n_end = notes["ts"].to_numpy(), notes["end"].to_numpy()
    for i, key in enumerate(zip(notes["pid"].tolist(), notes["tid"].tolist())):
        group = groups.get(key)
        if group is None:
            continue
        at, ts, end = group
        assigned[at[(ts < n_end[i]) & (n_ts[i] < end)]] = note_ids[i]
    kernels["user_annotation"] = assigned


def decode(frame, symbols: SymbolTable, shorten: bool) -> None:
    """HTA's decode_symbol_id_to_symbol_name: s_name, s_cat, s_user_annotation ("" for -1),
    names shortened (HTA's shorten_name) when asked. Each distinct id is looked up once (HTA
    shortens its whole table and calls a function per row: the same column)."""

    def name_of(idx):
        if idx < 0:
            return ""
        return shorten_name(symbols.sym_table[idx]) if shorten else symbols.sym_table[idx]

    for column in ("name", "cat", "user_annotation"):
        if column in frame.columns and frame[column].dtype.kind == "i":
            ids = frame[column]
            # An empty column keeps the dtype pandas' apply gives it, as in HTA.
            frame[f"s_{column}"] = (ids.map({i: name_of(i) for i in ids.unique().tolist()})
                                    if len(ids) else ids.apply(name_of))
