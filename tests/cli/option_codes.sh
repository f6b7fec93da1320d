#!/usr/bin/env bash
# Every long option of the command has its own code: an OPT_* value names one option
# across cli/*.c (issue 34: verify's --rlimit and --cases reused probe's OPT_JSON and
# OPT_POINTS, so a change to one command's handling silently changed the other's).
# usage: option_codes.sh SOURCE_DIR
set -u
cd "$1" || exit 2
pairs="$(grep -ho '{"[a-z0-9-]*", *[a-z_]*argument, *NULL, *OPT_[A-Z0-9_]*}' cli/*.c cli/*.h |
  sed 's/{"\([a-z0-9-]*\)".*\(OPT_[A-Z0-9_]*\)}/\2 \1/' | sort -u)"
n="$(printf '%s\n' "$pairs" | grep -c .)"
if [ "$n" -lt 10 ]; then echo "FAIL: only $n option entries found (the pattern no longer matches?)"; exit 1; fi
dup="$(printf '%s\n' "$pairs" | awk '{ names[$1] = names[$1] " --" $2; count[$1]++ } END { for (c in count) if (count[c] > 1) print c ":" names[c] }')"
if [ -n "$dup" ]; then echo "FAIL: option codes shared by several options:"; echo "$dup"; exit 1; fi
echo "option_codes: $n long options with a code of their own"
