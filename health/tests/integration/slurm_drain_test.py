"""`xpuperf health --drain --resume` as a real Slurm node's HealthCheckProgram: Debian's slurmctld and
slurmd (22.05) with munge, a one-node cluster on loopback in a temporary directory. The fake NVML
GPU is lost while a job runs: the node is drained with xpuperf's reason and the job is not killed;
the GPU comes back: the node is resumed. Then the post-repair gate: with `health --drain` alone the
node stays drained after the GPU's return until `xpuperf diag -r 1 --resume` passes (and not while
it fails). Skipped (77) without root or the Slurm and munge daemons.

  slurm_drain_test.py --xpuperf XPUPERF --fake-nvml LIBNVIDIA_ML
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "integration"))
from slurm_cluster import NODE, Cluster, wait_until  # noqa: E402


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--fake-nvml", required=True)
    parser.add_argument("--no-diag", action="store_true",
                        help="a build without `diag` (no benchmarks): skip the post-repair gate")
    args = parser.parse_args()
    if os.geteuid() != 0:
        skip("slurmd and munged need root here")
    cluster = Cluster()
    if cluster.missing():
        shutil.rmtree(cluster.work, ignore_errors=True)
        skip(f"not installed: {', '.join(cluster.missing())} (apt-get install slurm-wlm munge)")
    work = cluster.work
    # The fake GPU, lost while the file `lose` exists; the health check runs as slurmd's
    # HealthCheckProgram every 2 s.
    lose = os.path.join(work, "lose")
    scenario = os.path.join(work, "gpu.conf")
    with open(scenario, "w") as f:
        f.write("driver_version = 550.54.15\n"
                "gpu.0.name = NVIDIA H100 80GB HBM3\n"
                "gpu.0.uuid = GPU-11111111-2222-3333-4444-555555555555\n"
                "gpu.0.bus_id = 00000000:3B:00.0\n"
                "gpu.0.memory_total = 85520809984\n"
                "gpu.0.memory_used = 0\n"
                "gpu.0.utilization_gpu = 0\n"
                f"gpu.0.lost_when_file = {lose}\n")
    health_log = os.path.join(work, "health.log")
    check = os.path.join(work, "health-check.sh")
    scontrol = cluster.tools["scontrol"]
    with open(check, "w") as f:
        f.write("#!/bin/sh\n"
                f"export SLURM_CONF={cluster.env['SLURM_CONF']}\n"
                f"export XPUPERF_NVML_LIBRARY={args.fake_nvml}\n"
                f"export XPUPERF_FAKE_NVML_SCENARIO={scenario}\n"
                f"exec {args.xpuperf} health --drain --resume --node {NODE} "
                f"--backend nvidia --window 0 --scontrol {scontrol} "
                f">> {health_log} 2>&1\n")
    os.chmod(check, 0o755)
    cluster.extra_conf = (f"HealthCheckProgram={check}\nHealthCheckInterval=2\n"
                          "HealthCheckNodeState=ANY\n")
    with cluster:
        env = cluster.env
        node = cluster.node
        job_id = cluster.sbatch(["--wrap", "sleep 600"])

        def job_state():
            return cluster.job_state(job_id)

        wait_until(lambda: job_state() == "RUNNING", 60, "the job to run",
                   cluster.path("slurmd.log"))

        open(lose, "w").close()
        drained = wait_until(lambda: node() if "DRAIN" in node() else None, 60,
                             "xpuperf to drain the node", health_log)
        assert "Reason=xpuperf: nvidia0 DRIVER_DEVICE_LOST (reset_device)" in drained, drained
        assert job_state() == "RUNNING", f"the running job was killed: {job_state()!r}"

        os.remove(lose)
        wait_until(lambda: "DRAIN" not in node() and "State=" in node(), 60,
                   "xpuperf to resume the node", health_log)
        with open(health_log) as f:
            log = f.read()
        assert f"drained node {NODE}" in log and f"resumed node {NODE}" in log, log
        assert job_state() == "RUNNING", f"the job did not survive: {job_state()!r}"

        if args.no_diag:
            print("ok: drained with xpuperf's reason, the job kept running, resumed after "
                  "recovery (this build has no diag: its gate not tested)")
            return 0

        # The post-repair gate: the health check drains only; a diagnostic resumes.
        with open(check) as f:
            script = f.read()
        with open(check, "w") as f:
            f.write(script.replace(" --resume", ""))
        open(lose, "w").close()
        wait_until(lambda: "DRAIN" in node(), 60, "the node drained again", health_log)
        tree = os.path.join(work, "tree")
        os.makedirs(os.path.join(tree, "dev"))
        for name in ("nvidiactl", "nvidia-uvm", "nvidia0"):
            open(os.path.join(tree, "dev", name), "w").close()
        diag_env = dict(env, XPUPERF_NVML_LIBRARY=args.fake_nvml,
                        XPUPERF_FAKE_NVML_SCENARIO=scenario)
        diag_command = [args.xpuperf, "diag", "-r", "1", "--resume", "--node", NODE, "--backend",
                        "nvidia", "--root", tree, "--scontrol", scontrol]
        failing = subprocess.run(diag_command + ["--out", os.path.join(work, "diag-1")],
                                 env=diag_env, capture_output=True, text=True, timeout=120)
        assert failing.returncode == 1, f"diag with the GPU lost: {failing.returncode} {failing.stderr}"
        assert "stays drained" in failing.stderr, failing.stderr
        assert "DRAIN" in node(), "a failing diagnostic resumed the node"
        os.remove(lose)
        time.sleep(5)  # health checks run, the GPU is back: still drained without --resume
        assert "DRAIN" in node(), "health --drain alone resumed the node"
        passing = subprocess.run(diag_command + ["--out", os.path.join(work, "diag-2")],
                                 env=diag_env, capture_output=True, text=True, timeout=120)
        assert passing.returncode == 0, f"diag after the repair: {passing.returncode} {passing.stdout} {passing.stderr}"
        assert f"resumed node {NODE}" in passing.stderr, passing.stderr
        wait_until(lambda: "DRAIN" not in node() and "State=" in node(), 30,
                   "diag --resume to resume the node")
        print("ok: drained with xpuperf's reason, the job kept running, resumed after recovery; "
              "diag -r 1 --resume resumed only once it passed")
        return 0


if __name__ == "__main__":
    sys.exit(main())
