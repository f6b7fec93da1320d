#!/usr/bin/env bash
# The installed tree works on its own: copy the sources to a temporary
# directory, configure with the minimum CMake policy and -Werror=dev, build,
# install to a temporary prefix, then move the prefix, delete the copied
# sources and the build tree (the binary's configure-time paths now point
# nowhere), and run the installed
# `symshape run` (which must find its bundled model relative to the
# executable), `symshape --version`, and `man -l` on every installed page.
# Usage: scripts/install-check.sh   (from anywhere; uses a fresh temporary build)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
tar -C "$src" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$work/src" -xf -
jobs="$(nproc)"; [ "$jobs" -gt 2 ] && jobs=2
echo "== install-check: configure (policies of cmake_minimum_required, -Werror=dev) ==" >&2
cmake -S "$work/src" -B "$work/build" -Werror=dev -Werror=deprecated -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSY_BUILD_TESTS=OFF -DSY_BUILD_BENCH=OFF -DSY_BUILD_MAN=ON >/dev/null
cmake --build "$work/build" -j"$jobs" >/dev/null
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
want=(bin/symshape include/symshape/symshape.h share/symshape/examples/resnet18.json
      share/symshape/examples/consumer.c share/symshape/examples/consumer/CMakeLists.txt
      share/doc/symshape/LICENSE share/doc/symshape/README.md share/doc/symshape/cli.md
      share/man/man1/symshape.1 share/man/man1/symshape-run.1 share/man/man1/symshape-simplify.1)
for f in "${want[@]}"; do
  [ -e "$work/prefix/$f" ] || { echo "install-check: FAIL: $f is not installed" >&2; exit 1; }
done
grep -q "License: MIT" "$work/prefix"/lib*/pkgconfig/symshape.pc "$work/prefix"/lib*/*/pkgconfig/symshape.pc 2>/dev/null \
  || { echo "install-check: FAIL: symshape.pc does not name the license" >&2; exit 1; }
# move the installed tree; the sources and the build tree it came from are gone
mv "$work/prefix" "$work/moved"
rm -rf "$work/build" "$work/src"
S="$work/moved/bin/symshape"
out="$("$S" run --backend json)" || { echo "install-check: FAIL: installed 'symshape run' failed" >&2; exit 1; }
case "$out" in
  *'"model": "resnet18"'*) ;;
  *) echo "install-check: FAIL: 'symshape run' did not trace the bundled resnet18: $out" | head -c 400 >&2; exit 1 ;;
esac
"$S" --version | grep -q "^symshape " || { echo "install-check: FAIL: --version" >&2; exit 1; }
# nothing installed is linked with Z3: `symshape verify` loads libz3 when it runs (verify/verify.c)
for f in "$S" "$work/moved"/lib*/libsymshape.so "$work/moved"/lib*/*/libsymshape.so; do
  [ -e "$f" ] || continue
  if readelf -d "$f" | grep -q 'NEEDED.*libz3'; then
    echo "install-check: FAIL: $f is linked with libz3 (verify loads it when it runs)" >&2; exit 1
  fi
done
verified=""
out="$("$S" verify "$work/moved/share/symshape/examples/resnet18.json" 2>&1)" || true
case "$out" in
  *"built without Z3"*) ;;
  *"6 obligations: 6 proven, 0 refuted, 0 unknown"*) verified=", verify" ;;
  *) echo "install-check: FAIL: installed 'symshape verify': $out" | head -c 600 >&2; exit 1 ;;
esac
n=0
for page in "$work/moved"/share/man/man1/*.1; do
  text="$(MANWIDTH=80 man -l "$page" 2>&1 | col -b)" || { echo "install-check: FAIL: man -l $page" >&2; exit 1; }
  case "$text" in
    *"exit status"*) n=$((n+1)) ;;
    *) echo "install-check: FAIL: man -l $page lacks the exit statuses: $text" | head -c 600 >&2; exit 1 ;;
  esac
done
[ "$n" -ge 10 ] || { echo "install-check: FAIL: only $n man pages" >&2; exit 1; }
echo "install-check: installed tree moved, sources deleted: run$verified, --version and $n man pages work" >&2
