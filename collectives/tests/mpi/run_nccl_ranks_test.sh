#!/bin/sh
# mpirun -np 2 xpuperf bench network --backend nccl: exit 0, and either "skipped: unsupported: ..."
# with no result directory (no CUDA driver, GPU or NCCL) or a verified result directory.
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
mpirun --allow-run-as-root --oversubscribe -np 2 "$xpuperf" bench network --backend nccl \
  -b 64K -e 256K --iters 2 --warmup 1 --samples 2 --out "$work/results" >"$work/out.txt" 2>&1
code=$?
cat "$work/out.txt"
if [ "$code" -ne 0 ]; then
  echo "FAIL: exit code $code"
  exit 1
fi
if grep -q '^skipped: unsupported: ' "$work/out.txt"; then
  if [ -e "$work/results" ]; then
    echo "FAIL: skipped, yet $work/results exists"
    exit 1
  fi
  if [ "$(grep -c '^skipped: ' "$work/out.txt")" -ne 1 ]; then
    echo "FAIL: expected one skip line, from rank 0"
    exit 1
  fi
  echo "PASS (skipped)"
  exit 0
fi
if [ ! -s "$work/results/results.jsonl" ] || ! grep -q '"gpu_collectives"' "$work/results/results.jsonl"; then
  echo "FAIL: neither a skip line nor gpu_collectives results"
  exit 1
fi
echo "PASS (measured)"
