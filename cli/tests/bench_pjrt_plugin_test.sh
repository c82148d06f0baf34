#!/usr/bin/env bash
# `xpuperf bench run --pjrt-plugin PATH` on XLA's CPU plugin (from the pjrt_plugin_environment
# fixture): the option outranks $XPUPERF_PJRT_PLUGIN, a point's own `plugin:` outranks the option,
# the per-component commands (`bench compute`) take it too, each record names the plugin it ran on,
# and `compare` pairs the records of two such runs. The same plugin is also reached through a
# second path (a symbolic link), so that the records say which path was chosen. A path that is not
# a plugin is refused in one line, exit 2 (also in cli_tests, CommandBenchTest).
# Usage: bench_pjrt_plugin_test.sh XPUPERF PLUGIN_PATH_FILE
set -euo pipefail
xpuperf=$1
cpu_plugin=$(head -1 "$2" 2>/dev/null || true)
[ -n "$cpu_plugin" ] || { echo "skipped: XLA's CPU PJRT plugin is not available to this build"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/other"
other=$tmp/other/xla_cpu_pjrt.so  # named as the CPU plugin, so it is one by its kind too
ln -s "$cpu_plugin" "$other"
suite() {  # FILE [POINT KEYS]
  cat > "$1" <<YAML
name: pjrt-plugin-option
description: one pjrt_dispatch point for bench_pjrt_plugin_test.sh
sampling: {warmup_samples: 0, samples: 3, min_sample_seconds: 0.001}
benchmarks:
  - benchmark: pjrt_dispatch
    sweep: [{${2:-}}]
YAML
}
# The plugin path(s) the records of a result directory name.
plugins() {
  /usr/bin/python3 -c 'import json, sys
print(" ".join(sorted({json.loads(l)["parameters"]["plugin"] for l in open(sys.argv[1])})))' "$1/results.jsonl"
}
suite "$tmp/plain.yaml"
suite "$tmp/own.yaml" "plugin: $other"

# No option: $XPUPERF_PJRT_PLUGIN.
XPUPERF_PJRT_PLUGIN=$other "$xpuperf" bench run --suite "$tmp/plain.yaml" --out "$tmp/env" >/dev/null 2>"$tmp/err" ||
  fail "run with XPUPERF_PJRT_PLUGIN: $(cat "$tmp/err")"
[ "$(plugins "$tmp/env")" = "$other" ] || fail "without the option: $(plugins "$tmp/env")"
# The option outranks the variable.
XPUPERF_PJRT_PLUGIN=$other "$xpuperf" bench run --suite "$tmp/plain.yaml" --pjrt-plugin "$cpu_plugin" \
  --out "$tmp/option" >/dev/null 2>"$tmp/err" || fail "run with --pjrt-plugin: $(cat "$tmp/err")"
[ "$(plugins "$tmp/option")" = "$cpu_plugin" ] || fail "--pjrt-plugin lost to the variable: $(plugins "$tmp/option")"
# A point's own plugin outranks the option.
"$xpuperf" bench run --suite "$tmp/own.yaml" --pjrt-plugin "$cpu_plugin" --out "$tmp/own" >/dev/null 2>"$tmp/err" ||
  fail "run of a point with its own plugin: $(cat "$tmp/err")"
[ "$(plugins "$tmp/own")" = "$other" ] || fail "the point's plugin lost to the option: $(plugins "$tmp/own")"
# A per-component command (pjrt_dispatch is a compute benchmark) takes the option too.
XPUPERF_PJRT_PLUGIN=$other "$xpuperf" bench compute --suite "$tmp/plain.yaml" --pjrt-plugin "$cpu_plugin" \
  --out "$tmp/compute" >/dev/null 2>"$tmp/err" || fail "bench compute --pjrt-plugin: $(cat "$tmp/err")"
[ "$(plugins "$tmp/compute")" = "$cpu_plugin" ] || fail "bench compute: $(plugins "$tmp/compute")"

# Two runs on the same plugin: compare pairs their records.
"$xpuperf" compare "$tmp/option" "$tmp/compute" --json > "$tmp/compare.json" || fail "compare: exit $?"
compared=$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]
print(len(d["compared"]), s["only_old"], s["only_new"], d["compared"][0]["metric"])' "$tmp/compare.json")
[ "$compared" = "1 0 0 dispatch_latency" ] || fail "compare of two PJRT runs: $compared: $(cat "$tmp/compare.json")"

# Not a plugin: one line, exit 2, nothing run or written.
set +e
"$xpuperf" bench run --suite "$tmp/plain.yaml" --pjrt-plugin "$tmp/plain.yaml" --out "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
code=$?
set -e
[ "$code" = 2 ] || fail "not a plugin: exit $code: $(cat "$tmp/err")"
[ "$(wc -l < "$tmp/err")" = 1 ] || fail "not a plugin: not one line: $(cat "$tmp/err")"
grep -q "^xpuperf bench: error: --pjrt-plugin: PJRT plugin $tmp/plain.yaml: cannot load" "$tmp/err" || fail "not a plugin: $(cat "$tmp/err")"
[ ! -e "$tmp/bad" ] || fail "a result directory was written for a bad plugin"
echo "ok: --pjrt-plugin over XPUPERF_PJRT_PLUGIN, a point's plugin over the option, bench compute, compare; bad path: $(cat "$tmp/err")"
