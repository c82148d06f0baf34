"""The same notebook calls through HTA 0.5.0 and through xpuperf.hta give equal DataFrames:
columns, dtypes, index and values (pandas.testing.assert_frame_equal), on every shared real
trace, a two-rank run and synthetic traces. HTA runs here, in the test, on the same files.
Integer columns and strings must be equal; floating-point ones within 1e-12 relative, since
pandas' groupby std sums in row order and HTA's rows are in file order, ours in timestamp order
(a difference in the last bit, seen on the stddev column)."""

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

METHODS = ["get_temporal_breakdown", "get_comm_comp_overlap", "get_gpu_kernel_breakdown"]


def _call(cls, directory, method):
    """The method's frames, or the exception it raised (HTA raises on traces without kernels)."""
    try:
        result = getattr(cls(trace_dir=directory), method)(visualize=False)
    except Exception as error:  # noqa: BLE001 - compared below
        return error
    return result if isinstance(result, tuple) else (result,)


def _compare(directory, method):
    theirs = _call(hta_trace_analysis.TraceAnalysis, directory, method)
    ours = _call(XpuperfAnalysis, directory, method)
    if isinstance(theirs, Exception):
        # HTA fails (no GPU kernels); so must we, and with a message that says why.
        assert isinstance(ours, Exception), f"HTA raised {theirs!r}, xpuperf returned {ours}"
        assert "no GPU events" in str(ours)
        return 0
    assert not isinstance(ours, Exception), f"xpuperf raised {ours!r}, HTA returned {theirs}"
    assert len(theirs) == len(ours)
    for expected, actual in zip(theirs, ours):
        pd.testing.assert_frame_equal(actual, expected, check_exact=False, rtol=1e-12, atol=0)
        for column in expected.columns:
            if expected[column].dtype.kind in "iuO":
                assert actual[column].tolist() == expected[column].tolist(), column
    return sum(len(f) for f in theirs)




@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", shared_traces() or ["(no shared traces)"],
                         ids=lambda p: os.path.basename(p)[:40])
def test_shared_trace(trace_dir, tmp_path, path, method):
    _compare(single(tmp_path, path), method)


@pytest.mark.parametrize("method", METHODS)
def test_two_ranks(trace_dir, tmp_path, method):
    directory = tmp_path / "ranks"
    directory.mkdir()
    for rank in (0, 1):
        name = f"trace_filter__sampled_rank-{rank}.json.gz"
        os.symlink(os.path.join(trace_dir, name), directory / name)
    assert _compare(str(directory), method) > 0


@pytest.mark.parametrize("seed", range(1, 9))
@pytest.mark.parametrize("method", METHODS)
def test_generated(hta_referee, tmp_path, seed, method):
    # Fractional and whole-µs timestamps, several ProfilerSteps, NCCL, memcpy/memset, syncs.
    path = tmp_path / (f"generated_{seed}.json" + (".gz" if seed % 2 else ""))
    hta_referee.generate(str(path), seed)
    assert _compare(str(tmp_path), method) > 0


def test_include_last_profiler_step(hta_referee, tmp_path):
    path = tmp_path / "steps.json"
    hta_referee.generate(str(path), 2)
    for include in (False, True):
        theirs = hta_trace_analysis.TraceAnalysis(
            trace_dir=str(tmp_path), include_last_profiler_step=include)
        ours = XpuperfAnalysis(trace_dir=str(tmp_path), include_last_profiler_step=include)
        pd.testing.assert_frame_equal(ours.get_temporal_breakdown(visualize=False),
                                      theirs.get_temporal_breakdown(visualize=False))


def test_trace_files_argument(trace_dir):
    files = {0: "critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz"}
    theirs = hta_trace_analysis.TraceAnalysis(trace_files=files, trace_dir=trace_dir)
    ours = XpuperfAnalysis(trace_files=files, trace_dir=trace_dir)
    pd.testing.assert_frame_equal(ours.get_temporal_breakdown(visualize=False),
                                  theirs.get_temporal_breakdown(visualize=False))


def test_bad_input(tmp_path):
    with pytest.raises(FileNotFoundError):
        XpuperfAnalysis(trace_dir=str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="no trace files"):
        XpuperfAnalysis(trace_dir=str(tmp_path))
    (tmp_path / "bad.json").write_text('{"traceEvents": [{"ph": "X", "ts": ')
    with pytest.raises(ValueError, match="bad.json"):
        XpuperfAnalysis(trace_dir=str(tmp_path))


def test_a_name_hta_lacks_is_an_attribute_error(trace_dir, tmp_path):
    """HTA 0.5.0's TraceAnalysis has no get_trace_diff (trace comparison is TraceDiff): both
    raise AttributeError; xpuperf's says where to look."""
    path = os.path.join(trace_dir, "critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz")
    directory = single(tmp_path, path)
    with pytest.raises(AttributeError):
        hta_trace_analysis.TraceAnalysis(trace_dir=directory).get_trace_diff()
    with pytest.raises(AttributeError, match="TraceDiff.compare_traces"):
        XpuperfAnalysis(trace_dir=directory).get_trace_diff()
    with pytest.raises(AttributeError, match="get_temporal_breakdown"):
        XpuperfAnalysis(trace_dir=directory).get_no_such_table()


def test_every_method_of_htas_is_here_with_its_parameters():
    """xpuperf.hta.TraceAnalysis has every public method of HTA's, with the same parameter
    names and defaults (straggler_identification_impl's default is None: xpuperf's metric)."""
    import inspect

    from xpuperf.hta import IMPLEMENTED

    theirs = {n for n, _ in inspect.getmembers(hta_trace_analysis.TraceAnalysis,
                                               inspect.isfunction) if not n.startswith("_")}
    assert theirs == set(IMPLEMENTED)
    for name in IMPLEMENTED:
        expected = inspect.signature(getattr(hta_trace_analysis.TraceAnalysis, name)).parameters
        actual = inspect.signature(getattr(XpuperfAnalysis, name)).parameters
        assert list(expected) == list(actual), name
        for parameter in expected:
            if parameter == "straggler_identification_impl":
                continue
            assert expected[parameter].default == actual[parameter].default, (name, parameter)
