"""`xpuperf serve` under hostile clients, over raw sockets against the real binary (issue classes:
unbounded request heads, slow clients holding the workers, a GET with a body read as a second
request, pipelining, Range): a 200 MB header line is refused with 431 after at most a few KiB are
kept (the process does not grow by the line), 70 clients trickling their heads hold no worker (a
real scrape is answered meanwhile) and get 408 at the request deadline, a GET with a body is 413
and its body never answered as a request, three pipelined requests get three answers, and Range
is ignored on /metrics. Waits are generous deadlines for a condition, never a speed."""
import argparse
import gzip
import re
import shutil
import socket
import subprocess
import sys
import time

from serve_harness import Serve, check, common_arguments, wait_until


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    return s


def read_until_closed(s):
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        data += chunk
    return data


def huge_header(serve):
    before = rss_kib(serve.process.pid)
    s = connect(serve.port)
    s.sendall(b"GET /metrics HTTP/1.1\r\nX-Huge: ")
    piece = b"a" * (1 << 20)
    sent = 0
    try:
        for _ in range(200):
            s.sendall(piece)
            sent += 1
    except (BrokenPipeError, ConnectionResetError):
        pass
    answer = read_until_closed(s)
    s.close()
    check(answer.startswith(b"HTTP/1.1 431 "), f"huge header: {answer[:120]!r}")
    check(sent < 200, f"the server should close long before 200 MiB ({sent} MiB sent)")
    grown = rss_kib(serve.process.pid) - before
    check(grown < 16 * 1024, f"serve grew by {grown} KiB on one refused header line")


def slow_clients(serve):
    slow = []
    for _ in range(70):
        s = connect(serve.port)
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        slow.append(s)
    # One header byte per second from each, for longer than the request deadline (5 s).
    status = None
    for second in range(8):
        for s in slow:
            try:
                s.sendall(b"X")
            except OSError:
                pass
        if second == 1:
            status = serve.http().get("/metrics")[0]
        time.sleep(1)
    check(status == 200, f"a real scrape while 70 clients trickle: {status}")
    timed_out = 0
    for s in slow:
        s.settimeout(60)
        if read_until_closed(s).startswith(b"HTTP/1.1 408 "):
            timed_out += 1
        s.close()
    check(timed_out == 70, f"{timed_out} of 70 trickling clients got 408 at the deadline")


def framing(serve):
    s = connect(serve.port)
    s.sendall(b"GET /metrics HTTP/1.1\r\nContent-Length: 20\r\n\r\nGET /health HTTP/1.1\r\n")
    answer = read_until_closed(s)
    s.close()
    check(answer.startswith(b"HTTP/1.1 413 ") and answer.count(b"HTTP/1.1 ") == 1,
          f"GET with a body: {answer[:200]!r}")
    s = connect(serve.port)
    s.sendall(b"GET /health HTTP/1.1\r\n\r\nHEAD /metrics HTTP/1.1\r\n\r\n"
              b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
    answer = read_until_closed(s)
    s.close()
    check(answer.count(b"HTTP/1.1 200 OK") == 3, f"pipelined: {answer.count(b'HTTP/1.1 200')}")
    status, headers, body = serve.http().get("/metrics", {"Range": "bytes=0-10"})
    check(status == 200 and len(body) > 11 and "Content-Range" not in headers,
          f"Range on /metrics: {status} {len(body)}")


def with_curl(serve):
    """A real client: curl over HTTP/1.1 with gzip, HEAD, a POST and a request with a body."""
    curl = shutil.which("curl")
    if not curl:
        print("note: no curl here; the curl checks are left out")
        return
    base = f"http://127.0.0.1:{serve.port}"
    run = lambda *a: subprocess.run([curl, "-s", "--http1.1", "--max-time", "30", *a],
                                     capture_output=True, timeout=60)
    r = run("-H", "Accept-Encoding: gzip", "-o", "-", base + "/metrics")
    check(r.returncode == 0 and b"xpuperf_build_info" in gzip.decompress(r.stdout),
          f"curl gzip scrape: {r.returncode}")
    r = run("-I", base + "/metrics")
    check(r.stdout.startswith(b"HTTP/1.1 200") and b"Content-Length:" in r.stdout,
          f"curl HEAD: {r.stdout[:80]!r}")
    r = run("-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-d", "x" * 100000,
            base + "/metrics")
    check(r.stdout == b"405", f"curl POST with a 100 kB body: {r.stdout!r}")
    r = run("-o", "/dev/null", "-w", "%{http_code}", "-X", "GET", "-d", "x", base + "/metrics")
    check(r.stdout == b"413", f"curl GET with a body: {r.stdout!r}")


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    args = parser.parse_args()
    serve = Serve(args)
    try:
        wait_until(lambda: serve.http().get("/metrics")[0] == 200, 30, "a first scrape")
        huge_header(serve)
        slow_clients(serve)
        framing(serve)
        with_curl(serve)
        check(serve.process.poll() is None, "serve still runs")
        print("ok")
    finally:
        serve.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
