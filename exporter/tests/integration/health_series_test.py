"""Health verdicts as series, end to end: `xpuperf serve` on the fake NVML with a GPU whose row remap
failed exports xpuperf_health 3 (fail) for its memory with the code and action as labels and
xpuperf_node_healthy 0; a GPU lost mid-run turns its driver verdict to DRIVER_DEVICE_LOST within a
few intervals; `--no-health` exports neither family; a bad --health-expect is a usage error.
`--diag-results` exports the node's last `xpuperf diag` (a real level-1 run's diag.json).
"""
import argparse
import os
import shutil
import subprocess
import sys

from serve_harness import Serve, check, common_arguments, scrape, series, wait_until


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    args = parser.parse_args()

    bad = subprocess.run([args.xpuperf, "serve", "--health-expect", "-1"], capture_output=True,
                         text=True, timeout=60)
    check(bad.returncode == 2 and "--health-expect" in bad.stderr,
          f"--health-expect -1: exit {bad.returncode}, {bad.stderr!r}")

    # A real diagnostic's file: level 1 on the CPU of this machine.
    work = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"health-series-{os.getpid()}")
    diag = subprocess.run([args.xpuperf, "diag", "-r", "1", "--backend", "cpu", "--out", work],
                          capture_output=True, text=True, timeout=120)
    check(diag.returncode in (0, 1), f"diag -r 1: exit {diag.returncode}: {diag.stderr}")
    diag_passed = 1.0 if diag.returncode == 0 else 0.0

    serve = Serve(args, extra_args=["--health-expect", "2", "--diag-results",
                                    os.path.join(work, "diag.json")])
    try:
        def remap_failure():
            s = scrape(serve)
            memory = series(s, "xpuperf_health", device="nvidia0", subsystem="memory")
            return s if memory else None
        s = wait_until(remap_failure, 30, "nvidia0's memory verdict")
        memory = series(s, "xpuperf_health", device="nvidia0", subsystem="memory",
                        code="MEM_ROW_REMAP_FAILURE", action="replace_device", status="fail",
                        hostname="node-under-test")
        check(list(memory.values()) == [3.0], f"nvidia0 memory fails (3): {memory}")
        clean = series(s, "xpuperf_health", device="nvidia1", subsystem="memory", code="OK")
        check(list(clean.values()) == [0.0], f"nvidia1 memory passes (0): {clean}")
        node = series(s, "xpuperf_health", device="node", subsystem="driver", code="OK")
        check(list(node.values()) == [0.0], f"two accelerators of --health-expect 2: {node}")
        check(list(series(s, "xpuperf_node_healthy").values()) == [0.0], "the node is unhealthy")
        passed = series(s, "xpuperf_diag_passed", level="1", hostname="node-under-test")
        check(list(passed.values()) == [diag_passed], f"the diagnostic's result: {passed}")
        check(list(series(s, "xpuperf_diag_up").values()) == [1.0], "diag.json read")
        check(series(s, "xpuperf_diag_test", test="deployment.backends", code="OK"),
              "the diagnostic's tests as series")

        open(serve.lose_gpu_file, "w").close()

        def lost():
            driver = series(scrape(serve), "xpuperf_health", device="nvidia1", subsystem="driver",
                            code="DRIVER_DEVICE_LOST")
            return driver if driver and list(driver.values()) == [3.0] else None
        wait_until(lost, 30, "nvidia1's driver verdict DRIVER_DEVICE_LOST after it was lost")
    finally:
        serve.stop()
        shutil.rmtree(work, ignore_errors=True)

    quiet = Serve(args, extra_args=["--no-health"])
    try:
        s = wait_until(lambda: scrape(quiet) if series(scrape(quiet), "xpuperf_device_up") else None,
                       30, "the exporter's first snapshot")
        check(not series(s, "xpuperf_health") and not series(s, "xpuperf_node_healthy"),
              "--no-health exports no health series")
    finally:
        quiet.stop()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
