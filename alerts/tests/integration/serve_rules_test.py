#!/usr/bin/env python3
"""`xpuperf serve --rules` end to end: the fake NVML's GPU 0 runs at 95 C; the built-in engine
fires GpuHot from the exporter's own history, Debian's Alertmanager 0.25 (loopback) and a local
webhook receive it with its labels and annotations, /metrics exports xpuperf_alerts, and
`xpuperf alert list` reads the state file. Then the GPU is lost (the fake NVML's lost_when_file):
its series go stale and the alert resolves in Alertmanager and at the webhook. Standard library
only; shares its Alertmanager and webhook helpers with alertmanager_test.py.

Then a silent Alertmanager (accepts, never answers) beside the webhook: evaluation goes on
(xpuperf_alerts on /metrics), the webhook still gets its message, and SIGTERM ends serve."""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import HTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alertmanager_test import Webhook, am_alerts, check, free_port, start_alertmanager  # noqa: E402

RULES = """groups:
  - name: gpu
    rules:
      - alert: GpuHot
        expr: xpuperf_temperature_celsius{sensor="gpu"} >= 85
        for: 1s
        labels:
          severity: warning
        annotations:
          summary: "{{ $labels.device }} on {{ $labels.hostname }} at {{ $value }} C"
"""


def wait_until(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise SystemExit(f"FAILED: timed out waiting for {what}")


def silent_alertmanager(args, work, scenario, env):
    """A receiver that hangs must hold neither evaluation, another receiver, nor the stop."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # accepted by the kernel, never read, never answered
    Webhook.messages.clear()
    hook_port = free_port()
    hook = HTTPServer(("127.0.0.1", hook_port), Webhook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    rules = os.path.join(work, "rules.yml")
    log = open(os.path.join(work, "serve-silent.log"), "w+")
    serve = subprocess.Popen(
        [args.xpuperf, "serve", "--listen", "127.0.0.1:0", "--interval", "0.5", "--backend",
         "nvidia", "--rules", rules, "--alertmanager",
         f"http://127.0.0.1:{silent.getsockname()[1]}", "--webhook",
         f"http://127.0.0.1:{hook_port}/hook", "--alert-resend", "1"],
        env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        def log_text():
            log.seek(0)
            return log.read()
        port = int(wait_until(lambda: (re.search(r"listening on http://[^ ]+:(\d+)", log_text())
                                       or [None, None])[1], 30, "serve to listen"))
        wait_until(lambda: [m for m in Webhook.messages if m["status"] == "firing"], 30,
                   "the webhook beside a silent Alertmanager")
        check(True, "a silent Alertmanager delays no other receiver")

        def exported():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                return 'alertstate="firing"' in r.read().decode()
        wait_until(exported, 30, "xpuperf_alerts while the Alertmanager hangs")
        check(True, "evaluation goes on while a post hangs")
        serve.send_signal(signal.SIGTERM)
        check(serve.wait(30) == 0, "serve stops while a post hangs")
    finally:
        if serve.poll() is None:
            serve.kill()
        hook.shutdown()
        silent.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--fake-nvml", required=True)
    parser.add_argument("--nvml-scenario", required=True)
    args = parser.parse_args()
    binary = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    if not binary:
        print("skipped: prometheus-alertmanager is not installed")
        return 77
    help_text = subprocess.run([args.xpuperf, "serve", "--help"], capture_output=True, text=True)
    if "--rules" not in help_text.stdout:
        print("skipped: this xpuperf was built without the exporter (serve --rules)")
        return 77
    work = tempfile.mkdtemp(prefix="xpuperf-serve-rules-")
    rules = os.path.join(work, "rules.yml")
    with open(rules, "w") as f:
        f.write(RULES)
    scenario = os.path.join(work, "gpus.conf")
    lose = os.path.join(work, "lose-gpu0")
    with open(args.nvml_scenario) as src, open(scenario, "w") as dst:
        dst.write(re.sub(r"gpu\.0\.temperature_gpu = \d+", "gpu.0.temperature_gpu = 95", src.read()))
        dst.write(f"\ngpu.0.lost_when_file = {lose}\n")
    state = os.path.join(work, "alerts.json")
    am_port, hook_port = free_port(), free_port()
    hook = HTTPServer(("127.0.0.1", hook_port), Webhook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    am = start_alertmanager(binary, am_port, work)
    env = dict(os.environ, XPUPERF_NVML_LIBRARY=args.fake_nvml,
               XPUPERF_FAKE_NVML_SCENARIO=scenario, NODE_NAME="node-under-test")
    log = open(os.path.join(work, "serve.log"), "w+")
    serve = subprocess.Popen(
        [args.xpuperf, "serve", "--listen", "127.0.0.1:0", "--interval", "0.5", "--backend",
         "nvidia", "--rules", rules, "--alertmanager", f"http://127.0.0.1:{am_port}",
         "--webhook", f"http://127.0.0.1:{hook_port}/hook", "--alert-state", state,
         "--alert-resend", "1"], env=env, stdout=subprocess.DEVNULL, stderr=log)

    def log_text():
        log.seek(0)
        return log.read()

    try:
        port = int(wait_until(lambda: (re.search(r"listening on http://[^ ]+:(\d+)", log_text())
                                       or [None, None])[1], 30, "serve to listen"))
        check("evaluating 1 rules" in log_text(), "serve loaded the rule file")
        alerts = wait_until(lambda: am_alerts(am_port), 30, "Alertmanager to get the alert")
        check(len(alerts) == 1, "Alertmanager holds one alert")
        a = alerts[0]
        check(a["labels"]["alertname"] == "GpuHot" and a["labels"]["device"] == "nvidia0" and
              a["labels"]["hostname"] == "node-under-test" and a["labels"]["severity"] == "warning",
              f"for the hot GPU, with the exporter's labels ({a['labels']})")
        check(a["annotations"]["summary"] == "nvidia0 on node-under-test at 95 C",
              "and the expanded annotation")
        firing = wait_until(lambda: [m for m in Webhook.messages if m["status"] == "firing"], 10,
                            "the webhook")
        check(firing[0]["version"] == "4" and
              firing[0]["alerts"][0]["labels"]["device"] == "nvidia0",
              "the webhook got the version-4 payload")
        def exported():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                metrics = r.read().decode()
            return re.search(r'xpuperf_alerts\{[^}]*alertname="GpuHot"[^}]*alertstate="firing"',
                             metrics)
        wait_until(exported, 10, "xpuperf_alerts on /metrics")
        check(True, "/metrics exports xpuperf_alerts{alertname, alertstate}")
        listed = subprocess.run([args.xpuperf, "alert", "list", "--state", state],
                                capture_output=True, text=True)
        check(listed.returncode == 0 and re.search(r"GpuHot\s+firing", listed.stdout) is not None,
              "`xpuperf alert list` shows it firing")

        open(lose, "w").close()  # GPU 0 falls off the bus: its temperature series ends
        wait_until(lambda: am_alerts(am_port) == [], 30, "the resolution in Alertmanager")
        check(True, "Alertmanager got the resolution")
        resolved = wait_until(lambda: [m for m in Webhook.messages if m["status"] == "resolved"],
                              10, "the resolved webhook message")
        check(len(resolved) == 1, "the webhook got one resolved message")
        firing = [m for m in Webhook.messages if m["status"] == "firing"]
        check(len(firing) == 1, "and exactly one firing message")
        serve.send_signal(signal.SIGTERM)
        check(serve.wait(15) == 0, "serve exits cleanly on SIGTERM")
        os.unlink(lose)  # GPU 0 is back, hot again
        silent_alertmanager(args, work, scenario, env)
    finally:
        if serve.poll() is None:
            serve.kill()
        am.terminate()
        am.wait(timeout=10)
        hook.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
