"""Pod labels from a fake kubelet pod-resources server (the kubelet's v1 proto, and v1alpha1 for
an old kubelet): a GPU held by a pod carries pod/namespace/container; a pod that goes away takes
its labels with it; the socket disappearing leaves the exporter serving, without pod labels. With
an H100 in MIG mode (--mig-scenario), pods holding MIG devices (by MIG UUID, and by GKE's
nvidia0/gi9) label those MIG devices' series, which carry dcgm-exporter's GPU_I_ID/GPU_I_PROFILE
beside the GPU's own, unattributed, series."""
import argparse
import copy
import os
import subprocess
import sys
import tempfile
import shutil

from serve_harness import (Serve, check, common_arguments, parse_exposition, series,
                           start_kubelet, wait_until)

H100 = "GPU-5d1a8b2c-7e3f-4a6b-9c0d-1e2f3a4b5c6d"
MIG_3G = "MIG-2a4c6e8f-1b3d-5f70-9a2b-4c6d8e0f1a2b"  # nvidia0/gi1/ci0 in mig.conf


def duty(serve, device):
    samples = parse_exposition(serve.http().get("/metrics")[2].decode())
    return series(samples, "xpuperf_duty_cycle_ratio", device=device)


def pods_of(found):
    return sorted(dict(labels).get("pod", "") for labels in found)


def holders(serve, device):
    samples = parse_exposition(serve.http().get("/metrics")[2].decode())
    return series(samples, "xpuperf_device_pod_info", device=device)


def memory_used(serve, device):
    samples = parse_exposition(serve.http().get("/metrics")[2].decode())
    return series(samples, "xpuperf_memory_used_bytes", device=device)


def check_mig(args, work):
    """Pods holding MIG devices label those MIG devices, not their GPU."""
    socket_path = os.path.join(work, "kubelet-mig.sock")
    scenario = os.path.join(work, "mig-pods.txt")
    with open(scenario, "w") as f:
        f.write(f"ml train-0 trainer nvidia.com/mig-3g.40gb {MIG_3G}\n"
                "serving infer-9 server nvidia.com/mig-1g.10gb nvidia0/gi9\n")
    kubelet = start_kubelet(args.fake_kubelet, socket_path, scenario)
    mig_args = copy.copy(args)
    mig_args.nvml_scenario = args.mig_scenario
    serve = Serve(mig_args,
                  extra_args=["--pod-resources-socket", socket_path, "--pod-refresh", "0.3"])
    try:
        found = wait_until(lambda: memory_used(serve, "nvidia0/gi1/ci0"), 30,
                           "the MIG device's memory series")
        found = wait_until(lambda: [l for l in memory_used(serve, "nvidia0/gi1/ci0")
                                    if ("pod", "train-0") in l], 30, "pod labels by MIG UUID")
        labels = dict(found[0])
        want = {"uuid": MIG_3G, "GPU_I_ID": "1", "GPU_I_PROFILE": "3g.40gb", "parent_uuid": H100,
                "parent_device": "nvidia0", "namespace": "ml", "container": "trainer"}
        check(all(labels.get(k) == v for k, v in want.items()), labels)
        check(memory_used(serve, "nvidia0/gi1/ci0")[found[0]] == 4294967296, "MIG memory used")
        wait_until(lambda: pods_of(memory_used(serve, "nvidia0/gi9/ci0")) == ["infer-9"], 30,
                   "pod labels by GKE's nvidia0/gi9")
        gpu = memory_used(serve, "nvidia0")
        check(pods_of(gpu) == [""] and all(("GPU_I_ID", "1") not in l for l in gpu),
              f"the GPU in MIG mode keeps its own series without pods: {gpu}")
        # train-0 goes away: its MIG device loses the labels, the other keeps them.
        with open(scenario, "w") as f:
            f.write("serving infer-9 server nvidia.com/mig-1g.10gb nvidia0/gi9\n")
        wait_until(lambda: pods_of(memory_used(serve, "nvidia0/gi1/ci0")) == [""], 30,
                   "train-0 to vanish")
        check(pods_of(memory_used(serve, "nvidia0/gi9/ci0")) == ["infer-9"], "infer-9 stays")
    finally:
        serve.stop()
        kubelet.kill()
        kubelet.wait()


POD_UIDS = ["0f5c2f5e-7c1d-4b7a-9d55-1e0f3c2b9a10", "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"]


def check_process_pods(args, work):
    """Two pods share nvidia1 (time-slicing): two real processes, each in its pod's container
    cgroup (cgroup v1 freezer, as the kubelet's cgroupfs driver makes them), are the GPU's
    processes; the kubelet's pod list comes over HTTPS with a bearer token. Each process's series
    carries its own pod. Root only (cgroups)."""
    if os.geteuid() != 0 or not os.path.isdir("/sys/fs/cgroup/freezer"):
        print("process pods: skipped (needs root and the cgroup v1 freezer hierarchy)")
        return
    import http.server
    import json
    import ssl
    import threading
    base = f"/sys/fs/cgroup/freezer/kubepods-xpuperf-{os.getpid()}"
    containers = ["%064x" % (0xabc0 + i) for i in range(2)]
    processes, groups = [], []
    token = os.path.join(work, "token")
    with open(token, "w") as f:
        f.write("kubelet-token\n")
    cert, key = os.path.join(work, "kubelet.crt"), os.path.join(work, "kubelet.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    pod_list = {"kind": "PodList", "items": [
        {"metadata": {"name": f"infer-{i + 1}", "namespace": "serving", "uid": POD_UIDS[i],
                      "labels": {"app.kubernetes.io/name": f"llm-{i + 1}", "secret": "no"}},
         "status": {"containerStatuses": [
             {"name": "server", "containerID": f"containerd://{containers[i]}"}]}}
        for i in range(2)]}

    class Kubelet(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.headers.get("Authorization") != "Bearer kubelet-token":
                self.send_response(401)
                self.end_headers()
                return
            body = json.dumps(pod_list).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Kubelet)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    serve = None
    socket_path = os.path.join(work, "kubelet-shared.sock")
    resources = os.path.join(work, "shared-pods.txt")
    with open(resources, "w") as f:
        f.write("serving infer-1 server nvidia.com/gpu nvidia1::0\n"
                "serving infer-2 server nvidia.com/gpu nvidia1::1\n")
    kubelet = start_kubelet(args.fake_kubelet, socket_path, resources)
    try:
        for i in range(2):
            group = os.path.join(base, f"pod{POD_UIDS[i]}", containers[i])
            os.makedirs(group)
            groups.append(group)
            p = subprocess.Popen(["sleep", "600"])
            processes.append(p)
            with open(os.path.join(group, "cgroup.procs"), "w") as f:
                f.write(str(p.pid))
        scenario = os.path.join(work, "shared.conf")
        shutil.copy(args.nvml_scenario, scenario)
        processes_file = os.path.join(work, "gpu1-processes")
        with open(processes_file, "w") as f:
            f.write(",".join(f"{p.pid}:{(i + 1) << 30}" for i, p in enumerate(processes)) + "\n")
        with open(scenario, "a") as f:
            f.write(f"\ngpu.1.processes_file = {processes_file}\n")
        serve = Serve(args, extra_args=[
            "--kubelet-pods-url", f"https://127.0.0.1:{server.server_port}/pods",
            "--kubelet-ca-file", cert, "--kubelet-token-file", token, "--pod-refresh", "0.3",
            "--pod-label", "app.kubernetes.io/name", "--pod-resources-socket", socket_path],
            env={"XPUPERF_FAKE_NVML_SCENARIO": scenario})

        def process_pods():
            samples = parse_exposition(serve.http().get("/metrics")[2].decode())
            found = series(samples, "xpuperf_process_memory_bytes", device="nvidia1")
            return {dict(l).get("pid"): (dict(l).get("pod"), dict(l).get("container"))
                    for l in found}

        want = {str(processes[0].pid): ("infer-1", "server"),
                str(processes[1].pid): ("infer-2", "server")}
        wait_until(lambda: process_pods() == want, 30, f"each process's pod {want}")
        # The allowed pod label on the join series (and no other).
        labelled = wait_until(lambda: {dict(l).get("pod"): dict(l).get(
            "label_app_kubernetes_io_name") for l in holders(serve, "nvidia1")}, 30,
            "pod labels on xpuperf_device_pod_info")
        check(labelled == {"infer-1": "llm-1", "infer-2": "llm-2"}, labelled)
        check(all("label_secret" not in dict(l) for l in holders(serve, "nvidia1")),
              "a pod label that was not asked for")
        check("kubelet pods" not in serve.log_text(), serve.log_text())
    finally:
        if serve is not None:
            serve.stop()
        server.shutdown()
        kubelet.kill()
        kubelet.wait()
        for p in processes:
            p.kill()
            p.wait()
        for group in groups:
            os.rmdir(group)
            os.rmdir(os.path.dirname(group))
        if os.path.isdir(base):
            os.rmdir(base)
    print("process pods: each process of the shared GPU labelled with its own pod")


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    parser.add_argument("--fake-kubelet", required=True)
    parser.add_argument("--mig-scenario", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="xpuperf-kubelet-")
    socket_path = os.path.join(work, "kubelet.sock")
    scenario = os.path.join(work, "pods.txt")
    with open(scenario, "w") as f:
        f.write(f"ml train-0 trainer nvidia.com/gpu {H100}\n"
                "serving infer-1 server nvidia.com/gpu nvidia1::0\n"
                "serving infer-2 server nvidia.com/gpu nvidia1::1\n"
                "jax tpu-job main google.com/tpu 0\n"
                "other noise app example.com/fpga nvidia0\n")
    kubelet = start_kubelet(args.fake_kubelet, socket_path, scenario)
    serve = Serve(args, extra_args=["--pod-resources-socket", socket_path, "--pod-refresh", "0.3"])
    try:
        found = wait_until(lambda: [l for l in duty(serve, "nvidia0") if ("pod", "train-0") in l],
                           20, "pod labels on nvidia0")
        labels = dict(found[0])
        check(labels["namespace"] == "ml" and labels["container"] == "trainer", labels)
        # Each collector assembles its own snapshot: wait for the TPU's and the other GPU's too.
        # The time-sliced GPU shared by two pods: its series once, without pod labels, and
        # xpuperf_device_pod_info naming both.
        wait_until(lambda: pods_of(holders(serve, "nvidia1")) == ["infer-1", "infer-2"], 30,
                   "the time-sliced GPU shared by two pods")
        check(pods_of(duty(serve, "nvidia1")) == [""],
              f"a shared GPU's series repeated per pod: {duty(serve, 'nvidia1')}")
        wait_until(lambda: pods_of(duty(serve, "tpu0")) == ["tpu-job"], 30,
                   "TPU chip 0 held by tpu-job")
        check(all(("pod", "noise") not in l for l in duty(serve, "nvidia0")),
              "other resource names are not attributed")
        # Energy per pod: nvidia0's increases go to train-0, the pod holding it.
        wait_until(lambda: [v for v in series(parse_exposition(
            serve.http().get("/metrics")[2].decode()), "xpuperf_pod_energy_joules_total",
            pod="train-0", namespace="ml").values() if v > 0], 60, "train-0's energy")

        # infer-2 goes away.
        with open(scenario, "w") as f:
            f.write(f"ml train-0 trainer nvidia.com/gpu {H100}\n"
                    "serving infer-1 server nvidia.com/gpu nvidia1::0\n")
        wait_until(lambda: pods_of(duty(serve, "nvidia1")) == ["infer-1"], 30, "infer-2 to vanish")

        # The kubelet restarts as an old one (v1alpha1 only).
        kubelet.kill()
        kubelet.wait()
        os.unlink(socket_path)
        wait_until(lambda: pods_of(duty(serve, "nvidia0")) == [""], 30,
                   "no pod labels while the socket is gone")
        check(serve.http().get("/health")[0] == 200, "the exporter goes on without the kubelet")
        kubelet = start_kubelet(args.fake_kubelet, socket_path, scenario, "--v1alpha1-only")
        wait_until(lambda: pods_of(duty(serve, "nvidia0")) == ["train-0"], 30,
                   "pod labels again through v1alpha1")
        # A node with 5,000 pods: the kubelet's answer is above gRPC's default 4 MiB
        # (dcgm-exporter#509). The GPU changes hands inside it, so a refused answer (which keeps
        # the last mapping) would leave train-0 on it.
        with open(scenario + ".new", "w") as f:
            # Each pod: 8 containers of 6 devices; about 1.6 KB of answer per pod, 8 MB in all.
            for i in range(5000):
                for c in range(8):
                    ids = ",".join(f"GPU-{i:08d}-{c}-{d}" for d in range(6))
                    f.write(f"namespace-{i % 50:02d}-{'n' * 40} pod-{i:05d}-{'p' * 150} "
                            f"container-{c}-{'c' * 40} nvidia.com/gpu {ids}\n")
            f.write(f"ml big-node-holder trainer nvidia.com/gpu {H100}\n")
        os.replace(scenario + ".new", scenario)
        wait_until(lambda: pods_of(duty(serve, "nvidia0")) == ["big-node-holder"], 60,
                   "the GPU's pod from a 5,000-pod answer")
        serve.stop()
        check_mig(args, work)
        check_process_pods(args, work)
        print("ok")
    finally:
        serve.stop()
        kubelet.kill()
        kubelet.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
