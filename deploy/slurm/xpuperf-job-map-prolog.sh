#!/bin/sh
# Slurm Prolog (slurm.conf: Prolog=/usr/lib/xpuperf/xpuperf-job-map-prolog.sh; slurmd runs it as
# root on each node of a job before the job starts). Writes which job holds which GPU for
# `xpuperf serve --job-mapping-dir /run/xpuperf/job-map`, in dcgm-exporter's
# --hpc-job-mapping-dir layout (a file per GPU index holding the job ids, one per line), so either
# exporter reads it; `.jobs/<job id>` adds the user and the partition (dcgm-exporter ignores it).
# The GPUs are the job's GRES (SLURM_JOB_GPUS), else CUDA_VISIBLE_DEVICES or GPU_DEVICE_ORDINAL.
# Its epilog is xpuperf-job-map-epilog.sh. A mapping that cannot be written never fails the job:
# the script says why on stderr (slurmd's log) and exits 0.
dir=${XPUPERF_JOB_MAP_DIR:-/run/xpuperf/job-map}
job=${SLURM_JOB_ID:-}
case $job in '' | *[!0-9_+]*) exit 0 ;; esac
gpus=${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-${GPU_DEVICE_ORDINAL:-}}}
[ -n "$gpus" ] || exit 0
umask 022
mkdir -p "$dir/.jobs" || { echo "xpuperf job map: cannot create $dir" >&2; exit 0; }
name() { # a user or partition name as xpuperf keeps it, else nothing
  case $1 in '' | *[!A-Za-z0-9._-]*) ;; *) printf '%s' "$1" ;; esac
}
{
  printf 'user=%s\n' "$(name "${SLURM_JOB_USER:-}")"
  printf 'partition=%s\n' "$(name "${SLURM_JOB_PARTITION:-}")"
} >"$dir/.jobs/.$job.tmp" && mv -f "$dir/.jobs/.$job.tmp" "$dir/.jobs/$job"
# Jobs sharing a GPU start at once: one writer at a time (flock on the directory's lock file).
exec 9>"$dir/.lock"
flock 9
for gpu in $(printf '%s' "$gpus" | tr ',' ' '); do
  case $gpu in '' | *[!0-9]*) continue ;; esac
  grep -qx "$job" "$dir/$gpu" 2>/dev/null || printf '%s\n' "$job" >>"$dir/$gpu"
done
exit 0
