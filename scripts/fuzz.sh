#!/usr/bin/env bash
# Fuzzes the parsers with libFuzzer (clang + ASan + UBSan), seeded with the recorded trees' files.
# Usage: scripts/fuzz.sh [SECONDS] [parsers|trace|gpu|exporter|record|alerts|agent|ceilings|xplane|tpu_sdk|files|all]
#   (default 60 seconds per target, all). files: suites, workloads, spec sheets, result files and
#   memory timelines (one target each, SECONDS each).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=${2:-all}
bash scripts/install-deps.sh
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] && apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DXPUPERF_FUZZ=ON -DXPUPERF_SANITIZE=address,undefined -DXPUPERF_BUILD_TESTS=OFF \
  -DXPUPERF_BUILD_BENCHMARKS=OFF >/dev/null
# The parsers of user files, one target each.
file_targets="suite workload spec_sheet results memory_timeline"
case "$targets" in
  parsers) fuzz_targets="parsers_fuzzer" ;;
  trace) fuzz_targets="trace_reader_fuzzer" ;;
  gpu) fuzz_targets="gpu_parsers_fuzzer" ;;
  exporter) fuzz_targets="exporter_input_fuzzer http_request_fuzzer" ;;
  record) fuzz_targets="record_timeline_fuzzer bmc_power_fuzzer" ;;
  alerts) fuzz_targets="alerts_rules_fuzzer" ;;
  agent) fuzz_targets="agent_fuzzer" ;;
  ceilings) fuzz_targets="cpu_ceilings_fuzzer" ;;
  xplane) fuzz_targets="xplane_reader_fuzzer" ;;
  tpu_sdk) fuzz_targets="tpu_sdk_values_fuzzer" ;;
  files) fuzz_targets="$(for t in $file_targets; do echo -n "${t}_fuzzer "; done)" ;;
  all) fuzz_targets="parsers_fuzzer trace_reader_fuzzer gpu_parsers_fuzzer exporter_input_fuzzer http_request_fuzzer record_timeline_fuzzer bmc_power_fuzzer alerts_rules_fuzzer agent_fuzzer cpu_ceilings_fuzzer xplane_reader_fuzzer tpu_sdk_values_fuzzer $(for t in $file_targets; do echo -n "${t}_fuzzer "; done)" ;;
  *) echo "fuzz.sh: unknown target set '$targets' (parsers, trace, gpu, exporter, record, alerts, agent, ceilings, xplane, tpu_sdk, files, all)" >&2; exit 2 ;;
esac
cmake --build build-fuzz --target $fuzz_targets
# Seeds: each recorded procfs/sysfs text, prefixed with the byte that selects its parser.
corpus=build-fuzz/corpus
mkdir -p "$corpus"
trees=backends/cpu/tests/data/trees
seed() {
  if [ -f "$2" ]; then
    { printf "\\x$(printf %02x "$1")"; cat "$2"; } > "$corpus/seed-$1-$(echo "$2" | md5sum | cut -c1-8)"
  fi
}
for t in "$trees"/*/; do
  seed 0 "$t/proc/stat"; seed 1 "$t/proc/meminfo"; seed 2 "$t/proc/cpuinfo"
  for f in "$t"/proc/[0-9]*/stat; do seed 4 "$f"; done
  for f in "$t"/proc/[0-9]*/status; do seed 5 "$f"; done
  for f in "$t"/proc/[0-9]*/statm; do seed 6 "$f"; done
done
if [ "$targets" = parsers ] || [ "$targets" = all ]; then
  ./build-fuzz/fuzz/parsers_fuzzer -max_total_time="$seconds" -max_len=65536 "$corpus"
fi
# The trace reader: seeded with the synthetic snippets of fuzz/corpus/trace (a working copy, so
# what libFuzzer adds stays out of the repository).
if [ "$targets" = trace ] || [ "$targets" = all ]; then
  trace_corpus=build-fuzz/corpus-trace
  mkdir -p "$trace_corpus"
  cp fuzz/corpus/trace/* "$trace_corpus/"
  ./build-fuzz/fuzz/trace_reader_fuzzer -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=2048 \
    "$trace_corpus"
fi
# The GPU backends' kernel-file parsers: seeded with the gpu_metrics blobs (selector 0), the
# recorded fdinfo texts (1), RAS counts (2) and DPM levels (3) of the AMD and Intel trees.
if [ "$targets" = gpu ] || [ "$targets" = all ]; then
  gpu_corpus=build-fuzz/corpus-gpu
  mkdir -p "$gpu_corpus"
  gpu_seed() {
    { printf "\\x$(printf %02x "$1")"; cat "$2"; } > "$gpu_corpus/seed-$1-$(echo "$2" | md5sum | cut -c1-8)"
  }
  for f in backends/amd/tests/data/gpu_metrics/*.bin; do gpu_seed 0 "$f"; done
  for f in backends/amd/tests/data/trees/*/proc/*/fdinfo/* backends/intel/tests/data/trees/*/proc/*/fdinfo/*; do
    gpu_seed 1 "$f"
  done
  for f in backends/amd/tests/data/trees/*/sys/class/drm/card*/device/ras/*_err_count; do gpu_seed 2 "$f"; done
  for f in backends/amd/tests/data/trees/*/sys/class/drm/card*/device/pp_dpm_*; do gpu_seed 3 "$f"; done
  for f in health/tests/data/trees/*/dev/kmsg; do gpu_seed 4 "$f"; done
  ./build-fuzz/fuzz/gpu_parsers_fuzzer -max_total_time="$seconds" -max_len=4096 "$gpu_corpus"
fi
# The exporter's inputs (web config, Accept, Authorization, --listen), seeded from fuzz/corpus/exporter,
# and the HTTP request parser.
if [ "$targets" = exporter ] || [ "$targets" = all ]; then
  exporter_corpus=build-fuzz/corpus-exporter
  mkdir -p "$exporter_corpus"
  cp fuzz/corpus/exporter/* "$exporter_corpus/"
  ./build-fuzz/fuzz/exporter_input_fuzzer -max_total_time="$seconds" -max_len=8192 "$exporter_corpus"
  # The HTTP request parser of serve and capture --on-alert, seeded from fuzz/corpus/http.
  http_corpus=build-fuzz/corpus-http
  mkdir -p "$http_corpus"
  cp fuzz/corpus/http/* "$http_corpus/"
  ./build-fuzz/fuzz/http_request_fuzzer -max_total_time="$seconds" -max_len=4096 "$http_corpus"
fi
# The recording reader (analyze --telemetry), seeded from fuzz/corpus/record.
if [ "$targets" = record ] || [ "$targets" = all ]; then
  record_corpus=build-fuzz/corpus-record
  mkdir -p "$record_corpus"
  cp fuzz/corpus/record/* "$record_corpus/"
  record_seconds=$(( seconds < 20 ? seconds : 20 ))
  ./build-fuzz/fuzz/record_timeline_fuzzer -max_total_time="$record_seconds" -max_len=8192 \
    -rss_limit_mb=2048 "$record_corpus"
  # The parsers of ipmitool's power output (the BMC source), seeded from fuzz/corpus/bmc.
  bmc_corpus=build-fuzz/corpus-bmc
  mkdir -p "$bmc_corpus"
  cp fuzz/corpus/bmc/* "$bmc_corpus/"
  ./build-fuzz/fuzz/bmc_power_fuzzer -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 \
    "$bmc_corpus"
fi
# The built-in rule engine's inputs (PromQL, rule files, series notation, state files), seeded
# from fuzz/corpus/alerts.
if [ "$targets" = alerts ] || [ "$targets" = all ]; then
  alerts_corpus=build-fuzz/corpus-alerts
  mkdir -p "$alerts_corpus"
  cp fuzz/corpus/alerts/* "$alerts_corpus/"
  ./build-fuzz/fuzz/alerts_rules_fuzzer -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 \
    "$alerts_corpus"
fi
# The agent: RPC frames and requests, Kineto IPC datagrams, config text, capture's host names,
# `capture --on-alert`'s webhook messages (selector 4); seeded from fuzz/corpus/agent (the first byte of each seed selects the input).
if [ "$targets" = agent ] || [ "$targets" = all ]; then
  agent_corpus=build-fuzz/corpus-agent
  mkdir -p "$agent_corpus"
  cp fuzz/corpus/agent/* "$agent_corpus/"
  ./build-fuzz/fuzz/agent_fuzzer -max_total_time="$seconds" -max_len=8192 "$agent_corpus"
fi
# The CPU compute ceilings: cpuinfo texts (selector 0: the recorded trees and the ISA fixtures)
# and sweep points (1: peak_fma, 2: gemm) from fuzz/corpus/ceilings.
if [ "$targets" = ceilings ] || [ "$targets" = all ]; then
  ceilings_corpus=build-fuzz/corpus-ceilings
  mkdir -p "$ceilings_corpus"
  cp fuzz/corpus/ceilings/* "$ceilings_corpus/"
  for f in "$trees"/*/proc/cpuinfo bench/tests/data/cpuinfo/*.txt; do
    { printf '\x00'; cat "$f"; } > "$ceilings_corpus/seed-0-$(echo "$f" | md5sum | cut -c1-8)"
  done
  ./build-fuzz/fuzz/cpu_ceilings_fuzzer -max_total_time="$seconds" -max_len=16384 "$ceilings_corpus"
fi
# libtpu's SDK values, seeded with the value lists of the fake libtpu's scenarios (each list's
# items as lines, after a byte that picks the SDK metric).
if [ "$targets" = tpu_sdk ] || [ "$targets" = all ]; then
  sdk_corpus=build-fuzz/corpus-tpu-sdk
  mkdir -p "$sdk_corpus"
  python3 - "$sdk_corpus" backends/tpu/tests/fake_libtpu/*.json <<'PY'
import json, sys
out, files = sys.argv[1], sys.argv[2:]
n = 0
for path in files:
  for entry in json.load(open(path)).get("metrics", {}).values():
    data = entry.get("data")
    if data:
      for selector in range(19):
        with open(f"{out}/seed-{n}", "wb") as f:
          f.write(bytes([selector]) + "\n".join(data).encode())
        n += 1
PY
  ./build-fuzz/fuzz/tpu_sdk_values_fuzzer -max_total_time="$seconds" -max_len=4096 "$sdk_corpus"
fi
# The .xplane.pb reader and the XLA profiler's reply decoder, seeded from fuzz/corpus/xplane
# (XSpaces written by trace/tests/xspace_builder.h).
if [ "$targets" = xplane ] || [ "$targets" = all ]; then
  xplane_corpus=build-fuzz/corpus-xplane
  mkdir -p "$xplane_corpus"
  cp fuzz/corpus/xplane/* "$xplane_corpus/"
  ./build-fuzz/fuzz/xplane_reader_fuzzer -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=2048 \
    "$xplane_corpus"
fi
# The parsers of user files, each seeded with the repository's own files of its kind (copied, so
# what libFuzzer adds stays out of the repository).
if [ "$targets" = files ] || [ "$targets" = all ]; then
  seed_files() {  # target, files...
    local dir=build-fuzz/corpus-$1
    shift
    mkdir -p "$dir"
    for f in "$@"; do
      if [ -f "$f" ]; then cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-8)-$(basename "$f")"; fi
    done
  }
  seed_files suite bench/suites/*.yaml
  seed_files workload roofline/tests/data/*.yaml cli/tests/data/roofline/*.yaml
  seed_files spec_sheet spec/sheets/*.yaml
  seed_files results roofline/tests/data/*/results.jsonl cli/tests/data/roofline/*/results.jsonl
  seed_files memory_timeline fuzz/corpus/trace/memory_timeline.json
  for t in $file_targets; do
    ./build-fuzz/fuzz/"${t}"_fuzzer -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=2048 \
      build-fuzz/corpus-"$t"
  done
fi
