#!/usr/bin/env bash
# The main job: install what is missing, build, run `symshape run` on the
# bundled model (examples/resnet18.json) and print its guard report.
# Extra arguments go to `symshape run` (e.g. scripts/demo.sh examples/vit_b_16.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSY_BUILD_TESTS=OFF >/dev/null
# the command and the shared library (for the Python package); not the benches, each of
# which would link the link-time-optimized library again (bench/README.md builds them)
cmake --build build -j"$(nproc)" --target symshape_cli >/dev/null
if grep -q "^SY_BUILD_SHARED:BOOL=ON" build/CMakeCache.txt; then cmake --build build -j"$(nproc)" --target symshape >/dev/null; fi
./build/symshape run "$@"
