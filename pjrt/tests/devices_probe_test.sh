#!/usr/bin/env bash
# `xpuperf devices` probes PJRT plugins in a child process: XLA's CPU plugin (from the
# pjrt_plugin_environment fixture) lists its devices with its PJRT API; Google's libtpu (a cached
# virtual environment from requirements/libtpu.txt) loads, and on a machine without a TPU is
# reported as "unsupported: no TPU" with libtpu's own message, within the probe's deadline; a file
# that is not a plugin is refused in one line. Usage: devices_probe_test.sh XPUPERF SOURCE_DIR
# PLUGIN_PATH_FILE
set -euo pipefail
xpuperf=$1
source_dir=$2
cpu_plugin=$(head -1 "$3" 2>/dev/null || true)
[ -n "$cpu_plugin" ] || { echo "skipped: XLA's CPU PJRT plugin is not available to this build"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
field() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

"$xpuperf" devices --backend cpu --pjrt-plugin "$cpu_plugin" > "$tmp/text"
grep -q "^PJRT plugins" "$tmp/text" || fail "no PJRT section: $(cat "$tmp/text")"
grep -q "PJRT API 0\.[0-9]*, platform cpu" "$tmp/text" || fail "CPU plugin not described: $(cat "$tmp/text")"
"$xpuperf" devices --backend cpu --pjrt-plugin "$cpu_plugin" --json > "$tmp/cpu.json"
[ "$(field "$tmp/cpu.json" "d['pjrt_plugins'][0]['ok']")" = True ] || fail "CPU probe failed: $(cat "$tmp/cpu.json")"
[ "$(field "$tmp/cpu.json" "d['pjrt_plugins'][0]['platform']")" = cpu ] || fail "platform"
[ "$(field "$tmp/cpu.json" "len(d['pjrt_plugins'][0]['devices']) >= 1")" = True ] || fail "devices"
# Memory statistics: XLA's CPU plugin has none (UNIMPLEMENTED), said per device and once in text.
[ "$(field "$tmp/cpu.json" "d['pjrt_plugins'][0]['devices'][0]['memory_unavailable'].startswith('unsupported: PJRT_Device_MemoryStats')")" = True ] || fail "memory_unavailable: $(cat "$tmp/cpu.json")"
grep -q "memory statistics: unsupported: PJRT_Device_MemoryStats" "$tmp/text" || fail "memory line: $(cat "$tmp/text")"
# A plugin that reports them (the test wrapper around the CPU plugin: 1 MiB in use of 16 GiB).
wrapper=$(dirname "$(dirname "$3")")/pjrt/fake_plugins/fake_pjrt_profiling_wrapper.so
[ -f "$wrapper" ] || fail "$wrapper is missing (built with the tests)"
XPUPERF_WRAPPED_PJRT_PLUGIN=$cpu_plugin "$xpuperf" devices --backend cpu --pjrt-plugin "$wrapper" --json > "$tmp/wrapped.json"
[ "$(field "$tmp/wrapped.json" "d['pjrt_plugins'][0]['devices'][0]['memory']")" = "{'bytes_in_use': 1048576, 'bytes_limit': 17179869184}" ] || fail "memory: $(cat "$tmp/wrapped.json")"
XPUPERF_WRAPPED_PJRT_PLUGIN=$cpu_plugin "$xpuperf" devices --backend cpu --pjrt-plugin "$wrapper" > "$tmp/wrapped.txt"
grep -q "device 0: 1.00 MiB in use of 16.00 GiB" "$tmp/wrapped.txt" || fail "memory text: $(cat "$tmp/wrapped.txt")"

# Not a plugin: the loader's refusal, in one line.
"$xpuperf" devices --backend cpu --pjrt-plugin /etc/hostname --json > "$tmp/bad.json"
error=$(field "$tmp/bad.json" "d['pjrt_plugins'][0]['error']")
case "$error" in *"cannot load"*) ;; *) fail "not-a-plugin error: $error" ;; esac
"$xpuperf" devices --backend cpu --no-pjrt --json > "$tmp/none.json"
[ "$(field "$tmp/none.json" "'pjrt_plugins' in d")" = False ] || fail "--no-pjrt still probed"

if ! venv=$(bash "$source_dir/scripts/python-env.sh" libtpu 2>"$tmp/pip.log"); then
  echo "libtpu part skipped: pip could not install requirements/libtpu.txt ($(tail -1 "$tmp/pip.log"))"
  exit 0
fi
libtpu=$(ls "$venv"/lib/python3*/site-packages/libtpu/libtpu.so | head -1)
start=$(date +%s)
XPUPERF_PJRT_PROBE_TIMEOUT=120 "$xpuperf" devices --backend cpu --pjrt-plugin "$libtpu" --json > "$tmp/tpu.json"
echo "libtpu probed in $(( $(date +%s) - start )) s"
[ "$(field "$tmp/tpu.json" "d['pjrt_plugins'][0]['ok']")" = False ] || fail "a TPU on this machine? $(cat "$tmp/tpu.json")"
error=$(field "$tmp/tpu.json" "d['pjrt_plugins'][0]['error']")
echo "libtpu: $error"
case "$error" in "unsupported: no TPU ("*PJRT_Client_Create*) ;; *) fail "libtpu error: $error" ;; esac
api=$(field "$tmp/tpu.json" "d['pjrt_plugins'][0]['pjrt_api']")
[ "${api%%.*}" = 0 ] && [ "${api#*.}" -ge 57 ] || fail "libtpu PJRT API $api"
echo "ok: CPU plugin listed, libtpu PJRT API $api reported as $error"
