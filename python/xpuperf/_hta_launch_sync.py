"""The joins of HTA's critical path analysis between CUDA launches and the events that order
GPU work across streams, on HTA's frame of a rank (cat and name as symbol ids): each launch with
its kernel's stream and GPU and its sequence number, each cudaEventRecord with the last launch
before it on the stream its event was recorded on, each cudaStreamWaitEvent with the next launch
after it on its thread and stream. HTA's pandas steps, one by one (their row order decides ties).
"""

from __future__ import annotations

import sys
from typing import Dict, List

from xpuperf._hta_frames import RUNTIME_LAUNCHES


class Symbols:
    """The symbol ids of the names HTA's queries ask for (absent names match nothing)."""

    def __init__(self, symbols):
        self.index: Dict[str, int] = symbols.get_sym_id_map()
        self.table: List[str] = symbols.get_sym_table()

    def ids(self, names) -> List[int]:
        return [self.index[n] for n in names if n in self.index]

    def get(self, name: str, default: int = -1) -> int:
        return self.index.get(name, default)


def runtime_launches(df, symbols: Symbols):
    """Rows of HTA's get_runtime_launch_events_query."""
    return df[df["name"].isin(symbols.ids(RUNTIME_LAUNCHES)) & (df["index_correlation"] > 0)]


def runtime_calls(pd, full, symbols: Symbols, retain_index: bool = True):
    """The CUDA launch calls (sorted by ts) with the stream and GPU (pid) of their kernel,
    and launch_id, their sequence number."""
    gpu_kernels = full[(full["stream"] != -1) & (full["index_correlation"] > 0)]
    calls = (runtime_launches(full, symbols).copy().sort_values(by="ts", axis=0)
             .merge(gpu_kernels[["stream", "index", "pid"]], left_on="index_correlation",
                    right_on="index", suffixes=("", "_kernel"))
             .set_index("index")).rename(columns={"pid_kernel": "gpu_kernel"})
    calls.reset_index(inplace=True)
    calls["launch_id"] = calls.index
    if retain_index:
        calls.set_index("index", inplace=True)
    return calls


def event_records(pd, full, symbols: Symbols):
    """The cudaEventRecord calls with index_previous_launch: the last launch before each on
    the stream and GPU its CUDA event was recorded on (-1 if none); None without any."""
    record_id = symbols.index.get("cudaEventRecord")
    if record_id is None:
        return None
    launches = runtime_calls(pd, full, symbols, retain_index=False)[
        ["pid", "tid", "ts", "index", "name", "correlation", "launch_id", "stream_kernel",
         "gpu_kernel"]].rename(columns={"stream_kernel": "stream", "gpu_kernel": "gpu"})
    records = full[full["name"] == record_id].copy().sort_values(by="ts", axis=0)
    waits = full[full.wait_on_stream > -1][
        ["wait_on_cuda_event_record_corr_id", "wait_on_stream", "pid"]]
    record_streams = waits.drop_duplicates().rename(columns={
        "wait_on_cuda_event_record_corr_id": "correlation", "wait_on_stream": "event_stream",
        "pid": "gpu"}).set_index("correlation")
    records = (records.merge(record_streams, on="correlation", how="left",
                             validate="one_to_one")
               .dropna(subset=["event_stream"])[
                   ["pid", "tid", "ts", "name", "correlation", "event_stream", "gpu"]]
               .rename(columns={"event_stream": "stream"}))

    # HTA sorts this concatenation again for each stream (the same order each time).
    combined = pd.concat([launches, records]).sort_values(by="ts", axis=0)

    def find_previous_launch(gpu, stream):
        comb = combined[(combined["gpu"] == gpu) & (combined["stream"] == stream)].copy()
        comb["launch_id"] = comb["launch_id"].fillna(-1)
        comb.loc[:, "previous_launch_id"] = comb.launch_id.cummax(skipna=False)
        group_launches = comb.loc[comb.name != record_id].copy()
        comb_records = comb.loc[comb.name == record_id].copy()
        comb_records.drop(columns="launch_id", inplace=True)
        return pd.merge(comb_records, group_launches[["launch_id", "index", "correlation"]],
                        left_on="previous_launch_id", right_on="launch_id", how="left",
                        suffixes=("", "_launch_event"), validate="many_to_one")

    gpu_streams = records[["gpu", "stream"]].groupby(["gpu", "stream"]).groups.keys()
    frames = [find_previous_launch(gpu, stream) for (gpu, stream) in gpu_streams]
    if not frames:
        return None
    records = pd.concat(frames, axis=0).sort_values(by="ts", axis=0)
    records.drop(columns=["launch_id", "previous_launch_id"], inplace=True)
    records.rename(columns={"index_launch_event": "index_previous_launch"}, inplace=True)
    records["index_previous_launch"] = records["index_previous_launch"].fillna(-1)
    return records


def stream_wait_events(pd, full, symbols: Symbols):
    """The cudaStreamWaitEvent calls with index_next_launch: the first launch after each on
    the same thread and the stream that waits (-1 if none); None without any."""
    wait_id = symbols.index.get("cudaStreamWaitEvent")
    if wait_id is None or "Stream Wait Event" not in symbols.index:
        return None
    launches = runtime_calls(pd, full, symbols)
    launches.drop(columns=["stream"], inplace=True)
    launches.rename(columns={"stream_kernel": "stream"}, inplace=True)
    gpu_kernels = full[(full["stream"] != -1) & (full["index_correlation"] > 0)]
    waits = (full[(full["name"] == wait_id) & (full["index_correlation"] > 0)][
        ["index", "name", "ts", "pid", "tid", "correlation", "index_correlation"]]
        .copy().sort_values(by="ts", axis=0)
        .merge(gpu_kernels[["stream", "index"]], left_on="index_correlation",
               right_on="index", suffixes=("", "_kernel"))
        .set_index("index"))

    combined = pd.concat([launches, waits]).sort_values(by="ts", axis=0)

    def find_next_launch(pid, tid, stream):
        comb = combined[(combined["pid"] == pid) & (combined["tid"] == tid)
                        & (combined["stream"] == stream)].copy()
        comb["launch_id"] = comb["launch_id"].fillna(sys.maxsize)
        comb["next_launch_id"] = comb["launch_id"].iloc[::-1].cummin()
        comb.reset_index(inplace=True)
        group_launches = comb.loc[comb.name != wait_id].copy()
        comb_waits = comb.loc[comb.name == wait_id].copy()
        comb_waits.drop(columns="launch_id", inplace=True)
        return pd.merge(comb_waits, group_launches[["launch_id", "index", "correlation"]],
                        left_on="next_launch_id", right_on="launch_id", how="left",
                        suffixes=("", "_launch_event"))

    keys = waits[["pid", "tid", "stream"]].drop_duplicates().to_dict("records")
    if not keys:  # HTA fails here (pd.concat of nothing)
        return None
    waits = pd.concat([find_next_launch(r["pid"], r["tid"], r["stream"]) for r in keys],
                      axis=0).sort_values(by="ts", axis=0)
    waits.drop(columns=["launch_id", "next_launch_id", "correlation_launch_event"],
               inplace=True)
    waits.rename(columns={"index_launch_event": "index_next_launch"}, inplace=True)
    waits["index_next_launch"] = waits["index_next_launch"].fillna(-1)
    return waits.set_index("index")
