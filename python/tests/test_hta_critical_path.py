"""HTA 0.5.0's critical_path_analysis / overlay_critical_path_analysis and xpuperf.hta's on the
same files: the same graph (nodes, edges in networkx's order, weights), the same critical path
(nodes, events, edges), the same edge attribution, equal get_critical_path_breakdown frames (row
order included: both iterate a set of equal edges), equal summaries and equal overlaid trace
files, on every shared trace and on generated ones that add what the shared ones lack
(cudaStreamWaitEvent between streams, NCCL kernels, a child ending after its parent)."""

import contextlib
import glob
import gzip
import io
import json
import logging
import os
import warnings

import pandas as pd
import pytest

from trace_files import shared_traces
from xpuperf.hta import TraceAnalysis as XpuperfAnalysis

hta_trace_analysis = pytest.importorskip("hta.trace_analysis", reason="skipped: HTA not installed")
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

_WINDOWS = [("ProfilerStep", None), ("ProfilerStep", (0, 1)), ("", None)]


def _graph(g):
    nodes = [(n.idx, int(n.ev_idx), n.ts, bool(n.is_start), bool(n.is_blocking))
             for n in g.node_list]
    edges = [(u, v, g.edges[u, v]["weight"], g.edges[u, v]["object"].weight,
              g.edges[u, v]["object"].type.value) for u, v in g.edges]
    path_edges = [(e.begin, e.end, e.weight, e.type.value) for e in g.critical_path_edges_set]
    return {"nodes": nodes, "edges": edges, "path": list(g.critical_path_nodes),
            "events": {int(e) for e in g.critical_path_events_set},
            "path_edges": path_edges, "attribution": dict(g.edge_to_event_map),
            "start": dict(g.event_to_start_node_map), "end": dict(g.event_to_end_node_map)}


def _summary(g):
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        summary = g.summary()
    return summary, printed.getvalue()


def _compare(directory, tmp_path, windows=_WINDOWS, rank=None):
    """HTA and xpuperf.hta on `directory` (rank: default the first), every window: returns how
    many had a path."""
    theirs = hta_trace_analysis.TraceAnalysis(trace_dir=str(directory))
    ours = XpuperfAnalysis(trace_dir=str(directory))
    if rank is None:
        rank = theirs.t.get_ranks()[0]
    compared = 0
    for annotation, instance in windows:
        try:
            expected = theirs.critical_path_analysis(rank, annotation, instance)
        except (TypeError, AssertionError, ValueError):
            continue  # HTA fails on this trace (e.g. no kernel launches): nothing to compare
        got = ours.critical_path_analysis(rank, annotation, instance)
        if expected is None:
            assert got is None
            continue
        (g_theirs, ok_theirs), (g_ours, ok_ours) = expected, got
        assert ok_theirs == ok_ours
        assert _graph(g_theirs) == _graph(g_ours), (annotation, instance)
        pd.testing.assert_frame_equal(g_theirs.get_critical_path_breakdown(),
                                      g_ours.get_critical_path_breakdown())
        s_theirs, s_ours = _summary(g_theirs), _summary(g_ours)
        pd.testing.assert_series_equal(s_theirs[0], s_ours[0])
        assert s_theirs[1] == s_ours[1]
        # The overlaid files (gzip, indent 2: the costly part) for the first window compared.
        modes = ((True, False), (False, True), (False, False)) if compared == 0 else ()
        for only, show_all in modes:
            out_theirs, out_ours = tmp_path / "hta", tmp_path / "xpuperf"
            f_ours = ours.overlay_critical_path_analysis(rank, g_ours, str(out_ours), only,
                                                         show_all)
            try:
                f_theirs = theirs.overlay_critical_path_analysis(rank, g_theirs,
                                                                 str(out_theirs), only, show_all)
            except KeyError:  # HTA fails where a critical event has no args; xpuperf adds them
                with gzip.open(f_ours) as b:
                    assert any(e.get("args", {}).get("critical") == 1
                               for e in json.load(b)["traceEvents"])
                continue
            assert os.path.basename(f_theirs) == os.path.basename(f_ours)
            with gzip.open(f_theirs) as a, gzip.open(f_ours) as b:
                assert json.load(a) == json.load(b), (annotation, instance, only, show_all)
        compared += 1
    return compared


@pytest.mark.parametrize("path", shared_traces(), ids=os.path.basename)
def test_shared_trace(path, tmp_path):
    directory = tmp_path / "trace"
    directory.mkdir()
    os.symlink(os.path.abspath(path), directory / os.path.basename(path))
    _compare(directory, tmp_path)


def test_two_ranks(trace_dir, tmp_path):
    """Both sampled ranks of trace_filter in one directory (one symbol table, one alignment for
    the run): each rank's path as HTA's."""
    paths = sorted(glob.glob(os.path.join(trace_dir, "trace_filter__sampled_rank-*.json*")))
    if len(paths) < 2:
        pytest.skip(f"skipped: the two trace_filter ranks are not in {trace_dir}")
    directory = tmp_path / "trace"
    directory.mkdir()
    for path in paths:
        os.symlink(os.path.abspath(path), directory / os.path.basename(path))
    for rank in (0, 1):
        assert _compare(directory, tmp_path, windows=[("ProfilerStep", 0), ("", None)],
                        rank=rank) == 2


def test_shared_traces_are_here(trace_dir):
    assert shared_traces(), f"no traces in {trace_dir}"


def _event(name, cat, ts, dur, pid, tid, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
            "args": args}


def _gpu(name, cat, ts, dur, stream, correlation, **args):
    return _event(name, cat, ts, dur, 0, stream, stream=stream, correlation=correlation,
                  device=0, **args)


def _generated(child_past_parent=False):
    """Three ProfilerSteps on one CPU thread; kernels on streams 7 and 8 joined by a
    cudaEventRecord / cudaStreamWaitEvent pair, an NCCL kernel on stream 9, a stream and a
    device synchronization, queued and idle streams."""
    cpu = (1, 1)
    ev = []
    corr = iter(range(100, 1000))
    for step, base in enumerate((1000, 3000, 5000)):
        ev.append(_event(f"ProfilerStep#{step + 1}", "user_annotation", base, 1900, *cpu))
        mm, add, rec, wait, mul, nccl, ssync, dsync = (next(corr) for _ in range(8))
        # The launch of aten::mm's kernel, which ends 1 µs after aten::mm when asked (an edge
        # of weight -1, which both set to 0).
        launch_ts, launch_dur = (base + 95, 6) if child_past_parent else (base + 20, 8)
        ev += [
            _event("aten::mm", "cpu_op", base + 10, 90, *cpu),
            _event("cudaLaunchKernel", "cuda_runtime", launch_ts, launch_dur, *cpu,
                   correlation=mm),
            _gpu("sm90_gemm_kernel", "kernel", base + 105, 195, 7, mm),
            _event("aten::add", "cpu_op", base + 110, 40, *cpu),
            _event("cudaLaunchKernel", "cuda_runtime", base + 115, 5, *cpu, correlation=add),
            _gpu("add_kernel", "kernel", base + 300, 50, 7, add),
            _event("cudaEventRecord", "cuda_runtime", base + 155, 3, *cpu, correlation=rec),
            _event("cudaStreamWaitEvent", "cuda_runtime", base + 160, 2, *cpu,
                   correlation=wait),
            _gpu("Stream Wait Event", "cuda_sync", base + 161, 0, 8, wait, wait_on_stream=7,
                 wait_on_cuda_event_record_corr_id=rec),
            _event("aten::mul", "cpu_op", base + 165, 35, *cpu),
            _event("cudaLaunchKernel", "cuda_runtime", base + 170, 5, *cpu, correlation=mul),
            _gpu("mul_kernel", "kernel", base + 360, 40, 8, mul),
            _event("nccl:all_reduce", "cpu_op", base + 205, 20, *cpu),
            _event("cudaLaunchKernel", "cuda_runtime", base + 210, 5, *cpu, correlation=nccl),
            _gpu("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", base + 220, 600, 9, nccl),
            _event("cudaStreamSynchronize", "cuda_runtime", base + 400, 30, *cpu,
                   correlation=ssync),
            _gpu("Stream Sync", "cuda_sync", base + 401, 28, 8, ssync),
            _event("cudaDeviceSynchronize", "cuda_runtime", base + 440, 400, *cpu,
                   correlation=dsync),
            _event("Context Sync", "cuda_sync", base + 441, 398, 0, -1, stream=-1,
                   correlation=dsync, device=0),
        ]
    return {"schemaVersion": 1, "traceEvents": ev}


@pytest.mark.parametrize("child_past_parent", [False, True], ids=["nested", "child_past_parent"])
def test_generated(tmp_path, child_past_parent):
    directory = tmp_path / "trace"
    directory.mkdir()
    with gzip.open(directory / "rank-0.json.gz", "wt") as handle:
        json.dump(_generated(child_past_parent), handle)
    assert _compare(directory, tmp_path) == len(_WINDOWS)
    graph, ok = XpuperfAnalysis(trace_dir=str(directory)).critical_path_analysis(
        0, "ProfilerStep", 0)
    assert ok
    kinds = {graph.edges[u, v]["object"].type.value for u, v in graph.edges}
    assert {"critical_path_sync_dependency", "critical_path_kernel_launch_delay",
            "critical_path_kernel_kernel_delay", "critical_path_dependency"} <= kinds
    summary = graph.summary()
    assert summary.sum() == pytest.approx(100.0)
    assert "gpu_communication_bound" in summary.index


@pytest.mark.parametrize("seed", range(1, 9))
def test_referee_generated(hta_referee, tmp_path, seed):
    """The synthetic Kineto traces of the HTA referee (trace/tests/hta_referee.py): some windows
    have no valid graph, in both (the same ValueError)."""
    directory = tmp_path / "trace"
    directory.mkdir()
    hta_referee.generate(str(directory / (f"generated_{seed}.json" + (".gz" if seed % 2 else ""))),
                         seed)
    _compare(directory, tmp_path)
    for annotation, instance in _WINDOWS:
        try:
            hta_trace_analysis.TraceAnalysis(trace_dir=str(directory)).critical_path_analysis(
                XpuperfAnalysis(trace_dir=str(directory)).t.get_ranks()[0], annotation, instance)
        except ValueError as error:
            with pytest.raises(ValueError, match=str(error)):
                ours = XpuperfAnalysis(trace_dir=str(directory))
                ours.critical_path_analysis(ours.t.get_ranks()[0], annotation, instance)


@pytest.mark.parametrize("variable", ["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE",
                                      "CRITICAL_PATH_SHOW_ZERO_WEIGHT_LAUNCH_EDGE"])
def test_environment_switches(tmp_path, monkeypatch, variable):
    """HTA's switches, read the same way by both: the zero-weight launch edges added to the
    graph, and shown in the overlaid trace."""
    monkeypatch.setenv("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE", "1")
    monkeypatch.setenv(variable, "1")
    directory = tmp_path / "trace"
    directory.mkdir()
    (directory / "rank-0.json").write_text(json.dumps(_generated()))
    assert _compare(directory, tmp_path) == len(_WINDOWS)


def test_errors(tmp_path):
    directory = tmp_path / "trace"
    directory.mkdir()
    (directory / "rank-0.json").write_text(json.dumps(_generated()))
    ours = XpuperfAnalysis(trace_dir=str(directory))
    assert ours.critical_path_analysis(0, "no such annotation", None) is None
    with pytest.raises(ValueError, match="instance 7 of 'ProfilerStep' is not in the trace"):
        ours.critical_path_analysis(0, "ProfilerStep", 7)
    with pytest.raises(ValueError):
        ours.critical_path_analysis(3, "ProfilerStep", 0)  # no such rank
    graph, _ = ours.critical_path_analysis(0, "ProfilerStep", 0)
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert ours.overlay_critical_path_analysis(0, graph, str(a_file)) == ""


def _edge_fields(edges):
    return [(e.begin, e.end, e.weight, e.type.value) for e in edges]


def test_accessors_and_networkx(tmp_path):
    """The lookups of CPGraph give HTA's answers, and to_networkx() gives a DiGraph on which
    networkx's own dag_longest_path finds the same path."""
    nx = pytest.importorskip("networkx", reason="skipped: networkx not installed")
    directory = tmp_path / "trace"
    directory.mkdir()
    (directory / "rank-0.json").write_text(json.dumps(_generated(True)))
    theirs, _ = hta_trace_analysis.TraceAnalysis(trace_dir=str(directory)).critical_path_analysis(
        0, "ProfilerStep", (0, 2))
    ours, _ = XpuperfAnalysis(trace_dir=str(directory)).critical_path_analysis(
        0, "ProfilerStep", (0, 2))
    for event in sorted(set(theirs.event_to_start_node_map) | {-5}):
        assert _edge_fields(theirs.get_edges_attributed_to_event(event)) == _edge_fields(
            ours.get_edges_attributed_to_event(event))
        assert [(n.idx, n.ts, n.is_start) if n else None for n in theirs.get_nodes_for_event(
            event)] == [(n.idx, n.ts, n.is_start) if n else None
                        for n in ours.get_nodes_for_event(event)]
    for u, v in theirs.edges:
        edge = ours.edges[u, v]["object"]
        assert theirs.get_events_for_edge(theirs.edges[u, v]["object"]) == \
            ours.get_events_for_edge(edge)
        assert theirs.get_event_attribution_for_edge(theirs.edges[u, v]["object"]) == \
            ours.get_event_attribution_for_edge(edge)
    assert list(theirs.nodes) == ours.nodes
    assert [list(theirs.neighbors(n)) for n in theirs.nodes] == [
        list(ours.neighbors(n)) for n in ours.nodes]
    assert [list(theirs.predecessors(n)) for n in theirs.nodes] == [
        list(ours.predecessors(n)) for n in ours.nodes]
    graph = ours.to_networkx()
    assert isinstance(graph, nx.DiGraph)
    assert list(graph.edges) == list(ours.edges)
    assert nx.dag_longest_path(graph, weight="weight") == ours.critical_path_nodes


@pytest.mark.parametrize("seed", range(6))
def test_call_stack_order_is_htas(seed):
    """The order of a thread's starts and ends (a lexsort where durations are positive, else
    compare_events itself) is the one HTA's sort with its compare_events gives, on random
    events with many equal times and durations."""
    import functools
    import random

    import numpy as np
    from hta.common.call_stack import Event, compare_events

    from xpuperf._hta_old_call_stacks import END, START, sorted_points

    rng = random.Random(seed)
    zero_durations = seed >= 4  # the fallback: compare_events itself
    n = 300
    frame = pd.DataFrame({
        "index": np.array(rng.sample(range(10 * n), n), dtype=np.int32),
        "ts": np.array([rng.randrange(40) for _ in range(n)], dtype=np.int64),
        "dur": np.array([rng.randrange(0 if zero_durations else 1, 6) for _ in range(n)],
                        dtype=np.float64 if seed % 2 else np.int64)})
    events = []
    for row in frame.itertuples():
        dur = max(row.dur, 0)
        events.append(Event(row.index, row.ts, dur, 1))
        events.append(Event(row.index, row.ts + dur, dur, -1))
    events.sort(key=functools.cmp_to_key(compare_events))
    expected = [(e.idx, START if e.type == 1 else END) for e in events]
    assert sorted_points(frame) == expected
