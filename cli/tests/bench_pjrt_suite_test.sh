#!/usr/bin/env bash
# The built-in pjrt suite on XLA's CPU plugin (from the pjrt_plugin_environment fixture): the
# entries for accelerators are left out with one line, every CPU-sized point runs and verifies
# (few samples: this checks the points, not their speed; docs/PJRT.md has the full run's time), and
# the result directory holds a record for each of them.
# Usage: bench_pjrt_suite_test.sh XPUPERF PLUGIN_PATH_FILE
set -euo pipefail
xpuperf=$1
cpu_plugin=$(head -1 "$2" 2>/dev/null || true)
[ -n "$cpu_plugin" ] || { echo "skipped: XLA's CPU PJRT plugin is not available to this build"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$xpuperf" bench run --suite pjrt --pjrt-plugin "$cpu_plugin" --samples 2 --min-sample-seconds 0.001 \
  --max-point-seconds 0 --out "$tmp/r" >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(tail -5 "$tmp/err")"
grep -q "^19 points left out: the entries of lines .* of pjrt are for other devices than this cpu device" "$tmp/err" ||
  fail "no left-out line: $(head -5 "$tmp/err")"
grep -q "^\[26/26\] run   pjrt_attention" "$tmp/err" || fail "not 26 points: $(grep '^\[' "$tmp/err" | tail -2)"
if grep -q "skip" "$tmp/err"; then fail "a point was skipped: $(grep skip "$tmp/err")"; fi
# The CPU variants' sizes, not the accelerators'.
grep -q '"m":2048' "$tmp/r/results.jsonl" || fail "no 2048^3 GEMM record"
if grep -q '"m":8192' "$tmp/r/results.jsonl"; then fail "an accelerator-sized GEMM ran on the CPU"; fi
echo "ok: $(grep -c . "$tmp/r/results.jsonl") records from the 26 CPU-sized points; $(grep 'points left out' "$tmp/err")"
