"""Debian's Prometheus scrapes `xpuperf serve` (CPU + two fake GPUs + fake TPU runtime and fake
libtpu SDK) on loopback; the
test asks Prometheus' HTTP API for series, labels, values, a histogram_quantile and every query of
the shipped Grafana dashboard, runs `promtool check metrics` on the text format and a strict OpenMetrics parser on the
OpenMetrics one (which Prometheus 2.42 negotiates, so its scrapes check it too)."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from serve_harness import SKIP, Serve, check, common_arguments, parse_exposition, series, \
    start_kubelet, wait_until, free_port

OPENMETRICS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                      "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def promtool_check(promtool, text, what):
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    check(r.returncode == 0, f"promtool check metrics ({what}) exit {r.returncode}:\n"
                             f"{r.stdout}{r.stderr}")


def openmetrics_check(text):
    """prometheus_client's strict OpenMetrics 1.0 parser (pinned in requirements/exporter.txt):
    promtool 2.42 reads only the text format (it calls OpenMetrics' `info` type unknown and takes
    a counter's `_total` samples for another family), so OpenMetrics is checked by this parser and
    by Prometheus ingesting it below."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    venv = subprocess.run(["bash", os.path.join(root, "scripts", "python-env.sh"), "exporter"],
                          capture_output=True, text=True)
    check(venv.returncode == 0, f"python-env.sh exporter: {venv.stderr}")
    code = ("import sys\n"
            "from prometheus_client.openmetrics.parser import text_string_to_metric_families\n"
            "families = list(text_string_to_metric_families(sys.stdin.read()))\n"
            "print(len(families), sum(len(f.samples) for f in families))\n")
    r = subprocess.run([os.path.join(venv.stdout.strip(), "bin", "python"), "-c", code],
                       input=text, capture_output=True, text=True)
    check(r.returncode == 0, f"OpenMetrics parser rejected the exposition:\n{r.stderr}")
    return r.stdout.split()


def query(prom, expr):
    url = f"http://127.0.0.1:{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        doc = json.load(r)
    check(doc["status"] == "success", f"query {expr!r}: {doc}")
    return doc["data"]["result"]


def dashboard_queries(path):
    with open(path) as f:
        dash = json.load(f)
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    check(exprs, "the dashboard has no queries")
    return exprs


def concrete(expr):
    # Grafana's variables as "All" and its rate interval.
    return (expr.replace('=~"$node"', '=~".*"').replace('=~"$device"', '=~".*"')
                .replace("$__rate_interval", "30s"))


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    parser.add_argument("--fake-kubelet", required=True)
    parser.add_argument("--fake-libtpu", required=True)
    args = parser.parse_args()
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not prometheus or not promtool:
        print("SKIP: needs Debian's prometheus and promtool (scripts/install-deps.sh)")
        return SKIP
    # A job and a pod for the dashboard's "Jobs and pods" row: a process of nvidia0 (H100) in
    # Slurm job 4711 (its environment; no Slurm needed), and the fake kubelet's pod holding it.
    prom_dir = tempfile.mkdtemp(prefix="xpuperf-prom-")
    job = subprocess.Popen(["sleep", "600"], env=dict(os.environ, SLURM_JOB_ID="4711"))
    processes = os.path.join(prom_dir, "gpu0-processes")
    with open(processes, "w") as f:
        f.write(f"{job.pid}:2147483648\n")
    scenario = os.path.join(prom_dir, "gpus.conf")
    shutil.copy(args.nvml_scenario, scenario)
    with open(scenario, "a") as f:
        f.write(f"\ngpu.0.processes_file = {processes}\n")
    pods = os.path.join(prom_dir, "pods.txt")
    with open(pods, "w") as f:
        f.write("ml train-0 trainer nvidia.com/gpu GPU-5d1a8b2c-7e3f-4a6b-9c0d-1e2f3a4b5c6d\n")
    kubelet = start_kubelet(args.fake_kubelet, os.path.join(prom_dir, "kubelet.sock"), pods)
    try:
        serve = Serve(args, extra_args=["--slurm-jobs", "--job-refresh", "0.3",
                                        "--pod-resources-socket",
                                        os.path.join(prom_dir, "kubelet.sock"), "--pod-refresh",
                                        "0.3"],
                      env={"XPUPERF_FAKE_NVML_SCENARIO": scenario,
                           # libtpu's SDK for the dashboard's TPU row: the fake libtpu package.
                           "PYTHONPATH": args.fake_libtpu,
                           "XPUPERF_FAKE_LIBTPU": os.path.join(args.fake_libtpu, "busy.json"),
                           "XPUPERF_TPU_SDK_DEADLINE": "60"})
    except BaseException:
        for child in (job, kubelet):
            child.kill()
        raise
    prom = None
    try:
        http = serve.http()
        # Both formats pass promtool.
        wait_until(lambda: b"xpuperf_duty_cycle_ratio{" in http.get("/metrics")[2], 20,
                   "first collection")
        status, headers, body = http.get("/metrics")
        check(status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4"),
              f"text format: {status} {headers['Content-Type']}")
        text = body.decode()
        promtool_check(promtool, text, "text 0.0.4")
        status, headers, body = http.get("/metrics", {"Accept": OPENMETRICS_ACCEPT})
        check(headers["Content-Type"].startswith("application/openmetrics-text; version=1.0.0"),
              f"OpenMetrics content type: {headers['Content-Type']}")
        om = body.decode()
        check(om.endswith("# EOF\n"), "OpenMetrics must end with # EOF")
        families, samples = openmetrics_check(om)
        check(int(families) > 10, f"OpenMetrics: only {families} families")

        # Prometheus scrapes every second.
        prom = free_port()
        config = os.path.join(prom_dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: xpuperf
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:{serve.port}"]
""")
        prom_log = open(os.path.join(prom_dir, "prometheus.log"), "w")
        prom_process = subprocess.Popen(
            [prometheus, f"--config.file={config}", f"--storage.tsdb.path={prom_dir}/data",
             f"--web.listen-address=127.0.0.1:{prom}", "--log.level=warn"],
            stdout=prom_log, stderr=prom_log)
        try:
            wait_until(lambda: any(float(s["value"][1]) >= 4 for s in
                                   query(prom, 'count_over_time(up{job="xpuperf"}[1m])')),
                       60, "four scrapes by Prometheus")
            up = query(prom, 'up{job="xpuperf"}')
            check(len(up) == 1 and up[0]["value"][1] == "1", f"target up: {up}")

            # Series, labels, values.
            gpus = query(prom, 'xpuperf_duty_cycle_ratio{backend="nvidia"}')
            by_device = {s["metric"]["device"]: s for s in gpus}
            check(set(by_device) == {"nvidia0", "nvidia1"}, f"GPU duty cycle series: {gpus}")
            h100 = by_device["nvidia0"]["metric"]
            check(h100["model"] == "NVIDIA H100 80GB HBM3", h100)
            check(h100["uuid"] == "GPU-5d1a8b2c-7e3f-4a6b-9c0d-1e2f3a4b5c6d", h100)
            check(h100["pci_bus_id"] == "00000000:19:00.0", h100)
            check(h100["hostname"] == "node-under-test", h100)
            check(by_device["nvidia0"]["value"][1] == "0.87", by_device["nvidia0"])
            power = query(prom, 'xpuperf_power_watts{device="nvidia0"}')
            check(power and abs(float(power[0]["value"][1]) - 350.125) < 1e-9, f"power: {power}")
            tpu = query(prom, 'xpuperf_memory_used_bytes{device="tpu1"}')
            check(tpu and float(tpu[0]["value"][1]) == 8589934592, f"TPU HBM used: {tpu}")
            cpu = query(prom, 'xpuperf_memory_total_bytes{backend="cpu"}')
            check(cpu and float(cpu[0]["value"][1]) > 0, f"CPU memory total: {cpu}")
            # The fake H100's energy counter is frozen at 123456.789 J while it draws 350 W: the
            # exported counter starts there and grows by ∫ power dt, and says so.
            energy = query(prom, 'xpuperf_energy_joules_total{device="nvidia0"}')
            check(energy and float(energy[0]["value"][1]) > 123456.789,
                  f"energy counter: {energy}")
            source = query(prom, 'xpuperf_energy_source_info{device="nvidia0"}')
            check(source and source[0]["metric"]["source"] == "power_integral"
                  and source[0]["metric"]["verdict"] == "stalled", f"energy source: {source}")
            for backend in ("cpu", "nvidia", "tpu"):
                c = query(prom, f'xpuperf_collector_up{{backend="{backend}"}}')
                check(c and c[0]["value"][1] == "1", f"collector {backend}: {c}")
            info = query(prom, 'xpuperf_device_info{device="tpu0"}')
            check(info and info[0]["metric"]["backend"] == "tpu", f"device info: {info}")
            check(query(prom, "xpuperf_build_info"), "build info")

            # histogram_quantile over the TPU's HLO execution time (libtpu us -> s): the fake's
            # chip 0 has 10 in [128,256) us, 80 in [256,512), 10 in [512,1024): p50 = 384 us.
            p50 = query(prom, 'histogram_quantile(0.5, xpuperf_op_execution_time_seconds_bucket'
                              '{device="tpu0"})')
            check(p50 and abs(float(p50[0]["value"][1]) - 384e-6) < 1e-12, f"p50: {p50}")
            latency = query(prom, 'histogram_quantile(0.5, xpuperf_transfer_latency_seconds_bucket'
                                  '{device="tpu0",buffer_size="1MB+"})')
            check(latency and abs(float(latency[0]["value"][1]) - 850e-6) < 1e-12,
                  f"transfer latency p50: {latency}")

            # Every query of the shipped dashboard returns data.
            for expr in dashboard_queries(args.dashboard):
                result = query(prom, concrete(expr))
                check(result, f"dashboard query returned no data: {expr}")
            print(f"ok: {len(dashboard_queries(args.dashboard))} dashboard queries, "
                  f"{len(parse_exposition(text))} samples per scrape")
        finally:
            prom_process.terminate()
            prom_process.wait(20)
            prom_log.close()
    finally:
        serve.stop()
        for child in (job, kubelet):
            child.kill()
            child.wait()
        shutil.rmtree(prom_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
