#!/usr/bin/env bash
# xpuperf analyze and Holistic Trace Analysis side by side, in one run, on the same traces:
# process start to results for both, wall time and peak RSS from /usr/bin/time -v.
#   HTA:     python -c 'TraceAnalysis(trace_dir=D).get_temporal_breakdown()'   (import included)
#   xpuperf: xpuperf analyze --convention hta -a temporal --json FILE
# Each trace in its own directory (HTA reads directories). Prints one row per trace and the
# ratios HTA/xpuperf (wall: how many times faster; RSS: xpuperf's share of HTA's).
#
# usage: scripts/hta-perf.sh XPUPERF TRACE...
set -euo pipefail
cd "$(dirname "$0")/.."
xpuperf=$(realpath "${1:?usage: scripts/hta-perf.sh XPUPERF TRACE...}")
shift
venv=$(bash scripts/python-env.sh hta)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # measure OUT CMD...: wall seconds and max RSS KiB into OUT
  /usr/bin/time -v -o "$1.time" "${@:2}" > /dev/null 2> "$1.err" || { echo "failed: ${*:2}" >&2; cat "$1.err" >&2; return 1; }
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$1.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$1.time")
  echo "$wall $rss"
}
printf "%-44s %8s %10s %9s %10s %8s %8s %7s\n" trace events "HTA s" "HTA MiB" "xpuperf s" "xp MiB" speedup "RSS x"
for f in "$@"; do
  name=$(basename "$f")
  dir=$work/$name.d
  mkdir -p "$dir"
  ln -s "$(realpath "$f")" "$dir/$name"
  events=$("$xpuperf" analyze --json -a temporal "$f" | "$venv/bin/python" -c 'import json,sys; print(sum(r["events"] for r in json.load(sys.stdin)["ranks"]))')
  read -r hw hr < <(measure "$work/hta" "$venv/bin/python" -W ignore -c "
import logging; logging.disable(logging.CRITICAL)
from hta.trace_analysis import TraceAnalysis
TraceAnalysis(trace_dir='$dir').get_temporal_breakdown(visualize=False)")
  read -r xw xr < <(measure "$work/xp" "$xpuperf" analyze --convention hta -a temporal --json "$f")
  awk -v n="$name" -v e="$events" -v hw="$hw" -v hr="$hr" -v xw="$xw" -v xr="$xr" 'BEGIN {
    printf "%-44s %8d %10.2f %9.1f %10.3f %8.1f %7.0fx %7.3f\n", substr(n,1,44), e, hw, hr/1024, xw, xr/1024, (xw>0? hw/xw : 0), xr/hr }'
done
