#!/usr/bin/env bash
# The recorder's own cost: CPU time of `xpuperf record` (user + system, getrusage of its own
# process; the job's time is not in it) over the wall time it recorded, for a job that only sleeps.
#   record/tools/record_overhead.sh [XPUPERF] [SECONDS] [RATES...]
# Defaults: build/xpuperf, 30 s, rates 10 and 1000 Hz, CPU backend. Prints one line per rate and
# the run count; repeat with REPEAT=N (default 3) and report the median.
set -euo pipefail
xpuperf=${1:-build/xpuperf}
seconds=${2:-30}
shift $(( $# > 2 ? 2 : $# )) || true
rates=("$@")
[[ ${#rates[@]} -eq 0 ]] && rates=(10 1000)
repeat=${REPEAT:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for rate in "${rates[@]}"; do
  shares=()
  for ((i = 0; i < repeat; i++)); do
    "$xpuperf" record --backend cpu --rate "$rate" --no-html --json --out "$work/r$rate-$i" \
      -- sleep "$seconds" >"$work/s.json" 2>/dev/null
    shares+=("$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recorder"]; print("%.4f" % r["cpu_percent_of_one_core"])' "$work/s.json")")
  done
  sorted=$(printf '%s\n' "${shares[@]}" | sort -g | tr '\n' ' ')
  median=$(printf '%s\n' "${shares[@]}" | sort -g | sed -n "$(( (repeat + 1) / 2 ))p")
  ticks=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ticks"])' "$work/s.json")
  echo "rate ${rate} Hz: recorder CPU ${median}% of one core (median of ${repeat}: ${sorted}), ${ticks} ticks in ${seconds} s"
done
