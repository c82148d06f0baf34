#!/usr/bin/env python3
"""Automatic capture end to end, with real components: Debian's Alertmanager 0.25 on loopback
routes an alert fired by the built-in rule engine (alerts_notify_tool: RuleEngine + Notifier, as
`serve --rules` runs them) to `xpuperf capture --on-alert`, which captures a traced process
(our tracer, registered with a real `xpuperf agent` like a KINETO_USE_DAEMON=1 process), analyses
it and posts the findings alert back to Alertmanager. Then: a repeat of the alert is suppressed by
the cooldown, bad payloads get 400/413/405, the alert's resolution resolves the findings alert,
and SIGTERM stops the receiver cleanly. The receiver serves TLS and takes Alertmanager's basic auth (web config).
The node path too: the engine's own webhook notifier (as `serve --rules --webhook`) posts straight
to a second, loopback receiver, whose findings alert reaches Alertmanager as well.
Standard library only."""
import argparse
import base64
import warnings

warnings.filterwarnings("ignore", category=DeprecationWarning)
import crypt  # noqa: E402  (bcrypt for the web config, as the exporter's tests use it)
import json
import os
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from http.client import HTTPException as http_client_errors

RULES = """groups:
  - name: idle
    rules:
      - alert: XpuperfLowDutyCycle
        expr: xpuperf_duty_cycle_ratio < 0.5
        for: 1s
        labels:
          severity: warning
          xpuperf_capture: "true"
        annotations:
          summary: "{{ $labels.device }} on {{ $labels.hostname }} busy {{ $value }}"
          xpuperf_capture_duration_ms: "800"
"""
SERIES = 'xpuperf_duty_cycle_ratio{device="nvidia0",hostname="127.0.0.1"}'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)
    print("ok:", message)


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    print("FAILED: timed out waiting for", what)
    sys.exit(1)


USER, PASSWORD = "alertmanager", "webhook-pass"


TLS_CONTEXT = None  # set once the receiver's certificate exists


def http(method, url, body=None, content_type="application/json", auth=None):
    request = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", content_type)
    if auth:
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        context = TLS_CONTEXT if url.startswith("https://") else None
        with urllib.request.urlopen(request, timeout=10, context=context) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (OSError, http_client_errors) as e:  # not listening yet, or the connection was reset
        return 0, str(e).encode()


def agent_call(port, request):
    """dynolog's framing: int32 little-endian length + JSON, one request per connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        payload = json.dumps(request).encode()
        s.sendall(struct.pack("<i", len(payload)) + payload)
        header = s.recv(4, socket.MSG_WAITALL)
        (length,) = struct.unpack("<i", header)
        return json.loads(s.recv(length, socket.MSG_WAITALL))


def start_alertmanager(binary, port, receiver_port, work, ca_file):
    config = os.path.join(work, "am.yml")
    with open(config, "w") as f:
        f.write(f"""route:
  receiver: blackhole
  group_by: [alertname, hostname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
  routes:
    - matchers: ['xpuperf_capture="true"']
      receiver: xpuperf-capture
receivers:
  - name: blackhole
  - name: xpuperf-capture
    webhook_configs:
      - url: https://127.0.0.1:{receiver_port}/webhook
        http_config:
          basic_auth: {{username: {USER}, password: {PASSWORD}}}
          tls_config: {{ca_file: {ca_file}}}
""")
    proc = subprocess.Popen(
        [binary, f"--config.file={config}", f"--storage.path={os.path.join(work, 'am-data')}",
         f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address="],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "am.log"), "a"))
    wait_for(lambda: http("GET", f"http://127.0.0.1:{port}/-/ready")[0] == 200, 20,
             "Alertmanager to become ready")
    return proc


def am_alerts(port):
    status, body = http("GET", f"http://127.0.0.1:{port}/api/v2/alerts")
    return json.loads(body) if status == 200 else []


def run_engine(tool, work, value, steps, receiver_args, rules="rules.yml", state="state.json"):
    out = subprocess.run(
        [tool, "--rules", os.path.join(work, rules), "--series", SERIES, "--value", str(value),
         "--steps", str(steps), "--interval-ms", "200", "--resend-ms", "30000",
         "--state", os.path.join(work, state)] + receiver_args,
        capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        print("FAILED: notify tool:", out.stderr)
        sys.exit(1)
    return out.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--notify-tool", required=True)
    parser.add_argument("--traced", required=True)
    parser.add_argument("--no-analysis", action="store_true",
                        help="xpuperf was built without trace analysis (XPUPERF_WITH_TRACES=OFF)")
    args = parser.parse_args()
    binary = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    if not binary:
        print("skipped: prometheus-alertmanager is not installed")
        return 77
    work = tempfile.mkdtemp(prefix="xpuperf-on-alert-")
    procs = []
    try:
        with open(os.path.join(work, "rules.yml"), "w") as f:
            f.write(RULES)
        with open(os.path.join(work, "node-rules.yml"), "w") as f:
            f.write(RULES.replace("XpuperfLowDutyCycle", "XpuperfLowDutyCycleNode"))
        web_config = os.path.join(work, "web-config.yml")
        hashed = crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024))
        cert, key = os.path.join(work, "tls.crt"), os.path.join(work, "tls.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        global TLS_CONTEXT
        TLS_CONTEXT = ssl.create_default_context(cafile=cert)
        with open(web_config, "w") as f:
            f.write(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n"
                    f"basic_auth_users:\n  {USER}: {hashed}\n")
        ipc = os.path.join(work, "ipc")
        os.mkdir(ipc)
        env = dict(os.environ, KINETO_IPC_SOCKET_DIR=ipc)
        am_port, agent_port, receiver_port, node_port = (free_port() for _ in range(4))
        receiver_log = open(os.path.join(work, "receiver.log"), "w+")
        agent = subprocess.Popen(
            [args.xpuperf, "agent", "--listen", f"127.0.0.1:{agent_port}",
             "--capture-dir", os.path.join(work, "agent")],
            env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "agent.log"), "w"))
        procs.append(agent)
        traced = subprocess.Popen(
            [args.traced, "120"], env=dict(env, XPUPERF_TRACER_AGENT="1", XPUPERF_TRACER_POLL_MS="100"))
        procs.append(traced)
        captures = os.path.join(work, "captures")
        receiver = subprocess.Popen(
            [args.xpuperf, "capture", "--on-alert", f"127.0.0.1:{receiver_port}",
             "--alertmanager", f"http://127.0.0.1:{am_port}", "--out", captures,
             "--agent-port", str(agent_port), "--start-in", "0.5", "--wait", "15",
             "--cooldown", "600", "--web-config", web_config],
            stdout=subprocess.DEVNULL, stderr=receiver_log)
        procs.append(receiver)
        node_receiver = subprocess.Popen(
            [args.xpuperf, "capture", "--on-alert", str(node_port),
             "--alertmanager", f"http://127.0.0.1:{am_port}", "--out", os.path.join(work, "node-captures"),
             "--agent-port", str(agent_port), "--start-in", "0.5", "--wait", "15",
             "--hosts", "127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "node-receiver.log"), "w"))
        procs.append(node_receiver)
        am = start_alertmanager(binary, am_port, receiver_port, work, cert)
        procs.append(am)

        def registered():
            try:
                return agent_call(agent_port, {"fn": "xpuperfListProcesses"})["processes"]
            except OSError:
                return None
        processes = wait_for(registered, 20, "the traced process to register with the agent")
        check(processes[0]["pid"] == traced.pid, "the traced process registered with the agent")
        base = f"https://127.0.0.1:{receiver_port}"
        auth = (USER, PASSWORD)
        wait_for(lambda: http("GET", base + "/api/v1/decisions", auth=auth)[0] == 200, 20, "the receiver")
        check(http("POST", base + "/webhook", b"{}")[0] == 401, "a request without credentials gets 401")
        check(http("POST", base + "/webhook", b"{}", auth=(USER, "wrong"))[0] == 401,
              "a wrong password gets 401")

        # Bad input first: refused with a status, the receiver goes on.
        check(http("POST", base + "/webhook", b"{not json", auth=auth)[0] == 400, "malformed JSON gets 400")
        check(http("POST", base + "/webhook", b'{"version":"4","alerts":[{"status":"x"}]}', auth=auth)[0] == 400,
              "a bad alert gets 400")
        check(http("POST", base + "/webhook", b"x" * (2 << 20), auth=auth)[0] == 413, "a 2 MiB body gets 413")
        check(http("GET", base + "/webhook", auth=auth)[0] == 405, "GET on the webhook path gets 405")

        # Detect: the engine fires; Alertmanager routes it to the receiver.
        out = run_engine(args.notify_tool, work, 0.1, 10, ["--alertmanager", f"http://127.0.0.1:{am_port}"])
        check("XpuperfLowDutyCycle=firing" in out, "the built-in engine fires XpuperfLowDutyCycle")

        # Capture + analyse: the findings alert appears in Alertmanager.
        def findings_alert(name="XpuperfLowDutyCycle"):
            for a in am_alerts(am_port):
                if a["labels"].get("xpuperf_capture") == "findings" and a["labels"]["alertname"] == name:
                    return a
            return None
        found = wait_for(findings_alert, 60, "the findings alert in Alertmanager")
        labels = dict(found["labels"])
        check(labels.pop("xpuperf_capture") == "findings" and labels == {
            "alertname": "XpuperfLowDutyCycle", "device": "nvidia0", "hostname": "127.0.0.1",
            "severity": "warning"}, f"the findings alert has the alert's labels ({found['labels']})")
        notes = found["annotations"]
        check(notes.get("summary") == "nvidia0 on 127.0.0.1 busy 0.1", "the alert's own annotations are kept")
        check(notes.get("xpuperf_capture_status") == "ok", f"the capture succeeded ({notes})")
        findings = notes.get("xpuperf_findings", "")
        if args.no_analysis:
            check("unsupported: built without trace analysis" in findings,
                  f"without trace analysis the findings say so: {findings}")
        else:
            check("1 rank" in findings and "train_step" in findings and "forward" in findings,
                  f"the findings name the traced program's own ranges: {findings}")
        capture_dir = notes.get("xpuperf_capture_dir", "")
        manifest = json.load(open(os.path.join(capture_dir, "manifest.json")))
        check(manifest["hosts_ok"] == 1 and manifest["duration_ms"] == 800,
              "the capture's manifest: one host, the alert's 800 ms")
        trace_file = os.path.join(capture_dir, manifest["hosts"][0]["files"][0]["path"])
        check("train_step" in open(trace_file).read(), "the trace file holds the traced ranges")
        original = [a for a in am_alerts(am_port) if a["labels"].get("xpuperf_capture") == "true"]
        check(len(original) == 1, "the original alert is still firing next to its findings")

        # Cooldown: Alertmanager's repeat of the same alert (posted as Alertmanager posts it).
        repeat = {"version": "4", "status": "firing", "receiver": "xpuperf-capture", "groupKey": "x",
                  "alerts": [{"status": "firing", "labels": original[0]["labels"],
                              "annotations": original[0]["annotations"],
                              "startsAt": original[0]["startsAt"], "endsAt": original[0]["endsAt"]}]}
        check(http("POST", base + "/webhook", json.dumps(repeat).encode(), auth=auth)[0] == 200,
              "a repeat of the alert is accepted")
        decisions = json.loads(http("GET", base + "/api/v1/decisions", auth=auth)[1])["decisions"]
        skips = [d for d in decisions if d["action"] == "skip" and "cooldown" in d.get("reason", "")]
        check(len(skips) >= 1, f"the repeat is skipped for the cooldown ({skips[-1]['reason'] if skips else decisions})")
        check(len(os.listdir(captures)) == 1, "only one capture was made")

        # Resolution: the engine resolves the alert, the receiver resolves the findings alert.
        out = run_engine(args.notify_tool, work, 0.9, 6, ["--alertmanager", f"http://127.0.0.1:{am_port}"])
        check("XpuperfLowDutyCycle=inactive" in out, "the built-in engine resolves the alert")
        wait_for(lambda: findings_alert() is None, 60, "the findings alert to resolve")
        print("ok: the findings alert resolved with the alert")

        # The node path: the engine's webhook notifier posts to the loopback receiver directly.
        out = run_engine(args.notify_tool, work, 0.1, 10,
                         ["--webhook", f"http://127.0.0.1:{node_port}/webhook"],
                         rules="node-rules.yml", state="node-state.json")
        check("XpuperfLowDutyCycleNode=firing" in out, "the engine fires XpuperfLowDutyCycleNode")
        node_found = wait_for(lambda: findings_alert("XpuperfLowDutyCycleNode"), 60,
                              "the node path's findings alert in Alertmanager")
        check(node_found["annotations"]["xpuperf_capture_status"] == "ok"
              and (args.no_analysis or "train_step" in node_found["annotations"]["xpuperf_findings"]),
              "the engine's own webhook triggers a capture whose findings reach Alertmanager")

        receiver.send_signal(signal.SIGTERM)
        status = receiver.wait(timeout=20)
        receiver_log.seek(0)
        text = receiver_log.read()
        check(status == 0, f"SIGTERM stops the receiver with exit 0 (exit {status}; log ends: "
              f"{text[-600:]!r})")
        check("skipped: cooldown" in text and "findings posted to" in text
              and "refused a webhook message" in text, "every decision is logged")
        return 0
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        if os.environ.get("KEEP_WORK"):
            print("work dir:", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
