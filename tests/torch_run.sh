#!/usr/bin/env bash
# Run one PyTorch test under one interpreter, or report it skipped (exit 77) with the reason
# when that interpreter has no torch of the wanted major version. ctest lists a skipped test as
# "Skipped" and scripts/test.sh prints each skip's reason.
# usage: torch_run.sh MAJOR PYTHON ARGS...   (MAJOR: 1 = Debian 12's python3-torch 1.13, 2 = the
#        PyTorch 2.x venv of scripts/venv.sh; "2!" = 2, and its absence is a failure, not a skip:
#        scripts/test.sh configures that, so that CI never passes with the 2.x tests skipped;
#        ARGS go to PYTHON)
set -u
want="${1%!}"; required=0; [ "$1" != "$want" ] && required=1
py="$2"; shift 2
skip() { if [ "$required" = 1 ]; then echo "FAIL: $1 (required: SY_TORCH2_REQUIRED)"; exit 1; fi; echo "skipped: $1"; exit 77; }
if [ "${SY_SKIP_TORCH_TESTS:-}" = "1" ]; then echo "skipped: SY_SKIP_TORCH_TESTS=1"; exit 77; fi
[ -x "$py" ] || skip "no interpreter $py (torch $want.x absent)"
ver="$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
[ -n "$ver" ] || skip "$py has no torch (torch $want.x absent on this machine)"
case "$ver" in
  "$want".*) ;;
  *) skip "$py has torch $ver, this run is for torch $want.x" ;;
esac
echo "torch $ver ($py)"
exec "$py" "$@"
