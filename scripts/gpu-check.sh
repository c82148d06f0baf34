#!/usr/bin/env bash
# The device check: on a machine with an NVIDIA GPU, builds xpuperf with the CUDA benchmarks (or
# takes a bundle built elsewhere), runs the GPU unit tests, `xpuperf devices`, the quick suite (CPU
# and GPUs), the bare cuBLASLt/cudaMemcpyAsync baselines, `xpuperf bench check` and `xpuperf
# roofline`, and writes every log, result and report into one folder. Each step has its own time
# limit (480 s together), so the check ends within 8 minutes.
#
#   scripts/gpu-check.sh [--prebuilt BUNDLE] [--archive FILE] [OUT_DIR]
#
#   OUT_DIR             where logs, results and reports go (default: gpu-check-<UTC time>)
#   --prebuilt BUNDLE   use a bundle from scripts/gpu-bundle.sh (its .tar.xz or an unpacked folder)
#                       instead of building: for a GPU machine without the Debian packages xpuperf
#                       builds with and no way to fetch them
#   --archive FILE      also pack OUT_DIR into FILE (.tar.gz), for a caller that takes few files back
#
# Without --prebuilt it needs the CUDA toolkit and installs the Debian packages the build needs
# (scripts/install-deps.sh), saying so when it cannot. CUDA libraries outside the loader's search
# path (NCCL or cuBLASLt inside a Python environment's nvidia-* packages) are found and added to
# LD_LIBRARY_PATH. Exit code: 0 when every step passed, otherwise 1 (the summary at the end names
# the failed steps); 2 on bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
prebuilt=""
archive=""
out=""
while [ $# -gt 0 ]; do
  case $1 in
    --prebuilt) prebuilt=${2:?--prebuilt needs a bundle}; shift 2 ;;
    --archive) archive=${2:?--archive needs a file}; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-check: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "gpu-check: one OUT_DIR only" >&2; exit 2; }; out=$1; shift ;;
  esac
done
if [ -n "$prebuilt" ] && [ ! -e "$prebuilt" ]; then
  echo "gpu-check: no bundle at $prebuilt (make one with scripts/gpu-bundle.sh)" >&2
  exit 2
fi
[ -n "$prebuilt" ] && prebuilt=$(cd "$(dirname "$prebuilt")" && pwd)/$(basename "$prebuilt")
[ -n "$archive" ] && archive=$(mkdir -p "$(dirname "$archive")" && cd "$(dirname "$archive")" && pwd)/$(basename "$archive")
out=${out:-gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${XPUPERF_GPU_BUILD_DIR:-build-gpu}
summary="$out/summary.txt"
: >"$summary"
failed=()
start_all=$(date +%s)

# step NAME SECONDS COMMAND...: runs COMMAND with a time limit, output to $out/NAME.log (and the
# terminal), and records "NAME: ok|skipped|FAILED (rc) in N s" in the summary (77: skipped).
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
  elif [ "$rc" -eq 77 ]; then  # the tests' "skipped" code: no GPU or driver, said in the log
    echo "$name: skipped in ${dt} s: $(tail -1 "$out/$name.log")" | tee -a "$summary"
    failed+=("$name")
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
  [ ${#failed[@]} -gt 0 ] && echo "gpu-check: failed steps: ${failed[*]}" | tee -a "$summary"
  if [ -n "$archive" ]; then
    tar -C "$(dirname "$out")" -czf "$archive.tmp" "$(basename "$out")" && mv "$archive.tmp" "$archive" &&
      echo "gpu-check: packed into $archive"
  fi
  echo "gpu-check: results in $out"
  [ ${#failed[@]} -gt 0 ] && exit 1
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

# Libraries xpuperf loads at run time (the driver's libcuda and NVML, cuBLASLt, NCCL) where the
# loader would not find them: a driver mounted outside the loader's path, a Python environment's
# nvidia-* packages, a toolkit outside /usr/local/cuda.
for lib in libcuda.so.1 libnvidia-ml.so.1 libcublasLt.so.13 libnccl.so.2; do
  ldconfig -p 2>/dev/null | grep -q "$lib" && continue
  [ -e "/usr/local/cuda/lib64/$lib" ] && continue
  found=$(find /usr/local /opt /usr/lib /usr/lib64 -name "$lib" -not -path "*/stubs/*" -print -quit \
    2>/dev/null)
  if [ -n "$found" ]; then
    export LD_LIBRARY_PATH="$(dirname "$found")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "gpu-check: $lib from $found" | tee -a "$summary"
  else
    echo "gpu-check: $lib not found; the benchmarks that need it will say so" | tee -a "$summary"
  fi
done

if [ -n "$prebuilt" ]; then
  # 2-3. A bundle from scripts/gpu-bundle.sh: unpacked, nothing to build.
  bundle=$prebuilt
  if [ -f "$prebuilt" ]; then
    unpacked=$(mktemp -d)
    trap 'rm -rf "$unpacked"' EXIT
    bundle=$unpacked/xpuperf-gpu
    step unpack 60 tar -C "$(dirname "$bundle")" -xJf "$prebuilt" || finish
  fi
  cp "$bundle/MANIFEST.txt" "$out/bundle-manifest.txt" 2>/dev/null
  bin=$bundle/bin
  host_tests=$bin/cuda_bench_tests
else
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
      "not be installed (is the apt archive reachable from this machine?); trying to build anyway" \
      "(or build a bundle elsewhere with scripts/gpu-bundle.sh and pass --prebuilt)" |
      tee -a "$summary"
  fi

  # 3. Build with CUDA (only what the check runs).
  step configure 30 cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DXPUPERF_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES="${XPUPERF_CUDA_ARCHITECTURES:-80;90}" \
    -DXPUPERF_BUILD_TESTS=ON -DXPUPERF_BUILD_BENCHMARKS=OFF || finish
  step build 160 cmake --build "$build" --parallel "$(nproc)" --target xpuperf cuda_bench_gpu_tests \
    cuda_bench_tests cuda_baselines || finish
  bin=$build
  host_tests=$build/cuda_bench/cuda_bench_tests
fi
xpuperf=$bin/xpuperf

# 4. Tests: the host-side ones, then each kernel on a small problem on the GPU.
step host_tests 15 "$host_tests" --gtest_brief=1
step gpu_tests 45 "$bin/cuda_bench_gpu_tests"

# 5. The devices, their health and the diagnostic (device memory patterns and the verified device
#    load of level 3), then the quick suite on the CPU and every GPU.
step devices 10 "$xpuperf" devices
step health 15 "$xpuperf" health
step diag 90 "$xpuperf" diag -r 3 --duration 20 --out "$out/diag"
results="$out/results-quick"
rm -rf "$results"
step bench_quick 120 "$xpuperf" bench run --suite quick --out "$results"
cp "$results/summary.csv" "$out/summary.csv" 2>/dev/null

# 6. The baselines of docs/PERFORMANCE.md's bars: cuBLASLt and cudaMemcpyAsync in bare loops.
step baselines 30 bash -c "'$bin/cuda_baselines' gemm 8192 8192 8192 &&
  '$bin/cuda_baselines' h2d 268435456 && '$bin/cuda_baselines' d2h 268435456 &&
  '$bin/cuda_baselines' d2d 268435456"

# 7. Reports.
if [ -d "$results" ]; then
  step bench_check 10 "$xpuperf" bench check "$results"
  step roofline 10 "$xpuperf" roofline "$results" --svg "$out/roofline.svg" \
    --html "$out/roofline.html"
fi
finish
