"""End to end: a real JAX process serving jax.profiler.start_server on loopback, captured by
xpuperf's ProfileXlaServer (through the xla_profile_client helper), the XSpace read and analysed
by `xpuperf analyze`, which must name the program's own module and ops. Also: a second capture
while the first runs is refused by the server (one session per process) and reported, and a port
with no server fails fast.
  jax_server_test.py XLA_PROFILE_CLIENT XPUPERF"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def main():
    client, xpuperf = sys.argv[1], sys.argv[2]
    port = free_port()
    program = subprocess.Popen([sys.executable, os.path.join(HERE, "jax_program.py"), "server",
                                str(port), "120"],
                               stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, JAX_PLATFORMS="cpu"))
    try:
        line = program.stdout.readline()
        if line.strip() != "ready":
            fail(f"the JAX program did not start (said {line!r})")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "localhost.xplane.pb")
            # Two captures at once: the server allows one session, so exactly one succeeds.
            results = {}

            def capture(name, path, start_in_ms):
                results[name] = subprocess.run(
                    [client, f"127.0.0.1:{port}", "1500", path, str(start_in_ms)],
                    capture_output=True, text=True, timeout=120)

            first = threading.Thread(target=capture, args=("first", out, 200))
            first.start()
            time.sleep(1.0)  # the first session is tracing by now
            capture("second", os.path.join(tmp, "second.xplane.pb"), 0)
            first.join()
            r = results["first"]
            print("first capture:", r.stdout.strip(), r.stderr.strip())
            if r.returncode != 0:
                fail(f"the capture failed: {r.stderr.strip()}")
            if not os.path.getsize(out) > 0:
                fail("empty .xplane.pb")
            second = results["second"]
            print("concurrent capture:", second.returncode, second.stderr.strip())
            if second.returncode == 0 or "XLA profiler" not in second.stderr:
                fail("a second session during the first should be refused with the server's "
                     f"error, got rc={second.returncode} {second.stderr!r}")
            if os.path.exists(os.path.join(tmp, "second.xplane.pb")):
                fail("a failed capture left a file")

            analysed = subprocess.run([xpuperf, "analyze", out, "--json", "--top", "50"],
                                      capture_output=True, text=True, timeout=120)
            if analysed.returncode != 0:
                fail(f"analyze failed: {analysed.stderr}")
            report = json.loads(analysed.stdout)
            text = json.dumps(report)
            if "jit_xpuperf_probe_step" not in text:
                fail("the program's module jit_xpuperf_probe_step is not in the analysis")
            rank = report["ranks"][0]
            ops = rank["xla_ops"]
            names = [row["name"] for row in ops["by_op"]]
            print("XLA ops:", names)
            if ops["executions"] < 5 or not names:
                fail(f"too few XLA op executions: {ops['executions']}")
            if not any("sort" in n for n in names):
                fail(f"the program's sort op is not among the ops {names}")
            modules = {row["module"] for row in ops["by_op"]}
            if "jit_xpuperf_probe_step" not in modules:
                fail(f"ops do not name their module: {modules}")
            for row in ops["by_op"]:
                if not row["p50_ns"] <= row["p90_ns"] <= row["p99_ns"] <= row["max_ns"]:
                    fail(f"percentiles out of order: {row}")
            steps = rank["xla_steps"]["steps"]
            if not steps or steps[0]["count"] < 5:
                fail(f"too few steps found: {steps}")
            print("steps:", steps[0])
            print("devices:", rank["xla_devices"]["devices"])

        # Nothing listening: a prompt, clear error.
        started = time.monotonic()
        r = subprocess.run([client, f"127.0.0.1:{free_port()}", "500", "/dev/null"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode == 0 or "no XLA profiler server answers" not in r.stderr:
            fail(f"unreachable server: rc={r.returncode} {r.stderr!r}")
        if time.monotonic() - started > 20:
            fail("an unreachable server took more than 20 s to report")
    finally:
        program.kill()
        program.wait()
    print("PASS")


if __name__ == "__main__":
    main()
