#!/usr/bin/env bash
# Runs xpuperf's benchmarks side by side with the reference tools on the same machine and threads:
#   fp64 peak   xpuperf peak_fma        vs likwid-bench -t peakflops_avx_fma
#   DRAM triad  xpuperf stream triad    vs likwid-bench -t stream_avx_fma (A = B*c + C, 24 B/elem)
#   DGEMM       xpuperf gemm            vs cblas_dgemm called directly (openblas_gemm_direct)
# Usage: scripts/bench-compare.sh [BUILD_DIR]  (default build). Needs the Debian package likwid.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
threads=$(nproc)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== fp64 peak, $threads threads"
"$build/xpuperf" bench compute -b peak_fma --samples 10 --out "$out/peak" 2>/dev/null | grep fp64
if command -v likwid-bench >/dev/null; then
  likwid-bench -t peakflops_avx_fma -W "N:64kB:$threads" 2>/dev/null | grep -E "^MFlops/s"
else
  echo "likwid-bench not installed (apt-get install likwid)"
fi

echo "== DRAM triad, $threads threads, 3 arrays of 128 MiB"
cat > "$out/triad.yaml" <<'YAML'
name: triad
sampling: {warmup_samples: 1, samples: 10, min_sample_seconds: 0.05}
benchmarks:
  - benchmark: stream
    sweep: [{kernel: triad, array_mib: 128}]
YAML
"$build/xpuperf" bench memory --suite "$out/triad.yaml" --out "$out/triad" 2>/dev/null |
  grep "triad_bandwidth "
if command -v likwid-bench >/dev/null; then
  # 3 arrays x 128 MiB = 384 MiB working set, as above; likwid counts 24 B per element too.
  likwid-bench -t stream_avx_fma -W "N:384MB:$threads" 2>/dev/null | grep -E "^MByte/s"
fi

echo "== DGEMM 1024^3 and 2048^3, $threads threads"
cat > "$out/gemm.yaml" <<'YAML'
name: gemm
sampling: {warmup_samples: 1, samples: 10, min_sample_seconds: 0.01}
benchmarks:
  - benchmark: gemm
    sweep:
      - {precision: fp64, m: 1024, n: 1024, k: 1024}
      - {precision: fp64, m: 2048, n: 2048, k: 2048}
YAML
"$build/xpuperf" bench compute --suite "$out/gemm.yaml" --out "$out/gemm" 2>/dev/null | grep "gemm "
OPENBLAS_NUM_THREADS=$threads "$build/openblas_gemm_direct" fp64 1024 1024 1024 10
OPENBLAS_NUM_THREADS=$threads "$build/openblas_gemm_direct" fp64 2048 2048 2048 10
