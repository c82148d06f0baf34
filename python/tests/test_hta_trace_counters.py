"""TraceAnalysis.generate_trace_with_counters through HTA 0.5.0 and through xpuperf.hta on the
same files: the written traces (each rank's trace with "Queue Length" and "Memcpy BW" counter
events added) equal as JSON documents, event for event, on every shared real trace, a two-rank
run, synthetic traces (with copy bandwidths) and each choice of series and suffix. HTA runs here,
in the test."""

import glob
import gzip
import json
import logging
import os
import warnings

import pytest
from trace_files import shared_traces

from xpuperf.hta import TimeSeriesTypes
from xpuperf.hta import TraceAnalysis as XpuperfAnalysis

hta_trace_analysis = pytest.importorskip("hta.trace_analysis", reason="skipped: HTA not installed")
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)


def _written(directory):
    """{file name: JSON document} of the traces a call wrote into `directory`."""
    out = {}
    for path in glob.glob(os.path.join(directory, "*")):
        if os.path.islink(path):  # a source trace
            continue
        with gzip.open(path, "rt") as handle:  # HTA writes gzip whatever the name
            out[os.path.basename(path)] = json.load(handle)
    return out


def _compare(tmp_path, sources, **kwargs):
    """Links `sources` into two directories, runs HTA in one and xpuperf in the other, and returns
    how many counter events xpuperf added (asserting the written files are equal)."""
    results = {}
    for side, make in (("hta", hta_trace_analysis.TraceAnalysis), ("xpuperf", XpuperfAnalysis)):
        directory = tmp_path / side
        directory.mkdir()
        for source in sources:
            os.symlink(os.path.abspath(source), directory / os.path.basename(source))
        try:
            make(trace_dir=str(directory)).generate_trace_with_counters(**kwargs)
            results[side] = _written(str(directory))
        except Exception as error:  # noqa: BLE001 - compared below
            results[side] = type(error)
    assert results["xpuperf"] == results["hta"]
    if not isinstance(results["hta"], dict):
        return 0
    return sum(sum(1 for e in doc["traceEvents"] if e.get("ph") == "C")
               for doc in results["xpuperf"].values())



@pytest.mark.parametrize("path", shared_traces() or ["(no shared traces)"],
                         ids=lambda p: os.path.basename(p)[:40])
def test_shared_trace(trace_dir, tmp_path, path):
    if "memory_timeline" in path:
        pytest.skip("a memory-timeline export, not a trace")
    _compare(tmp_path, [path])


def test_counters_are_added(trace_dir, tmp_path):
    path = os.path.join(trace_dir, "trace_filter__sampled_rank-0.json.gz")
    assert _compare(tmp_path, [path]) > 1000


@pytest.mark.parametrize("kwargs", [
    {"time_series": TimeSeriesTypes.QUEUE_LENGTH},
    {"time_series": TimeSeriesTypes.MEMCPY_BANDWIDTH},
    {"output_suffix": "_counters"},
    {"output_suffix": ""},
], ids=["queue", "memcpy", "suffix", "empty_suffix"])
def test_choices(hta_referee, tmp_path, kwargs):
    """The series and suffixes, on a generated trace with copy bandwidths (xpuperf's TimeSeriesTypes
    is HTA's by name and value, so HTA gets its own flag)."""
    path = tmp_path / "generated_2.json"
    hta_referee.generate(str(path), 2)
    if "time_series" in kwargs:
        theirs = getattr(hta_trace_analysis.TimeSeriesTypes, kwargs["time_series"].name)
        results = {}
        for side, make, flag in (("hta", hta_trace_analysis.TraceAnalysis, theirs),
                                 ("xpuperf", XpuperfAnalysis, kwargs["time_series"])):
            directory = tmp_path / side
            directory.mkdir()
            os.symlink(path, directory / path.name)
            make(trace_dir=str(directory)).generate_trace_with_counters(time_series=flag)
            results[side] = _written(str(directory))
        assert results["xpuperf"] == results["hta"]
        assert results["hta"], "nothing written"
    else:
        (tmp_path / "in").mkdir()
        os.rename(path, tmp_path / "in" / path.name)
        assert _compare(tmp_path, [str(tmp_path / "in" / path.name)], **kwargs) > 0


def test_two_ranks(trace_dir, tmp_path):
    sources = [os.path.join(trace_dir, f"trace_filter__sampled_rank-{rank}.json.gz")
               for rank in (0, 1)]
    assert _compare(tmp_path, sources, ranks=[1, 0]) > 0


@pytest.mark.parametrize("seed", range(1, 5))
def test_generated(hta_referee, tmp_path, seed):
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / (f"generated_{seed}.json" + (".gz" if seed % 2 else ""))
    hta_referee.generate(str(path), seed)
    _compare(tmp_path, [str(path)], ranks=[0, 1, 2, 3, 4])
