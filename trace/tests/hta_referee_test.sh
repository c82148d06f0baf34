#!/usr/bin/env bash
# ctest: HTA itself (requirements/hta.txt, in a cached virtual environment) against
# `xpuperf analyze --convention hta` on every trace of the shared folder and on generated traces.
#   hta_referee_test.sh XPUPERF TRACE_DIR [--include-last-profiler-step]
# Exit 0 agree, 1 a difference, 77 (skip) when TRACE_DIR is absent: then only generated traces
# would be left, and the real ones are the point.
set -euo pipefail
xpuperf=${1:?usage: hta_referee_test.sh XPUPERF TRACE_DIR}
trace_dir=${2:?usage: hta_referee_test.sh XPUPERF TRACE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$trace_dir" ]; then
  echo "SKIP: shared traces not found at $trace_dir (set -DXPUPERF_TRACE_DIR)"
  exit 77
fi
venv=$(bash "$here/../../scripts/python-env.sh" hta)
traces=()
for f in "$trace_dir"/*.json "$trace_dir"/*.json.gz; do
  [ -f "$f" ] || continue
  case $f in *memory_timeline*) continue ;; esac  # a memory-timeline export, not a trace
  traces+=("$f")
done
exec "$venv/bin/python" "$here/hta_referee.py" "$xpuperf" "${@:3}" --generated 8 "${traces[@]}"
