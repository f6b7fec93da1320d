#!/usr/bin/env bash
# No source file over 1,200 lines without a reason at its top (issue 34): a file past it says
# "Length (...)" and why in its opening comment (its first 40 lines).
# usage: file_length.sh SOURCE_DIR
set -u
cd "$1" || exit 2
max=1200; fail=0; n=0
while IFS= read -r f; do
  n=$((n+1))
  lines="$(wc -l <"$f")"
  if [ "$lines" -gt "$max" ] && ! head -40 "$f" | grep -q 'Length ('; then
    echo "FAIL: $f has $lines lines and no 'Length (...)' reason in its opening comment"; fail=$((fail+1))
  fi
done < <(find algebra shapeenv guards backends frontends verify deploy cli tests fuzz bench python -name '*.[ch]' 2>/dev/null | sort)
[ "$n" -gt 50 ] || { echo "FAIL: only $n files found"; exit 1; }
[ "$fail" -eq 0 ] && echo "file_length: $n files, none over $max lines without a reason"
exit "$fail"
