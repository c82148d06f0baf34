#!/usr/bin/env bash
# The main job: install what is missing, build the xpuperf binaries, describe and measure this
# machine, then write its roofline report (report.html in the result directory).
# Builds only the two binaries the job runs. A build/ tree (scripts/test.sh's, or yours) is reused
# as it is; otherwise build-main/ is configured for this job alone: optimised as build/ is (-O2)
# but without debug information, and without the parts the job never runs (the exporter, agent and
# capture of `serve`/`agent`, the XLA profiler client, the Python module, tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
started=$SECONDS
targets="xpuperf xpuperf_full"
if [ -f build/CMakeCache.txt ]; then
  build_dir=build
  XPUPERF_BUILD_TARGETS="$targets" bash scripts/build.sh "$build_dir"
else
  build_dir=build-main
  BUILD_TYPE=Release XPUPERF_BUILD_TARGETS="$targets" bash scripts/build.sh "$build_dir" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DXPUPERF_BUILD_TESTS=OFF -DXPUPERF_BUILD_BENCHMARKS=OFF -DXPUPERF_WITH_PYTHON=OFF \
    -DXPUPERF_WITH_EXPORTER=OFF -DXPUPERF_WITH_XLA_PROFILER=OFF
fi
echo "main.sh: built $build_dir/xpuperf in $((SECONDS - started)) s"
xpuperf=./$build_dir/xpuperf
$xpuperf devices
echo
$xpuperf metrics --window 1
results="results/main-$(date -u +%Y%m%dT%H%M%SZ)"
$xpuperf bench run --suite quick --out "$results"
echo
$xpuperf roofline "$results" --html "$results/report.html" --svg "$results/roofline.svg"
echo
test -s "$results/report.html"
echo "Report for this machine: $(pwd)/$results/report.html"
