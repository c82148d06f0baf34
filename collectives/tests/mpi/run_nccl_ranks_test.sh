#!/bin/sh
# mpirun -np 2 xpuperf bench network --backend nccl, for float sums and for one variant of every
# other datatype and reduction (nccl-tests' -d and -o): exit 0, and either "skipped: unsupported:
# ..." with no result directory (no CUDA driver, GPU or NCCL) or a result directory whose every
# point, out of place and in place, has #wrong 0 in the asked datatype and reduction.
# run_nccl_ranks_test.sh XPUPERF WORK_DIR. Exit 77 (ctest SKIP_RETURN_CODE) without mpirun.
xpuperf=$1
work=$2
if ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIP: mpirun not found (install openmpi-bin)"
  exit 77
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
rm -rf "$work"
mkdir -p "$work"
measured=0
skipped=0
for variant in "float sum" "bfloat16 avg" "half prod" "double max" "int32 min"; do
  set -- $variant
  dtype=$1
  redop=$2
  dir="$work/$dtype-$redop"
  mpirun --allow-run-as-root --oversubscribe -np 2 "$xpuperf" bench network --backend nccl \
    -b 64K -e 256K --iters 2 --warmup 1 --samples 2 -d "$dtype" -o "$redop" --out "$dir" \
    >"$dir.txt" 2>&1
  code=$?
  cat "$dir.txt"
  if [ "$code" -ne 0 ]; then
    echo "FAIL: -d $dtype -o $redop: exit code $code"
    exit 1
  fi
  if grep -q '^skipped: unsupported: ' "$dir.txt"; then
    if [ -e "$dir" ]; then
      echo "FAIL: -d $dtype -o $redop: skipped, yet $dir exists"
      exit 1
    fi
    if [ "$(grep -c '^skipped: ' "$dir.txt")" -ne 1 ]; then
      echo "FAIL: expected one skip line, from rank 0"
      exit 1
    fi
    skipped=$((skipped + 1))
    continue
  fi
  results="$dir/results.jsonl"
  if [ ! -s "$results" ] || ! grep -q '"gpu_collectives"' "$results"; then
    echo "FAIL: -d $dtype -o $redop: neither a skip line nor gpu_collectives results"
    exit 1
  fi
  if grep -v "\"dtype\":\"$dtype\"" "$results" | grep -q .; then
    echo "FAIL: -d $dtype -o $redop: a result of another datatype"
    exit 1
  fi
  if grep '"redop":' "$results" | grep -v "\"redop\":\"$redop\"\|\"redop\":\"none\"" | grep -q .; then
    echo "FAIL: -d $dtype -o $redop: a reduction other than $redop"
    exit 1
  fi
  if grep -q '"wrong":[1-9]' "$results"; then
    echo "FAIL: -d $dtype -o $redop: wrong elements (#wrong > 0)"
    exit 1
  fi
  if ! grep -q '"in_place":true' "$results"; then
    echo "FAIL: -d $dtype -o $redop: no in-place point"
    exit 1
  fi
  measured=$((measured + 1))
done
echo "PASS ($measured variants measured and verified, $skipped skipped)"
