#!/usr/bin/env bash
# The device check: on a machine with an NVIDIA GPU and the CUDA toolkit, builds xpuperf with the
# CUDA benchmarks, runs the GPU unit tests, `xpuperf devices`, the quick suite (CPU and GPUs),
# `xpuperf bench check` and `xpuperf roofline`, and writes every log, result and report into one
# folder. Each step has its own time limit (480 s together), so the check ends within 8 minutes.
#
#   scripts/gpu-check.sh [OUT_DIR]      (default: gpu-check-<UTC time>)
#
# Works from a bare copy of the working tree: it installs the Debian packages the build needs
# (scripts/install-deps.sh) and says so when it cannot. Exit code: 0 when every step passed,
# otherwise 1 (the summary at the end names the failed steps).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=${1:-gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${XPUPERF_GPU_BUILD_DIR:-build-gpu}
summary="$out/summary.txt"
: >"$summary"
failed=()
start_all=$(date +%s)

# step NAME SECONDS COMMAND...: runs COMMAND with a time limit, output to $out/NAME.log (and the
# terminal), and records "NAME: ok|FAILED (rc) in N s" in the summary.
step() {
  local name=$1 limit=$2
  shift 2
  local t0=$(date +%s)
  echo "== $name (limit ${limit} s): $*" | tee -a "$out/$name.log"
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$out/$name.log"
  local rc=${PIPESTATUS[0]}
  local dt=$(($(date +%s) - t0))
  if [ "$rc" -eq 0 ]; then
    echo "$name: ok in ${dt} s" | tee -a "$summary"
  else
    [ "$rc" -eq 124 ] && echo "$name: timed out after ${limit} s" | tee -a "$out/$name.log"
    echo "$name: FAILED (exit $rc) in ${dt} s" | tee -a "$summary"
    failed+=("$name")
  fi
  return "$rc"
}

finish() {
  local total=$(($(date +%s) - start_all))
  echo "total: ${total} s" | tee -a "$summary"
  echo "gpu-check: results in $out"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "gpu-check: failed steps: ${failed[*]}" | tee -a "$summary"
    exit 1
  fi
  exit 0
}

# 1. The machine.
{
  date -u
  uname -a
  nproc
  free -g 2>/dev/null
} >"$out/machine.txt" 2>&1
if ! command -v nvidia-smi >/dev/null; then
  echo "gpu-check: nvidia-smi not found: this machine has no NVIDIA driver" | tee -a "$summary"
fi
step nvidia_smi 10 nvidia-smi

nvcc=${CUDACXX:-}
[ -z "$nvcc" ] && nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "gpu-check: no nvcc (CUDA toolkit) found; set CUDACXX or install it under /usr/local/cuda" |
    tee -a "$summary"
  failed+=(toolkit)
  finish
fi
"$nvcc" --version >"$out/nvcc.txt" 2>&1

# 2. Build dependencies. A machine that cannot reach apt can still build if they are present.
if ! step install_deps 40 bash scripts/install-deps.sh; then
  echo "gpu-check: scripts/install-deps.sh failed: the Debian packages xpuperf builds with could" \
    "not be installed (is the apt archive reachable from this machine?); trying to build anyway" |
    tee -a "$summary"
fi

# 3. Build with CUDA (only what the check runs).
step configure 30 cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DXPUPERF_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${XPUPERF_CUDA_ARCHITECTURES:-80;90}" \
  -DXPUPERF_BUILD_TESTS=ON -DXPUPERF_BUILD_BENCHMARKS=OFF || finish
step build 160 cmake --build "$build" --parallel "$(nproc)" --target xpuperf cuda_bench_gpu_tests \
  cuda_bench_tests cuda_baselines || finish
xpuperf=$build/xpuperf

# 4. Tests: the host-side ones, then each kernel on a small problem on the GPU.
step host_tests 15 "$build/cuda_bench/cuda_bench_tests" --gtest_brief=1
step gpu_tests 45 "$build/cuda_bench_gpu_tests"

# 5. The devices and the quick suite on the CPU and every GPU.
step devices 10 "$xpuperf" devices
results="$out/results-quick"
rm -rf "$results"
step bench_quick 120 "$xpuperf" bench run --suite quick --out "$results"
cp "$results/summary.csv" "$out/summary.csv" 2>/dev/null

# 6. The baselines of docs/PERFORMANCE.md's bars: cuBLASLt and cudaMemcpyAsync in bare loops.
step baselines 30 bash -c "'$build/cuda_baselines' gemm 8192 8192 8192 &&
  '$build/cuda_baselines' h2d 268435456 && '$build/cuda_baselines' d2h 268435456 &&
  '$build/cuda_baselines' d2d 268435456"

# 7. Reports, where this build has the commands.
if [ -d "$results" ]; then
  if "$xpuperf" bench check --help >/dev/null 2>&1; then
    step bench_check 10 "$xpuperf" bench check "$results"
  fi
  if "$xpuperf" roofline --help >/dev/null 2>&1; then
    step roofline 10 "$xpuperf" roofline "$results" --svg "$out/roofline.svg" \
      --html "$out/roofline.html"
  fi
fi
finish
