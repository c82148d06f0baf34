"""HTA 0.5.0's TraceAnalysis.t (its Trace) and xpuperf.hta's on the same files: the same ranks,
frames (every column, dtype, label and value, input shapes included), iterations, durations,
alignment, symbol table, raw trace and decoded names, on every shared trace and on the two
ranks of trace_filter read as one run."""

import glob
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


def _compare(directory):
    theirs = hta_trace_analysis.TraceAnalysis(trace_dir=str(directory)).t
    ours = XpuperfAnalysis(trace_dir=str(directory)).t
    assert theirs.get_ranks() == ours.get_ranks()
    assert theirs.min_ts == ours.min_ts
    assert theirs.symbol_table.sym_table == ours.symbol_table.sym_table
    assert {r: os.path.basename(f) for r, f in theirs.trace_files.items()} == {
        r: os.path.basename(f) for r, f in ours.trace_files.items()}
    for rank in theirs.get_ranks():
        pd.testing.assert_frame_equal(theirs.get_trace(rank), ours.get_trace(rank))
        assert theirs.get_iterations(rank) == ours.get_iterations(rank)
        assert theirs.get_trace_duration(rank) == ours.get_trace_duration(rank)
        assert theirs.get_raw_trace_for_one_rank(rank) == ours.get_raw_trace_for_one_rank(rank)
    assert theirs.get_iterations() == ours.get_iterations()
    theirs.decode_symbol_ids()
    ours.decode_symbol_ids()
    for rank, frame in theirs.get_all_traces().items():
        pd.testing.assert_frame_equal(frame, ours.get_all_traces()[rank])
    assert theirs.flow_event(3, 1, 2, 10, False, "n", "c", {"a": 1}) == ours.flow_event(
        3, 1, 2, 10, False, "n", "c", {"a": 1})


@pytest.mark.parametrize("path", shared_traces(), ids=os.path.basename)
def test_shared_trace(path, tmp_path):
    _compare(single(tmp_path, path))


def test_two_ranks(trace_dir, tmp_path):
    paths = sorted(glob.glob(os.path.join(trace_dir, "trace_filter__sampled_rank-*.json*")))
    if len(paths) < 2:
        pytest.skip(f"skipped: the two trace_filter ranks are not in {trace_dir}")
    for path in paths:
        os.symlink(os.path.abspath(path), tmp_path / os.path.basename(path))
    _compare(tmp_path)


def test_errors(trace_dir, tmp_path):
    paths = shared_traces()
    if not paths:
        pytest.skip(f"skipped: no traces in {trace_dir}")
    t = XpuperfAnalysis(trace_dir=single(tmp_path, paths[0])).t
    with pytest.raises(ValueError):
        t.get_trace(12345)
    with pytest.raises(ValueError):
        t.get_raw_trace_for_one_rank(12345)
    assert t.get_iterations(12345) == []
