"""HTA 0.5.0's call stacks of a rank (its CallGraph) and the frequent CUDA kernel sequences found
on them, over the frame of _hta_frames.rank_frame (HTA's rows, row order, labels and dtypes).

HTA builds one tree per CPU thread: each CPU event's parent is the innermost event of the same
(pid, tid) open at its start (a sweep over the starts and ends, ties resolved by HTA's event
order), and each GPU op hangs under the CPU call that launched it (index_correlation). The trees
share one node map per rank, rooted at -|tid|; the backward thread's top events are moved under
the "## backward ##" (else ProfilerStep#) event of the main thread that encloses them. Each node
then gets its depth, the number of GPU ops under it (num_kernels) and the sum of their durations
(kernel_dur_sum, µs). The frequent sequences are, for each shallowest event whose name contains
the operator name and that has at least min_pattern_len GPU ops under it, the tuple (its name,
the names of those GPU ops by start time), counted with the GPU and CPU time (µs) they add up.

Every step keeps HTA's order of operations (Python sets of event labels, pandas' default sorts,
the same column assignments), because the order of equal timestamps, the dtypes and the labels
of the result depend on it. Not thread-safe: one call builds and reads its own structures.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import warnings
from collections import defaultdict
from typing import Dict, List, Set, Tuple

import numpy as np

_OPEN, _CLOSE = -1, 1
_CPU, _GPU = 1, 2
_NO_NODE = -2  # HTA's NON_EXISTENT_NODE_INDEX


class _Node:
    __slots__ = ("parent", "depth", "device", "children")

    def __init__(self, parent: int, depth: int, device: int, children: List[int]):
        self.parent, self.depth, self.device, self.children = parent, depth, device, children


def _less(x, y) -> bool:
    """HTA's order of the start (-1) and end (+1) points (index, dur, kind, time) of one thread:
    by time; at equal times an end before a start, the longer event opening first and closing
    last, zero-length events inside the ones around them, then by index."""
    index, dur, kind, time = 0, 1, 2, 3
    if x[time] != y[time]:
        return x[time] < y[time]
    if x[index] == y[index]:
        return x[kind] == _OPEN
    if x[dur] == 0 or y[dur] == 0:
        if x[dur] == 0 and y[dur] > 0:
            return y[kind] == _CLOSE
        if x[dur] > 0 and y[dur] == 0:
            return x[kind] == _OPEN
        if x[kind] == _OPEN and y[kind] == _OPEN:
            return x[index] < y[index]
        if x[kind] == _CLOSE and y[kind] == _CLOSE:
            return x[index] > y[index]
        return x[kind] == _OPEN
    if x[kind] == _CLOSE and y[kind] == _OPEN:
        return True
    if x[kind] == _OPEN and y[kind] == _CLOSE:
        return False
    if x[kind] == _OPEN and y[kind] == _OPEN and x[dur] != y[dur]:
        return x[dur] > y[dur]
    if x[kind] == _CLOSE and y[kind] == _CLOSE and x[dur] != y[dur]:
        return x[dur] < y[dur]
    return x[index] < y[index] if x[kind] == _OPEN else x[index] > y[index]


_ORDER = functools.cmp_to_key(lambda x, y: -1 if _less(x, y) else 1)


class _Stack:
    """One CPU thread's tree in the rank's shared node map."""

    def __init__(self, thread, tid, full, correlations, nodes: Dict[int, _Node], device: int):
        self.full, self.nodes, self.device = full, nodes, device
        self.root = -abs(tid)
        self.thread = thread
        if self.root not in nodes:
            nodes[self.root] = _Node(-1, -1, device, [])
        cpu = thread.loc[thread["stream"].eq(-1)][["index", "ts", "dur"]].copy()
        cpu["end"] = cpu["ts"] + cpu["dur"]
        with warnings.catch_warnings():  # pandas' notice on replace's downcast (HTA's step)
            warnings.simplefilter("ignore", FutureWarning)
            points = (cpu.melt(id_vars=["index", "dur"], value_vars=["ts", "end"],
                               var_name="kind", value_name="time")
                      .replace({"ts": -1, "end": 1}).sort_values("time")).to_numpy()
        points[:] = sorted(points.tolist(), key=_ORDER)
        open_events: List[int] = []
        for ev_index, _dur, kind, _time in points:
            if kind == -1:
                self._add_edge(open_events[-1] if open_events else self.root, ev_index, device)
                open_events.append(ev_index)
            elif open_events:
                open_events.pop(-1)
        links = correlations[correlations["cpu_index"].isin(thread["index"])][
            ["cpu_index", "gpu_index"]].values.tolist()
        for cpu_index, gpu_index in links:
            self._add_edge(cpu_index, gpu_index, _GPU)

    def _add_edge(self, parent: int, child: int, device: int) -> None:
        if child in self.nodes:  # HTA logs and keeps the first edge
            return
        if parent not in self.nodes:
            self.nodes[parent] = _Node(self.root, 0, device, [child])
        else:
            self.nodes[parent].children.append(child)
        self.nodes[child] = _Node(parent, self.nodes[parent].depth + 1, device, [])

    def adopt_top_events(self, new_parent: int) -> None:
        """HTA's update_parent_of_first_layer_nodes: the top events of this thread within
        new_parent's interval move under it."""
        full = self.full
        ts, end = full.loc[full["index"].eq(new_parent)][["ts", "end"]].to_numpy()[0]
        top = self.nodes[self.root].children
        guarded = set(full.loc[full["index"].isin(top) & full["ts"].ge(ts)
                               & full["end"].le(end)]["index"].to_list())
        valid = set(list(guarded)).intersection(set(self.nodes)) - set(
            self.nodes[new_parent].children)
        old_parents = {self.nodes[n].parent for n in valid}
        for index in valid:
            self.nodes[index].parent = new_parent
        self.nodes[new_parent].children.extend(valid)
        for parent in old_parents:
            for child in set(self.nodes[parent].children).intersection(valid):
                self.nodes[parent].children.remove(child)
            if len(self.nodes[parent].children) == 0:
                del self.nodes[parent]
        if self.root not in self.nodes:
            self.root = self._root_of(new_parent)

    def _root_of(self, index: int) -> int:
        if index not in self.nodes:
            return -1
        root = self.nodes[index].parent
        while root >= 0 and root in self.nodes:
            index, root = root, self.nodes[root].parent
        return root

    def path_to_root(self, index: int) -> List[int]:
        """HTA's get_path_to_root: `index`, its parent, ... up to the thread's root (-|tid|,
        then its parent -1); [] when `index` is not in the tree."""
        if index not in self.nodes:
            return []
        path = [index]
        while index >= 0 and index in self.nodes:
            index = self.nodes[index].parent
            path.append(index)
        return path

    def descendants(self, index: int) -> List[int]:
        """Every node of the subtree under `index` (GPU ops included), in HTA's set order."""
        found: List[int] = []
        path: List[int] = []

        def walk(at: int) -> None:
            if at not in self.nodes or self.nodes[index].device != _CPU:
                return
            path.append(at)
            if not self.nodes[at].children:
                found.extend(path)
            else:
                for child in self.nodes[at].children:
                    walk(child)
            path.pop()

        walk(index)
        return list(set(found))


def _device(thread) -> int:
    streams = thread["stream"].unique()
    if len(streams) and np.all(np.greater(streams, 0)):
        return _GPU
    if len(streams) and np.all(np.less(streams, 0)):
        return _CPU
    return 0


class CallGraph:
    """HTA's CallGraph of one rank over `frame` (a copy is annotated with parent, depth,
    num_kernels, kernel_dur_sum, ... as HTA's trace frame)."""

    def __init__(self, pd, frame):
        import sys

        df = frame.copy()
        df["end"] = df["ts"] + df["dur"]
        for column, value in (("depth", -1), ("height", -1), ("parent", -1), ("num_kernels", 0),
                              ("kernel_dur_sum", 0), ("kernel_span", 0),
                              ("first_kernel_start", -1), ("last_kernel_end", -1)):
            df.loc[df.index, column] = value
        names = set(df["name"].unique())
        main_names = {n for n in names if n.startswith("ProfilerStep#")}
        bwd_names = {n for n in names if "autograd::" in n}
        kernels = df[df["stream"].gt(0) & df["index_correlation"].gt(0)]["index"]
        correlations = (df.loc[kernels][["index", "index_correlation"]].copy()
                        .rename(columns={"index": "gpu_index", "index_correlation": "cpu_index"})
                        .reset_index(drop=True))
        self.nodes: Dict[int, _Node] = {}
        self.stacks: List[Tuple[object, object, str, _Stack]] = []
        # Deep call stacks recurse as deep as HTA's own walks.
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))
        for (pid, tid), thread in df.groupby(["pid", "tid"]):
            device = _device(thread)
            if device == _GPU:
                continue
            stack = _Stack(thread, tid, df, correlations, self.nodes, _CPU)
            thread_names = thread["name"].unique()
            if set(thread_names) & main_names:
                label = "main"
            elif set(thread_names) & bwd_names:
                label = "bwd"
            else:
                label = thread_names[0] if len(thread_names) else "empty"
            self.stacks.append((pid, tid, label, stack))
        self._link_backward(df)
        self.df = df
        if self.stacks:
            self._annotate(pd, df)
        self._normalize(pd, df)

    def _link_backward(self, df) -> None:
        labelled = sorted([(label, i) for i, (_, _, label, _) in enumerate(self.stacks)
                           if label in ("bwd", "main")], key=lambda item: item[0])
        if len(labelled) != 2:
            return
        bwd, main = self.stacks[labelled[0][1]][3], self.stacks[labelled[1][1]][3]
        for prefix in ("## backward ##", "ProfilerStep#"):
            parents = main.thread[main.thread["name"].str.startswith(prefix)]["index"].values
            if len(parents):
                for index in parents.tolist():
                    bwd.adopt_top_events(index)
                return

    def _roots(self) -> List[int]:
        return [i for i in self.nodes if i < 0 and i != _NO_NODE]

    def _annotate(self, pd, df) -> None:
        nodes = self.nodes

        def set_depth(index: int, parent_depth: int) -> None:
            if index in nodes:
                nodes[index].depth = parent_depth + 1
                for child in nodes[index].children:
                    set_depth(child, nodes[index].depth)

        for root in self._roots():
            set_depth(root, -2)
        ops = df.loc[df["index"].isin(nodes)]
        gpu = ops.loc[ops.stream.ne(-1)][["ts", "dur", "end"]]
        starts, ends, durs = gpu["ts"], gpu["end"], gpu["dur"]
        t_max = df["ts"].max() * 2
        info: Dict[int, Tuple] = {}

        def walk(index: int) -> Tuple:
            if index not in nodes:
                return (0, 0, 0, t_max, -1)
            node = nodes[index]
            if node.device == _GPU:
                if index in starts:
                    start, end, dur = starts[index], ends[index], durs[index]
                    info[index] = (1, dur, end - start, start, end)
                    return info[index]
                return (0, 0, 0, t_max, -1)
            count, total, span, start, end = 0, 0, 0, t_max, -1
            for child in node.children:
                c = walk(child)
                count, total = count + c[0], total + c[1]
                start, end = min(start, c[3]), max(end, c[4])
                span = end - start
            if index >= 0:
                info[index] = (count, total, span, start, end)
            return (count, total, span, start, end)

        for root in self._roots():
            walk(root)
        table = pd.DataFrame.from_dict(info, orient="index",
                                       columns=["count", "sum_dur", "kernel_span", "first_start",
                                                "last_end"])
        table = table.loc[table.index >= 0]
        if not table.empty:
            for column, source in (("num_kernels", "count"), ("kernel_dur_sum", "sum_dur"),
                                   ("kernel_span", "kernel_span"),
                                   ("first_kernel_start", "first_start"),
                                   ("last_kernel_end", "last_end")):
                df.loc[table.index, column] = table[source].astype(df.dtypes[column])
        # HTA's _compute_height: a GPU op 0, a CPU op 1 + its highest child (1 for a leaf);
        # nodes no root reaches keep -1.
        heights: Dict[int, int] = {}

        def height_of(index: int) -> int:
            if index not in nodes:
                return -1
            node = nodes[index]
            height = 0
            if node.device != _GPU:
                height = 1
                for child in node.children:
                    height = max(height, height_of(child) + 1)
            heights[index] = height
            return height

        for root in self._roots():
            height_of(root)
        own = {i: n for i, n in nodes.items() if i >= 0}
        for column, values, dtype in (("parent", {i: n.parent for i, n in own.items()},
                                       pd.Int64Dtype()),
                                      ("depth", {i: n.depth for i, n in own.items()},
                                       pd.Int16Dtype()),
                                      ("height", {i: heights.get(i, -1) for i in own},
                                       pd.Int16Dtype())):
            series = pd.Series(values, name=column, dtype=dtype, copy=True)
            df.loc[series.index, column] = series.astype(df.dtypes["height"])

    @staticmethod
    def _normalize(pd, df) -> None:
        df["num_kernels"] = df["num_kernels"].fillna(-1)
        none = df[df.num_kernels <= 0].index
        for column, value in (("kernel_dur_sum", 0), ("kernel_span", 0),
                              ("first_kernel_start", -1), ("last_kernel_end", -1)):
            df.loc[none, column] = value
        for column in ("depth", "height", "parent", "num_kernels"):
            df[column] = pd.to_numeric(df[column], errors="coerce", downcast="integer")

    def stack_of(self, index: int, skip_ancestors: bool = True):
        """HTA's get_stack_of_node(index, skip_ancestors): the rows of `index` and every node
        under it (and the ones above it unless skip_ancestors), by ts."""
        df = self.df
        node = df.loc[df["index"].eq(index)].squeeze()
        is_cpu = True
        if node["stream"] > 0:
            is_cpu = False
            node = df.loc[df["index"].eq(node["parent"])].squeeze()
        stack = next(s for pid, tid, _, s in self.stacks
                     if pid == node["pid"] and tid == node["tid"])
        descendants = stack.descendants(node["index"]) if is_cpu else [index]
        if skip_ancestors:
            valid = [i for i in set(descendants) if i >= 0]
        else:
            indices = set(stack.path_to_root(node["index"])).union(set(descendants))
            valid = [i for i in indices if i >= 0]
        return df.loc[valid].copy().sort_values("ts")


def frequent_sequences(pd, frame, operator_name: str, min_pattern_len: int):
    """The counts of each (operator, GPU op names...) pattern: (counts, durations [GPU µs,
    CPU µs], occurrences {pattern: set of labels}), in HTA's order of first occurrence."""
    graph = CallGraph(pd, frame)
    df = graph.df
    candidates = df.loc[df["name"].str.contains(operator_name, regex=False)]
    min_depth = candidates["depth"].min()
    roots = candidates.loc[candidates["depth"].eq(min_depth)
                           & candidates["num_kernels"].ge(min_pattern_len)]
    counts: Dict[Tuple[str, ...], int] = defaultdict(int)
    durations: Dict[Tuple[str, ...], List] = defaultdict(lambda: [0, 0])
    occurrences: Dict[Tuple[str, ...], Set[int]] = defaultdict(set)
    for _, index, name, dur, kernel_dur_sum in roots[
            ["index", "name", "dur", "kernel_dur_sum"]].itertuples():
        stack = graph.stack_of(index)
        kernels = stack.loc[stack["stream"].ne(-1)][["name", "ts", "dur"]].copy().sort_values("ts")
        pattern = tuple([name] + kernels["name"].tolist())
        counts[pattern] += 1
        durations[pattern][0] += kernel_dur_sum
        durations[pattern][1] += dur
        occurrences[pattern].update(stack["index"].to_list())
    return counts, durations, occurrences


def patterns_frame(pd, counts, durations, occurrences):
    """HTA's patterns_df: pattern ("|"-joined names), count, GPU kernel duration (us), CPU op
    duration (us), pattern_indices; by count descending, then pattern."""
    result: Dict[str, List] = defaultdict(list)
    for pattern, count in counts.items():
        result["pattern"].append("|".join(pattern))
        result["count"].append(count)
        result["GPU kernel duration (us)"].append(durations[pattern][0])
        result["CPU op duration (us)"].append(durations[pattern][1])
        result["pattern_indices"].append(list(occurrences[pattern]))
    return pd.DataFrame(result).sort_values(by=["count", "pattern"], ascending=[False, True],
                                            ignore_index=True)


def write_overlaid_trace(pd, source: str, output_file: str, top, compress: bool) -> None:
    """HTA's overlaid trace: the source trace with args.Patterns ({pattern: count}) on every
    event of the `top` patterns; with `compress`, the other complete events lose their args and
    their names become symbol ids, whose table is put in the args of the "PyTorch Profiler"
    event of pid "Spans". The ids are xpuperf's (HTA's come from a set of strings, whose order
    changes with Python's hash seed). Written gzip-compressed, as HTA, through a temporary
    file renamed into place."""
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rt") as handle:
        raw = json.load(handle)
    events = pd.DataFrame(raw["traceEvents"]).reset_index()
    events["index"] = pd.to_numeric(events["index"], downcast="integer")
    symbols = sorted(set(events["name"].dropna().astype(str)) | set(
        events["cat"].dropna().astype(str) if "cat" in events else []))
    symbol_ids = {s: i for i, s in enumerate(symbols)}
    active: Dict[int, Dict[str, int]] = {}
    for pattern, count, indices in zip(top["pattern"], top["count"], top["pattern_indices"]):
        for index in indices:
            active.setdefault(index, {})[pattern] = count
    args_column = events["args"] if "args" in events else pd.Series([np.nan] * len(events))
    new_args = []
    for position, args, phase in zip(events["index"], args_column, events.get("ph", [None] * len(events))):
        if position not in active:
            new_args.append({} if compress and phase == "X" else args)
            continue
        if not isinstance(args, dict):
            args = {}
        args["Patterns"] = active[position]
        new_args.append(args)
    events["args"] = new_args
    if compress:
        events["name"] = [name if (args or name not in symbol_ids) else str(symbol_ids[name])
                          for name, args in zip(events["name"], events["args"])]
        profiler = events[events["name"].astype(str).str.contains("PyTorch Profiler")
                          & events["pid"].eq("Spans")] if "pid" in events else events.iloc[0:0]
        table = {str(i): name for name, i in symbol_ids.items()}
        for label in profiler.index:
            events.at[label, "args"] = table
    events = events.drop(["index"], axis=1)
    raw["traceEvents"] = [{k: v for k, v in row.items() if not _missing(v)}
                          for row in events.to_dict(orient="records")]
    directory = os.path.dirname(os.path.abspath(output_file))
    temporary = os.path.join(directory, f".{os.path.basename(output_file)}.{os.getpid()}.tmp")
    try:
        with gzip.open(temporary, "wt") as handle:
            json.dump(raw, handle, indent=2, default=_json_default)
        os.replace(temporary, output_file)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")
