#!/usr/bin/env bash
# The recorder's own cost: CPU time of `xpuperf record` (user + system, getrusage of its own
# process; the job's time is not in it) over the wall time it recorded, for a job that only sleeps.
#   record/tools/record_overhead.sh [XPUPERF] [SECONDS] [RATES...]
#   TREE=backends/cpu/tests/data/trees/intel-2s record/tools/record_overhead.sh ...
# Defaults: build/xpuperf, 30 s, rates 10 and 1000 Hz, CPU backend, no BMC (--no-ipmi: its cost
# is one ipmitool call a second in a thread of its own, not a poll's). Prints one line per rate
# and the run count; repeat with REPEAT=N (default 3) and report the median.
# With TREE, the CPU backend reads a copy of that recorded tree (--root) while a harness rewrites
# every RAPL energy_uj in place (same inode, as the kernel changes a sysfs value) every 0.1 s, so
# the counters the recorder keeps open are read as on a machine with RAPL.
set -euo pipefail
xpuperf=${1:-build/xpuperf}
seconds=${2:-30}
shift $(( $# > 2 ? 2 : $# )) || true
rates=("$@")
[[ ${#rates[@]} -eq 0 ]] && rates=(10 1000)
repeat=${REPEAT:-3}
work=$(mktemp -d)
updater=0
cleanup() {
  [[ $updater -gt 0 ]] && kill "$updater" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
root_args=()
if [[ -n ${TREE:-} ]]; then
  cp -r "$TREE" "$work/tree"
  root_args=(--root "$work/tree")
  (
    energy=0
    while true; do
      energy=$((energy + 5000000))  # 5 J per 0.1 s: 50 W per counter
      for counter in "$work"/tree/sys/class/powercap/*/energy_uj; do
        printf '%-24s\n' "$energy" 1<>"$counter"
      done
      sleep 0.1
    done
  ) &
  updater=$!
fi
for rate in "${rates[@]}"; do
  shares=()
  for ((i = 0; i < repeat; i++)); do
    "$xpuperf" record --backend cpu "${root_args[@]}" --no-ipmi --rate "$rate" --no-html --json \
      --out "$work/r$rate-$i" -- sleep "$seconds" >"$work/s.json" 2>/dev/null
    shares+=("$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recorder"]; print("%.4f %d" % (r["cpu_percent_of_one_core"], r["polls"]))' "$work/s.json")")
  done
  sorted=$(printf '%s\n' "${shares[@]}" | sort -g | cut -d' ' -f1 | tr '\n' ' ')
  median=$(printf '%s\n' "${shares[@]}" | sort -g | sed -n "$(( (repeat + 1) / 2 ))p")
  ticks=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ticks"])' "$work/s.json")
  echo "rate ${rate} Hz: recorder CPU ${median% *}% of one core (median of ${repeat}: ${sorted}), ${median#* } polls in that run, ${ticks} ticks in the last run of ${seconds} s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
done
