#!/usr/bin/env bash
# Build the libFuzzer harnesses with clang (ASan+UBSan) and run each for
# SECONDS (default 60) from its seed and regression corpora, two at a time.
# An input that crashes is copied into fuzz/regress_NAME/ (which the normal
# test suite replays every run) and the script fails, naming it.
# Usage: scripts/fuzz.sh [SECONDS]   (needs clang; scripts/deps.sh --test installs it)
# SY_FUZZ_SEED (default 1) is libFuzzer's -seed: with a fixed seed a run explores the same
# mutations from the same corpus, so the test suite's 40 s run is reproducible and a red run
# can be replayed. SY_FUZZ_SEED=0 draws a random seed (libFuzzer's own default) to explore
# further: run that for long stretches while developing, and commit what it finds to
# fuzz/regress_*/, which the normal suite replays.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
seed="${SY_FUZZ_SEED:-1}"
dir=build-fuzz
cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSY_BUILD_FUZZERS=ON \
  -DSY_BUILD_TESTS=OFF -DSY_BUILD_BENCH=OFF -DSY_BUILD_SHARED=OFF -DSY_WITH_Z3=OFF -DSY_WITH_ONNX=ON >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fuzzers
declare -A corpus=([fuzz_bc_load]=bc [fuzz_expr]=expr [fuzz_graph]=graph [fuzz_cases]=cases [fuzz_onnx]=onnx)
run_one() { # name
  local name="$1" c="${corpus[$1]}" work="$dir/fuzz/work_$1" art="$dir/fuzz/artifacts_$1/"
  mkdir -p "$work" "$art" "fuzz/regress_$c"
  local log="$dir/fuzz/$name.log"
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "$dir/fuzz/$name" -max_total_time="$secs" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$art" "$work" "fuzz/corpus_$c" "fuzz/regress_$c" >"$log" 2>&1; then
    local execs; execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)"
    echo "symshape fuzz: $name: ok, $execs executions in ${secs} s ($((execs / secs))/s, seed $seed)"
    return 0
  fi
  echo "symshape fuzz: $name FAILED with seed $seed (log: $log):" >&2
  tail -n 40 "$log" >&2
  for a in "$art"*; do [ -f "$a" ] && cp "$a" "fuzz/regress_$c/" && echo "  crash input saved as fuzz/regress_$c/$(basename "$a")" >&2; done
  return 1
}
status=0
names=(fuzz_graph fuzz_onnx fuzz_expr fuzz_bc_load fuzz_cases)
for ((i = 0; i < ${#names[@]}; i += 2)); do
  pids=()
  for n in "${names[@]:i:2}"; do run_one "$n" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
done
exit $status
