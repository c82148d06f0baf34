#!/usr/bin/env bash
# ctest: `mpirun -np K xpuperf analyze DIR` prints what one process prints, byte for byte (text,
# --json, --html, --convention hta), for K = 1, 2, 3, on a directory of shared and generated rank
# traces; a directory with unreadable files fails once, with one process's message and exit code.
#   analyze_mpi_test.sh XPUPERF GENERATOR TRACE_DIR WORK_DIR
# Exit 0 identical, 1 a difference, 77 (skip) when mpirun is absent.
set -euo pipefail
xpuperf=${1:?usage: analyze_mpi_test.sh XPUPERF GENERATOR TRACE_DIR WORK_DIR}
generator=${2:?}
trace_dir=${3:?}
work=${4:?}
if ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIP: mpirun not found (install openmpi-bin)"
  exit 77
fi
# Open MPI's runtime keeps its allocations until exit: no leak report for them in sanitizer runs.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpi() { mpirun --allow-run-as-root --oversubscribe -np "$@"; }

rm -rf "$work"
mkdir -p "$work/run" "$work/out"
run=$work/run
# Generated ranks 0-3 (distributedInfo.rank), of unequal sizes: the split is by file size.
"$generator" --size 3Mi --ranks 4 --seed 7 --out "$work/gen" >/dev/null
for r in 0 1 2 3; do mv "$work/gen/rank-$r.json" "$run/rank-$r.json"; done
"$generator" --size 1Mi --ranks 1 --seed 8 --out "$work/gen/small.json" >/dev/null
sed 's/"rank": 0/"rank": 9/' "$work/gen/small.json" > "$run/small_rank.json"
gzip -c "$run/rank-3.json" > "$run/rank-5.json.gz" && sed -i 's/"rank": 3/"rank": 5/' "$run/rank-3.json"
# Shared real traces under rank names that do not collide (links: nothing is copied).
if [ -d "$trace_dir" ]; then
  trace_dir=$(cd "$trace_dir" && pwd)
  ln -s "$trace_dir/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" "$run/"
  ln -s "$trace_dir/amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz" "$run/amd_rank-40.json.gz"
  ln -s "$trace_dir/distributed_info_unavailable__distributed_info_not_found.json.gz" \
    "$run/cpu_rank-41.json.gz"
  ln -s "$trace_dir/triton_example__triton_example.json.gz" "$run/triton_rank-42.json.gz"
else
  echo "note: shared traces not found at $trace_dir: generated ranks only"
fi

failures=0
# compare NAME: out/NAME.<K> against out/NAME.ref for every K.
compare() {
  for k in 1 2 3; do
    if ! cmp -s "$work/out/$1.ref" "$work/out/$1.$k"; then
      echo "FAIL: $1 with mpirun -np $k differs from one process:"
      diff "$work/out/$1.ref" "$work/out/$1.$k" | head -20
      failures=$((failures + 1))
    fi
  done
}
html=$work/out/report.html
"$xpuperf" analyze "$run" --top 5 > "$work/out/text.ref"
"$xpuperf" analyze "$run" --json --html "$html" > "$work/out/json.ref"
mv "$html" "$work/out/html.ref"
"$xpuperf" analyze "$run" --convention hta --json > "$work/out/hta.ref"
for k in 1 2 3; do
  mpi "$k" "$xpuperf" analyze "$run" --top 5 > "$work/out/text.$k"
  mpi "$k" "$xpuperf" analyze "$run" --json --html "$html" > "$work/out/json.$k"
  mv "$html" "$work/out/html.$k"
  mpi "$k" "$xpuperf" analyze "$run" --convention hta --json > "$work/out/hta.$k"
done
for name in text json html hta; do compare "$name"; done
ranks=$(grep -c '"source":' "$work/out/json.ref" || true)
echo "compared text, --json, --html and --convention hta over $ranks rank files"
want_ranks=6
[ -d "$trace_dir" ] && want_ranks=10
[ "$ranks" = "$want_ranks" ] || { echo "FAIL: expected $want_ranks ranks in the run"; failures=$((failures + 1)); }

# Unreadable files: one error (the first file in name order, as one process reports it), exit 1.
bad=$work/bad
mkdir -p "$bad"
cp "$run"/rank-[012].json "$bad/"
head -c 5000 "$run/rank-0.json" > "$bad/rank-7.json"  # truncated
printf '{"traceEvents": [ {"ph": "X", "ts": 1,, } ]}' > "$bad/rank-8.json"  # malformed
set +e
"$xpuperf" analyze "$bad" > "$work/out/bad.out.ref" 2> "$work/out/bad.err.ref"
want=$?
for k in 2 3; do
  mpi "$k" "$xpuperf" analyze "$bad" > "$work/out/bad.out.$k" 2> "$work/out/bad.err.$k"
  got=$?
  # mpirun adds its own lines about the failed job after the process's error.
  grep '^xpuperf' "$work/out/bad.err.$k" > "$work/out/bad.msg.$k"
  if [ "$got" != "$want" ] || ! cmp -s "$work/out/bad.err.ref" "$work/out/bad.msg.$k" ||
    [ -s "$work/out/bad.out.$k" ]; then
    echo "FAIL: unreadable files with -np $k: exit $got (want $want), stderr:"
    cat "$work/out/bad.err.$k"
    failures=$((failures + 1))
  fi
done
set -e
echo "unreadable files: exit $want, reported once: $(cat "$work/out/bad.err.ref")"
[ "$want" = 1 ] || { echo "FAIL: want exit 1 for an unreadable file"; failures=$((failures + 1)); }
if [ "$failures" -gt 0 ]; then
  echo "$failures difference(s)"
  exit 1
fi
echo "PASS"
