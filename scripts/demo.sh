#!/usr/bin/env bash
# The main job: install what is missing, build, run symshape on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSY_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
./build/symshape cases -v examples/algebra.cases
