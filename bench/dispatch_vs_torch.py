#!/usr/bin/env python3
"""PyTorch's per-entry guards, for bench_dispatch's table (issue 37, item 2).

torch.compile keeps one cache entry per compiled specialization of a frame and, on each call,
checks the entries one after another with each entry's guard manager until one accepts
(torch/_dynamo/eval_frame.py, torch/csrc/dynamo/cache_entry.h: the frame's cache entry list). This
script compiles torchvision's resnet18 (backend "eager": Dynamo's guards without Inductor's
compile time; the guards are the same) with dynamic=False for N input shapes (batch 1..N), so the
frame has N entries, and times each entry's guard check, GuardManager.check(f_locals), on an
input it accepts (hit) and on one it rejects (miss: another batch size). A dispatch among N
entries costs on average (N - 1) / 2 misses and one hit when every entry is equally likely, and N
misses when none accepts.

Usage: python bench/dispatch_vs_torch.py [--entries 8] [--reps 20000]
Needs PyTorch 2.x and torchvision (the venv of scripts/venv.sh). Compiling is slow (about 20 s
per entry on a loaded 2-core machine): 8 entries are measured, and since the check of one entry
does not depend on the others, the cost for more entries is the measured per-entry cost times N.
"""
import argparse
import statistics
import sys
import time

import torch
import torch._dynamo as dynamo
import torchvision
from torch._dynamo.eval_frame import _debug_get_cache_entry_list


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=8)
    ap.add_argument("--reps", type=int, default=20000)
    a = ap.parse_args()
    for k in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit", "accumulated_recompile_limit"):
        if hasattr(dynamo.config, k):
            setattr(dynamo.config, k, 4096)
    m = torchvision.models.resnet18().eval()
    f = torch.compile(m, backend="eager", dynamic=False)
    xs = [torch.randn(b, 3, 32, 32) for b in range(1, a.entries + 1)]
    t0 = time.time()
    with torch.no_grad():
        for x in xs:
            f(x)
    print(f"torch {torch.__version__}: {a.entries} entries compiled in {time.time() - t0:.0f} s", file=sys.stderr)
    ents = _debug_get_cache_entry_list(m.forward.__code__)
    if len(ents) != a.entries:
        sys.exit(f"expected {a.entries} cache entries, found {len(ents)}")

    def check(gm, x):
        return gm.check({"self": m, "x": x})

    hit, miss = [], []
    torch.set_grad_enabled(False)  # as when the entries were compiled: grad mode is guarded (global state)
    for e in ents:
        gm = e.guard_manager
        acc = [x for x in xs if check(gm, x)]
        rej = [x for x in xs if not check(gm, x)]
        if len(acc) != 1 or (a.entries > 1 and not rej):
            why = gm.check_verbose({"self": m, "x": xs[0]}) if hasattr(gm, "check_verbose") else None
            sys.exit("an entry accepts %d of the %d inputs (%s)" % (len(acc), len(xs), getattr(why, "verbose_code_parts", why)))
        for lst, x in ((hit, acc[0]), (miss, rej[0] if rej else None)):
            if x is None:
                continue
            ts = []
            for _ in range(5):
                t = time.perf_counter_ns()
                for _ in range(a.reps):
                    check(gm, x)
                ts.append((time.perf_counter_ns() - t) / a.reps)
            lst.append(statistics.median(ts))
    h = statistics.median(hit)
    mi = statistics.median(miss) if miss else float("nan")
    print(f"per-entry guard check (median over {a.entries} entries, {a.reps} calls x 5): hit {h:.0f} ns, miss {mi:.0f} ns")
    print("entries | first match, uniform (ns) | no match (ns)")
    print("---|---|---")
    for n in (1, 8, 64, 512):
        how = "measured" if n <= a.entries else "per-entry x N"
        print(f"{n} | {(n - 1) / 2 * mi + h:.0f} | {n * mi:.0f} ({how})")


if __name__ == "__main__":
    main()
