#!/usr/bin/env python3
"""Peer: PyTorch 2.x's own ShapeEnv doing the shape work of a symshape graph (issue 35, item 3).

Symbols are made as dynamo makes them for an input's sizes: ShapeEnv.create_symbol(hint,
TensorPropertySource(LocalSource(NAME), SIZE, i), DimDynamic.DUCK), so equal hints share a
symbol (duck sizing) and 0/1 hints are specialized. Every op computes its output sizes with
the formula of PyTorch 2.x's meta function or decomposition (the file and function are named
at each op below; paths relative to torch/ of torch 2.14.1) as SymInt arithmetic does (sympy
expressions, FloorDiv for //), and every check that function makes on a size (torch._check,
an `if` on a SymBool, guard_int) goes through ShapeEnv.evaluate_expr, which records a guard
when the answer is not statically known. At the end produce_guards over the input size
SymInts and their sources makes the guard texts, as torch.export / dynamo do.

Covers every op of the 11 corpus models of ../shared/corpus. After the timed runs, every
node's sizes are evaluated at the example (the hints) and compared with the shape the graph
records (captured by running the model on the CPU): a difference is printed and the exit
status is 1, so a peer that does other shape work than the model cannot pass silently.

Protocols (--protocol), each prints the median of the timed runs:
  cold     (default) each run as it comes, in this process: with --reps 1 (what bench_peer
           does, one fresh process per run) the first run pays sympy's and torch's cache
           fills and lazy set-up, as a first compile does.
  cleared  one untimed warm-up run (imports, lazy set-up), then before each timed run, outside
           the clock: sympy.core.cache.clear_cache() and cache_clear() on every functools
           lru_cache of torch.fx.experimental.symbolic_shapes, torch.utils._sympy.*,
           torch._prims_common and torch._refs (module functions, class methods, static
           methods and the lru_cache inside ShapeEnv's _lru_cache wrappers); a fresh
           ShapeEnv each run. The caches start empty as in a fresh process, the one-time
           costs (imports, first-call set-up) are not counted.
  hot      one untimed warm-up run, then the timed runs with every cache kept: identical
           expressions replay from sympy's cache (a fresh ShapeEnv each run still).

Prints, as the 1.13 peer: MODEL<TAB>nodes=N<TAB>guards=G<TAB>ms=T<TAB>out=SHAPES (guards:
produce_guards' count; SHAPES: the graph outputs' sizes at the example, 2x1000 / ...), so
bench_peer can run it. Usage: peer_shapeenv2.py [--protocol P] [--reps N] GRAPH.json...
"""
import functools
import json
import statistics
import sys
import time
import types

import sympy
import sympy.core.cache
from torch._dynamo.source import LocalSource, TensorProperty, TensorPropertySource
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.utils._sympy.functions import FloorDiv


class Shape(list):
    """A tensor's sizes (a list of sympy integers); tuples are Python values (x.shape, results)."""


class Mismatch(Exception):
    pass


def _ceildiv(a, b):
    # torch._prims_common / SymInt: -(-a // b)
    return -FloorDiv(-a, b)


def run(doc):
    env = ShapeEnv()
    vals = {}
    placeholders, sources = [], []

    def sym(name, i, v):
        src = TensorPropertySource(LocalSource(name), TensorProperty.SIZE, i)
        s = env.create_symbol(v, src, dynamic_dim=DimDynamic.DUCK)
        placeholders.append(env.create_symintnode(s, hint=v, source=src))
        sources.append(src)
        return s

    def decide(c):
        """bool(SymBool) / torch._check: evaluate_expr when not a constant."""
        if isinstance(c, bool):
            return c
        c = sympy.sympify(c)
        if c is sympy.true or c is sympy.false:
            return bool(c)
        return bool(env.evaluate_expr(c))

    def check(c, what):
        if not decide(c):
            raise Mismatch("check fails at the example: %s" % what)

    def eq(a, b):
        return decide(sympy.Eq(a, b))

    def I(v):
        return sympy.Integer(v) if isinstance(v, int) and not isinstance(v, bool) else v

    def prod(xs):
        p = sympy.Integer(1)
        for v in xs:
            p = p * v
        return p

    def view(x, shape):
        # torch/_refs/__init__.py _reshape_view_helper -> torch/_prims_common/__init__.py
        # infer_size: one -1 is numel // newsize after _check(newsize != 0) and
        # _check(numel % newsize == 0); otherwise _check(numel == newsize)
        shape = [I(v) for v in shape]
        numel = prod(x)
        dim, newsize = None, sympy.Integer(1)
        for i, d in enumerate(shape):
            if d == -1:
                dim = i
            else:
                check(sympy.Ge(d, 0), "size >= 0")
                newsize = newsize * d
        if dim is None:
            check(sympy.Eq(numel, newsize), "numel")
        else:
            check(sympy.Ne(newsize, 0), "newsize != 0")
            check(sympy.Eq(sympy.Mod(numel, newsize), 0), "numel % newsize")
            shape[dim] = FloorDiv(numel, newsize)
        return Shape(shape)

    def linear(x, w):
        # torch/_decomp/decompositions.py addmm / matmul meta: in-features equal
        eq(x[-1], w[1])
        return Shape(list(x[:-1]) + [w[0]])

    def broadcast(x, y):
        # torch/_refs/__init__.py _broadcast_shapes: size 1 takes the other, else equal
        r = max(len(x), len(y))
        xx = [sympy.Integer(1)] * (r - len(x)) + list(x)
        yy = [sympy.Integer(1)] * (r - len(y)) + list(y)
        out = []
        for p, q in zip(xx, yy):
            if p == 1:
                out.append(q)
            elif q == 1:
                out.append(p)
            else:
                eq(p, q)
                out.append(p)
        return Shape(out)

    def ref(v):
        if isinstance(v, dict) and "ref" in v:
            return vals[v["ref"]]
        if isinstance(v, list):
            return [ref(u) for u in v]
        return v

    def index(seq, k):
        if isinstance(k, dict) and "slice" in k:
            a, b, c = k["slice"]
            return tuple(seq[slice(a, b, c)])
        return seq[k]

    for node in doc["nodes"]:
        op = node["op"]
        if op == "input":
            dyn = {d["dim"] if isinstance(d, dict) else d for d in node["dynamic"]}
            vals[node["name"]] = Shape(sym(node["name"], i, d) if i in dyn else sympy.Integer(d)
                                       for i, d in enumerate(node["shape"]))
            continue
        if op == "param":
            vals[node["name"]] = Shape(sympy.Integer(d) for d in node["shape"])
            continue
        a = [ref(v) for v in node.get("args", [])]
        kw = {k: ref(v) for k, v in node.get("kwargs", {}).items()}
        x = a[0] if a else None
        if op == "conv2d":
            # torch/_meta_registrations.py meta_conv -> calc_conv_nd_return_shape._formula:
            # (ln + 2 p - d (k - 1) - 1) // s + 1; channels: input C == weight C_in * groups
            w = a[1]
            st, pd, dl = kw["stride"], kw["padding"], kw["dilation"]
            eq(x[1], w[1] * kw["groups"])
            out = [x[0], w[0]]
            for i in range(2):
                out.append(FloorDiv(x[2 + i] + 2 * pd[i] - dl[i] * (w[2 + i] - 1) - 1, st[i]) + 1)
            out = Shape(out)
        elif op in ("max_pool2d", "avg_pool2d"):
            # torch/_meta_registrations.py pooling_output_shape_pad_lr (ceil mode: minus one
            # when the last window starts past input + pad) and pool2d_shape_check
            # (_check(outputWidth >= 1 and outputHeight >= 1))
            P = lambda v, d: (list(v) if isinstance(v, list) else [v, v]) if v is not None else d
            k = P(kw.get("kernel_size", a[1] if len(a) > 1 else None), None)
            st = P(kw.get("stride", a[2] if len(a) > 2 else None), k) or k
            pd = P(kw.get("padding", a[3] if len(a) > 3 else 0), [0, 0])
            dl = P(kw.get("dilation", [1, 1]), [1, 1])
            out = list(x[:2])
            for i in range(2):
                num = x[2 + i] + 2 * pd[i] - dl[i] * (k[i] - 1) - 1
                if kw.get("ceil_mode"):
                    o = FloorDiv(num + st[i] - 1, st[i]) + 1
                    if decide(sympy.Ge((o - 1) * st[i], x[2 + i] + pd[i])):
                        o = o - 1
                else:
                    o = FloorDiv(num, st[i]) + 1
                out.append(o)
            check(sympy.And(sympy.Ge(out[2], 1), sympy.Ge(out[3], 1)), "pool output >= 1")
            out = Shape(out)
        elif op == "adaptive_avg_pool2d":
            out = Shape(list(x[:2]) + [sympy.Integer(v) for v in a[1]])
        elif op in ("batch_norm", "relu", "relu6", "dropout", "gelu", "silu", "sigmoid", "hardswish",
                    "hardsigmoid", "contiguous", "stochastic_depth"):
            # elementwise / eval-mode identities (torchvision stochastic_depth: not training -> input)
            out = x
        elif op == "layer_norm":
            # torch/_decomp/decompositions.py native_layer_norm -> _normalize checks
            # input.shape[-len(normalized_shape):] == normalized_shape
            ns = a[1]
            for p, q in zip(x[len(x) - len(ns):], ns):
                eq(p, q)
            out = x
        elif op in ("add", "mul"):
            y = a[1]
            if isinstance(x, Shape) and isinstance(y, Shape):
                out = broadcast(x, y)
            elif isinstance(x, Shape):
                out = x
            elif isinstance(y, Shape):
                out = y
            else:
                out = I(x) + I(y) if op == "add" else I(x) * I(y)
        elif op == "floordiv":
            out = FloorDiv(I(x), I(a[1]))
        elif op == "cat":
            # torch/_refs/__init__.py cat: sizes other than dim equal, dim summed
            ts = a[0]
            d = kw.get("dim", a[1] if len(a) > 1 else 0)
            out = list(ts[0])
            for t in ts[1:]:
                for i in range(len(out)):
                    if i != d:
                        eq(out[i], t[i])
                out[d] = out[d] + t[d]
            out = Shape(out)
        elif op == "flatten":
            sd = kw.get("start_dim", a[1] if len(a) > 1 else 0)
            out = Shape(list(x[:sd]) + [sympy.expand(prod(x[sd:]))])
        elif op == "linear":
            out = linear(x, a[1])
        elif op == "permute":
            dims = a[1] if len(a) == 2 and isinstance(a[1], list) else a[1:]
            out = Shape(x[d] for d in dims)
        elif op == "transpose":
            d0, d1 = a[1] % len(x), a[2] % len(x)
            out = list(x)
            out[d0], out[d1] = out[d1], out[d0]
            out = Shape(out)
        elif op in ("view", "reshape"):
            shape = a[1] if len(a) == 2 and isinstance(a[1], (list, tuple)) else a[1:]
            out = view(x, shape)
        elif op == "expand":
            # torch/_refs/__init__.py expand: -1 keeps, new leading dims, else size 1 or equal
            sizes = [I(v) for v in (a[1] if len(a) == 2 and isinstance(a[1], (list, tuple)) else a[1:])]
            off = len(sizes) - len(x)
            out = []
            for i, s in enumerate(sizes):
                if i < off:
                    out.append(s)
                elif s == -1:
                    out.append(x[i - off])
                elif x[i - off] == 1:
                    out.append(s)
                else:
                    eq(x[i - off], s)
                    out.append(s)
            out = Shape(out)
        elif op == "chunk":
            # aten chunk (CompositeImplicit): split_size = ceil(len / chunks), then
            # torch/_decomp/decompositions.py split: chunks = guard_int((len + s - 1) // s)
            n = a[1]
            d = kw.get("dim", a[2] if len(a) > 2 else 0) % len(x)
            ln = x[d]
            ss = _ceildiv(ln, n)
            cnt = FloorDiv(ln + ss - 1, ss)
            if not cnt.is_Integer:
                cnt = env.evaluate_expr(cnt)
            cnt = int(cnt)
            parts = []
            for i in range(cnt):
                s = ss if i < cnt - 1 else ss - (ss * cnt - ln)
                parts.append(Shape(list(x[:d]) + [s] + list(x[d + 1:])))
            out = tuple(parts)
        elif op == "mean":
            dims = [v % len(x) for v in (a[1] if isinstance(a[1], list) else [a[1]])]
            keep = kw.get("keepdim", False)
            out = Shape(sympy.Integer(1) if i in dims else v for i, v in enumerate(x) if keep or i not in dims)
        elif op in ("size",):
            out = tuple(x) if len(a) == 1 else x[a[1]]
        elif op == "getattr":
            # dtype of every corpus tensor: float32 (the graph's "dtype"); is_nested: False
            out = tuple(x) if a[1] == "shape" else (False if a[1] == "is_nested" else ("attr", a[1]))
        elif op == "getitem":
            k = a[1]
            if isinstance(x, Shape):
                # x[:, 0]: select (torch/_refs select: _check(-size <= index < size))
                ks = k if isinstance(k, list) else [k]
                out = []
                for i, kk in enumerate(ks):
                    if isinstance(kk, dict):
                        out.append(x[i])
                    else:
                        check(sympy.Lt(kk, x[i]), "index < size")
                out = Shape(out + list(x[len(ks):]))
            else:
                out = index(x, k)
        elif op == "dim":
            out = len(x)
        elif op in ("eq", "ne"):
            y = a[1]
            if isinstance(x, tuple) and x and x[0] == "attr" or isinstance(y, tuple) and y and y[0] == "attr":
                # dtype / is_nested comparisons: no size work (the corpus compares equal dtypes)
                out = (x == y) if op == "eq" else (x != y)
            elif isinstance(x, int) and isinstance(y, int):
                out = (x == y) if op == "eq" else (x != y)
            else:
                out = sympy.Eq(I(x), I(y)) if op == "eq" else sympy.Ne(I(x), I(y))
        elif op == "guard_bool":
            got = decide(x)
            if got != a[1]:
                raise Mismatch("guard_bool %s: %s at the example" % (node["name"], got))
            out = got
        elif op == "_assert":
            check(x, node["name"])
            out = None
        elif op == "embedding":
            # torch/_meta_registrations.py embedding: weight 2-D; indices.shape + [weight[1]]
            idx, w = a[0], a[1]
            out = Shape(list(idx) + [w[1]])
        elif op == "interpolate":
            # torch/_meta_registrations.py upsample_common_check: (N, C, *size), every input and
            # output spatial size > 0
            size = list(kw["size"] if not isinstance(kw["size"], int) else [kw["size"]] * 2)
            check(sympy.And(*[sympy.Gt(s, 0) for s in list(x[2:]) + [I(v) for v in size]]), "upsample sizes > 0")
            out = Shape(list(x[:2]) + [I(v) for v in size])
        elif op == "multi_head_attention_forward":
            out = mha(x, a[1], a[2], a[3], a[4], a[5], kw, eq, check, view, linear)
        else:
            raise NotImplementedError(op)
        vals[node["name"]] = out
    return len(env.produce_guards(placeholders, sources)), vals, env


def mha(q, k, v, e_check, heads, w_in, kw, eq, check, view, linear):
    """torch/nn/functional.py multi_head_attention_forward, batch_first=False, eval, packed
    in-projection, no masks, need_weights=False: its shape checks and views."""
    tgt_len, bsz, embed_dim = q
    src_len = k[0]
    eq(embed_dim, e_check)
    head_dim = FloorDiv(embed_dim, heads)
    eq(head_dim * heads, embed_dim)
    for p, r in zip(k, v):  # key.shape == value.shape
        eq(p, r)
    # _in_projection_packed (q is k is v): linear to 3E, unflatten(-1, (3, E)), unsqueeze(0),
    # transpose(0, -2), squeeze(-2), contiguous
    proj = linear(q, w_in)
    proj = view(proj, list(proj[:-1]) + [3, embed_dim])
    qq, kk, vv = Shape([tgt_len, bsz, embed_dim]), Shape([src_len, bsz, embed_dim]), Shape([src_len, bsz, embed_dim])
    qv = view(qq, [tgt_len, bsz * heads, head_dim])
    kv = view(kk, [kk[0], bsz * heads, head_dim])
    vv = view(vv, [vv[0], bsz * heads, head_dim])
    src_len = kv[0]
    # q.view(bsz, num_heads, tgt_len, head_dim) and k, v likewise, then scaled_dot_product_attention
    # (torch/_meta_registrations.py: q, k, v batch/head dims equal, k/v head_dim equal to q's)
    q4 = view(Shape([qv[1], qv[0], qv[2]]), [bsz, heads, tgt_len, head_dim])
    k4 = view(Shape([kv[1], kv[0], kv[2]]), [bsz, heads, src_len, head_dim])
    v4 = view(Shape([vv[1], vv[0], vv[2]]), [bsz, heads, src_len, head_dim])
    eq(q4[0], k4[0])
    eq(q4[3], k4[3])
    eq(k4[2], v4[2])
    o = Shape([q4[0], q4[1], q4[2], v4[3]])
    # permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim), out_proj, view(tgt_len, bsz, E)
    o = view(Shape([o[2], o[0], o[1], o[3]]), [bsz * tgt_len, embed_dim])
    o = linear(o, Shape([embed_dim, embed_dim]))
    o = view(o, [tgt_len, bsz, o[1]])
    return (o, None)


def _lru_wrappers():
    """The functools lru_cache wrappers of the ShapeEnv's modules (see --protocol cleared)."""
    prefixes = ("torch.fx.experimental.symbolic_shapes", "torch.utils._sympy", "torch._prims_common",
                "torch._refs", "torch.fx.experimental.sym_node")
    found, seen = [], set()

    def visit(obj, depth=0):
        if id(obj) in seen or depth > 3:
            return
        seen.add(id(obj))
        if isinstance(obj, functools._lru_cache_wrapper):
            found.append(obj)
            visit(getattr(obj, "__wrapped__", None), depth + 1)
            return
        if isinstance(obj, (staticmethod, classmethod)):
            visit(obj.__func__, depth + 1)
        elif isinstance(obj, property):
            visit(obj.fget, depth + 1)
        elif isinstance(obj, types.FunctionType):
            for c in obj.__closure__ or ():
                try:
                    visit(c.cell_contents, depth + 1)
                except ValueError:
                    pass
            visit(getattr(obj, "__wrapped__", None), depth + 1)

    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith(prefixes):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, type) and obj.__module__ == name:
                for attr in list(vars(obj).values()):
                    visit(attr)
            else:
                visit(obj)
    return found


def clear_caches(wrappers):
    sympy.core.cache.clear_cache()
    for w in wrappers:
        w.cache_clear()


def _hints(env):
    return getattr(env, "backed_var_to_val", None) or env.var_to_val


def hint_of(env, e):
    e = sympy.sympify(e)
    if e.is_Integer:
        return int(e)
    return int(e.xreplace(_hints(env)))


def compare(doc, vals, env):
    """Every node's sizes at the example against the graph's recorded shapes: a list of differences."""
    bad = []

    def same(got, ex):
        if isinstance(ex, dict) and "shape" in ex:
            return isinstance(got, Shape) and [hint_of(env, v) for v in got] == ex["shape"]
        if isinstance(ex, dict) and "items" in ex:
            return isinstance(got, tuple) and len(got) == len(ex["items"]) and all(
                it is None or same(g, it) for g, it in zip(got, ex["items"]))
        if isinstance(ex, dict) and "value" in ex:
            w = ex["value"]
            if isinstance(w, bool):
                return (decide_hint(env, got)) == w
            if isinstance(w, int):
                return hint_of(env, got) == w
            if isinstance(w, list):
                return [hint_of(env, g) for g in got] == w
        return True

    for node in doc["nodes"]:
        ex = node.get("example")
        if ex is not None and node["name"] in vals and not same(vals[node["name"]], ex):
            bad.append("%s (%s): peer %s, graph %s" % (node["name"], node["op"], vals[node["name"]], ex))
    return bad


def decide_hint(env, v):
    if isinstance(v, bool):
        return v
    return bool(sympy.sympify(v).xreplace(_hints(env)))


def out_text(doc, vals, env):
    outs = []
    for o in doc.get("outputs", []):
        for r in ([o["ref"]] if "ref" in o else [u["ref"] for u in o.values()]):  # a dict output: its values
            v = vals[r]
            outs.append("x".join(str(hint_of(env, d)) for d in v) if isinstance(v, Shape) else "?")
    return "/".join(outs)


def main(argv):
    reps, protocol = 1, "cold"
    while argv[:1] and argv[0].startswith("--"):
        if argv[0] == "--reps":
            reps, argv = int(argv[1]), argv[2:]
        elif argv[0] == "--protocol" and argv[1] in ("cold", "cleared", "hot"):
            protocol, argv = argv[1], argv[2:]
        else:
            print(__doc__, file=sys.stderr)
            return 2
    rc = 0
    wrappers = None
    for f in argv:
        with open(f) as fh:
            doc = json.load(fh)
        times = []
        try:
            if protocol != "cold":
                g, vals, env = run(doc)  # warm-up, not timed
            if protocol == "cleared" and wrappers is None:
                wrappers = _lru_wrappers()
            for _ in range(reps):
                if protocol == "cleared":
                    clear_caches(wrappers)
                t = time.perf_counter()
                g, vals, env = run(doc)
                times.append((time.perf_counter() - t) * 1e3)
        except NotImplementedError as e:
            print(doc["name"], "unsupported op", e)
            continue
        except Mismatch as e:
            print("%s\tpeer check failed: %s" % (doc["name"], e))
            rc = 1
            continue
        bad = compare(doc, vals, env)
        for b in bad[:5]:
            print("%s\tMISMATCH at the example: %s" % (doc["name"], b))
        if bad:
            rc = 1
            continue
        print("%s\tnodes=%d\tguards=%d\tms=%.3f\tout=%s\tprotocol=%s\tcaches=%d" % (
            doc["name"], len(doc["nodes"]), g, statistics.median(times), out_text(doc, vals, env), protocol,
            len(wrappers or ())))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
