#!/usr/bin/env bash
# CLI tests: every command, exit status and error path.
# usage: run.sh SYMSHAPE TESTS_DIR
set -u
S="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; T="$2"
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
check "run bytecode to a pipe" 0 "-" sh -c "'$S' run -b bytecode | od -c"
check "eval bignum" 0 "576" "$S" eval 'Mod(-(2**70), 1000)'
check "eval bool" 0 "false" "$S" eval '2 <= s0 <= 10' s0=11
check "eval unbound" 3 "'y' has no value" "$S" eval 'x + y' x=1
check "eval div zero" 3 "division by zero" "$S" eval 'FloorDiv(x, y)' x=1 y=0
check "eval bad binding" 2 "NAME=VALUE" "$S" eval 'x' x
check "eval bad value" 3 "not an integer" "$S" eval 'x' x=abc
check "decide true" 0 "true" "$S" decide 's != 1' --assume 's >= 2'
check "decide unknown" 5 "unknown" "$S" decide 's != 1' --assume 's >= 1'
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
tmpd="$(mktemp -d)"; trap 'rm -rf "$tmpd"' EXIT
check "run default model" 0 "x.size()[2] == x.size()[3]" "$S" run --backend json
check "run stats" 0 "guards:" "$S" run "$E/resnet18.json" --backend json --stats -o "$tmpd/g.json"
check "run json file" 0 "symshape.guards" cat "$tmpd/g.json"
check "run vit pins 224" 0 "x.size()[2] == 224" "$S" run "$E/vit_b_16.json" --backend json
check "run --list-unsupported lists every unknown op" 1 "frobnicate: 2 nodes (first: 'a')" "$S" run --list-unsupported "$T/cli/data/unknown_ops.json"
check "run --list-unsupported names the second op" 1 "wibble: 1 node (first: 'd')" "$S" run --list-unsupported "$T/cli/data/unknown_ops.json"
check "run --list-unsupported counts" 1 "2 unsupported ops in 3 of 4 call nodes" "$S" run --list-unsupported "$T/cli/data/unknown_ops.json"
check "run --list-unsupported on a supported model" 0 "every op is supported (69 call nodes)" "$S" run --list-unsupported "$E/resnet18.json"
check "dispatch names a guard that failed closed" 1 "no entry accepts (fail closed: SY_EOVERFLOW in guard 1 of entry 0: _s2**4 != 7)" "$S" dispatch "$T/guards/data/dispatch_overflow.json" -s x=1048576
check "dispatch: a plain rejection" 1 "no entry accepts" "$S" dispatch "$T/guards/data/dispatch_overflow.json" -s x=3,4
check "run: an unknown op names the node" 3 "node 'a' (frobnicate): unknown op 'frobnicate'" "$S" run "$T/cli/data/unknown_ops.json"
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
check "run bad --dynamic" 2 "--dynamic expects NAME=D[:DIM][@MIN..MAX],... (got 'x')" "$S" run "$E/resnet18.json" --dynamic x
check "run bad --dynamic index" 2 "column 3: a dim index must be <= 63" "$S" run "$E/resnet18.json" --dynamic x=4294967296
check "run bad --dynamic range" 2 "column 10: the range is empty" "$S" run "$E/resnet18.json" --dynamic x=0:b@9..3
# fix38: a range of one size ([0, 0]) was accepted silently; torch.export's Dim refuses min == max
check "run --dynamic range of one size" 2 "column 8: the range holds one size (MIN == MAX)" "$S" run "$E/resnet18.json" --dynamic x=0@0..0
check "run --dynamic range of one size, named" 2 "the range holds one size" "$S" run "$E/resnet18.json" --dynamic x=0:b@8..8
check "probe bad --dynamic name" 2 "column 5: expected a dim name" "$S" probe "$E/resnet18.json" --sizes x=1,3,64,64 --dynamic x=0:
check "run --dynamic outside range" 3 "x.size()[0] = 8 at the example is outside 'b''s declared range [1, 4]" "$S" run "$E/resnet18.json" --dynamic x=0:b@1..4
if "$S" infer --help >/dev/null 2>&1 && [ -f "$T/../fuzz/corpus_onnx/op_maxpool.onnx" ]; then
  # infer numbers its guards from 0, as run's report [N] and the JSON "guard" indices do
  check "infer guard numbers from 0" 0 "  0. x.dim() == 4   [tensor_match]" "$S" infer "$T/../fuzz/corpus_onnx/op_maxpool.onnx"
  check "infer last guard index 4" 0 "  4. 2 <= w   [range]" "$S" infer "$T/../fuzz/corpus_onnx/op_maxpool.onnx"
  check "run guard numbers from 0" 0 "    [0] x.dim() == 4" "$S" run "$T/../fuzz/corpus_onnx/op_maxpool.onnx"
fi
check "run spec violated exits 1" 1 "suggested fix: static 224; the model itself requires it: _assert at node '_assert'" "$S" run "$E/vit_b_16.json" --dynamic x=0:batch,2:h,3:w
check "run spec violated json" 1 '"fix": "static 224' "$S" run "$E/vit_b_16.json" --dynamic x=0:batch,2:h,3:w -b json
check "run spec violated markdown" 1 "**Constraints violated: 2.**" "$S" run "$E/vit_b_16.json" --dynamic x=0:batch,2:h,3:w -b markdown
check "run spec holds" 0 "holds: the guard set keeps every declared dim dynamic" "$S" run "$E/resnet18.json" --dynamic x=0:batch@1..1024,2:h,3:w
check "run --dynamic named" 0 "declared range [2, oo): Dim('h', min=2)" "$S" run "$E/resnet18.json" --dynamic x=0:batch@1..1024,2:h,3:w
printf '{"format": "symshape.graph", "version": 1, "nodes": [], "outputs": []}' > "$tmpd/empty.json"
check "run empty graph" 0 "symshape.guards" "$S" run "$tmpd/empty.json" -b json
# huge padding / dilation: exact arithmetic, no int64 wrap (the output size is exact)
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [1, 8, 8], "dynamic": [2]}, {"name": "g", "op": "max_pool1d", "args": [{"ref": "x"}, [4611686018427387904], [1], [0], [4611686018427387904]]}], "outputs": [{"ref": "g"}]}' > "$tmpd/pool.json"
check "pool huge dilation exact" 3 "x.size()[2] - 21267647932558653961849226946058125312" "$S" run "$tmpd/pool.json" -b json
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [4, 4], "dynamic": [0, 1]}, {"name": "f", "op": "flatten", "args": [{"ref": "x"}]}, {"name": "g", "op": "view", "args": [{"ref": "f"}, -1, 2]}], "outputs": [{"ref": "g"}]}' > "$tmpd/flat.json"
# the flatten's dim 2**64 is refused where it is made (sy_env_require_int64, issue 38), before the view's 2**63
check "probe output past int64" 0 "node 'f' (flatten): dim 0 = 18446744073709551616 does not fit int64" "$S" probe "$tmpd/flat.json" --sizes x=4294967296,4294967296
# an op's message that names the op is not prefixed with it again (issue 33: "cat: cat:")
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [2, 3], "dynamic": [0, 1]}, {"name": "y", "op": "input", "dtype": "float32", "shape": [2, 3], "dynamic": [0, 1]}, {"name": "c", "op": "cat", "args": [[{"ref": "x"}, {"ref": "y"}], 0]}], "outputs": [{"ref": "c"}]}' > "$tmpd/cat.json"
check "probe op message not doubled" 0 "node 'c' (cat): cat: sizes of dim 1 must match (expected 3 but got 4 for tensor 1)" "$S" probe "$tmpd/cat.json" --sizes x=2,3 --sizes y=2,4
check "probe size past int64" 2 "non-negative integers" "$S" probe "$E/resnet18.json" --sizes x=4,3,9223372036854775808,9223372036854775809
printf '{"points": [{"sizes": {"x": [8, 3, 224, 224]}}, null]}' > "$tmpd/pts.json"
check "probe malformed point" 3 "point 1: expected an object" "$S" probe "$E/resnet18.json" --points "$tmpd/pts.json"
printf '{"points": [{"sizes": {"x": [8, 3, 224, 224]}, "ok": "yes", "outputs": 5}]}' > "$tmpd/pts.json"
check "probe malformed truth" 3 "point 0: \"ok\" must be true or false" "$S" probe "$E/resnet18.json" --points "$tmpd/pts.json"
printf '{"points": [{"sizes": {"x": [8, 3, 224, 224]}, "ok": true, "outputs": [[8, 999]]}]}' > "$tmpd/pts.json"
check "probe names a violation" 1 "SOUNDNESS VIOLATION" "$S" probe "$E/resnet18.json" --points "$tmpd/pts.json"
# an input no node reads shares duck symbols with a read one but gets no duck equality: the
# inferred outputs read each symbol from the source the guard set represents it by (the read
# input's), not from the unread input's (torch: x1 * x1 at x1 [2, 2, 0] is [2, 2, 0]; it said [3, 0, 0])
printf '{"format": "symshape.graph", "version": 1, "nodes": [{"name": "x0", "op": "input", "dtype": "float32", "shape": [3, 1, 2], "dynamic": [0, 1, 2]}, {"name": "x1", "op": "input", "dtype": "float32", "shape": [2, 3, 0], "dynamic": [0, 1, 2]}, {"name": "t0", "op": "mul", "args": [{"ref": "x1"}, {"ref": "x1"}], "kwargs": {}}], "outputs": [{"ref": "t0"}]}' > "$tmpd/unread.json"
printf '{"points": [{"sizes": {"x0": [0, 3, 3], "x1": [2, 2, 0]}, "ok": true, "outputs": [[2, 2, 0]]}]}' > "$tmpd/unread.pts"
check "probe unread input: inferred outputs" 0 "1 accepted, 0 soundness violations" "$S" probe "$tmpd/unread.json" --points "$tmpd/unread.pts"
check "probe unread input: json" 0 '{"sizes":{"x0":[0,3,3],"x1":[2,2,0]},"accept":true,"failed_guard":null,"outputs":[[2,2,0]],"error":null}' "$S" probe "$tmpd/unread.json" --sizes x0=0,3,3 --sizes x1=2,2,0 --json
check "probe missing points file" 3 "cannot open /nonexistent/p.json: No such file or directory" "$S" probe "$E/resnet18.json" --points /nonexistent/p.json
check "run bad --dynamic dim" 2 "input 'x' has no dim 9 (rank 4)" "$S" run "$E/resnet18.json" --dynamic x=9 -b json
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
check "check dtype" 1 "x.dtype == float32 failed: x.dtype = float16 (code 2)" "$S" check "$tmpd/v.sybc" --sizes x=2,3,224,224 --dtype x=float16
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
# ---- GNU conventions (getopt_long) on every command
checkx() { # description, expected status, exact expected stdout+stderr, command...
  local desc="$1" want="$2" exp="$3"; shift 3
  local out rc
  out="$("$@" 2>&1)"; rc=$?
  if [ "$rc" != "$want" ] || [ "$out" != "$exp" ]; then
    echo "FAIL: $desc: exit $rc (expected $want); output: '$out', expected '$exp'"; fail=$((fail+1)); return
  fi
  pass=$((pass+1))
}
V="$("$S" --version)"
for c in run probe check disasm simplify eval decide bound cases; do
  check "$c --help" 0 "usage: symshape $c" "$S" "$c" --help
  check "$c -h" 0 "exit status:" "$S" "$c" -h
  checkx "$c --version" 0 "$V" "$S" "$c" --version
  checkx "$c -V" 0 "$V" "$S" "$c" -V
  check "$c unknown option" 2 "symshape: error: $c: unknown option '--frobnicate'" "$S" "$c" --frobnicate
done
checkx "help CMD" 0 "$("$S" simplify --help)" "$S" help simplify
checkx "-V" 0 "$V" "$S" -V
checkx "simplify -- -x" 0 "-x + 1" "$S" simplify -- '-x + 1'
checkx "simplify -- --x" 0 "x" "$S" simplify -- '--x'
checkx "simplify -- -h" 0 "-h" "$S" simplify -- -h
check "simplify -x hints --" 2 "an expression starting with '-' goes after '--'" "$S" simplify -x
checkx "--assume=REL" 0 "true" "$S" decide --assume='s >= 2' 's != 1'
checkx "--assume REL after the operand" 0 "true" "$S" decide 's != 1' --assume 's >= 2'
checkx "-a REL" 0 "true" "$S" decide -a 's >= 2' 's != 1'
checkx "-aREL" 0 "true" "$S" decide '-as >= 2' 's != 1'
checkx "--ass (unambiguous prefix)" 0 "true" "$S" decide --ass 's >= 2' 's != 1'
checkx "missing option argument" 2 "symshape: error: decide: option '--assume' needs an argument
(see 'symshape decide --help')" "$S" decide 's != 1' --assume
checkx "missing short option argument" 2 "symshape: error: decide: option '-a' needs an argument
(see 'symshape decide --help')" "$S" decide 's != 1' -a
checkx "value to a flag" 2 "symshape: error: run: option '--stats' takes no value (got '--stats=1')
(see 'symshape run --help')" "$S" run --stats=1
checkx "usage error format" 2 "symshape: error: simplify: expected one expression (or -f FILE)
(see 'symshape simplify --help')" "$S" simplify
checkx "decide false status" 1 "false" "$S" decide 'x >= 5' -a 'x <= 3'
checkx "decide true status" 0 "true" "$S" decide 'x >= 1' -a 'x >= 3'
checkx "decide unknown status" 5 "unknown" "$S" decide 'x >= 5' -a 'x >= 3'
# -f FILE and -f -: an expression too long for an argument list
/usr/bin/python3 -c "print('+'.join('x%d' % i for i in range(30000)) + ' - ' + '-'.join('x%d' % i for i in range(30000)))" > "$tmpd/big.expr"
checkx "simplify -f (large file)" 0 "0" "$S" simplify -f "$tmpd/big.expr"
[ "$(wc -c < "$tmpd/big.expr")" -gt 131072 ] && pass=$((pass+1)) || { echo "FAIL: big.expr is not > 128 KiB"; fail=$((fail+1)); }
checkx "simplify -f -" 0 "2*x" sh -c "echo 'x + x' | '$S' simplify -f -"
checkx "simplify --file=FILE" 0 "0" "$S" simplify --file="$tmpd/big.expr"
checkx "eval -f" 0 "7" sh -c "printf 'a*b + 1\n' | '$S' eval -f - a=2 b=3"
checkx "decide -f with assumption" 0 "true" sh -c "echo 's != 1' | '$S' decide -f - -a 's >= 2'"
checkx "bound -f" 0 "[2, oo]" sh -c "echo 's + 1' | '$S' bound -a 's >= 1' -f -"
checkx "-f and an operand" 2 "symshape: error: simplify: expected the expression either as an operand or with -f, not both
(see 'symshape simplify --help')" "$S" simplify -f "$tmpd/big.expr" x
checkx "-f missing file" 3 "symshape: error: cannot open /nonexistent/e.txt: No such file or directory" "$S" simplify -f /nonexistent/e.txt
printf 'x +\0 1' > "$tmpd/nul.expr"
checkx "-f NUL byte" 3 "symshape: error: cannot parse expression $tmpd/nul.expr: NUL byte at byte 3" "$S" simplify -f "$tmpd/nul.expr"
# '-' reads stdin: model, .cases, bytecode, points; -o - writes stdout
checkx "run model from stdin" 0 "$("$S" run "$E/vit_b_16.json" -b json)" sh -c "'$S' run -b json - < '$E/vit_b_16.json'"
checkx "run --backend=json -o -" 0 "$("$S" run "$E/vit_b_16.json" -b json)" "$S" run --backend=json -o - "$E/vit_b_16.json"
checkx "run --output=FILE" 0 "" "$S" run --backend json --output="$tmpd/o.json" "$E/vit_b_16.json"
checkx "run -o unwritable" 3 "symshape: error: cannot write /nonexistent/dir/g.json: No such file or directory" "$S" run -b json -o /nonexistent/dir/g.json "$E/vit_b_16.json"
if [ -w /dev/full ]; then
  checkx "run -o /dev/full" 3 "symshape: error: cannot write /dev/full: No space left on device" "$S" run -b json -o /dev/full "$E/vit_b_16.json"
  checkx "stdout full" 3 "symshape: error: cannot write <stdout>: No space left on device" sh -c "'$S' simplify x 2>&1 >/dev/full"
fi
# issue 38: an input that never ends was read until memory ran out (region /dev/zero: no answer in 60 s)
if [ -r /dev/zero ]; then
  for c in region run cases disasm; do
    checkx "$c /dev/zero" 3 "symshape: error: cannot read /dev/zero: more than 64 MiB (graphs, guard sets, bytecode and .cases files are smaller; the largest corpus graph is 0.6 MB)" "$S" $c /dev/zero
  done
fi
check "cases -" 0 "1 passed, 0 failed" sh -c "echo 'eval 1 + 1 => 2' | '$S' cases -"
check "cases - names stdin" 1 "<stdin>:1" sh -c "echo 'eval 1 + 1 => 3' | '$S' cases -"
checkx "stdin once" 2 "symshape: error: cases: standard input ('-') can be read only once
(see 'symshape cases --help')" sh -c "echo | '$S' cases - -"
checkx "check bytecode from stdin" 0 "accept" sh -c "'$S' check --sizes=x=2,3,224,224 - < '$tmpd/v.sybc'"
# issue 38: an input whose numel is past int64 cannot exist; rejected whatever the guards say
checkx "check: numel past int64" 1 "reject: input x cannot exist: its numel 347093936490918923206656 (the product of its sizes) is past int64 (9223372036854775807)" "$S" check --sizes=x=2305843009213693952,3,224,224 "$tmpd/v.sybc"
check "check: numel 0 is not past int64" 1 "reject: guard 2: x.size()[2] == x.size()[3] failed" "$S" check --sizes=x=2305843009213693952,3,224,0 "$tmpd/v.sybc"
check "disasm -" 0 "CHECK" sh -c "'$S' disasm - < '$tmpd/v.sybc'"
check "probe --points -" 0 "1 accepted, 0 soundness violations" sh -c "'$S' probe --points - '$E/resnet18.json' < '$E/resnet18.probes.json'"
# per-guard rejection counts (issue 13 item 5): the duck-sizing guard rejects 150 of 151; re-run under the flag it names
check "probe rejections by guard" 0 "  [2] x.size()[2] == x.size()[3]: 150 of 151 — duck sizing; --no-duck-sizing accepts 137" "$S" probe "$E/resnet18.json" --points "$E/resnet18.probes.json"
check "probe rejections: --no-duck-sizing" 0 "137 accepted, 0 soundness violations" "$S" probe "$E/resnet18.json" --no-duck-sizing --points "$E/resnet18.probes.json"
check "probe rejections: stdin model not re-run" 0 "--no-duck-sizing avoids it (not re-run: the model was read from stdin)" sh -c "'$S' probe --points '$E/resnet18.probes.json' - < '$E/resnet18.json'"
check "probe --sizes=" 0 "accept" "$S" probe --sizes=x=4,3,64,64 "$E/resnet18.json"
checkx "probe --fail-on-reject" 1 '{"x":[2,3,128,128]}: reject (x.size()[2] == 224 failed: x.size()[2] = 128); outputs node '"'"'_assert'"'"' (_assert): AssertionError: Wrong image height! Expected 224 but got 128!' "$S" probe --fail-on-reject "$E/vit_b_16.json" --sizes x=2,3,128,128
checkx "probe --fail-on-reject accept" 0 '{"x":[2,3,224,224]}: accept; outputs [[2,1000]]' "$S" probe --fail-on-reject "$E/vit_b_16.json" --sizes x=2,3,224,224
# no fixed limits: 20 dims, 20 inputs, long names
dims20="$(seq -s, 0 19)"; ones20="$(yes 2 | head -20 | paste -sd,)"
/usr/bin/python3 - "$tmpd/wide.json" <<'PY'
import json, sys
nodes = [{"name": "in%02d_%s" % (i, "n" * 200), "op": "input", "dtype": "float32", "shape": [2] * 20, "dynamic": list(range(20))} for i in range(20)]
nodes.append({"name": "s", "op": "add", "args": [{"ref": nodes[0]["name"]}, {"ref": nodes[19]["name"]}]})
json.dump({"format": "symshape.graph", "version": 1, "nodes": nodes, "outputs": [{"ref": "s"}]}, open(sys.argv[1], "w"))
PY
n200="$(printf 'n%.0s' $(seq 200))"
dynargs=(); for i in $(seq -w 0 19); do dynargs+=(--dynamic "in${i}_$n200=$dims20"); done
check "run: 20 overrides of 20 dims, 200-char names" 0 "symshape.guards" "$S" run -b json "${dynargs[@]}" "$tmpd/wide.json"
szargs=(); for i in $(seq -w 0 19); do szargs+=(--sizes "in${i}_$n200=$ones20"); done
check "probe: 20 inputs of rank 20" 0 "accept" "$S" probe "${szargs[@]}" "$tmpd/wide.json"
check "run -b bytecode wide" 0 "-" "$S" run -b bytecode -o "$tmpd/wide.sybc" "$tmpd/wide.json"
check "check: 20 inputs of rank 20" 0 "accept" "$S" check "${szargs[@]}" "$tmpd/wide.sybc"
/usr/bin/python3 -c "import json; print(json.dumps({'points': [{'sizes': {'in%02d_%s' % (i, 'n' * 200): [2] * 20 for i in range(20)}}, {'sizes': {'in%02d_%s' % (i, 'n' * 200): [2] * (19 + (i == 3)) for i in range(20)}}]}))" > "$tmpd/wide.pts"
check "probe --points rank 20" 0 "reject (in00_${n200}.dim() == 20 failed: in00_${n200}.dim() = 19); outputs input 'in00_${n200}' has 20 dims, got 19 sizes" "$S" probe --points "$tmpd/wide.pts" "$tmpd/wide.json"
check "probe --points rank 20 (first point)" 0 "accept; outputs [[2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2]]" "$S" probe --points "$tmpd/wide.pts" "$tmpd/wide.json"
checkx "run --static unknown input" 2 "symshape: error: run: --static y: the model has no input named 'y' (inputs: x)
(see 'symshape run --help')" "$S" run -b json --static y "$E/resnet18.json"
check "run --dynamic twice" 2 "already has a --dynamic or --static" "$S" run -b json --dynamic x=0 --static x "$E/resnet18.json"
# ---- the .cases runner checks its own expectations (exact FAIL lines)
checkx "cases: wrong expectations" 1 "$(cat "$T/cli/wrong_expectations.expected")" sh -c "cd '$T/cli' && '$S' cases wrong_expectations.cases"
checkx "cases --strict" 1 "$(cat "$T/cli/wrong_expectations.strict.expected")" sh -c "cd '$T/cli' && '$S' cases --strict wrong_expectations.cases"
checkx "cases -s from stdin" 1 "$(sed 's/^wrong_expectations.cases:/<stdin>:/' "$T/cli/wrong_expectations.strict.expected")" sh -c "'$S' cases -s - < '$T/cli/wrong_expectations.cases'"
# on a terminal the progress line is cleared before a FAIL line
if command -v script >/dev/null; then
  printf 'eval 1 => 2\n' > "$tmpd/one.cases"
  tty_out="$(script -qec "'$S' cases '$T/algebra/own.cases' '$tmpd/one.cases'" /dev/null | tr '\r\033' '<^')"
  case "$tty_out" in
    *"[$tmpd/one.cases]<^[K$tmpd/one.cases:1: FAIL: eval 1: got 1, expected 2"*) pass=$((pass+1)) ;;
    *) echo "FAIL: cases on a terminal: progress not cleared before FAIL: $tty_out" | cut -c1-600; fail=$((fail+1)) ;;
  esac
fi
# README's tables match --help: every command and exit status, both ways
R="$T/../README.md"
help_cmds="$("$S" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\)  *\(.*\)$/| `\1` | \2 |/p')"
readme_cmds="$(grep -E '^\| `[a-z-]+` \| ' "$R" | grep -vE '^\| `(symshape|-)' )"
checkx "README command table = --help" 0 "$help_cmds" printf '%s' "$readme_cmds"
help_ex="$("$S" --help | sed -n '/^exit status:/,$p' | sed -n 's/^  \([0-9]\)  \(.*\)$/| \1 | \2 |/p')"
readme_ex="$(grep -E '^\| [0-9] \| ' "$R")"
checkx "README exit-status table = --help" 0 "$help_ex" printf '%s' "$readme_ex"
# a slot whose source is not exactly NAME.dim(), NAME.dtype or NAME.size()[I] is unsupported,
# never read as the dtype or past its NUL (the file is re-sealed with a valid CRC-32)
for bad in 'x.dtypZ' 'x.size(' 'x.dim(Z' 'xdtype.'; do
  /usr/bin/python3 - "$tmpd/v.sybc" "$tmpd/slot.sybc" "$bad" <<'PY'
import sys, zlib, struct
d = bytearray(open(sys.argv[1], 'rb').read())
old, new = b'x.dtype', sys.argv[3].encode()
i = d.index(old)
assert len(new) == len(old)
d[i:i + len(old)] = new
crc = zlib.crc32(bytes(d[:36]) + bytes(d[40:])) & 0xffffffff
d[36:40] = struct.pack('<I', crc)
open(sys.argv[2], 'wb').write(d)
PY
  checkx "check: slot '$bad'" 3 "symshape: error: $tmpd/slot.sybc: unsupported source '$bad' in slot 1 (expected NAME.dim(), NAME.dtype, NAME.size()[I] or NAME.stride()[I])" "$S" check --sizes x=2,3,224,224 "$tmpd/slot.sybc"
done
# control bytes in a (CRC-valid) file's slot names and guard texts are shown escaped, as disasm
# shows them, never written to the terminal
reseal() { # in out old new (Python bytes literals)
  /usr/bin/python3 - "$@" <<'PY'
import sys, zlib, struct, ast
d = bytearray(open(sys.argv[1], 'rb').read())
old, new = ast.literal_eval(sys.argv[3]), ast.literal_eval(sys.argv[4])
assert len(new) == len(old) and old in d
i = d.index(old)
d[i:i + len(old)] = new
crc = zlib.crc32(bytes(d[:36]) + bytes(d[40:])) & 0xffffffff
d[36:40] = struct.pack('<I', crc)
open(sys.argv[2], 'wb').write(d)
PY
}
reseal "$tmpd/v.sybc" "$tmpd/ctl.sybc" "b'x.dtype'" "b'\\x1b[31mx.'"
check "check: control bytes in a slot name" 3 "unsupported source '\\x1b[31mx.' in slot 1" "$S" check --sizes x=2,3,224,224 "$tmpd/ctl.sybc"
reseal "$tmpd/v.sybc" "$tmpd/ctl2.sybc" "b'[2] == 224'" "b'[2] ==\\x07224'"
check "check: control bytes in a guard text" 1 'x.size()[2] ==\x07224 failed' "$S" check --sizes x=2,3,128,128 "$tmpd/ctl2.sybc"
if "$S" check --sizes x=2,3,128,128 "$tmpd/ctl2.sybc" 2>&1 | grep -q $'\a'; then echo "FAIL: check wrote a BEL byte"; fail=$((fail+1)); else pass=$((pass+1)); fi
check "disasm: control bytes escaped" 0 '==\x07224' "$S" disasm "$tmpd/ctl2.sybc"
# ---- end to end on every corpus model: run and probe --points, zero violations
SH="${SY_SHARED_DIR:-$T/../../shared}"; C="$SH/corpus"; P="$SH/probes"
if [ -d "$C" ]; then
  check "probe rejections: model requirement" 0 "[4] x.size()[2] == 224: 3 of 151 — required by _assert at node '_assert'" "$S" probe "$E/vit_b_16.json" --points "$P/vit_b_16.probes.json"
  for m in "$C"/*.json; do
    b="$(basename "$m" .json)"
    check "e2e run $b" 0 "kept after minimization" "$S" run "$m" --stats -o "$tmpd/$b.txt" --backend json
    check "e2e probe $b" 0 "0 soundness violations" "$S" probe "$m" --points "$P/$b.probes.json" --json
  done
fi
# work budgets (issue 14): --budget on every command, exit 3 naming the budget
L=s
for k in 1 2 3 4 5 6; do
  LAY="FloorDiv(FloorDiv(FloorDiv(512, FloorDiv(64*FloorDiv(($L)**2, 448), 7))*FloorDiv(($L)**2, 448), 8)*FloorDiv(64*FloorDiv(($L)**2, 448), 7), 7)"
  L="FloorDiv($LAY, 4)"
done
check "decide layer 6" 5 "unknown" "$S" decide "$LAY >= 0" --assume 's >= 1'
check "decide layer 6, 1000 steps" 3 "work budget exceeded: the operation needs more than 1000 steps (raise sy_ctx_options.max_steps, or --budget steps=N" "$S" --budget steps=1000 decide "$LAY >= 0" --assume 's >= 1'
check "budget after the command" 3 "more than 1000 steps" "$S" decide --budget=steps=1000 "$LAY >= 0" --assume 's >= 1'
check "simplify layer 6: let-form" 0 'let $1 = ' "$S" simplify "$LAY" --assume 's >= 1'
check "simplify layer 6: note" 0 "printed the let-form" "$S" simplify "$LAY" --assume 's >= 1'
check "simplify --print let, nothing shared" 0 "x + 1" "$S" simplify --print let 'x + 1'
check "simplify --print bad" 2 "--print must be auto, canonical or let" "$S" simplify --print tree 'x'
POW7="(a+b+c+d+e+f+g+h+1)**7*$(seq -s '*' -f 'y%g' 1 300)"
check "power row, 100000 terms" 3 "more than 100000 intermediate terms" "$S" --budget terms=100000 simplify "$POW7"
check "product row, 1M bytes" 3 "more than 1048576 bytes" "$S" --budget bytes=1M simplify "$(seq -s '*' -f 'x%g' 1 18000)"
check "budget unknown name" 2 "unknown budget 'time'" "$S" --budget time=1 simplify x
check "budget zero" 2 "'0' is not a positive integer" "$S" --budget steps=0 simplify x
check "budget no value" 2 "needs an argument" "$S" simplify x --budget
# 20 steps: conv1 needs more (since op_require formats its reason lazily it needs fewer than 40)
check "budget per graph node" 3 "node '" "$S" --budget steps=20 run "$E/resnet18.json" --backend json
check "budget per graph node: steps" 3 "steps" "$S" --budget steps=20 run "$E/resnet18.json" --backend json
# --version lists the features compiled in (sy_version_features), each missing one by name
check "version features" 0 "features: " "$S" --version
if ! "$S" --version | grep -q "^features: .*html"; then check "version: html missing" 0 "built without html" "$S" --version; fi
# progress (cli/progress.c): the stage line of a long call on a terminal's stderr (script(1)
# gives the pty), erased after the call; nothing with --quiet or when stderr is not a terminal
if command -v script >/dev/null 2>&1; then
  tty_out="$(script -qec "'$S' run '$E/resnet18.json' -b json -o /dev/null" /dev/null </dev/null 2>&1)"
  if grep -q "symshape: run: tracing [0-9]* nodes\.\.\." <<<"$tty_out" && grep -q $'\r\033\[K' <<<"$tty_out"; then
    pass=$((pass+1))
  else echo "FAIL: progress on a terminal: '$tty_out'"; fail=$((fail+1)); fi
  tty_out="$(script -qec "'$S' run --quiet '$E/resnet18.json' -b json -o /dev/null" /dev/null </dev/null 2>&1)"
  if grep -q "tracing" <<<"$tty_out"; then echo "FAIL: progress with --quiet: '$tty_out'"; fail=$((fail+1)); else pass=$((pass+1)); fi
else
  echo "note: no script(1) (bsdutils): the progress line on a terminal is not tested"
fi
check "no progress when stderr is not a terminal" 0 "-" sh -c "! '$S' run '$E/resnet18.json' -b json 2>&1 >/dev/null | grep -q tracing"
check "--quiet anywhere" 0 "resnet18" "$S" run "$E/resnet18.json" --quiet -b json
# region (issue 36, docs/deploy.md)
check "region" 0 "region of resnet18: proved" "$S" region "$E/resnet18.json"
check "region spec" 0 "--dynamic 'x=0:x_0@0..,2:x_2@1..,3:x_3@1..'" "$S" region -f spec "$E/resnet18.json"
check "region torch" 0 '"x": {0: x_0, 1: Dim.STATIC, 2: x_2, 3: x_3},' "$S" region --format torch "$E/resnet18.json"
check "region progression" 0 "2: 4*x_2_k, 3: 4*x_3_k" "$S" region -f torch "$T/deploy/data/unet_cat.json"
check "region all" 0 "== spec ==" "$S" region -f all "$E/vit_b_16.json"
check "region json" 0 '"format": "symshape.region"' "$S" region -f json "$E/vit_b_16.json"
check "region default policy" 0 "= x_2,  x_2 in [2, oo)" "$S" region --default-policy "$E/resnet18.json"
check "region bad format" 2 "unknown format 'tflite'" "$S" region -f tflite "$E/resnet18.json"
check "region bad window" 2 "--window: expected an integer in 1 .. 1000000" "$S" region --window 0 "$E/resnet18.json"
check "region no model" 2 "expected one MODEL" "$S" region
check "region missing file" 3 "cannot open" "$S" region /nonexistent.json
# profile (issue 36)
printf '[{"sizes": {"x": [1, 3, 32, 32]}, "count": 5}, {"sizes": {"x": [2, 3, 64, 64]}, "count": 2}, {"sizes": {"x": [1, 3, 30, 30]}, "count": 9}]' > "$tmpd/h.json"
check "profile" 0 "profile 0: covers 5 of 16 (31.2%)" "$S" profile --histogram "$tmpd/h.json" "$T/deploy/data/unet_cat.json"
check "profile outside" 0 "9 outside the region or rejected" "$S" profile --histogram "$tmpd/h.json" "$T/deploy/data/unet_cat.json"
check "profile trtexec" 0 "--minShapes=x:1x3x32x32 --optShapes=x:1x3x32x32 --maxShapes=x:1x3x32x32" "$S" profile -f trtexec --histogram "$tmpd/h.json" "$T/deploy/data/unet_cat.json"
check "profile ort" 0 '"trt_profile_min_shapes": "x:1x3x32x32,x:2x3x64x64",' "$S" profile -f ort --histogram "$tmpd/h.json" "$T/deploy/data/unet_cat.json"
check "profile no histogram" 0 'ov.PartialShape("[0..32,3,1..896,1..896]")' "$S" profile -f openvino "$E/resnet18.json"
check "profile torch-trt" 0 "torch_tensorrt.Input(name=\"x\", min_shape=(0, 3, 1, 1)" "$S" profile -f torch-trt "$E/resnet18.json"
check "profile bad k" 2 "--profiles: expected an integer in 1 .. 64" "$S" profile -k 0 "$E/resnet18.json"
printf '[{"sizes": {"x": [1, 3, 32]}, "count": 5}]' > "$tmpd/bad.json"
check "profile bad rank" 3 "entry 0: input 'x' has rank 4, the entry gives 3 sizes" "$S" profile --histogram "$tmpd/bad.json" "$E/resnet18.json"
printf '[{"sizes": {"y": [1]}}]' > "$tmpd/bad.json"
check "profile bad input" 3 "entry 0: the model has no input 'y'" "$S" profile --histogram "$tmpd/bad.json" "$E/resnet18.json"
# issue 38 (adversarial pass): counts past 2^63 - 1 wrapped the total ("covers 2^63-1 of 3 (3e20%)"),
# an entry without an input took the example's sizes silently
printf '[{"sizes": {"x": [1, 3, 32, 32]}, "count": 9223372036854775807}, {"sizes": {"x": [2, 3, 64, 64]}, "count": 9223372036854775807}]' > "$tmpd/bad.json"
check "profile counts overflow" 3 "the histogram's counts add up past 2^63 - 1 (point 1)" "$S" profile --histogram "$tmpd/bad.json" "$T/deploy/data/unet_cat.json"
printf '[{"sizes": {}, "count": 3}]' > "$tmpd/bad.json"
check "profile missing input" 3 "entry 0: input 'x' is missing" "$S" profile --histogram "$tmpd/bad.json" "$T/deploy/data/unet_cat.json"
printf '[{"sizes": ' > "$tmpd/bad.json"
check "profile bad json" 3 "bad.json:1:" "$S" profile --histogram "$tmpd/bad.json" "$E/resnet18.json"
# corners (issue 36)
check "corners" 0 "x_2 off its progression 4*x_2_k + 0 (+1)" "$S" corners "$T/deploy/data/unet_cat.json"
check "corners guard" 0 "rejected: x.size()[2] == 4*FloorDiv(x.size()[2], 4) failed: x.size()[2] = 33" "$S" corners "$T/deploy/data/unet_cat.json"
check "corners json" 0 '"format": "symshape.corners"' "$S" corners --json "$E/vit_b_16.json"
check "corners no model" 2 "expected one MODEL" "$S" corners
# memory (issue 36)
check "memory" 0 "conv1                        25690112 bytes = 256*x_0*CeilDiv(x_2, 2)*CeilDiv(x_3, 2)" "$S" memory "$E/resnet18.json"
# issue 38 (adversarial pass): at the 2^40 cap of an unbounded batch the command said "one more does not fit"
check "memory cap" 0 "1099511627776 (proved for every value up to it; the search stops there (2^40): larger values may fit too)" "$S" memory --bytes 9223372036854775807 "$E/resnet18.json"
check "memory 1G" 0 "largest x_0 with every activation <= 1073741824 bytes (the others at the example): 334 (proved" "$S" memory --bytes 1G "$E/resnet18.json"
check "memory 16GiB" 0 "5349 (proved" "$S" memory --bytes 16GiB "$E/resnet18.json"
check "memory bad bytes" 2 "--bytes: expected N" "$S" memory --bytes 1X "$E/resnet18.json"
check "memory bad var" 2 "no variable 'zz'" "$S" memory --var zz "$E/resnet18.json"
# issue 38 (second pass): diff --json -o FILE left FILE with a single newline (the newline's
# write reopened FILE and truncated the JSON)
"$S" diff --json -o "$tmpd/diff.json" "$E/resnet18.json" "$E/vit_b_16.json"; rc=$?
if [ "$rc" = 1 ] && grep -qF '"format": "symshape.diff"' "$tmpd/diff.json" && grep -qF '"verdict": "narrows"' "$tmpd/diff.json"; then :
else echo "FAIL: diff --json -o: exit $rc, file: $(head -c 200 "$tmpd/diff.json")"; fail=$((fail+1)); fi
# issue 38 (second pass): an input named "a=b" could not be given to --sizes (split at the first '=')
printf '{"format":"symshape.graph","version":1,"name":"eq","nodes":[{"name":"a=b","op":"input","dtype":"float32","shape":[4,6],"dynamic":[0,1]},{"name":"v","op":"view","args":[{"ref":"a=b"},[2,-1]],"example":{"dtype":"float32","shape":[2,12]}}],"outputs":[{"ref":"v"}]}' > "$tmpd/eqname.json"
check "probe name with =" 0 '{"a=b":[4,6]}: accept' "$S" probe "$tmpd/eqname.json" --sizes 'a=b=4,6'
check "probe name with =, odd numel" 0 '{"a=b":[3,5]}: reject' "$S" probe "$tmpd/eqname.json" --sizes 'a=b=3,5'
"$S" run "$tmpd/eqname.json" -b bytecode -o "$tmpd/eqname.sybc"
check "check name with =" 0 "accept" "$S" check "$tmpd/eqname.sybc" --sizes 'a=b=4,6' --dtype 'a=b=float32'
# issue 38 (second pass): memory's --top error named profile ("profile: --top ... see 'symshape profile --help'")
check "memory bad top" 2 "symshape: error: memory: --top: expected an integer in 0 .. 1000000 (got '-1')
(see 'symshape memory --help')" "$S" memory --top -1 "$E/resnet18.json"
printf '{"format":"symshape.graph","version":1,"name":"t","nodes":[{"name":"x","op":"input","dtype":"float32","shape":[3,4]},{"name":"r","op":"relu","args":[{"ref":"x"}]}],"outputs":[{"ref":"r"}]}' > "$tmpd/static.json"
check "memory static model" 0 "no dynamic dim: every size is static" "$S" memory --bytes 1G "$tmpd/static.json"
check "region static model" 0 "x_1          static 4" "$S" region "$tmpd/static.json"
# fix38: the text report printed raw control characters of names (ESC sequences, \r, \b); every
# backend's output holds none (report/markdown/html write \xHH), and the SMT-LIB symbols of two
# sources stay two ('a|b' and 'a_b' were both |a_b|)
printf '{"format":"symshape.graph","version":1,"name":"m\\u001b[31mX\\r\\b","nodes":[{"name":"x\\u001b[2J|a*/#","op":"input","dtype":"float32","shape":[4,6],"dynamic":[0,1]},{"name":"a|b","op":"input","dtype":"float32","shape":[4,6],"dynamic":[0]},{"name":"a_b","op":"input","dtype":"float32","shape":[5,6],"dynamic":[0]},{"name":"v","op":"view","args":[{"ref":"x\\u001b[2J|a*/#"},[2,-1]],"example":{"dtype":"float32","shape":[2,12]}}],"outputs":[{"ref":"v"}]}' > "$tmpd/ctl.json"
for b in report markdown c smtlib json html; do
  out="$("$S" run "$tmpd/ctl.json" -b "$b" 2>&1)"; rc=$?
  if [ "$b" = html ] && [ "$rc" != 0 ]; then continue; fi # html needs cmark-gfm at run time
  if [ "$rc" = 0 ] && ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$out"; then pass=$((pass+1))
  else echo "FAIL: run -b $b of names with control characters: exit $rc or a raw control character: $(head -c 300 <<<"$out" | cat -v)"; fail=$((fail+1)); fi
done
check "report escapes ESC" 0 'x\x1b[2J|a*/#.size()[0]' "$S" run "$tmpd/ctl.json" -b report
check "report escapes the model name" 0 'symshape guard report: m\x1b[31mX\x0d\x08' "$S" run "$tmpd/ctl.json" -b report
check "smtlib: a|b is its own symbol" 0 '(declare-const |a%7cb.size()[0]| Int)' "$S" run "$tmpd/ctl.json" -b smtlib
check "smtlib: a_b is its own symbol" 0 '(declare-const |a_b.size()[0]| Int)' "$S" run "$tmpd/ctl.json" -b smtlib
check "smtlib: ESC and | as %XX, # kept" 0 '(declare-const |x%1b[2J%7ca*/#.dim()| Int)' "$S" run "$tmpd/ctl.json" -b smtlib
# issue 38 (fix38f): report and markdown wrote a name's newline raw (rp_sink keeps '\n' for the
# layout), so a name could forge a line ("*/..." below starts one), and markdown left a name's
# `|`, backquote, `[`, `<` able to forge a table cell, a code span, a link or HTML: now \x0a, and
# each markdown metacharacter escaped (in a code span or backslash-escaped)
printf '{"format":"symshape.graph","version":1,"name":"m\\n*/A","nodes":[{"name":"x\\n*/\\"<b>|`[l](u)","op":"input","dtype":"float32","shape":[2,8,4],"dynamic":[0,1]},{"name":"v","op":"view","args":[{"ref":"x\\n*/\\"<b>|`[l](u)"},-1,4],"example":{"dtype":"float32","shape":[16,4]}}],"outputs":[{"ref":"v"}]}' > "$tmpd/nlmd.json"
out="$("$S" run "$tmpd/nlmd.json" -b report 2>&1)"; rc=$?
if [ "$rc" = 0 ] && ! grep -q '^\*/' <<<"$out" && grep -qF 'symshape guard report: m\x0a*/A' <<<"$out" \
   && grep -qF '  x\x0a*/"<b>|`[l](u): float32' <<<"$out" && grep -qF '    dim 0  x\x0a*/"<b>|`[l](u).size()[0]  dynamic' <<<"$out" \
   && grep -qF '  _s2    x\x0a*/"<b>|`[l](u).size()[0]' <<<"$out"; then pass=$((pass+1))
else echo "FAIL: run -b report of names with a newline: exit $rc or a raw newline: $out"; fail=$((fail+1)); fi
out="$("$S" run "$tmpd/nlmd.json" -b markdown 2>&1)"; rc=$?
if [ "$rc" = 0 ] && ! grep -q '^\*/' <<<"$out" && grep -qF '# Guard report: `m\x0a*/A`' <<<"$out" \
   && grep -qF '| 0 | `` x\x0a*/"<b>\|`[l](u).size()[0] `` | dynamic |' <<<"$out" \
   && grep -qF '| rank of input x\x0a\*/"\<b\>\|\`\[l\](u) |' <<<"$out"; then pass=$((pass+1))
else echo "FAIL: run -b markdown of names with a newline and markdown metacharacters: exit $rc or a raw name: $out"; fail=$((fail+1)); fi
out="$("$S" probe "$tmpd/nlmd.json" --sizes 'x
*/"<b>|`[l](u)=3,8,5' 2>&1)"; rc=$?
if [ "$rc" = 0 ] && ! grep -q '^\*/' <<<"$out" && grep -qF ': reject (x\x0a*/"<b>|`[l](u).size()[2] == 4 failed: x\x0a*/' <<<"$out"; then pass=$((pass+1))
else echo "FAIL: probe of names with a newline: exit $rc or a raw newline: $out"; fail=$((fail+1)); fi
# issue 38 (fix38): a bad --range/--fix/--relation printed the report before the usage error;
# every option is checked before any output (the output is the error alone)
# attack38e: a second --range of one variable silently replaced the first
# attack46n: a --relation with A = -2^63 - 1 (e(1) = -2^63, e(0) = 1) overflowed A = e(1) - e(0) (UBSan)
for bad in "--range x_0=10..1" "--range zz=1..2" "--range x_0" "--fix x_0" "--fix x_2=abc" "--relation =x_0" "--bytes 1G --relation x_2" \
           "--range x_0=1..2 --range x_0=3..4" "--var x_2 --relation x_3=-9223372036854775809*x_2+1"; do
  # shellcheck disable=SC2086
  out="$("$S" memory $bad "$E/resnet18.json" 2>&1)"; rc=$?
  if [ "$rc" = 2 ] && [ "$(head -c 16 <<<"$out")" = "symshape: error:" ] && ! grep -q "memory of\|largest" <<<"$out"; then pass=$((pass+1))
  else echo "FAIL: memory $bad: exit $rc, expected 2 and the usage error alone: $out"; fail=$((fail+1)); fi
done
check "memory range" 0 "peak of one activation over x_0 in [1, 4]" "$S" memory --range x_0=1..4 "$E/resnet18.json"
# issue 38 (fix38): region --window 1 took the gap between its two windows' sizes (the low end 4
# and the example 32) as the step: 28*k + 4 for the 4*k of every larger window
for w in 1 2 3 4 2048; do
  check "region --window $w" 0 "x.size()[2]  x_2          = 4*x_2_k,  x_2_k in [1, oo)" "$S" region --window "$w" "$T/deploy/data/unet_cat.json"
done
# issue 38 (fourth pass): diff's and infer's text output printed a name's newline raw, so a
# model could forge a line ("*/..." below starts one); now every control byte of a name is \xHH
printf '{"format":"symshape.graph","version":1,"name":"m\\n*/A","nodes":[{"name":"x\\n*/\\"<b>","op":"input","dtype":"float32","shape":[2,8,4],"dynamic":[0,1]},{"name":"v","op":"view","args":[{"ref":"x\\n*/\\"<b>"},-1,%s],"example":{"dtype":"float32","shape":[%s]}}],"outputs":[{"ref":"v"}]}' 4 16,4 > "$tmpd/nl_a.json"
printf '{"format":"symshape.graph","version":1,"name":"m\\n*/B","nodes":[{"name":"x\\n*/\\"<b>","op":"input","dtype":"float32","shape":[2,8,4],"dynamic":[0,1]},{"name":"v","op":"view","args":[{"ref":"x\\n*/\\"<b>"},-1,%s],"example":{"dtype":"float32","shape":[%s]}}],"outputs":[{"ref":"v"}]}' 8 8,8 > "$tmpd/nl_b.json"
out="$("$S" diff "$tmpd/nl_a.json" "$tmpd/nl_b.json" 2>&1)"; rc=$?
if [ "$rc" = 1 ] && ! grep -q '^\*/' <<<"$out" && grep -qF 'A: m\x0a*/A (' <<<"$out" && grep -qF 'first failing guard of B: #' <<<"$out" \
   && grep -qF 'x\x0a*/"<b>.size()[' <<<"$out"; then pass=$((pass+1))
else echo "FAIL: diff text of names with a newline: exit $rc (expected 1) or a raw newline: $out"; fail=$((fail+1)); fi
printf '\x08\x0e\x3a\x46\x0a\x14\x0a\x06\x78\x0a\x2a\x2f\x22\x3c\x12\x04\x79\x0a\x2a\x2f\x22\x04\x52\x65\x6c\x75\x12\x01\x67\x5a\x1d\x0a\x06\x78\x0a\x2a\x2f\x22\x3c\x12\x13\x0a\x11\x08\x01\x12\x0d\x0a\x07\x12\x05\x4e\x0a\x22\x2a\x2f\x0a\x02\x08\x04\x62\x0c\x0a\x04\x79\x0a\x2a\x2f\x12\x04\x0a\x02\x08\x01\x42\x04\x0a\x00\x10\x11' > "$tmpd/nl.onnx"
out="$("$S" infer "$tmpd/nl.onnx" 2>&1)"; rc=$? # input 'x\n*/"<' -> Relu -> 'y\n*/'
if [ "$rc" = 0 ] && ! grep -q '^\*/' <<<"$out" && grep -qF '  x\x0a*/"<: [' <<<"$out" && grep -qF '  y\x0a*/: [' <<<"$out" \
   && grep -qF '0. x\x0a*/"<.dim() == 2' <<<"$out"; then pass=$((pass+1))
else echo "FAIL: infer text of ONNX names with a newline: exit $rc or a raw newline: $out"; fail=$((fail+1)); fi
# issue 38 (fourth pass): region's '#' comment lines (torch, jax, spec) and text lines carried a
# model or input name raw: a newline in it ended the comment and started a line of Python; the
# spec's --dynamic '...' word was broken by a quote in an input name (shell injection)
for f in text torch jax spec; do
  out="$("$S" region -f "$f" "$tmpd/nl_a.json" 2>&1)"; rc=$?
  if [ "$rc" = 0 ] && grep -qF 'region of m\x0a*/A: ' <<<"$out" && ! grep -q '^\*/A' <<<"$out" \
     && { [ "$f" != text ] || grep -qF '  x\x0a*/"<b>.size()[0]  ' <<<"$out"; }; then pass=$((pass+1))
  else echo "FAIL: region -f $f of names with a newline: exit $rc or a raw newline: $out"; fail=$((fail+1)); fi
done
printf '{"format":"symshape.graph","version":1,"name":"q","nodes":[{"name":"x'"'"'; echo INJECTED; '"'"'","op":"input","dtype":"float32","shape":[2,8],"dynamic":[0]},{"name":"v","op":"view","args":[{"ref":"x'"'"'; echo INJECTED; '"'"'"},-1],"example":{"dtype":"float32","shape":[16]}}],"outputs":[{"ref":"v"}]}' > "$tmpd/q.json"
spec="$("$S" region -f spec "$tmpd/q.json" 2>&1 | grep -v '^#')"
words="$(eval "printf '%s|' $spec" 2>&1)"
if [ "$words" = "--dynamic|x'; echo INJECTED; '=0:x___echo_INJECTED____0@0..|" ]; then pass=$((pass+1))
else echo "FAIL: region -f spec: an input name with quotes is not one shell word: $spec -> $words"; fail=$((fail+1)); fi
# issue 38 (fourth pass): profile wrote input names raw into text lines, Python strings
# (torch-trt, openvino: a '"' ended the string), the ort options and trtexec's shell words
out="$("$S" profile -f all "$tmpd/nl_a.json" 2>&1)"; rc=$?
if [ "$rc" = 0 ] && ! grep -q '^\*/"<b>\.size' <<<"$out" && grep -qF '  x\x0a*/"<b>.size()[0]  min ' <<<"$out" \
   && grep -qF 'torch_tensorrt.Input(name="x\u000a*/\"<b>", min_shape=' <<<"$out" \
   && grep -qF '{"x\u000a*/\"<b>": ov.PartialShape(' <<<"$out" && grep -qF '"trt_profile_min_shapes": "x\u000a*/\"<b>:' <<<"$out"; then pass=$((pass+1))
else echo "FAIL: profile -f all of names with a newline and a quote: exit $rc or a raw name: $out"; fail=$((fail+1)); fi
trt="$("$S" profile -f trtexec "$tmpd/q.json" 2>&1 | grep -v '^#')"
words="$(eval "printf '%s|' $trt" 2>&1)"
if [ "$words" = "--minShapes=x'; echo INJECTED; ':0x8|--optShapes=x'; echo INJECTED; ':2x8|--maxShapes=x'; echo INJECTED; ':8x8|" ]; then pass=$((pass+1))
else echo "FAIL: profile -f trtexec: an input name with quotes is not inside one shell word: $trt -> $words"; fail=$((fail+1)); fi
# issue 38 (fourth pass): corners' and memory's text lines carried names raw
for c in corners memory; do
  out="$("$S" "$c" "$tmpd/nl_a.json" 2>&1)"; rc=$?
  if [ "$rc" = 0 ] && ! grep -q '^\*/' <<<"$out" && grep -qF 'x\x0a*/"<b>' <<<"$out"; then pass=$((pass+1))
  else echo "FAIL: $c of names with a newline: exit $rc or a raw newline: $out"; fail=$((fail+1)); fi
done
# issue 38 (fourth pass): diff's witness read each input's sizes through a 600-byte buffer: past
# it the name was cut and the witness shape was all zeros ([0, 0, 0] for the true [0, 27, 4])
long="x$(printf 'y%.0s' $(seq 700))"
for k in 4 8; do
  printf '{"format":"symshape.graph","version":1,"name":"l%s","nodes":[{"name":"%s","op":"input","dtype":"float32","shape":[2,8,4],"dynamic":[0,1]},{"name":"v","op":"view","args":[{"ref":"%s"},-1,%s],"example":{"dtype":"float32","shape":[%s,%s]}}],"outputs":[{"ref":"v"}]}' "$k" "$long" "$long" "$k" $((64 / k)) "$k" > "$tmpd/long$k.json"
done
check "diff witness of a 701-byte input name" 1 "$long=[0, 27, 4] float32" "$S" diff "$tmpd/long4.json" "$tmpd/long8.json"
# a non-UTF-8 ONNX name: the JSON left every guard out without a word ("A: g (0 guards)" and
# changes without their guards); now an error, as infer --json gives
printf '\x08\x0e\x3a\x32\x0a\x0c\x0a\x01\xff\x12\x01\x79\x22\x04\x52\x65\x6c\x75\x12\x01\x67\x5a\x14\x0a\x01\xff\x12\x0f\x0a\x0d\x08\x01\x12\x09\x0a\x03\x12\x01\x4e\x0a\x02\x08\x04\x62\x09\x0a\x01\x79\x12\x04\x0a\x02\x08\x01\x42\x04\x0a\x00\x10\x11' > "$tmpd/ff4.onnx"
printf '\x08\x0e\x3a\x32\x0a\x0c\x0a\x01\xff\x12\x01\x79\x22\x04\x52\x65\x6c\x75\x12\x01\x67\x5a\x14\x0a\x01\xff\x12\x0f\x0a\x0d\x08\x01\x12\x09\x0a\x03\x12\x01\x4e\x0a\x02\x08\x05\x62\x09\x0a\x01\x79\x12\x04\x0a\x02\x08\x01\x42\x04\x0a\x00\x10\x11' > "$tmpd/ff5.onnx"
check "diff of a non-UTF-8 name" 3 "is not valid UTF-8, which JSON cannot carry" "$S" diff "$tmpd/ff4.onnx" "$tmpd/ff5.onnx"
check "diff --json of a non-UTF-8 name" 3 "is not valid UTF-8, which JSON cannot carry" "$S" diff --json "$tmpd/ff4.onnx" "$tmpd/ff5.onnx"
# memory --json said "out of memory" (exit 4) for such a name (attack38g); the text form prints it
check "memory --json of a non-UTF-8 name" 3 "memory: a node's name is not valid UTF-8, which JSON cannot carry" "$S" memory --json "$tmpd/ff4.onnx"
check "memory of a non-UTF-8 name" 0 "tensor values over the region's variables" "$S" memory "$tmpd/ff4.onnx"
rm -rf "$tmpd"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
