#!/usr/bin/env python3
"""End to end with a real PyTorch process: `xpuperf agent` (dynolog's RPC + Kineto's IPC fabric),
a CPU training loop started with KINETO_USE_DAEMON=1 that registers with it, and `xpuperf capture`
gathering its on-demand trace through the agent, next to a second agent with no process and a
host that is down (so the capture is partial, exit 3), then `xpuperf analyze` on the result.

Standard library only here; PyTorch comes from the Python package's test environment
(requirements/python-tests.txt, shared with python/tests so CI creates one PyTorch, not two) through
scripts/python-env.sh. The IPC sockets live in a private KINETO_IPC_SOCKET_DIR, so a dynolog or
another agent on the machine does not collide with the test. Exit 77 (skip) only when that
environment cannot be created (no package index reachable) or its torch cannot be imported here
(the reason is printed)."""
import argparse
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

SKIP = 77


def rpc(port, request, timeout=5):
    """dynolog's framing: int32 little-endian length, then JSON; one request per connection."""
    body = json.dumps(request).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(struct.pack("<i", len(body)) + body)
        header = s.recv(4, socket.MSG_WAITALL)
        if len(header) < 4:
            return None  # closed without a reply
        (length,) = struct.unpack("<i", header)
        data = b""
        while len(data) < length:
            chunk = s.recv(length - len(data))
            if not chunk:
                break
            data += chunk
        return json.loads(data)


def start_agent(xpuperf, ipc_dir, capture_dir, log_path):
    env = dict(os.environ, KINETO_IPC_SOCKET_DIR=ipc_dir)
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [xpuperf, "agent", "--listen", "127.0.0.1:0", "--capture-dir", capture_dir,
         "--process-timeout", "30"], stderr=log, env=env)
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log_path) as f:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", f.read())
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            raise SystemExit("agent exited: " + open(log_path).read())
        time.sleep(0.1)
    raise SystemExit("agent did not start: " + open(log_path).read())


WORKLOAD = r"""
import time, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 256)
y = torch.randint(0, 10, (64,))
end = time.time() + float(__import__('sys').argv[1])
first = True
while time.time() < end:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    if first:  # training has started: the capture may begin
        open(__import__('sys').argv[2], "w").close()
        first = False
    time.sleep(0.002)
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.source_dir, "scripts"))
    from pytorch_env import torch_python

    python, why_not = torch_python(args.source_dir)
    if python is None:
        print("SKIP:", why_not)
        return SKIP

    work = tempfile.mkdtemp(prefix="xpuperf-pytorch-capture-", dir="/tmp")
    procs = []
    try:
        ipc_a, ipc_b = os.path.join(work, "ipc-a"), os.path.join(work, "ipc-b")
        os.makedirs(ipc_a)
        os.makedirs(ipc_b)
        captures = os.path.join(work, "captures")
        agent_a, port_a = start_agent(args.xpuperf, ipc_a, captures + "-a", os.path.join(work, "a.log"))
        procs.append(agent_a)
        agent_b, port_b = start_agent(args.xpuperf, ipc_b, captures + "-b", os.path.join(work, "b.log"))
        procs.append(agent_b)
        assert rpc(port_a, {"fn": "getStatus"}) == {"status": 1}
        assert rpc(port_a, {"fn": "noSuchCall"}) is None  # dynolog closes without a reply

        # Kineto polls every ON_DEMAND_CONFIG_UPDATE_INTERVAL_SECS (base config, default 5 s).
        base_config = os.path.join(work, "libkineto.conf")
        with open(base_config, "w") as f:
            f.write("ON_DEMAND_CONFIG_UPDATE_INTERVAL_SECS=1\n")
        workload = os.path.join(work, "train.py")
        with open(workload, "w") as f:
            f.write(WORKLOAD)
        train_env = dict(os.environ, KINETO_USE_DAEMON="1", KINETO_IPC_SOCKET_DIR=ipc_a,
                         KINETO_CONFIG=base_config, KINETO_ONDEMAND_TRACE_DIR=captures + "-a",
                         SLURM_JOB_ID="4711")
        ready = os.path.join(work, "training")
        trainer = subprocess.Popen([python, workload, "240", ready], env=train_env,
                                   stdout=subprocess.DEVNULL,
                                   stderr=open(os.path.join(work, "train.log"), "w"))
        procs.append(trainer)

        deadline = time.time() + 180  # importing torch on a busy machine takes a while
        registered = []
        while time.time() < deadline and not (registered and os.path.exists(ready)):
            listing = rpc(port_a, {"fn": "xpuperfListProcesses"})
            registered = [p for p in listing["processes"] if p["pid"] == trainer.pid]
            if trainer.poll() is not None:
                raise SystemExit("training exited: " + open(os.path.join(work, "train.log")).read())
            time.sleep(0.5)
        if not registered or not os.path.exists(ready):
            raise SystemExit("the PyTorch process never registered and trained:\n" +
                             open(os.path.join(work, "train.log")).read()[-3000:])
        print("registered:", registered[0])
        assert registered[0]["job_id"] == 4711, registered[0]

        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]
        dead.close()
        out = os.path.join(work, "out")
        capture = subprocess.run(
            [args.xpuperf, "capture", "--hosts",
             f"127.0.0.1:{port_a},127.0.0.1:{port_b},127.0.0.1:{dead_port}",
             "--job-id", "4711", "--duration-ms", "1000", "--start-in", "8", "--wait", "60",
             "--out", out, "--json"],
            capture_output=True, text=True, timeout=240)
        print(capture.stderr)
        assert capture.returncode == 3, f"expected a partial capture (exit 3), got {capture.returncode}"
        manifest = json.load(open(os.path.join(out, "manifest.json")))
        status = {h["host"]: h for h in manifest["hosts"]}
        a = status[f"127.0.0.1:{port_a}"]
        assert a["status"] == "ok", a
        assert a["processes_triggered"] == [trainer.pid], a
        assert "no registered process" in status[f"127.0.0.1:{port_b}"]["error"]
        assert "cannot connect" in status[f"127.0.0.1:{dead_port}"]["error"]
        names = [f["name"] for f in a["files"]]
        assert names == [f"trace_{trainer.pid}.json"], names
        trace = json.load(open(os.path.join(out, a["folder"], names[0])))
        assert "traceEvents" in trace and "baseTimeNanoseconds" in trace, list(trace)[:10]
        ops = {e.get("name") for e in trace["traceEvents"]}
        assert "aten::addmm" in ops or "aten::linear" in ops, sorted(o for o in ops if o)[:40]

        report = json.loads(capture.stdout)
        text = json.dumps(report)
        assert "aten::" in text, text[:2000]
        again = subprocess.run([args.xpuperf, "analyze", out], capture_output=True, text=True)
        assert again.returncode == 0, again.stderr
        print("analyze", out, "->", again.stdout.splitlines()[:3])
        print("pytorch_capture_test: ok")
        return 0
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
