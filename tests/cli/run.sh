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
check "simplify bad option" 2 "unknown option" "$S" simplify x --frob
check "eval" 0 "-4" "$S" eval 'FloorDiv(a, b)' a=-7 b=2
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
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
