"""Scopes, traced functions, counters and the recorder: the ranges are in the Chrome trace and
in op_execution_time_seconds; bad calls fail with a clear error."""

import json
import threading

import pytest

import xpuperf
from xpuperf import _xpuperf


def _events(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def _op_counts(device="cpu0"):
    reading = next(r for r in xpuperf.metrics("op_execution_time_seconds", window=0,
                                              devices=device))
    return {s.labels.get("op"): s.count for s in reading.samples}


def test_scope_traced_counter_instant(tmp_path):
    path = tmp_path / "trace.json"

    @xpuperf.traced
    def inner(x):
        return x + 1

    @xpuperf.traced(name="renamed", category="user_annotation")
    def other():
        return 7

    with xpuperf.trace(path, process_name="pytest", record_ops=True):
        assert xpuperf.tracing()
        with xpuperf.scope("outer"):
            with xpuperf.scope("outer"):  # the same name nested: reentrant
                assert inner(1) == 2
            xpuperf.counter("queue", 3)
            xpuperf.counter("nan_is_dropped", float("nan"))
            xpuperf.instant("mark")
        assert other() == 7
        worker = threading.Thread(target=lambda: [inner(i) for i in range(100)])
        worker.start()
        worker.join()
    assert not xpuperf.tracing()
    events = _events(path)
    complete = [e for e in events if e["ph"] == "X"]
    names = [e["name"] for e in complete]
    assert names.count("outer") == 2
    assert names.count("test_scope_traced_counter_instant.<locals>.inner") == 101
    renamed = next(e for e in complete if e["name"] == "renamed")
    assert renamed["cat"] == "user_annotation"
    outer = sorted((e for e in complete if e["name"] == "outer"), key=lambda e: e["dur"])
    assert outer[0]["ts"] >= outer[1]["ts"] and outer[0]["dur"] <= outer[1]["dur"]
    assert [e["args"]["value"] for e in events if e["ph"] == "C"] == [3]
    assert any(e["ph"] == "i" and e["name"] == "mark" for e in events)
    threads = {e["tid"] for e in complete if e["name"].endswith("inner")}
    assert len(threads) == 2
    counts = _op_counts()
    assert counts["outer"] >= 2 and counts["test_scope_traced_counter_instant.<locals>.inner"] >= 101


def test_scope_exception_still_closes_range(tmp_path):
    path = tmp_path / "trace.json"
    with xpuperf.trace(path):
        with pytest.raises(KeyError):
            with xpuperf.scope("raises"):
                raise KeyError("x")
    assert [e["name"] for e in _events(path) if e["ph"] == "X"] == ["raises"]


def test_scope_outside_trace_records_nothing(tmp_path):
    with xpuperf.scope("before"):
        pass
    path = tmp_path / "trace.json"
    with xpuperf.scope("straddles"):
        xpuperf.start_trace(path)
    summary = xpuperf.stop_trace()
    assert summary["events_written"] == 0 and summary["path"] == str(path)


def test_record_op_transfer_queue():
    xpuperf.record_op("py_matmul", 0.002, device="cpu0")
    xpuperf.record_op("py_matmul", 0.004)
    xpuperf.record_transfer(4096, 1e-5)
    xpuperf.set_queue_depth(5)
    with xpuperf.timed_op("py_timed"):
        pass
    reading = next(r for r in xpuperf.metrics("op_execution_time_seconds", window=0))
    sample = next(s for s in reading.samples if s.labels.get("op") == "py_matmul")
    assert sample.count == 2
    assert sample.min == pytest.approx(0.002, rel=0.13) and sample.max == pytest.approx(0.004, rel=0.13)
    assert "py_timed" in _op_counts()
    transfer = next(r for r in xpuperf.metrics("transfer_latency_seconds", window=0))
    assert any(s.labels.get("buffer_size") == "4KiB" and s.count >= 1 for s in transfer.samples)
    queue = next(r for r in xpuperf.metrics("queue_size", window=0))
    # The CPU backend's own run queue is a sample too; the program's has source=sdk.
    assert [s.value for s in queue.samples if s.labels.get("source") == "sdk"] == [5]


def test_errors(tmp_path):
    with pytest.raises(ValueError):
        xpuperf.stop_trace()
    xpuperf.start_trace(tmp_path / "a.json")
    try:
        with pytest.raises(ValueError):
            xpuperf.start_trace(tmp_path / "b.json")
    finally:
        xpuperf.stop_trace()
    with pytest.raises(OSError):
        xpuperf.start_trace(tmp_path / "no" / "such" / "dir" / "t.json")
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="seconds"):
            xpuperf.record_op("x", bad)
    with pytest.raises(ValueError):
        xpuperf.record_transfer(-1, 0.1)
    with pytest.raises(ValueError):
        xpuperf.record_transfer(1 << 64, 0.1)
    with pytest.raises(TypeError):
        xpuperf.scope(3)
    # __exit__ without __enter__ does nothing.
    assert _xpuperf.Range("lonely", "").__exit__(None, None, None) is False


def test_trace_reads_back(tmp_path):
    path = tmp_path / "t.json"
    with xpuperf.trace(path):
        for step in range(3):
            with xpuperf.scope(f"ProfilerStep#{step}", "user_annotation"):
                with xpuperf.scope("work"):
                    pass
    run = _xpuperf.TraceRun(str(path), "xpuperf")
    assert len(run) == 1 and run.info(0)["events"] == 6
