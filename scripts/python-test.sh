#!/usr/bin/env bash
# Runs a Python test script in the cached, pinned virtual environment requirements/NAME.txt
# (created on first use by scripts/python-env.sh). For ctest:
#   scripts/python-test.sh NAME SCRIPT [ARGS...]
# The script's exit status is the test's (77 = skipped, with the reason on stdout).
set -euo pipefail
name=${1:?usage: scripts/python-test.sh NAME SCRIPT [ARGS...]}
script=${2:?usage: scripts/python-test.sh NAME SCRIPT [ARGS...]}
shift 2
venv=$(bash "$(dirname "$0")/python-env.sh" "$name")
exec "$venv/bin/python" "$script" "$@"
