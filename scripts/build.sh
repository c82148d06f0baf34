#!/usr/bin/env bash
# Configures and builds xpuperf. Usage: scripts/build.sh BUILD_DIR [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:?usage: scripts/build.sh BUILD_DIR [cmake args...]}
shift
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)"
