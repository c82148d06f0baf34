#!/usr/bin/env bash
# Runs xpuperf's benchmarks side by side with the reference tools on the same machine and threads:
#   fp64/fp32 peak  xpuperf peak_fma    vs likwid-bench's best peakflops* kernel for the CPU's ISA
#   clock       peak_fma's measured clock vs perf stat cycles / task-clock (where counters exist)
#   oneDNN GEMM xpuperf gemm (onednn)   vs the same matmul primitive in a bare loop (onednn_gemm_direct)
#   DRAM triad  xpuperf stream triad    vs likwid-bench -t stream_avx_fma (A = B*c + C, 24 B/elem)
#   DGEMM       xpuperf gemm            vs cblas_dgemm called directly (openblas_gemm_direct)
#   all_reduce  xpuperf bench network   vs a bare timed MPI_Allreduce loop (bare_allreduce), 8 MiB, 4 ranks
# Usage: scripts/bench-compare.sh [BUILD_DIR [SECTION...]]  (default build, every section; sections:
# peak triad dgemm onednn network). Needs the Debian package likwid.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sections=" ${*:-peak triad dgemm onednn network} "
want() { [[ "$sections" == *" $1 "* ]]; }
threads=$(nproc)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

if want peak; then
echo "== fp64 and fp32 peak, $threads threads: xpuperf peak_fma vs likwid-bench's best peakflops* kernel"
# Alternated for five rounds (the cores are shared with whatever else runs); the ratios compare the
# medians of the rounds. likwid's kernels for this CPU's widest ISA: avx512_fma where the CPU has
# AVX-512F, and avx_fma; the best of them is the referee.
cat > "$out/peak.yaml" <<'YAML'
name: peak
sampling: {warmup_samples: 1, samples: 10, min_sample_seconds: 0.05}
benchmarks:
  - benchmark: peak_fma
    sweep: [{precision: fp64}, {precision: fp32}]
YAML
isa=avx_fma
grep -qw avx512f /proc/cpuinfo && isa="avx512_fma avx_fma"
perf_counts=yes
perf stat -e cycles -x, true 2>&1 | grep -q "<not" && perf_counts=""
for round in 1 2 3 4 5; do
  rm -rf "$out/peak"
  if [ -n "$perf_counts" ]; then
    perf stat -e cycles,task-clock -x, -o "$out/perf.csv" -- \
      "$build/xpuperf" bench compute --suite "$out/peak.yaml" --out "$out/peak" >/dev/null 2>&1
    perf_ghz=$(awk -F, '$3 == "cycles" { c = $1 } $3 == "task-clock" { t = $1 } END { if (t > 0) printf "%.4f", c / (t * 1e6) }' "$out/perf.csv")
  else
    "$build/xpuperf" bench compute --suite "$out/peak.yaml" --out "$out/peak" >/dev/null 2>&1
    perf_ghz=""
  fi
  python3 - "$out/peak/results.jsonl" "$perf_ghz" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    clock = (r["parameters"].get("clock") or {}).get("measured") or {}
    print(f"xpuperf {r['metric']} {r['value'] * 1e3:.1f} MFlops/s {r['parameters']['simd']} "
          f"clock {clock.get('hertz', 0) / 1e9:.4f} GHz perf {sys.argv[2] or 'n/a'}")
PY
  for kernel in $isa; do
    for precision in "" sp_; do
      # 16 KiB per thread: the arrays stay in L1, as the FMA chains stay in registers.
      mflops=$(likwid-bench -t "peakflops_${precision}${kernel}" -W "N:$((16 * threads))kB:$threads" \
        2>/dev/null | awk '/^MFlops\/s/ { print $2 }')
      echo "likwid $([ -z "$precision" ] && echo fp64_flops || echo fp32_flops) ${mflops:-0} MFlops/s peakflops_${precision}${kernel}"
    done
  done
done | tee "$out/peak.txt"
[ -z "$perf_counts" ] && echo "perf stat: no cycles counter on this machine (a VM without a PMU): clock not cross-checked"
python3 - "$out/peak.txt" <<'PY'
import statistics, sys
xp, lk, clocks, perf = {}, {}, [], []
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "xpuperf":
        xp.setdefault(f[1], []).append(float(f[2]))
        clocks.append(float(f[6]))
        if f[9] != "n/a":
            perf.append(float(f[9]))
    elif f[0] == "likwid":
        lk.setdefault((f[1], f[4]), []).append(float(f[2]))
for metric, values in xp.items():
    best = max((statistics.median(v), k) for (m, k), v in lk.items() if m == metric)
    mx = statistics.median(values)
    print(f"median of rounds: xpuperf {metric} {mx:.1f} MFlops/s, likwid best {best[1]} "
          f"{best[0]:.1f} MFlops/s, ratio {mx / best[0]:.3f} (bar 0.97)")
print(f"measured clock: median {statistics.median(clocks):.3f} GHz")
if perf:
    print(f"perf stat cycles/task-clock: median {statistics.median(perf):.3f} GHz, measured/perf "
          f"{statistics.median(clocks) / statistics.median(perf):.3f} (bar within 3%)")
PY
fi

if want triad; then
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
fi

if want dgemm; then
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
fi

if want onednn; then
echo "== oneDNN matmul through xpuperf vs a bare loop over the same primitive, $threads threads"
cat > "$out/onednn.yaml" <<'YAML'
name: onednn
sampling: {warmup_samples: 1, samples: 10, min_sample_seconds: 0.01}
benchmarks:
  - benchmark: gemm
    sweep:
      - {precision: fp32, library: onednn, m: 1024, n: 1024, k: 1024}
      - {precision: fp32, library: onednn, m: 256, n: 4096, k: 4096}
      - {precision: bf16, m: 1024, n: 1024, k: 1024}
      - {precision: bf16, m: 256, n: 4096, k: 4096}
      - {precision: int8, m: 1024, n: 1024, k: 1024}
      - {precision: int8, m: 256, n: 4096, k: 4096}
YAML
if [ -x "$build/onednn_gemm_direct" ]; then
  # Alternated for five rounds; the ratios compare the medians of the rounds.
  for round in 1 2 3 4 5; do
    "$build/xpuperf" bench compute --suite "$out/onednn.yaml" --out "$out/onednn$round" 2>&1 |
      grep -E "^(run|skip) +gemm" | sed "s/^/xpuperf: /"
    for shape in "1024 1024 1024" "256 4096 4096"; do
      for precision in fp32 bf16 int8; do
        OMP_NUM_THREADS=$threads OMP_PROC_BIND=true "$build/onednn_gemm_direct" $precision $shape 10
      done
    done
  done | tee "$out/onednn.txt"
  python3 - "$out/onednn.txt" <<'PY'
import re, statistics, sys
xp, direct = {}, {}
for line in open(sys.argv[1]):
    m = re.search(r'"k":(\d+).*"m":(\d+),"n":(\d+),"precision":"(\w+)".* (?:fp32_flops|int8_ops) ([\d.]+)', line)
    if line.startswith("xpuperf: run") and m:
        xp.setdefault((m[4], m[2], m[3], m[1]), []).append(float(m[5]))
    d = re.search(r"onednn direct (\w+) m=(\d+) n=(\d+) k=(\d+): ([\d.]+)", line)
    if d:
        direct.setdefault(d.groups()[:4], []).append(float(d[5]))
for key, values in sorted(xp.items()):
    if key in direct:
        x, b = statistics.median(values), statistics.median(direct[key])
        print(f"median of rounds: {key[0]} m={key[1]} n={key[2]} k={key[3]}: xpuperf {x:.2f}, "
              f"bare loop {b:.2f}, ratio {x / b:.3f} (bar 0.97)")
PY
else
  echo "$build/onednn_gemm_direct missing (apt-get install libdnnl-dev)"
fi
fi

if want network; then
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
fi
