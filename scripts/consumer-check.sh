#!/usr/bin/env bash
# Install symshape from a build tree to a temporary prefix, then build
# examples/consumer.c against it twice: with CMake's find_package and with
# pkg-config, and run both; each run's output must equal examples/consumer/expected.txt.
# Usage: scripts/consumer-check.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir="$prefix/lib"
[ -d "$prefix/lib64" ] && libdir="$prefix/lib64"
[ -d "$prefix/lib/x86_64-linux-gnu" ] && libdir="$prefix/lib/x86_64-linux-gnu"
echo "== consumer: find_package(symshape) ==" >&2
cmake -S examples/consumer -B "$prefix/build-cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/build-cmake" >/dev/null
LD_LIBRARY_PATH="$libdir" "$prefix/build-cmake/consumer" > "$prefix/out-cmake.txt"
diff -u examples/consumer/expected.txt "$prefix/out-cmake.txt"
echo "== consumer: pkg-config symshape ==" >&2
PKG_CONFIG_PATH="$libdir/pkgconfig" cc -std=c11 -Wall -Wextra -Werror examples/consumer.c \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs symshape) -o "$prefix/consumer-pc"
LD_LIBRARY_PATH="$libdir" "$prefix/consumer-pc" > "$prefix/out-pc.txt"
diff -u examples/consumer/expected.txt "$prefix/out-pc.txt"
echo "consumer: both builds ran and printed examples/consumer/expected.txt" >&2
