#!/usr/bin/env bash
# The PJRT benchmarks against JAX on the same CPU, side by side in one run: pjrt_gemm and
# pjrt_stream through XLA's CPU PJRT plugin (xla-cpu-pjrt) and the same operations through JAX
# (jaxlib's XLA), alternating ROUNDS times; prints each figure's median over the rounds and the ratio.
#   scripts/pjrt-compare.sh [ROUNDS] [--check LOW]
# --check LOW exits 1 when a GEMM ratio falls outside [LOW, 1/LOW] (a gross check for tests: a GEMM
# the compiler hoisted out of its loop would show as many times faster than JAX; the bandwidth
# loops carry their data from one iteration to the next and cannot be hoisted).
# PJRT_COMPARE_REFEREE: "plugin" (default) runs JAX on the same xla-cpu-pjrt plugin, registered as
# a JAX backend with a 1-device client (the same compiler on both sides: a difference is the
# runner's); "jaxlib" runs it on jaxlib's own CPU client (a newer XLA than the plugin's).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
low=""
[ "${2:-}" = "--check" ] && low=${3:?--check needs a ratio}
build=${XPUPERF_BUILD_DIR:-build}
xpuperf=$build/xpuperf
[ -x "$xpuperf" ] || { echo "pjrt-compare: build xpuperf first (scripts/build.sh $build)" >&2; exit 2; }
venv=$(bash scripts/python-env.sh pjrt)
plugin=$(ls "$venv"/lib/python3*/site-packages/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so | head -1)
gemm=${PJRT_COMPARE_GEMM:-1024}
elements=${PJRT_COMPARE_ELEMENTS:-33554432}
referee=${PJRT_COMPARE_REFEREE:-plugin}
case $referee in
  plugin) referee_args=(--pjrt-plugin "$plugin") ;;
  jaxlib) referee_args=() ;;
  *) echo "pjrt-compare: PJRT_COMPARE_REFEREE is plugin or jaxlib (got '$referee')" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/suite.yaml" <<YAML
name: pjrt-compare
description: pjrt_gemm and pjrt_stream for scripts/pjrt-compare.sh
sampling: {warmup_samples: 1, samples: 10, min_sample_seconds: 0.05}
benchmarks:
  - benchmark: pjrt_gemm
    sweep:
      - {precision: fp32, m: $gemm, n: $gemm, k: $gemm}
      - {precision: bf16, m: $gemm, n: $gemm, k: $gemm}
  - benchmark: pjrt_stream
    sweep: [{kernel: copy, elements: $elements}, {kernel: triad, elements: $elements}]
YAML
for r in $(seq "$rounds"); do
  XPUPERF_PJRT_PLUGIN=$plugin "$xpuperf" bench run --suite "$tmp/suite.yaml" --out "$tmp/run$r" >/dev/null
  "$venv/bin/python" pjrt_bench/tools/jax_reference.py --samples 10 "${referee_args[@]}" \
    "gemm:fp32:$gemm:$gemm:$gemm" "gemm:bf16:$gemm:$gemm:$gemm" \
    "stream:copy:$elements" "stream:triad:$elements" > "$tmp/jax$r.json"
done
/usr/bin/python3 - "$tmp" "$rounds" "$low" "$referee" <<'PY'
import json, statistics, sys
tmp, rounds, low, referee = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ours, jax = {}, {}
for r in range(1, rounds + 1):
    for line in open(f"{tmp}/run{r}/results.jsonl"):
        rec = json.loads(line)
        p = rec["parameters"]
        if rec["benchmark"] == "pjrt_gemm":
            key = f"gemm_{p['precision']}_{p['m']}x{p['n']}x{p['k']}"
        elif rec["benchmark"] == "pjrt_stream":
            key = f"stream_{p['kernel']}_{p['elements']}"
        else:
            continue
        ours.setdefault(key, []).append(rec["value"])
    for key, value in json.load(open(f"{tmp}/jax{r}.json")).items():
        jax.setdefault(key, []).append(value)
bad = False
print(f"{'figure':<28} {'xpuperf (PJRT)':>15} {'JAX':>12} {'ratio':>7}   (median of {rounds} rounds; GFLOP/s or GB/s; JAX on {referee})")
for key in sorted(jax):
    a, b = statistics.median(ours[key]), statistics.median(jax[key])
    ratio = a / b
    print(f"{key:<28} {a:>15.2f} {b:>12.2f} {ratio:>7.3f}")
    if low and key.startswith("gemm_") and not (float(low) <= ratio <= 1 / float(low)):
        bad = True
sys.exit(1 if bad else 0)
PY
