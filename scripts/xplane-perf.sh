#!/usr/bin/env bash
# The .xplane.pb reader's speed on a real XSpace, next to xprof's reader (XLA's own tools), in one
# run on this machine: a real JAX program (requirements/jax.txt) is profiled with the Python tracer
# on (many small events, the stress case) for STEPS steps, once, then
# xla_profiler/tests/xplane_referee_throughput.py times both readers on the same file (median of
# RUNS runs; MB/s = file bytes / 1e6 / wall seconds).
#
# usage: scripts/xplane-perf.sh [BUILD_DIR] [OUT_DIR] [STEPS] [RUNS]
#   BUILD_DIR  a build with trace/tools/xplane_read_only (default: build)
#   OUT_DIR    where the profile is written, reused if present (default: /tmp)
#   STEPS      profiled steps (default: 15000, about 25 MB)
#   RUNS       timed runs of each reader (default: 5)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out_dir=${2:-/tmp}
steps=${3:-15000}
runs=${4:-5}
tool=$build/trace/xplane_read_only
[ -x "$tool" ] || { echo "xplane-perf: $tool is missing; build it first (ninja -C $build xplane_read_only)" >&2; exit 1; }
venv=$(bash scripts/python-env.sh jax)
logdir=$out_dir/xpuperf-xplane-perf-$steps
if ! ls "$logdir"/plugins/profile/*/*.xplane.pb >/dev/null 2>&1; then
  echo "profiling $steps steps of xla_profiler/tests/jax_program.py into $logdir ..."
  JAX_PLATFORMS=cpu "$venv/bin/python" xla_profiler/tests/jax_program.py trace-python "$logdir" "$steps"
fi
file=$(ls "$logdir"/plugins/profile/*/*.xplane.pb | head -1)
cat "$file" > /dev/null  # into the page cache
"$venv/bin/python" xla_profiler/tests/xplane_referee_throughput.py "$tool" "$file" "$runs"
