#!/usr/bin/env bash
# Every output symshape gives on the model corpora, written to one directory, so that two builds
# can be compared byte for byte (`diff -r A B`), and a checked-in manifest of their sha256 that a
# restructuring must keep (test `corpus_outputs`).
#
# usage:
#   scripts/corpus_outputs.sh SYMSHAPE OUTDIR          write the outputs of the binary SYMSHAPE
#   scripts/corpus_outputs.sh --check SYMSHAPE OUTDIR  also compare them with tests/corpus_outputs.sha256
#   scripts/corpus_outputs.sh --update SYMSHAPE OUTDIR also rewrite tests/corpus_outputs.sha256
#
# When a change of an output is intended, regenerate the manifest and show the diff in the commit:
#   scripts/corpus_outputs.sh SYMSHAPE /tmp/before   (with the old build)
#   scripts/corpus_outputs.sh --update SYMSHAPE /tmp/after && diff -r /tmp/before /tmp/after
#
# Models: ../shared/corpus, ../shared/corpus2 (SY_SHARED, default: the folder `shared` beside the
# source tree), examples/*.json and every *.onnx under tests/ (when SYMSHAPE reads ONNX). For each
# model, under the default policy (`default/`) and the relaxed one (`relaxed/`: --no-duck-sizing
# --no-specialize-01), OUTDIR/GROUP/MODEL/POLICY/ holds every backend of `run`: report.txt,
# report.md, report.html (when the build renders HTML), guards.json, guards.c, guards.sybc with its
# `disasm` listing guards.dis, guards.smt2; for ONNX models also `infer` (infer.txt, infer.json);
# for a model with a probes file (../shared/probes*/MODEL.probes.json, examples/MODEL.probes.json)
# `probe --points FILE --json` under the default policy (probe.jsonl). A command that fails or
# prints on stderr leaves NAME.err beside its output: its exit status and stderr.
# Commands run inside the model's folder on its base name, so no output holds an absolute path.
# A group whose folder is missing, and HTML or ONNX when the build lacks them, are listed in
# OUTDIR/SKIPPED with the reason and left out of the check.
#
# Exit status: 0 written (and, with --check, equal to the manifest); 1 outputs differ from the
# manifest (the files are named); 2 usage error.
set -euo pipefail
mode=write
case "${1:-}" in --check) mode=check; shift ;; --update) mode=update; shift ;; esac
if [ $# -ne 2 ]; then
  sed -n '6,9p' "$0" | sed 's/^# *//' >&2
  exit 2
fi
src="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ -x "$bin" ] || { echo "corpus_outputs: $1 is not an executable" >&2; exit 2; }
out="$2"
manifest="$src/tests/corpus_outputs.sha256"
shared="${SY_SHARED:-$src/../shared}"
rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
: >"$out/SKIPPED"
skip() { echo "$1	$2" >>"$out/SKIPPED"; echo "corpus_outputs: skipped $1: $2" >&2; }

# HTML: the graph is laid out by a stand-in for Graphviz's `dot` that returns the dot text it was
# given as the SVG, so the check pins symshape's own bytes, not Graphviz's layout (which changes
# between Graphviz versions and takes minutes on the 2,000-node graphs); SY_REAL_DOT=1 keeps the
# real one (for a manual diff -r, not for the manifest).
if [ "${SY_REAL_DOT:-0}" != 1 ]; then
  mkdir -p "$out/.bin"
  cat >"$out/.bin/dot" <<'DOT'
#!/bin/sh
# corpus_outputs.sh's stand-in for `dot -Tsvg FILE`: FILE's text, escaped, as the SVG
[ "$1" = -Tsvg ] && [ -f "$2" ] || { echo "dot stand-in: expected -Tsvg FILE" >&2; exit 2; }
printf '<svg xmlns="http://www.w3.org/2000/svg"><!-- dot stand-in --><text>\n'
sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g' "$2"
printf '</text></svg>\n'
DOT
  chmod +x "$out/.bin/dot"
  export PATH="$out/.bin:$PATH"
fi

# what the build can do
html=1
if ! (cd "$src/examples" && "$bin" run -b html resnet18.json >/dev/null 2>&1); then
  html=0
  skip "*/report.html" "this build or machine renders no HTML (libcmark-gfm at configure time, dot on PATH)"
fi
onnx=1
first_onnx="$(cd "$src" && find tests -name '*.onnx' | sort | head -1)"
if [ -z "$first_onnx" ]; then
  onnx=0
  skip "tests-onnx/" "no ONNX model under tests/"
elif "$bin" infer "$src/$first_onnx" 2>&1 >/dev/null | grep -q "without ONNX"; then
  onnx=0
  skip "tests-onnx/" "built without ONNX support"
fi

# one job per line: GROUP<TAB>DIR<TAB>FILE<TAB>PROBES (PROBES: absolute path or empty)
jobs="$out/.jobs"
: >"$jobs"
add_group() { # group dir pattern probes-dirs...
  local group="$1" dir="$2" pat="$3"; shift 3
  if [ ! -d "$dir" ]; then skip "$group/" "$dir is missing"; return; fi
  local f base p pr
  while IFS= read -r f; do
    base="$(basename "$f")"
    pr=""
    for p in "$@"; do
      [ -f "$p/${base%.json}.probes.json" ] && { pr="$p/${base%.json}.probes.json"; break; }
    done
    printf '%s\t%s\t%s\t%s\n' "$group" "$(dirname "$f")" "$base" "$pr" >>"$jobs"
  done < <(find "$dir" -maxdepth 1 -name "$pat" ! -name '*.probes.json' | sort)
}
add_group corpus "$shared/corpus" '*.json' "$shared/probes"
add_group corpus2 "$shared/corpus2" '*.json' "$shared/probes2"
add_group examples "$src/examples" '*.json' "$src/examples"
if [ $onnx = 1 ]; then
  while IFS= read -r f; do
    printf '%s\t%s\t%s\t\n' "tests-onnx/$(dirname "$f" | tr / _)" "$src/$(dirname "$f")" "$(basename "$f")" >>"$jobs"
  done < <(cd "$src" && find tests -name '*.onnx' | sort)
fi

# one model: every output under both policies
one() { # group dir file probes
  local group="$1" dir="$2" file="$3" probes="$4" pol flags d name
  cd "$dir"
  for pol in default relaxed; do
    flags=()
    [ $pol = relaxed ] && flags=(--no-duck-sizing --no-specialize-01)
    d="$out/$group/${file%.*}/$pol"
    mkdir -p "$d"
    # cmd NAME ARGS...: stdout to d/NAME, exit status and stderr (if any) to d/NAME.err
    cmd() {
      local name="$1" rc=0; shift
      "$bin" "$@" >"$d/$name" 2>"$d/$name.stderr" || rc=$?
      if [ $rc -ne 0 ] || [ -s "$d/$name.stderr" ]; then
        { echo "exit $rc"; cat "$d/$name.stderr"; } >"$d/$name.err"
      fi
      rm -f "$d/$name.stderr"
    }
    cmd report.txt run "${flags[@]}" "$file"
    cmd report.md run -b markdown "${flags[@]}" "$file"
    [ $html = 1 ] && cmd report.html run -b html "${flags[@]}" "$file"
    cmd guards.json run -b json "${flags[@]}" "$file"
    cmd guards.c run -b c "${flags[@]}" "$file"
    cmd guards.smt2 run -b smtlib "${flags[@]}" "$file"
    cmd guards.sybc run -b bytecode "${flags[@]}" "$file"
    if [ -s "$d/guards.sybc" ]; then
      cmd guards.dis disasm "$d/guards.sybc"
    fi
    case "$file" in
      *.onnx)
        cmd infer.txt infer "${flags[@]}" "$file"
        cmd infer.json infer --json "${flags[@]}" "$file" ;;
    esac
    if [ -n "$probes" ] && [ $pol = default ]; then
      cmd probe.jsonl probe --json --points "$probes" "$file"
    fi
  done
}
export -f one
export bin out html
jobsn="$(nproc 2>/dev/null || echo 2)"
[ "$jobsn" -gt 2 ] && jobsn=2
# xargs runs `one` on each line, two at a time (CI has 2 cores)
tr '\t' '\037' <"$jobs" | xargs -d '\n' -P "$jobsn" -n 1 bash -c 'IFS=$'"'"'\037'"'"' read -r g d f p <<<"$1"; one "$g" "$d" "$f" "$p"' _
rm -f "$jobs"

# the manifest of what was written: sha256 and path, sorted by path (C collation)
actual="$out/.manifest"
(cd "$out" && find . -path ./.bin -prune -o -type f ! -name SKIPPED ! -name '.manifest' -print | sed 's|^\./||' | LC_ALL=C sort |
  while IFS= read -r p; do printf '%s  %s\n' "$(sha256sum <"$p" | cut -d' ' -f1)" "$p"; done) >"$actual"
n="$(wc -l <"$actual")"
echo "corpus_outputs: $n files in $out" >&2
case $mode in
  write) exit 0 ;;
  update)
    # keep the manifest's lines of the groups skipped here, replace the rest
    { if [ -f "$manifest" ] && [ -s "$out/SKIPPED" ]; then
        cut -f1 "$out/SKIPPED" | while IFS= read -r pat; do
          awk -v pat="$pat" 'BEGIN { gsub(/\./, "\\.", pat); gsub(/\*/, "[^ ]*", pat) } $2 ~ ("^" pat)' "$manifest"
        done
      fi
      cat "$actual"; } | LC_ALL=C sort -k2,2 -u >"$manifest.tmp"
    mv "$manifest.tmp" "$manifest"
    echo "corpus_outputs: wrote $manifest ($(wc -l <"$manifest") lines)" >&2
    exit 0 ;;
esac
# check: every manifest line outside the skipped groups must be produced with its hash, and
# nothing more
[ -f "$manifest" ] || { echo "corpus_outputs: no manifest $manifest" >&2; exit 1; }
expected="$out/.expected"
cp "$manifest" "$expected"
if [ -s "$out/SKIPPED" ]; then
  cut -f1 "$out/SKIPPED" | while IFS= read -r pat; do
    awk -v pat="$pat" 'BEGIN { gsub(/\./, "\\.", pat); gsub(/\*/, "[^ ]*", pat) } $2 !~ ("^" pat)' "$expected" >"$expected.tmp"
    mv "$expected.tmp" "$expected"
  done
fi
LC_ALL=C sort -k2,2 "$expected" -o "$expected"
if cmp -s "$expected" "$actual"; then
  echo "corpus_outputs: all $n outputs match $manifest" >&2
  rm -f "$expected"
  exit 0
fi
echo "corpus_outputs: outputs differ from $manifest:" >&2
diff "$expected" "$actual" | sed -n 's/^< [0-9a-f]*  \(.*\)/  changed or missing: \1/p; s/^> [0-9a-f]*  \(.*\)/  new or changed:     \1/p' |
  sort -u -k4 | head -50 >&2
echo "corpus_outputs: if the change is intended, regenerate with 'scripts/corpus_outputs.sh --update SYMSHAPE DIR' and show the diff in the commit" >&2
exit 1
