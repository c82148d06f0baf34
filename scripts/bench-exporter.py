#!/usr/bin/env python3
"""Side-by-side benchmark of `xpuperf serve` and Debian's prometheus-node-exporter on this machine,
in one run (docs/PERFORMANCE-JOURNAL.md, "Exporter").

  python3 scripts/bench-exporter.py [--build build] [--scrapes 2000] [--idle 60] [--jobs]

xpuperf serves the CPU backend plus two fake GPUs (backends/nvidia/tests/fake_nvml, scenario
two-gpus.conf); node_exporter runs its default collectors. With --jobs: eight fake H100s, each held
by 8 real processes (64 `sleep`s, each in a Slurm job of its own through SLURM_JOB_ID and with a
RANK), and serve with --slurm-jobs --process-env-labels: the cost of job attribution and workload
identity with many per-process series. For each exporter, on loopback, one
keep-alive client scrapes /metrics N times back to back (text format, no gzip) and we report:
  - series per scrape: sample lines in the exposition;
  - scrape latency: client wall time per request (median, p90, p99), Python client included;
  - CPU per scrape per series = (utime+stime of the exporter over the loop) / N / series, from
    /proc/PID/stat (clock ticks); for xpuperf this also holds its background collection meanwhile;
  - then xpuperf alone, unscraped, for --idle seconds at --interval 1: its CPU share of one core.
"""
import argparse
import http.client
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_http(port, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/metrics")
            r = c.getresponse()
            body = r.read()
            if r.status == 200 and b"_" in body:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"nothing answers on port {port}")


def measure(name, pid, port, scrapes):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/metrics")
    response = connection.getresponse()
    body = response.read().decode()
    series = sum(1 for line in body.splitlines() if line and not line.startswith("#"))
    latencies = []
    cpu_before = cpu_seconds(pid)
    for _ in range(scrapes):
        start = time.perf_counter()
        connection.request("GET", "/metrics")
        response = connection.getresponse()
        response.read()
        latencies.append(time.perf_counter() - start)
        if response.status != 200:
            raise SystemExit(f"{name}: HTTP {response.status}")
    cpu = cpu_seconds(pid) - cpu_before
    latencies.sort()
    q = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))]
    result = {
        "name": name, "series": series, "bytes": len(body),
        "median_ms": statistics.median(latencies) * 1e3, "p90_ms": q(0.9) * 1e3,
        "p99_ms": q(0.99) * 1e3, "cpu_per_scrape_us": cpu / scrapes * 1e6,
        "cpu_per_scrape_per_series_ns": cpu / scrapes / series * 1e9,
    }
    jobs = sum(1 for line in body.splitlines() if line.startswith("xpuperf_job_info{"))
    if jobs:
        print(f"{name:16} xpuperf_job_info series {jobs}, job_id-labelled series "
              f"{sum(1 for line in body.splitlines() if 'job_id=' in line and not line.startswith('#'))}")
    print(f"{name:16} series {series:5d}  bytes {len(body):7d}  latency median "
          f"{result['median_ms']:.3f} ms p90 {result['p90_ms']:.3f} p99 {result['p99_ms']:.3f}  "
          f"CPU/scrape {result['cpu_per_scrape_us']:.1f} us  CPU/scrape/series "
          f"{result['cpu_per_scrape_per_series_ns']:.1f} ns")
    return result


def jobs_scenario(template, work, children):
    """Eight copies of the template's GPU 0, each with 8 processes of its own (real `sleep`s in
    Slurm jobs by their environment), 64 in all; the scenario's path."""
    with open(template) as f:
        gpu0 = [line for line in f if line.startswith("gpu.0.") and "processes" not in line
                and "process_utilization" not in line and "lost" not in line]
    lines = ["driver_version = 550.54.15\n"]
    for g in range(8):
        pids = []
        for p in range(8):
            job = subprocess.Popen(["sleep", "3600"], env=dict(
                os.environ, SLURM_JOB_ID=str(1000 + g * 8 + p), RANK=str(p), WORLD_SIZE="8"))
            children.append(job)
            pids.append(job.pid)
        for line in gpu0:
            line = line.replace("gpu.0.", f"gpu.{g}.", 1)
            line = line.replace("5d1a8b2c-7e3f", f"5d1a8b2c-7e3{g}")
            line = line.replace("00000000:19:00.0", f"00000000:{0x19 + g:02X}:00.0")
            lines.append(line)
        lines.append(f"gpu.{g}.processes = " + ",".join(f"{p}:1073741824" for p in pids) + "\n")
        lines.append(f"gpu.{g}.process_utilization = " +
                     ",".join(f"{p}:10:5:0:0" for p in pids) + "\n")
    path = os.path.join(work, "eight-gpus.conf")
    with open(path, "w") as f:
        f.writelines(lines)
    return path


def main():
    parser = argparse.ArgumentParser()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--scrapes", type=int, default=2000)
    parser.add_argument("--idle", type=float, default=60)
    parser.add_argument("--jobs", action="store_true",
                        help="8 fake GPUs with 64 job processes, job attribution on")
    args = parser.parse_args()
    node_exporter = shutil.which("prometheus-node-exporter")
    if not node_exporter:
        raise SystemExit("needs prometheus-node-exporter (scripts/install-deps.sh)")
    xpuperf = os.path.join(args.build, "xpuperf")
    fake_nvml = os.path.join(args.build, "backends/nvidia/tests/fake_nvml/full/libnvidia-ml.so.1")
    scenario = os.path.join(root, "backends/nvidia/tests/data/two-gpus.conf")
    for path in (xpuperf, fake_nvml):
        if not os.path.exists(path):
            raise SystemExit(f"{path} missing: build with -DXPUPERF_BUILD_TESTS=ON first")
    work = tempfile.mkdtemp(prefix="xpuperf-bench-exporter-")
    children = []
    try:
        node_port, xpu_port = free_port(), free_port()
        node = subprocess.Popen([node_exporter, f"--web.listen-address=127.0.0.1:{node_port}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(node)
        extra = []
        if args.jobs:
            scenario = jobs_scenario(scenario, work, children)
            extra = ["--slurm-jobs", "--process-env-labels"]
        env = dict(os.environ, XPUPERF_NVML_LIBRARY=fake_nvml,
                   XPUPERF_FAKE_NVML_SCENARIO=scenario)
        xpu = subprocess.Popen([xpuperf, "serve", "--listen", f"127.0.0.1:{xpu_port}",
                                "--interval", "1", "--backend", "cpu", "--backend", "nvidia",
                                *extra],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(xpu)
        wait_http(node_port)
        wait_http(xpu_port)
        time.sleep(8 if args.jobs else 2)  # past the first collections (and job refreshes)
        print(f"{time.strftime('%Y-%m-%d %H:%M')} {os.cpu_count()} CPUs, {args.scrapes} scrapes each,"
              f" load {os.getloadavg()[0]:.1f}")
        n = measure("node_exporter", node.pid, node_port, args.scrapes)
        x = measure("xpuperf serve", xpu.pid, xpu_port, args.scrapes)
        ratio = x["cpu_per_scrape_per_series_ns"] / n["cpu_per_scrape_per_series_ns"]
        print(f"CPU per scrape per series: xpuperf / node_exporter = {ratio:.3f} (bar <= 0.2)")
        print(f"median scrape latency (CPU + two fake GPUs): {x['median_ms']:.3f} ms (bar <= 1 ms)")
        node.terminate()
        before, t0 = cpu_seconds(xpu.pid), time.time()
        time.sleep(args.idle)
        idle = (cpu_seconds(xpu.pid) - before) / (time.time() - t0)
        print(f"xpuperf serve unscraped at --interval 1 for {args.idle:.0f} s: {idle * 100:.3f} % "
              f"of one core (bar <= 0.5 %)")
    finally:
        for c in children:
            c.terminate()
            try:
                c.wait(10)
            except subprocess.TimeoutExpired:
                c.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
