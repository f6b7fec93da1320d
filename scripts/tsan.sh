#!/usr/bin/env bash
# The thread tests under ThreadSanitizer: 8 threads, each with its own context,
# parse, decide, simplify, trace + produce + minimize + render a corpus model and
# load an ONNX model at once (tests/backends/test_threads.c); 8 threads read one
# guard set at once (tests/guards/test_gset_threads.c); any race report fails.
# Builds only those tests, in build-tsan/ (or $1).
#
# GCC 12's TSan maps its shadow at fixed addresses and dies with "unexpected
# memory mapping" when the kernel randomizes mmap with more than 28 bits
# (vm.mmap_rnd_bits > 28, e.g. Linux >= 6.x defaults to 32): the run is then
# made without ASLR (setarch -R), which is what TSan needs, not a weaker test.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-tsan}"
jobs="${JOBS:-$(nproc)}"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSY_WERROR=ON -DSY_SANITIZE=thread \
  -DSY_BUILD_BENCH=OFF -DSY_BUILD_FUZZERS=OFF >/dev/null
cmake --build "$dir" -j"$jobs" --target test_threads test_gset_threads
run=()
bits="$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 0)"
if [ "$bits" -gt 28 ]; then
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    run=(setarch "$(uname -m)" -R)
  else
    echo "tsan.sh: vm.mmap_rnd_bits is $bits and setarch -R is not permitted here: running with ASLR" >&2
  fi
fi
# halt_on_error: the first race fails the run; second_deadlock_stack for lock reports.
# The binary is the test's body with its own main (Criterion's runner cannot start
# under TSan): 3 runs of 8 threads.
TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
  ${run[@]+"${run[@]}"} "$dir/tests/test_threads" "${TSAN_RUNS:-3}"
TSAN_OPTIONS="halt_on_error=1:exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}" \
  ${run[@]+"${run[@]}"} "$dir/tests/test_gset_threads" "${TSAN_RUNS:-3}"
echo "symshape: thread test passed under ThreadSanitizer" >&2
