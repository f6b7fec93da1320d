#!/usr/bin/env bash
# The module layering (docs/index.md, "Modules"): each library module includes only the
# modules below it, and a module's private headers (*_private.h) only from inside it.
#   algebra  <- shapeenv <- guards <- backends
#                        <- frontends (the ONNX reader builds an env and hands guard inputs)
#                        <- verify
#                        <- deploy (regions and profiles over a guard set)
#   cli on top of all; tests, fuzz and bench are white-box and not checked.
# Outside algebra/, the library's modules use algebra/internal.h (allocator, errors,
# tables keyed by expression, the work budget, the context's accessors) and algebra/eval.h
# (bindings and evaluation, the FLINT values of a node); no file outside algebra/ reads the node or context layout
# (algebra/expr_private.h): there is no exception (issue 34 item 6).
# usage: layers.sh SOURCE_DIR
set -u
cd "$1" || exit 2
declare -A allowed=(
  [algebra]="algebra"
  [shapeenv]="algebra shapeenv"
  [guards]="algebra shapeenv guards"
  [backends]="algebra shapeenv guards backends"
  [frontends]="algebra shapeenv guards frontends"
  [verify]="algebra shapeenv guards verify"
  [deploy]="algebra shapeenv guards deploy"
  [cli]="algebra shapeenv guards backends frontends verify deploy cli"
)
# the module of each public header
declare -A pubmod=(
  [types.h]=algebra [ctx.h]=algebra [expr.h]=algebra [decide.h]=algebra [cases.h]=algebra
  [version.h]=algebra [env.h]=shapeenv [tensor.h]=shapeenv [graph.h]=shapeenv [gset.h]=guards
  [diff.h]=guards [dispatch.h]=guards [backend.h]=backends [bc.h]=backends [cgen.h]=backends [onnx.h]=frontends [verify.h]=verify [deploy.h]=deploy
  [symshape.h]=cli
)
fail=0; checked=0
check() { # file module included-path
  local f="$1" m="$2" inc="$3" t
  case "$inc" in
    symshape/*) t="${pubmod[${inc#symshape/}]:-?}" ;;
    */*) t="${inc%%/*}" ;;
    *) return ;;
  esac
  if [ "$t" = "?" ]; then echo "FAIL: $f includes $inc, a public header of no known module"; fail=$((fail+1)); return; fi
  case " ${allowed[$m]} " in *" $t "*) ;; *) echo "FAIL: $f ($m) includes $inc ($t): against the layering"; fail=$((fail+1)); return ;; esac
  case "$inc" in
    *_private.h)
      if [ "$t" != "$m" ]; then
        echo "FAIL: $f ($m) includes $inc, private to $t"; fail=$((fail+1))
      fi ;;
  esac
}
for m in algebra shapeenv guards backends frontends verify deploy cli; do
  while IFS= read -r f; do
    checked=$((checked+1))
    while IFS= read -r inc; do check "$f" "$m" "$inc"; done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  done < <(find "$m" -name '*.[ch]' | sort)
done
# the public headers: each includes only its own module and those below it
for h in include/symshape/*.h; do
  b="$(basename "$h")"; m="${pubmod[$b]:-?}"; checked=$((checked+1))
  [ "$m" = "?" ] && { echo "FAIL: $h: public header of no known module (add it to pubmod in tests/layers.sh)"; fail=$((fail+1)); continue; }
  while IFS= read -r inc; do check "$h" "$m" "$inc"; done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\(symshape\/[^">]*\)[">].*/\1/p' "$h")
done
echo "layers: $checked files checked, $fail violations"
[ "$fail" -eq 0 ]
