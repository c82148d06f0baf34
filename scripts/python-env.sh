#!/usr/bin/env bash
# Creates (once) and prints the path of a cached Python virtual environment for tests and tools.
#   scripts/python-env.sh NAME      requirements/NAME.txt, pinned with ==
# The environment lives in ${XPUPERF_VENV_DIR:-~/.cache/xpuperf/venvs}/NAME-<hash>, where the hash covers the
# requirements file and the interpreter, so a changed pin builds a new one and an unchanged one is reused
# across clones (pip's own wheel cache makes a rebuild cheap). Making a new one removes the environments of
# the same NAME with another hash (a superseded pin; one holds several GB) and those whose requirements
# file this checkout no longer has (checked on every call). Debian's python3 and python3-venv make it;
# nothing is installed into the system Python. Concurrent callers wait on a lock. Progress goes to stderr.
# A line "# pip-options: --no-deps" in the requirements file passes those options to pip install (for
# a file that pins every package itself and leaves out a dependency the package runs without).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/python-env.sh NAME}
req=requirements/$name.txt
[ -f "$req" ] || { echo "python-env: no $req" >&2; exit 2; }
python=/usr/bin/python3
if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
  bash scripts/install-deps.sh
fi
root=${XPUPERF_VENV_DIR:-$HOME/.cache/xpuperf/venvs}
hash=$({ cat "$req"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-12)
venv=$root/$name-$hash
mkdir -p "$root"
exec 9>"$root/.$name.lock"
flock 9
for stale in "$root"/*-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]; do
  stale_name=$(basename "$stale" | sed 's/-[0-9a-f]\{12\}$//')
  [ -d "$stale" ] && [ "$stale" != "$venv" ] || continue
  [ "$stale_name" = "$name" ] || [ ! -f "requirements/$stale_name.txt" ] || continue
  echo "python-env: removing superseded $stale" >&2
  rm -rf "$stale"
done
if [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  echo "python-env: creating $venv from $req" >&2
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip==24.3.1 >&2
  read -r -a pip_options < <(sed -n 's/^# pip-options://p' "$req" | head -1) || true
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pip_options[@]}" -r "$req" >&2
  touch "$venv/.complete"
fi
echo "$venv"
