"""The wheel, built once, installs into a fresh virtual environment with no compiler on PATH and
imports: telemetry, a traced range and a trace analysis work from the installed package."""

import os
import subprocess
import sys
import textwrap
import venv

import pytest

from conftest import SOURCE_DIR

CHECK = textwrap.dedent("""
    import json, os, shutil, sys, tempfile
    assert shutil.which("cc") is None and shutil.which("g++") is None, "a compiler is on PATH"
    import xpuperf
    assert xpuperf.__file__.startswith(sys.prefix), xpuperf.__file__
    assert xpuperf.devices()[0].id == "cpu0"
    path = os.path.join(tempfile.mkdtemp(), "t.json")
    with xpuperf.trace(path):
        with xpuperf.scope("from_wheel"):
            pass
    names = [e["name"] for e in json.load(open(path))["traceEvents"] if e["ph"] == "X"]
    assert names == ["from_wheel"], names
    trace = os.environ.get("TRACE")
    if trace:
        run = xpuperf._xpuperf.TraceRun(trace, "hta")
        assert run.temporal_breakdown()[0]["gpu_ops"] > 0
    print("wheel ok", xpuperf.__version__)
""")


def test_wheel_installs_and_imports_without_build_tools(tmp_path):
    build_root = os.environ.get("XPUPERF_BUILD_DIR") or str(tmp_path)
    wheels = tmp_path / "wheels"
    # --no-build-isolation: the build backend and nanobind come from this (pinned) environment.
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
         "-w", str(wheels), "-C", f"build-dir={build_root}/python-wheel",
         # The main build's flags, so that ccache serves what build/ compiled.
         "-C", "cmake.build-type=RelWithDebInfo", SOURCE_DIR],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = list(wheels.glob("xpuperf-*.whl"))

    env_dir = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = str(env_dir / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel)],
                   check=True)
    env = {"PATH": str(env_dir / "bin"), "HOME": str(tmp_path)}
    trace_dir = os.environ.get("XPUPERF_TRACE_DIR", "")
    trace = os.path.join(trace_dir, "critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz")
    if os.path.isfile(trace):
        env["TRACE"] = trace
    done = subprocess.run([python, "-c", CHECK], env=env, cwd=str(tmp_path), capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wheel ok" in done.stdout
