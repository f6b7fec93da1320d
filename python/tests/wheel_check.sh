#!/usr/bin/env bash
# The pip path of docs/packaging.md "pip install", as a user takes it: an sdist of the repository
# (pyproject.toml, scikit-build-core), a wheel built from that sdist (CMake builds libsymshape.so
# into it), the wheel installed in a fresh venv, then a smoke test run outside the source tree
# with no SYMSHAPE_LIB: the library is the wheel's own; export, report in every backend (html
# included when the library has it), trace + check + output shapes, the algebra.
# Usage: wheel_check.sh REPO_DIR [TORCH_PYTHON]
#   TORCH_PYTHON: an interpreter with torch and torchvision whose site-packages the fresh venv
#   is given (a .pth file), so that nothing of PyTorch is downloaded (default /usr/bin/python3,
#   which the venv then sees through --system-site-packages).
# Network: scikit-build-core (and its two small dependencies) from PyPI, through pip's cache.
# Exit 77 (skipped) when that cannot be had or no interpreter has torch; 1 on any failure.
set -euo pipefail
repo="$(readlink -f "$1")"; tpy="${2:-/usr/bin/python3}"
base=/usr/bin/python3
[ -x "$base" ] || base="$(command -v python3)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
fail() { echo "wheel_check: FAIL: $*" >&2; exit 1; }
step() { echo "== wheel_check: $* ==" >&2; }

# torch for the smoke test, without downloading it: the purelib/platlib of TORCH_PYTHON when it is
# the same Python version as the venv's, else Debian's through --system-site-packages
pyver() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }
torch_paths=""; sysflag=""
# (found, not imported: importing torch takes a minute on a loaded machine; the smoke test imports it)
has_torch() { "$1" -c 'import importlib.util as u, sys; sys.exit(0 if u.find_spec("torch") and u.find_spec("torchvision") else 1)' 2>/dev/null; }
if has_torch "$tpy" && [ "$(pyver "$tpy")" = "$(pyver "$base")" ]; then
  torch_paths="$("$tpy" -c 'import sysconfig as s; print(s.get_paths()["purelib"]); print(s.get_paths()["platlib"])' | sort -u)"
elif has_torch "$base"; then
  sysflag="--system-site-packages"
else
  echo "skipped: neither $tpy nor $base has torch and torchvision of Python $(pyver "$base")"
  exit 77
fi

step "build tools: scikit-build-core from PyPI in a scratch venv"
# pip: the base interpreter's (Debian's python3-pip), seen through --system-site-packages; no
# ensurepip copy in either venv (a minute of the suite on a loaded machine)
"$base" -m pip --version >/dev/null 2>&1 || { echo "skipped: $base has no pip (Debian: python3-pip)"; exit 77; }
"$base" -m venv --system-site-packages --without-pip "$work/tools"
req="$(sed -n 's/^requires = \["\(scikit-build-core[^"]*\)"\]/\1/p' "$repo/pyproject.toml")"
[ -n "$req" ] || fail "pyproject.toml names no scikit-build-core requirement"
if ! "$work/tools/bin/python" -m pip install -q --disable-pip-version-check "$req" >"$work/tools.log" 2>&1; then
  grep -v "^WARNING: Location" "$work/tools.log" | tail -5
  echo "skipped: cannot install $req from PyPI (no network?)"
  exit 77
fi

step "sdist"
mkdir "$work/src" "$work/dist"
# a copy without build trees, as a clean checkout has it
tar -C "$repo" --exclude='./build*' --exclude='./.git' --exclude='__pycache__' -cf - . | tar -C "$work/src" -xf -
(cd "$work/src" && "$work/tools/bin/python" -c 'import sys; from scikit_build_core.build import build_sdist; print(build_sdist(sys.argv[1]))' "$work/dist") \
  >"$work/sdist.log" 2>&1 || { cat "$work/sdist.log" >&2; fail "build_sdist"; }
sdist="$(ls "$work"/dist/symshape-*.tar.gz)" || fail "no sdist in dist/"
tar -tzf "$sdist" >"$work/sdist.list"
for f in pyproject.toml CMakeLists.txt include/symshape/symshape.h algebra/expr.c python/symshape/_lib.py LICENSE; do
  grep -q "^symshape-[0-9.]*/$f\$" "$work/sdist.list" || fail "the sdist lacks $f"
done
if grep -q "/build[^/]*/\|__pycache__" "$work/sdist.list"; then fail "the sdist holds build trees: $(grep -m3 '/build\|__pycache__' "$work/sdist.list")"; fi
rm -rf "$work/src"

step "wheel from the sdist (CMake builds libsymshape.so)"
# the wheel a user gets, less link-time optimization (minutes of linking that the smoke test
# does not need); the build directory is pip's, removed with the sdist's unpacked copy
jobs="$(nproc)"; [ "$jobs" -gt 2 ] && jobs=2
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" "$work/tools/bin/python" -m pip wheel -q --disable-pip-version-check \
  --no-build-isolation --no-deps -w "$work/dist" --config-settings=cmake.define.SY_LTO=OFF "$sdist" >"$work/wheel.log" 2>&1 \
  || { grep -v "^WARNING: Location" "$work/wheel.log" | tail -40 >&2; fail "pip wheel of the sdist"; }
whl="$(ls "$work"/dist/symshape-*.whl)" || fail "no wheel in dist/"
case "$(basename "$whl")" in symshape-*-py3-none-linux_*.whl) ;; *) fail "wheel tag: $(basename "$whl")" ;; esac
"$base" -m zipfile -l "$whl" >"$work/wheel.list"
for f in symshape/__init__.py symshape/_lib.py symshape/__main__.py symshape/libsymshape.so; do
  grep -q "^$f " "$work/wheel.list" || fail "the wheel lacks $f"
done

step "fresh venv, pip install of the wheel (no index)"
"$base" -m venv $sysflag --without-pip "$work/venv"
py="$work/venv/bin/python"
if [ -n "$torch_paths" ]; then
  site="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  printf '%s\n' $torch_paths >"$site/zz_symshape_test_torch.pth"
fi
"$work/tools/bin/python" -m pip --python "$py" install -q --disable-pip-version-check --no-index --no-deps "$whl" \
  >"$work/install.log" 2>&1 \
  || { cat "$work/install.log" >&2; fail "pip install of the wheel"; }

step "smoke test (outside the source tree, no SYMSHAPE_LIB)"
mkdir "$work/run"; cd "$work/run"
export PYTHONDONTWRITEBYTECODE=1
unset SYMSHAPE_LIB
"$py" - "$work/venv" <<'EOF' || fail "the library is not the wheel's"
import os, sys, symshape
venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(symshape.lib_path).startswith(venv), symshape.lib_path
assert os.path.basename(symshape.lib_path) == "libsymshape.so", symshape.lib_path
print("wheel_check: library", symshape.lib_path, "backends", " ".join(symshape.backends()))
EOF
"$py" -m symshape --version >version.txt || fail "--version"
head -1 version.txt | grep -q "^symshape [0-9]" || fail "--version: $(cat version.txt)"
grep -q "^library .*: $work/venv/" version.txt || fail "--version does not name the wheel's library: $(cat version.txt)"
grep "^features: " version.txt >&2 || fail "--version lists no features: $(cat version.txt)"
whlver="$(basename "$whl" | cut -d- -f2)"
"$py" -c 'import sys, symshape; assert symshape.__version__ == sys.argv[1], (symshape.__version__, sys.argv[1])' "$whlver" \
  || fail "symshape.__version__ is not the wheel's version $whlver (CMakeLists.txt project VERSION)"
model=torchvision.models:resnet18
"$py" -m symshape export "$model" --input x=2,3,224,224 -o g.json || fail "export"
grep -q '"name": *"resnet18"' g.json || grep -q '"resnet18"' g.json || fail "export wrote no resnet18 graph"
"$py" -m symshape report "$model" --input x=2,3,224,224 >report.txt || fail "report"
head -1 report.txt | grep -qx "symshape guard report: resnet18" || fail "report: $(head -3 report.txt)"
grep -q "x.size()\[1\] == 3" report.txt || fail "report lacks the channel guard"
# every backend: html through the command (each run imports torch and exports the model again:
# a minute on a loaded machine), each of them from the exported graph through the binding
backends="$("$py" -c 'import symshape; print(" ".join(symshape.backends()))')"
case " $backends " in
  *" html "*)
    "$py" -m symshape report "$model" --input x=2,3,224,224 --backend html -o out.html || fail "report --backend html"
    grep -qi "<html" out.html || fail "html: not a page"; grep -q "resnet18" out.html || fail "html: no model name" ;;
  *) grep -q "^features: .*html" version.txt && fail "the library has the html feature but no html backend"
     echo "wheel_check: note: this library has no html backend (built without cmark-gfm)" >&2 ;;
esac
"$py" - $backends <<'EOF2' || fail "render in every backend"
import json, sys, symshape
gs = symshape.trace(json.load(open("g.json")))
for b in sys.argv[1:]:
    data = gs.render(b)
    assert data, b
    open("out." + b, "wb").write(data)
assert '"guards"' in open("out.json").read()
assert open("out.report").read().startswith("symshape guard report: resnet18")
print("wheel_check: rendered", len(sys.argv) - 1, "backends")
EOF2
"$py" - <<'EOF' || fail "trace / check / algebra"
import json, symshape
g = json.load(open("g.json"))
gs = symshape.trace(g)
assert len(gs) > 0
ok, why = gs.check({"x": [4, 3, 64, 64]})
assert ok, why
ok, why = gs.check({"x": [4, 4, 64, 64]})
assert not ok and "3" in why, why
shapes = gs.output_shapes({"x": [5, 3, 96, 96]})
assert shapes == [[5, 1000]], shapes
a, b = symshape.parse("s0"), symshape.parse("s1")
e = ((a * 2 + b * 4) // 2)
assert str(e.simplify()) == str(symshape.parse("s0 + 2*s1")), e.simplify()
assert symshape.parse("(s0 + 1) // 1 - s0").simplify() == symshape.parse("1")
assert symshape.parse("s0*s0 >= 0").decide() is True
print("wheel_check: trace, check, output shapes and algebra: ok")
EOF
step "install orders: the binding alone (python/) over the wheel, the wheel over the binding"
# python/pyproject.toml is the binding alone under the same distribution name: installed over the
# wheel, pip uninstalled the wheel first and its library with it (issue 38: `import symshape` then
# raised LibraryNotFound). Its build backend (python/_symshape_build.py) now stops, saying what to do,
# and leaves the wheel as it was; SYMSHAPE_BINDING_ONLY=1 replaces it on purpose; the wheel installed
# over the binding (version 0.1.0+binding, so not "already installed") brings the library back.
pkgdir="$("$py" -c 'import os, symshape; print(os.path.dirname(symshape.__file__))')"
cp -r "$repo/python" "$work/binding"; rm -rf "$work/binding/build" "$work/binding"/*.egg-info
pipt() { "$work/tools/bin/python" -m pip --python "$py" "$@" --disable-pip-version-check --no-index; }
if pipt install --no-build-isolation "$work/binding" >"$work/binding.log" 2>&1; then
  fail "pip install ./python over the wheel succeeded (it removes the wheel's library)"
fi
grep -q "symshape: .* has symshape $whlver with its bundled library" "$work/binding.log" \
  || { cat "$work/binding.log" >&2; fail "pip install ./python over the wheel: not the backend's message"; }
grep -q "SYMSHAPE_BINDING_ONLY=1" "$work/binding.log" || fail "the refusal does not name SYMSHAPE_BINDING_ONLY"
[ -f "$pkgdir/libsymshape.so" ] || fail "the refused install removed the wheel's library"
"$py" -c 'import symshape; assert str(symshape.parse("s0 + 1")) == "s0 + 1"' || fail "the wheel after the refusal"
SYMSHAPE_BINDING_ONLY=1 pipt install --no-build-isolation "$work/binding" >"$work/binding2.log" 2>&1 \
  || { cat "$work/binding2.log" >&2; fail "SYMSHAPE_BINDING_ONLY=1 pip install ./python"; }
"$py" -c 'import importlib.metadata as m; v = m.version("symshape"); assert v.endswith("+binding"), v' \
  || fail "the binding alone is not version X+binding"
[ ! -e "$pkgdir/libsymshape.so" ] || fail "the binding alone kept the wheel's library file"
pipt install --no-deps "$whl" >"$work/rewheel.log" 2>&1 || { cat "$work/rewheel.log" >&2; fail "the wheel over the binding"; }
"$py" - "$work/venv" <<'EOF' || fail "the wheel over the binding alone has no library"
import os, sys, importlib.metadata as m, symshape
assert os.path.realpath(symshape.lib_path).startswith(os.path.realpath(sys.argv[1])), symshape.lib_path
assert "+" not in m.version("symshape"), m.version("symshape")
EOF
echo "wheel_check: install orders: binding over wheel refused (library kept), SYMSHAPE_BINDING_ONLY=1 replaces it, wheel over binding: ok" >&2

step "install orders: a pre-built binding wheel (no build, no hook) over the wheel, and back"
# A wheel has no install hook: the binding's wheel, built elsewhere (or with SYMSHAPE_BINDING_ONLY=1),
# installs over the bundled wheel and pip deletes the library. The import then says so and names the
# pip command that brings it back (_lib.py _installed_why); that command works; other orders keep
# a working package.
SYMSHAPE_BINDING_ONLY=1 "$work/tools/bin/python" -m pip wheel -q --disable-pip-version-check --no-index \
  --no-build-isolation --no-deps -w "$work/bdist" "$work/binding" >"$work/bwheel.log" 2>&1 \
  || { cat "$work/bwheel.log" >&2; fail "pip wheel of the binding"; }
bwhl="$(ls "$work"/bdist/symshape-*+binding-py3-none-any.whl)" || fail "no binding wheel"
imports() { "$py" -c 'import os, sys, symshape; assert os.path.realpath(symshape.lib_path).startswith(os.path.realpath(sys.argv[1])), symshape.lib_path; assert str(symshape.parse("s0 + 1")) == "s0 + 1"' "$work/venv"; }
pipt install --no-deps "$bwhl" >"$work/b1.log" 2>&1 || { cat "$work/b1.log" >&2; fail "the binding wheel over the wheel"; }
if "$py" -c 'import symshape' 2>"$work/b1.err"; then fail "import with the binding wheel over the wheel: no error"; fi
grep -q "LibraryNotFound: .*symshape ${whlver}+binding is the binding alone" "$work/b1.err" \
  && grep -q "pip removed that library: install the package with the library, symshape $whlver: \`pip install --force-reinstall /path/to/symshape-$whlver-py3-none-<platform>.whl\`" "$work/b1.err" \
  || { cat "$work/b1.err" >&2; fail "the import does not name the fix"; }
"$py" -m symshape --version >"$work/b1.out" 2>&1 || true  # exits 0 without a library (it says so)
grep -q "^library: not loaded: .*binding alone" "$work/b1.out" || { cat "$work/b1.out" >&2; fail "--version does not say why"; }
# the fix it names
pipt install --force-reinstall --no-deps "$whl" >"$work/b2.log" 2>&1 || { cat "$work/b2.log" >&2; fail "the named fix"; }
imports || fail "the wheel after the named fix"
# the same without --force-reinstall, and with --upgrade (0.1.0+binding sorts after 0.1.0)
pipt install --no-deps "$bwhl" >"$work/b3.log" 2>&1 || fail "the binding wheel again"
pipt install --no-deps "$whl" >"$work/b4.log" 2>&1 || { cat "$work/b4.log" >&2; fail "the wheel over the binding wheel"; }
imports || fail "the wheel over the binding wheel"
pipt install --no-deps "$bwhl" >"$work/b5.log" 2>&1 || fail "the binding wheel again"
pipt install --upgrade --no-deps "$whl" >"$work/b6.log" 2>&1 || { cat "$work/b6.log" >&2; fail "--upgrade of the wheel over the binding wheel"; }
imports || { cat "$work/b6.log" >&2; fail "--upgrade of the wheel over the binding wheel"; }
# the wheel over itself, forced; then uninstalled: nothing left behind
pipt install --force-reinstall --no-deps "$whl" >"$work/b7.log" 2>&1 || fail "--force-reinstall of the wheel"
imports || fail "the wheel over itself"
"$work/tools/bin/python" -m pip --python "$py" uninstall -y --disable-pip-version-check symshape >"$work/b8.log" 2>&1 || { cat "$work/b8.log" >&2; fail "pip uninstall"; }
[ ! -e "$pkgdir" ] || fail "pip uninstall left $(ls "$pkgdir")"
echo "wheel_check: install orders: binding wheel over the wheel names its fix, which works; wheel over binding wheel (plain, --upgrade, forced), uninstall: ok" >&2

echo "wheel_check: sdist -> wheel ($(basename "$whl"), $(du -k "$whl" | cut -f1) KiB) -> fresh venv: export, report (text, html), $(echo $backends | wc -w) backends rendered ($backends), trace, check, algebra: ok"
