#!/usr/bin/env bash
# Docs match the code where a number or a list is (issue 34 item 9): every figure below is read
# from the docs and from the code, and the test fails when they differ or when either cannot be
# found (a reworded sentence must be matched here again, not skipped). The op count of
# docs/ops.md is test ops_status's; the symbol counts of the layering are tests/symbols.sh's.
#   docs/algebra.md, docs/onnx.md  the arena chunk sizes (SY_ARENA_FIRST, SY_ARENA_CHUNK in
#                                  algebra/internal.h; the ONNX trace's and unpack arena's
#                                  sy_arena_next), the intern table's first size, SY_ICACHE
#   docs/ops.md                    the op files and the order of their tables (sy_op_tables)
#   docs/index.md                  the module table against tests/layers.sh's `allowed`
# usage: doc_numbers.sh SOURCE_DIR
set -u
cd "$1" || exit 2
fail=0; checked=0
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# a document as one line (sentences wrap)
flat() { tr '\n' ' ' < "$1" | tr -s ' '; }
# the first group of regex $2 in text $1 (empty when absent)
grab() { printf '%s' "$1" | grep -oE "$2" | head -1 | sed -E "s/$2/\\1/"; }
same() { # what doc code
  checked=$((checked+1))
  if [ -z "$2" ] || [ -z "$3" ]; then bad "$1: not found (docs '${2}', code '${3}')"; return; fi
  [ "$2" = "$3" ] || bad "$1: docs say $2, the code has $3"
}
kib() { [ -n "$1" ] && echo $(($1 / 1024)); }

# ---- arenas and tables
first=$(grab "$(cat algebra/internal.h)" '#define SY_ARENA_FIRST ([0-9]+)')
chunk=$(grab "$(cat algebra/internal.h)" '#define SY_ARENA_CHUNK ([0-9]+)')
alg=$(flat docs/algebra.md)
same "algebra.md: the node arena's first chunk (KiB)" "$(grab "$alg" 'node arena starts with a ([0-9]+) KiB chunk')" "$(kib "$first")"
same "algebra.md: the node arena's later chunks (KiB)" "$(grab "$alg" 'starts with a [0-9]+ KiB chunk, then adds ([0-9]+) KiB')" "$(kib "$chunk")"
same "algebra.md: a fresh context's chunk (KiB)" "$(grab "$alg" 'fresh context holds [0-9]+ nodes in a ([0-9]+) KiB arena chunk')" "$(kib "$first")"
same "algebra.md: the intern table's first size" "$(grab "$alg" 'intern table starts with ([0-9]+) slots')" \
  "$(grab "$(cat algebra/ctx.c)" 'ctx->cap = ([0-9]+);')"
same "algebra.md: the integer cache (SY_ICACHE)" "$(grab "$alg" 'direct-mapped cache of ([0-9]+) entries')" \
  "$(grab "$(cat algebra/expr_private.h)" '#define SY_ICACHE ([0-9]+)')"
# the expressions, env and guard set take their chunk sizes from the constants
for f in algebra/expr.c shapeenv/env.c guards/gset.c; do
  checked=$((checked+1))
  grep -q 'SY_ARENA_CHUNK' "$f" || bad "$f: its arena no longer uses SY_ARENA_CHUNK (docs quote it)"
done
onx=$(flat docs/onnx.md)
same "onnx.md: expression nodes' first chunk (KiB)" "$(grab "$onx" 'expression nodes take a ([0-9]+) KiB chunk')" "$(kib "$first")"
same "onnx.md: expression nodes' later chunks (KiB)" "$(grab "$onx" 'nodes take a [0-9]+ KiB chunk and then ([0-9]+) KiB ones')" "$(kib "$chunk")"
same "onnx.md: env and guard set chunks (KiB)" "$(grab "$onx" 'the environment and the guard set ([0-9]+) KiB chunks')" "$(kib "$chunk")"
tr_first=$(grab "$(cat frontends/onnx/onnx_trace.c)" 'sy_arena_next\([^,]+, ([0-9]+), [0-9]+\)')
tr_cap=$(grab "$(cat frontends/onnx/onnx_trace.c)" 'sy_arena_next\([^,]+, [0-9]+, ([0-9]+)\)')
pb_first=$(grab "$(cat frontends/onnx/onnx_read.c)" 'sy_arena_next\([^,]+, ([0-9]+), [0-9]+\)')
pb_cap=$(grab "$(cat frontends/onnx/onnx_read.c)" 'sy_arena_next\([^,]+, [0-9]+, ([0-9]+)\)')
same "onnx.md: the trace's first chunk (bytes)" "$(grab "$onx" "the trace and protobuf-c's unpacks ([0-9]+) bytes")" "$tr_first"
same "onnx.md: the unpack arena's first chunk (bytes)" "$(grab "$onx" "the trace and protobuf-c's unpacks ([0-9]+) bytes")" "$pb_first"
same "onnx.md: the trace's largest chunk (KiB)" "$(grab "$onx" 'growing by a quarter to ([0-9]+) and [0-9]+ KiB')" "$(kib "$tr_cap")"
same "onnx.md: the unpack arena's largest chunk (KiB)" "$(grab "$onx" 'growing by a quarter to [0-9]+ and ([0-9]+) KiB')" "$(kib "$pb_cap")"
same "onnx.md: the unpack arena's first chunk, section 1 (bytes)" "$(grab "$onx" 'an arena \(([0-9]+)-byte chunks growing')" "$pb_first"
same "onnx.md: the unpack arena's largest chunk, section 1 (KiB)" "$(grab "$onx" '[0-9]+-byte chunks growing by a quarter to ([0-9]+) KiB')" "$(kib "$pb_cap")"

# ---- the op files and their tables (sy_op_tables in shapeenv/ops.c)
tables=$(tr '\n' ' ' < shapeenv/ops.c | grep -oE 'sy_op_tables\[\] = \{[^}]*\}' | grep -oE 'sy_ops_[a-z0-9_]+' | sed 's/^sy_ops_//' | tr '\n' ' ' | sed 's/ $//')
ops=$(flat docs/ops.md)
doc_files=$(grab "$ops" 'and the op files (`ops_[^(]*)\(helpers' | grep -oE 'ops_[a-z0-9_]+\.c' | sed 's/^ops_//; s/\.c$//' | tr '\n' ' ' | sed 's/ $//')
same "ops.md: the op files, in table order" "$doc_files" "$tables"
doc_order=$(grab "$ops" 'tables in the order ([a-z, ]+);' | sed 's/, / /g')
same "ops.md: the order of the tables" "$doc_order" "$tables"
# every op file but the helpers has its table in the list, and each table is its file's
for f in shapeenv/ops_*.c; do
  b=$(basename "$f" .c); b=${b#ops_}; checked=$((checked+1))
  [ "$b" = util ] && continue
  case " $tables " in *" $b "*) ;; *) bad "$f: an op file whose table sy_ops_$b is not in sy_op_tables" ;; esac
  grep -qE "^const opentry sy_ops_$b\[\]" "$f" || bad "$f: does not define the table sy_ops_$b"
done

# ---- the module table of docs/index.md against tests/layers.sh
declare -A code
while read -r m deps; do code[$m]="$deps"; done < <(sed -n '/^declare -A allowed=(/,/^)/p' tests/layers.sh |
  sed -nE 's/^ *\[([a-z]+)\]="([^"]*)".*/\1 \2/p')
[ "${#code[@]}" -gt 0 ] || bad "tests/layers.sh: no allowed table found"
seen=0
while IFS='|' read -r _ folder _ inc _; do
  m=$(printf '%s' "$folder" | grep -oE '`[a-z]+/' | head -1 | tr -d '`/')
  [ -n "$m" ] || continue
  seen=$((seen+1)); checked=$((checked+1))
  [ -n "${code[$m]+x}" ] || { bad "index.md: module $m is not in tests/layers.sh"; continue; }
  inc=$(printf '%s' "$inc" | sed -E 's/\([^)]*\)//g; s/^ +| +$//g')
  want=$(for d in ${code[$m]}; do [ "$d" = "$m" ] || echo "$d"; done | sort | tr '\n' ' ')
  case "$inc" in
    "nothing of the others") got="" ;;
    all) got=$(for d in "${!code[@]}"; do [ "$d" = "$m" ] || echo "$d"; done | sort | tr '\n' ' ') ;;
    *) got=$(printf '%s' "$inc" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$' | sort | tr '\n' ' ') ;;
  esac
  [ "$got" = "$want" ] || bad "index.md: $m may include '${got% }', tests/layers.sh allows '${want% }'"
done < <(sed -n '/^## Modules/,/^## /p' docs/index.md | grep -E '^\| `[a-z]+/')
[ "$seen" -eq "${#code[@]}" ] || bad "index.md: $seen modules in the table, tests/layers.sh has ${#code[@]}"

echo "doc_numbers: $checked figures checked, $fail differ"
[ "$fail" -eq 0 ]
