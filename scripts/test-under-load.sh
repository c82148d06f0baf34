#!/usr/bin/env bash
# The whole test suite while every core is kept busy by another load, several times in a row: the
# suite must pass on a user's machine, which is rarely idle (no test asserts a speed, a ratio or a
# count of events within a fixed time; each waits for its condition with a generous deadline).
#   scripts/test-under-load.sh [RUNS] [BUILD_DIR]   default 3 runs of build/ (built by test.sh)
# The load: stress-ng --cpu N (N = the number of cores), started before the first run and stopped
# after the last. Each run's ctest log is kept in BUILD_DIR/under-load-<i>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
build_dir=${2:-build}
[ -f "$build_dir/CTestTestfile.cmake" ] || { echo "test-under-load: build $build_dir first (bash scripts/test.sh)" >&2; exit 2; }
command -v stress-ng >/dev/null || bash scripts/install-deps.sh
stress-ng --cpu "$(nproc)" --quiet &
load=$!
trap 'kill "$load" 2>/dev/null || true; wait "$load" 2>/dev/null || true' EXIT
sleep 2
failures=0
for i in $(seq 1 "$runs"); do
  started=$SECONDS
  if ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)" --timeout 600 \
      >"$build_dir/under-load-$i.log" 2>&1; then
    result=passed
  else
    result=FAILED
    failures=$((failures + 1))
  fi
  echo "test-under-load: run $i of $runs $result in $((SECONDS - started)) s ($(grep -m1 'tests passed' "$build_dir/under-load-$i.log" || echo 'no summary'))"
  grep -E '^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted)' "$build_dir/under-load-$i.log" || true
done
[ "$failures" -eq 0 ]
