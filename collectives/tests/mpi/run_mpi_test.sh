#!/bin/sh
# Runs an MPI test program on N ranks of this host: run_mpi_test.sh N PROGRAM [ARGS...].
# Exit 77 (ctest SKIP_RETURN_CODE) when mpirun is not installed.
ranks=$1
shift
if ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIP: mpirun not found (install openmpi-bin)"
  exit 77
fi
# Open MPI's runtime keeps its allocations until exit: no leak report for them in sanitizer runs.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
exec mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$@"
