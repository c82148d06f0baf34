"""xpuperf.bench: result directories as DataFrames, and running the CLI's bench."""

import os

import pytest

import xpuperf
from conftest import SOURCE_DIR

RESULTS = os.path.join(SOURCE_DIR, "roofline", "tests", "data", "results-cpu")


def test_load_flattens_records():
    records = xpuperf.bench.records(RESULTS)
    df = xpuperf.bench.load(RESULTS)
    assert len(df) == len(records) > 0
    first = records[0]
    row = df.iloc[0]
    assert row.benchmark == first["benchmark"] and row.value == first["value"]
    assert row.device_id == first["device"]["id"]
    assert row.stat_median == first["statistics"]["median"]
    for key, value in first["parameters"].items():
        assert row[f"param_{key}"] == value


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        xpuperf.bench.load(tmp_path)
    (tmp_path / "results.jsonl").write_text('{"benchmark": "x", "value": 1}\n{"broken\n')
    with pytest.raises(ValueError, match=r"results.jsonl:2"):
        xpuperf.bench.load(tmp_path)
    (tmp_path / "results.jsonl").write_text('[1, 2]\n')
    with pytest.raises(ValueError, match="not a result record"):
        xpuperf.bench.load(tmp_path)


def test_run_reports_the_cli_error(cli_path, tmp_path, monkeypatch):
    monkeypatch.setenv("XPUPERF_CLI", cli_path)
    with pytest.raises(RuntimeError, match="xpuperf bench failed"):
        xpuperf.bench.run("no-such-suite", out=tmp_path / "out")
    with pytest.raises(ValueError, match="out="):
        xpuperf.bench.run("quick")


def test_run_one_benchmark(cli_path, tmp_path, monkeypatch):
    monkeypatch.setenv("XPUPERF_CLI", cli_path)
    df = xpuperf.bench.run("quick", out=tmp_path / "out", benchmarks=["stream"],
                           extra_args=["--samples", "3"])
    assert len(df) > 0 and set(df.benchmark) == {"stream"}
    assert (df.value > 0).all()
