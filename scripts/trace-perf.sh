#!/usr/bin/env bash
# Trace-reading speed on a large synthetic Kineto trace, on one core (taskset -c 0):
#   (a) simdjson_parse_only: the events cut into ~1 MB chunks as xpuperf's reader cuts them, and
#       simdjson's on-demand walk over every field of every event and of its args, reading ts and
#       dur (the floor: xpuperf's reader does this walk plus its own work on each field);
#   (b) xpuperf analyze FILE --json > /dev/null: the full default analysis set.
# Each runs under /usr/bin/time -v; the script prints wall, user and system time, MB/s (1 MB = 1e6
# bytes of JSON) over the wall time and over the CPU time (user + sys: the figure that stays
# meaningful when other processes share core 0), and peak RSS, also as a multiple of the file
# size. The file is read once before the runs, so both start from the page cache.
#
# usage: scripts/trace-perf.sh [BUILD_DIR] [OUT_DIR] [SIZE]
#   BUILD_DIR  a build with the tools and the CLI (default: build)
#   OUT_DIR    where the trace is generated, reused if present (default: /tmp)
#   SIZE       trace size for generate_synthetic_trace --size (default: 1G = 1e9 bytes)
# XPUPERF=PATH selects another xpuperf binary (default: BUILD_DIR/xpuperf).
set -euo pipefail

build=${1:-build}
out_dir=${2:-/tmp}
size=${3:-1G}
generator=$build/tools/generate_synthetic_trace
parse_only=$build/tools/simdjson_parse_only
xpuperf=${XPUPERF:-$build/xpuperf}

for tool in "$generator" "$parse_only"; do
  [ -x "$tool" ] || { echo "trace-perf: $tool is missing; build it first (ninja -C $build $(basename "$tool"))" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "trace-perf: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }

trace=$out_dir/xpuperf-synthetic-$size-seed1.json
if [ ! -f "$trace" ]; then
  echo "generating $trace ..."
  start=$(date +%s.%N)
  "$generator" --size "$size" --seed 1 --out "$trace"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v b="$(stat -c %s "$trace")" \
    'BEGIN { printf "generated %.0f bytes in %.2f s (%.0f MB/s)\n", b, e - s, b / 1e6 / (e - s) }'
fi
bytes=$(stat -c %s "$trace")
cat "$trace" > /dev/null  # into the page cache

# measure LABEL COMMAND...: one run on core 0 under /usr/bin/time -v.
measure() {
  local label=$1
  shift
  local log
  log=$(mktemp)
  if ! /usr/bin/time -v taskset -c 0 "$@" > /dev/null 2> "$log"; then
    echo "$label: FAILED"
    tail -5 "$log"
    rm -f "$log"
    return 1
  fi
  awk -v label="$label" -v bytes="$bytes" '
    /Elapsed \(wall clock\) time/ {
      n = split($NF, p, ":"); wall = 0
      for (i = 1; i <= n; ++i) wall = wall * 60 + p[i]
    }
    /Maximum resident set size/ { rss_kb = $NF }
    /User time/ { user = $NF }
    /System time/ { sys = $NF }
    END {
      printf "%-24s wall %7.2f s  user %6.2f s  sys %5.2f s  %7.1f MB/s wall  %7.1f MB/s cpu  peak RSS %7.1f MB (%.2fx file)\n",
             label, wall, user, sys, bytes / 1e6 / wall, bytes / 1e6 / (user + sys),
             rss_kb * 1024 / 1e6, rss_kb * 1024 / bytes
    }' "$log"
  rm -f "$log"
}

echo "trace: $trace ($bytes bytes), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "simdjson parse only" "$parse_only" "$trace"
if [ -x "$xpuperf" ] && "$xpuperf" analyze --help > /dev/null 2>&1; then
  measure "xpuperf analyze --json" "$xpuperf" analyze "$trace" --json
else
  echo "xpuperf analyze          pending: $xpuperf has no analyze command"
fi
# The same trace as profilers write it, gzipped (MB/s are of the decompressed JSON, so the rows
# compare): measured when TRACE.gz exists; `gzip -6 -k -n TRACE` makes it once (~90 s for 1 GB).
if [ -f "$trace.gz" ] && [ -x "$xpuperf" ]; then
  cat "$trace.gz" > /dev/null
  echo "$("$xpuperf" --version | sed -n 2p), $(stat -c %s "$trace.gz") compressed bytes"
  measure "xpuperf analyze .gz" "$xpuperf" analyze "$trace.gz" --json
else
  echo "xpuperf analyze .gz      skipped: no $trace.gz (gzip -6 -k -n $trace)"
fi
