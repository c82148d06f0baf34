#!/usr/bin/env bash
# The main job: install what is missing, build, describe and measure this machine, then write its
# roofline report (report.html in the result directory).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh build -DXPUPERF_BUILD_TESTS=OFF -DXPUPERF_BUILD_BENCHMARKS=OFF
./build/xpuperf devices
echo
./build/xpuperf metrics --window 1
results="results/main-$(date -u +%Y%m%dT%H%M%SZ)"
./build/xpuperf bench run --suite quick --out "$results"
echo
./build/xpuperf roofline "$results" --html "$results/report.html" --svg "$results/roofline.svg"
echo
echo "Report for this machine: $(pwd)/$results/report.html"
