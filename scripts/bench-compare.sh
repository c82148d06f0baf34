#!/usr/bin/env bash
# Runs xpuperf's benchmarks side by side with the reference tools on the same machine and threads:
#   fp64 peak   xpuperf peak_fma        vs likwid-bench -t peakflops_avx_fma
#   DRAM triad  xpuperf stream triad    vs likwid-bench -t stream_avx_fma (A = B*c + C, 24 B/elem)
#   DGEMM       xpuperf gemm            vs cblas_dgemm called directly (openblas_gemm_direct)
#   all_reduce  xpuperf bench network   vs a bare timed MPI_Allreduce loop (bare_allreduce), 8 MiB, 4 ranks
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

echo "== MPI all_reduce, 8 MiB of floats, 4 ranks on this host (busbw = algbw x 2(n-1)/n)"
# Same timing on both sides: 5 warm-up operations, 10 samples of 20 operations, sample time = the
# slowest rank's, median of the samples. Alternated five times (the ranks share the cores with
# everything else); the last line compares the medians of the five rounds.
if command -v mpirun >/dev/null && [ -x "$build/bare_allreduce" ]; then
  for round in 1 2 3 4 5; do
    "$build/xpuperf" bench network --ranks 4 -b 8M -e 8M --op all_reduce --iters 20 --warmup 5 \
      --samples 10 --out "$out/network$round" 2>/dev/null |
      awk '$4 == "all_reduce" { printf "xpuperf all_reduce %d bytes: median %s us, busbw %s GB/s\n", $1, $5, $7 }'
    mpirun --allow-run-as-root --oversubscribe -np 4 "$build/bare_allreduce" 8388608 20 10 5
  done | tee "$out/network.txt"
  awk '/^xpuperf all_reduce/ { x[nx++] = $(NF-1) } /^bare MPI_Allreduce/ { b[nb++] = $(NF-1) }
       function median(a, n,   i, j, t) {
         for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
         return n % 2 ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }
       END { mx = median(x, nx); mb = median(b, nb)
             printf "median of rounds: xpuperf busbw %.3f GB/s, bare loop %.3f GB/s, ratio %.1f%%\n", mx, mb, 100 * mx / mb }' \
    "$out/network.txt"
else
  echo "mpirun or $build/bare_allreduce missing (apt-get install openmpi-bin libopenmpi-dev)"
fi
