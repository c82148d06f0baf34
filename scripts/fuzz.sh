#!/usr/bin/env bash
# Fuzzes the parsers with libFuzzer (clang + ASan + UBSan), seeded with the recorded trees' files.
# Usage: scripts/fuzz.sh [SECONDS] [parsers|trace|files|all]   (default 60 seconds per target, all)
#   parsers: procfs/sysfs; trace: the trace reader; files: suites, workloads, spec sheets, result
#   files and memory timelines (one target each).
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
file_targets="suite workload spec_sheet results memory_timeline"
cmake --build build-fuzz --target parsers_fuzzer trace_reader_fuzzer \
  $(for t in $file_targets; do echo "${t}_fuzzer"; done)
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
# The parsers of user files, each seeded with the repository's own files of its kind (copied, so
# what libFuzzer adds stays out of the repository).
if [ "$targets" = files ] || [ "$targets" = all ]; then
  seed_files() {  # target, files...
    local dir=build-fuzz/corpus-$1
    shift
    mkdir -p "$dir"
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-8)-$(basename "$f")"; done
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
