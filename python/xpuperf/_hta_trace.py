"""HTA's Trace object (TraceAnalysis.t): the per-rank frames HTA's analyses run on, for the
notebooks that reach past the analyses (`analyzer.t.get_trace(0)`, `analyzer.t.symbol_table`).

A rank's frame is HTA's get_trace(rank): its rows in HTA's order and labels, every column in HTA's
order and dtypes, cat and name as symbol ids, ts aligned to the run's first timestamp
(_hta_kernel_annotations.trace_frame). The reader does not keep the operators' input shapes, so
the input_dims, input_type and input_strides columns are read from the trace file (Python's json,
as HTA reads them: the args' value, or "-1") the first time a rank's frame is asked for here.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

import numpy as np

from xpuperf import _hta_frames, _hta_kernel_annotations, _hta_trace_writer

# HTA's ParserConfig: frame column <- args key (configs/default_event_args.py), default "-1".
_INPUT_ARGS = (("input_dims", "Input Dims"), ("input_type", "Input type"),
               ("input_strides", "Input Strides"))
_PROFILER_RANGE = "cuda_profiler_range"


class Trace:
    """HTA's hta.common.trace.Trace of a TraceAnalysis: traces, trace_files, symbol_table,
    min_ts, trace_path, and the methods get_ranks, get_iterations, get_trace_duration,
    get_trace, get_all_traces, get_raw_trace_for_one_rank, write_raw_trace, decode_symbol_ids,
    convert_time_series_to_events and flow_event. The frames are built on first use and kept:
    changing one changes what get_trace returns next, as in HTA. Not provided: meta_data (the
    files' headers) and the parse methods (the run is read when TraceAnalysis is made)."""

    is_parsed = True

    def __init__(self, analysis, trace_path: str):
        self._analysis = analysis
        self.trace_path = trace_path
        self._with_inputs: set = set()

    # -- attributes ------------------------------------------------------------------------------
    @property
    def symbol_table(self):
        return self._analysis.symbol_table

    @property
    def min_ts(self):
        return self._analysis._first_ts()

    @property
    def trace_files(self) -> Dict[int, str]:
        """{rank: path of its trace file}."""
        a = self._analysis
        return {a._ranks[i]: a._originals.get(a._infos[i]["source"], a._infos[i]["source"])
                for i in a._order}

    @property
    def traces(self) -> Dict[int, Any]:
        return self.get_all_traces()

    # -- HTA's methods ---------------------------------------------------------------------------
    def get_ranks(self) -> List[int]:
        """The run's ranks, ascending."""
        return sorted(self._analysis._ranks)

    def get_trace(self, rank: int):
        """HTA's frame of `rank` (ValueError when the run has no such rank)."""
        index = self._analysis._rank_index(rank)
        frame = self._analysis._trace_frame(index)
        if index not in self._with_inputs:
            self._read_inputs(index, frame)
            self._with_inputs.add(index)
        return frame

    def get_all_traces(self) -> Dict[int, Any]:
        """{rank: frame} for every rank, ascending."""
        return {rank: self.get_trace(rank) for rank in self.get_ranks()}

    def _first_rank(self, rank: Optional[int]) -> int:
        if rank is None:
            ranks = self.get_ranks()
            return ranks[0] if ranks else -1
        return rank

    def get_iterations(self, rank: Optional[int] = None) -> List[int]:
        """The iterations (ProfilerStep numbers) of `rank` (default: the first), [] when none."""
        rank = self._first_rank(rank)
        if rank not in self.get_ranks():
            return []
        frame = self.get_trace(rank)
        if "iteration" not in frame.columns:
            return []
        return sorted([i for i in frame["iteration"].unique() if i >= 0])

    def get_trace_duration(self, rank: Optional[int] = None):
        """Last ts - first ts (µs) of `rank` (default: the first)."""
        frame = self.get_trace(self._first_rank(rank))
        return frame.ts.max() - frame.ts.min()

    def get_raw_trace_for_one_rank(self, rank: int = 0) -> Dict[str, Any]:
        """The rank's trace file as JSON (ValueError when the run has no such rank)."""
        files = self.trace_files
        if rank not in files:
            raise ValueError(f"no trace for rank {rank} (ranks: {sorted(files)})")
        return _hta_trace_writer.read_raw_trace(files[rank])

    @staticmethod
    def write_raw_trace(output_file: str, trace_contents: Dict[str, Any]) -> None:
        """As HTA writes a trace: gzip whatever the name, JSON indented by 2."""
        _hta_trace_writer.write_raw_trace(output_file, trace_contents)

    def decode_symbol_ids(self, use_shorten_name: bool = True) -> None:
        """Adds s_name and s_cat (the names of the name and cat ids, shortened by default) to
        every rank's frame, as HTA."""
        for frame in self.get_all_traces().values():
            _hta_kernel_annotations.decode(frame, self.symbol_table, use_shorten_name)

    def convert_time_series_to_events(self, series, counter_name: str, counter_col: str):
        """HTA's counter events ("C") of a time series frame (pid, ts, `counter_col`)."""
        return _hta_trace_writer.time_series_events(series, counter_name, counter_col,
                                                    self.min_ts)

    flow_event = staticmethod(_hta_trace_writer.flow_event)

    def _read_inputs(self, index: int, frame) -> None:
        """HTA's columns from the args of the trace file: input_dims, input_type, input_strides
        (each row's args value, or "-1") and, in a trace with CUPTI profiler ranges, one column
        per counter (HTA's ParserConfig adds them at parse: the union of the ranges' args keys,
        in the order of that Python set, after external_id; the value or -1, downcast over the
        rows HTA parsed)."""
        import pandas as pd

        source = self._analysis._infos[index]["source"]
        source = self._analysis._originals.get(source, source)
        events = _hta_trace_writer.read_raw_trace(source).get("traceEvents", [])
        args = []
        for position in frame["index"].tolist():
            event = events[position] if 0 <= position < len(events) else None
            value = event.get("args") if isinstance(event, dict) else None
            args.append(value if isinstance(value, dict) else None)
        for column, key in _INPUT_ARGS:
            if column not in frame.columns:
                continue
            values = ["-1" if a is None else a.get(key, "-1") for a in args]
            frame[column] = pd.Series(values, index=frame.index, dtype=object)
        parsed = [e for e in events if isinstance(e, dict) and e.get("dur") is not None
                  and e.get("cat") is not None and e.get("cat") != "Trace"]
        ranges = [e.get("args") for e in parsed if e.get("cat") == _PROFILER_RANGE]
        if not ranges or not all(isinstance(a, dict) for a in ranges):
            return
        counters = set.union(*[set(a.keys()) for a in ranges])
        at = frame.columns.get_loc("external_id") + 1
        for name in counters:
            everywhere = [e["args"].get(name, -1) if isinstance(e.get("args"), dict) else -1
                          for e in parsed]
            values = [-1 if a is None else a.get(name, -1) for a in args]
            frame.insert(at, name, _counter_column(values, everywhere))
            at += 1


def _counter_column(values: List, everywhere: List):
    """A counter column as pandas builds it from the values (int64 when all are integers, else
    what numpy infers), integers downcast over the values of every row HTA parsed."""
    column = np.asarray(values)
    if column.dtype.kind in "iu" and np.asarray(everywhere).dtype.kind in "iu":
        return column.astype(_hta_frames.downcast_dtype((min(everywhere), max(everywhere))))
    return column


def trace_path_of(path: str) -> str:
    """HTA's trace_path: the directory given, as an absolute path."""
    return os.path.abspath(os.path.expanduser(path))
