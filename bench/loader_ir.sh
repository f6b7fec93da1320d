#!/bin/sh
# Instructions (callgrind Ir) of jansson's json_load_file next to symshape's
# sy_graph_load_file, per model, and the loader's overhead (issue 14: goal
# <= 10%). Wall time on a shared VM varies by tens of percent between runs;
# instruction counts repeat to a few hundred instructions.
#
#   bench/loader_ir.sh [BUILD_DIR] [MODEL.json...]
# BUILD_DIR defaults to build (a Release build: -DCMAKE_BUILD_TYPE=Release),
# models to the shared corpus (SY_CORPUS_DIR, else /work/shared/corpus, else
# ../shared/corpus beside the sources). Needs valgrind. LOADER_IR_NO_TRIM=1:
# no malloc_trim between the loaders (bench_load.c --no-trim).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
bin=$build/bench/bench_load
[ -x "$bin" ] || { echo "loader_ir.sh: no $bin (configure with -DSY_BUILD_BENCH=ON and build first)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "loader_ir.sh: valgrind not found" >&2; exit 1; }
if [ $# -eq 0 ]; then
    dir=${SY_CORPUS_DIR:-}
    [ -n "$dir" ] || for d in /work/shared/corpus "$here/../../shared/corpus"; do
        [ -d "$d" ] && { dir=$d; break; }
    done
    [ -n "$dir" ] || { echo "loader_ir.sh: no corpus (set SY_CORPUS_DIR)" >&2; exit 1; }
    set -- $(ls "$dir"/*.json | grep -v '\.probes\.')
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# inclusive Ir of function $2 in callgrind output $1
ir_of() {
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | grep "$2" | head -1 | awk '{gsub(",","",$1); print $1}'
}
printf '%-22s %12s %12s %9s %12s %12s %9s\n' model 'jansson Ir' 'loader Ir' overhead 'cold jansson' 'cold loader' overhead
worst=-1000
for m in "$@"; do
    out=$tmp/cg.out
    # warm: one measured call of each loader after a warm-up (bench_load.c)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --rounds 1 ${LOADER_IR_NO_TRIM:+--no-trim} "$m" >/dev/null 2>"$tmp/err" ||
        { echo "loader_ir.sh: $m failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    j=$(ir_of "$out" bench_load_jansson)
    o=$(ir_of "$out" bench_load_ours)
    # cold: the first and only load of a process, one process per loader
    for w in jansson ours; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cold.$w" "$bin" --cold $w "$m" >/dev/null 2>"$tmp/err" ||
            { echo "loader_ir.sh: $m --cold $w failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    done
    cj=$(ir_of "$tmp/cold.jansson" bench_load_jansson)
    co=$(ir_of "$tmp/cold.ours" bench_load_ours)
    [ -n "$j" ] && [ -n "$o" ] && [ -n "$cj" ] && [ -n "$co" ] || { echo "loader_ir.sh: no figures for $m" >&2; exit 1; }
    over=$(awk -v a="$o" -v b="$j" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')
    cover=$(awk -v a="$co" -v b="$cj" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }')
    printf '%-22s %12s %12s %8s%% %12s %12s %8s%%\n' "$(basename "$m" .json)" "$j" "$o" "$over" "$cj" "$co" "$cover"
    worst=$(awk -v a="$over" -v b="$worst" -v c="$cover" 'BEGIN { m = (a > b) ? a : b; print (c > m) ? c : m }')
done
echo "largest overhead $worst% (goal <= 10%: $(awk -v a="$worst" 'BEGIN { print (a <= 10) ? "met" : "NOT met" }'))"
