#!/usr/bin/env bash
# The main job: install what is missing, build, run `symshape run` on the
# bundled model (examples/resnet18.json) and print its guard report.
# Extra arguments go to `symshape run` (e.g. scripts/demo.sh examples/vit_b_16.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSY_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
./build/symshape run "$@"
