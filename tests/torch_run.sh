#!/usr/bin/env bash
# Run one PyTorch test under one interpreter, or report it skipped (exit 77) with the reason
# when that interpreter has no torch of the wanted major version. ctest lists a skipped test as
# "Skipped" and scripts/test.sh prints each skip's reason.
# usage: torch_run.sh MAJOR PYTHON ARGS...   (MAJOR: 1 = Debian 12's python3-torch 1.13, 2 = the
#        PyTorch 2.x venv of scripts/venv.sh; "2!" = 2, and its absence is a failure, not a skip:
#        scripts/test.sh configures that, so that CI never passes with the 2.x tests skipped;
#        ARGS go to PYTHON)
set -u
if [ $# -lt 3 ] || ! [[ "${1%!}" =~ ^[0-9]+$ ]]; then
  echo "usage: torch_run.sh MAJOR[!] PYTHON ARGS..." >&2; exit 2
fi
want="${1%!}"; required=0; [ "$1" != "$want" ] && required=1
py="$2"; shift 2
skip() { if [ "$required" = 1 ]; then echo "FAIL: $1 (torch $want.x is required here)"; exit 1; fi; echo "skipped: $1"; exit 77; }
if [ "${SY_SKIP_TORCH_TESTS:-}" = "1" ]; then skip "SY_SKIP_TORCH_TESTS=1"; fi
command -v "$py" >/dev/null 2>&1 || skip "no interpreter $py (torch $want.x absent)"
err="$(mktemp)"; trap 'rm -f "$err"' EXIT
# the version from torch's installed metadata (0.05 s of CPU; importing torch only for it took 1.1 s
# under 1.13 and 2.0 s under 2.x, for each of the ~40 torch test runs, every one of which imports
# torch again); without metadata, from the import as before, which also names a broken torch
ver="$("$py" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null)"
[ -n "$ver" ] || ver="$("$py" -c 'import torch; print(torch.__version__)' 2>"$err")"
if [ -z "$ver" ]; then
  if grep -q "No module named 'torch'" "$err"; then skip "$py has no torch (torch $want.x absent on this machine)"; fi
  skip "$py cannot import torch: $(tail -1 "$err")"
fi
case "$ver" in
  "$want".*) ;;
  *) skip "$py has torch $ver, this run is for torch $want.x" ;;
esac
echo "torch $ver ($py)"
rm -f "$err"; trap - EXIT # exec replaces this shell: its EXIT trap would never run
exec "$py" "$@"
