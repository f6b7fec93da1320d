#!/bin/bash
# --backend html (issue 13 item 7): the page loads in headless Chromium with no
# console error, its DOM has the report (inputs, guards with anchors, the
# violations and fixes of a spec) and the graph as SVG whose forced nodes link
# to their guards; a missing `dot` is a clear error. Label python (not under ASan).
# Usage: html.sh SYMSHAPE EXAMPLES_DIR
set -u
S="$1"; E="$2"
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
CHROMIUM="${SY_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$CHROMIUM" ]; then
  if [ -n "${SY_SKIP_BROWSER_TESTS:-}" ]; then echo "skipped: no chromium (SY_SKIP_BROWSER_TESTS set)"; exit 0; fi
  echo "FAIL: chromium not found (scripts/deps.sh --test installs it)"; exit 1
fi
tmpd="$(mktemp -d)"; trap 'rm -rf "$tmpd"' EXIT
load() { # page -> $tmpd/dom, $tmpd/log
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --user-data-dir="$tmpd/profile" --enable-logging=stderr --v=0 \
    --dump-dom "file://$1" > "$tmpd/dom" 2> "$tmpd/log"
}
console_errors() { grep -E 'CONSOLE|Content Security Policy|Uncaught' "$tmpd/log"; }
has() { grep -qF -- "$1" "$tmpd/dom" && ok || bad "$2: DOM lacks '$1'"; }

# the detector works: a page with a script error (and CSP) reports it
printf '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src '"'"'none'"'"'"></head><body><script>nosuch()</script></body></html>' > "$tmpd/bad.html"
load "$tmpd/bad.html"
if console_errors > /dev/null; then ok; else bad "a page with a script error produced no console message (detector broken): $(cat "$tmpd/log")"; fi

# vit_b_16 with a spec its _assert violates
"$S" run "$E/vit_b_16.json" --dynamic 'x=0:batch,2:h,3:w' -b html -o "$tmpd/vit.html"; rc=$?
[ "$rc" = 1 ] && ok || bad "run -b html with a violated spec: exit $rc, expected 1"
load "$tmpd/vit.html"
if console_errors; then bad "vit_b_16 page: console messages above"; else ok; fi
has '<title>symshape guard report: vit_b_16</title>' vit
has '<h2>Inputs</h2>' vit
has '<code>x.size()[2]</code>' vit
has 'id="guard-3"' vit
has 'Constraints violated: 2.' vit
has 'static 224; the model itself requires it' vit
has '<svg' vit
has 'href="#guard-3"' vit
has 'id="node-_assert"' vit
has '<h2>Implied</h2>' vit
# every link into the page has its anchor
for h in $(grep -o 'href="#guard-[0-9]*"' "$tmpd/dom" | sort -u | sed 's/href="#//; s/"//'); do
  grep -qF "id=\"$h\"" "$tmpd/dom" && ok || bad "link #$h has no anchor"
done
# no network: nothing but the page itself was requested, and nothing external is referenced
if grep -qE '(src|href)="(https?:)?//' "$tmpd/dom"; then bad "external reference in the page"; else ok; fi

# resnet18: the default report, dtype by name
"$S" run "$E/resnet18.json" -b html -o "$tmpd/r18.html" && ok || bad "run resnet18 -b html failed"
load "$tmpd/r18.html"
if console_errors; then bad "resnet18 page: console messages above"; else ok; fi
has '<code>x.dtype == float32</code>' resnet18
has 'id="guard-2"' resnet18

# a missing dot is a clear error
out="$(env PATH=/nonexistent "$S" run "$E/resnet18.json" -b html -o "$tmpd/x.html" 2>&1)"; rc=$?
[ "$rc" != 0 ] && grep -qF "'dot', which is not on PATH (apt-get install graphviz)" <<<"$out" && ok || bad "missing dot: exit $rc: $out"

# a node name longer than Graphviz's 16384-byte quoted string (no fixed limit on names): the
# drawing cuts it, the report keeps it whole (was: dot -Tsvg failed, exit 3)
long="$(printf '%20000s' '' | tr ' ' x)"
printf '{"format":"symshape.graph","version":1,"name":"long","nodes":[{"name":"%s","op":"input","dtype":"float32","shape":[4,6],"dynamic":[0]},{"name":"v","op":"view","args":[{"ref":"%s"},[2,-1]],"example":{"dtype":"float32","shape":[2,12]}}],"outputs":[{"ref":"v"}]}' "$long" "$long" > "$tmpd/long.json"
"$S" run "$tmpd/long.json" -b html -o "$tmpd/long.html"; rc=$?
[ "$rc" = 0 ] && grep -qF '<svg' "$tmpd/long.html" && grep -qF "<code>$long.size()[0]</code>" "$tmpd/long.html" && ok \
  || bad "a 20000-byte node name: run -b html exit $rc"
load "$tmpd/long.html"
if console_errors; then bad "long-name page: console messages above"; else ok; fi

# dot's layout is super-linear: a 250-node chain whose nodes all read the input took over 100 s
# (issue 38, fourth pass). dot runs under a CPU budget (SYMSHAPE_DOT_CPU_SECONDS); past it the
# page has the whole report and says the graph was not drawn
{ printf '{"format":"symshape.graph","version":1,"name":"fan","nodes":[{"name":"x","op":"input","dtype":"float32","shape":[2,8],"dynamic":[0]}'
  prev=x
  for i in $(seq 0 249); do
    printf ',{"name":"n%d","op":"add","args":[{"ref":"%s"},{"ref":"x"}],"example":{"dtype":"float32","shape":[2,8]}}' "$i" "$prev"; prev="n$i"
  done
  printf '],"outputs":[{"ref":"%s"}]}' "$prev"; } > "$tmpd/fan.json"
SYMSHAPE_DOT_CPU_SECONDS=1 timeout 120 "$S" run "$tmpd/fan.json" -b html -o "$tmpd/fan.html"; rc=$?
[ "$rc" = 0 ] && grep -qF "251 nodes, not drawn: Graphviz's dot used its 1 s of CPU time" "$tmpd/fan.html" \
  && grep -qF '<h2>Inputs</h2>' "$tmpd/fan.html" && ! grep -qF '<svg' "$tmpd/fan.html" && ok \
  || bad "250-node fan under a 1 s dot budget: exit $rc"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
