"""xpuperf.devices/metrics/watch report what the CLI reports: the same devices, the same states
and reasons for metrics this machine cannot provide."""

import json
import math
import os
import subprocess

import pytest

import xpuperf


def test_devices_match_cli(cli_path):
    ours = xpuperf.devices()
    cli = json.loads(subprocess.run([cli_path, "devices", "--json", "--no-pjrt"], check=True,
                                    capture_output=True, text=True).stdout)
    cli_devices = cli["devices"] if isinstance(cli, dict) else cli
    assert [d.id for d in ours] == [d["id"] for d in cli_devices]
    assert [d.model for d in ours] == [d["model"] for d in cli_devices]
    assert ours[0].backend == "cpu" and ours[0].threads > 0


def test_states_and_reasons_match_cli(cli_path):
    names = ["memory_used_bytes", "power_watts", "duty_cycle_percent", "temperature_celsius"]
    ours = {(r.metric, r.device): r for r in xpuperf.metrics(names, window=0.1)}
    args = [cli_path, "metrics", "--json", "--window", "0.1"]
    for n in names:
        args += ["-m", n]
    cli = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert cli["readings"], cli
    for reading in cli["readings"]:
        mine = ours[(reading["metric"], reading["device"])]
        assert mine.state == reading["state"], (mine, reading)
        if mine.state != "ok":
            assert mine.reason == reading["reason"]


def test_reading_values_and_frame():
    readings = xpuperf.metrics(["memory_used_bytes", "memory_total_bytes", "power_watts"],
                               window=0.05)
    used = next(r for r in readings if r.metric == "memory_used_bytes")
    assert used.ok and used.samples[0].value > 0
    power = next(r for r in readings if r.metric == "power_watts")
    if not power.ok:
        assert power.reason and not power.samples  # never a silent 0
    frame = readings.to_dataframe()
    assert list(frame.columns[:7]) == ["metric", "device", "state", "reason", "labels",
                                       "timestamp_ns", "value"]
    assert len(frame) >= len(readings)
    row = frame[frame.metric == "power_watts"].iloc[0]
    assert row.state == power.state and (power.ok or math.isnan(row.value))


def test_watch_yields_count_snapshots():
    snaps = list(xpuperf.watch(rate=0.05, names="memory_used_bytes", count=3))
    assert len(snaps) == 3
    assert all(s[0].metric == "memory_used_bytes" for s in snaps)
    assert all(s.window_seconds > 0.02 for s in snaps)


def test_errors():
    with pytest.raises(LookupError, match="no_such_metric"):
        xpuperf.metrics("no_such_metric", window=0)
    with pytest.raises(LookupError):
        xpuperf.metrics("memory_used_bytes", devices="nosuch0", window=0)
    with pytest.raises(ValueError, match="window"):
        xpuperf.metrics(window=61)
    with pytest.raises(ValueError, match="window"):
        xpuperf.metrics(window=float("nan"))
    with pytest.raises(ValueError, match="rate"):
        next(xpuperf.watch(rate=0))
    with pytest.raises(ValueError, match="pids"):
        xpuperf.Session(pids=[-1])
    with pytest.raises(LookupError):
        xpuperf.Session(backends=["nosuchbackend"])


def test_catalog_and_backends():
    names = [m["name"] for m in xpuperf.catalog()]
    assert "op_execution_time_seconds" in names and "power_watts" in names
    backends = {b["name"]: b for b in xpuperf.backends()}
    assert backends["cpu"]["available"]
    for b in backends.values():
        assert b["available"] or b["reason"]


def test_python_m_runs_the_cli(cli_path):
    import os
    import sys

    env = dict(os.environ, XPUPERF_CLI=cli_path)
    done = subprocess.run([sys.executable, "-m", "xpuperf", "--version"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert xpuperf.__version__ in done.stdout
    env["XPUPERF_CLI"] = "/nonexistent/xpuperf"
    done = subprocess.run([sys.executable, "-m", "xpuperf", "devices"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 127 and "XPUPERF_CLI" in done.stderr


def test_tpu_sdk_metrics_say_their_source(tmp_path, monkeypatch):
    """A TPU host: libtpu's runtime service (the fake server) and its SDK (the fake libtpu
    package) side by side; each reading says which one gave it, as `metrics --json` does."""
    build = os.environ.get("XPUPERF_BUILD_DIR", "")
    server_path = os.path.join(build, "backends", "tpu", "tpu_fake_runtime_server")
    if not os.access(server_path, os.X_OK):
        pytest.skip(f"skipped: no fake TPU runtime server in the build ({server_path})")
    fake = os.path.join(os.environ["XPUPERF_SOURCE_DIR"], "backends", "tpu", "tests",
                        "fake_libtpu")
    server = subprocess.Popen([server_path, "busy", "0"], stdout=subprocess.PIPE, text=True)
    try:
        port = server.stdout.readline().split()[1]
        monkeypatch.setenv("TPU_RUNTIME_METRICS_PORTS", port)
        monkeypatch.setenv("PYTHONPATH", fake)
        monkeypatch.setenv("XPUPERF_FAKE_LIBTPU", os.path.join(fake, "busy.json"))
        monkeypatch.setenv("XPUPERF_TPU_SDK_DEADLINE", "60")
        session = xpuperf.Session(backends=["tpu"])
        readings = xpuperf.metrics(["tensorcore_utilization_percent", "duty_cycle_percent",
                                    "ici_link_health_score"], window=0, session=session)
        by = {(r.metric, r.device): r for r in readings}
        tensor = by[("tensorcore_utilization_percent", "tpu1")]
        assert tensor.ok and tensor.source == "sdk" and tensor.samples[0].value == 100.0
        assert by[("duty_cycle_percent", "tpu0")].source == "runtime"
        links = by[("ici_link_health_score", "tpu0")]
        assert {s.labels["link"]: s.value for s in links.samples} == {
            "tray1.chip0.ici0.int": 0.0, "tray1.chip1.ici1.int": 10.0}
    finally:
        server.kill()
        server.wait()


def test_tpu_sdk_listing_as_the_cli_gives_it(cli_path, monkeypatch):
    """xpuperf.tpu_sdk() is `xpuperf metrics --tpu-sdk --json`: on the fake libtpu package the
    same metrics, states and values; without libtpu, RuntimeError with the CLI's reason."""
    fake = os.path.join(os.environ["XPUPERF_SOURCE_DIR"], "backends", "tpu", "tests",
                        "fake_libtpu")
    monkeypatch.setenv("PYTHONPATH", fake)
    monkeypatch.setenv("XPUPERF_FAKE_LIBTPU", os.path.join(fake, "busy.json"))
    monkeypatch.setenv("XPUPERF_TPU_SDK_DEADLINE", "60")
    ours = xpuperf.tpu_sdk()
    cli = json.loads(subprocess.run([cli_path, "metrics", "--tpu-sdk", "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    assert ours["libtpu_version"] == cli["libtpu_version"] == "0.0.0+xpuperf.fake"
    assert [(m["name"], m["state"], m["data"]) for m in ours["metrics"]] == \
        [(m["name"], m["state"], m["data"]) for m in cli["metrics"]]
    tensor = next(m for m in ours["metrics"] if m["name"] == "tensorcore_util")
    assert tensor["catalog"] == "tensorcore_utilization_percent"
    assert tensor["data"] == ["0.00", "100.00"]
    monkeypatch.setenv("XPUPERF_TPU_SDK_PYTHON", "/nonexistent/python3")
    with pytest.raises(RuntimeError, match="cannot start /nonexistent/python3"):
        xpuperf.tpu_sdk()
