"""Helpers for the model tests: real CPU execution, flattening, sampled sizes, the results table."""
import json
import os
import random
import time

import torch

import symshape

TABLE = []  # one dict per exported model, written by write_table()
# the relaxed policy's trace options (--no-duck-sizing --no-specialize-01), and the trace options
# of a policy named "default" or "relaxed"
NO_POLICY = {"duck_sizing": False, "specialize_01": False}
POLICIES = ["default", "relaxed"]


def policy_kw(policy):
    return NO_POLICY if policy == "relaxed" else None


def assert_counts(row, gs, ok, acc_default, acc_relaxed, policy, disjunction=False):
    """The sizes the CPU runs (ok) and those accepted under policy, exactly; with disjunction, the
    relaxed set holds an Or guard (the kernel's whole condition, not the example's branch)."""
    assert (row["torch_ok"], row["accepted"]) == (ok, acc_relaxed if policy == "relaxed" else acc_default), row
    if disjunction and policy == "relaxed":
        assert any(g.text.startswith("Or(") for g in gs.guards), [g.text for g in gs.guards]



def flatten_shapes(out):
    """Shapes of every tensor of a model output, flattened in order (dict values in order)."""
    res = []

    def walk(v):
        if isinstance(v, torch.Tensor):
            res.append(list(v.shape))
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, bool):
            pass
        elif isinstance(v, int):
            res.append([v])
    walk(out)
    return res


def run_real(model, inputs):
    """(ok, output shapes or error text) of the real model on the CPU."""
    try:
        with torch.no_grad():
            out = model(**inputs) if isinstance(inputs, dict) else model(*inputs)
        return True, flatten_shapes(out)
    except Exception as e:  # the real model cannot run at this size
        return False, "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")


def soundness(name, model, make_inputs, sizes_of, points, dynamic=None, example=None, trace_kw=None,
              kind="model"):
    """Export at ``example``, trace, and compare with real execution at every point.
    ``make_inputs(point)`` builds the real inputs (dict) of a point; ``sizes_of(point)`` the
    {input: shape} the guards are checked at. Returns the table row; raises AssertionError
    listing every soundness violation."""
    t0 = time.perf_counter()
    doc = symshape.export(model, make_inputs(example), dynamic=dynamic, name=name)
    t1 = time.perf_counter()
    gs = symshape.trace(doc, **(trace_kw or {}))
    t2 = time.perf_counter()
    accepted = ran = acc_ran = 0
    violations = []
    for p in points:
        sizes = sizes_of(p)
        acc, failed = gs.check(sizes)
        ok, real = run_real(model, make_inputs(p))
        ran += ok
        accepted += acc
        if acc:
            if not ok:
                violations.append("%s: accepted but torch fails: %s" % (sizes, real))
                continue
            acc_ran += 1
            try:
                mine = gs.output_shapes(sizes)
            except symshape.Error as e:
                violations.append("%s: accepted but get_real_value fails: %s" % (sizes, e))
                continue
            if mine != real:
                violations.append("%s: output shapes differ: symshape %s, torch %s" % (sizes, mine, real))
    row = {"model": name, "kind": kind, "nodes": len(doc["nodes"]), "guards": len(gs),
           "points": len(points), "torch_ok": ran, "accepted": accepted, "violations": len(violations),
           "acceptance": (acc_ran / ran) if ran else 0.0, "export_s": t1 - t0, "trace_s": t2 - t1}
    TABLE.append(row)
    assert not violations, "%s: %d soundness violations:\n  %s" % (name, len(violations),
                                                                    "\n  ".join(violations[:20]))
    assert accepted > 0, "%s: no point accepted (the guard set rejects everything?)" % name
    return row, gs, doc


def write_table(path=None):
    path = path or os.environ.get("SYMSHAPE_MODEL_TABLE")
    lines = ["| model | kind | nodes | guards | points | torch ok | accepted | violations | acceptance | export s | trace s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in TABLE:
        lines.append("| %s | %s | %d | %d | %d | %d | %d | %d | %.0f%% | %.2f | %.3f |" % (
            r["model"], r["kind"], r["nodes"], r["guards"], r["points"], r["torch_ok"], r["accepted"],
            r["violations"], 100 * r["acceptance"], r["export_s"], r["trace_s"]))
    text = "\n".join(lines)
    print("\n" + text)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
            json.dump(TABLE, f, indent=1)


def spatial_points(rng, n, lo, hi, extra=()):
    pts = list(extra)
    while len(pts) < n:
        pts.append((rng.randint(lo, hi), rng.randint(lo, hi)))
    return pts


class Asserts(torch.nn.Module):
    """Python asserts on sizes (test_export.test_asserts_keep_their_messages); here because pytest
    rewrites the assert statements of test modules into its own code."""
    def forward(self, x):
        assert x.shape[1] % 4 == 0, "width must be divisible by 4"
        assert x.shape[0] >= 2 and x.shape[0] <= 64, "batch out of range"
        assert x.shape[1] > 3
        assert x.shape[1] < 100, f"width {x.shape[1]} too large"
        if x.shape[1] > 6:  # a branch, not an assert
            x = x + 1
        return x


def check_points(gs, model, mk, pts, shape, same):
    """(CPU ok, accepted, differences) of guard set gs over the points pts of a one-input model:
    input "x" of sizes shape(p) made by mk(p); an accepted point must run on the CPU and give
    output shapes (or strides) for which same(symshape's, torch's) holds"""
    ok = acc = 0
    bad = []
    for p in pts:
        sizes = {"x": shape(p)}
        a, _ = gs.check(sizes)
        r, real = run_real(model, mk(p))
        ok += r
        acc += a
        if a and not r:
            bad.append("%s: accepted, torch fails: %s" % (sizes, real))
        elif a:
            try:
                mine = gs.output_shapes(sizes)
            except symshape.Error as e:
                bad.append("%s: get_real_value fails: %s" % (sizes, e))
                continue
            if not same(mine, real):
                bad.append("%s: symshape %s, torch %s" % (sizes, mine, real))
    return ok, acc, bad
