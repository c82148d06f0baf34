#!/usr/bin/env python3
"""`xpuperf capture --jax` against a real JAX program serving jax.profiler.start_server, next to an
agent host that is down: the JAX rank is profiled over XLA's ProfilerService from the common start
time, its XSpace stored as DIR/jax-<host>_<port>/<host>_<port>.xplane.pb, the analysis finds the
program's own jitted module, and the exit status says the capture is partial (3).
Run through xla_profiler/tests/run_jax_test.sh (the pinned JAX environment).
  jax_capture_test.py XPUPERF JAX_PROGRAM"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    xpuperf, program = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="xpuperf-jax-capture-")
    port = free_port()
    jax = subprocess.Popen([sys.executable, program, "server", str(port), "240"],
                           stdout=subprocess.PIPE, text=True)
    try:
        if jax.stdout.readline().strip() != "ready":
            raise SystemExit("the JAX program did not start")
        dead = free_port()
        out = os.path.join(work, "out")
        capture = subprocess.run(
            [xpuperf, "capture", "--jax", f"127.0.0.1:{port}", "--hosts", f"127.0.0.1:{dead}",
             "--duration-ms", "1500", "--start-in", "2", "--wait", "60", "--out", out, "--json"],
            capture_output=True, text=True, timeout=300)
        print(capture.stderr)
        assert capture.returncode == 3, capture.returncode
        manifest = json.load(open(os.path.join(out, "manifest.json")))
        hosts = {h["host"]: h for h in manifest["hosts"]}
        jax_host = hosts[f"127.0.0.1:{port}"]
        assert jax_host["status"] == "ok", jax_host
        assert jax_host["folder"] == f"jax-127.0.0.1_{port}", jax_host
        [xspace] = jax_host["files"]
        assert xspace["name"].endswith(".xplane.pb") and xspace["size_bytes"] > 0, xspace
        assert hosts[f"127.0.0.1:{dead}"]["status"] == "failed"
        assert "xpuperf_probe_step" in capture.stdout, capture.stdout[:3000]
        print("jax_capture_test: ok")
        return 0
    finally:
        jax.terminate()
        try:
            jax.wait(timeout=10)
        except subprocess.TimeoutExpired:
            jax.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
