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
import signal
import socket
import subprocess
import sys
import tempfile
import time

NODE = "xpnode"


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, what, log=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    detail = ""
    if log and os.path.exists(log):
        with open(log) as f:
            detail = "\n" + f.read()[-4000:]
    raise AssertionError(f"timed out after {timeout} s waiting for {what}{detail}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--fake-nvml", required=True)
    parser.add_argument("--no-diag", action="store_true",
                        help="a build without `diag` (no benchmarks): skip the post-repair gate")
    args = parser.parse_args()
    if os.geteuid() != 0:
        skip("slurmd and munged need root here")
    tools = {name: shutil.which(name, path="/usr/sbin:/usr/bin:" + os.environ.get("PATH", ""))
             for name in ("slurmctld", "slurmd", "munged", "scontrol", "sbatch", "squeue")}
    missing = [name for name, path in tools.items() if not path]
    if missing:
        skip(f"not installed: {', '.join(missing)} (apt-get install slurm-wlm munge)")

    work = tempfile.mkdtemp(prefix="xpuperf-slurm-")
    os.chmod(work, 0o755)
    children = []
    cancel = []  # what ends the test's job before the daemons stop (its step would outlive them)
    env = dict(os.environ, SLURM_CONF=os.path.join(work, "slurm.conf"))
    try:
        # munge with a key of its own, on a socket of its own.
        key = os.path.join(work, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        munge_socket = os.path.join(work, "munge.socket")
        children.append(subprocess.Popen(
            [tools["munged"], "--foreground", "--force", f"--key-file={key}",
             f"--socket={munge_socket}", f"--pid-file={work}/munged.pid",
             f"--log-file={work}/munged.log", f"--seed-file={work}/munged.seed"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_until(lambda: os.path.exists(munge_socket), 30, "munged's socket")

        # The fake GPU, lost while the file `lose` exists.
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
        with open(check, "w") as f:
            f.write("#!/bin/sh\n"
                    f"export SLURM_CONF={env['SLURM_CONF']}\n"
                    f"export XPUPERF_NVML_LIBRARY={args.fake_nvml}\n"
                    f"export XPUPERF_FAKE_NVML_SCENARIO={scenario}\n"
                    f"exec {args.xpuperf} health --drain --resume --node {NODE} "
                    f"--backend nvidia --window 0 --scontrol {tools['scontrol']} "
                    f">> {health_log} 2>&1\n")
        os.chmod(check, 0o755)

        for d in ("state", "spool"):
            os.makedirs(os.path.join(work, d))
        with open(env["SLURM_CONF"], "w") as f:
            f.write(f"""ClusterName=xpuperf
SlurmctldHost={socket.gethostname()}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={work}/state
SlurmdSpoolDir={work}/spool
SlurmctldPidFile={work}/slurmctld.pid
SlurmdPidFile={work}/slurmd.pid
SlurmctldLogFile={work}/slurmctld.log
SlurmdLogFile={work}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
HealthCheckProgram={check}
HealthCheckInterval=2
HealthCheckNodeState=ANY
NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={socket.gethostname()} CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=debug Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
""")
        children.append(subprocess.Popen([tools["slurmctld"], "-D", "-i", "-c"], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        children.append(subprocess.Popen([tools["slurmd"], "-D", "-N", NODE], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

        def node():
            r = subprocess.run([tools["scontrol"], "show", "node", NODE, "-o"], env=env,
                               capture_output=True, text=True, timeout=30)
            return r.stdout if r.returncode == 0 else ""

        wait_until(lambda: "State=IDLE" in node() and "DRAIN" not in node(), 90,
                   "the node to register idle", f"{work}/slurmctld.log")

        job = subprocess.run([tools["sbatch"], "--parsable", "-w", NODE, "-o", "/dev/null",
                              "--wrap", "sleep 600"], env=env, capture_output=True, text=True,
                             timeout=30)
        assert job.returncode == 0, f"sbatch: {job.stderr}"
        job_id = job.stdout.strip().split(";")[0]

        def job_state():
            r = subprocess.run([tools["squeue"], "-h", "-j", job_id, "-o", "%T"], env=env,
                               capture_output=True, text=True, timeout=30)
            return r.stdout.strip()

        def cancel_job():
            subprocess.run([shutil.which("scancel") or "scancel", job_id], env=env, timeout=30)
            wait_until(lambda: job_state() in ("", "COMPLETED", "CANCELLED"), 60,
                       "the job to end after scancel", f"{work}/slurmd.log")

        cancel.append(cancel_job)
        wait_until(lambda: job_state() == "RUNNING", 60, "the job to run", f"{work}/slurmd.log")

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
                        "nvidia", "--root", tree, "--scontrol", tools["scontrol"]]
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
    finally:
        for end in cancel:
            try:
                end()
            except Exception as e:  # a failed test still stops its daemons
                print(f"cancelling the job: {e}")
        for child in reversed(children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(15)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
        subprocess.run(["pkill", "-f", f"{work}/"], check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
