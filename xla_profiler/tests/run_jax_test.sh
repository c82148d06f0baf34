#!/usr/bin/env bash
# ctest: runs a Python test in the pinned JAX environment (requirements/jax.txt, cached by
# scripts/python-env.sh). Exit 77 (skip), saying why, when the environment cannot be made (no
# PyPI, no python3-venv); otherwise the script's own status.
#   run_jax_test.sh SCRIPT [ARGS...]
set -uo pipefail
script=${1:?usage: run_jax_test.sh SCRIPT [ARGS...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
if ! venv=$(bash "$here/../../scripts/python-env.sh" jax); then
  echo "SKIP: the JAX environment (requirements/jax.txt) could not be made: PyPI unreachable?"
  exit 77
fi
exec "$venv/bin/python" "$script" "$@"
