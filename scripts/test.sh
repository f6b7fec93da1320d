#!/usr/bin/env bash
# The whole test suite: install what is missing, then build and run every test
# twice: a normal build with -Wall -Wextra -Werror, and an ASan+UBSan build
# (which also uses the VM's portable switch dispatch instead of threaded code, and
# the portable C99 overflow checks of algebra/sy_int64.h instead of __builtin_*_overflow,
# so that UBSan checks the fallback).
# Finally install to a temporary prefix and build the consumer example against it, and
# check that a moved install works without the sources (scripts/install-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --test
jobs="$(nproc)"
# Tests labelled "python" (PyTorch/ONNX/Z3 ground truth, Python package) run once, in the
# normal build; the sanitizer build skips them (CTEST_EXTRA="-LE python").
run_suite() { # name, extra cmake args...
  local dir="build-$1"; shift
  echo "== symshape: $dir ==" >&2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSY_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" ${CTEST_EXTRA:-})
}
run_suite test
# Criterion's runner keeps one 48-byte block for its lifetime: suppressed by name.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" CTEST_EXTRA="-LE python" \
  run_suite asan -DSY_SANITIZE="address;undefined" -DSY_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS=-DSY_VM_SWITCH -DSY_INT64_PORTABLE"
# libFuzzer (clang, ASan+UBSan): every harness for 60 s from its seeds; a crash is saved in fuzz/regress_*/
scripts/fuzz.sh 60
if [ -x scripts/consumer-check.sh ]; then scripts/consumer-check.sh build-test; fi
scripts/install-check.sh
echo "symshape: all test suites passed" >&2
