"""HTA 0.5.0's get_frequent_cuda_kernel_sequences and xpuperf.hta's on the same files: equal
pattern frames (columns, dtypes, index, values) and overlaid traces that mark the same events
with the same patterns, on every shared real trace (one HTA TraceAnalysis per trace)."""

import gzip
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

# (operator_name, min_pattern_len): the calls compared on each trace.
# ("ProfilerStep", 1) is left out: it finds what ("ProfilerStep", 3) finds on these traces and
# costs HTA ~15 s on trace_filter__sampled_rank-0.
CALLS = [("ProfilerStep", 3), ("aten::", 1), ("aten::", 3)]



def _marked(path):
    """{position in traceEvents: args.Patterns} of an overlaid trace."""
    with gzip.open(path, "rt") as handle:
        events = json.load(handle)["traceEvents"]
    return {i: e["args"]["Patterns"] for i, e in enumerate(events)
            if isinstance(e.get("args"), dict) and "Patterns" in e["args"]}


def _call(analysis, out, operator_name, min_pattern_len):
    try:
        return analysis.get_frequent_cuda_kernel_sequences(
            operator_name, str(out), min_pattern_len=min_pattern_len, visualize=False)
    except Exception as error:  # noqa: BLE001 - compared below
        return error


@pytest.mark.parametrize("path", shared_traces() or ["(no shared traces)"],
                         ids=lambda p: os.path.basename(p)[:40])
def test_shared_trace(trace_dir, tmp_path, path):
    directory = tmp_path / "trace"
    directory.mkdir()
    os.symlink(os.path.abspath(path), directory / os.path.basename(path))
    theirs_analysis = hta_trace_analysis.TraceAnalysis(trace_dir=str(directory))
    ours_analysis = XpuperfAnalysis(trace_dir=str(directory))
    failures = []
    for n, (operator_name, min_len) in enumerate(CALLS):
        theirs_out, ours_out = tmp_path / f"hta{n}", tmp_path / f"ours{n}"
        theirs_out.mkdir()
        ours_out.mkdir()
        theirs = _call(theirs_analysis, theirs_out, operator_name, min_len)
        ours = _call(ours_analysis, ours_out, operator_name, min_len)
        label = f"{operator_name!r}, min_pattern_len={min_len}"
        if isinstance(theirs, Exception) or isinstance(ours, Exception):
            if type(theirs) is not type(ours):
                failures.append(f"{label}: HTA {theirs!r:.200}, xpuperf {ours!r:.200}")
            continue
        try:
            pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
        except AssertionError as error:
            failures.append(f"{label}: {error}")
        if sorted(os.listdir(theirs_out)) != sorted(os.listdir(ours_out)):
            failures.append(f"{label}: files {os.listdir(theirs_out)} vs {os.listdir(ours_out)}")
            continue
        for name in os.listdir(theirs_out):
            if _marked(theirs_out / name) != _marked(ours_out / name):
                failures.append(f"{label}: the overlaid trace marks other events")
    assert not failures, "\n".join(failures)


def test_bad_arguments(trace_dir, tmp_path):
    path = os.path.join(trace_dir, "critical_path__cuda_event_sync__event_sync_trace.json.gz")
    analysis = XpuperfAnalysis(trace_files={0: path})
    assert analysis.get_frequent_cuda_kernel_sequences("", str(tmp_path)).empty
    assert analysis.get_frequent_cuda_kernel_sequences("aten::", str(tmp_path / "no")).empty
    with pytest.raises(ValueError, match="No rank was found"):
        analysis.get_frequent_cuda_kernel_sequences("aten::", str(tmp_path), rank=3)
