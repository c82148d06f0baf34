#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite.
#   scripts/test.sh              tests in build/
#   scripts/test.sh --sanitize   the same under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)
#   scripts/test.sh --minimal    core + CPU backend + CLI only, every optional part off (build-minimal/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# A full build and its test environments take about 4 GB (build/) and 5 GB (Python environments, once);
# say so up front rather than fail with "No space left on device" half-way through.
free_kb=$(df -Pk . | awk 'NR==2 {print $4}')
if [ -n "$free_kb" ] && [ "$free_kb" -lt $((8 * 1024 * 1024)) ]; then
  echo "test.sh: warning: only $((free_kb / 1024)) MiB free here; a build and its tests need about 8 GiB" >&2
fi
if [ "${1:-}" = "--sanitize" ]; then
  build_dir=build-asan
  BUILD_TYPE=Debug bash scripts/build.sh "$build_dir" -DXPUPERF_SANITIZE=address,undefined -DXPUPERF_BUILD_TESTS=ON \
    -DXPUPERF_BUILD_BENCHMARKS=OFF
  # intercept_tls_get_addr=0: GCC 12's sanitizer runtime takes a dynamic TLS block that happens to start
  # 16 bytes past a page boundary for a pre-2.25 glibc header and reads garbage as its bounds; LeakSanitizer's
  # tracer then dies with "Tracer caught signal 11" at exit (seen after oneDNN's libgomp threads ran).
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0"
elif [ "${1:-}" = "--minimal" ]; then
  # What an embedder without gRPC, BLAS, MPI, simdjson, curses or CUDA builds.
  build_dir=build-minimal
  bash scripts/build.sh "$build_dir" -DXPUPERF_BUILD_TESTS=ON -DXPUPERF_BUILD_BENCHMARKS=OFF \
    -DXPUPERF_WITH_TPU=OFF -DXPUPERF_WITH_BENCHMARKS=OFF -DXPUPERF_WITH_MPI=OFF \
    -DXPUPERF_WITH_TRACES=OFF -DXPUPERF_WITH_TUI=OFF -DXPUPERF_CUDA=OFF \
    -DXPUPERF_WITH_XLA_PROFILER=OFF -DXPUPERF_WITH_ISAL=OFF -DXPUPERF_WITH_EXPORTER=OFF \
    -DXPUPERF_WITH_PYTHON=OFF
else
  build_dir=build
  bash scripts/build.sh "$build_dir" -DXPUPERF_BUILD_TESTS=ON -DXPUPERF_BUILD_BENCHMARKS=ON
fi
ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)" --timeout 300
