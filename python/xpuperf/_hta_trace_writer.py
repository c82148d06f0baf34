"""HTA's generate_trace_with_counters: a rank's trace file written again with counter ("C")
events added for its queue-length and memory-bandwidth time series, as HTA 0.5 writes it
(TraceAnalysis.generate_trace_with_counters and Trace.convert_time_series_to_events)."""

from __future__ import annotations

import gzip
import json
from enum import Flag, auto
from typing import Any, Dict, List, Optional

__all__ = ["TimeSeriesTypes", "time_series_events", "read_raw_trace", "write_raw_trace",
           "flow_event"]


class TimeSeriesTypes(Flag):
    """The series generate_trace_with_counters can add (HTA's flag of that name)."""
    QUEUE_LENGTH = auto()
    MEMCPY_BANDWIDTH = auto()


def time_series_events(series, counter_name: str, counter_col: str, min_ts) -> List[Dict[str, Any]]:
    """HTA's convert_time_series_to_events: one counter event per row (pid, ts + the run's first
    timestamp, ph "C", the row's `name` or `counter_name`, the row's `id` when there is one),
    args {counter_name: value}; [] without the columns it needs."""
    if not {"pid", "ts", counter_col}.issubset(series.columns):
        return []
    events = series[["pid", "ts", counter_col]].rename(columns={counter_col: "args"})
    events["ph"] = "C"
    events["name"] = series["name"] if "name" in series.columns else counter_name
    if "id" in series.columns:
        events["id"] = series["id"]
    events["ts"] = events["ts"] + min_ts
    events.args = events.args.apply(lambda value: {counter_name: value})
    return events.to_dict("records")


def read_raw_trace(path: str) -> Dict[str, Any]:
    """The trace file as JSON, as HTA's parse_trace_dict reads it (gzip by the .gz name)."""
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as handle:
            return json.loads(handle.read())
    if path.endswith(".json"):
        with open(path, "r") as handle:
            return json.loads(handle.read())
    raise ValueError(f"expect the value of trace_file ({path}) ends with '.gz' or 'json'")


def write_raw_trace(path: str, contents: Dict[str, Any]) -> None:
    """As HTA writes it: gzip whatever the name, indent 2."""
    with gzip.open(path, "wt") as handle:
        json.dump(contents, handle, indent=2)


def flow_event(id: int, pid: int, tid: int, ts: int, is_start: bool, name: str, cat: str,
               args: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """HTA's Trace.flow_event: ph "s" (start) or "f" (end, with "bp": "e"), in HTA's key order."""
    event = {"ph": "s" if is_start else "f", "id": id, "pid": pid, "tid": tid, "ts": ts,
             "cat": cat, "name": name}
    if args is not None:
        event["args"] = args
    if not is_start:
        event["bp"] = "e"
    return event
