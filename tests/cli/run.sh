#!/usr/bin/env bash
# CLI tests: every command, exit status and error path.
# usage: run.sh SYMSHAPE TESTS_DIR
set -u
S="$1"; T="$2"
pass=0; fail=0
check() { # description, expected status, expected stdout substring (or -), command...
  local desc="$1" want="$2" pat="$3"; shift 3
  local out rc
  out="$("$@" 2>&1)"; rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $desc: exit $rc, expected $want; output: $out"; fail=$((fail+1)); return
  fi
  if [ "$pat" != "-" ] && ! grep -qF -- "$pat" <<<"$out"; then
    echo "FAIL: $desc: output lacks '$pat': $out"; fail=$((fail+1)); return
  fi
  pass=$((pass+1))
}
check "version" 0 "symshape 0." "$S" --version
check "help" 0 "commands:" "$S" --help
check "no args" 2 "usage" "$S"
check "unknown command" 2 "unknown command" "$S" frobnicate
check "simplify" 0 "x - 1" "$S" simplify 'FloorDiv(2*x - 1, 2)'
check "simplify ceil" 0 "CeilDiv(h, 2)" "$S" simplify 'FloorDiv(h + 2*3 - 1*(7 - 1) - 1, 2) + 1'
check "simplify assume" 0 "128*Mod(x, 3)" "$S" simplify 'Mod(128*Mod(x,3), 356)' --assume 'x >= 1'
check "simplify help" 0 "usage: symshape simplify" "$S" simplify --help
check "simplify parse error" 3 "at byte 3" "$S" simplify 'x +* 2'
check "simplify div zero" 3 "division by zero" "$S" simplify 'FloorDiv(x, 0)'
check "simplify budget" 3 "term budget" "$S" simplify '(a+b+c+d)**200'
check "simplify unknown fn" 3 "unknown function 'Foo'" "$S" simplify 'Foo(x)'
check "simplify arity" 3 "Mod expects 2 arguments" "$S" simplify 'Mod(x)'
check "simplify no args" 2 "expected one expression" "$S" simplify
check "simplify two args" 2 "see 'symshape simplify --help'" "$S" simplify a b
check "decide no relation" 3 "'x+1' is not a relation" "$S" decide 'x+1'
check "bound of a relation" 3 "is a relation, not an integer expression" "$S" bound 'x<1'
check "simplify bad option" 2 "unknown option" "$S" simplify x --frob
check "eval" 0 "-4" "$S" eval 'FloorDiv(a, b)' a=-7 b=2
check "eval bound twice" 2 "bound twice" "$S" eval x x=1 x=2
check "run bytecode to a pipe" 0 "-" "$S" run -b bytecode
check "eval bignum" 0 "576" "$S" eval 'Mod(-(2**70), 1000)'
check "eval bool" 0 "false" "$S" eval '2 <= s0 <= 10' s0=11
check "eval unbound" 3 "'y' has no value" "$S" eval 'x + y' x=1
check "eval div zero" 3 "division by zero" "$S" eval 'FloorDiv(x, y)' x=1 y=0
check "eval bad binding" 2 "NAME=VALUE" "$S" eval 'x' x
check "eval bad value" 3 "not an integer" "$S" eval 'x' x=abc
check "decide true" 0 "true" "$S" decide 's != 1' --assume 's >= 2'
check "decide unknown" 0 "unknown" "$S" decide 's != 1' --assume 's >= 1'
check "decide false" 1 "false" "$S" decide 'x >= 5' --assume 'x <= 3'
check "decide not relation" 3 "not a relation" "$S" decide 'x + 1'
check "decide bad assumption" 3 "cannot parse assumption" "$S" decide 'x > 1' --assume 'x >'
check "bound" 0 "[0, oo]" "$S" bound 's - Mod(s, 8)' --assume 's >= 2'
check "bound divzero" 3 "may be zero" "$S" bound 'FloorDiv(a, b - 1)' --assume 'a >= 1' --assume 'b >= 1'
check "bound saturates" 0 "[2, 9223372036854775808]" "$S" bound 'u + 2' --assume '0 <= u <= 9223372036854775806'
check "cases" 0 "passed, 0 failed" "$S" cases "$T/algebra/own.cases"
check "cases missing file" 3 "cannot open" "$S" cases /nonexistent.cases
check "cases no files" 2 "expected at least one" "$S" cases
tmp="$(mktemp)"; printf 'eval 1 + 1 => 3\n' > "$tmp"
check "cases failure" 1 "1 failed" "$S" cases "$tmp"; rm -f "$tmp"
tmp="$(mktemp)"; printf 'bound x | x >= 1 => [5, 3]\n' > "$tmp"
check "cases empty expected range" 1 "cannot read expected range '[5, 3]'" "$S" cases "$tmp"; rm -f "$tmp"
# ---- model commands
E="$T/../examples"
tmpd="$(mktemp -d)"
check "run default model" 0 "x.size()[2] == x.size()[3]" "$S" run --backend json
check "run stats" 0 "guards:" "$S" run "$E/resnet18.json" --backend json --stats -o "$tmpd/g.json"
check "run json file" 0 "symshape.guards" cat "$tmpd/g.json"
check "run vit pins 224" 0 "x.size()[2] == 224" "$S" run "$E/vit_b_16.json" --backend json
check "run --static" 0 "x.size()[0] == 8" "$S" run "$E/resnet18.json" --backend json --static x
check "run --dynamic" 0 "x.size()[3] == 224" "$S" run "$E/resnet18.json" --backend json --dynamic x=0,2
check "run --no-duck-sizing" 0 "2 <= x.size()[3]" "$S" run "$E/resnet18.json" --backend json --no-duck-sizing
check "run missing file" 3 "cannot open" "$S" run /nonexistent/model.json -b json
printf '{"format": "symshape.graph", "version": 1, "nodes": [
  {"name": "x",, }]}' > "$tmpd/bad.json"
check "run bad json" 3 "line 2, column" "$S" run "$tmpd/bad.json" -b json
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [2]}, {"name": "k", "op": "frobnicate", "args": [{"ref": "x"}]}], "outputs": []}' > "$tmpd/unk.json"
check "run unknown op" 3 "node 'k' (frobnicate)" "$S" run "$tmpd/unk.json" -b json
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [4, 6], "dynamic": [0, 1]}, {"name": "s", "op": "size", "args": [{"ref": "x"}, 1], "kwargs": {"dim": 0}}], "outputs": [{"ref": "s"}]}' > "$tmpd/dupkw.json"
check "run duplicate argument" 3 "got multiple values for argument 'dim'" "$S" run "$tmpd/dupkw.json" -b json
check "run unknown backend" 2 "unknown backend" "$S" run "$E/resnet18.json" --backend nope
check "run bad option" 2 "unknown option" "$S" run --frob
check "run bad --dynamic" 2 "NAME=D" "$S" run "$E/resnet18.json" --dynamic x
check "run bad --dynamic index" 2 "bad dim list" "$S" run "$E/resnet18.json" --dynamic x=4294967296
printf '{"format": "symshape.graph", "version": 1, "nodes": [], "outputs": []}' > "$tmpd/empty.json"
check "run empty graph" 0 "symshape.guards" "$S" run "$tmpd/empty.json" -b json
# huge padding / dilation: exact arithmetic, no int64 wrap (the output size is exact)
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [1, 8, 8], "dynamic": [2]}, {"name": "g", "op": "max_pool1d", "args": [{"ref": "x"}, [4611686018427387904], [1], [0], [4611686018427387904]]}], "outputs": [{"ref": "g"}]}' > "$tmpd/pool.json"
check "pool huge dilation exact" 3 "s0 - 21267647932558653961849226946058125312" "$S" run "$tmpd/pool.json" -b json
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [4, 4], "dynamic": [0, 1]}, {"name": "f", "op": "flatten", "args": [{"ref": "x"}]}, {"name": "g", "op": "view", "args": [{"ref": "f"}, -1, 2]}], "outputs": [{"ref": "g"}]}' > "$tmpd/flat.json"
check "probe output past int64" 0 "output size 9223372036854775808 does not fit int64" "$S" probe "$tmpd/flat.json" --sizes x=4294967296,4294967296
check "probe size past int64" 2 "non-negative integers" "$S" probe "$E/resnet18.json" --sizes x=4,3,9223372036854775808,9223372036854775809
printf '{"points": [{"sizes": {"x": [8, 3, 224, 224]}}, null]}' > "$tmpd/pts.json"
check "probe malformed point" 3 "point 1: expected an object" "$S" probe "$E/resnet18.json" --points "$tmpd/pts.json"
printf '{"points": [{"sizes": {"x": [8, 3, 224, 224]}, "ok": "yes", "outputs": 5}]}' > "$tmpd/pts.json"
check "probe malformed truth" 3 "point 0: \"ok\" must be true or false" "$S" probe "$E/resnet18.json" --points "$tmpd/pts.json"
printf '{"points": [{"sizes": {"x": [8, 3, 224, 224]}, "ok": true, "outputs": [[8, 999]]}]}' > "$tmpd/pts.json"
check "probe names a violation" 1 "SOUNDNESS VIOLATION" "$S" probe "$E/resnet18.json" --points "$tmpd/pts.json"
check "probe missing points file" 3 "unable to open" "$S" probe "$E/resnet18.json" --points /nonexistent/p.json
check "run bad --dynamic dim" 3 "no dim 9" "$S" run "$E/resnet18.json" --dynamic x=9 -b json
check "probe accept" 0 "accept" "$S" probe "$E/resnet18.json" --sizes x=4,3,64,64
check "probe reject names guard" 0 "x.size()[2] == 224 failed: x.size()[2] = 128" "$S" probe "$E/vit_b_16.json" --sizes x=2,3,128,128
check "probe json" 0 '"accept":true' "$S" probe "$E/resnet18.json" --sizes x=4,3,64,64 --json
check "probe error field" 0 '"error":"node' "$S" probe "$E/vit_b_16.json" --sizes x=2,3,128,128 --json
check "probe points" 0 "1 accepted, 0 soundness violations" "$S" probe "$E/resnet18.json" --points "$E/resnet18.probes.json"
check "probe bad sizes" 2 "NAME=D" "$S" probe "$E/resnet18.json" --sizes x=4,a
check "probe unknown input" 3 "no input named 'y'" "$S" probe "$E/resnet18.json" --sizes y=4
check "probe twice" 2 "given twice" "$S" probe "$E/resnet18.json" --sizes x=1 --sizes x=2
check "probe no points" 2 "expected --sizes" "$S" probe "$E/resnet18.json"
check "probe bad points" 3 "line 2" "$S" probe "$E/resnet18.json" --points "$tmpd/bad.json"
# ---- backends and bytecode commands
check "run report" 0 "specialized: 224" "$S" run "$E/vit_b_16.json"
check "run markdown" 0 "# " "$S" run "$E/vit_b_16.json" --backend markdown
check "run c" 0 "guards_check(const int64_t *sizes" "$S" run "$E/vit_b_16.json" --backend c
check "run c prefix" 0 "vit_check(" "$S" run "$E/vit_b_16.json" --backend c --prefix vit
check "run c bad prefix" 3 "prefix" "$S" run "$E/vit_b_16.json" --backend c --prefix 9x
check "run bytecode" 0 "-" "$S" run "$E/vit_b_16.json" --backend bytecode -o "$tmpd/v.sybc"
check "check accept" 0 "accept" "$S" check "$tmpd/v.sybc" --sizes x=2,3,224,224
check "check reject" 1 "x.size()[2] == 224 failed" "$S" check "$tmpd/v.sybc" --sizes x=2,3,128,128
check "check dtype" 1 "x.dtype == 0 failed" "$S" check "$tmpd/v.sybc" --sizes x=2,3,224,224 --dtype x=float16
check "check rank" 1 "x.dim() == 4 failed" "$S" check "$tmpd/v.sybc" --sizes x=2,3,224
check "check missing input" 2 "give --sizes x=" "$S" check "$tmpd/v.sybc" --sizes y=1
check "check no sizes" 2 "expected --sizes" "$S" check "$tmpd/v.sybc"
check "check bad sizes" 2 "bad sizes" "$S" check "$tmpd/v.sybc" --sizes x=1,b
check "disasm" 0 "CHECK" "$S" disasm "$tmpd/v.sybc"
check "disasm usage" 2 "expected one bytecode file" "$S" disasm
check "disasm a directory" 3 "Is a directory" "$S" disasm /
head -c 40 "$tmpd/v.sybc" > "$tmpd/trunc.sybc"
check "check truncated" 3 "byte" "$S" check "$tmpd/trunc.sybc" --sizes x=1
printf 'NOTBYTECODE-NOTBYTECODE-NOTBYTECODE-NOTBYTECODE' > "$tmpd/junk.sybc"
check "disasm bad magic" 3 "magic" "$S" disasm "$tmpd/junk.sybc"
cp "$tmpd/v.sybc" "$tmpd/flip.sybc"; printf '\xff' | dd of="$tmpd/flip.sybc" bs=1 seek=60 conv=notrunc 2>/dev/null
check "check corrupt" 3 "SY_E" "$S" check "$tmpd/flip.sybc" --sizes x=2,3,224,224
check "check missing file" 3 "cannot open" "$S" check /nonexistent.sybc --sizes x=1
# ---- end to end on every corpus model: run and probe --points, zero violations
SH="${SY_SHARED_DIR:-$T/../../shared}"; C="$SH/corpus"; P="$SH/probes"
if [ -d "$C" ]; then
  for m in "$C"/*.json; do
    b="$(basename "$m" .json)"
    check "e2e run $b" 0 "kept after minimization" "$S" run "$m" --stats -o "$tmpd/$b.txt" --backend json
    check "e2e probe $b" 0 "0 soundness violations" "$S" probe "$m" --points "$P/$b.probes.json" --json
  done
fi
rm -rf "$tmpd"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
