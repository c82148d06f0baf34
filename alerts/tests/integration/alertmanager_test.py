#!/usr/bin/env python3
"""Debian's Alertmanager 0.25 on loopback and a local webhook receiver get what the built-in engine
fires: a hot GPU alert with its labels and annotations, then its resolution. Alertmanager is
stopped while the alert fires and started again (empty, as after a crash): the engine's resends
restore it with the same startsAt, and the engine itself is restarted from its state file in
between. Nothing is lost and the webhook gets each transition exactly once.
Standard library only."""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

RULES = """groups:
  - name: gpu
    rules:
      - alert: GpuHot
        expr: xpuperf_temperature_celsius{sensor="gpu"} >= 85
        for: 1s
        labels:
          severity: warning
        annotations:
          summary: "{{ $labels.device }} at {{ $value }} C"
"""
SERIES = 'xpuperf_temperature_celsius{device="nvidia0",hostname="node1",sensor="gpu"}'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Webhook(BaseHTTPRequestHandler):
    messages = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Webhook.messages.append(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def start_alertmanager(binary, port, work):
    config = os.path.join(work, "am.yml")
    with open(config, "w") as f:
        f.write("route:\n  receiver: blackhole\nreceivers:\n  - name: blackhole\n")
    storage = os.path.join(work, "am-data")
    shutil.rmtree(storage, ignore_errors=True)
    proc = subprocess.Popen(
        [binary, f"--config.file={config}", f"--storage.path={storage}",
         f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address="],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "am.log"), "a"))
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=1)
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("alertmanager did not become ready")


def am_alerts(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/alerts", timeout=5) as r:
        return json.load(r)


def run_tool(tool, work, value, steps, port, hook_port):
    out = subprocess.run(
        [tool, "--rules", os.path.join(work, "rules.yml"), "--series", SERIES, "--value", str(value),
         "--steps", str(steps), "--interval-ms", "200", "--resend-ms", "1000",
         "--state", os.path.join(work, "state.json"),
         "--alertmanager", f"http://127.0.0.1:{port}",
         "--webhook", f"http://127.0.0.1:{hook_port}/hook"],
        capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SystemExit(f"notify tool failed: {out.stderr}")
    return out.stdout


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)
    print("ok:", message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--notify-tool", required=True)
    args = parser.parse_args()
    binary = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    if not binary:
        print("skipped: prometheus-alertmanager is not installed")
        return 77
    work = tempfile.mkdtemp(prefix="xpuperf-am-")
    with open(os.path.join(work, "rules.yml"), "w") as f:
        f.write(RULES)
    port, hook_port = free_port(), free_port()
    hook = HTTPServer(("127.0.0.1", hook_port), Webhook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    am = start_alertmanager(binary, port, work)
    try:
        out = run_tool(args.notify_tool, work, 95, 12, port, hook_port)
        check("GpuHot=firing" in out, "the engine fires GpuHot for a 95 C GPU")
        alerts = am_alerts(port)
        check(len(alerts) == 1, f"Alertmanager holds one alert ({len(alerts)})")
        a = alerts[0]
        check(a["labels"] == {"alertname": "GpuHot", "device": "nvidia0", "hostname": "node1",
                              "sensor": "gpu", "severity": "warning"},
              f"with its labels {a['labels']}")
        check(a["annotations"] == {"summary": "nvidia0 at 95 C"}, "and its annotations")
        check(a["status"]["state"] == "active", "active in Alertmanager")
        starts_at = a["startsAt"]
        firing = [m for m in Webhook.messages if m["status"] == "firing"]
        check(len(firing) == 1, "the webhook got one firing message")
        m = firing[0]
        check(m["version"] == "4" and m["groupLabels"] == {"alertname": "GpuHot"} and
              m["alerts"][0]["labels"]["device"] == "nvidia0" and
              m["alerts"][0]["annotations"]["summary"] == "nvidia0 at 95 C" and
              len(m["alerts"][0]["fingerprint"]) == 16,
              "in the version-4 payload with labels, annotations and fingerprint")

        # Alertmanager goes away while the alert keeps firing; the engine restarts too.
        am.terminate()
        am.wait(timeout=10)
        out = run_tool(args.notify_tool, work, 95, 8, port, hook_port)
        state = json.load(open(os.path.join(work, "state.json")))
        am_state = [r for r in state["receivers"] if r["name"] == "alertmanager"][0]
        check(am_state["stats"]["retried"] > 0 and len(am_state["queue"]) > 0,
              f"and are retried ({am_state['stats']['retried']} retries, "
              f"{len(am_state['queue'])} queued)")
        am = start_alertmanager(binary, port, work)  # empty: it kept no alerts
        out = run_tool(args.notify_tool, work, 95, 8, port, hook_port)
        alerts = am_alerts(port)
        check(len(alerts) == 1 and alerts[0]["startsAt"] == starts_at,
              "after both restarts Alertmanager holds the same alert with the same startsAt")
        firing = [m for m in Webhook.messages if m["status"] == "firing"]
        check(len(firing) == 1, "and the webhook still got exactly one firing message")

        out = run_tool(args.notify_tool, work, 50, 6, port, hook_port)
        check("GpuHot=inactive" in out, "the alert resolves at 50 C")
        check(am_alerts(port) == [], "Alertmanager no longer lists it (endsAt passed)")
        resolved = [m for m in Webhook.messages if m["status"] == "resolved"]
        check(len(resolved) == 1 and resolved[0]["alerts"][0]["status"] == "resolved" and
              resolved[0]["alerts"][0]["endsAt"] != "0001-01-01T00:00:00Z",
              "the webhook got exactly one resolved message with endsAt")
    finally:
        am.terminate()
        am.wait(timeout=10)
        hook.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
