"""HTA's analyses that depend on its frame's row order and labels (idle time breakdown, CUDA
kernel launch statistics, queues, memory bandwidth, user annotations, the GPU kernels with their
user annotation and every frame column, ATen operator launch delays) through HTA 0.5.0 and through xpuperf.hta on the same files: equal DataFrames (columns,
dtypes, index, values) or the same exception type, on every shared real trace, a two-rank run
and synthetic traces. HTA runs here, in the test."""

import logging
import os
import warnings

import pandas as pd
import pytest
from trace_files import shared_traces, single

from xpuperf.hta import TraceAnalysis as XpuperfAnalysis

hta_trace_analysis = pytest.importorskip("hta.trace_analysis", reason="skipped: HTA not installed")
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

QUEUE = object()  # stands for the analysis's own get_queue_length_time_series(ranks)

# (method, keyword arguments): the notebook calls compared.
CALLS = [
    ("get_idle_time_breakdown", {}),
    ("get_idle_time_breakdown", {"show_idle_interval_stats": True, "consecutive_kernel_delay": 5}),
    ("get_cuda_kernel_launch_stats", {}),
    ("get_cuda_kernel_launch_stats", {"include_memory_events": False}),
    ("get_queue_length_time_series", {}),
    ("get_queue_length_summary", {}),
    ("get_memory_bw_time_series", {}),
    ("get_memory_bw_summary", {}),
    ("get_aten_op_kernels_and_delay", {}),
    ("get_aten_op_kernels_and_delay", {"sort_by": ["avg_runtime_delay"]}),
    # Calls that take get_queue_length_time_series' result: each side gets its own.
    ("get_queue_length_summary_from_time_series", {"queue_length_dict": QUEUE}),
    ("get_time_spent_blocked_on_full_queue", {"queue_length_dict": QUEUE}),
    ("get_time_spent_blocked_on_full_queue", {"queue_length_dict": QUEUE, "max_queue_length": 2}),
]
# Calls over every rank of the run (no `ranks` argument).
RUN_CALLS = [
    ("get_gpu_user_annotation_breakdown", {}),
    ("get_gpu_user_annotation_breakdown", {"use_gpu_annotation": False}),
    ("get_gpu_user_annotation_breakdown", {"use_gpu_annotation": False, "num_kernels": 2}),
    ("get_gpu_user_annotation_breakdown", {"use_gpu_annotation": False, "num_kernels": 2,
                                           "duration_ratio": 0.5,
                                           "allowlist_patterns": ["Step", "zero_grad"]}),
    ("get_profiler_steps", {}),
    ("get_potential_stragglers", {}),
    ("get_potential_stragglers", {"num_candidates": 1}),
    ("get_potential_stragglers", {"num_candidates": 0, "profiler_steps": [1, 2, 551]}),
    ("get_potential_stragglers", {"profiler_steps": [99999]}),
]
# Calls of one rank (`rank`), made for every rank of the run.
RANK_CALLS = [
    ("get_gpu_kernels_with_user_annotations", {}),
    ("get_gpu_kernels_with_user_annotations", {"expand_names": False}),
    ("get_gpu_kernels_with_user_annotations", {"shortern_names": False}),
]


def _frames(result):
    if isinstance(result, dict):
        return [result[k] for k in sorted(result)], sorted(result)
    if result is None:
        return [None], None
    if isinstance(result, tuple):
        return list(result), None
    return [result], None


NO_VISUALIZE = ("get_queue_length_time_series", "get_queue_length_summary",
                "get_memory_bw_time_series", "get_memory_bw_summary",
                "get_aten_op_kernels_and_delay", "get_queue_length_summary_from_time_series",
                "get_time_spent_blocked_on_full_queue", "get_profiler_steps",
                "get_gpu_kernels_with_user_annotations")


def _call(analysis, method, kwargs):
    if method not in NO_VISUALIZE:
        kwargs = dict(kwargs, visualize=False)
    if kwargs.get("queue_length_dict") is QUEUE:
        kwargs = dict(kwargs)
        ranks = kwargs.pop("ranks", None)
        kwargs = dict(kwargs, queue_length_dict=_call(analysis, "get_queue_length_time_series",
                                                      {"ranks": ranks}))
    try:
        return getattr(analysis, method)(**kwargs)
    except Exception as error:  # noqa: BLE001 - compared below
        return error


# With include_last_profiler_step=True, HTA's other analyses too (test_hta_parity.py compares
# them with the default).
INCLUDE_LAST_CALLS = [
    ("get_temporal_breakdown", {}),
    ("get_gpu_kernel_breakdown", {}),
    ("get_comm_comp_overlap", {}),
]


def _compare_all(directory, ranks=None, include_last_profiler_step=False):
    """Every call of CALLS on one directory, HTA and xpuperf each reading it once; the number of
    rows compared. Fails listing every call that differs."""
    theirs_analysis = hta_trace_analysis.TraceAnalysis(
        trace_dir=directory, include_last_profiler_step=include_last_profiler_step)
    ours_analysis = XpuperfAnalysis(trace_dir=directory,
                                    include_last_profiler_step=include_last_profiler_step)
    if ranks == "all":
        ranks = theirs_analysis.t.get_ranks()
    rows, failures = 0, []
    rank_calls = [(method, dict(kwargs, rank=rank)) for rank in theirs_analysis.t.get_ranks()
                  for method, kwargs in RANK_CALLS]
    # The rank calls first: HTA adds columns to its cached frame in some calls (s_name and s_cat
    # in get_gpu_user_annotation_breakdown), which get_gpu_kernels_with_user_annotations would
    # then return too (docs/PYTHON.md).
    extra = INCLUDE_LAST_CALLS if include_last_profiler_step else []
    for method, kwargs in rank_calls + CALLS + RUN_CALLS + extra:
        if ranks is not None and (method, kwargs) in CALLS:
            kwargs = dict(kwargs, ranks=ranks)
        try:
            rows += _compare(theirs_analysis, ours_analysis, method, kwargs)
        except AssertionError as error:
            failures.append(f"{method}({kwargs}): {error}")
    assert not failures, "\n".join(failures)
    return rows


def _compare(theirs_analysis, ours_analysis, method, kwargs):
    theirs = _call(theirs_analysis, method, kwargs)
    ours = _call(ours_analysis, method, kwargs)
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"HTA raised {theirs!r}, xpuperf returned {ours}"
        assert type(ours) is type(theirs), f"HTA raised {theirs!r}, xpuperf {ours!r}"
        return 0
    assert not isinstance(ours, Exception), f"xpuperf raised {ours!r}, HTA returned {theirs}"
    if isinstance(theirs, list):  # ranks or profiler steps
        assert ours == theirs
        return len(theirs)
    expected, expected_keys = _frames(theirs)
    actual, actual_keys = _frames(ours)
    assert expected_keys == actual_keys
    assert len(expected) == len(actual)
    rows = 0
    for e, a in zip(expected, actual):
        if e is None:
            assert a is None
            continue
        pd.testing.assert_frame_equal(a, e, check_exact=True)
        rows += len(e)
    return rows


@pytest.mark.parametrize("path", shared_traces() or ["(no shared traces)"],
                         ids=lambda p: os.path.basename(p)[:40])
def test_shared_trace(trace_dir, tmp_path, path):
    _compare_all(single(tmp_path, path))


@pytest.mark.parametrize("path", shared_traces() or ["(no shared traces)"],
                         ids=lambda p: os.path.basename(p)[:40])
def test_shared_trace_with_the_last_step(trace_dir, tmp_path, path):
    """include_last_profiler_step=True: HTA still filters a run of two or more ProfilerSteps
    (GPU kernels without a kept launch dropped, the frame reordered), keeping the CPU events
    whose aligned ts is at most the last step's (unaligned) end."""
    _compare_all(single(tmp_path, path), include_last_profiler_step=True)


def test_two_ranks(trace_dir, tmp_path):
    directory = tmp_path / "ranks"
    directory.mkdir()
    for rank in (0, 1):
        name = f"trace_filter__sampled_rank-{rank}.json.gz"
        os.symlink(os.path.join(trace_dir, name), directory / name)
    assert _compare_all(str(directory), ranks=[1, 0]) > 0
    assert _compare_all(str(directory), ranks=[1, 0], include_last_profiler_step=True) > 0


@pytest.mark.parametrize("seed", range(1, 9))
def test_generated(hta_referee, tmp_path, seed):
    path = tmp_path / (f"generated_{seed}.json" + (".gz" if seed % 2 else ""))
    hta_referee.generate(str(path), seed)
    assert _compare_all(str(tmp_path), ranks="all") > 0  # some seeds write rank 1 or 3
    assert _compare_all(str(tmp_path), ranks="all", include_last_profiler_step=True) > 0


def test_unknown_rank_is_an_error(trace_dir, tmp_path):
    path = os.path.join(trace_dir,
                        "critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz")
    with pytest.raises(ValueError, match="no trace for rank 5"):
        XpuperfAnalysis(trace_dir=single(tmp_path, path)).get_idle_time_breakdown(ranks=[5])


def _write_straggler_run(directory, ranks: int, steps: int, seed: int):
    """`ranks` Kineto traces of `steps` ProfilerSteps, each step launching a compute kernel and
    two NCCL kernels on stream 7 whose start depends on the rank (rank 2 late) with jitter."""
    import json
    import random

    rng = random.Random(seed)
    for rank in range(ranks):
        events, corr, now = [], 1, 1_000_000
        for step in range(steps):
            start = now
            for name in ("ncclKernel_AllReduce_RING_LL_Sum_float", "volta_sgemm_128x64_nn",
                         "ncclKernel_AllGather_RING_LL_Sum_float"):
                now += rng.randint(5, 20)
                events.append({"ph": "X", "cat": "cpu_op", "name": "aten::op", "pid": 1,
                               "tid": 1, "ts": now, "dur": 30})
                events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                               "pid": 1, "tid": 1, "ts": now + 1, "dur": 5,
                               "args": {"correlation": corr}})
                late = 400 if rank == 2 else 0
                events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                               "ts": now + 10 + late + rng.randint(0, 50),
                               "dur": rng.randint(200, 900),
                               "args": {"stream": 7, "device": 0, "correlation": corr}})
                corr += 1
                now += 40
            now += 1500
            events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}",
                           "pid": 1, "tid": 1, "ts": start, "dur": now - start})
        doc = {"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": ranks},
               "traceEvents": events}
        with open(os.path.join(directory, f"rank-{rank}.json"), "w") as handle:
            json.dump(doc, handle)


@pytest.mark.parametrize("seed", range(1, 4))
def test_potential_stragglers_over_steps(tmp_path, seed):
    """Several ranks and steps (HTA's per-iteration vote), every step or some of them."""
    _write_straggler_run(str(tmp_path), ranks=4, steps=5, seed=seed)
    theirs = hta_trace_analysis.TraceAnalysis(trace_dir=str(tmp_path))
    ours = XpuperfAnalysis(trace_dir=str(tmp_path))
    for kwargs in ({}, {"num_candidates": 1}, {"num_candidates": 3},
                   {"profiler_steps": [1, 3]}, {"profiler_steps": [2]}):
        assert _compare(theirs, ours, "get_potential_stragglers", kwargs) > 0, kwargs
    assert 2 in ours.get_potential_stragglers(num_candidates=1)
