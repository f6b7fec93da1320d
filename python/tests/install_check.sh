#!/usr/bin/env bash
# The install path of docs/python.md, once: a venv that sees Debian's torch
# (--system-site-packages), `pip install ./python` offline, the library placed next to the
# installed package (the second place the loader looks), then the README's command.
# Usage: install_check.sh LIBSYMSHAPE_SO REPO_DIR
set -euo pipefail
lib="$(readlink -f "$1")"; repo="$(readlink -f "$2")"
if ! /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
  echo "skipped: /usr/bin/python3 has no torch and torchvision (Debian 12's python3-torch, python3-torchvision)"
  exit 77
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cp -r "$repo/python" "$work/src"            # build in a scratch copy: the tree stays clean
# --without-pip: the venv sees Debian's pip through the system site-packages (no ensurepip copy)
/usr/bin/python3 -m venv --system-site-packages --without-pip "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install -q --no-build-isolation --no-index "$work/src" >"$work/pip.log" 2>&1 \
  || { cat "$work/pip.log" >&2; exit 1; }
cd "$work"
pkg="$("$py" -c 'import importlib.util as u; print(u.find_spec("symshape").submodule_search_locations[0])')"
case "$pkg" in "$work/venv/"*) ;; *) echo "install_check: symshape resolved to $pkg, not the venv" >&2; exit 1 ;; esac
# without the library anywhere the loader looks, the import fails with a clear message
if env -u SYMSHAPE_LIB "$py" -c 'import symshape' 2>"$work/err"; then
  if ! "$py" -c 'import ctypes.util,sys; sys.exit(0 if ctypes.util.find_library("symshape") else 1)'; then
    echo "install_check: import succeeded without a library" >&2; exit 1
  fi
else
  grep -q "LibraryNotFound" "$work/err" || { cat "$work/err" >&2; exit 1; }
  # the binding alone (0.1.0+binding) says so and names the pip command that brings the library back
  grep -q "symshape [0-9.]*+binding is the binding alone (python/pyproject.toml), without the library" "$work/err" \
    && grep -q "pip install --force-reinstall /path/to/symshape-[0-9.]*-py3-none-<platform>.whl" "$work/err" \
    && grep -q "set SYMSHAPE_LIB" "$work/err" \
    || { cat "$work/err" >&2; echo "install_check: the message does not say what the binding alone lacks" >&2; exit 1; }
fi
cp "$lib" "$pkg/libsymshape.so"
env -u SYMSHAPE_LIB "$py" -c 'import symshape, sys; assert symshape.lib_path.startswith(sys.argv[1]), symshape.lib_path' "$pkg"
env -u SYMSHAPE_LIB "$py" -m symshape report torchvision.models:resnet18 --input x=2,3,224,224 >"$work/out"
head -1 "$work/out" | grep -qx "symshape guard report: resnet18"
grep -q "^Guards: [0-9]*, checked in index order" "$work/out"
grep -q "x.size()\[1\] == 3" "$work/out"
echo "install_check: pip install ./python, library next to the package, python3 -m symshape report resnet18: ok"
