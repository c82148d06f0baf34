"""Benchmarks as SLAs, end to end: `xpuperf bench check --export` writes a node's check, `xpuperf
serve --bench-check` exports it as xpuperf_bench_check_* series, and the shipped rule
XpuperfBenchBelowSpec, evaluated by `serve --rules`, fires on the component under its threshold and
resolves once a passing check replaces the file. A malformed file turns xpuperf_bench_check_up to 0.
"""
import argparse
import os
import subprocess
import sys

from serve_harness import Serve, check, common_arguments, scrape, series, wait_until


def bench_check(args, run, out):
    r = subprocess.run([args.xpuperf, "bench", "check", os.path.join(args.check_data, run),
                        "--spec", os.path.join(args.check_data, "test-sheet.yaml"), "--export", out],
                       capture_output=True, text=True, timeout=60)
    check(os.path.exists(out), f"bench check --export wrote nothing: {r.stderr}")
    return r.returncode


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    parser.add_argument("--check-data", required=True)
    parser.add_argument("--rules", required=True)
    args = parser.parse_args()
    work_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"bench-check-{os.getpid()}.json")
    code = bench_check(args, "miss", work_file)
    check(code == 1, f"a missed threshold exits 1, got {code}")
    serve = Serve(args, extra_args=["--bench-check", work_file, "--rules", args.rules])
    try:
        def memory_failed():
            s = scrape(serve)
            passed = series(s, "xpuperf_bench_check_passed", component="memory")
            firing = series(s, "xpuperf_alerts", alertname="XpuperfBenchBelowSpec",
                            alertstate="firing", component="memory")
            return s if passed and list(passed.values()) == [0.0] and firing else None
        s = wait_until(memory_failed, 30, "the memory row failed and XpuperfBenchBelowSpec firing")
        ratio = series(s, "xpuperf_bench_check_achieved_ratio", component="memory",
                       hostname="node-under-test")
        check(list(ratio.values()) == [0.8], f"memory achieved 80 of 100 GB/s: {ratio}")
        threshold = series(s, "xpuperf_bench_check_threshold_ratio", component="memory")
        check(len(threshold) == 1 and list(threshold.values())[0] > 0.8, f"threshold {threshold}")
        check(list(series(s, "xpuperf_bench_check_up").values()) == [1.0], "up is 1")

        check(bench_check(args, "pass", work_file) == 0, "the passing run exits 0")

        def resolved():
            s = scrape(serve)
            passed = series(s, "xpuperf_bench_check_passed", component="memory")
            firing = series(s, "xpuperf_alerts", alertname="XpuperfBenchBelowSpec")
            return passed and list(passed.values()) == [1.0] and not firing
        wait_until(resolved, 30, "the passing check re-read and the alert resolved")

        with open(work_file, "w") as f:
            f.write("{not json")
        wait_until(lambda: list(series(scrape(serve), "xpuperf_bench_check_up").values()) == [0.0],
                   30, "xpuperf_bench_check_up 0 for a malformed file")
        check(work_file in serve.log_text(), "the log names the malformed file")
        print("ok")
    finally:
        serve.stop()
        if os.path.exists(work_file):
            os.remove(work_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
