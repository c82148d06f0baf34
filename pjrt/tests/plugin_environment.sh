#!/usr/bin/env bash
# ctest fixture: makes the cached virtual environment with XLA's CPU PJRT plugin and JAX
# (requirements/pjrt.txt) and writes the plugin's path to $2 ("" and exit 0 when it cannot be made:
# the tests that need it then skip, saying why).
set -uo pipefail
source_dir=$1
out=$2
: > "$out"
venv=$(bash "$source_dir/scripts/python-env.sh" pjrt) || { echo "pjrt: no virtual environment (pip failed)"; exit 0; }
plugin=$(ls "$venv"/lib/python3*/site-packages/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so 2>/dev/null | head -1)
[ -n "$plugin" ] || { echo "pjrt: xla_cpu_pjrt.so missing from $venv"; exit 0; }
printf '%s\n%s\n' "$plugin" "$venv" > "$out"
echo "pjrt: CPU plugin $plugin"
