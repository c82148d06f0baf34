"""HTA 0.5.0's old call stacks (hta/common/call_stack.py), which its critical path analysis
builds over the CPU threads of the analysed window: per (pid, tid), each event's parent is the
event open at its start, found by sorting the starts and ends with HTA's compare_events.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Dict, List, Tuple

import numpy as np

logger = logging.getLogger("xpuperf.hta")

START, END = 1, -1


def compare_events(x, y) -> int:
    """hta.common.call_stack.compare_events over (idx, time, dur, type) tuples."""
    if x[0] == y[0]:
        return -1 if x[3] == START else 1
    result = x[1] - y[1]
    if result == 0:
        if x[3] == y[3]:
            if x[3] == START:
                if x[2] == y[2]:
                    result = -1 if x[0] < y[0] else 1 if x[0] > y[0] else 0
                else:
                    result = 1 if x[2] < y[2] else -1
            else:
                if x[2] == y[2]:
                    result = 1 if x[0] < y[0] else -1 if x[0] > y[0] else 0
                else:
                    result = -1 if x[2] < y[2] else 1
        elif x[2] > 0 and y[2] > 0:
            result = 1 if x[3] == START else -1
        elif x[2] == 0 and y[2] == 0:
            result = x[0] - y[0]
        else:
            result = -1 if x[3] == START else 1
    return result


def sorted_points(df) -> List[Tuple[int, int]]:
    """The (index, START or END) points of a thread's events in the order of HTA's sort by
    compare_events. Where every duration is positive (the CPU events of a critical path window)
    and the times are numbers and the indices distinct, compare_events is a strict total order:
    by time, ends before starts, ends by duration ascending then index descending, starts by
    duration descending then index ascending; that order is then found by one lexsort.
    Otherwise (zero durations, where compare_events is not transitive) Python's sort with
    compare_events itself, as HTA."""
    index = df["index"].to_numpy()
    ts = df["ts"].to_numpy()
    dur = np.maximum(df["dur"].to_numpy(), 0)
    end = ts + dur
    numeric = ts.dtype.kind in "iuf" and dur.dtype.kind in "iuf"
    if (numeric and len(index) > 0 and bool(np.all(dur > 0)) and not np.isnan(end).any()
            and len(np.unique(index)) == len(index)):
        n = len(index)
        index = index.astype(np.int64)
        times = np.concatenate([ts, end])
        kinds = np.concatenate([np.ones(n, np.int8), np.zeros(n, np.int8)])  # ends first
        durations = np.concatenate([-dur, dur])
        indices = np.concatenate([index, -index])
        order = np.lexsort((indices, durations, kinds, times))
        labels = np.concatenate([index, index])[order].tolist()
        points = np.where(kinds[order] == 1, START, END).tolist()
        return list(zip(labels, points))
    events = []
    for i, t, d, e in zip(index.tolist(), ts.tolist(), dur.tolist(), end.tolist()):
        events.append((i, t, d, START))
        events.append((i, e, d, END))
    events.sort(key=functools.cmp_to_key(compare_events))
    return [(event[0], event[3]) for event in events]


class CallStack:
    """One thread's CallStackGraph of HTA's old call_stack module: nodes {index: [parent, depth,
    children]} rooted at -1, built by sorting the starts and ends with compare_events (for
    every thread but a GPU stream's, as HTA)."""

    def __init__(self, df, streams):
        self.df = df
        self.is_gpu = len(streams) > 0 and bool(np.all(np.greater(streams, 0)))
        self.is_cpu = len(streams) > 0 and bool(np.all(np.less(streams, 0)))
        self.nodes: Dict[int, list] = {}
        if self.is_gpu:
            return
        self.nodes[-1] = [-1, -1, []]
        stack: List[int] = []
        for index, kind in sorted_points(df):
            if kind == START:
                parent = stack[-1] if stack else -1
                if index in self.nodes:
                    logger.error("node %s has already existed.", index)
                else:
                    self.nodes[parent][2].append(index)
                    self.nodes[index] = [parent, self.nodes[parent][1] + 1, []]
                stack.append(index)
            elif stack:
                stack.pop()

    def depth(self, pd):
        if self.is_gpu:
            correlations = self.df["index_correlation"]
            return pd.Series(data=np.full(correlations.size, -1), index=correlations.index,
                             name="depth", copy=True)
        return pd.Series(data={i: n[1] for i, n in self.nodes.items() if i >= 0}, name="depth",
                         copy=True)

    def dfs(self, enter, leave) -> None:
        """HTA's dfs_traverse from the root, without recursion: enter(i, parent) before a node's
        children, leave(i, parent) after them."""
        pending: List[Tuple[int, bool]] = [(-1, False)]
        while pending:
            index, done = pending.pop()
            node = self.nodes[index]
            if done:
                leave(index, node[0])
                continue
            enter(index, node[0])
            pending.append((index, True))
            pending.extend((child, False) for child in reversed(node[2]))


def call_stacks(pd, df) -> List[CallStack]:
    """HTA's old CallGraph of one rank's (clipped) frame: a stack per (pid, tid), a thread with
    GPU ops reduced to its stream > 0 rows; adds its depth and parent columns to `df` as HTA
    does. Returns the CPU threads' stacks."""
    stacks = []
    for _, thread in df.groupby(["pid", "tid"]):
        if thread["stream"].gt(0).any():
            thread = thread[thread["stream"].gt(0)]
        stacks.append(CallStack(thread, thread["stream"].unique()))
    parents: Dict[int, int] = {}
    for stack in stacks:
        parents.update({i: n[0] for i, n in stack.nodes.items() if i >= 0})
    if stacks and os.environ.get("HTA_DISABLE_CG_DEPTH", "0") != "1":
        df["depth"] = pd.concat([s.depth(pd) for s in stacks])
    parents.update(df[df["stream"].ne(-1)]["index_correlation"].to_dict())
    df["parent"] = pd.Series(parents)
    return [s for s in stacks if s.is_cpu]
