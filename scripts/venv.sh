#!/usr/bin/env bash
# The PyTorch 2.x test environment: a venv with python/requirements-test.txt, created on
# first use and reused while that file (and the interpreter) is unchanged. Prints the venv's
# python on stdout; progress goes to stderr.
#   SY_VENV=DIR   where the venv lives (default: $XDG_CACHE_HOME/symshape/venv-<hash>, outside
#                 the source tree, so a clean clone on the same machine reuses it)
#   SY_VENV_PYTHON=PY   the interpreter the venv is made from (default /usr/bin/python3,
#                 Debian's, whose python3-venv scripts/deps.sh --test installs)
# Usage: scripts/venv.sh
set -euo pipefail
cd "$(dirname "$0")/.."
req="python/requirements-test.txt"
if [ -n "${SY_VENV_PYTHON:-}" ]; then
  base="$SY_VENV_PYTHON"
  [ -x "$base" ] || { echo "symshape: SY_VENV_PYTHON=$base is not an executable interpreter" >&2; exit 1; }
else
  base=/usr/bin/python3
  [ -x "$base" ] || base="$(command -v python3 || true)"
  [ -n "$base" ] || { echo "symshape: no python3 to make the test venv with" >&2; exit 1; }
fi
key="$( (cat "$req"; "$base" -c 'import sys; print(sys.version)'; uname -m) | sha256sum | cut -c1-16)"
venv="${SY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/symshape/venv-$key}"
stamp="$venv/.symshape-complete"
mkdir -p "$(dirname "$venv")"
# one creator at a time: a second run waits for the first (flock), then finds the stamp; without
# the lock it took the first run's half-made venv for an interrupted one and deleted it
exec 9>"$venv.lock"
flock 9
if [ ! -f "$stamp" ] || ! cmp -s "$req" "$stamp"; then
  # a venv without the stamp is half-made (an interrupted install): start again; a folder that is
  # not a venv (no pyvenv.cfg) is not ours to delete
  if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ]; then
    echo "symshape: $venv exists and is not a venv; not touching it (set SY_VENV to another path)" >&2
    exit 1
  fi
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  echo "symshape: creating the PyTorch 2.x test venv $venv (pip install -r $req; ~2 min from local files, several GB)" >&2
  "$base" -m venv "$venv" >&2
  t0=$(date +%s)
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >"$venv.log" 2>&1; then
    grep -v "^WARNING: Location" "$venv.log" | tail -30 >&2
    echo "symshape: pip install -r $req failed (log: $venv.log)" >&2
    exit 1
  fi
  cp "$req" "$stamp"
  echo "symshape: venv ready in $(( $(date +%s) - t0 )) s" >&2
fi
echo "$venv/bin/python"
