#!/usr/bin/env bash
# Every public header compiles on its own: C11 -pedantic -Werror, and as C++.
# usage: headers.sh INCLUDE_DIR
set -u
inc="$1"; fail=0; pass=0
cc="${CC:-cc}"; cxx="${CXX:-c++}"
for h in "$inc"/symshape/*.h; do
  name="symshape/$(basename "$h")"
  if printf '#include <%s>\nint main(void) { return 0; }\n' "$name" |
     "$cc" -std=c11 -Wall -Wextra -pedantic -Werror -I "$inc" -x c -fsyntax-only - ; then pass=$((pass+1)); else echo "FAIL (C11): $name"; fail=$((fail+1)); fi
  if command -v "$cxx" >/dev/null 2>&1; then
    if printf '#include <%s>\nint main() { return 0; }\n' "$name" |
       "$cxx" -std=c++11 -Wall -Wextra -Werror -I "$inc" -x c++ -fsyntax-only - ; then pass=$((pass+1)); else echo "FAIL (C++): $name"; fail=$((fail+1)); fi
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
# Ownership (docs/ownership.md): every function that returns a non-const pointer says whether the
# caller owns it (SY_GIVE) or borrows it (SY_KEEP); the _free functions return NULL.
bare="$(sed -n 's/^SY_API \(\(char\|void\|unsigned char\|sy_[a-z_0-9]*\) \*\**[a-z_0-9]*\)(.*/\1/p' "$inc"/symshape/*.h | grep -v '_free$')"
if [ -n "$bare" ]; then echo "FAIL: functions returning a pointer without SY_GIVE or SY_KEEP:"; echo "$bare"; exit 1; fi
# ... and every out-parameter that hands back a pointer (T **name) says the same: GIVE (the caller
# frees it) or KEEP (the object it came from owns it). Expression nodes (const sy_expr **) are
# the context's by the one rule of docs/ownership.md and carry no macro.
command -v perl >/dev/null || { echo "headers: no perl: out-parameters not checked"; exit 0; }
bare="$(perl -0777 -ne 's{/\*.*?\*/}{}gs; while (/SY_API\s+[^;{]*?\b(sy_[a-z_0-9]+)\s*\(([^;{]*?)\)\s*;/gs) { my ($f, $a) = ($1, $2);
  for my $p (split /,/, $a) { $p =~ s/\s+/ /g; $p =~ s/^ | $//g;
    print "$f: $p\n" if $p =~ /\*\s*\*\s*[a-z_0-9]+$/ && $p !~ /\bSY_(GIVE|KEEP)\b/ && $p !~ /^const sy_expr \*\*/; } }' "$inc"/symshape/*.h)"
if [ -n "$bare" ]; then echo "FAIL: out-parameters returning a pointer without SY_GIVE or SY_KEEP:"; echo "$bare"; exit 1; fi
