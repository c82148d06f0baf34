"""xpuperf.hta under pandas 3 gives the tables it gives under pandas 2.2.3 (which
test_hta_parity.py and the other test_hta_* files check against HTA itself; HTA 0.5.0 does not
run on pandas 3): every table-returning method on every shared trace, with the same hash seed,
compared value by value, string columns aside being pandas 3's `str` dtype."""

import json
import os
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR


def _tables(python, trace_dir, out):
    env = dict(os.environ, PYTHONHASHSEED="0")
    subprocess.run([python, os.path.join(os.path.dirname(__file__), "hta_tables.py"), trace_dir,
                    str(out)], check=True, env=env, timeout=900)
    with open(out) as handle:
        return json.load(handle)


def test_pandas3_tables_equal_pandas2_tables(trace_dir, tmp_path):
    try:
        venv = subprocess.run(["bash", os.path.join(SOURCE_DIR, "scripts", "python-env.sh"),
                               "pandas3"], check=True, capture_output=True, text=True,
                              timeout=900).stdout.strip()
    except subprocess.CalledProcessError as error:
        pytest.skip(f"skipped: the pandas 3 environment could not be made: {error.stderr[-300:]}")
    ours = _tables(sys.executable, trace_dir, tmp_path / "pandas2.json")
    theirs = _tables(os.path.join(venv, "bin", "python"), trace_dir, tmp_path / "pandas3.json")
    assert ours["pandas"].startswith("2.") and theirs["pandas"].startswith("3."), (
        ours["pandas"], theirs["pandas"])
    assert sorted(ours["tables"]) == sorted(theirs["tables"])
    computed = [k for k, v in ours["tables"].items() if not isinstance(v, str)]
    assert len(computed) > 100  # most calls give tables (some traces lack what a method needs)
    different = [k for k in ours["tables"] if ours["tables"][k] != theirs["tables"][k]]
    assert different == []
