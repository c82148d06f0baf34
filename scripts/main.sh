#!/usr/bin/env bash
# The main job: install what is missing, build the xpuperf binaries, describe and measure this
# machine, then write its roofline report (report.html in the result directory).
# Builds only the two binaries the job runs, in build/ with whatever options build/ already has
# (a tree that scripts/test.sh built is reused as it is).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
started=$SECONDS
if [ -f build/CMakeCache.txt ]; then
  XPUPERF_BUILD_TARGETS="xpuperf xpuperf_full" bash scripts/build.sh build
else
  XPUPERF_BUILD_TARGETS="xpuperf xpuperf_full" bash scripts/build.sh build \
    -DXPUPERF_BUILD_TESTS=OFF -DXPUPERF_BUILD_BENCHMARKS=OFF -DXPUPERF_WITH_PYTHON=OFF
fi
echo "main.sh: built in $((SECONDS - started)) s"
./build/xpuperf devices
echo
./build/xpuperf metrics --window 1
results="results/main-$(date -u +%Y%m%dT%H%M%SZ)"
./build/xpuperf bench run --suite quick --out "$results"
echo
./build/xpuperf roofline "$results" --html "$results/report.html" --svg "$results/roofline.svg"
echo
test -s "$results/report.html"
echo "Report for this machine: $(pwd)/$results/report.html"
