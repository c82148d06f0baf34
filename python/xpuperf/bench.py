"""Benchmark results as DataFrames, and running a suite.

    df = xpuperf.bench.load("results/20261130T120000Z-host")
    df = xpuperf.bench.run("quick", out="results/mine")
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, List, Optional, Sequence

from xpuperf import cli

__all__ = ["load", "run", "records"]

_STATISTICS = ("count", "min", "median", "mean", "p90", "p99", "max", "stddev", "cv")


def records(directory: str | os.PathLike) -> List[Dict[str, Any]]:
    """The records of a result directory's results.jsonl (or of that file), as dicts. ValueError
    names the line of a malformed record."""
    path = os.fspath(directory)
    if os.path.isdir(path):
        path = os.path.join(path, "results.jsonl")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no benchmark results: {path} not found")
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not a JSON record ({error.msg})") from None
            if not isinstance(record, dict) or "benchmark" not in record or "value" not in record:
                raise ValueError(f"{path}:{number}: not a result record (no benchmark/value)")
            out.append(record)
    return out


def load(directory: str | os.PathLike):
    """One row per result record: benchmark, metric, value, unit, the device (device_backend,
    device_id, device_model), every parameter as param_<name>, the statistics as stat_<name>
    (of the per-repetition times; stat_unit says their unit), formula, run_id, host, timestamp,
    xpuperf_version. Needs pandas."""
    import pandas as pd

    rows = []
    for r in records(directory):
        row: Dict[str, Any] = {k: r.get(k) for k in ("benchmark", "metric", "value", "unit")}
        device = r.get("device") or {}
        for key in ("backend", "id", "model"):
            row[f"device_{key}"] = device.get(key)
        for key, value in (r.get("parameters") or {}).items():
            row[f"param_{key}"] = value
        stats = r.get("statistics") or {}
        for key in _STATISTICS:
            row[f"stat_{key}"] = stats.get(key)
        row["stat_unit"] = stats.get("unit")
        for key in ("nominal_peak", "formula", "run_id", "host", "timestamp", "suite",
                    "xpuperf_version"):
            row[key] = r.get(key)
        rows.append(row)
    return pd.DataFrame(rows)


def run(suite: str = "quick", out: Optional[str | os.PathLike] = None,
        benchmarks: Sequence[str] = (), extra_args: Sequence[str] = (), check: bool = True):
    """Runs `xpuperf bench run --suite SUITE --out OUT` (the installed or bundled CLI, see
    xpuperf.cli) and returns load(OUT). `benchmarks` limits the run (--benchmark, repeatable).
    Raises RuntimeError with the CLI's error when it fails; Ctrl-C stops the run."""
    if out is None:
        raise ValueError("bench.run needs out=DIRECTORY for the results")
    args = ["bench", "run", "--suite", suite, "--out", os.fspath(out)]
    for b in benchmarks:
        args += ["--benchmark", b]
    args += list(extra_args)
    done = subprocess.run([cli.executable()] + args, capture_output=True, text=True)
    if done.returncode != 0 and check:
        message = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeError(f"xpuperf bench failed (exit {done.returncode}): {message}")
    return load(out)
