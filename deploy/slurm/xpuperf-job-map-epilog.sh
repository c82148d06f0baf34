#!/bin/sh
# Slurm Epilog (slurm.conf: Epilog=/usr/lib/xpuperf/xpuperf-job-map-epilog.sh): removes the job
# that xpuperf-job-map-prolog.sh wrote from every GPU file of the mapping directory (a file left
# empty is removed) and its `.jobs/<job id>`. Never fails the job.
dir=${XPUPERF_JOB_MAP_DIR:-/run/xpuperf/job-map}
job=${SLURM_JOB_ID:-}
case $job in '' | *[!0-9_+]*) exit 0 ;; esac
[ -d "$dir" ] || exit 0
exec 9>"$dir/.lock"
flock 9
for file in "$dir"/*; do
  [ -f "$file" ] || continue
  grep -qx "$job" "$file" || continue
  grep -vx "$job" "$file" >"$dir/.rewrite.tmp"
  if [ -s "$dir/.rewrite.tmp" ]; then
    mv -f "$dir/.rewrite.tmp" "$file"
  else
    rm -f "$dir/.rewrite.tmp" "$file"
  fi
done
rm -f "$dir/.jobs/$job"
exit 0
