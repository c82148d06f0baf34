"""Slurm jobs in `xpuperf serve` against a real Slurm: Debian's slurmctld and slurmd (22.05) with
munge, a one-node cluster on loopback whose node has one GPU as GRES (a character device standing
for /dev/nvidia0), proctrack/cgroup, and xpuperf's prolog and epilog (deploy/slurm/) writing the
job mapping directory. A batch job "opens" the fake NVML's GPU 0 (its pid becomes one of the GPU's
processes). Both ways find it in /metrics: xpuperf_job_info from the mapping directory (with user
and partition) and from the process's cgroup, and job_id (and, with --process-env-labels, the
job's RANK and SLURM_JOB_ID) on the process's series, and its energy counter; after scancel,
the job and its labels are gone and its energy counter stays. Skipped (77) without root or the Slurm and munge daemons."""
import argparse
import os
import shutil
import stat
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tests", "integration"))
from serve_harness import Serve, check, common_arguments, scrape, series  # noqa: E402
from slurm_cluster import Cluster, wait_until  # noqa: E402


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def jobs_of(serve, job):
    """xpuperf_job_info's label sets for `job`, as dicts."""
    return [dict(labels) for labels in series(scrape(serve), "xpuperf_job_info", job_id=job)]


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    parser.add_argument("--deploy", required=True, help="deploy/slurm of the source tree")
    args = parser.parse_args()
    if os.geteuid() != 0:
        skip("slurmd and munged need root here")
    cluster = Cluster()
    shutil.rmtree(cluster.work, ignore_errors=True)  # only asked what is installed
    if cluster.missing():
        skip(f"not installed: {', '.join(cluster.missing())} (apt-get install slurm-wlm munge)")

    work = tempfile.mkdtemp(prefix="xpuperf-jobs-")
    os.chmod(work, 0o755)
    device = os.path.join(work, "nvidia0")  # slurmd wants a character device for a GPU's File
    os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    job_map = os.path.join(work, "job-map")
    for name in ("prolog", "epilog"):
        with open(os.path.join(work, f"{name}.sh"), "w") as f:
            f.write(f"#!/bin/sh\nexport XPUPERF_JOB_MAP_DIR={job_map}\n"
                    f"exec /bin/sh {args.deploy}/xpuperf-job-map-{name}.sh\n")
        os.chmod(os.path.join(work, f"{name}.sh"), 0o755)
    processes = os.path.join(work, "gpu0-processes")
    scenario = os.path.join(work, "gpus.conf")
    shutil.copy(args.nvml_scenario, scenario)
    with open(scenario, "a") as f:
        f.write(f"\ngpu.0.processes_file = {processes}\n")

    serve = None
    try:
        with Cluster(extra_conf=f"GresTypes=gpu\nProlog={work}/prolog.sh\nEpilog={work}/epilog.sh\n",
                     node_conf="Gres=gpu:1",
                     files={"gres.conf": f"NodeName=xpnode Name=gpu File={device}\n",
                            "cgroup.conf": "CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n"
                                           "CgroupMountpoint=/sys/fs/cgroup\n"},
                     proctrack="proctrack/cgroup", select="select/cons_tres") as slurm:
            serve = Serve(args, extra_args=["--job-mapping-dir", job_map, "--slurm-jobs",
                                            "--job-refresh", "0.3", "--process-env-labels"],
                          env={"XPUPERF_FAKE_NVML_SCENARIO": scenario})
            job = slurm.sbatch(["--gres=gpu:1", "--wrap",
                                f"export RANK=3; echo \"$$:1073741824\" > {processes}; "
                                "exec sleep 600"])
            wait_until(lambda: slurm.job_state(job) == "RUNNING", 60, "the job to run",
                       slurm.path("slurmd.log"))

            # The mapping directory: the prolog wrote the job on GPU 0, with user and partition.
            mapped = wait_until(
                lambda: [j for j in jobs_of(serve, job) if j.get("source") == "mapping_dir"],
                60, f"job {job} from the mapping directory", slurm.path("slurmd.log"))
            check(mapped[0]["device"] == "nvidia0" and mapped[0]["user"] == "root" and
                  mapped[0]["partition"] == "debug", mapped)
            # The process's cgroup (user and partition from its environment).
            found = wait_until(
                lambda: [j for j in jobs_of(serve, job) if j.get("source") == "cgroup"],
                60, f"job {job} from its process's cgroup")
            check(found[0]["device"] == "nvidia0" and found[0]["user"] == "root" and
                  found[0]["partition"] == "debug", found)
            memory = series(scrape(serve), "xpuperf_process_memory_bytes", job_id=job)
            check(len(memory) == 1 and list(memory.values())[0] == 1073741824, memory)
            # Its workload identity from the environment (--process-env-labels).
            identity = dict(list(memory.keys())[0])
            check(identity.get("env_rank") == "3" and identity.get("env_slurm_job_id") == job,
                  identity)
            check(series(scrape(serve), "xpuperf_job_mapping_up") and
                  list(series(scrape(serve), "xpuperf_job_mapping_up").values()) == [1.0],
                  "xpuperf_job_mapping_up")

            # Its energy: the GPU's increases while it held it (the fake GPU draws power; no
            # process reports busy time, so the one job on it gets all of it).
            energy = wait_until(
                lambda: [v for v in series(scrape(serve), "xpuperf_job_energy_joules_total",
                                           job_id=job).values() if v > 0],
                60, f"job {job}'s energy")
            check(len(energy) == 1, energy)

            # The job ends: the epilog empties the mapping and its process is gone.
            slurm.cancel(job)
            slurm.jobs.remove(job)
            wait_until(lambda: not jobs_of(serve, job), 60, f"job {job} to leave /metrics",
                       slurm.path("slurmd.log"))
            check(not series(scrape(serve), "xpuperf_process_memory_bytes", job_id=job),
                  "job_id left on a process series")
            # The energy counter stays (a counter does not vanish with its job; it is dropped
            # after an hour without increase).
            check(series(scrape(serve), "xpuperf_job_energy_joules_total", job_id=job),
                  "the job's energy counter vanished with the job")
            check(not [n for n in os.listdir(job_map) if not n.startswith(".")],
                  f"the epilog left {os.listdir(job_map)}")
        print(f"ok: job {job} on nvidia0 from the mapping directory and from its cgroup, with "
              "user and partition; gone after scancel")
        return 0
    finally:
        if serve is not None:
            serve.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
