#!/usr/bin/env bash
# How trustworthy the CPU benchmark figures are, measured (docs/PERFORMANCE-JOURNAL.md, "Benchmark
# stability"). Sections:
#   sample-time  robust CV and run-to-run spread of peak_fma fp64/fp32 and STREAM triad for several
#                minimum sample times (adaptive sampling off): what the suites' sample times are
#                chosen from
#   likwid       ROUNDS rounds (default 20), each `bench compute -b peak_fma` and `bench memory -b
#                stream` with the quick suite's settings, then likwid-bench peakflops_avx_fma,
#                peakflops_sp_avx_fma and stream_avx_fma (same threads, working sets as
#                scripts/bench-compare.sh); per round the ratio, and how many rounds are within 3%
#   loaded       stress-ng on every CPU while the same xpuperf runs go three times: how many of the
#                points are flagged stable: false
# Usage: scripts/bench-stability.sh [BUILD_DIR [SECTION...]]  (default build, every section).
# Needs likwid and stress-ng (scripts/install-deps.sh installs both). Run on an otherwise idle
# machine: every section but `loaded` measures the machine, not xpuperf's code.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sections=" ${*:-sample-time likwid loaded} "
want() { [[ "$sections" == *" $1 "* ]]; }
threads=$(nproc)
rounds=${ROUNDS:-20}
out=$(mktemp -d)
stress_pid=""
cleanup() {
  [ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null
  rm -rf "$out"
}
trap cleanup EXIT
xpuperf="$build/xpuperf"

# Prints "metric value stable robust_cv count reason" per record of a result directory.
records() {
  python3 - "$1/results.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["metric"] not in ("fp64_flops", "fp32_flops", "triad_bandwidth"):
        continue
    s = r["statistics"]
    reason = (r.get("unstable_reasons") or ["-"])[0].replace(" ", "_")
    print(r["metric"], r["value"], str(r.get("stable", True)).lower(), s.get("robust_cv", 0),
          s["count"], reason)
PY
}

if want sample-time; then
  echo "== minimum sample time: robust CV within a run and spread between 5 runs (adaptive off)"
  for seconds in 0.001 0.005 0.02 0.05 0.1; do
    cat > "$out/t.yaml" <<YAML
name: t
sampling: {warmup_samples: 1, samples: 10, min_sample_seconds: $seconds, target_cv: 10}
benchmarks:
  - {benchmark: peak_fma, sweep: [{precision: fp64}, {precision: fp32}]}
  - {benchmark: stream, sweep: [{kernel: triad}]}
YAML
    for run in 1 2 3 4 5; do
      rm -rf "$out/t"
      "$xpuperf" bench run --suite "$out/t.yaml" --out "$out/t" >/dev/null 2>&1
      records "$out/t" | sed "s/^/$seconds /"
    done
  done | tee "$out/sample-time.txt" >/dev/null
  python3 - "$out/sample-time.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((float(f[0]), f[1]), []).append((float(f[2]), float(f[4])))
print(f"{'min sample s':>12} {'metric':<16} {'median robust CV':>16} {'runs min..max':>22} {'spread':>7}")
for (seconds, metric), values in sorted(rows.items()):
    v = [x for x, _ in values]
    cv = statistics.median(c for _, c in values)
    print(f"{seconds:>12g} {metric:<16} {100 * cv:>15.2f}% {min(v):>10.1f}..{max(v):<10.1f} "
          f"{100 * (max(v) - min(v)) / statistics.median(v):>6.1f}%")
PY
fi

if want likwid; then
  echo "== $rounds rounds: xpuperf (quick suite settings) vs likwid-bench, $threads threads"
  isa=avx_fma
  grep -qw avx512f /proc/cpuinfo && isa=avx512_fma
  for round in $(seq 1 "$rounds"); do
    rm -rf "$out/c" "$out/m"
    "$xpuperf" bench compute -b peak_fma --out "$out/c" >/dev/null 2>&1
    "$xpuperf" bench memory -b stream --out "$out/m" >/dev/null 2>&1
    { records "$out/c"; records "$out/m"; } | sed "s/^/$round xpuperf /"
    for precision in "" sp_; do
      mflops=$(likwid-bench -t "peakflops_${precision}${isa}" -W "N:$((16 * threads))kB:$threads" \
        2>/dev/null | awk '/^MFlops\/s/ { print $2 }')
      echo "$round likwid $([ -z "$precision" ] && echo fp64_flops || echo fp32_flops) $(awk -v m="${mflops:-0}" 'BEGIN { print m / 1000 }')"
    done
    mbytes=$(likwid-bench -t stream_avx_fma -W "N:384MB:$threads" 2>/dev/null | awk '/^MByte\/s/ { print $2 }')
    echo "$round likwid triad_bandwidth $(awk -v m="${mbytes:-0}" 'BEGIN { print m / 1000 }')"
  done | tee "$out/likwid.txt" >/dev/null
  python3 - "$out/likwid.txt" <<'PY'
import statistics, sys
xp, lk = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[1] == "xpuperf":
        xp[(f[0], f[2])] = (float(f[3]), f[4] == "true", f[7])
    else:
        lk[(f[0], f[2])] = float(f[3])
for metric in ("fp64_flops", "fp32_flops", "triad_bandwidth"):
    within = stable_within = stable_total = flagged_far = total = 0
    ratios = []
    for (rnd, m), (value, stable, reason) in sorted(xp.items(), key=lambda kv: int(kv[0][0])):
        if m != metric or not lk.get((rnd, m)):
            continue
        ratio = value / lk[(rnd, m)]
        ratios.append(f"{ratio:.3f}{'' if stable else '*'}")
        total += 1
        close = abs(ratio - 1) <= 0.03
        within += close
        if stable:
            stable_total += 1
            stable_within += close
        elif not close:
            flagged_far += 1
    print(f"{metric}: within 3% of likwid in {within} of {total} rounds; stable points within 3%: "
          f"{stable_within} of {stable_total}; unstable points outside 3%: {flagged_far}")
    print(f"  ratios xpuperf/likwid (* = marked unstable): {' '.join(ratios)}")
    # Each tool's own spread over the rounds: likwid flags nothing, so its range shows the host.
    ours = [v for (r, m), (v, stable, _) in xp.items() if m == metric and stable]
    theirs = [v for (r, m), v in lk.items() if m == metric and v]
    if ours and theirs:
        print(f"  xpuperf stable figures {min(ours):.1f}..{max(ours):.1f} (median "
              f"{statistics.median(ours):.1f}); likwid {min(theirs):.1f}..{max(theirs):.1f} "
              f"(median {statistics.median(theirs):.1f})")
PY
fi

if want loaded; then
  echo "== with stress-ng --cpu $threads running: points flagged unstable"
  stress-ng --cpu "$threads" --timeout 600 >/dev/null 2>&1 &
  stress_pid=$!
  sleep 2
  for round in 1 2 3; do
    rm -rf "$out/c" "$out/m"
    "$xpuperf" bench compute -b peak_fma --out "$out/c" >/dev/null 2>"$out/c.err"
    "$xpuperf" bench memory -b stream --out "$out/m" >/dev/null 2>>"$out/c.err"
    { records "$out/c"; records "$out/m"; } | sed "s/^/$round /"
  done | tee "$out/loaded.txt" | awk '{ printf "round %s %s %.2f stable=%s %s\n", $1, $2, $3, $4, $7 }'
  kill "$stress_pid" 2>/dev/null
  wait "$stress_pid" 2>/dev/null || true
  stress_pid=""
  awk '{ n++; if ($4 == "false") f++ } END { printf "loaded: %d of %d points flagged unstable\n", f, n }' "$out/loaded.txt"
  echo "stderr of the last loaded run:"
  grep -E "warning" "$out/c.err" | head -5
fi
