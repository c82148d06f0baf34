"""xpuperf.serve(): the exporter of `xpuperf serve` in the Python process. What the program
records (xpuperf.record_op, record_transfer, set_queue_depth, and a real PyTorch loop instrumented
with scopes) appears on its /metrics as histograms, read back with prometheus_client's own parser
(a real client); the listening address, bad arguments and stopping behave as the CLI's."""

import base64
import socket
import time
import urllib.error
import urllib.request

import pytest

import xpuperf

parser = pytest.importorskip("prometheus_client.parser",
                             reason="skipped: prometheus_client not installed")


def _scrape(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        return response.read().decode()


def _families(text):
    return {f.name: f for f in parser.text_string_to_metric_families(text)}


def _wait_for(url, predicate, seconds=60.0):
    """Scrapes until predicate(families) holds (the exporter collects once per interval; on a
    loaded machine a collection can trail the recorded ops by seconds, so the deadline is
    generous and the predicate is the whole condition, never a partial one)."""
    deadline = time.monotonic() + seconds
    while True:
        families = _families(_scrape(url))
        if predicate(families) or time.monotonic() > deadline:
            return families
        time.sleep(0.1)


def _op_samples(families, op):
    family = families.get("xpuperf_op_execution_time_seconds")
    if family is None:
        return {}
    return {s.name: s for s in family.samples if s.labels.get("op") == op}


def _op_count(families, op):
    """The op's histogram count (0 until it is served)."""
    return next((s.value for n, s in _op_samples(families, op).items() if n.endswith("_count")), 0)


def test_recorded_ops_are_served():
    with xpuperf.serve(interval=0.2, backends=["cpu"]) as server:
        assert server.url.startswith("http://127.0.0.1:")
        for _ in range(5):
            xpuperf.record_op("serve_test_matmul", 0.0012)
        xpuperf.record_op("serve_test_matmul", 0.5)
        xpuperf.record_transfer(3000, 0.0001)
        families = _wait_for(
            server.url, lambda f: _op_count(f, "serve_test_matmul") >= 6 and
            "xpuperf_transfer_latency_seconds" in f)
        samples = _op_samples(families, "serve_test_matmul")
        assert samples, sorted(families)
        count = next(s.value for n, s in samples.items() if n.endswith("_count"))
        total = next(s.value for n, s in samples.items() if n.endswith("_sum"))
        assert count >= 6
        assert total == pytest.approx(5 * 0.0012 + 0.5, rel=1e-6)
        assert "xpuperf_transfer_latency_seconds" in families
        transfer = families["xpuperf_transfer_latency_seconds"]
        assert any(s.labels.get("buffer_size") == "4KiB" for s in transfer.samples)
    with pytest.raises(urllib.error.URLError):
        _scrape(server.url)  # stopped: nothing listens any more
    assert not server.running


def test_pytorch_loop_feeds_the_exporter():
    torch = pytest.importorskip("torch", reason="skipped: PyTorch not installed")
    model = torch.nn.Linear(16, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with xpuperf.serve(interval=0.2, backends=["cpu"]) as server:
        for _ in range(4):
            start = time.perf_counter()
            loss = model(torch.randn(8, 16)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            xpuperf.record_op("serve_test_train_step", time.perf_counter() - start)
        families = _wait_for(server.url, lambda f: _op_count(f, "serve_test_train_step") >= 4)
        assert _op_count(families, "serve_test_train_step") >= 4


def test_bad_arguments_and_a_taken_port():
    with pytest.raises(ValueError):
        xpuperf.serve(listen="not an address")
    with pytest.raises(ValueError):
        xpuperf.serve(interval=0)
    with pytest.raises(LookupError):
        xpuperf.serve(backends=["no_such_backend"])
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with pytest.raises((OSError, RuntimeError)) as error:
            xpuperf.serve(listen=f"127.0.0.1:{taken.getsockname()[1]}", backends=["cpu"])
        assert str(taken.getsockname()[1]) in str(error.value)
    finally:
        taken.close()


def test_basic_authentication_from_a_web_config(tmp_path):
    crypt = pytest.importorskip("crypt", reason="skipped: Python's crypt module is not available")
    config = tmp_path / "web.yml"
    hashed = crypt.crypt("s3cret-pass", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024))
    config.write_text(f"basic_auth_users:\n  prometheus: {hashed}\n")
    with xpuperf.serve(backends=["cpu"], web_config=str(config)) as server:
        with pytest.raises(urllib.error.HTTPError) as refused:
            _scrape(server.url)
        assert refused.value.code == 401
        token = base64.b64encode(b"prometheus:s3cret-pass").decode()
        request = urllib.request.Request(server.url, headers={"Authorization": f"Basic {token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
            assert "xpuperf_" in response.read().decode()
    bad = tmp_path / "bad.yml"
    bad.write_text("basic_auth_users: 3\n")
    with pytest.raises((ValueError, RuntimeError, OSError)):
        xpuperf.serve(backends=["cpu"], web_config=str(bad))
