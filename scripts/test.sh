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
# PyTorch 2.x (python/requirements-test.txt) in a venv made once and reused (scripts/venv.sh);
# PyTorch 1.13 is Debian 12's python3-torch. Every torch test runs under both (tests/CMakeLists.txt);
# 2.x must be there (SY_TORCH2_REQUIRED), 1.13 is skipped with the reason where Debian has none.
py2="$(scripts/venv.sh)"
jobs="$(nproc)"
# Test timeouts are hang detectors (tests/CMakeLists.txt): scaled by the load when the suite
# starts, 2x on an idle machine up to 12x (2 x load per core, rounded up). A load that comes
# later is not seen: on a shared machine set SY_TEST_TIMEOUT_SCALE (2 to 12) to fix the factor.
timeout_scale="${SY_TEST_TIMEOUT_SCALE:-}"
case "$timeout_scale" in [2-9] | 1[0-2]) ;; "") timeout_scale="$(awk -v n="$jobs" '{ s = int(2 * $1 / n + 0.999); if (s < 2) s = 2; if (s > 12) s = 12; print s }' /proc/loadavg 2>/dev/null || echo 4)" ;;
  *) echo "symshape: SY_TEST_TIMEOUT_SCALE=$timeout_scale is not 2 to 12" >&2; exit 2 ;;
esac
echo "symshape: load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?) on $jobs cores: test timeouts x$timeout_scale" >&2
# Tests labelled "python" (PyTorch/ONNX/Z3 ground truth, Python package) and "corpus_outputs"
# (every backend's output on the corpora against tests/corpus_outputs.sha256) run once, in the
# normal build; the sanitizer build skips them (CTEST_EXTRA).
run_suite() { # name, extra cmake args...
  local dir="build-$1"; shift
  echo "== symshape: $dir ==" >&2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSY_WERROR=ON -DSY_PYTHON="$py2" -DSY_TORCH2_REQUIRED=ON \
    -DSY_TEST_TIMEOUT_SCALE="$timeout_scale" "$@" >/dev/null || return 1
  cmake --build "$dir" -j"$jobs" || return 1
  local rc=0
  (cd "$dir" && ctest --output-on-failure -j"$jobs" ${CTEST_EXTRA:-}) || rc=$?
  # each skipped test with its reason (tests/torch_run.sh prints "skipped: ...")
  if [ -f "$dir/Testing/Temporary/LastTest.log" ]; then
    grep -h -B0 "^skipped: " "$dir/Testing/Temporary/LastTest.log" | sort | uniq -c | sed 's/^/symshape: /' >&2 || true
  fi
  return $rc
}
# Every stage runs even when an earlier one failed (a failing test must not hide the sanitizer
# build, the fuzzers or the install check); the script exits 1 at the end, naming what failed.
failed=()
# each stage's wall time, printed at the end (the suite's budget: 25 minutes on 2 idle cores)
times=("setup $SECONDS s")
timed() { # label, command...
  local label="$1" t0=$SECONDS rc=0; shift
  "$@" || rc=$?
  times+=("$label $((SECONDS - t0)) s")
  return $rc
}
# benches are opt-in (bench/README.md): built here so that they keep compiling
timed build-test run_suite test -DSY_BUILD_BENCH=ON || failed+=("build-test (ctest)")
# A Debug build, compile only, of the library and the command (no tests: they run in the other
# builds): -O0 gives warnings the optimized build does not (-Wformat-truncation), and -Werror
# makes them fail here, not on a developer's first Debug build.
debug_compile() {
  echo "== symshape: build-debug (compile only) ==" >&2
  cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DSY_WERROR=ON -DSY_BUILD_TESTS=OFF -DSY_BUILD_BENCH=OFF \
    -DSY_BUILD_MAN=OFF -DSY_BUILD_SHARED=OFF >/dev/null && cmake --build build-debug -j"$jobs"
}
timed build-debug debug_compile || failed+=("build-debug (Debug -Werror compile)")
# Criterion's runner keeps one 48-byte block for its lifetime: suppressed by name.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" CTEST_EXTRA="-LE python|corpus_outputs" \
  timed build-asan run_suite asan -DSY_SANITIZE="address;undefined" -DSY_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS=-DSY_VM_SWITCH -DSY_INT64_PORTABLE" \
  || failed+=("build-asan (ASan+UBSan ctest)")
# ThreadSanitizer: the thread test, every thread with its own context (scripts/tsan.sh)
if [ -x scripts/tsan.sh ]; then timed tsan scripts/tsan.sh || failed+=("tsan"); fi
# libFuzzer (clang, ASan+UBSan): every harness for 40 s from its seeds; a crash is saved in fuzz/regress_*/.
# The seed is fixed (SY_FUZZ_SEED), so every run explores the same mutations: a longer run here
# buys little; long exploration is SY_FUZZ_SEED=0 scripts/fuzz.sh 3600 (scripts/fuzz.sh).
timed fuzz scripts/fuzz.sh 40 || failed+=("fuzz")
if [ -x scripts/consumer-check.sh ]; then timed consumer-check scripts/consumer-check.sh build-test || failed+=("consumer-check"); fi
timed install-check scripts/install-check.sh || failed+=("install-check")
echo "symshape: stage times: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g'); total $SECONDS s" >&2
if [ ${#failed[@]} -gt 0 ]; then
  echo "symshape: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "symshape: all test suites passed" >&2
