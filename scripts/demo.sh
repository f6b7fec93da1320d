#!/usr/bin/env bash
# The main job: install what is missing, build, run `symshape run` on the
# bundled model (examples/resnet18.json) and print its guard report.
# Extra arguments go to `symshape run` (e.g. scripts/demo.sh examples/vit_b_16.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSY_BUILD_TESTS=OFF >/dev/null
# the default build is what a user needs: the libraries (the shared one for the Python
# package), the command and its man pages; the benches are opt-in (bench/README.md)
cmake --build build -j"$(nproc)" >/dev/null
./build/symshape --version | sed -n 's/^/symshape: /; 2,$p' >&2   # the features compiled in
./build/symshape run "$@"
