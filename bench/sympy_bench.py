#!/usr/bin/env python3
"""Build the bench corpus (bench/algebra_corpus.txt) with sympy and print the
median / p99 nanoseconds per construction, cold (sympy's caches cleared before
every pass) and warm (caches full), overall and per category.

bench_algebra runs this script and prints the figures next to symshape's, with
the ratio. It can also be run on its own:

    python3 bench/sympy_bench.py [--corpus FILE] [--budget SECONDS] [--quick]

Output: one machine-readable line per figure, space-separated key=value
tokens after the tag SYMPY_BENCH (values never contain spaces):

    SYMPY_BENCH info sympy=1.11.1 python=3.11.2 exprs=99 timer_ns=60
    SYMPY_BENCH result phase=cold cat=ALL n=1980 passes=20 median_ns=... p99_ns=... mean_ns=...
    SYMPY_BENCH error idx=3 msg=...

How the expressions are built (the modelling choices):
  * Symbols are sympy.Symbol(name, integer=True, positive=True): that is how
    PyTorch's ShapeEnv creates size symbols.
  * Every text is compiled once with compile(); a construction is one eval()
    of that code object over the symbols, i.e. the sympy operator overloading
    and function constructors only, never sympy's parser.
  * Integer sub-expressions such as 2*3 - 1*(7 - 1) are folded by Python
    before sympy sees them, exactly as they are when PyTorch computes a conv
    output size from Python-int parameters (symshape's C harness, on the other
    hand, sends every constant through its constructors).
  * FloorDiv(a, b) is a // b. For sympy operands that is Expr.__floordiv__,
    i.e. sympy.floor(a / b) over integer symbols; PyTorch uses its own
    FloorDiv(sympy.Function) class (torch/utils/_sympy/functions.py), whose
    eval() does similar work but is not part of sympy. Mod(a, b) is a % b
    (sympy.Mod). CeilDiv(a, b) is -((-a) // b), the identity symshape's
    CeilDiv is defined by (-sympy.floor(-a / b)).
  * Min/Max/Eq/Ne/Lt/Le/Gt/Ge/And/Or/Not are sympy's own classes; comparison
    operators build sympy relationals.
  * Cold: sympy.core.cache.clear_cache() and fresh Symbols before each pass
    (not timed), like symshape's fresh context per batch. Warm: the same
    expressions again with sympy's caches full.
"""

import argparse
import gc
import operator
import os
import re
import sys
import time

FUNCS = ("FloorDiv", "CeilDiv", "Mod", "Min", "Max", "Eq", "Ne", "Lt", "Le",
         "Gt", "Ge", "And", "Or", "Not")


def load_corpus(path):
    """[(category, text)] from the corpus file ("[cat]" headers, # comments)."""
    out = []
    cat = "misc"
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                cat = line[1:-1].strip()
                continue
            out.append((cat, line))
    return out


def pct(sorted_vals, q):
    """Nearest-rank percentile q (integer percent) of a sorted list; the C
    harness uses the same definition."""
    n = len(sorted_vals)
    if n == 0:
        return 0
    k = (q * n + 99) // 100 - 1
    return sorted_vals[max(0, min(n - 1, k))]


def timer_overhead():
    pc = time.perf_counter_ns
    vals = []
    for _ in range(20001):
        t0 = pc()
        t1 = pc()
        vals.append(t1 - t0)
    vals.sort()
    return pct(vals, 50)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--corpus", default=os.path.join(here, "algebra_corpus.txt"))
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds to spend timing (default 16, --quick 3)")
    ap.add_argument("--quick", action="store_true", help="fewer passes")
    ap.add_argument("--max-passes", type=int, default=None)
    args = ap.parse_args()
    budget = args.budget if args.budget is not None else (3.0 if args.quick else 16.0)
    max_passes = args.max_passes or (50 if args.quick else 2000)
    min_passes = 3

    try:
        import sympy
        from sympy.core.cache import clear_cache
    except ImportError as exc:  # the C harness checks first; be clear anyway
        print(f"SYMPY_BENCH missing msg={type(exc).__name__}")
        return 3

    try:
        corpus = load_corpus(args.corpus)
    except OSError as exc:
        print(f"SYMPY_BENCH fatal msg=cannot_read_corpus:{exc.strerror}")
        return 2

    ident = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    names = sorted({m for _, t in corpus for m in ident.findall(t)} - set(FUNCS))

    def ceildiv(a, b):
        return -((-a) // b)

    functions = {
        "FloorDiv": operator.floordiv, "CeilDiv": ceildiv, "Mod": operator.mod,
        "Min": sympy.Min, "Max": sympy.Max, "Eq": sympy.Eq, "Ne": sympy.Ne,
        "Lt": sympy.Lt, "Le": sympy.Le, "Gt": sympy.Gt, "Ge": sympy.Ge,
        "And": sympy.And, "Or": sympy.Or, "Not": sympy.Not,
    }

    def fresh_namespace():
        ns = {"__builtins__": {}}
        ns.update(functions)
        for n in names:
            ns[n] = sympy.Symbol(n, integer=True, positive=True)
        return ns

    codes = []
    errors = {}
    for i, (_, text) in enumerate(corpus):
        try:
            codes.append(compile(text, f"<corpus {i}>", "eval"))
        except SyntaxError as exc:
            codes.append(None)
            errors[i] = f"syntax:{exc.msg}"

    # Validate once (and warm up the interpreter).
    ns = fresh_namespace()
    for i, code in enumerate(codes):
        if code is None:
            continue
        try:
            eval(code, ns)
        except Exception as exc:  # noqa: BLE001 - report, never abort
            errors[i] = f"{type(exc).__name__}:{exc}"
    for i, msg in sorted(errors.items()):
        print(f"SYMPY_BENCH error idx={i} msg={msg.replace(' ', '_')}")
    live = [i for i in range(len(corpus)) if i not in errors]

    overhead = timer_overhead()
    print(f"SYMPY_BENCH info sympy={sympy.__version__} "
          f"python={sys.version.split()[0]} exprs={len(live)} timer_ns={overhead}")
    sys.stdout.flush()

    pc = time.perf_counter_ns
    samples = {"cold": {}, "warm": {}}
    passes = {"cold": 0, "warm": 0}

    def one_pass(phase, ns):
        gc.collect()
        bucket = samples[phase]
        for i in live:
            code = codes[i]
            t0 = pc()
            eval(code, ns)
            t1 = pc()
            bucket.setdefault(corpus[i][0], []).append(max(0, t1 - t0 - overhead))
        passes[phase] += 1

    def more(phase, deadline):
        return passes[phase] < max_passes and (
            passes[phase] < min_passes or time.perf_counter() < deadline)

    deadline = time.perf_counter() + budget / 2
    while more("cold", deadline):
        clear_cache()
        one_pass("cold", fresh_namespace())

    ns = fresh_namespace()
    for i in live:  # fill the caches; not timed
        eval(codes[i], ns)
    deadline = time.perf_counter() + budget / 2
    while more("warm", deadline):
        one_pass("warm", ns)

    cats = []
    for c, _ in corpus:
        if c not in cats:
            cats.append(c)
    for phase in ("cold", "warm"):
        allv = []
        rows = []
        for c in cats:
            v = sorted(samples[phase].get(c, []))
            allv.extend(v)
            rows.append((c, v))
        allv.sort()
        rows.insert(0, ("ALL", allv))
        for c, v in rows:
            if not v:
                continue
            mean = sum(v) // len(v)
            print(f"SYMPY_BENCH result phase={phase} cat={c} n={len(v)} "
                  f"passes={passes[phase]} median_ns={pct(v, 50)} "
                  f"p99_ns={pct(v, 99)} mean_ns={mean}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
