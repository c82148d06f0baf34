"""HTA 0.5.0's critical path analysis (hta/analyzers/critical_path_analysis.py) over the frames
of xpuperf.hta: the same graph, the same longest path and the same tables.

The graph has a start and an end node per CPU operator, CUDA runtime/driver call and GPU op of
the window, numbered by a sort on their times. Its edges are each event's span (weight: its
duration), the steps through each CPU thread's call stack (HTA's old CallGraph: a stack built by
sorting starts and ends with its compare_events), the dependency between consecutive top-level
operators of a thread, per CUDA stream the launch delay (runtime call start -> kernel start,
when the stream was empty at the launch) or else the kernel-kernel delay, and the zero-weight
synchronization edges (kernel end -> cudaStreamSynchronize / cudaDeviceSynchronize /
cudaEventSynchronize end, kernel -> kernel across streams for cudaStreamWaitEvent). The critical
path is networkx's dag_longest_path over it, reproduced here with networkx's order of nodes,
edges and ties (a topological order by generations, the first best predecessor), so that the
path and the attributed events are HTA's without networkx.

Every pandas step whose row order decides a tie (the node numbering, the kernels' order, the
merges of cudaEventRecord / cudaStreamWaitEvent to launches) is HTA's own, applied to a frame
equal to HTA's (_hta_kernel_annotations.trace_frame). The graph's structure is _hta_digraph's,
the call stacks _hta_old_call_stacks', the launch joins _hta_launch_sync's.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import re
import warnings
from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np

from xpuperf._hta_digraph import DiGraph
from xpuperf._hta_kernel_annotations import decode
from xpuperf._hta_launch_sync import Symbols, event_records, stream_wait_events
from xpuperf._hta_old_call_stacks import CallStack, call_stacks
from xpuperf._hta_trace_writer import flow_event

logger = logging.getLogger("xpuperf.hta")

# HTA's environment switches (hta/configs/env_options.py), read the same way: "1" turns on.
_ADD_ZERO_WEIGHT_LAUNCH_EDGES = "CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"
_SHOW_ZERO_WEIGHT_LAUNCH_EDGES = "CRITICAL_PATH_SHOW_ZERO_WEIGHT_LAUNCH_EDGE"
_STRICT_NEGATIVE_WEIGHT_CHECKS = "CRITICAL_PATH_STRICT_NEGATIVE_WEIGHT_CHECKS"

_OPERATOR_CATEGORIES = ("cpu_op", "cuda_runtime", "cuda_driver")
_COMM_KERNEL = re.compile(r"^nccl.*Kernel")


def _flag(name: str) -> bool:
    return os.environ.get(name, "0") == "1"


@dataclass
class CPNode:
    """A point in time of the graph: the start or end of an operator or kernel (HTA's CPNode)."""
    idx: int = -1
    ev_idx: int = -1
    ts: int = 0
    is_start: bool = False
    is_blocking: bool = False


class CPEdgeType(Enum):
    OPERATOR_KERNEL = "critical_path_operator"
    DEPENDENCY = "critical_path_dependency"
    KERNEL_LAUNCH_DELAY = "critical_path_kernel_launch_delay"
    KERNEL_KERNEL_DELAY = "critical_path_kernel_kernel_delay"
    SYNC_DEPENDENCY = "critical_path_sync_dependency"


DEFAULT_EDGE_TYPES_IN_VIZ: Set[CPEdgeType] = {
    CPEdgeType.DEPENDENCY,
    CPEdgeType.KERNEL_LAUNCH_DELAY,
    CPEdgeType.SYNC_DEPENDENCY,
}


@dataclass(frozen=True)
class CPEdge:
    """An edge of the graph (HTA's CPEdge): begin and end node ids, weight (µs), type. Equal
    fields hash alike, so a set of them iterates in HTA's order within one process."""
    begin: int
    end: int
    weight: int = 0
    type: CPEdgeType = CPEdgeType.OPERATOR_KERNEL


class CPGraph(DiGraph):
    """HTA's CPGraph of one rank: the critical path graph of the events in the analysed window.

    Attributes (as HTA's): trace_df (the window's frame, cat and name as symbol ids),
    full_trace_df, node_list (CPNode per node id), critical_path_nodes, critical_path_events_set,
    critical_path_edges_set, event_to_start_node_map, event_to_end_node_map, edge_to_event_map.
    Unlike HTA's it is not a networkx.DiGraph: `edges`, `nodes`, `neighbors`, `predecessors`,
    `number_of_nodes` and `number_of_edges` give its structure, `to_networkx()` a DiGraph with
    the same nodes, edges and attributes, in the same order."""

    BLOCKING_SYNC_CALLS = [
        "cudaDeviceSynchronize",
        "cudaStreamSynchronize",
        "cudaEventQuery",
        "cudaEventSynchronize",
        "cudaMemcpy",
        "cudaMemcpyAsync",
    ]

    def __init__(self, pd, trace_df, full_trace_df, symbol_table, rank: int, queue_lengths):
        self._pd = pd
        self.rank = rank
        self.trace_df = trace_df
        self.full_trace_df = full_trace_df
        self.symbol_table = symbol_table
        self.sym_table = symbol_table.get_sym_table()
        self._symbols = Symbols(symbol_table)
        self._queue_lengths = queue_lengths
        super().__init__()
        self.critical_path_nodes: List[int] = []
        self.critical_path_events_set: Set[int] = set()
        self.critical_path_edges_set: Set[CPEdge] = set()
        self.node_list: List[CPNode] = []
        self.event_to_start_node_map: Dict[int, int] = {}
        self.event_to_end_node_map: Dict[int, int] = {}
        self.edge_to_event_map: Dict[Tuple[int, int], int] = {}
        self._attributed: Optional[Dict[int, List[CPEdge]]] = None
        self._add_zero_weight_launch_edges = _flag(_ADD_ZERO_WEIGHT_LAUNCH_EDGES)
        self._create_event_nodes()
        for stack in call_stacks(pd, self.trace_df):
            self._construct_graph_from_call_stack(stack)
        self._construct_graph_from_kernels()

    def _add_edge(self, edge: CPEdge) -> None:
        self.add_edge(edge.begin, edge.end, edge.weight, edge)

    def _add_edge_helper(self, src: CPNode, dest: CPNode,
                         type: CPEdgeType = CPEdgeType.OPERATOR_KERNEL,
                         zero_weight: bool = False) -> CPEdge:
        assert src.idx != dest.idx, f"Src node {src} == Dest node {dest}"
        weight = (0 if type in (CPEdgeType.DEPENDENCY, CPEdgeType.SYNC_DEPENDENCY) or zero_weight
                  else dest.ts - src.ts)
        edge = CPEdge(begin=src.idx, end=dest.idx, weight=weight, type=type)
        self._add_edge(edge)
        return edge

    def _attribute_edge(self, e: CPEdge, src_parent) -> None:
        """HTA's edge attribution: a span or kernel-kernel delay belongs to the source's event
        when the source is a start (or for a delay), to the destination's when both are ends,
        else (end -> start) to the source's parent."""
        if e.type not in (CPEdgeType.OPERATOR_KERNEL, CPEdgeType.KERNEL_KERNEL_DELAY):
            return
        src, dest = self.node_list[e.begin], self.node_list[e.end]
        if e.type == CPEdgeType.KERNEL_KERNEL_DELAY or src.is_start:
            ev_idx = src.ev_idx
        elif not dest.is_start:
            ev_idx = dest.ev_idx
        else:
            ev_idx = src_parent
        self.edge_to_event_map[(src.idx, dest.idx)] = int(ev_idx)

    # -- HTA's accessors ------------------------------------------------------------------------
    def _get_node_name(self, ev_id: int) -> str:
        if ev_id < 0:
            return "ROOT"
        return self.sym_table[self.trace_df.name.loc[ev_id]]

    def get_nodes_for_event(self, ev_id: int) -> Tuple[Optional[CPNode], Optional[CPNode]]:
        """The start and end CPNode of an event (its index in the trace frame), None if absent."""
        start = self.event_to_start_node_map.get(ev_id, -1)
        end = self.event_to_end_node_map.get(ev_id, -1)
        return (self.node_list[start] if start >= 0 else None,
                self.node_list[end] if end >= 0 else None)

    def get_events_for_edge(self, edge: CPEdge) -> Tuple[int, int]:
        """The events of an edge's source and destination nodes."""
        return int(self.node_list[edge.begin].ev_idx), int(self.node_list[edge.end].ev_idx)

    def get_event_attribution_for_edge(self, edge: CPEdge) -> Optional[int]:
        """The event an operator/kernel span or kernel-kernel delay edge is attributed to."""
        return self.edge_to_event_map.get((edge.begin, edge.end), None)

    def get_edges_attributed_to_event(self, ev_idx: int) -> List[CPEdge]:
        """The edges attributed to an event."""
        if self._attributed is None:
            attributed: Dict[int, List[CPEdge]] = defaultdict(list)
            for (u, v), event in self.edge_to_event_map.items():
                attributed[event].append(self._succ[u][v]["object"])
            self._attributed = attributed
        return self._attributed.get(ev_idx, [])

    # -- construction (HTA's _create_event_nodes, _construct_graph_from_*) ----------------------
    def _create_event_nodes(self) -> None:
        """A start and an end node per CPU operator, CUDA runtime/driver call and launched GPU
        op, numbered in the order of pandas' sort of all of them by time."""
        pd, df = self._pd, self.trace_df
        operators = df["cat"].isin(self._symbols.ids(_OPERATOR_CATEGORIES))
        launched = (df["stream"] != -1) & (df["index_correlation"] >= 0)
        events = df[operators | launched][["index", "ts", "dur", "name"]].rename(
            columns={"index": "ev_idx"})
        blocking = {self._symbols.index[b] for b in self.BLOCKING_SYNC_CALLS
                    if b in self._symbols.index}
        events["is_blocking_call"] = events.name.isin(blocking)
        starts, ends = events.copy(), events.copy()
        starts.drop(columns=["dur"], inplace=True)
        starts["is_start"] = True
        ends["end"] = ends["ts"] + ends["dur"]
        ends.drop(columns=["dur", "ts"], inplace=True)
        ends.rename(columns={"end": "ts"}, inplace=True)
        ends["is_start"] = False
        nodes = (pd.concat([starts, ends]).sort_values(by="ts", axis=0).reset_index(drop=True)
                 .reset_index(names="idx"))
        self.node_list = [CPNode(*args) for args in zip(
            nodes["idx"], nodes["ev_idx"], nodes["ts"], nodes["is_start"],
            nodes["is_blocking_call"])]
        start = nodes[nodes.is_start]
        self.event_to_start_node_map = dict(zip(start["ev_idx"], start["idx"]))
        end = nodes[~nodes.is_start]
        self.event_to_end_node_map = dict(zip(end["ev_idx"], end["idx"]))
        assert len(self.event_to_start_node_map) == len(self.event_to_end_node_map)

    def _construct_graph_from_call_stack(self, stack: CallStack) -> None:
        """The edges through one CPU thread's call stack: into and out of each nested event,
        and a dependency from each top-level operator's end to the next one's start."""
        last_node: Optional[CPNode] = None
        last_highlevel_op: Optional[CPNode] = None
        op_depth = 0
        last_ev_parent: Optional[int] = None

        def enter(ev_id: int, parent: int) -> None:
            nonlocal last_node, op_depth, last_ev_parent
            start_node, end_node = self.get_nodes_for_event(ev_id)
            if start_node is None or end_node is None:
                return
            if op_depth == 0 and last_highlevel_op is not None:
                self._add_edge_helper(last_highlevel_op, start_node, CPEdgeType.DEPENDENCY)
            op_depth += 1
            if last_node is not None:
                self._attribute_edge(self._add_edge_helper(last_node, start_node),
                                     last_ev_parent)
            last_node = start_node
            last_ev_parent = parent

        def leave(ev_id: int, parent: int) -> None:
            nonlocal last_node, last_highlevel_op, op_depth, last_ev_parent
            start_node, end_node = self.get_nodes_for_event(ev_id)
            if start_node is None or end_node is None:
                return
            op_depth -= 1
            if last_node is not None:
                edge = self._add_edge_helper(last_node, end_node,
                                             zero_weight=start_node.is_blocking)
                self._attribute_edge(edge, last_ev_parent)
            if op_depth == 0:
                last_node = None
                last_highlevel_op = end_node
            else:
                last_node = end_node
                last_ev_parent = parent

        stack.dfs(enter, leave)

    def _construct_graph_from_kernels(self) -> None:
        """Per GPU op in start order (sync events by their end): its span, the edge into it
        (launch delay when its stream was empty at the launch and the launch came after the
        stream's previous op and any op it waits on, else kernel-kernel delay) and the sync
        edges (kernel -> kernel for cudaStreamWaitEvent, kernel end -> CPU call end for
        stream, context and event syncs)."""
        pd = self._pd
        symbols = self._symbols
        sync_cat = symbols.get("cuda_sync")
        context_sync = symbols.get("Context Sync")
        stream_sync = symbols.get("Stream Sync")
        event_sync = symbols.get("Event Sync")
        stream_wait_event = symbols.get("Stream Wait Event")
        q = self._queue_lengths
        df = self.trace_df
        selected = (((df["stream"] != -1) | df["name"].isin([event_sync, context_sync]))
                    & (df["index_correlation"] >= 0))
        gpu_kernels = (df[selected].join(q[["queue_length"]], on="index_correlation")
                       .rename(columns={"queue_length": "queue_length_runtime"})
                       .join(q[["queue_length"]], on="index")
                       ).drop(columns=["s_cat", "s_name"], errors="ignore")
        records = event_records(pd, self.full_trace_df, symbols)
        waits = stream_wait_events(pd, self.full_trace_df, symbols)
        if "wait_on_cuda_event_record_corr_id" in df and records is not None:
            merged = pd.merge(
                gpu_kernels, records[["correlation", "index_previous_launch"]],
                left_on="wait_on_cuda_event_record_corr_id", right_on="correlation", how="left",
                suffixes=("", "_cuda_record"))
            with warnings.catch_warnings():  # pandas' notice on object columns' downcast
                warnings.simplefilter("ignore", FutureWarning)
                gpu_kernels = merged.fillna(-1).astype(int)
        gpu_kernels["end_ts"] = gpu_kernels["ts"] + gpu_kernels["dur"]
        gpu_kernels["sort_by"] = gpu_kernels["ts"]
        is_sync = gpu_kernels.cat == sync_cat
        gpu_kernels.loc[is_sync, "sort_by"] = gpu_kernels[is_sync]["end_ts"]
        gpu_kernels.sort_values(by="sort_by", axis=0, inplace=True)

        # ts of an event by label: a dict where labels are unique (pandas' .loc per kernel is slow)
        full = self.full_trace_df
        ts_at = (dict(zip(full.index.tolist(), full.ts.tolist())).__getitem__
                 if full.index.is_unique else full.ts.loc.__getitem__)
        full_index_correlation = self.full_trace_df.index_correlation
        last_node: Dict[int, CPNode] = {}
        kernel_sync: Dict[int, Optional[int]] = {}

        def handle_cuda_sync(row) -> None:
            name = row.name
            if name == stream_wait_event or name == event_sync:
                if getattr(row, "index_previous_launch", -1) == -1:
                    return  # not matched to a cudaEventRecord
                src_kernel_index = full_index_correlation[row.index_previous_launch]
                if name == stream_wait_event:
                    if waits is None:
                        return
                    dest_launch = waits.loc[row.index_correlation]["index_next_launch"]
                    if dest_launch < 0:
                        return
                    kernel_sync[full_index_correlation[dest_launch]] = src_kernel_index
                else:
                    _, gpu_end_node = self.get_nodes_for_event(src_kernel_index)
                    if gpu_end_node is not None:
                        self._add_gpu_cpu_sync_edge(gpu_end_node, row.index_correlation)
                return
            assert name == stream_sync or name == context_sync
            nodes = (last_node.values() if name == context_sync
                     else [last_node.get(row.stream)])
            for gpu_node in nodes:
                if gpu_node is not None:
                    self._add_gpu_cpu_sync_edge(gpu_node, row.index_correlation)

        for row in gpu_kernels.itertuples(index=False):
            if row.cat == sync_cat:
                handle_cuda_sync(row)
                continue
            eid, stream = row.index, row.stream
            runtime_index = row.index_correlation
            start_node, end_node = self.get_nodes_for_event(eid)
            self._attribute_edge(self._add_edge_helper(start_node, end_node), -1)
            kernel_sync_index = kernel_sync.get(eid)
            kernel_sync_end: Optional[CPNode] = None
            edge_added = launch_delay_added = False
            if kernel_sync_index is not None:
                _, kernel_sync_end = self.get_nodes_for_event(kernel_sync_index)
                if kernel_sync_end is None:
                    kernel_sync_index = None
                else:
                    self._add_edge_helper(kernel_sync_end, start_node,
                                          type=CPEdgeType.SYNC_DEPENDENCY)
                    edge_added = True
                kernel_sync[eid] = None
            previous = last_node.get(stream)
            if (row.queue_length_runtime == 1 and row.queue_length == 0
                    and (previous is None or previous.ts < ts_at(runtime_index))
                    and (kernel_sync_index is None
                         or kernel_sync_end.ts < ts_at(runtime_index))):
                added = self._add_kernel_launch_delay_edge(runtime_index, start_node)
                assert added, (f"Could not find runtime index = {runtime_index}, current kernel "
                               f"stream = {stream}, name = {self._get_node_name(eid)}, "
                               f"correlation = {row.correlation}")
                edge_added = launch_delay_added = True
            elif previous is not None and (kernel_sync_index is None
                                           or kernel_sync_end.ts < previous.ts):
                edge = self._add_edge_helper(previous, start_node,
                                             type=CPEdgeType.KERNEL_KERNEL_DELAY)
                self._attribute_edge(edge, -1)
                edge_added = True
            if not edge_added:
                logger.warning("No edge was added - queue length is %s != 1 but no last kernel "
                               "on stream %s, current kernel: name = %s, correlation = %s",
                               row.queue_length_runtime, stream, self._get_node_name(eid),
                               row.correlation)
            if self._add_zero_weight_launch_edges and not launch_delay_added:
                self._add_kernel_launch_delay_edge(runtime_index, start_node, zero_weight=True)
            last_node[stream] = end_node

    def _add_gpu_cpu_sync_edge(self, gpu_node: CPNode, runtime_eid: int) -> None:
        _, end_node = self.get_nodes_for_event(runtime_eid)
        self._add_edge_helper(gpu_node, end_node, type=CPEdgeType.SYNC_DEPENDENCY)

    def _add_kernel_launch_delay_edge(self, runtime_index: int, kernel_start: CPNode,
                                      zero_weight: bool = False) -> bool:
        runtime_start, _ = self.get_nodes_for_event(runtime_index)
        if runtime_start is None:
            return False
        self._add_edge_helper(runtime_start, kernel_start, type=CPEdgeType.KERNEL_LAUNCH_DELAY,
                              zero_weight=zero_weight)
        return True

    # -- the critical path --------------------------------------------------------------------
    def critical_path(self) -> bool:
        """Computes the critical path (HTA's CPGraph.critical_path): raises ValueError when the
        graph is not valid (negative weights with CRITICAL_PATH_STRICT_NEGATIVE_WEIGHT_CHECKS=1,
        a sync between ops of one stream, a cycle) or empty; False when the longest path
        cannot be computed."""
        if not self._validate_graph():
            raise ValueError("Graph is not valid, see prints above for help on debugging")
        try:
            self.critical_path_nodes = self.longest_path(self.topological_order())
        except ValueError as error:
            logger.error("Critical path algorithm failed due to %s", error)
            return False
        if len(self.critical_path_nodes) < 2:  # HTA: an AssertionError
            raise ValueError("no critical path: the window has no CPU operator, CUDA runtime "
                             "call or launched GPU op with a duration")
        self.critical_path_events_set = {self.node_list[n].ev_idx
                                         for n in self.critical_path_nodes}
        self.critical_path_edges_set = set()
        for u, v in zip(self.critical_path_nodes, self.critical_path_nodes[1:]):
            self.critical_path_edges_set.add(self._succ[u][v]["object"])
        return True

    def _validate_graph(self) -> bool:
        """HTA's checks: weights below zero are set to 0 in the graph (kept on the CPEdge) unless
        the strict check is asked for; no sync edge between ops of one stream; no cycle."""
        strict = _flag(_STRICT_NEGATIVE_WEIGHT_CHECKS)
        negative_weights = sync_on_same_stream = False
        stream = self.trace_df.stream
        for u, v in self.edges:
            e = self._succ[u][v]["object"]
            if e.weight <= -1 and not strict:
                logger.warning("Ignoring negative weight of -1 for %s", e)
                self._succ[u][v]["weight"] = 0
            elif e.weight < -1:
                logger.error("Found an edge with negative weight %s", e)
                negative_weights = True
            if e.type == CPEdgeType.SYNC_DEPENDENCY:
                src = stream.loc[self.node_list[u].ev_idx]
                dest = stream.loc[self.node_list[v].ev_idx]
                if src != -1 and src == dest:
                    logger.error("Seeing a CUDA sync between kernels on same stream %s", e)
                    sync_on_same_stream = True
        if negative_weights or sync_on_same_stream:
            return False
        try:
            self.topological_order()
        except ValueError:
            logger.error("This graph has cycles")
            return False
        return True

    def get_critical_path_breakdown(self):
        """One row per edge of the critical path (in the order of critical_path_edges_set):
        event_idx (the event it is attributed to, NaN for dependencies and launch delays),
        duration (µs), type, s_name, cat, pid, tid, stream, index of that event, and bound_by
        (cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_kernel_overhead,
        gpu_kernel_launch_overhead, "" for dependencies). None before critical_path()."""
        if len(self.critical_path_nodes) == 0:
            return None
        pd, df = self._pd, self.trace_df
        decode(df, self.symbol_table, shorten=True)
        edges = pd.DataFrame.from_records(
            {"event_idx": self.get_event_attribution_for_edge(e), "duration": e.weight,
             "type": str(e.type.value)} for e in self.critical_path_edges_set)
        edges = pd.merge(edges, df[["s_name", "cat", "pid", "tid", "stream", "index"]],
                         left_on="event_idx", right_on="index", how="left")
        edges["bound_by"] = _bound_by(edges)
        return edges

    def summary(self):
        """The critical path's duration by bound_by, in % (HTA's summary; prints its title)."""
        edges = self.get_critical_path_breakdown()
        summary = edges.groupby("bound_by").duration.sum() / edges.duration.sum() * 100
        print("Critical Path broken down by boundedness = (in % of duration)")
        return summary

    def show_critical_path(self) -> None:
        """Logs the nodes of the critical path (logger xpuperf.hta, level INFO)."""
        for n in self.critical_path_nodes:
            node = self.node_list[n]
            logger.info("Critical %s, ev_id = %s ev_name = %s", node, node.ev_idx,
                        self._get_node_name(node.ev_idx))


def _bound_by(edges) -> np.ndarray:
    """HTA's bound_by of each critical path edge: the delays by their type, "" for the
    dependencies, else cpu_bound (stream < 0), gpu_communication_bound (an NCCL kernel) or
    gpu_compute_bound."""
    kind = edges["type"].to_numpy(dtype=object)
    names = edges["s_name"]
    result = np.full(len(edges), "", dtype=object)
    result[kind == "critical_path_kernel_kernel_delay"] = "gpu_kernel_kernel_overhead"
    result[kind == "critical_path_kernel_launch_delay"] = "gpu_kernel_launch_overhead"
    spans = ~np.isin(kind, ["critical_path_kernel_kernel_delay",
                            "critical_path_kernel_launch_delay", "critical_path_dependency",
                            "critical_path_sync_dependency"])
    missing = spans & names.isna().to_numpy()
    assert not missing.any(), f"name of edge is na : row = {edges[missing].iloc[0]}"
    cpu = spans & (edges["stream"] < 0).to_numpy()
    gpu = spans & ~cpu
    comm = np.array([_COMM_KERNEL.match(n) is not None if g else False
                     for n, g in zip(names.tolist(), gpu.tolist())], dtype=bool)
    result[cpu] = "cpu_bound"
    result[gpu & comm] = "gpu_communication_bound"
    result[gpu & ~comm] = "gpu_compute_bound"
    return result


def critical_path_analysis(pd, trace_df, symbol_table, rank: int, annotation: str,
                           instance_id, queue_lengths):
    """HTA's CriticalPathAnalysis.critical_path_analysis over the rank's frame `trace_df` (HTA's
    get_trace(rank)): the window is the span of the chosen instance(s) of the annotation (the
    rows whose name contains `annotation`, in frame order; the whole trace for ""), the graph
    holds the CPU events starting in it (dur > 0) and the GPU ops whose launch starts in it.
    Returns (CPGraph, success), or None when no name contains the annotation."""
    sym_index = symbol_table.get_sym_id_map()
    if "cuda_sync" not in sym_index:
        logger.warning("Trace does not contain CUDA Synchronization events so the results of "
                       "analysis could be inaccurate.")
    annotation_ids = [val for key, val in sym_index.items() if annotation in key]
    if len(annotation_ids) == 0:
        logger.error("Could not find annotation %s in the trace.", annotation)
        return None
    if instance_id is None:
        first, last = 0, 0
    elif isinstance(instance_id, tuple):
        first, last = instance_id
    elif isinstance(instance_id, int):
        first, last = instance_id, instance_id
    else:
        logger.error("Unexpected input type instance_id")
        return None
    if annotation == "":
        # As HTA: ts is aligned to the run's start, end is not (so the window is everything).
        start_ts, end_ts = trace_df.ts.min(), trace_df.end.max()
    else:
        annotations = trace_df[trace_df.name.isin(annotation_ids)]
        chosen = slice(first, last + 1)
        start_ts = annotations.ts.iloc[chosen].min()
        end_ts = (annotations.ts + annotations.dur).iloc[chosen].max()
    if pd.isna(start_ts) or pd.isna(end_ts):
        raise ValueError(f"instance {instance_id} of {annotation!r} is not in the trace (it "
                         f"has {len(annotations)} events whose name contains it)")
    cpu = trace_df[trace_df["stream"].eq(-1)]
    in_window = cpu[(cpu.ts >= start_ts) & (cpu.ts <= end_ts) & (cpu.dur > 0)]
    gpu = trace_df[trace_df["stream"].ne(-1)]
    launches = cpu.copy().set_index("index_correlation")
    stream_wait_event = sym_index.get("Stream Wait Event", -200)
    joined = gpu[["ts", "dur", "correlation", "name"]].join(launches[["ts", "dur"]],
                                                            rsuffix="_runtime")
    launched_in_window = joined[((joined.ts_runtime >= start_ts) & (joined.ts_runtime <= end_ts)
                                 & (joined.dur_runtime > 0))
                                | (joined.name == stream_wait_event)]
    clipped = trace_df.loc[in_window.index.union(launched_in_window.index)].copy()
    with _collector_paused():
        graph = CPGraph(pd, clipped, trace_df, symbol_table, rank, queue_lengths)
        return graph, graph.critical_path()


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while the graph is built: its passes over the
    growing set of nodes and edges took a third of the time on a 76,000-node graph, and
    nothing built here is garbage until the graph itself is."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _is_zero_weight_launch_edge(e: CPEdge) -> bool:
    return e.type == CPEdgeType.KERNEL_LAUNCH_DELAY and e.weight == 0


def overlay(raw_trace: Dict[str, Any], graph: CPGraph, only_show_critical_events: bool,
            show_all_edges: bool, edge_types_to_viz: Optional[Set[CPEdgeType]]) -> None:
    """HTA's overlay_critical_path_analysis on the rank's trace file contents (changed in
    place): args.critical = 1 on the events of the critical path, a flow (ph s / f, name
    critical_path, cat the edge type, args weight and critical) per edge shown, and, with
    only_show_critical_events, the complete events neither critical nor user annotations nor
    python functions left out."""
    if only_show_critical_events:
        show_all_edges = False
    if edge_types_to_viz is None:
        edge_types_to_viz = DEFAULT_EDGE_TYPES_IN_VIZ
    raw_events = raw_trace["traceEvents"]
    for ev_idx, event in enumerate(raw_events):
        if ev_idx in graph.critical_path_events_set:
            event.setdefault("args", {})["critical"] = 1

    def flow(nid: int, event: Dict[str, Any], edge: CPEdge, flow_id: int, is_start: bool):
        end_ts = event["ts"] + event["dur"]
        if event.get("args", {}).get("device", -1) >= 0:
            end_ts -= min(1, event["dur"])
        return flow_event(id=flow_id, pid=event["pid"], tid=event["tid"],
                          ts=int(event["ts"] if graph.node_list[nid].is_start else end_ts),
                          is_start=is_start, name="critical_path", cat=str(edge.type.value),
                          args={"weight": int(edge.weight),
                                "critical": edge in graph.critical_path_edges_set})

    if show_all_edges:
        edges = (graph.edges[u, v]["object"] for u, v in graph.edges)
        if not _flag(_SHOW_ZERO_WEIGHT_LAUNCH_EDGES):
            edges = (e for e in edges if not _is_zero_weight_launch_edge(e))
    else:
        edges = (e for e in graph.critical_path_edges_set if e.type in edge_types_to_viz)
    flows = []
    for flow_id, e in enumerate(edges):
        start_ev, end_ev = graph.get_events_for_edge(e)
        flows.append(flow(e.begin, raw_events[start_ev], e, flow_id, is_start=True))
        flows.append(flow(e.end, raw_events[end_ev], e, flow_id, is_start=False))
    if only_show_critical_events:
        raw_trace["traceEvents"] = [
            event for event in raw_events
            if (event["ph"] != "X" or event.get("cat", "") in ["user_annotation", "python_function"]
                or ("args" in event and event["args"].get("critical", 0) == 1))]
    raw_trace["traceEvents"].extend(flows)
