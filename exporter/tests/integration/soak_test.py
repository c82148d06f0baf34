"""Load and soak (ctest label `soak`): RSS of `xpuperf serve` after 10,000 scrapes within 5 % of
its RSS after 100, then wrk (Debian) with 64 connections for 30 s against /metrics: no socket
errors, no non-2xx answer.

ctest runs it alone (RUN_SERIAL): a load test that shares two cores with a PyTorch test measures
the neighbour. wrk's own timeout is raised from 2 s to 10 s for the same reason: a reply that a
starved scheduler delays past 2 s is counted by wrk as a socket error, yet it is an answer."""
import argparse
import http.client
import re
import shutil
import subprocess
import sys
import time

from serve_harness import SKIP, Serve, check, common_arguments

ACCEPT = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def scrape(connection, n):
    for i in range(n):
        # Alternate formats and encodings, as a mixed fleet of scrapers would.
        headers = {"Accept": ACCEPT} if i % 2 else {}
        if i % 3 == 0:
            headers["Accept-Encoding"] = "gzip"
        connection.request("GET", "/metrics", headers=headers)
        response = connection.getresponse()
        response.read()
        check(response.status == 200, f"scrape {i}: {response.status}")


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    parser.add_argument("--sanitized", action="store_true")
    args = parser.parse_args()
    if args.sanitized:
        print("SKIP: an AddressSanitizer build: its quarantine holds freed memory, so RSS growth "
              "says nothing about the exporter")
        return SKIP
    wrk = shutil.which("wrk")
    if not wrk:
        print("SKIP: needs Debian's wrk (scripts/install-deps.sh)")
        return SKIP
    # The rule history is bounded (one snapshot per interval for --history seconds); it is made
    # short and left to fill before the first measurement, so that what is compared is the
    # serving path, not a bounded buffer filling up.
    serve = Serve(args, extra_args=["--history", "1"], interval="0.2")
    try:
        time.sleep(2)
        connection = http.client.HTTPConnection("127.0.0.1", serve.port, timeout=10)
        scrape(connection, 100)
        after_100 = rss_kib(serve.process.pid)
        scrape(connection, 9900)
        after_10000 = rss_kib(serve.process.pid)
        connection.close()
        growth = (after_10000 - after_100) / after_100
        print(f"RSS after 100 scrapes {after_100} KiB, after 10,000 {after_10000} KiB "
              f"({growth * 100:+.2f} %)")
        check(abs(growth) <= 0.05, f"RSS changed by {growth * 100:.2f} % (bar: 5 %)")

        r = subprocess.run([wrk, "-t", "2", "-c", "64", "-d", "30s", "--timeout", "10s", "--latency",
                            "-H", "Accept-Encoding: gzip",
                            f"http://127.0.0.1:{serve.port}/metrics"],
                           capture_output=True, text=True, timeout=90)
        print(r.stdout)
        check(r.returncode == 0, f"wrk exit {r.returncode}: {r.stderr}")
        check("Socket errors" not in r.stdout, "wrk saw socket errors")
        check("Non-2xx" not in r.stdout, "wrk saw non-2xx answers")
        requests = int(re.search(r"(\d+) requests in", r.stdout).group(1))
        check(requests > 1000, f"only {requests} requests in 30 s")
        check(serve.process.poll() is None, "xpuperf serve died under load")
        print(f"ok: RSS {growth * 100:+.2f} %, {requests} requests without errors")
    finally:
        serve.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
