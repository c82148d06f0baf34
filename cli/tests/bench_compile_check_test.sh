#!/usr/bin/env bash
# `xpuperf bench compile-check`: every program of the PJRT benchmarks' default points compiled by
# Google's libtpu for a v5e 2x2 slice on this host, which has no TPU (libtpu from the cached virtual
# environment of requirements/libtpu.txt; skipped, 77, when it cannot be made); XLA's CPU plugin,
# which has no topologies, refused in one line; --topology missing is a usage error; a plugin whose
# GetPjrtApi never returns does not make the command deaf to SIGTERM.
# Usage: bench_compile_check_test.sh XPUPERF SOURCE_DIR PLUGIN_PATH_FILE HANGING_PLUGIN
set -euo pipefail
xpuperf=$1
source_dir=$2
cpu_plugin=$(head -1 "$3" 2>/dev/null || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

rc=0
"$xpuperf" bench compile-check --pjrt-plugin cpu > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "no --topology: exit $rc, expected 2"
grep -q -- "--topology is required" "$tmp/err" || fail "no --topology: $(cat "$tmp/err")"
if [ -n "$cpu_plugin" ]; then
  rc=0
  "$xpuperf" bench compile-check --topology cpu --pjrt-plugin "$cpu_plugin" > "$tmp/out" 2> "$tmp/err" || rc=$?
  [ "$rc" = 1 ] || fail "CPU plugin: exit $rc, expected 1"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "CPU plugin: not one line: $(cat "$tmp/err")"
  grep -q "PJRT_TopologyDescription_Create" "$tmp/err" || fail "CPU plugin: $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "CPU plugin: wrote to stdout"
fi

# SIGTERM while the plugin hangs in GetPjrtApi: exit 143 with one line, not a hang.
"$xpuperf" bench compile-check --topology x --pjrt-plugin "$4" > /dev/null 2> "$tmp/hang" &
pid=$!
for _ in $(seq 600); do  # until the plugin is mapped (its GetPjrtApi is then being called)
  grep -q fake_pjrt_hangs "/proc/$pid/maps" 2> /dev/null && break
  sleep 0.1
done
sleep 0.2
kill -TERM "$pid"
rc=0
timeout 120 tail --pid="$pid" -f /dev/null || fail "SIGTERM during a hung plugin load: still running"
wait "$pid" || rc=$?
[ "$rc" = 143 ] || fail "SIGTERM during a hung plugin load: exit $rc: $(cat "$tmp/hang")"
grep -q "was loading" "$tmp/hang" || fail "SIGTERM during a hung plugin load: $(cat "$tmp/hang")"

if ! venv=$(bash "$source_dir/scripts/python-env.sh" libtpu 2> "$tmp/pip"); then
  echo "skipped: pip could not install requirements/libtpu.txt ($(tail -1 "$tmp/pip"))"
  exit 77
fi
libtpu=$(ls "$venv"/lib/python3*/site-packages/libtpu/libtpu.so | head -1)
timeout 300 "$xpuperf" bench compile-check --topology v5e:2x2 --pjrt-plugin "$libtpu" --json \
  > "$tmp/report.json" 2> "$tmp/libtpu.log" || fail "compile-check exit $?: $(grep -v '^[EIW][0-9]\{4\} ' "$tmp/libtpu.log" | tail -3)"
python3 - "$tmp/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["platform"] == "tpu" and r["devices"] == 4, r
assert r["failures"] == 0, [p for p in r["programs"] if not p["compiled"]]
names = {p["benchmark"] for p in r["programs"]}
assert names == {"pjrt_gemm", "pjrt_stream", "pjrt_collectives", "pjrt_attention",
                 "pjrt_dispatch"}, names
gemm = next(p for p in r["programs"] if p["point"] == "precision=bf16 m=1024 n=1024 k=1024")
assert gemm["flops"] == 2 * 1024 ** 3, gemm  # XLA's cost analysis: one iteration, 2 m n k
assert gemm["argument_bytes"] >= 2 * 1024 * 1024 * 2 and gemm["generated_code_bytes"] > 0, gemm
collectives = [p for p in r["programs"] if p["benchmark"] == "pjrt_collectives"]
assert len(collectives) == 5 and all(p["replicas"] == 4 for p in collectives), collectives
print(f"{len(r['programs'])} programs compiled for {r['topology']} ({r['device_kind']})")
PY
