"""Pod labels from a fake kubelet pod-resources server (the kubelet's v1 proto, and v1alpha1 for
an old kubelet): a GPU held by a pod carries pod/namespace/container; a pod that goes away takes
its labels with it; the socket disappearing leaves the exporter serving, without pod labels."""
import argparse
import os
import subprocess
import sys
import tempfile
import shutil

from serve_harness import Serve, check, common_arguments, parse_exposition, series, wait_until

H100 = "GPU-5d1a8b2c-7e3f-4a6b-9c0d-1e2f3a4b5c6d"


def start_kubelet(binary, socket_path, scenario, *flags):
    p = subprocess.Popen([binary, socket_path, scenario, *flags], stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "listening", "fake kubelet did not start")
    return p


def duty(serve, device):
    samples = parse_exposition(serve.http().get("/metrics")[2].decode())
    return series(samples, "xpuperf_duty_cycle_ratio", device=device)


def pods_of(found):
    return sorted(dict(labels).get("pod", "") for labels in found)


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    parser.add_argument("--fake-kubelet", required=True)
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
        wait_until(lambda: pods_of(duty(serve, "nvidia1")) == ["infer-1", "infer-2"], 30,
                   "the time-sliced GPU shared by two pods")
        wait_until(lambda: pods_of(duty(serve, "tpu0")) == ["tpu-job"], 30,
                   "TPU chip 0 held by tpu-job")
        check(all(("pod", "noise") not in l for l in duty(serve, "nvidia0")),
              "other resource names are not attributed")

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
        print("ok")
    finally:
        serve.stop()
        kubelet.kill()
        kubelet.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
