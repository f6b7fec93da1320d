/* Strides and memory layout of fake tensors (docs/ops.md section 8).
 *
 * Length (about 1,500 lines, over the tree's 1,200): computeStride's view and TensorIterator's
 * output layout answer the questions the facts leave open by one case split (split_ask and
 * struct vsplit, static here), and the deferral of both lives beside them.
 *
 * Sources (PyTorch 1.13):
 *  - view compatibility: aten/src/ATen/TensorUtils.cpp computeStride_impl;
 *  - elementwise output layout: aten/src/ATen/TensorIterator.cpp
 *    compute_strides (a broadcast dim has stride 0), reorder_dimensions
 *    (insertion sort of the dims by the operands' strides, the first operand
 *    with an unambiguous comparison decides; equal strides put the dim of the
 *    larger size later), compatible_stride/invert_perm
 *    (the output is dense in that order);
 *  - contiguity: c10/core/TensorImpl.cpp compute_contiguous (dims of size 1
 *    are skipped);
 *  - memory formats: c10/core/MemoryFormat.h (channels_last is a 4-D/5-D
 *    notion; cat, convolution, pooling, batch_norm allocate their output in
 *    the input's suggest_memory_format()).
 *
 * A tensor whose strides are not modelled has strides == NULL; so has one whose strides are
 * deferred (a reshape's whose view-or-copy branch is decided only when observed: the env's
 * defer table, section "deferred strides" below). Every op is
 * in one layout class (its row in the ops_*.c tables); the class says what the dispatcher
 * does with the op's result. An op that builds its result with
 * op_new_strided/op_set_strided owns its layout (OPL_OWN); one that
 * builds it with op_set_tensor (contiguous) gets OPL_DEFAULT unless its
 * row says otherwise. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "shapeenv/env_private.h"

const sy_tensor *op_new_strided(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes,
                                const sy_expr *const *strides)
{
    c->env->layout_owned = 1; /* the op computed its output's layout */
    return sy_tensor_new_strided(c->env, dt, ndim, sizes, strides);
}

sy_status op_set_strided(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes, const sy_expr *const *strides)
{
    const sy_tensor *t = op_new_strided(c, dt, ndim, sizes, strides);
    if (!t) return sy_ctx_last_error(c->env->ctx);
    *c->out = sy_value_tensor(t);
    return SY_OK;
}

static const sy_expr *const *dense_strides(opcall *c, size_t ndim, const sy_expr *const *sizes, const size_t *perm)
{
    /* perm[0] is the fastest moving dim (stride 1), as in TensorIterator */
    size_t q = 0;
    while (q < ndim && perm[q] == ndim - 1 - q) q++;
    if (q == ndim) return sy_env_contig_strides(c->env, ndim, sizes, false); /* row-major: the shared array */
    const sy_expr **st = sy_env_alloc(c->env, (ndim ? ndim : 1) * sizeof *st);
    if (!st) return NULL;
    const sy_expr *acc = KI(c, 1);
    for (size_t k = 0; k < ndim; k++) {
        st[perm[k]] = acc;
        if (k + 1 == ndim) break; /* the product of all sizes is no stride */
        acc = sy_env_mul(c->env, acc, sizes[perm[k]]);
        if (!acc) return NULL;
    }
    return st;
}

#define VSPLIT_ATOMS 16 /* > SPLIT_MAX_DEPTH: the answers a path records */

/* How view_strides takes computeStride's decisions. */
typedef struct {
    int dry;        /* facts only: *undecided = 1 and stop at the first question they leave open */
    int *undecided;
    /* a case split (split != NULL, dry too): the facts are *f, a copy of the env's with the
     * answers assumed so far; the k-th open question takes answer bit k of path (assumed into
     * f for the later questions) while k < len, else need = 1 and stop; infeasible = 1 when an
     * assumption contradicts f (no size takes this path) */
    struct vsplit {
        sy_facts *f;
        uint64_t path;
        unsigned len, k;
        int need, infeasible;
        const sy_expr *path_rel; /* the conjunction of the answers assumed so far (NULL: none) */
        const sy_expr *a1[VSPLIT_ATOMS], *a0[VSPLIT_ATOMS]; /* question k's two answers (bit 1, bit 0) */
        const sy_expr *sym[VSPLIT_ATOMS]; /* question k split sym == lo / sym >= lo + 1 (NULL: on itself) */
        int64_t lo[VSPLIT_ATOMS];
    } *split;
} vmode;

/* What the case split splits on when rel is open under f: a symbol of rel whose range still
 * holds one of the sizes 0 and 1 (*sym, split into sym == lo and sym >= lo + 1: the decider
 * is linear, and a product of sizes compares with its factors once each is known to be 0, 1
 * or at least 2), else rel itself (*sym NULL). */
static sy_status split_atom(opcall *c, sy_facts *f, const sy_expr *rel, const sy_expr **sym, int64_t *lo)
{
    *sym = NULL;
    const sy_expr *q = sy_facts_apply(f, rel), **fs = NULL;
    size_t nfs = 0;
    if (!q) return sy_ctx_last_error(c->env->ctx);
    sy_status st = sy_expr_free_symbols(c->env->ctx, q, &fs, &nfs);
    if (st) return st;
    for (size_t i = 0; i < nfs && !*sym && !st; i++) {
        const sy_expr *l = NULL, *h = NULL;
        int64_t lv, hv;
        if ((st = sy_facts_get_range(f, fs[i], &l, &h))) break;
        if (!l || sy_expr_get_si(l, &lv) || lv < 0 || lv > 1) continue; /* not a size that may be 0 or 1 */
        if (h && (sy_expr_get_si(h, &hv) || hv <= lv)) continue;          /* a single value already */
        *sym = fs[i];
        *lo = lv;
    }
    sy_mem_free(c->env->ctx, fs);
    return st;
}

/* a decision under the case split s: the facts' answer, else the path's (see struct vsplit) */
static sy_status split_ask(opcall *c, struct vsplit *s, const sy_expr *rel, int *val, int *stop)
{
    sy_ctx *ctx = c->env->ctx;
    for (;;) {
        int known;
        sy_status st = sy_env_try_decide_in(c->env, s->f, rel, &known, val);
        if (st || known) return st;
        if (s->k >= s->len) {
            s->need = 1;
            *stop = 1;
            return SY_OK;
        }
        const sy_expr *sym, *a;
        int64_t lo = 0;
        if ((st = split_atom(c, s->f, rel, &sym, &lo))) return st;
        unsigned kk = s->k++;
        int bit = (int)(s->path >> kk & 1);
        const sy_expr *a1 = sym ? sy_expr_eq(ctx, sym, sy_expr_int_si(ctx, lo)) : rel;
        const sy_expr *a0 = sym ? sy_expr_ge(ctx, sym, sy_expr_int_si(ctx, lo + 1)) : sy_expr_not(ctx, rel);
        if (kk < VSPLIT_ATOMS) {
            s->a1[kk] = a1;
            s->a0[kk] = a0;
            s->sym[kk] = sym;
            s->lo[kk] = lo;
        }
        a = bit ? a1 : a0;
        if (!a || !(s->path_rel = s->path_rel ? sy_expr_and(ctx, s->path_rel, a) : a)) return sy_ctx_last_error(ctx);
        if ((st = sy_facts_add(s->f, a))) return st;
        if (sy_facts_consistent(s->f) == SY_FALSE) {
            s->infeasible = 1;
            *stop = 1;
            return SY_OK;
        }
        if (!sym) {
            *val = bit;
            return SY_OK;
        }
    }
}

/* one decision of computeStride: dry (facts only) sets *undecided and stops at the first
 * question the facts leave open; split: the case split's answer; else op_decide_bool (a guard
 * if undecided) */
#define DECIDE(rel, reason, val)                                                          \
    do {                                                                                  \
        if (m->split) {                                                                   \
            int stop_ = 0;                                                                \
            if ((st = split_ask(c, m->split, (rel), &(val), &stop_))) return st;          \
            if (stop_) return SY_OK;                                                      \
        } else if (m->dry) {                                                              \
            int known_;                                                                   \
            if ((st = sy_env_try_decide(c->env, (rel), &known_, &(val)))) return st;      \
            if (!known_) {                                                                \
                *m->undecided = 1;                                                        \
                return SY_OK;                                                             \
            }                                                                             \
        } else if ((st = op_decide_bool(c, (rel), (reason), &(val)))) {                   \
            return st;                                                                    \
        }                                                                                 \
    } while (0)

/* computeStride_impl (aten/src/ATen/TensorUtils.cpp): the strides of a view
 * of x with the new shape, or *ok = 0 when the view is impossible (a chunk of
 * x's dims that are contiguous with each other must be covered by whole view
 * dims). Each branch on symbolic sizes is a decision (guard if undecided);
 * m->dry: decisions from the facts alone, *undecided = 1 at the first open one; m->split:
 * one path of a case split (a stop leaves *ok and *out unset: see struct vsplit). */
static sy_status view_strides(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape,
                              const sy_expr *const **out, int *ok, const vmode *m)
{
    sy_ctx *ctx = c->env->ctx;
    *out = NULL;
    *ok = 1;
    const sy_expr *const *xs;
    sy_status st = op_strides(c, x, &xs); /* a deferred source: its decisions first */
    if (st) return st;
    if (!xs) {
        *ok = 0;
        return op_err(c, SY_EUNSUPPORTED, "the strides of the input are not modelled (it was produced from a non-contiguous tensor by an op whose output layout symshape does not compute); insert .contiguous() or use .reshape(...)");
    }
    sy_tensor xv = *x; /* x with its strides (decided) */
    xv.strides = xs;
    const sy_expr **ns = sy_env_alloc(c->env, (n ? n : 1) * sizeof *ns);
    if (!ns) return sy_ctx_last_error(ctx);
    if (x->ndim == 0) {
        for (size_t i = 0; i < n; i++) ns[i] = KI(c, 1);
        *out = ns;
        return SY_OK;
    }
    if (sy_tensor_is_contiguous(c->env, &xv)) { /* one chunk: always viewable, contiguous result */
        const sy_tensor *t = sy_tensor_new(c->env, x->dtype, n, shape);
        if (!t) return sy_ctx_last_error(ctx);
        *out = t->strides;
        return SY_OK;
    }
    const sy_expr *numel = KI(c, 1);
    for (size_t i = 0; i < x->ndim && numel; i++) numel = sy_expr_mul(ctx, numel, x->sizes[i]);
    int empty;
    DECIDE(sy_expr_eq(ctx, numel, KI(c, 0)), "view: is the tensor empty?", empty);
    if (empty) {
        int same = n == x->ndim;
        for (size_t i = 0; same && i < n; i++) {
            int eq;
            DECIDE(sy_expr_eq(ctx, shape[i], x->sizes[i]), "view: same shape?", eq);
            same = eq;
        }
        if (same) {
            *out = xs;
            return SY_OK;
        }
        for (size_t v = n; v-- > 0;)
            ns[v] = v == n - 1 ? KI(c, 1) : sy_expr_mul(ctx, sy_expr_max(ctx, shape[v + 1], KI(c, 1)), ns[v + 1]);
        *out = ns;
        return SY_OK;
    }
    long view_d = (long)n - 1;
    const sy_expr *chunk_base = xs[x->ndim - 1], *tensor_numel = KI(c, 1), *view_numel = KI(c, 1);
    for (size_t td = x->ndim; td-- > 0;) {
        tensor_numel = sy_expr_mul(ctx, tensor_numel, x->sizes[td]);
        int end = td == 0;
        if (!end) {
            int one = 0, brk, joined;
            /* the dims join when size(td-1) == 1 or its stride continues the chunk: a stride the
             * facts already prove continuous makes the size-1 question moot (no guard on it) */
            if ((st = op_known_true(c, sy_expr_eq(ctx, xs[td - 1], sy_expr_mul(ctx, tensor_numel, chunk_base)), &joined)))
                return st;
            if (!joined) DECIDE(sy_expr_eq(ctx, x->sizes[td - 1], KI(c, 1)), "view: is the size 1?", one);
            if (!joined && !one) {
                DECIDE(sy_expr_ne(ctx, xs[td - 1], sy_expr_mul(ctx, tensor_numel, chunk_base)),
                       "view: does a contiguous chunk of dims end here?", brk);
                end = brk;
            }
        }
        if (!end) continue;
        while (view_d >= 0) {
            int lt, one = 0;
            DECIDE(sy_expr_lt(ctx, view_numel, tensor_numel), "view: does the chunk need another view dim?", lt);
            if (!lt) DECIDE(sy_expr_eq(ctx, shape[view_d], KI(c, 1)), "view: is the size 1?", one);
            if (!lt && !one) break;
            ns[view_d] = sy_expr_mul(ctx, view_numel, chunk_base);
            view_numel = sy_expr_mul(ctx, view_numel, shape[view_d]);
            view_d--;
        }
        int ne;
        DECIDE(sy_expr_ne(ctx, view_numel, tensor_numel), "view: do the view dims cover the chunk exactly?", ne);
        if (ne) {
            *ok = 0;
            return SY_OK;
        }
        if (td > 0) {
            chunk_base = xs[td - 1];
            tensor_numel = KI(c, 1);
            view_numel = KI(c, 1);
        }
    }
    if (view_d != -1) {
        *ok = 0;
        return SY_OK;
    }
    for (size_t i = 0; i < n; i++)
        if (!ns[i]) return sy_ctx_last_error(ctx);
    *out = ns;
    return SY_OK;
}
#undef DECIDE

static sy_status defer_add(sy_env *env, const struct sy_env_defer *rec);

/* deciding a deferred tensor's strides replays at most this many ops (the weight of a result
 * is 1 + its deferred inputs' weights): a heavier one is decided when it is made */
#define DEFER_MAX_WEIGHT 32

/* the case split's bounds: the paths run (each from the start, on a copy of the facts) and the
 * open questions on one path; beyond them the view is decided at the example (guards) */
#define SPLIT_MAX_RUNS 64
#define SPLIT_MAX_DEPTH 12

/* one open path of a case split: the answers taken so far (bit k: question k's branch), and their
 * number; a path with an open question continues as its two children */
typedef struct {
    uint64_t path;
    unsigned len;
} split_path;

static void split_children(split_path *stack, size_t *sp, uint64_t path, unsigned len)
{
    stack[(*sp)++] = (split_path){path, len + 1};
    stack[(*sp)++] = (split_path){path | (uint64_t)1 << len, len + 1};
}

/* The leaves of a case split: path, length, outcome (1 viewable, 0 not, -1 no size) and the
 * answers of its questions. */
typedef struct {
    uint64_t path;
    unsigned len;
    int res;
    const sy_expr *a1[VSPLIT_ATOMS], *a0[VSPLIT_ATOMS];
} vleaf;

#define VCOND_ANY ((const sy_expr *)&vleaf_any) /* no size: either answer */
static const int vleaf_any = 0;

/* The condition of success below the node (prefix, depth) of the split tree: a leaf's
 * outcome, else a1 ? C1 : C0 over its question, written Or(And(a1, C1), And(a0, C0)) and
 * collapsed where both sides agree (or one has no size: the facts rule it out), so the
 * sizes split apart only where the outcome differs (issue 32: the four cases of
 * x.chunk(2, -1)[0].view(B, -1) are T <= 1 after the collapse). NULL: an error. */
static const sy_expr *vcond(sy_ctx *ctx, const vleaf *lv, size_t n, uint64_t prefix, unsigned depth)
{
    uint64_t mask = depth >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << depth) - 1;
    const vleaf *under = NULL;
    for (size_t i = 0; i < n; i++) {
        if ((lv[i].path & mask) != prefix || lv[i].len < depth) continue;
        if (lv[i].len == depth) return lv[i].res < 0 ? VCOND_ANY : sy_expr_bool(ctx, lv[i].res);
        under = &lv[i];
    }
    if (!under || depth >= VSPLIT_ATOMS) return VCOND_ANY; /* no path below (not expected) */
    const sy_expr *c0 = vcond(ctx, lv, n, prefix, depth + 1), *c1 = vcond(ctx, lv, n, prefix | (uint64_t)1 << depth, depth + 1);
    if (!c0 || !c1) return NULL;
    if (c0 == VCOND_ANY) return c1;
    if (c1 == VCOND_ANY || c0 == c1) return c0;
    return sy_expr_or(ctx, sy_expr_and(ctx, under->a1[depth], c1), sy_expr_and(ctx, under->a0[depth], c0));
}

/* *always = 1 when computeStride succeeds at every size the facts allow: each question the
 * facts leave open splits the sizes in two, both answers are followed, each assumed while
 * the later questions are decided (a path whose assumptions contradict the facts has no
 * size). When it fails on some path, *where is the exact condition of success: the
 * disjunction of the successful paths' assumptions (NULL: none succeeds). Bounded: more than
 * SPLIT_MAX_RUNS paths or SPLIT_MAX_DEPTH open questions on one, or a budget hit (SY_EQUOTA)
 * of the decider, answer *always = 0 and *exact = 0. x's strides are known. */
static sy_status view_always(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape, int *always,
                             int *exact, const sy_expr **where, const sy_tensor *pre)
{
    int fails = 0;
    *exact = 0;
    *where = NULL;
    split_path stack[SPLIT_MAX_DEPTH + 2];
    size_t sp = 0, runs = 0, nl = 0;
    vleaf leaves[SPLIT_MAX_RUNS];
    *always = 0;
    stack[sp++] = (split_path){0, 0};
    while (sp) {
        sp--;
        if (++runs > SPLIT_MAX_RUNS) return SY_OK;
        struct vsplit s = {.f = sy_facts_copy(c->env->facts), .path = stack[sp].path, .len = stack[sp].len};
        if (!s.f) return sy_ctx_last_error(c->env->ctx);
        vmode m = {1, NULL, &s};
        const sy_expr *const *ns = NULL;
        int ok = 1;
        sy_status st = SY_OK;
        sy_tensor xv = *x;
        if (pre) { /* x is a deferred view of pre: its strides on this path first, the same questions split */
            const sy_expr *const *ps = NULL;
            st = view_strides(c, pre, x->ndim, x->sizes, &ps, &ok, &m);
            if (!st && !s.need && !s.infeasible && !ok) st = SY_EUNSUPPORTED; /* proved viewable when deferred: not expected */
            xv.strides = ps;
        }
        if (!st && !s.need && !s.infeasible) st = view_strides(c, &xv, n, shape, &ns, &ok, &m);
        sy_facts_free(s.f);
        if (pre && st == SY_EUNSUPPORTED) { /* decide at the example instead */
            sy_ctx_reset_error(c->env->ctx);
            return SY_OK;
        }
        if (st == SY_EQUOTA) { /* the decider's budget: decide at the example instead */
            sy_ctx_reset_error(c->env->ctx);
            return SY_OK;
        }
        if (st) return st;
        if (!s.need) { /* a leaf: its outcome and answers, for the condition (vcond) */
            leaves[nl].path = s.path;
            leaves[nl].len = s.len;
            leaves[nl].res = s.infeasible ? -1 : ok;
            memcpy(leaves[nl].a1, s.a1, sizeof s.a1);
            memcpy(leaves[nl++].a0, s.a0, sizeof s.a0);
        }
        if (s.infeasible) continue;
        if (s.need) {
            if (s.len >= SPLIT_MAX_DEPTH) return SY_OK;
            split_children(stack, &sp, s.path, s.len);
            continue;
        }
        if (!ok) {
            fails = 1; /* some sizes cannot take the view */
            continue;
        }
        if (!s.path_rel) { /* viewable without an assumption: every size */
            *where = NULL;
            fails = 0;
            break;
        }
        if (!(*where = *where ? sy_expr_or(c->env->ctx, *where, s.path_rel) : s.path_rel)) return sy_ctx_last_error(c->env->ctx);
    }
    *always = !fails;
    *exact = 1;
    if (fails && *where) { /* the same condition, collapsed along the split tree */
        const sy_expr *w = vcond(c->env->ctx, leaves, nl, 0, 0);
        if (!w) return sy_ctx_last_error(c->env->ctx);
        if (w != VCOND_ANY && sy_expr_kind_of(w) != SY_EXPR_FALSE && sy_expr_kind_of(w) != SY_EXPR_TRUE) *where = w;
    }
    return SY_OK;
}

/* ------------------------------------------------------------------ TensorIterator's output layout
 *
 * aten/src/ATen/TensorIterator.cpp (1.13 and 2.x alike), for an output TensorIterator allocates:
 *  - compute_shape: all_ops_same_shape_ is false when two operands' shapes differ, or when a
 *    0-dim operand (a Python scalar is one: wrapped_scalar_tensor) meets one that is not;
 *  - fast_set_up / compute_fast_setup_type, only when all shapes are the same: every operand
 *    is_contiguous() -> an empty contiguous output (empty_tensor_restride: Max(size, 1)
 *    products); every one is_contiguous(ChannelsLast) (4-D; channels_last_3d has no fast path)
 *    -> empty channels_last (get_channels_last_strides_2d: plain products); every one
 *    is_non_overlapping_and_dense() with the same strides -> those strides;
 *  - else compute_strides (a dim of size 1 broadcast to another size has stride 0),
 *    reorder_dimensions (insertion sort of the dims by should_swap: the first operand whose
 *    strides of the two dims are both nonzero and differ decides; equal nonzero strides swap
 *    when the first dim's size is larger, else the next operand decides; no operand: keep
 *    going left), allocate_or_resize_outputs: the inverted permutation (row-major) gives an
 *    empty contiguous output, any other compatible_stride (dense in that order, plain sizes).
 * So randn(0, 1, 6) * 2 has strides (6, 0, 1): the scalar makes the shapes differ, and the
 * tie of dims 0 and 1 (both stride 6) puts the size-1 dim after the size-0 one.
 *
 * Each branch on sizes is a question (ti_ask): decided by the facts, or, when they leave one
 * open, every answer is followed (the view's case split, split_ask) and the strides of the
 * paths are joined into one expression per dim, each path's difference to the most common
 * result times the indicator of its answers (ti_ind): exact at every size, no guard. */

typedef struct {
    struct vsplit *s; /* NULL: the facts f alone */
    sy_facts *f;
    int stop, undecided;
    int preserve; /* empty_like(preserve_format) of the one operand, not TensorIterator */
} tiask;

static sy_status ti_ask(opcall *c, tiask *m, const sy_expr *rel, int *val)
{
    *val = 0;
    if (!rel) return sy_ctx_last_error(c->env->ctx);
    if (m->s) return split_ask(c, m->s, rel, val, &m->stop);
    int known = 0;
    sy_status st = sy_env_try_decide_in(c->env, m->f, rel, &known, val);
    if (!st && !known) m->undecided = m->stop = 1;
    return st;
}

#define TIQ(rel, val)                                 \
    do {                                              \
        if ((st = ti_ask(c, m, (rel), &(val)))) return st; \
        if (m->stop) return SY_OK;                    \
    } while (0)

/* c10/core/TensorImpl.cpp compute_non_overlapping_and_dense: the dims of size >= 2 sorted by
 * stride must be dense (sizes < 2 sorted last, and the walk stops at the first) */
static sy_status ti_dense(opcall *c, tiask *m, const sy_tensor *t, int *dense)
{
    sy_ctx *ctx = c->env->ctx;
    sy_status st;
    size_t n = t->ndim;
    *dense = 1;
    if (n == 0) return SY_OK;
    int *big = sy_env_alloc(c->env, n * sizeof *big);
    size_t *ord = sy_env_alloc(c->env, n * sizeof *ord);
    if (!big || !ord) return sy_ctx_last_error(ctx);
    for (size_t i = 0; i < n; i++) {
        TIQ(sy_expr_ge(ctx, t->sizes[i], KI(c, 2)), big[i]);
        ord[i] = i;
    }
    if (n == 1) {
        if (big[0]) TIQ(sy_expr_eq(ctx, t->strides[0], KI(c, 1)), *dense);
        return SY_OK;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: big dims first, by stride */
        for (size_t j = i; j > 0; j--) {
            size_t a = ord[j - 1], b = ord[j];
            int before = 0;
            if (!big[a]) before = big[b];
            else if (big[b]) TIQ(sy_expr_lt(ctx, t->strides[b], t->strides[a]), before);
            if (!before) break;
            ord[j - 1] = b;
            ord[j] = a;
        }
    const sy_expr *req = KI(c, 1);
    for (size_t k = 0; k < n && big[ord[k]]; k++) {
        int eq;
        TIQ(sy_expr_eq(ctx, t->strides[ord[k]], req), eq);
        if (!eq) {
            *dense = 0;
            return SY_OK;
        }
        if (!(req = sy_env_mul(c->env, req, t->sizes[ord[k]]))) return sy_ctx_last_error(ctx);
    }
    return SY_OK;
}

/* the output strides on one path (m): *out NULL when m stopped */
static sy_status ti_path(opcall *c, tiask *m, size_t nops, const sy_tensor *const *ops, size_t ndim,
                         const sy_expr *const *sizes, const sy_expr *const **out)
{
    sy_ctx *ctx = c->env->ctx;
    sy_status st;
    *out = NULL;
    if (m->preserve) {
        /* empty_like: a non-overlapping and dense input's own strides (TensorImpl
         * is_non_overlapping_and_dense_: is_contiguous_, true at numel 0, or compute_non_overlapping_and_dense),
         * else infer_dense_strides */
        int dense;
        TIQ(sy_layout_is_contiguous(c, ops[0], 'c'), dense);
        if (!dense && ((st = ti_dense(c, m, ops[0], &dense)) || m->stop)) return st;
        if (dense) {
            *out = ops[0]->strides;
            return SY_OK;
        }
    }
    /* compute_shape: a 0-dim operand (NULL: a Python scalar) beside a tensor with dims, or two
     * shapes that differ, leave the fast setup out */
    int same = 1, ntens = 0;
    for (size_t k = 0; k < nops && same; k++) {
        const sy_tensor *t = ops[k];
        if (!t || t->ndim != ndim) {
            same = ndim == 0 && (!t || t->ndim == 0);
            continue;
        }
        ntens++;
        for (size_t i = 0; i < ndim && same; i++)
            if (t->sizes[i] != sizes[i]) TIQ(sy_expr_eq(ctx, t->sizes[i], sizes[i]), same);
    }
    if (same && ntens && !m->preserve) { /* compute_fast_setup_type */
        int all = 1, v;
        for (size_t k = 0; k < nops && all; k++)
            if (ops[k] && !sy_tensor_is_contiguous(c->env, ops[k])) {
                TIQ(sy_layout_is_contiguous(c, ops[k], 'c'), v);
                all = v;
            }
        if (all) {
            if (!(*out = sy_env_contig_strides(c->env, ndim, sizes, false))) return sy_ctx_last_error(ctx);
            return SY_OK;
        }
        all = ndim == 4;
        for (size_t k = 0; k < nops && all; k++) {
            TIQ(sy_layout_is_contiguous(c, ops[k], '4'), v);
            all = v;
        }
        if (all) {
            if (!(*out = sy_layout_dense_strides(c, ndim, sizes, '4'))) return sy_ctx_last_error(ctx);
            return SY_OK;
        }
        const sy_tensor *last = ops[nops - 1]; /* every operand dense, with the last one's strides */
        int eqst = 1;
        for (size_t k = 0; k + 1 < nops && eqst; k++)
            for (size_t i = 0; i < ndim && eqst; i++)
                if (ops[k]->strides[i] != last->strides[i]) TIQ(sy_expr_eq(ctx, ops[k]->strides[i], last->strides[i]), eqst);
        if (eqst) {
            int dense;
            if ((st = ti_dense(c, m, last, &dense)) || m->stop) return st;
            if (dense) {
                *out = last->strides;
                return SY_OK;
            }
        }
    }
    size_t *perm = sy_env_alloc(c->env, (ndim ? ndim : 1) * sizeof *perm);
    if (!perm) return sy_ctx_last_error(ctx);
    for (size_t k = 0; k < ndim; k++) perm[k] = ndim - 1 - k;
    if (ndim > 1) {
        /* compute_strides: per operand, the stride of each output dim (0 where broadcast) */
        const sy_expr ***ts = sy_env_alloc(c->env, (nops ? nops : 1) * sizeof *ts);
        if (!ts) return sy_ctx_last_error(ctx);
        for (size_t k = 0; k < nops; k++) {
            ts[k] = NULL;
            const sy_tensor *t = ops[k];
            if (!t || !t->ndim) continue; /* a 0-dim operand: every stride 0, never decides */
            const sy_expr **s = sy_env_alloc(c->env, ndim * sizeof *s);
            if (!s) return sy_ctx_last_error(ctx);
            for (size_t i = 0; i < ndim; i++) {
                if (i < ndim - t->ndim) {
                    s[i] = KI(c, 0);
                    continue;
                }
                size_t j = i - (ndim - t->ndim);
                s[i] = t->strides[j];
                if (t->sizes[j] != sizes[i]) { /* broadcast: original size 1, output size not 1 */
                    int one = 0, oone = 0;
                    TIQ(sy_expr_eq(ctx, t->sizes[j], KI(c, 1)), one);
                    if (one) TIQ(sy_expr_eq(ctx, sizes[i], KI(c, 1)), oone);
                    if (one && !oone) s[i] = KI(c, 0);
                }
            }
            ts[k] = s;
        }
        /* reorder_dimensions' insertion sort with should_swap */
        for (size_t i = 1; i < ndim; i++) {
            size_t dim1 = i;
            for (size_t dim0 = i; dim0-- > 0;) {
                int cmp = 0;
                size_t a = perm[dim0], b = perm[dim1];
                for (size_t k = 0; k < nops && !cmp; k++) {
                    if (!ts[k]) continue;
                    int z0 = 0, z1 = 0, lt = 0, gt = 0;
                    TIQ(sy_expr_eq(ctx, ts[k][a], KI(c, 0)), z0);
                    if (z0) continue;
                    TIQ(sy_expr_eq(ctx, ts[k][b], KI(c, 0)), z1);
                    if (z1) continue;
                    TIQ(sy_expr_lt(ctx, ts[k][a], ts[k][b]), lt);
                    if (lt) {
                        cmp = -1;
                        break;
                    }
                    TIQ(sy_expr_gt(ctx, ts[k][a], ts[k][b]), gt);
                    if (gt) {
                        cmp = 1;
                        break;
                    }
                    /* equal strides: the dim of the larger size goes later, else the next operand decides */
                    TIQ(sy_expr_gt(ctx, sizes[a], sizes[b]), gt);
                    if (gt) cmp = 1;
                }
                if (cmp > 0) {
                    size_t tmp = perm[dim0];
                    perm[dim0] = perm[dim1];
                    perm[dim1] = tmp;
                    dim1 = dim0;
                } else if (cmp < 0) {
                    break;
                }
            }
        }
    }
    if (m->preserve) { /* infer_dense_strides: the products of Max(size, 1) in that order */
        const sy_expr **r = sy_env_alloc(c->env, (ndim ? ndim : 1) * sizeof *r), *acc = KI(c, 1);
        if (!r) return sy_ctx_last_error(ctx);
        for (size_t k = 0; k < ndim && acc; k++) {
            r[perm[k]] = acc;
            acc = sy_env_mul(c->env, acc, sy_expr_max(ctx, sizes[perm[k]], KI(c, 1)));
        }
        if (!acc) return sy_ctx_last_error(ctx);
        *out = r;
        return SY_OK;
    }
    if (!(*out = dense_strides(c, ndim, sizes, perm))) return sy_ctx_last_error(ctx);
    return SY_OK;
}
#undef TIQ

/* the indicator (1 on the path's sizes, 0 elsewhere) of the first len answers of split s:
 * sym == lo is Max(0, 1 + lo - sym), sym >= lo + 1 is Min(1, sym - lo), exact where
 * sym >= lo (its range when asked, under the earlier answers; elsewhere an earlier factor
 * is 0). NULL with *open = 1: an answer on a relation itself (no size to split), not joined. */
static const sy_expr *ti_ind(sy_ctx *ctx, const struct vsplit *s, int *open)
{
    const sy_expr *ind = sy_expr_int_si(ctx, 1);
    *open = 0;
    for (unsigned k = 0; k < s->len && ind; k++) {
        if (k >= VSPLIT_ATOMS || !s->sym[k]) {
            *open = 1;
            return NULL;
        }
        const sy_expr *lo = sy_expr_int_si(ctx, s->lo[k]), *f;
        if (s->path >> k & 1)
            f = sy_expr_max(ctx, sy_expr_int_si(ctx, 0), sy_expr_sub(ctx, sy_expr_add(ctx, sy_expr_int_si(ctx, 1), lo), s->sym[k]));
        else
            f = sy_expr_min(ctx, sy_expr_int_si(ctx, 1), sy_expr_sub(ctx, s->sym[k], lo));
        ind = f ? sy_expr_mul(ctx, ind, f) : NULL;
    }
    return ind;
}


/* The symbols whose range the facts hold only as the example's hint: backed and untouched (no
 * decision relied on them, so the guard set checks no range of theirs and takes sizes 0 and 1
 * under 0/1 specialization too, shapeenv.md section 7). The layout is computed on a shadow of
 * each (a symbol of range [0, oo)) and the shadows put back: exact at every size, no symbol
 * touched, no guard. */
typedef struct {
    size_t n, cap;
    const sy_expr **from, **to;
} tishadow;

static sy_status ti_collect(opcall *c, tishadow *sh, const sy_expr *e)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_expr **fs = NULL;
    size_t nfs = 0;
    sy_status st = sy_expr_free_symbols(ctx, e, &fs, &nfs);
    for (size_t i = 0; i < nfs && !st; i++) {
        const sy_symbol_info *inf = sy_env_symbol_of(c->env, fs[i]);
        if (!inf || inf->unbacked || sy_env_symbol_touched(c->env, fs[i])) continue;
        size_t j = 0;
        while (j < sh->n && sh->from[j] != fs[i]) j++;
        if (j < sh->n) continue;
        if (sh->n == sh->cap) {
            size_t nc = sh->cap ? 2 * sh->cap : 8;
            const sy_expr **nf = sy_env_alloc(c->env, nc * sizeof *nf), **nt = sy_env_alloc(c->env, nc * sizeof *nt);
            if (!nf || !nt) {
                st = sy_ctx_last_error(ctx);
                break;
            }
            if (sh->n) {
                memcpy(nf, sh->from, sh->n * sizeof *nf);
                memcpy(nt, sh->to, sh->n * sizeof *nt);
            }
            sh->from = nf;
            sh->to = nt;
            sh->cap = nc;
        }
        char name[160];
        snprintf(name, sizeof name, "ti_shadow_%.120s", sy_expr_sym_name(fs[i]));
        if (!(sh->to[sh->n] = sy_expr_sym(ctx, name))) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        sh->from[sh->n++] = fs[i];
    }
    sy_mem_free(ctx, fs);
    return st;
}

/* e with the substitution from -> to (n of them); NULL on error */
static const sy_expr *const *ti_subs(opcall *c, size_t len, const sy_expr *const *e, size_t n, const sy_expr *const *from,
                                     const sy_expr *const *to)
{
    const sy_expr **r = sy_env_alloc(c->env, (len ? len : 1) * sizeof *r);
    if (!r) return NULL;
    for (size_t i = 0; i < len; i++)
        if (!(r[i] = sy_expr_subs(c->env->ctx, e[i], n, from, to))) return NULL;
    return r;
}

#define TI_MAX_LEAVES SPLIT_MAX_RUNS

static sy_status ti_exact(opcall *c, int preserve, sy_facts *base, size_t nops, const sy_tensor *const *ops,
                          size_t ndim, const sy_expr *const *sizes, const sy_expr *const **out);
static sy_status ti_shadowed(opcall *c, int preserve, const tishadow *sh, size_t nops, const sy_tensor *const *ops,
                             size_t ndim, const sy_expr *const *sizes, const sy_expr *const **out);

/* TensorIterator's output strides for the operands (tensors; NULL entries are Python scalars,
 * 0-dim operands). *out NULL: not modelled (an operand's layout is unknown, or the case split
 * went past its bounds or met a question on a relation of sizes that are all >= 2). */
static sy_status ti_strides(opcall *c, int preserve, size_t nops, const sy_tensor *const *ops, size_t ndim,
                           const sy_expr *const *sizes, const sy_expr *const **out)
{
    sy_ctx *ctx = c->env->ctx;
    *out = NULL;
    int same = 1, contig = 1;
    for (size_t k = 0; k < nops; k++) {
        if (ops[k] && !ops[k]->strides) return SY_OK; /* an operand's layout is unknown: so is the output's */
        if (ops[k] && !sy_tensor_is_contiguous(c->env, ops[k])) contig = 0;
        if (!ops[k] || ops[k]->ndim != ndim || (ndim && memcmp(ops[k]->sizes, sizes, ndim * sizeof *sizes))) same = 0;
    }
    same = same && contig;
    if (same || ndim == 0) { /* the fast setup, contiguous, at every size (empty_like: its own, dense) */
        if (!(*out = preserve ? ops[0]->strides : sy_env_contig_strides(c->env, ndim, sizes, false))) return sy_ctx_last_error(ctx);
        return SY_OK;
    }
    tishadow sh = {0, 0, NULL, NULL};
    sy_status st = SY_OK;
    for (size_t k = 0; k < nops && !st; k++)
        for (size_t i = 0; ops[k] && i < ops[k]->ndim && !st; i++)
            if (!(st = ti_collect(c, &sh, ops[k]->sizes[i]))) st = ti_collect(c, &sh, ops[k]->strides[i]);
    for (size_t i = 0; i < ndim && !st; i++) st = ti_collect(c, &sh, sizes[i]);
    if (st) return st;
    if (!sh.n) st = ti_exact(c, preserve, c->env->facts, nops, ops, ndim, sizes, out);
    else if (!contig) st = ti_shadowed(c, preserve, &sh, nops, ops, ndim, sizes, out);
    if (st || *out) return st;
    if (contig) {
        /* every operand contiguous (Max(size, 1) strides, broadcast dims 0): should_swap never
         * swaps two dims unless their strides tie with the later dim of size 1 and the earlier of
         * size 0, so the order is row-major wherever the output has elements, and the output is
         * contiguous there. Where it has none and the facts leave the sizes 0 and 1 open only by
         * a hint (the default policy: untouched symbols), or the case split is past its bounds,
         * the contiguous strides are kept as before: the known gap of docs/ops.md section 8 (a
         * stride read of an empty result with a size-1 dim), not a guard on every x * 2. */
        if (!(*out = sy_env_contig_strides(c->env, ndim, sizes, false))) return sy_ctx_last_error(ctx);
        return SY_OK;
    }
    /* past the case split's bounds: decided by the facts, the hint ranges included, and the
     * symbols relied upon touched (their ranges guarded), as a view decides */
    tiask dry = {NULL, c->env->facts, 0, 0, preserve};
    if ((st = ti_path(c, &dry, nops, ops, ndim, sizes, out))) return st;
    if (dry.undecided) *out = NULL;
    return SY_OK;
}

static sy_status ti_shadowed(opcall *c, int preserve, const tishadow *sh0, size_t nops, const sy_tensor *const *ops,
                             size_t ndim, const sy_expr *const *sizes, const sy_expr *const **out)
{
    sy_ctx *ctx = c->env->ctx;
    tishadow sh = *sh0;
    sy_status st = SY_OK;
    const sy_tensor **sops = sy_env_alloc(c->env, (nops ? nops : 1) * sizeof *sops);
    const sy_expr *const *ssz = ti_subs(c, ndim, sizes, sh.n, sh.from, sh.to);
    if (!sops || !ssz) return sy_ctx_last_error(ctx);
    for (size_t k = 0; k < nops; k++) {
        sops[k] = NULL;
        if (!ops[k]) continue;
        sy_tensor *t = sy_env_alloc(c->env, sizeof *t);
        if (!t) return sy_ctx_last_error(ctx);
        *t = *ops[k];
        if (!(t->sizes = ti_subs(c, t->ndim, ops[k]->sizes, sh.n, sh.from, sh.to)) ||
            !(t->strides = ti_subs(c, t->ndim, ops[k]->strides, sh.n, sh.from, sh.to)))
            return sy_ctx_last_error(ctx);
        sops[k] = t;
    }
    sy_facts *f = sy_facts_copy(c->env->facts);
    if (!f) return sy_ctx_last_error(ctx);
    for (size_t j = 0; j < sh.n && !st; j++) st = sy_facts_set_range(f, sh.to[j], KI(c, 0), NULL);
    const sy_expr *const *r = NULL;
    if (!st) st = ti_exact(c, preserve, f, nops, sops, ndim, ssz, &r);
    sy_facts_free(f);
    if (st || !r) return st;
    if (!(*out = ti_subs(c, ndim, r, sh.n, sh.to, sh.from))) return sy_ctx_last_error(ctx);
    return SY_OK;
}

sy_status op_ti_strides(opcall *c, size_t nops, const sy_tensor *const *ops, size_t ndim, const sy_expr *const *sizes,
                        const sy_expr *const **out)
{
    return ti_strides(c, 0, nops, ops, ndim, sizes, out);
}

/* aten/src/ATen/native/TensorFactories.cpp empty_like with MemoryFormat::Preserve (clone, and
 * to / _to_copy, which follow the same three branches): a non-overlapping and dense input's own
 * strides; else ExpandUtils.cpp infer_dense_strides: the dims sorted as TensorIterator's
 * should_swap with one operand (a stride 0 is ambiguous), dense in that order with a size 0
 * taken as 1 */
sy_status op_preserve_strides(opcall *c, const sy_tensor *x, const sy_expr *const **out)
{
    return ti_strides(c, 1, 1, &x, x->ndim, x->sizes, out);
}

/* the strides of ti_path under the facts base: decided, or joined over a case split */
static sy_status ti_exact(opcall *c, int preserve, sy_facts *base, size_t nops, const sy_tensor *const *ops,
                          size_t ndim, const sy_expr *const *sizes, const sy_expr *const **out)
{
    sy_ctx *ctx = c->env->ctx;
    *out = NULL;
    tiask dry = {NULL, base, 0, 0, preserve};
    sy_status st = ti_path(c, &dry, nops, ops, ndim, sizes, out);
    if (st || !dry.undecided) return st;
    *out = NULL;
    split_path stack[SPLIT_MAX_DEPTH + 2];
    struct {
        const sy_expr *const *st, *ind;
        size_t votes;
    } leaf[TI_MAX_LEAVES];
    size_t sp = 0, runs = 0, nl = 0;
    stack[sp++] = (split_path){0, 0};
    while (sp) {
        sp--;
        if (++runs > SPLIT_MAX_RUNS) return SY_OK;
        struct vsplit s = {.f = sy_facts_copy(base), .path = stack[sp].path, .len = stack[sp].len};
        if (!s.f) return sy_ctx_last_error(ctx);
        tiask m = {&s, NULL, 0, 0, preserve};
        const sy_expr *const *r = NULL;
        st = ti_path(c, &m, nops, ops, ndim, sizes, &r);
        sy_facts_free(s.f);
        if (st == SY_EQUOTA) { /* the decider's budget: not modelled */
            sy_ctx_reset_error(ctx);
            return SY_OK;
        }
        if (st) return st;
        if (s.infeasible) continue;
        if (s.need) {
            if (s.len >= SPLIT_MAX_DEPTH) return SY_OK;
            split_children(stack, &sp, s.path, s.len);
            continue;
        }
        int open = 0;
        const sy_expr *ind = ti_ind(ctx, &s, &open);
        if (open) return SY_OK;
        if (!ind || !r) return sy_ctx_last_error(ctx);
        leaf[nl].st = r;
        leaf[nl].ind = ind;
        leaf[nl++].votes = 0;
    }
    if (!nl) return SY_OK; /* no size (not expected: the facts hold at the example) */
    size_t best = 0;
    for (size_t i = 0; i < nl; i++) {
        for (size_t j = 0; j < nl; j++)
            if (leaf[j].st == leaf[i].st || !memcmp(leaf[j].st, leaf[i].st, ndim * sizeof *leaf[i].st)) leaf[i].votes++;
        if (leaf[i].votes > leaf[best].votes) best = i;
    }
    if (leaf[best].votes == nl) {
        *out = leaf[best].st;
        return SY_OK;
    }
    const sy_expr **res = sy_env_alloc(c->env, (ndim ? ndim : 1) * sizeof *res);
    if (!res) return sy_ctx_last_error(ctx);
    for (size_t d = 0; d < ndim; d++) {
        const sy_expr *e = leaf[best].st[d];
        for (size_t i = 0; i < nl && e; i++)
            if (leaf[i].st[d] != leaf[best].st[d])
                e = sy_expr_add(ctx, e, sy_expr_mul(ctx, leaf[i].ind, sy_expr_sub(ctx, leaf[i].st[d], leaf[best].st[d])));
        if (!(res[d] = e)) return sy_ctx_last_error(ctx);
    }
    *out = res;
    return SY_OK;
}

static sy_status defer_replay(opcall *c, const sy_tensor *t, unsigned w, size_t item);
static const struct sy_env_defer *defer_find(const sy_env *env, const sy_tensor *t);

sy_status op_view_result(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape, int *ok)
{
    sy_env *env = c->env;
    const sy_expr *const *xs, *const *ns = NULL;
    sy_status st;
    const struct sy_env_defer *xd = defer_find(env, x);
    if (xd && xd->src && xd->view && xd->weight < DEFER_MAX_WEIGHT && c->out) {
        /* x is a view (proved possible at every size) whose strides are deferred: split the questions
         * of both views together; when this view too is possible on every path, its result is
         * deferred in turn (replayed on x decided when observed), and nothing is decided here
         * (relax38: y = x.transpose(1, 2).unflatten(1, (3, 4)); y.view(B, 12, T) decided the
         * unflatten's questions at the example, 2 <= B and 2 <= T, though both views run at every size) */
        int always = 0, exact = 0;
        const sy_expr *where = NULL;
        if ((st = view_always(c, x, n, shape, &always, &exact, &where, xd->src))) return st;
        if (always) {
            const sy_tensor *t = op_new_strided(c, x->dtype, n, shape, NULL);
            if (!t) return sy_ctx_last_error(env->ctx);
            if ((st = defer_replay(c, t, xd->weight, SIZE_MAX))) return st;
            *ok = 1;
            *c->out = sy_value_tensor(t);
            return SY_OK;
        }
    }
    st = op_strides(c, x, &xs); /* a deferred source: its decisions first */
    if (st) return st;
    vmode decide = {0, NULL, NULL};
    if (!xs) return view_strides(c, x, n, shape, &ns, ok, &decide); /* the error */
    sy_tensor xv = *x;
    xv.strides = xs;
    int undecided = 0, always = 0, exact = 0;
    const sy_expr *where = NULL;
    vmode dry = {1, &undecided, NULL};
    if ((st = view_strides(c, &xv, n, shape, &ns, ok, &dry))) return st;
    if (undecided && (st = view_always(c, &xv, n, shape, &always, &exact, &where, NULL))) return st;
    if (exact && !always) { /* possible exactly where: the model's own condition (PyTorch's error elsewhere) */
        *ok = 0;
        if (!where) return SY_OK;
        if ((st = op_require(c, where, "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")))
            return st;
        always = 1; /* now a fact: possible at every size the facts allow */
    }
    if (always) { /* possible at every size: only the strides depend on the open questions */
        const sy_tensor *src = sy_tensor_new_strided(env, x->dtype, x->ndim, x->sizes, xs);
        const sy_tensor *t = src ? op_new_strided(c, x->dtype, n, shape, NULL) : NULL;
        if (!t) return sy_ctx_last_error(env->ctx);
        const char *node = c->where && c->where->node ? sy_env_strdup(env, c->where->node) : NULL, *op = sy_env_strdup(env, c->op);
        if ((c->where && c->where->node && !node) || !op) return sy_ctx_last_error(env->ctx);
        struct sy_env_defer rec = {t, src, node, op, 1, 0, 0, SIZE_MAX, NULL, NULL, NULL, 1};
        if ((st = defer_add(env, &rec))) return st;
        *ok = 1;
        *c->out = sy_value_tensor(t);
        return SY_OK;
    }
    if (undecided && (st = view_strides(c, &xv, n, shape, &ns, ok, &decide))) return st;
    return *ok ? op_set_strided(c, x->dtype, n, shape, ns) : SY_OK;
}

/* ------------------------------------------------------------------ deferred strides
 *
 * reshape(x, shape) is a view when computeStride succeeds and a contiguous copy otherwise
 * (aten/src/ATen/native/TensorShape.cpp reshape / _reshape_view_helper in torch/_refs): the
 * result's shape is the same either way, only its strides differ. PyTorch 2.x decides the
 * branch on symbolic sizes (guard_size_oblivious / guard_or_false in computeStride_impl);
 * here a branch the facts do not decide is not taken at the reshape: the result's strides are
 * deferred (strides NULL, the record below), and the decisions, with their guards and the
 * reshape's provenance, are taken when an op observes the strides: view, stride(),
 * is_contiguous(), an elementwise op (TensorIterator follows its operands' strides), clone,
 * the views, cat/convolution/... of a 4-D/5-D tensor (suggest_memory_format), a reshape of
 * the result once its chain is deep. Ops whose result ignores the input's layout (the
 * OPL_FRESH rows: linear, matmul, reductions, softmax, ...; cat/pad/... of a tensor that is
 * not 4-D/5-D; contiguous; the size queries) keep the deferral: no guard. */


static size_t defer_slot(const sy_env *env, const sy_tensor *t)
{
    uint64_t h = (uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ull;
    size_t m = env->defercap - 1, j = (size_t)(h ^ h >> 29) & m;
    while (env->defer[j].t && env->defer[j].t != t) j = (j + 1) & m;
    return j;
}

static bool defer_used(const void *e) { return ((const struct sy_env_defer *)e)->t != NULL; }
static size_t defer_reslot(const void *env, const void *e) { return defer_slot(env, ((const struct sy_env_defer *)e)->t); }

static const struct sy_env_defer *defer_find(const sy_env *env, const sy_tensor *t)
{
    if (!env || !t || t->strides || !env->defer) return NULL;
    const struct sy_env_defer *d = &env->defer[defer_slot(env, t)];
    return d->t ? d : NULL;
}

int sy_layout_is_deferred(const sy_env *env, const sy_tensor *t) { return defer_find(env, t) != NULL; }

static sy_status defer_add(sy_env *env, const struct sy_env_defer *rec)
{
    if ((env->ndefer + 1) * 2 > env->defercap &&
        !sy_otab_grow(env->ctx, (void **)&env->defer, &env->defercap, sizeof *env->defer,
                      env->defercap ? env->defercap * 2 : 32, defer_used, defer_reslot, env))
        return sy_ctx_last_error(env->ctx);
    env->defer[defer_slot(env, rec->t)] = *rec;
    env->ndefer++;
    return SY_OK;
}

static sy_status force_array(opcall *c, size_t n, const sy_value *arr, sy_value **out, int all, int depth);

sy_status op_strides(opcall *c, const sy_tensor *t, const sy_expr *const **out)
{
    *out = t->strides;
    const struct sy_env_defer *d = defer_find(c->env, t);
    if (!d) return SY_OK;
    /* the decisions with the deferring op's provenance (not the observing op's) */
    sy_provenance where = {d->node, d->op, NULL};
    sy_status st;
    if (!d->src) { /* a view or elementwise op of deferred tensors: run it again on them decided */
        sy_value *na = NULL, *nk = NULL, r;
        if ((st = force_array(c, d->nargs, d->args, &na, 1, 0)) || (st = force_array(c, d->nkw, d->kwvals, &nk, 1, 0))) return st;
        if ((st = sy_env_call(c->env, d->op, d->nargs, na ? na : d->args, d->nkw, d->kwnames, nk ? nk : d->kwvals, &where, &r)))
            return st;
        if (d->item != SIZE_MAX && r.kind == SY_V_LIST && d->item < r.u.list.n) r = r.u.list.items[d->item];
        if (r.kind != SY_V_TENSOR || r.u.t->ndim != t->ndim) return op_err(c, SY_ERROR, "%s: the replayed op gave another result", d->op);
        *out = r.u.t->strides; /* NULL when the op's layout is not modelled */
        return SY_OK;
    }
    opcall rc = *c;
    rc.op = d->op;
    rc.where = &where;
    const sy_expr *const *ns;
    int ok;
    vmode m = {0, NULL, NULL};
    if ((st = view_strides(&rc, d->src, t->ndim, t->sizes, &ns, &ok, &m))) return st;
    if (!ok && d->view) /* view_always proved it possible at every size the facts allowed then */
        return op_err(c, SY_ERROR, "%s: a view proved possible at every size is not possible here", d->op);
    if (!ok) { /* the contiguous copy */
        if (!(ns = sy_env_contig_strides(c->env, t->ndim, t->sizes, true))) return sy_ctx_last_error(c->env->ctx);
    }
    *out = ns;
    return SY_OK;
}

sy_status op_reshape_strides(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape)
{
    sy_env *env = c->env;
    const struct sy_env_defer *xd = defer_find(env, x);
    if (!x->strides && !xd) return op_set_strided(c, x->dtype, n, shape, NULL); /* not modelled: nor is the result */
    const sy_expr *const *ns = NULL;
    int ok = 1, undecided = 0;
    sy_status st;
    vmode dry = {1, &undecided, NULL}, decide = {0, NULL, NULL};
    if (!xd && (st = view_strides(c, x, n, shape, &ns, &ok, &dry))) return st;
    if (xd ? xd->weight >= DEFER_MAX_WEIGHT : !undecided) {
        if (xd && (st = view_strides(c, x, n, shape, &ns, &ok, &decide))) return st; /* too heavy: decide now */
        if (!ok) {
            const sy_tensor *t = sy_tensor_new(env, x->dtype, n, shape);
            if (!t) return sy_ctx_last_error(env->ctx);
            ns = t->strides;
        }
        return op_set_strided(c, x->dtype, n, shape, ns);
    }
    const sy_tensor *t = op_new_strided(c, x->dtype, n, shape, NULL);
    if (!t) return sy_ctx_last_error(env->ctx);
    const char *node = c->where && c->where->node ? sy_env_strdup(env, c->where->node) : NULL, *op = sy_env_strdup(env, c->op);
    if ((c->where && c->where->node && !node) || !op) return sy_ctx_last_error(env->ctx);
    struct sy_env_defer rec = {t, x, node, op, xd ? xd->weight + 1 : 1, 0, 0, SIZE_MAX, NULL, NULL, NULL, 0};
    if ((st = defer_add(env, &rec))) return st;
    *c->out = sy_value_tensor(t);
    return SY_OK;
}

/* The ops that carry deferred strides through instead of deciding them (the rows with
 * OP_CARRIES): their result's sizes never depend on the input's strides, they raise no error on
 * them, and with an input whose strides are NULL they give a result whose strides are NULL
 * (checked per op: ops_shape.c permute/transpose/unsqueeze/squeeze/expand/narrow/select/chunk/
 * split and ops_index.c unbind/tensor_split copy x->strides or NULL; getitem's basic indexing
 * likewise; the elementwise ops' op_ti_strides gives NULL when an operand's strides are NULL). Deciding the result's strides runs the op again on its
 * decided inputs (pure: the size decisions it took are facts by then, no symbol is made). */
/* a basic index item: int, slice, None, Ellipsis (anything else is advanced indexing) */
static int basic_item(const sy_value *v)
{
    return v->kind == SY_V_INT || v->kind == SY_V_SLICE || v->kind == SY_V_NONE || v->kind == SY_V_ELLIPSIS;
}

static int basic_index(const sy_value *v)
{
    if (v->kind != SY_V_LIST) return basic_item(v);
    for (size_t i = 0; i < v->u.list.n; i++)
        if (!basic_item(&v->u.list.items[i])) return 0;
    return 1;
}

static int value_has_tensor(const sy_value *v, int depth)
{
    if (v->kind == SY_V_TENSOR || depth > 64) return 1;
    if (v->kind == SY_V_LIST)
        for (size_t i = 0; i < v->u.list.n; i++)
            if (value_has_tensor(&v->u.list.items[i], depth + 1)) return 1;
    return 0;
}

/* the op's row says it carries (OP_CARRIES), with the two conditions of env_private.h */
static int carries(const opcall *c)
{
    const opentry *e = sy_env_op_row(c->op);
    if (!e || !(e->flags & OP_CARRIES)) return 0;
    if (!strcmp(c->op, "getitem")) /* basic indexing of a tensor (ints, slices, None, Ellipsis) */
        return c->nargs == 2 && !c->nkw && c->args[0].kind == SY_V_TENSOR && basic_index(&c->args[1]);
    if (e->flags & OP_IMPURE) { /* pure only without a tensor of values */
        for (size_t i = 1; i < c->nargs; i++)
            if (value_has_tensor(&c->args[i], 0)) return 0;
        for (size_t i = 0; i < c->nkw; i++)
            if (value_has_tensor(&c->kwvals[i], 0)) return 0;
    }
    return 1;
}

/* 1 when the op's result (or answer) depends on the strides of its tensor argument t */
static int observes(const opcall *c, const sy_tensor *t)
{
    /* view (op_view_result) decides a deferred input itself, or defers its result */
    static const char *const blind[] = {"reshape", "flatten", "reshape_as", "contiguous", "size", "dim", "numel", "len",
                                        "is_floating_point", "is_complex", "is_signed", "_assert", "view", NULL};
    if (c->layout_cls == OPL_FRESH || c->layout_cls == OPL_VIEW) return 0; /* the result ignores, or forgets, the layout */
    if (c->layout_cls == OPL_MEMFMT) return t->ndim == 4 || t->ndim == 5; /* suggest_memory_format: 4-D/5-D only */
    for (int i = 0; blind[i]; i++)
        if (!strcmp(c->op, blind[i])) return 0;
    if (!strcmp(c->op, "getattr") && c->nargs > 1 && c->args[1].kind == SY_V_STR) {
        static const char *const attrs[] = {"shape", "dtype", "ndim", "device", NULL};
        for (int i = 0; attrs[i]; i++)
            if (!strcmp(c->args[1].u.s, attrs[i])) return 0;
    }
    return 1;
}

/* v with its deferred tensors (all, or those the op observes) decided into *nv; *changed = 0: none */
static sy_status force_value(opcall *c, const sy_value *v, sy_value *nv, int *changed, int all, int depth)
{
    *nv = *v;
    *changed = 0;
    if (depth > 64) return SY_OK;
    if (v->kind == SY_V_TENSOR) {
        const sy_tensor *t = v->u.t;
        if (!defer_find(c->env, t) || (!all && !observes(c, t))) return SY_OK;
        const sy_expr *const *st;
        sy_status s = op_strides(c, t, &st);
        if (s) return s;
        const sy_tensor *ft = sy_tensor_new_strided(c->env, t->dtype, t->ndim, t->sizes, st);
        if (!ft) return sy_ctx_last_error(c->env->ctx);
        nv->u.t = ft;
        *changed = 1;
    } else if (v->kind == SY_V_LIST && v->u.list.n) {
        sy_value *items = NULL;
        sy_status s = force_array(c, v->u.list.n, v->u.list.items, &items, all, depth + 1);
        if (s) return s;
        if (items) {
            nv->u.list.items = items;
            *changed = 1;
        }
    }
    return SY_OK;
}

/* arr[0..n) with the deferred tensors decided: *out a new array, NULL when none changed */
static sy_status force_array(opcall *c, size_t n, const sy_value *arr, sy_value **out, int all, int depth)
{
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        sy_value nv;
        int changed;
        sy_status st = force_value(c, &arr[i], &nv, &changed, all, depth);
        if (st) return st;
        if (!changed) continue;
        if (!*out) {
            if (!(*out = sy_env_alloc(c->env, n * sizeof **out))) return sy_ctx_last_error(c->env->ctx);
            memcpy(*out, arr, n * sizeof **out);
        }
        (*out)[i] = nv;
    }
    return SY_OK;
}

/* the summed weight of the deferred tensors in v (0: none) */
static unsigned value_weight(const sy_env *env, const sy_value *v, int depth)
{
    if (depth > 64) return DEFER_MAX_WEIGHT;
    if (v->kind == SY_V_TENSOR) {
        const struct sy_env_defer *d = defer_find(env, v->u.t);
        return d ? d->weight : 0;
    }
    unsigned w = 0;
    if (v->kind == SY_V_LIST)
        for (size_t i = 0; i < v->u.list.n && w < DEFER_MAX_WEIGHT; i++) w += value_weight(env, &v->u.list.items[i], depth + 1);
    return w;
}

static unsigned call_weight(const opcall *c)
{
    unsigned w = 0;
    for (size_t i = 0; i < c->nargs && w < DEFER_MAX_WEIGHT; i++) w += value_weight(c->env, &c->args[i], 0);
    for (size_t i = 0; i < c->nkw && w < DEFER_MAX_WEIGHT; i++) w += value_weight(c->env, &c->kwvals[i], 0);
    return w;
}

/* a copy of v into the env (the replay outlives the caller's arrays) */
static sy_status value_copy(sy_env *env, const sy_value *v, sy_value *out, int depth)
{
    *out = *v;
    if (depth > 64) return sy_env_fail(env, SY_EQUOTA, "deferred strides: arguments nested too deep");
    if (v->kind == SY_V_STR) {
        if (!(out->u.s = sy_env_strdup(env, v->u.s))) return sy_ctx_last_error(env->ctx);
    } else if (v->kind == SY_V_LIST && v->u.list.n) {
        sy_value *items = sy_env_alloc(env, v->u.list.n * sizeof *items);
        if (!items) return sy_ctx_last_error(env->ctx);
        for (size_t i = 0; i < v->u.list.n; i++) {
            sy_status st = value_copy(env, &v->u.list.items[i], &items[i], depth + 1);
            if (st) return st;
        }
        out->u.list.items = items;
    } else if (v->kind == SY_V_SLICE) {
        sy_value *p = sy_env_alloc(env, 3 * sizeof *p);
        if (!p) return sy_ctx_last_error(env->ctx);
        sy_status st;
        if ((st = value_copy(env, v->u.slice.start, &p[0], depth + 1)) || (st = value_copy(env, v->u.slice.stop, &p[1], depth + 1)) ||
            (st = value_copy(env, v->u.slice.step, &p[2], depth + 1)))
            return st;
        out->u.slice.start = &p[0];
        out->u.slice.stop = &p[1];
        out->u.slice.step = &p[2];
    }
    return SY_OK;
}

static sy_status array_copy(sy_env *env, size_t n, const sy_value *arr, const sy_value **out)
{
    *out = NULL;
    if (!n) return SY_OK;
    sy_value *a = sy_env_alloc(env, n * sizeof *a);
    if (!a) return sy_ctx_last_error(env->ctx);
    for (size_t i = 0; i < n; i++) {
        sy_status st = value_copy(env, &arr[i], &a[i], 0);
        if (st) return st;
    }
    *out = a;
    return SY_OK;
}

/* the call's arguments, keyword names and values, node and op, copied into rec (the env's memory) */
static sy_status defer_copy_call(opcall *c, struct sy_env_defer *rec)
{
    sy_env *env = c->env;
    sy_status st;
    if (c->nkw) {
        const char **k = sy_env_alloc(env, c->nkw * sizeof *k);
        if (!k) return sy_ctx_last_error(env->ctx);
        for (size_t j = 0; j < c->nkw; j++)
            if (!(k[j] = sy_env_strdup(env, c->kwnames[j]))) return sy_ctx_last_error(env->ctx);
        rec->kwnames = k;
    }
    if ((st = array_copy(env, c->nargs, c->args, &rec->args)) || (st = array_copy(env, c->nkw, c->kwvals, &rec->kwvals))) return st;
    if (c->where && c->where->node && !(rec->node = sy_env_strdup(env, c->where->node))) return sy_ctx_last_error(env->ctx);
    if (!(rec->op = sy_env_strdup(env, c->op))) return sy_ctx_last_error(env->ctx);
    return SY_OK;
}

/* record t, the result (item of a list result, or SIZE_MAX) of c, as deferred: replayed on its
 * decided arguments when observed; w: the weight of the deferred arguments */
static sy_status defer_replay(opcall *c, const sy_tensor *t, unsigned w, size_t item)
{
    sy_env *env = c->env;
    struct sy_env_defer rec = {t, NULL, NULL, NULL, w + 1, c->nargs, c->nkw, item, NULL, NULL, NULL, 0};
    sy_status st = defer_copy_call(c, &rec);
    return st ? st : defer_add(env, &rec);
}

sy_status sy_layout_defer_results(opcall *c)
{
    sy_env *env = c->env;
    if (!env->ndefer || !carries(c)) return SY_OK;
    unsigned w = call_weight(c);
    if (!w || w >= DEFER_MAX_WEIGHT) return SY_OK; /* nothing deferred in: nothing deferred out (sy_layout_force_args decided them) */
    const sy_value *out = c->out;
    size_t n = out->kind == SY_V_LIST ? out->u.list.n : 1;
    struct sy_env_defer rec = {NULL, NULL, NULL, NULL, w + 1, c->nargs, c->nkw, SIZE_MAX, NULL, NULL, NULL, 0};
    for (size_t i = 0; i < n; i++) {
        const sy_value *r = out->kind == SY_V_LIST ? &out->u.list.items[i] : out;
        if (r->kind != SY_V_TENSOR || r->u.t->strides || defer_find(env, r->u.t)) continue; /* a known layout, or deferred already */
        sy_status st;
        if (!rec.op && (st = defer_copy_call(c, &rec))) return st; /* the op's arguments and provenance, once */
        rec.t = r->u.t;
        rec.item = out->kind == SY_V_LIST ? i : SIZE_MAX;
        if ((st = defer_add(env, &rec))) return st;
    }
    return SY_OK;
}

sy_status sy_layout_force_args(opcall *c)
{
    if (!c->env->ndefer) return SY_OK; /* nothing deferred (the common case) */
    /* an op that carries the deferral through keeps its inputs deferred, unless their
     * decisions would replay too many ops */
    if (carries(c) && call_weight(c) < DEFER_MAX_WEIGHT) return SY_OK;
    sy_value *na, *nk;
    sy_status st = force_array(c, c->nargs, c->args, &na, 0, 0);
    if (!st && na) c->args = na;
    if (!st) st = force_array(c, c->nkw, c->kwvals, &nk, 0, 0);
    if (!st && nk) c->kwvals = nk;
    return st;
}

/* ------------------------------------------------------------------ layout classes */

/* Each op's row (the ops_*.c tables) gives its layout class (OPL_*, env_private.h); a row
 * without one is OPL_DEFAULT. Why the rows say what they say (checked on the CPU, 1.13 and 2.14,
 * by tests/shapeenv/strides_torch.py):
 *  - OPL_OWN: the views and layout-aware ops (view, reshape, flatten, permute, transpose, t,
 *    unsqueeze, squeeze, expand, chunk, split, narrow, select, unbind, tensor_split, getitem,
 *    split_with_sizes, movedim, swapaxes, unflatten, unfold, diagonal, contiguous, clone,
 *    identity, detach); expand_as / view_as / reshape_as call expand / view / reshape through
 *    sy_env_call, with their layout.
 *  - OPL_FRESH: softmax, log_softmax, layer_norm, rms_norm, matmul, mm, bmm, linear,
 *    index_select (measured: a transposed input gives a contiguous result); the reductions
 *    (resize_reduction allocates the output with no strides, so contiguous whatever the input's
 *    layout, keepdim or not; max/min/median/mode/kthvalue are left out: max(a, b) is
 *    elementwise, the others are tuples); F.multi_head_attention_forward (attn_output is
 *    linear(...).view(L, N, E) and the weights a view/mean of a fresh bmm, whatever the layout
 *    of q/k/v); max_unpool (the CPU kernels resize a fresh output and write the contiguous input
 *    into it); adaptive_avg_pool3d / adaptive_max_pool3d (a contiguous result for a
 *    channels_last_3d input, where the 1-D and 2-D ones keep the input's format).
 *  - OPL_MEMFMT: allocated in suggest_memory_format() of the input (cat:
 *    cat_compute_output_memory_format; convolution, pooling, batch_norm, upsample,
 *    constant_pad_nd, group_norm: suggest_memory_format).
 *  - OPL_VIEW: views whose strides are not computed (yet): real, imag, the in-place
 *    squeeze_ / unsqueeze_ / transpose_. A new view op must be OPL_OWN or OPL_VIEW: the default
 *    would call the view of a contiguous tensor contiguous. */

/* ------------------------------------------------------------------ memory formats */

sy_status sy_layout_memfmt_arg(opcall *c, size_t pos, char *fmt)
{
    const sy_value *v = op_arg(c, pos, "memory_format");
    *fmt = 'p';
    if (!v || v->kind == SY_V_NONE) return SY_OK;
    if (v->kind != SY_V_STR) return op_err(c, SY_EINVAL, "memory_format must be a torch.memory_format");
    const char *s = !strncmp(v->u.s, "torch.", 6) ? v->u.s + 6 : v->u.s;
    if (!strcmp(s, "preserve_format")) *fmt = 'p';
    else if (!strcmp(s, "contiguous_format")) *fmt = 'c';
    else if (!strcmp(s, "channels_last")) *fmt = '4';
    else if (!strcmp(s, "channels_last_3d")) *fmt = '5';
    else return op_err(c, SY_EINVAL, "memory_format: unknown memory format %s", v->u.s);
    return SY_OK;
}

static const size_t cl_order4[4] = {1, 3, 2, 0}, cl_order5[5] = {1, 4, 3, 2, 0};

/* the dims of fmt from the fastest (stride 1) on; NULL: row-major */
static const size_t *memfmt_order(char fmt, size_t ndim)
{
    return fmt == '4' && ndim == 4 ? cl_order4 : fmt == '5' && ndim == 5 ? cl_order5 : NULL;
}

const sy_expr *const *sy_layout_dense_strides(opcall *c, size_t ndim, const sy_expr *const *sizes, char fmt)
{
    const size_t *ord = memfmt_order(fmt, ndim);
    if (!ord) return sy_env_contig_strides(c->env, ndim, sizes, false);
    const sy_expr **st = sy_env_alloc(c->env, ndim * sizeof *st);
    if (!st) return NULL;
    const sy_expr *acc = KI(c, 1);
    for (size_t k = 0; k < ndim; k++) {
        st[ord[k]] = acc;
        if (!(acc = sy_env_mul(c->env, acc, sizes[ord[k]]))) return NULL;
    }
    return st;
}

const sy_expr *sy_layout_is_contiguous(opcall *c, const sy_tensor *t, char fmt)
{
    sy_ctx *ctx = c->env->ctx;
    const size_t *ord = memfmt_order(fmt, t->ndim);
    if (fmt != 'c' && !ord) return sy_expr_false(ctx);
    const sy_expr *one = KI(c, 1), *acc = one, *all = sy_expr_true(ctx);
    for (size_t k = 0; k < t->ndim; k++) {
        size_t d = ord ? ord[k] : t->ndim - 1 - k;
        /* row-major: the products of the sizes (c10's) or of their Max(size, 1) (the contiguous
         * strides', sy_tensor_contig_stride): equal wherever numel > 0, the only case the check
         * reads them; the latter when the stride is it, else the former */
        const sy_expr *want = acc;
        if (!ord) {
            const sy_expr *m = sy_tensor_contig_stride(ctx, t->ndim, t->sizes, d);
            if (!m) return NULL;
            if (t->strides[d] == m) want = m;
        }
        all = sy_expr_and(ctx, all, sy_expr_or(ctx, sy_expr_eq(ctx, t->sizes[d], one), sy_expr_eq(ctx, t->strides[d], want)));
        acc = sy_expr_mul(ctx, acc, t->sizes[d]);
    }
    if (!ord) { /* compute_contiguous: an empty tensor is contiguous; the channels_last checks have no such case */
        const sy_expr *numel = one;
        for (size_t i = 0; i < t->ndim; i++) numel = sy_expr_mul(ctx, numel, t->sizes[i]);
        all = sy_expr_or(ctx, sy_expr_eq(ctx, numel, KI(c, 0)), all);
    }
    return all;
}

/* is_channels_last_strides_2d_s4 (c10/core/MemoryFormat.h), as one boolean:
 *   if (strides[1] == 0) return false;
 *   min = 0; for d in (1, 3, 2, 0):
 *     if (sizes[d] == 0) return false;  if (strides[d] < min) return false;
 *     if (d == 0 && min == strides[1]) return false;
 *     min = strides[d]; if (sizes[d] > 1) min *= sizes[d];
 * (sizes are >= 0, and 0 has returned, so the last line is min = strides[d] * Max(sizes[d], 1));
 * _3d_s5 the same over (1, 4, 3, 2, 0). Row-major strides are never like channels_last: the
 * fastest dim's stride 1 is >= min only when every other dim but N has size 1, and then the
 * N check (min == strides[1]) fails; so a tensor whose strides are the row-major ones answers
 * false without the boolean. */
const sy_expr *sy_layout_strides_like_cl(opcall *c, const sy_tensor *t)
{
    sy_ctx *ctx = c->env->ctx;
    const size_t *ord = memfmt_order(t->ndim == 4 ? '4' : '5', t->ndim);
    if (!ord) return sy_expr_false(ctx);
    const sy_expr *const *rm = sy_env_contig_strides(c->env, t->ndim, t->sizes, false);
    if (!rm) return NULL;
    if (rm == t->strides || !memcmp(rm, t->strides, t->ndim * sizeof *rm)) return sy_expr_false(ctx);
    const sy_expr *zero = KI(c, 0), *one = KI(c, 1), *min = zero;
    const sy_expr *all = sy_expr_ne(ctx, t->strides[1], zero);
    for (size_t k = 0; k < t->ndim; k++) {
        size_t d = ord[k];
        all = sy_expr_and(ctx, all, sy_expr_and(ctx, sy_expr_ne(ctx, t->sizes[d], zero), sy_expr_ge(ctx, t->strides[d], min)));
        if (d == 0) all = sy_expr_and(ctx, all, sy_expr_ne(ctx, min, t->strides[1]));
        min = sy_expr_mul(ctx, t->strides[d], sy_expr_max(ctx, t->sizes[d], one));
    }
    return all;
}

/* 1 when the facts prove rel (no guard, no hint) */
static int proved(sy_env *env, const sy_expr *rel)
{
    int known = 0, val = 0; /* sy_env_try_decide marks the symbols relied upon when decided */
    if (sy_env_try_decide(env, rel, &known, &val) != SY_OK) {
        sy_ctx_reset_error(env->ctx);
        return 0;
    }
    return known && val;
}

/* 0 when the facts prove that t is not strided like channels_last(_3d)
 * (c10/core/MemoryFormat.h is_channels_last_strides_2d_s4 / _3d_s5, which
 * suggest_memory_format() uses), 1 when it may be. */
static int maybe_channels_last(sy_env *env, const sy_tensor *t)
{
    static const size_t order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
    if (t->ndim != 4 && t->ndim != 5) return 0;
    if (t->strides) { /* the exact check when the facts decide it (a channels_last [N, C, 1, 1] is c10-contiguous) */
        opcall c = {.env = env};
        const sy_expr *like = sy_layout_strides_like_cl(&c, t);
        if (!like) sy_ctx_reset_error(env->ctx);
        else if (sy_expr_kind_of(like) == SY_EXPR_FALSE) return 0;
        else if (sy_expr_kind_of(like) == SY_EXPR_TRUE || proved(env, like)) return 1;
        else if (proved(env, sy_expr_not(env->ctx, like))) return 0;
    }
    if (sy_tensor_is_contiguous(env, t)) return 0; /* undecided: the c10 check also finds contiguous tensors not channels_last, except ambiguous size-1 cases */
    if (!t->strides) return 1;
    sy_ctx *ctx = env->ctx;
    const sy_expr *zero = sy_expr_int_si(ctx, 0), *one = sy_expr_int_si(ctx, 1);
    if (proved(env, sy_expr_eq(ctx, t->strides[1], zero))) return 0;
    const size_t *ord = t->ndim == 4 ? order4 : order5;
    const sy_expr *min = zero;
    for (size_t k = 0; k < t->ndim; k++) {
        size_t d = ord[k];
        if (proved(env, sy_expr_eq(ctx, t->sizes[d], zero))) return 0;
        if (proved(env, sy_expr_lt(ctx, t->strides[d], min))) return 0;
        if (d == 0 && proved(env, sy_expr_eq(ctx, min, t->strides[1]))) return 0;
        min = t->strides[d];
        if (proved(env, sy_expr_gt(ctx, t->sizes[d], one))) min = sy_env_mul(env, min, t->sizes[d]);
        else if (!proved(env, sy_expr_le(ctx, t->sizes[d], one))) return 1; /* the running minimum is not known */
        if (!min) return 1;
    }
    return 1;
}

static int value_has_noncontig(sy_env *env, const sy_value *v, int memfmt, int depth)
{
    if (depth > 64) return 1;
    if (v->kind == SY_V_TENSOR)
        return memfmt ? maybe_channels_last(env, v->u.t) : !sy_tensor_is_contiguous(env, v->u.t);
    if (v->kind == SY_V_LIST)
        for (size_t i = 0; i < v->u.list.n; i++)
            if (value_has_noncontig(env, &v->u.list.items[i], memfmt, depth + 1)) return 1;
    return 0;
}

/* replace every tensor in v by a copy whose strides are not modelled */
static sy_status forget_strides(sy_env *env, sy_value *v, int depth)
{
    if (depth > 64) return SY_OK;
    if (v->kind == SY_V_TENSOR) {
        if (!v->u.t->strides) return SY_OK;
        const sy_tensor *t = sy_tensor_new_strided(env, v->u.t->dtype, v->u.t->ndim, v->u.t->sizes, NULL);
        if (!t) return sy_ctx_last_error(env->ctx);
        v->u.t = t;
    } else if (v->kind == SY_V_LIST && v->u.list.n) {
        sy_value *items = sy_env_alloc(env, v->u.list.n * sizeof *items);
        if (!items) return sy_ctx_last_error(env->ctx);
        memcpy(items, v->u.list.items, v->u.list.n * sizeof *items);
        for (size_t i = 0; i < v->u.list.n; i++) {
            sy_status st = forget_strides(env, &items[i], depth + 1);
            if (st) return st;
        }
        v->u.list.items = items;
    }
    return SY_OK;
}

sy_status sy_layout_after_call(opcall *c)
{
    int cls = c->layout_cls;
    /* out=: the result is the out tensor. When its sizes are the result's, ATen leaves it as it is
     * (resize_output does nothing, TensorIterator writes into its strides): torch.neg(x.t(),
     * out=torch.empty(T, B)) is row-major, not x.t()'s layout. Resized (other sizes), its strides
     * are the kernel's own choice (TensorIterator's as_strided_ for a structured kernel, resize_'s
     * contiguous ones for the others): not modelled. */
    for (size_t i = 0; i < c->nkw; i++) {
        if (!c->kwnames[i] || strcmp(c->kwnames[i], "out") || c->kwvals[i].kind != SY_V_TENSOR) continue;
        const sy_tensor *o = c->kwvals[i].u.t, *r = c->out->kind == SY_V_TENSOR ? c->out->u.t : NULL;
        if (!r) return forget_strides(c->env, c->out, 0);
        int same = r->ndim == o->ndim;
        for (size_t k = 0; same && k < r->ndim; k++) same = r->sizes[k] == o->sizes[k];
        if (!same) return forget_strides(c->env, c->out, 0);
        return op_set_strided(c, o->dtype, o->ndim, o->sizes, o->strides);
    }
    if (cls == OPL_VIEW) return forget_strides(c->env, c->out, 0);
    if (cls == OPL_OWN || cls == OPL_FRESH || c->env->layout_owned) return SY_OK;
    int memfmt = cls == OPL_MEMFMT, nc = 0;
    for (size_t i = 0; i < c->nargs && !nc; i++) nc = value_has_noncontig(c->env, &c->args[i], memfmt, 0);
    for (size_t i = 0; i < c->nkw && !nc; i++) nc = value_has_noncontig(c->env, &c->kwvals[i], memfmt, 0);
    return nc ? forget_strides(c->env, c->out, 0) : SY_OK;
}
