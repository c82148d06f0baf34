#!/usr/bin/env bash
# The main job: install what is missing, build, then describe and measure this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh build -DXPUPERF_BUILD_TESTS=OFF -DXPUPERF_BUILD_BENCHMARKS=OFF
./build/xpuperf devices
echo
./build/xpuperf metrics --window 1
./build/xpuperf bench run --suite quick
