#!/usr/bin/env bash
# xpuperf analyze and Holistic Trace Analysis side by side, in one run, on the same traces:
# process start to results for both: wall time, CPU time and peak RSS of each process.
#   HTA:     python -c 'TraceAnalysis(trace_dir=D).get_temporal_breakdown()'   (import included)
#   xpuperf: xpuperf analyze --convention hta -a temporal --json FILE
# Each trace in its own directory (HTA reads directories). Prints one row per trace: wall, CPU
# (user + sys) and peak RSS of each, and the ratios: wall x and cpu x = HTA / xpuperf (how many
# times faster), RSS x = xpuperf / HTA. On a shared machine the wall times of short processes
# include run-queue waits, so the CPU ratio is the steadier figure.
#
# usage: [RUNS=3] scripts/hta-perf.sh XPUPERF TRACE...
set -euo pipefail
cd "$(dirname "$0")/.."
xpuperf=$(realpath "${1:?usage: scripts/hta-perf.sh XPUPERF TRACE...}")
shift
venv=$(bash scripts/python-env.sh hta)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # measure OUT CMD...: prints wall seconds, CPU seconds (user + sys), max RSS KiB
  # One child spawned and reaped by a Python timer: the wall clock from just before the spawn to
  # the reap (monotonic, ns), CPU and peak RSS from the child's own rusage (wait4, µs). Neither
  # /usr/bin/time's start nor date's enters the figures (they once added ~10 ms to each run,
  # a third of xpuperf's).
  "$venv/bin/python" - "$1" "${@:2}" <<'PY'
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
with open(out + ".err", "wb") as err:
    actions = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
    start = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - start) / 1e9
if status != 0:
    sys.stderr.write(f"failed: {' '.join(argv)}\n" + open(out + ".err").read())
    sys.exit(1)
print(f"{wall:.5f} {usage.ru_utime + usage.ru_stime:.5f} {usage.ru_maxrss}")
PY
}
# median_of N CMD...: runs CMD N times (alternating the tools' runs would be fairer still); prints the
# median wall, the median CPU and the largest RSS. RUNS=1 gives single runs.
runs=${RUNS:-3}
median_of() {
  local n=$1 i out
  shift
  out=$(for ((i = 0; i < n; ++i)); do "$@" || exit 1; done) || return 1
  local m=$(((n + 1) / 2))
  echo "$(cut -d' ' -f1 <<<"$out" | sort -g | sed -n "${m}p")" \
    "$(cut -d' ' -f2 <<<"$out" | sort -g | sed -n "${m}p")" \
    "$(cut -d' ' -f3 <<<"$out" | sort -g | tail -1)"
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), median of $runs runs each"
printf "%-40s %6s | %7s %7s %7s | %7s %7s %6s | %7s %7s %6s\n" trace events "HTA s" "cpu s" "MiB" \
  "xp s" "cpu s" "MiB" "wall x" "cpu x" "RSS x"
for f in "$@"; do
  name=$(basename "$f")
  dir=$work/$name.d
  mkdir -p "$dir"
  ln -s "$(realpath "$f")" "$dir/$name"
  events=$("$xpuperf" analyze --json -a temporal "$f" | "$venv/bin/python" -c 'import json,sys; print(sum(r["events"] for r in json.load(sys.stdin)["ranks"]))')
  read -r hw hc hr < <(median_of "$runs" measure "$work/hta" "$venv/bin/python" -W ignore -c "
import logging; logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
TraceAnalysis(trace_dir='$dir').get_temporal_breakdown(visualize=False)")
  read -r xw xc xr < <(median_of "$runs" measure "$work/xp" "$xpuperf" analyze --convention hta -a temporal --json "$f")
  awk -v n="$name" -v e="$events" -v hw="$hw" -v hc="$hc" -v hr="$hr" -v xw="$xw" -v xc="$xc" \
      -v xr="$xr" 'BEGIN {
    printf "%-40s %6d | %7.2f %7.2f %7.1f | %7.3f %7.3f %6.1f | %6.0fx %6.0fx %6.3f\n", substr(n,1,40), e,
      hw, hc, hr/1024, xw, xc, xr/1024, (xw>0? hw/xw : 0), (xc>0? hc/xc : 0), xr/hr }'
done
