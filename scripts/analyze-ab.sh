#!/usr/bin/env bash
# A/B of two xpuperf binaries on one trace: `analyze FILE --json [ARGS...]` on core 0, the two
# alternating for ROUNDS rounds (so that this VM's drift affects both alike), CPU time (user + sys,
# /usr/bin/time) per run, MB of the file's text per CPU second, the medians, and whether the two
# outputs are byte-identical (a reader change must not change a figure).
# Usage: scripts/analyze-ab.sh BIN_A BIN_B FILE [ROUNDS [ARGS...]]   (default 5 rounds)
#   FILE may be a .json.gz: MB/s are then of its decompressed text (gzip -l's size, mod 4 GiB).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: scripts/analyze-ab.sh BIN_A BIN_B FILE [ROUNDS [ARGS...]]" >&2
  exit 2
fi
a=$1 b=$2 file=$3 rounds=${4:-5}
shift $(($# < 4 ? $# : 4))
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "analyze-ab: $bin is not an executable" >&2; exit 2; }
done
[ -r "$file" ] || { echo "analyze-ab: cannot read $file" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "analyze-ab: ROUNDS must be a positive integer (got '$rounds')" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "analyze-ab: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
if [[ "$file" == *.gz ]]; then
  bytes=$(gzip -l "$file" | awk 'NR == 2 {print $2}')
else
  bytes=$(stat -c %s "$file")
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat "$file" > /dev/null  # into the page cache
for round in $(seq "$rounds"); do
  for side in A B; do
    bin=$a
    [ "$side" = B ] && bin=$b
    if ! /usr/bin/time -f "%U %S" -o "$out/time" taskset -c 0 "$bin" analyze "$file" --json "$@" \
        > "$out/$side.json" 2> "$out/$side.err"; then
      echo "analyze-ab: $bin failed:" >&2
      tail -3 "$out/$side.err" >&2
      exit 1
    fi
    cpu=$(awk '{printf "%.3f", $1 + $2}' "$out/time")
    echo "$side $cpu" >> "$out/runs"
    awk -v s="$side" -v c="$cpu" -v b="$bytes" -v r="$round" \
      'BEGIN { printf "round %d %s: %6.2f s CPU  %7.1f MB/s\n", r, s, c, b / 1e6 / c }'
  done
  cmp -s "$out/A.json" "$out/B.json" || { echo "analyze-ab: the outputs differ (round $round)"; exit 1; }
done
for side in A B; do
  awk -v s="$side" '$1 == s {print $2}' "$out/runs" | sort -n |
    awk -v s="$side" -v b="$bytes" '{ v[NR] = $1 } END {
      m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%s median %.2f s CPU, %.1f MB/s (%d runs, %.2f-%.2f s)\n", s, m, b / 1e6 / m, NR, v[1], v[NR]
    }'
done
echo "outputs byte-identical in every round"
