"""Holistic Trace Analysis's API over xpuperf's trace reader.

    from xpuperf.hta import TraceAnalysis        # instead of: from hta.trace_analysis import ...
    analyzer = TraceAnalysis(trace_dir="traces/")
    analyzer.get_temporal_breakdown()

The trace is read by xpuperf's native reader in HTA's convention (HTA 0.5.0, the newest on PyPI:
the rows HTA keeps, integer microseconds, the last ProfilerStep dropped unless
include_last_profiler_step; docs/TRACES.md lists each rule), so the methods return HTA's
DataFrames: the same columns, dtypes and values (python/tests/test_hta_parity.py compares them
with HTA itself). The temporal breakdown is computed natively; the others in pandas over the
native reader's event columns, following HTA's definitions. `visualize` is accepted and ignored
(no plots). IMPLEMENTED lists HTA's methods, all of them provided. TraceDiff,
LabeledTrace and DeviceType stand for hta.trace_diff's (compare_traces, ops_diff).
"""

from __future__ import annotations

import os
import tempfile
from typing import Dict, List, Optional, Tuple, Union

from xpuperf import (_hta_call_stacks, _hta_counters, _hta_critical_path, _hta_frames,
                     _hta_kernel_annotations, _hta_more_analyses, _hta_trace, _hta_trace_writer)
from xpuperf._hta_critical_path import CPEdge, CPEdgeType, CPGraph, CPNode
from xpuperf._hta_trace_writer import TimeSeriesTypes
from xpuperf._hta_trace_diff import DeviceType, LabeledTrace, TraceDiff
from xpuperf._native import native

__all__ = ["TraceAnalysis", "IMPLEMENTED", "TraceDiff", "LabeledTrace", "DeviceType",
           "TimeSeriesTypes", "CPGraph", "CPEdge", "CPEdgeType", "CPNode"]

DEFAULT_TRACE_DIR = "/tmp/trace"  # HTA's default
IMPLEMENTED = ("get_temporal_breakdown", "get_comm_comp_overlap", "get_gpu_kernel_breakdown",
               "get_profiler_steps", "get_idle_time_breakdown", "get_cuda_kernel_launch_stats",
               "get_queue_length_time_series", "get_queue_length_summary",
               "get_memory_bw_time_series", "get_memory_bw_summary",
               "get_frequent_cuda_kernel_sequences", "get_cupti_counter_data_with_operators",
               "generate_trace_with_counters", "get_queue_length_summary_from_time_series",
               "get_time_spent_blocked_on_full_queue", "get_gpu_user_annotation_breakdown",
               "get_aten_op_kernels_and_delay", "get_potential_stragglers",
               "get_gpu_kernels_with_user_annotations", "critical_path_analysis",
               "overlay_critical_path_analysis")

_COMPUTATION = "COMPUTATION"
_COMMUNICATION = "COMMUNICATION"
_MEMORY = "MEMORY"


def _pandas():
    try:
        import pandas as pd
    except ImportError as error:  # pragma: no cover - pandas is a dependency of the hta extra
        raise ImportError("xpuperf.hta needs pandas: pip install 'xpuperf[pandas]'") from error
    return pd


class TraceAnalysis:
    """HTA's TraceAnalysis: `trace_dir` is a directory of per-rank trace files (*.json,
    *.json.gz; a single file is accepted too); `trace_files` maps rank -> file name inside
    trace_dir, as HTA's argument of that name."""

    def __init__(self, trace_files: Optional[Dict[int, str]] = None,
                 trace_dir: str = DEFAULT_TRACE_DIR,
                 include_last_profiler_step: Optional[bool] = False):
        path = os.fspath(trace_dir)
        self._tmp = None
        forced_ranks: Dict[str, int] = {}
        self._originals: Dict[str, str] = {}  # link -> the file it stands for
        if trace_files:
            # Only the files named, each as the rank given: a directory of links to them.
            self._tmp = tempfile.TemporaryDirectory(prefix="xpuperf-hta-")
            for rank, name in trace_files.items():
                source = name if os.path.isabs(name) else os.path.join(path, name)
                if not os.path.isfile(source):
                    raise FileNotFoundError(f"trace file of rank {rank} not found: {source}")
                link = os.path.join(self._tmp.name, f"{int(rank)}-{os.path.basename(source)}")
                os.symlink(os.path.abspath(source), link)
                forced_ranks[link] = int(rank)
                self._originals[link] = source
            path = self._tmp.name
        elif not os.path.exists(path):
            raise FileNotFoundError(f"trace directory not found: {path}")
        elif os.path.isdir(path) and not any(
                n.endswith((".json", ".json.gz")) for n in os.listdir(path)):
            raise ValueError(f"no trace files (*.json, *.json.gz) in {path}")
        self._run = native.TraceRun(path, "hta", bool(include_last_profiler_step))
        infos = [self._run.info(i) for i in range(len(self._run))]
        self._infos = infos
        self._ranks = [forced_ranks.get(info["source"], info["rank"]) for info in infos]
        # HTA's rank order: ascending.
        self._order = sorted(range(len(infos)), key=lambda i: self._ranks[i])
        self._gpu_frames: Dict[int, object] = {}
        self._frames: Dict[int, object] = {}
        self._trace_frames: Dict[int, object] = {}
        self._trace: Optional[_hta_trace.Trace] = None
        self._trace_path = _hta_trace.trace_path_of(os.fspath(trace_dir))
        self._symbol_table: Optional[_hta_kernel_annotations.SymbolTable] = None

    # -- helpers ---------------------------------------------------------------------------------
    def _gpu_kernels(self, index: int):
        """The rank's GPU events as HTA selects them (stream != -1): ts, dur (integer µs),
        stream, name, kernel_type."""
        frame = self._gpu_frames.get(index)
        if frame is not None:
            return frame.copy()
        import numpy as np

        pd = _pandas()
        ev = self._run.events(index)
        mask = ev["stream"] != -1
        strings = np.array(ev["strings"], dtype=object)
        name_ids = ev["name"][mask]
        unique_ids, inverse = np.unique(name_ids, return_inverse=True)
        types = np.array(native.hta_kernel_types([strings[i] for i in unique_ids]), dtype=object)
        frame = pd.DataFrame({
            "ts": (ev["ts_ns"][mask] // 1000).astype(self._time_dtype(index)),
            "dur": (ev["dur_ns"][mask] // 1000).astype(self._time_dtype(index)),
            "stream": ev["stream"][mask].astype(np.int64),
            "name": strings[name_ids],
            "kernel_type": types[inverse] if len(unique_ids) else np.array([], dtype=object),
        })
        self._gpu_frames[index] = frame
        return frame.copy()

    def _time_dtype(self, index: int):
        """HTA's dtype of ts/dur (µs) for a rank: float64 when some event of the file has no
        `dur` (pandas fills NaN), else int64."""
        import numpy as np

        return np.float64 if self._infos[index]["hta_float_times"] else np.int64

    @staticmethod
    def _merge(frame):
        """HTA's merge_kernel_intervals: sorted by ts, a new interval where ts exceeds the
        running maximum of the ends before it; returns columns ts, end."""
        frame = frame.sort_values(by="ts")
        end = frame["ts"] + frame["dur"]
        group = (frame["ts"] > end.shift().cummax()).cumsum()
        merged = (frame.assign(end=end, group=group).groupby("group", as_index=False)
                  .agg({"ts": "min", "end": "max"}).drop(["group"], axis=1).sort_values(by="ts"))
        return merged

    # -- HTA's methods ---------------------------------------------------------------------------
    def get_temporal_breakdown(self, visualize: bool = True):
        """Per rank: idle, compute and non-compute time of the GPU (µs and % of the window from
        the first GPU event's start to the last one's end). Computed natively. IndexError (HTA's
        type) for a rank without GPU events."""
        pd = _pandas()
        rows = self._run.temporal_breakdown()
        result: Dict[str, List] = {"rank": [], "idle_time(us)": [], "compute_time(us)": [],
                                   "non_compute_time(us)": [], "kernel_time(us)": []}
        for i in self._order:
            r = rows[i]
            if r["gpu_ops"] == 0:
                # HTA fails here with an IndexError: the same type, with the reason.
                raise IndexError(f"rank {self._ranks[i]} has no GPU events: there is no GPU time "
                                 "to break down (HTA fails on such a trace too)")
            result["rank"].append(self._ranks[i])
            # Whole µs, in the dtype of HTA's time columns for this rank.
            as_time = float if self._infos[i]["hta_float_times"] else int
            result["idle_time(us)"].append(as_time(r["idle_ns"] // 1000))
            result["compute_time(us)"].append(as_time(r["compute_ns"] // 1000))
            result["non_compute_time(us)"].append(as_time(r["non_compute_ns"] // 1000))
            result["kernel_time(us)"].append(as_time(r["window_ns"] // 1000))
        # One constructor call with every column (what HTA computes with Series arithmetic:
        # the same numpy operations, so the same values and dtypes).
        import numpy as np

        columns = {name: np.asarray(values) for name, values in result.items()}
        window = columns["kernel_time(us)"]
        for part in ("idle_time", "compute_time", "non_compute_time"):
            columns[f"{part}_pctg"] = np.round(100 * (columns[f"{part}(us)"] / window), 2)
        return pd.DataFrame(columns)

    def get_comm_comp_overlap(self, visualize: bool = True):
        """Per rank: the share of communication-kernel time that overlaps computation kernels,
        in % (comp_comm_overlap_pctg; NaN when the rank has no communication kernels)."""
        pd = _pandas()
        ranks, ratios = [], []
        for i in self._order:
            k = self._gpu_kernels(i)
            comp = self._merge(k[k["kernel_type"].eq(_COMPUTATION)])
            comm = self._merge(k[k["kernel_type"].eq(_COMMUNICATION)])
            overlap = _intersection_length(comp, comm)
            comm_time = (comm["end"] - comm["ts"]).sum()
            ranks.append(self._ranks[i])
            ratios.append(overlap / comm_time if comm_time else float("nan"))
        df = pd.DataFrame({"rank": ranks, "comp_comm_overlap_ratio": ratios})
        df["comp_comm_overlap_pctg"] = round(100 * df["comp_comm_overlap_ratio"], 2)
        return df[["rank", "comp_comm_overlap_pctg"]]

    def get_gpu_kernel_breakdown(self, visualize: bool = True, duration_ratio: float = 0.8,
                                 num_kernels: int = 10, include_memory_kernels: bool = True,
                                 image_renderer: str = "") -> Tuple:
        """(kernel_type_df, kernel_df): time per kernel type over all ranks (sum µs and % of
        their total; overlapping types as "A overlapping B"), and per kernel type and rank the
        kernels by total time (sum/max/min/mean µs, stddev), the ones past `duration_ratio` of
        the cumulative time or beyond the first `num_kernels` grouped as "others"."""
        pd = _pandas()
        kinds = [_COMPUTATION, _COMMUNICATION] + ([_MEMORY] if include_memory_kernels else [])
        all_kernels = pd.DataFrame({
            "name": pd.Series(dtype="str"), "sum": pd.Series(dtype="int"),
            "max": pd.Series(dtype="int"), "min": pd.Series(dtype="int"),
            "std": pd.Series(dtype="float"), "mean": pd.Series(dtype="int"),
            "kernel_type": pd.Series(dtype="str"), "rank": pd.Series(dtype="int")})
        by_type = pd.DataFrame({"kernel_type": pd.Series(dtype="str"),
                                "sum": pd.Series(dtype="int")})
        for i in self._order:
            k = self._gpu_kernels(i)
            by_type = pd.concat([by_type, self._kernel_type_time(k, kinds)], ignore_index=True)
            for kind in kinds:
                agg = _hta_more_analyses.aggregate_by_name(k[k["kernel_type"] == kind],
                                                           num_kernels, duration_ratio)
                agg["kernel_type"] = kind
                agg["rank"] = int(self._ranks[i])
                all_kernels = pd.concat([all_kernels, agg], ignore_index=True)
        by_type = by_type.groupby(by=["kernel_type"])["sum"].agg(["sum"])
        by_type.reset_index(inplace=True)
        by_type.sort_values(by=["sum"], ignore_index=True, inplace=True, ascending=False)
        by_type["percentage"] = (by_type["sum"] / by_type["sum"].sum()) * 100
        by_type = by_type.round({"percentage": 1})
        all_kernels.sort_values(by=["kernel_type", "name", "rank"], ignore_index=True,
                                inplace=True)
        all_kernels.rename(columns={"sum": "sum (us)", "mean": "mean (us)", "max": "max (us)",
                                    "min": "min (us)", "std": "stddev"}, inplace=True)
        return by_type, all_kernels

    def _kernel_type_time(self, kernels, kinds: List[str]):
        """Time (µs) of each combination of kernel types running, over the union of each type's
        intervals: a sweep over +bit at starts and -bit at ends, "A overlapping B" where several
        run. The same pandas operations as HTA, in the same order, so that ties at equal
        timestamps (zero-length segments) resolve as HTA's sort resolves them."""
        pd = _pandas()
        sweep = pd.DataFrame({"status": pd.Series(dtype="str"), "time": pd.Series(dtype="int")})
        for bit, kind in enumerate(kinds):
            value = 1 << bit
            merged = self._merge(kernels[kernels["kernel_type"].eq(kind)])
            sweep = (pd.concat([sweep, merged.melt(var_name="status", value_name="time")
                                .replace({"ts": value, "end": -value})])
                     .sort_values(by="time").reset_index(drop=True))
        sweep["running"] = sweep["status"].cumsum()
        sweep["next_time"] = sweep["time"].shift(-1)
        labels: Dict[int, str] = {}
        for running in sweep["running"].unique():
            if running > 0:
                labels[running] = " overlapping ".join(
                    kind for bit, kind in enumerate(kinds) if running & (1 << bit))
        sweep["kernel_type"] = ""
        sweep = sweep[sweep["running"] > 0]
        for running, label in labels.items():
            sweep.loc[sweep["running"].eq(running), "kernel_type"] = label
        sweep["dur"] = (sweep["next_time"] - sweep["time"]).astype(int)
        out = sweep.groupby(by=["kernel_type"])["dur"].agg(["sum"])
        out.reset_index(inplace=True)
        return out

    def _rank_index(self, rank: int) -> int:
        """The position in the run of the trace read as `rank` (ValueError, as HTA's get_trace,
        when there is none)."""
        for i in self._order:
            if self._ranks[i] == rank:
                return i
        raise ValueError(f"no trace for rank {rank} (ranks: {sorted(self._ranks)})")

    def _frame(self, index: int):
        """HTA's frame of the rank at `index` (_hta_frames.rank_frame), cached."""
        frame = self._frames.get(index)
        if frame is None:
            frame = _hta_frames.rank_frame(_pandas(), self._run.events(index),
                                           self._infos[index], self._run.dropped_last_step)
            self._frames[index] = frame
        return frame

    def get_idle_time_breakdown(self, ranks: Optional[List[int]] = None,
                                streams: Optional[List[int]] = None, visualize: bool = True,
                                visualize_pctg: bool = True, show_idle_interval_stats=False,
                                consecutive_kernel_delay: int = 30) -> Tuple:
        """(idle_time_df, interval_stats_df or None): per rank and stream, the GPU's idle time
        (µs, the gaps between consecutive kernels of the stream) by cause: host_wait (the
        launch began after the previous kernel ended), kernel_wait (a gap below
        `consecutive_kernel_delay` µs), other; idle_time_ratio is the share of the stream's
        idle time. `ranks` defaults to [0]; the interval statistics (describe() of the gaps)
        only with show_idle_interval_stats."""
        pd = _pandas()
        if not ranks:
            ranks = [0]
        idle, intervals = [], []
        for rank in ranks:
            index = self._rank_index(rank)
            frame = self._frame(index)
            result, interval = _hta_frames.idle_time_breakdown(
                pd, frame, rank, streams, consecutive_kernel_delay, show_idle_interval_stats)
            idle.append(result)
            if interval is not None:
                intervals.append(interval)
        return pd.concat(idle), pd.concat(intervals) if show_idle_interval_stats else None

    def get_cuda_kernel_launch_stats(self, ranks: Optional[List[int]] = None,
                                     runtime_cutoff: int = 50, launch_delay_cutoff: int = 100,
                                     include_memory_events: bool = True,
                                     visualize: bool = True) -> Dict:
        """{rank: DataFrame}: per CUDA launch (correlation id) the CPU runtime call's duration
        (cpu_duration), the GPU op's (gpu_duration) and the launch delay (GPU start - CPU end,
        clipped at 0), all µs. `ranks` defaults to [0]; the cutoffs only shape HTA's plots."""
        pd = _pandas()
        if ranks is None or ranks == []:
            ranks = [0]
        return {rank: _hta_frames.kernel_launch_stats(pd, self._frame(self._rank_index(rank)),
                                                      include_memory_events)
                for rank in ranks}

    def _first_ts(self):
        """HTA's alignment of the run: the smallest timestamp (µs) over the ranks, a scalar of
        that rank's ts dtype (Python's min over the ranks in order, as HTA)."""
        import numpy as np

        firsts = []
        for i in self._order:
            ns = self._infos[i]["hta_first_ts_ns"]
            if ns == np.iinfo(np.int64).max:
                continue
            firsts.append(np.array([ns // 1000]).astype(self._frame(i)["ts"].dtype)[0])
        return min(firsts) if firsts else 0

    def _series_by_rank(self, ranks: Optional[List[int]], series) -> Dict:
        """{rank: series(pd, the rank's frame, the run's first ts)} for `ranks` (default [0]),
        the ranks where it gives None left out."""
        pd = _pandas()
        first_ts = self._first_ts()
        result = {rank: series(pd, self._frame(self._rank_index(rank)), first_ts)
                  for rank in (ranks or [0])}
        return {rank: df for rank, df in result.items() if df is not None}

    def get_queue_length_time_series(self, ranks: Optional[List[int]] = None) -> Dict:
        """{rank: DataFrame}: per CUDA stream the queue length (GPU ops launched and not yet
        started) at each change, with ts (µs from the run's first event), pid, tid, stream,
        indexed by the event's position in the file; ranks without launches are left out.
        `ranks` defaults to [0]."""
        return self._series_by_rank(ranks, _hta_frames.queue_length_time_series)

    def get_queue_length_summary(self, ranks: Optional[List[int]] = None):
        """describe() of the queue length per rank and stream, over its change points as HTA
        (not weighted by time); None when no rank has launches."""
        return _hta_frames.queue_length_summary(_pandas(),
                                                self.get_queue_length_time_series(ranks))

    def get_memory_bw_time_series(self, ranks: Optional[List[int]] = None) -> Dict:
        """{rank: DataFrame}: per memory-op kind (Memcpy DtoH/HtoD/DtoD, Memset, ...) the
        bandwidth in use (GB/s, from each op's args."memory bandwidth (GB/s)") at each op's start
        and end, ts in µs from the run's first event; ranks without memory ops are left out.
        `ranks` defaults to [0]."""
        return self._series_by_rank(ranks, lambda pd, frame, first_ts: (
            _hta_frames.memory_bw_time_series(pd, frame, first_ts, native.hta_kernel_types)))

    def get_memory_bw_summary(self, ranks: Optional[List[int]] = None):
        """describe() of the memory bandwidth (GB/s) per rank and memory-op kind over the points
        where it is positive (as HTA); None when no rank has memory ops."""
        return _hta_frames.memory_bw_summary(_pandas(), self.get_memory_bw_time_series(ranks))

    def generate_trace_with_counters(self, time_series: Optional[TimeSeriesTypes] = None,
                                     ranks: Optional[List[int]] = None,
                                     output_suffix: str = "_with_counters") -> None:
        """Writes each rank's trace again (`ranks` defaults to [0]) with counter events added:
        "Queue Length" per CUDA stream (id = the stream) and "Memcpy BW" per memory-op kind, as
        HTA does (both by default; `time_series` picks with TimeSeriesTypes). The file is the
        rank's trace file with ".json" replaced by output_suffix + ".json", gzip-compressed
        whatever its name says, as HTA writes it."""
        if not ranks:
            ranks = [0]
        if time_series is None:
            time_series = TimeSeriesTypes.QUEUE_LENGTH | TimeSeriesTypes.MEMCPY_BANDWIDTH
        if output_suffix == "":
            output_suffix = "_with_counters"
        min_ts = self._first_ts()
        events: Dict[int, List] = {}

        def add(series_by_rank, counter_name, counter_col):
            for rank, series in series_by_rank.items():
                if "stream" in series.columns:
                    series = series.rename(columns={"stream": "id"})
                events.setdefault(rank, []).extend(_hta_trace_writer.time_series_events(
                    series, counter_name, counter_col, min_ts))

        if TimeSeriesTypes.QUEUE_LENGTH in time_series:
            add(self.get_queue_length_time_series(ranks), "Queue Length", "queue_length")
        if TimeSeriesTypes.MEMCPY_BANDWIDTH in time_series:
            add(self.get_memory_bw_time_series(ranks), "Memcpy BW", "memory_bw_gbps")
        for rank, added in events.items():
            source = self._infos[self._rank_index(rank)]["source"]
            source = self._originals.get(source, source)
            contents = _hta_trace_writer.read_raw_trace(source)
            contents["traceEvents"].extend(added)
            _hta_trace_writer.write_raw_trace(source.replace(".json", f"{output_suffix}.json"),
                                              contents)

    def get_profiler_steps(self) -> List[int]:
        """The ProfilerStep numbers of every rank's trace, ascending (as HTA: the last step is
        not included unless include_last_profiler_step)."""
        return _hta_more_analyses.profiler_steps(_pandas(),
                                                 [self._frame(i) for i in self._order])

    def get_potential_stragglers(self, profiler_steps: Optional[List[int]] = None,
                                 num_candidates: int = 2, visualize: bool = False,
                                 straggler_identification_impl=None) -> List[int]:
        """The ranks most likely to hold the others back: HTA's default metric, the normalised
        start of the last long NCCL kernel of the (stream, kernel) whose duration varies most
        across ranks, per profiler step; the `num_candidates` ranks among the latest starters
        in the most steps. `straggler_identification_impl(df, num_candidates)` replaces the
        metric (df: every rank's events of the selected steps, names as strings, with rank and
        iteration columns; it returns straggler counts by rank). ValueError when none of
        `profiler_steps` is in the trace."""
        pd = _pandas()
        frames = {}
        for i in self._order:
            frame = self._frame(i)
            frames[self._ranks[i]] = frame.assign(
                iteration=_hta_counters._iterations(pd, frame))
        identify = straggler_identification_impl or (
            lambda df, k: _hta_more_analyses.late_start_comm_kernels(pd, df, k))
        return _hta_more_analyses.potential_stragglers(
            pd, frames, self.get_profiler_steps(), profiler_steps, num_candidates, identify)

    def get_frequent_cuda_kernel_sequences(self, operator_name: str, output_dir: str,
                                           min_pattern_len: int = 3, rank: int = 0,
                                           top_k: int = 5, visualize: bool = False,
                                           compress_other_kernels: bool = True):
        """The CUDA kernel sequences launched under the shallowest CPU ops whose name contains
        `operator_name` (those with at least `min_pattern_len` GPU ops under them): per pattern
        ("op|kernel|kernel...") its count and the GPU and CPU time it adds up (µs), by count.
        Writes output_dir/overlaid_<trace file> (gzip JSON) with args.Patterns on the events of
        the top_k patterns, as HTA. An empty DataFrame where HTA returns one (no operator name,
        output_dir not a writable directory, no such op); ValueError for an unknown rank."""
        pd = _pandas()
        if not operator_name:
            return pd.DataFrame()
        if not (output_dir and os.path.isdir(output_dir) and os.access(output_dir, os.R_OK)
                and os.access(output_dir, os.W_OK)):
            return pd.DataFrame()
        index = next((i for i in self._order if self._ranks[i] == rank), None)
        if index is None:
            raise ValueError("No rank was found for the trace.")
        counts, durations, occurrences = _hta_call_stacks.frequent_sequences(
            pd, self._frame(index), operator_name, min_pattern_len)
        if not counts:
            return pd.DataFrame()
        patterns = _hta_call_stacks.patterns_frame(pd, counts, durations, occurrences)
        top_k = min(top_k, len(patterns))
        source = self._infos[index]["source"]
        source = self._originals.get(source, source)
        output_file = os.path.join(output_dir, "overlaid_" + os.path.basename(source))
        _hta_call_stacks.write_overlaid_trace(pd, source, output_file, patterns[:top_k],
                                              compress_other_kernels)
        return patterns.drop("pattern_indices", axis=1)

    def get_cupti_counter_data_with_operators(self, ranks: Optional[List[int]] = None) -> List:
        """One DataFrame per rank (`ranks` defaults to [0]) of the CUPTI range profiler's
        events (category cuda_profiler_range, one per kernel, by ts): HTA's trace columns, one
        column per counter (their args; -1 where an event lacks one), index_runtime (the
        cudaLaunchKernel paired with it by order) and the CPU operators around that launch
        (op_stack outermost first, top_level_op, bottom_level_op). [] with a warning when the
        run has no such events; a rank whose counts of counter events and launches differ is
        left out (logged, as HTA)."""
        pd = _pandas()
        if not ranks:
            ranks = [0]
        if not any(_hta_counters.PROFILER_CATEGORY in self._run.events(i)["strings"]
                   for i in self._order):
            _hta_counters._LOG.warning(
                "Could not find events of 'cuda_profiler_range' category Please check if you "
                "ran CUPTI profiler mode correctly")
            return []
        first_ts = self._first_ts()
        frames = []
        for rank in ranks:
            index = self._rank_index(rank)
            info = dict(self._infos[index])
            info["source"] = self._originals.get(info["source"], info["source"])
            info["rank"] = rank
            frame = _hta_counters.counter_frame(pd, self._frame(index), self._run.events(index),
                                                info, first_ts)
            if frame is not None:
                frames.append(frame)
        return frames

    def get_queue_length_summary_from_time_series(self, queue_length_dict: Dict):
        """describe() of the queue length per rank and stream of get_queue_length_time_series'
        result (HTA adds a "rank" column to each of its frames: so does this)."""
        return _hta_frames.queue_length_summary(_pandas(), queue_length_dict)

    def get_time_spent_blocked_on_full_queue(self, queue_length_dict: Dict,
                                             max_queue_length: int = 1024):
        """Per rank, the time (µs) a stream's launch queue held `max_queue_length` operations
        (CUDA's limit per stream, 1024), from get_queue_length_time_series' result, and its share
        of the rank's trace duration (last ts - first ts); one row per rank, its last such
        stream (as HTA)."""
        def duration(rank):
            ts = self._frame(self._rank_index(rank))["ts"]
            return ts.max() - ts.min()

        return _hta_more_analyses.time_blocked_on_full_queue(_pandas(), queue_length_dict,
                                                             max_queue_length, duration)

    def get_gpu_user_annotation_breakdown(self, use_gpu_annotation: bool = True,
                                          visualize: bool = True, duration_ratio: float = 0.8,
                                          num_kernels: int = 1000,
                                          allowlist_patterns: Optional[List[str]] = None,
                                          image_renderer: Optional[str] = None):
        """Per rank, the time of each user annotation (sum/max/min/mean µs, stddev): on the GPU
        (category gpu_user_annotation) or, with use_gpu_annotation=False, on the CPU
        (user_annotation); past `num_kernels` names, those beyond it or the `duration_ratio`
        quantile are grouped as "others" unless a name contains one of `allowlist_patterns`.
        None when no trace of the run has such events (as HTA)."""
        annotation = "gpu_user_annotation" if use_gpu_annotation else "user_annotation"
        symbols = self._symbols()
        if annotation not in symbols:
            return None
        allowlist = (None if allowlist_patterns is None else
                     _hta_more_analyses.matched_symbols(symbols, allowlist_patterns))
        frames = {self._ranks[i]: self._frame(i) for i in self._order}
        return _hta_more_analyses.user_annotation_breakdown(
            _pandas(), frames, annotation, duration_ratio, num_kernels, allowlist)

    def get_aten_op_kernels_and_delay(self, ranks: Optional[List[int]] = None,
                                      sort_by: Optional[List[str]] = None) -> Dict:
        """{rank: DataFrame}: per ATen operator and the sequence of kernels it launched (the
        innermost aten:: event holding each launch call), the number of such sequences and the
        mean delays (µs) from the operator's start to its first launch (avg_aten_op_launch_delay)
        and from that launch to its kernel's start (avg_runtime_delay), sorted by `sort_by`
        (default occurrence_count) descending. `ranks` defaults to [0]. As HTA, each rank's
        table also counts the launches of the ranks before it in `ranks`."""
        frames = {rank: self._frame(self._rank_index(rank)) for rank in (ranks or [0])}
        return _hta_more_analyses.aten_op_kernels_and_delay(_pandas(), frames,
                                                            sort_by or ["occurrence_count"])

    @property
    def t(self) -> _hta_trace.Trace:
        """HTA's Trace of the run (analyzer.t): get_trace(rank) gives HTA's frame of a rank (cat
        and name as symbol_table ids, ts aligned to the run's start), get_all_traces(),
        get_ranks(), get_iterations(), trace_files, symbol_table, min_ts."""
        if self._trace is None:
            self._trace = _hta_trace.Trace(self, self._trace_path)
        return self._trace

    @property
    def symbol_table(self) -> _hta_kernel_annotations.SymbolTable:
        """HTA's symbol table of the run (HTA: analyzer.t.symbol_table): the ids in the cat,
        name and user_annotation columns of get_gpu_kernels_with_user_annotations."""
        if self._symbol_table is None:
            self._symbol_table = _hta_kernel_annotations.SymbolTable(
                [self._infos[i] for i in self._order])
        return self._symbol_table

    def _symbols(self) -> set:
        """HTA's symbols: the names and categories of the rows it keeps, before the last
        ProfilerStep's drop."""
        return set(self.symbol_table.sym_table)

    def get_gpu_kernels_with_user_annotations(self, rank: int, expand_names: bool = True,
                                              shortern_names: bool = True):
        """The GPU kernels of `rank` with every column of HTA's frame (cat and name as ids of
        `symbol_table`) and user_annotation: the id of the innermost GPU user annotation on the
        kernel's stream that overlaps it (-1 when none); with expand_names, s_name, s_cat and
        s_user_annotation as text (kernel names shortened unless shortern_names=False). None
        when no trace of the run has GPU user annotations (as HTA)."""
        symbols = self.symbol_table
        if "gpu_user_annotation" not in symbols.sym_index:
            return None
        index = self._rank_index(rank)
        frame = self._frame(index)
        first_ts = self._first_ts()
        pd = _pandas()
        kernels = _hta_kernel_annotations.kernel_frame(
            pd, frame, self._run.events(index), self._infos[index], self._run.dropped_last_step,
            symbols, first_ts)
        _hta_kernel_annotations.annotate(pd, kernels, frame, first_ts, symbols)
        if expand_names:
            _hta_kernel_annotations.decode(kernels, symbols, shortern_names)
        return kernels.reset_index(drop=True)

    def critical_path_analysis(self, rank: int, annotation: str,
                               instance_id: Union[Optional[int], Tuple[int, int]]):
        """HTA's critical path of `rank` within a window: the span of the `instance_id`-th
        (default the first; a (first, last) pair spans several) of the events whose name
        contains `annotation` ("ProfilerStep" matches every ProfilerStep#N; "" takes the whole
        trace). Returns (CPGraph, success) as HTA (see CPGraph.summary() and
        get_critical_path_breakdown()), or None when no name contains the annotation. Raises
        ValueError when the instance is not in the trace or the graph is not valid."""
        index = self._rank_index(rank)
        pd = _pandas()
        trace_df = self._trace_frame(index)
        queue_lengths = _hta_frames.queue_length_time_series(pd, self._frame(index),
                                                             self._first_ts())
        if queue_lengths is None:  # no launch with its GPU op (HTA fails here)
            queue_lengths = pd.DataFrame({"queue_length": pd.Series(dtype="int64")})
        return _hta_critical_path.critical_path_analysis(
            pd, trace_df, self.symbol_table, rank, annotation, instance_id, queue_lengths)

    def overlay_critical_path_analysis(self, rank: int, critical_path_graph: CPGraph,
                                       output_dir: str, only_show_critical_events: bool = True,
                                       show_all_edges: bool = False) -> str:
        """Writes output_dir/overlaid_critical_path_<trace file> (gzip JSON, as HTA, whatever
        the name says): the rank's trace with args.critical = 1 on the critical path's events
        and flow events for its launch, dependency and sync edges (every edge of the graph
        with show_all_edges and not only_show_critical_events); with
        only_show_critical_events, the other complete events left out (user annotations and
        python functions kept). Returns the file's path, "" when output_dir is a file."""
        index = self._rank_index(rank)
        path = os.path.expanduser(os.fspath(output_dir))
        if not os.path.exists(path):
            os.makedirs(path)
        elif not os.path.isdir(path):
            _hta_critical_path.logger.error("%s is not a directory.", output_dir)
            return ""
        source = self._infos[index]["source"]
        source = self._originals.get(source, source)
        output_file = os.path.join(path, "overlaid_critical_path_" + os.path.basename(source))
        raw_trace = _hta_trace_writer.read_raw_trace(source)
        _hta_critical_path.overlay(raw_trace, critical_path_graph, only_show_critical_events,
                                   show_all_edges, None)
        _hta_trace_writer.write_raw_trace(output_file, raw_trace)
        return output_file

    def _trace_frame(self, index: int):
        """HTA's get_trace(rank) of the rank at `index`: every column, cat and name as ids of
        symbol_table, ts aligned to the run's start. Built once; callers do not modify it."""
        frame = self._trace_frames.get(index)
        if frame is None:
            frame = _hta_kernel_annotations.trace_frame(
                _pandas(), self._frame(index), self._run.events(index), self._infos[index],
                self._run.dropped_last_step, self.symbol_table, self._first_ts())
            self._trace_frames[index] = frame
        return frame

    def __getattr__(self, name: str):
        # Every method of HTA 0.5.0's TraceAnalysis is here (IMPLEMENTED): another name is not
        # HTA's either, and fails as in HTA, saying what there is.
        hint = ""
        if name.startswith("get_"):
            hint = f" (HTA's TraceAnalysis methods: {', '.join(IMPLEMENTED)}"
            if "diff" in name:
                hint += "; to compare traces: xpuperf.hta.TraceDiff.compare_traces, as in HTA"
            hint += ")"
        raise AttributeError(f"'TraceAnalysis' object has no attribute '{name}'{hint}")


def _intersection_length(a, b) -> int:
    """Length of the intersection of two sorted lists of disjoint intervals (columns ts, end)."""
    a_ts, a_end = a["ts"].to_numpy(), a["end"].to_numpy()
    b_ts, b_end = b["ts"].to_numpy(), b["end"].to_numpy()
    i = j = total = 0
    while i < len(a_ts) and j < len(b_ts):
        low = max(a_ts[i], b_ts[j])
        high = min(a_end[i], b_end[j])
        if high > low:
            total += int(high - low)
        if a_end[i] < b_end[j]:
            i += 1
        else:
            j += 1
    return total
