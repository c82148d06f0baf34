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
# StableHLO bytecode of one small function from JAX in the same environment, for the plugin's
# bytecode path (CpuPlugin.CompilesJaxBytecode): a plain MLIR bytecode module and JAX's portable
# artifact (jax.export). f(a, b) = a . b + 1 over f32[2,3] x f32[3,2].
"$venv/bin/python" - "$(dirname "$out")" <<'PY' || echo "pjrt: no StableHLO bytecode from JAX"
import sys
import jax
import jax.numpy as jnp
from jax._src.interpreters import mlir
f = jax.jit(lambda a, b: jnp.dot(a, b) + 1.0)
spec = (jax.ShapeDtypeStruct((2, 3), jnp.float32), jax.ShapeDtypeStruct((3, 2), jnp.float32))
open(sys.argv[1] + "/dot_portable.mlirbc", "wb").write(
    jax.export.export(f)(*spec).mlir_module_serialized)
open(sys.argv[1] + "/dot_bytecode.mlirbc", "wb").write(
    mlir.module_to_bytecode(f.lower(*spec).compiler_ir("stablehlo")))
PY
printf '%s\n%s\n' "$plugin" "$venv" > "$out"
echo "pjrt: CPU plugin $plugin"
