#!/usr/bin/env bash
# Google's libtpu driven by xpuperf's binding, on a machine without a TPU: pjrt_tests' LibtpuProfiler
# tests (the profiler extension needs no chip) and LibtpuTopology tests (compile-only for a named
# TPU topology). libtpu comes from a cached virtual environment (requirements/libtpu.txt); skipped
# (77) when it cannot be made.
# Usage: libtpu_profiler_test.sh PJRT_TESTS SOURCE_DIR
set -euo pipefail
tests=$1
source_dir=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! venv=$(bash "$source_dir/scripts/python-env.sh" libtpu 2>"$log"); then
  echo "skipped: pip could not install requirements/libtpu.txt ($(tail -1 "$log"))"
  exit 77
fi
libtpu=$(ls "$venv"/lib/python3*/site-packages/libtpu/libtpu.so | head -1)
# TPU_SKIP_MDS_QUERY: libtpu must not wait for a cloud metadata server (pjrt/probe.h).
rc=0
TPU_SKIP_MDS_QUERY=1 XPUPERF_TEST_LIBTPU=$libtpu timeout 300 "$tests" \
  --gtest_filter='LibtpuProfiler.*:LibtpuTopology.*' >"$log" 2>&1 || rc=$?
grep -v "^[EIW][0-9]\{4\} " "$log" || true  # libtpu's own log lines left out
grep -q "\[  PASSED  \] 2 tests" "$log" || { echo "FAIL: the libtpu tests did not pass (rc $rc)"; exit 1; }
exit "$rc"
