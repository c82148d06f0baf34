"""A real JAX program under jax.profiler.trace(DIR) writes DIR/plugins/profile/<run>/<host>.xplane.pb;
`xpuperf analyze DIR` reads it and must name the program's module and ops, agree with xprof (XLA's
own XSpace reader, the referee) on every XLA op execution (count and total time per op), and
export Chrome-trace JSON that holds the same ops.
  jax_trace_test.py XPUPERF"""
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

from xprof import profile_data

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def referee_ops(path):
    """Per HLO op: executions and total ns, as xprof reads the file (host ops with an hlo_op stat,
    device planes' "XLA Ops" lines)."""
    ops = collections.defaultdict(lambda: [0, 0.0])
    with profile_data.ProfileData.from_file(path) as data:
        for plane in data.planes:
            device = plane.name.startswith("/device:")
            if plane.name != "/host:CPU" and not device:
                continue
            for line in plane.lines:
                for event in line.events:
                    stats = dict(event.stats)
                    if device and line.name == "XLA Ops":
                        name = event.name
                    elif not device and "hlo_op" in stats:
                        # xprof gives a ref_value stat as the referenced id; XLA:CPU names the
                        # event after its op, so the event's name is the op's.
                        name = event.name
                    else:
                        continue
                    ops[name][0] += 1
                    ops[name][1] += event.duration_ns
    return ops


def main():
    xpuperf = sys.argv[1]
    with tempfile.TemporaryDirectory() as logdir:
        subprocess.run([sys.executable, os.path.join(HERE, "jax_program.py"), "trace", logdir, "30"],
                       check=True, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=300)
        files = glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*.xplane.pb"))
        if len(files) != 1:
            fail(f"expected one .xplane.pb, found {files}")
        chrome = os.path.join(logdir, "export.json")
        analysed = subprocess.run([xpuperf, "analyze", logdir, "--json", "--top", "1000",
                                   "--export-chrome", chrome],
                                  capture_output=True, text=True, timeout=120)
        if analysed.returncode != 0:
            fail(f"analyze failed: {analysed.stderr}")
        ranks = json.loads(analysed.stdout)["ranks"]
        if len(ranks) != 1:  # HOST.trace.json.gz next to HOST.xplane.pb is not read again
            fail(f"expected one rank, read {[r['source'] for r in ranks]}")
        rank = ranks[0]
        if rank["format"] != "xplane":
            fail(f"read as {rank['format']}")
        ours = {row["name"]: row for row in rank["xla_ops"]["by_op"]}
        print("ops:", {n: (r["count"], r["total_ns"]) for n, r in ours.items()})
        if not any(r["module"] == "jit_xpuperf_probe_step" for r in ours.values()):
            fail("no op of the program's module jit_xpuperf_probe_step")
        if not any("sort" in n for n in ours):
            fail(f"the program's sort op is missing: {list(ours)}")
        theirs = referee_ops(files[0])
        if set(theirs) != set(ours):
            fail(f"op names differ: xprof {sorted(theirs)} xpuperf {sorted(ours)}")
        for name, (count, total) in theirs.items():
            row = ours[name]
            # Our times are whole ns (picoseconds floored at both ends): at most 1 ns per event.
            if row["count"] != count or abs(row["total_ns"] - total) > count + 1:
                fail(f"{name}: xprof {count} x, {total} ns; xpuperf {row['count']} x, "
                     f"{row['total_ns']} ns")
        steps = rank["xla_steps"]["steps"]
        if not steps or steps[0]["count"] != 30:
            fail(f"expected 30 steps (StepTraceAnnotation), got {steps}")

        # The same run in text form, and the Chrome export holding every op execution.
        text = subprocess.run([xpuperf, "analyze", files[0]], capture_output=True, text=True,
                              timeout=120)
        if text.returncode != 0 or "XLA ops" not in text.stdout:
            fail(f"text report: rc={text.returncode} {text.stderr}")
        with open(chrome) as f:
            exported = json.load(f)
        counted = collections.Counter(e["name"] for e in exported["traceEvents"]
                                      if e.get("ph") == "X" and e.get("cat") == "XLA Ops")
        for name, (count, _) in theirs.items():
            if counted[name] != count:
                fail(f"export: {name} {counted[name]} times, xprof {count}")
        processes = [e["args"]["name"] for e in exported["traceEvents"]
                     if e.get("ph") == "M" and e.get("name") == "process_name"]
        if "/host:CPU" not in processes:
            fail(f"export lacks the host plane: {processes}")
    print("PASS: xpuperf and xprof agree on", sum(c for c, _ in theirs.values()),
          "op executions of", len(theirs), "ops")


if __name__ == "__main__":
    main()
