"""Starts `xpuperf serve` on the CPU backend, the fake NVML (two GPUs) and the fake TPU runtime, on
loopback, for the integration tests. Standard library only."""
import base64
import gzip
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SKIP = 77


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, what):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # the server may not answer yet
            last = e
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what} (last error: {last})")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Http:
    """GET with optional basic auth and TLS context; returns (status, headers, body bytes)."""

    def __init__(self, base, auth=None, context=None):
        self.base, self.auth, self.context = base, auth, context

    def get(self, path, headers=None, method="GET"):
        request = urllib.request.Request(self.base + path, method=method, headers=headers or {})
        if self.auth:
            token = base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
            request.add_header("Authorization", "Basic " + token)
        try:
            with urllib.request.urlopen(request, timeout=10, context=self.context) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()


class Serve:
    """The exporter and its fakes in a temporary directory; stop() ends every child."""

    def __init__(self, args, extra_args=(), interval="0.5", lose_gpu_file=None, env=None):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix="xpuperf-serve-")
        self.children = []
        self.tpu_port = self._start_fake_tpu()
        scenario = os.path.join(self.dir, "two-gpus.conf")
        shutil.copy(args.nvml_scenario, scenario)
        self.lose_gpu_file = os.path.join(self.dir, "lose-nvidia1")
        with open(scenario, "a") as f:
            f.write(f"\ngpu.1.lost_when_file = {self.lose_gpu_file}\n")
        environment = dict(os.environ)
        environment.update({
            "XPUPERF_NVML_LIBRARY": args.fake_nvml,
            "XPUPERF_FAKE_NVML_SCENARIO": scenario,
            "TPU_RUNTIME_METRICS_PORTS": str(self.tpu_port),
            "NODE_NAME": "node-under-test",
        })
        environment.update(env or {})
        self.log_path = os.path.join(self.dir, "serve.log")
        self.log = open(self.log_path, "w+")
        command = [args.xpuperf, "serve", "--listen", "127.0.0.1:0", "--interval", interval,
                   "--backend", "cpu", "--backend", "nvidia", "--backend", "tpu", *extra_args]
        self.process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL,
                                        stderr=self.log)
        self.port = wait_until(self._port_from_log, 30, "xpuperf serve to listen")
        self.scheme = "http"

    def _start_fake_tpu(self):
        p = subprocess.Popen([self.args.fake_tpu, "busy", "0"], stdout=subprocess.PIPE, text=True)
        self.children.append(p)
        line = p.stdout.readline()
        check(line.startswith("port "), f"fake TPU runtime said {line!r}")
        return int(line.split()[1])

    def _port_from_log(self):
        if self.process.poll() is not None:
            raise AssertionError(f"xpuperf serve exited {self.process.returncode}: {self.log_text()}")
        m = re.search(r"listening on https?://[^ ]+:(\d+)", self.log_text())
        return int(m.group(1)) if m else None

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

    def http(self, auth=None, context=None, scheme="http"):
        return Http(f"{scheme}://127.0.0.1:{self.port}", auth, context)

    def signal(self, sig):
        self.process.send_signal(sig)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        for p in self.children:
            p.kill()
            p.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def parse_exposition(text):
    """{(name, frozenset(labels)): value} from text format 0.0.4 / OpenMetrics samples."""
    samples = {}
    pattern = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
    label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = pattern.match(line)
        check(m is not None, f"unparsable sample line {line!r}")
        labels = frozenset(label.findall(m.group(3) or ""))
        samples[(m.group(1), labels)] = float(m.group(4))
    return samples


def scrape(serve):
    """The samples of one /metrics answer of `serve` (which must answer 200)."""
    status, _, body = serve.http().get("/metrics")
    check(status == 200, f"/metrics answered {status}")
    return parse_exposition(body.decode())


def series(samples, name, **want):
    return {labels: v for (n, labels), v in samples.items()
            if n == name and all((k, val) in labels for k, val in want.items())}


def start_kubelet(binary, socket_path, scenario, *flags):
    """The fake kubelet's pod-resources server on `socket_path`, serving the pods of `scenario`."""
    p = subprocess.Popen([binary, socket_path, scenario, *flags], stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "listening", "fake kubelet did not start")
    return p


def common_arguments(parser):
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--fake-nvml", required=True)
    parser.add_argument("--fake-tpu", required=True)
    parser.add_argument("--nvml-scenario", required=True)
    parser.add_argument("--dashboard", required=True)
