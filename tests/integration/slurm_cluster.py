"""A one-node Slurm cluster for integration tests: Debian's slurmctld and slurmd (22.05) with munge,
on loopback in a temporary directory, started and stopped by the test. Needs root (slurmd and
munged); `Cluster.missing()` names what is not installed.

    with Cluster(extra_conf=..., node_conf=...) as cluster:
        job = cluster.sbatch(["--wrap", "sleep 60"])
        cluster.wait_until(lambda: cluster.job_state(job) == "RUNNING", 60, "the job to run")
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

NODE = "xpnode"
TOOLS = ("slurmctld", "slurmd", "munged", "scontrol", "sbatch", "squeue", "scancel")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, what, log=None):
    """predicate()'s first true value within `timeout` seconds, else AssertionError naming `what`
    with the end of `log`."""
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


def tools():
    path = "/usr/sbin:/usr/bin:" + os.environ.get("PATH", "")
    return {name: shutil.which(name, path=path) for name in TOOLS}


class Cluster:
    """slurm.conf holds the settings every test needs; `extra_conf` adds lines (Prolog=...,
    GresTypes=...), `node_conf` is appended to the NodeName line (Gres=gpu:1), `files` are
    written next to slurm.conf (gres.conf, cgroup.conf)."""

    def __init__(self, extra_conf="", node_conf="", files=None, proctrack="proctrack/linuxproc",
                 select="select/linear"):
        self.tools = tools()
        self.work = tempfile.mkdtemp(prefix="xpuperf-slurm-")
        os.chmod(self.work, 0o755)
        self.env = dict(os.environ, SLURM_CONF=os.path.join(self.work, "slurm.conf"))
        self.children = []
        self.jobs = []
        self.extra_conf = extra_conf
        self.node_conf = node_conf
        self.files = files or {}
        self.proctrack = proctrack
        self.select = select

    def missing(self):
        return [name for name, path in self.tools.items() if not path]

    def path(self, name):
        return os.path.join(self.work, name)

    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _start(self):
        key = self.path("munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = self.path("munge.socket")
        self.children.append(subprocess.Popen(
            [self.tools["munged"], "--foreground", "--force", f"--key-file={key}",
             f"--socket={self.munge_socket}", f"--pid-file={self.work}/munged.pid",
             f"--log-file={self.work}/munged.log", f"--seed-file={self.work}/munged.seed"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_until(lambda: os.path.exists(self.munge_socket), 30, "munged's socket")
        for d in ("state", "spool"):
            os.makedirs(self.path(d))
        for name, text in self.files.items():
            with open(self.path(name), "w") as f:
                f.write(text)
        w = self.work
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write(f"""ClusterName=xpuperf
SlurmctldHost={socket.gethostname()}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={w}/state
SlurmdSpoolDir={w}/spool
SlurmctldPidFile={w}/slurmctld.pid
SlurmdPidFile={w}/slurmd.pid
SlurmctldLogFile={w}/slurmctld.log
SlurmdLogFile={w}/slurmd.log
ProctrackType={self.proctrack}
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType={self.select}
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
{self.extra_conf}
NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={socket.gethostname()} CPUs={os.cpu_count()} {self.node_conf} State=UNKNOWN
PartitionName=debug Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
""")
        self.children.append(subprocess.Popen([self.tools["slurmctld"], "-D", "-i", "-c"],
                                              env=self.env, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
        self.children.append(subprocess.Popen([self.tools["slurmd"], "-D", "-N", NODE],
                                              env=self.env, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
        wait_until(lambda: "State=IDLE" in self.node() and "DRAIN" not in self.node(), 90,
                   "the node to register idle", self.path("slurmd.log"))

    def run(self, tool, args, timeout=30):
        return subprocess.run([self.tools[tool]] + args, env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def node(self):
        r = self.run("scontrol", ["show", "node", NODE, "-o"])
        return r.stdout if r.returncode == 0 else ""

    def sbatch(self, args):
        r = self.run("sbatch", ["--parsable", "-w", NODE, "-o", "/dev/null"] + args)
        assert r.returncode == 0, f"sbatch: {r.stderr}"
        job = r.stdout.strip().split(";")[0]
        self.jobs.append(job)
        return job

    def job_state(self, job):
        return self.run("squeue", ["-h", "-j", job, "-o", "%T"]).stdout.strip()

    def cancel(self, job):
        self.run("scancel", [job])
        wait_until(lambda: self.job_state(job) in ("", "COMPLETED", "CANCELLED"), 60,
                   "the job to end after scancel", self.path("slurmd.log"))

    def __exit__(self, *exc):
        for job in self.jobs:  # a job's step would outlive the daemons
            try:
                self.cancel(job)
            except Exception as e:
                print(f"cancelling job {job}: {e}")
        for child in reversed(self.children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(15)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
        subprocess.run(["pkill", "-f", f"{self.work}/"], check=False)
        shutil.rmtree(self.work, ignore_errors=True)
        return False
