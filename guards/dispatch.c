/* One decision structure for N guard sets: include/symshape/dispatch.h and
 * docs/guards.md section 9. Reads the sets through their public accessors
 * (canonical texts) or their JSON form, and compiles the pooled guards into
 * a node array evaluated with the checked int64 helpers of sy_int64.h. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/internal.h"
#include "algebra/sy_int64.h"
#include "symshape/dispatch.h"

enum { N_CONST, N_SLOT, N_ADD, N_MUL, N_POW, N_FLOORDIV, N_MOD, N_CEILDIV, N_MIN, N_MAX, N_EQ, N_NE, N_LE, N_AND, N_OR, N_BAD };

typedef struct dnode {
    int kind;
    uint32_t nargs;
    uint32_t *args;
    int64_t *coef; /* N_ADD: one per arg */
    int64_t k;     /* N_CONST value, N_SLOT slot, N_ADD constant, N_POW exponent */
} dnode;

typedef struct dguard {
    const sy_expr *expr;
    uint32_t root;
    uint32_t nlist;
    uint32_t *list; /* the nodes it reads, post-order (children first) */
    long slot;      /* interval guard: its source, else -1 */
    int64_t lo, hi; /* the interval where it holds */
    int rank;       /* split rank of its slot (INT32_MAX: not split) */
} dguard;

typedef struct tnode {
    int leaf;
    /* inner: v = values[slot]; v < thr ? lo : hi */
    size_t slot;
    int64_t thr;
    uint32_t lo, hi;
    /* leaf: entries (ascending), splits decided */
    uint32_t nent;
    uint32_t *ent;
    int kdone;
} tnode;

typedef struct dentry {
    uint32_t ng;
    uint32_t *g; /* guard ids in set order */
    int64_t *lo, *hi; /* per split rank: the entry's interval (lo > hi: empty) */
} dentry;


struct sy_dispatch {
    sy_ctx *ctx;
    sy_block *blocks;
    size_t nsrc;
    const char **src;
    size_t nent;
    dentry *ent;
    size_t nn, ncap;
    dnode *nodes;
    size_t ngd, gcap;
    dguard *gd;
    size_t nsplit;
    size_t *split; /* slots split, in rank order */
    size_t ntn, tcap;
    tnode *tn;
    uint32_t root;
    size_t depth, max_leaf, budget;
    sy_memo node_of;  /* expr -> node index + 1 */
    sy_memo guard_of; /* expr -> guard index + 1 */
};

static void *zalloc(sy_dispatch *d, size_t n) { return sy_blocks_alloc(d->ctx, &d->blocks, n); }

static void *zarray(sy_dispatch *d, size_t n, size_t el) { return sy_blocks_array(d->ctx, &d->blocks, n, el); }

/* grow *p (n used, *cap elements of el bytes) to hold one more */
static int grow(sy_dispatch *d, void **p, size_t n, size_t *cap, size_t el)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? 2 * *cap : 64;
    void *q = zarray(d, nc, el);
    if (!q) return -1;
    if (n) memcpy(q, *p, n * el);
    *p = q;
    *cap = nc;
    return 0;
}

sy_dispatch *sy_dispatch_free(sy_dispatch *d)
{
    if (!d) return NULL;
    sy_ctx *ctx = d->ctx;
    sy_memo_clear(ctx, &d->node_of);
    sy_memo_clear(ctx, &d->guard_of);
    sy_blocks_free(ctx, d->blocks);
    sy_dealloc(ctx, d, sizeof *d);
    return NULL;
}

/* ---- compiling expressions into nodes */

static long slot_in(size_t nsrc, const sy_expr *e)
{
    const char *nm = sy_expr_sym_name(e);
    if (!nm || nm[0] != '_' || nm[1] != 's' || nm[2] < '0' || nm[2] > '9') return -1;
    char *endp;
    unsigned long v = strtoul(nm + 2, &endp, 10);
    return *endp || v >= nsrc ? -1 : (long)v;
}

static long slot_of(const sy_dispatch *d, const sy_expr *e) { return slot_in(d->nsrc, e); }

typedef struct walkst {
    sy_dispatch *d;
    sy_status st;
} walkst;

static int skip_known(void *ud, const sy_expr *e)
{
    walkst *w = ud;
    return sy_memo_get(&w->d->node_of, e) != NULL;
}

static uint32_t idx_of(const sy_dispatch *d, const sy_expr *e)
{
    return (uint32_t)((uintptr_t)sy_memo_get(&d->node_of, e) - 1);
}

static sy_status visit_node(void *ud, const sy_expr *e)
{
    walkst *w = ud;
    sy_dispatch *d = w->d;
    if (sy_memo_get(&d->node_of, e)) return SY_OK;
    if (grow(d, (void **)&d->nodes, d->nn, &d->ncap, sizeof *d->nodes)) return SY_ENOMEM;
    dnode *n = &d->nodes[d->nn];
    memset(n, 0, sizeof *n);
    size_t na = sy_expr_nargs(e);
    sy_expr_kind k = sy_expr_kind_of(e);
    n->kind = N_BAD;
    if (na) {
        n->args = zarray(d, na, sizeof *n->args);
        if (!n->args) return SY_ENOMEM;
        for (size_t i = 0; i < na; i++) n->args[i] = idx_of(d, sy_expr_arg(e, i));
        n->nargs = (uint32_t)na;
    }
    switch (k) {
    case SY_EXPR_INT:
        n->kind = sy_expr_get_si(e, &n->k) == SY_OK ? N_CONST : N_BAD;
        break;
    case SY_EXPR_SYM: {
        long s = slot_of(d, e);
        if (s >= 0) {
            n->kind = N_SLOT;
            n->k = s;
        }
        break;
    }
    case SY_EXPR_ADD: {
        n->coef = zarray(d, na, sizeof *n->coef);
        if (!n->coef) return SY_ENOMEM;
        const sy_expr *c0 = sy_expr_add_const(d->ctx, e);
        int ok = c0 && sy_expr_get_si(c0, &n->k) == SY_OK;
        for (size_t i = 0; ok && i < na; i++) {
            const sy_expr *ci = sy_expr_add_coeff(d->ctx, e, i);
            ok = ci && sy_expr_get_si(ci, &n->coef[i]) == SY_OK;
        }
        sy_ctx_reset_error(d->ctx);
        if (ok) n->kind = N_ADD;
        break;
    }
    case SY_EXPR_MUL: n->kind = N_MUL; break;
    case SY_EXPR_POW: {
        uint64_t x = sy_expr_pow_exp(e);
        n->k = x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x; /* |base| >= 2 overflows within 63 steps */
        n->kind = N_POW;
        break;
    }
    case SY_EXPR_FLOORDIV: n->kind = N_FLOORDIV; break;
    case SY_EXPR_MOD: n->kind = N_MOD; break;
    case SY_EXPR_CEILDIV: n->kind = N_CEILDIV; break;
    case SY_EXPR_MIN: n->kind = N_MIN; break;
    case SY_EXPR_MAX: n->kind = N_MAX; break;
    case SY_EXPR_EQ: n->kind = N_EQ; break;
    case SY_EXPR_NE: n->kind = N_NE; break;
    case SY_EXPR_LE: n->kind = N_LE; break;
    case SY_EXPR_AND: n->kind = N_AND; break;
    case SY_EXPR_OR: n->kind = N_OR; break;
    case SY_EXPR_TRUE: n->kind = N_CONST; n->k = 1; break;
    case SY_EXPR_FALSE: n->kind = N_CONST; n->k = 0; break;
    default: break;
    }
    if (!sy_memo_put(d->ctx, &d->node_of, e, (const sy_expr *)(uintptr_t)(d->nn + 1))) return SY_ENOMEM;
    d->nn++;
    if (d->nn >= UINT32_MAX / 2) return sy_fail_st(d->ctx, SY_EQUOTA, "dispatch: too many nodes");
    return SY_OK;
}

static sy_status compile_node(sy_dispatch *d, const sy_expr *e, uint32_t *out)
{
    walkst w = {d, SY_OK};
    sy_status st = sy_expr_walk_postorder(d->ctx, e, skip_known, visit_node, &w);
    if (st != SY_OK) return st;
    *out = idx_of(d, e);
    return SY_OK;
}

/* The node list of a guard: its distinct nodes in post-order (children first). */
typedef struct listst {
    sy_dispatch *d;
    sy_memo seen;
    uint32_t *list;
    size_t n, cap;
} listst;

static int skip_seen(void *ud, const sy_expr *e)
{
    listst *l = ud;
    if (sy_memo_get(&l->seen, e)) return 1;
    return !sy_memo_put(l->d->ctx, &l->seen, e, e);
}

static sy_status visit_list(void *ud, const sy_expr *e)
{
    listst *l = ud;
    if (grow(l->d, (void **)&l->list, l->n, &l->cap, sizeof *l->list)) return SY_ENOMEM;
    l->list[l->n++] = idx_of(l->d, e);
    return SY_OK;
}

/* v == c, v <= c, c <= v over one slot with coefficient +-1: the interval where it holds */
static void interval_of(sy_dispatch *d, dguard *g)
{
    g->slot = -1;
    sy_expr_kind k = sy_expr_kind_of(g->expr);
    if (k != SY_EXPR_EQ && k != SY_EXPR_LE) return;
    const sy_expr *p = sy_expr_arg(g->expr, 0);
    int64_t a = 1, c = 0;
    const sy_expr *v = p;
    if (sy_expr_kind_of(p) == SY_EXPR_ADD) {
        if (sy_expr_nargs(p) != 1) return;
        v = sy_expr_arg(p, 0);
        const sy_expr *ca = sy_expr_add_coeff(d->ctx, p, 0), *cc = sy_expr_add_const(d->ctx, p);
        if (!ca || !cc || sy_expr_get_si(ca, &a) != SY_OK || sy_expr_get_si(cc, &c) != SY_OK) {
            sy_ctx_reset_error(d->ctx);
            return;
        }
    }
    long s = sy_expr_kind_of(v) == SY_EXPR_SYM ? slot_of(d, v) : -1;
    if (s < 0 || (a != 1 && a != -1) || c == INT64_MIN) return;
    /* a*v + c (== or <=) 0 */
    int64_t b = a == 1 ? -c : c; /* v == b; a = 1: v <= b; a = -1: v >= b */
    g->slot = s;
    g->lo = INT64_MIN;
    g->hi = INT64_MAX;
    if (k == SY_EXPR_EQ) g->lo = g->hi = b;
    else if (a == 1) g->hi = b;
    else g->lo = b;
}

static sy_status add_guard(sy_dispatch *d, const sy_expr *e, uint32_t *gid)
{
    const sy_expr *known = sy_memo_get(&d->guard_of, e);
    if (known) {
        *gid = (uint32_t)((uintptr_t)known - 1);
        return SY_OK;
    }
    if (grow(d, (void **)&d->gd, d->ngd, &d->gcap, sizeof *d->gd)) return SY_ENOMEM;
    dguard *g = &d->gd[d->ngd];
    memset(g, 0, sizeof *g);
    g->expr = e;
    g->rank = INT32_MAX;
    sy_status st = compile_node(d, e, &g->root);
    if (st != SY_OK) return st;
    listst l = {d, {0}, NULL, 0, 0};
    if (!sy_memo_init(d->ctx, &l.seen)) return SY_ENOMEM;
    st = sy_expr_walk_postorder(d->ctx, e, skip_seen, visit_list, &l);
    sy_memo_clear(d->ctx, &l.seen);
    if (st == SY_OK && sy_ctx_last_error(d->ctx) == SY_ENOMEM) st = SY_ENOMEM;
    if (st != SY_OK) return st;
    g->list = l.list;
    g->nlist = (uint32_t)l.n;
    interval_of(d, g);
    if (!sy_memo_put(d->ctx, &d->guard_of, e, (const sy_expr *)(uintptr_t)(d->ngd + 1))) return SY_ENOMEM;
    *gid = (uint32_t)d->ngd++;
    return SY_OK;
}

/* ---- evaluation: frame[0] the call stamp, frame[1..nn] values, frame[nn+1..2nn] stamps (2*stamp + error) */

static int eval_node(const dnode *n, int64_t *val, const int64_t *values, int64_t *r)
{
#define V(i) val[n->args[i]]
    int64_t x, t;
    switch (n->kind) {
    case N_CONST: *r = n->k; return 0;
    case N_SLOT: *r = values[n->k]; return 0;
    case N_ADD:
        x = n->k;
        for (uint32_t i = 0; i < n->nargs; i++)
            if (sy_i64_mul(n->coef[i], V(i), &t) || sy_i64_add(x, t, &x)) return 1;
        *r = x;
        return 0;
    case N_MUL:
        x = 1;
        for (uint32_t i = 0; i < n->nargs; i++)
            if (sy_i64_mul(x, V(i), &x)) return 1;
        *r = x;
        return 0;
    case N_POW: {
        int64_t b = V(0);
        x = 1;
        for (int64_t i = 0; i < n->k; i++) {
            if (sy_i64_mul(x, b, &x)) return 1;
            if (b == 0 || b == 1) break;
            if (b == -1) {
                x = (n->k % 2) ? -1 : 1;
                break;
            }
        }
        *r = x;
        return 0;
    }
    case N_FLOORDIV: return sy_i64_floordiv(V(0), V(1), r); /* SY_I64_*: nonzero is a fault */
    case N_MOD: return sy_i64_mod(V(0), V(1), r);
    case N_CEILDIV: return sy_i64_ceildiv(V(0), V(1), r);
    case N_MIN:
    case N_MAX:
        x = V(0);
        for (uint32_t i = 1; i < n->nargs; i++)
            if (n->kind == N_MIN ? V(i) < x : V(i) > x) x = V(i);
        *r = x;
        return 0;
    case N_EQ: *r = V(0) == 0; return 0;
    case N_NE: *r = V(0) != 0; return 0;
    case N_LE: *r = V(0) <= 0; return 0;
    case N_AND:
    case N_OR:
        x = n->kind == N_AND;
        for (uint32_t i = 0; i < n->nargs; i++)
            if (n->kind == N_AND ? !V(i) : V(i) != 0) x = n->kind == N_OR;
        *r = x;
        return 0;
    default: return 1;
    }
#undef V
}

/* 1 the guard holds, 0 it fails (an evaluation error fails it) */
static int guard_holds(const sy_dispatch *d, const dguard *g, const int64_t *values, int64_t *frame)
{
    int64_t stamp = frame[0], *val = frame + 1, *st = frame + 1 + d->nn;
    for (uint32_t i = 0; i < g->nlist; i++) {
        uint32_t k = g->list[i];
        if (st[k] >> 1 == stamp) continue;
        const dnode *n = &d->nodes[k];
        int err = 0;
        for (uint32_t a = 0; a < n->nargs && !err; a++) err = (int)(st[n->args[a]] & 1);
        if (!err) err = eval_node(n, val, values, &val[k]);
        st[k] = stamp * 2 + (err ? 1 : 0);
    }
    return !(st[g->root] & 1) && val[g->root] != 0;
}

static int entry_holds(const sy_dispatch *d, const dentry *e, int kdone, const int64_t *values, int64_t *frame)
{
    for (uint32_t i = 0; i < e->ng; i++) {
        const dguard *g = &d->gd[e->g[i]];
        if (g->rank < kdone) continue; /* decided by the tree */
        if (!guard_holds(d, g, values, frame)) return 0;
    }
    return 1;
}

long sy_dispatch_run(const sy_dispatch *d, const int64_t *values, size_t n, int64_t *frame)
{
    if (!d || !values || !frame || n != d->nsrc) return -2;
    frame[0]++;
    const tnode *t = &d->tn[d->root];
    while (!t->leaf) t = &d->tn[values[t->slot] < t->thr ? t->lo : t->hi];
    for (uint32_t i = 0; i < t->nent; i++)
        if (entry_holds(d, &d->ent[t->ent[i]], t->kdone, values, frame)) return (long)t->ent[i];
    return -1;
}

long sy_dispatch_run_sequential(const sy_dispatch *d, const int64_t *values, size_t n, int64_t *frame)
{
    if (!d || !values || !frame || n != d->nsrc) return -2;
    for (size_t i = 0; i < d->nent; i++) {
        frame[0]++; /* each entry on its own: nothing shared between entries */
        if (entry_holds(d, &d->ent[i], 0, values, frame)) return (long)i;
    }
    return -1;
}

/* Why sy_dispatch_run answers what it does: the entries one by one (as the reference), each
 * rejected by its first failing guard in set order; an entry whose first failing guard failed by
 * an evaluation fault (overflow, zero divisor) failed closed, and the first such is named. */
long sy_dispatch_why(const sy_dispatch *d, const int64_t *values, size_t n, int64_t *frame, char *msg, size_t cap)
{
    if (msg && cap) msg[0] = 0;
    if (!d || !values || !frame || n != d->nsrc) return -2;
    int64_t *val = frame + 1, *st = frame + 1 + d->nn;
    long closed = -1;
    for (size_t i = 0; i < d->nent; i++) {
        frame[0]++;
        const dentry *e = &d->ent[i];
        uint32_t k = 0;
        while (k < e->ng && guard_holds(d, &d->gd[e->g[k]], values, frame)) k++;
        if (k == e->ng) return (long)i;
        const dguard *g = &d->gd[e->g[k]];
        if (closed != -1 || !(st[g->root] & 1)) continue;
        int code = SY_I64_OVERFLOW;
        for (uint32_t j = 0; j < g->nlist; j++) { /* the node that faulted: its arguments did not */
            const dnode *nd = &d->nodes[g->list[j]];
            int aerr = 0;
            for (uint32_t a = 0; a < nd->nargs && !aerr; a++) aerr = (int)(st[nd->args[a]] & 1);
            int64_t r;
            if ((st[g->list[j]] & 1) && !aerr) {
                code = eval_node(nd, val, values, &r);
                break;
            }
        }
        closed = code == SY_I64_DIVZERO ? SY_EDIVZERO : SY_EOVERFLOW;
        if (msg && cap) {
            char *t = sy_expr_print(d->ctx, g->expr, SY_PRINT_CANONICAL);
            snprintf(msg, cap, "%s in guard %u of entry %zu: %s", sy_status_name((sy_status)closed), (unsigned)k, i,
                     t ? t : "?");
            sy_str_free(d->ctx, t);
            sy_ctx_reset_error(d->ctx);
        }
    }
    return closed;
}

/* ---- the tree */

typedef struct memo_ent {
    int k;
    uint64_t h;
    uint32_t n;
    uint32_t *ents;
    uint32_t node;
} memo_ent;

typedef struct build {
    sy_dispatch *d;
    memo_ent *m;
    size_t nm, mcap;
    uint32_t *hix; /* open addressing over m by hash: index + 1, 0 empty */
    size_t hcap;   /* a power of two, >= 2 * nm */
} build;

/* (re)build the hash index of the memo at capacity nc */
static int memo_rehash(build *b, size_t nc)
{
    uint32_t *h = zarray(b->d, nc, sizeof *h);
    if (!h) return -1;
    for (size_t i = 0; i < b->nm; i++) {
        size_t j = (size_t)b->m[i].h & (nc - 1);
        while (h[j]) j = (j + 1) & (nc - 1);
        h[j] = (uint32_t)i + 1;
    }
    b->hix = h;
    b->hcap = nc;
    return 0;
}

static uint64_t hash_set(int k, const uint32_t *e, uint32_t n)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)k;
    for (uint32_t i = 0; i < n; i++) h = (h ^ e[i]) * 1099511628211ull;
    return h;
}

static sy_status new_tnode(sy_dispatch *d, uint32_t *out)
{
    if (grow(d, (void **)&d->tn, d->ntn, &d->tcap, sizeof *d->tn)) return SY_ENOMEM;
    memset(&d->tn[d->ntn], 0, sizeof *d->tn);
    *out = (uint32_t)d->ntn++;
    return SY_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static sy_status subtree(build *b, int k, const uint32_t *ents, uint32_t n, size_t depth, uint32_t *out);

/* a balanced search over breakpoints pts[lo..hi) of split k; interval j is [pts[j-1], pts[j]) */
static sy_status search(build *b, int k, const int64_t *pts, size_t lo, size_t hi, const uint32_t *ents, uint32_t n,
                        size_t depth, uint32_t *out)
{
    sy_dispatch *d = b->d;
    if (lo == hi) {
        /* the interval [pts[lo-1], pts[lo]) (unbounded at the ends): the entries containing it */
        int64_t a = lo ? pts[lo - 1] : INT64_MIN;
        uint32_t *alive = zarray(d, n + 1, sizeof *alive), na = 0;
        if (!alive) return SY_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            const dentry *e = &d->ent[ents[i]];
            if (e->lo[k] <= a && a <= e->hi[k]) alive[na++] = ents[i];
        }
        return subtree(b, k + 1, alive, na, depth, out);
    }
    size_t mid = lo + (hi - lo) / 2;
    uint32_t me, l, r;
    sy_status st = new_tnode(d, &me);
    if (st != SY_OK) return st;
    if ((st = search(b, k, pts, lo, mid, ents, n, depth + 1, &l)) != SY_OK) return st;
    if ((st = search(b, k, pts, mid + 1, hi, ents, n, depth + 1, &r)) != SY_OK) return st;
    tnode *t = &d->tn[me];
    t->slot = d->split[k];
    t->thr = pts[mid];
    t->lo = l;
    t->hi = r;
    *out = me;
    return SY_OK;
}

static sy_status subtree(build *b, int k, const uint32_t *ents, uint32_t n, size_t depth, uint32_t *out)
{
    sy_dispatch *d = b->d;
    uint64_t h = hash_set(k, ents, n);
    if (!b->hix && memo_rehash(b, 64)) return SY_ENOMEM;
    /* subtrees with the same entries at the same split are one node (a hash lookup) */
    for (size_t j = (size_t)h & (b->hcap - 1); b->hix[j]; j = (j + 1) & (b->hcap - 1)) {
        const memo_ent *m = &b->m[b->hix[j] - 1];
        if (m->h == h && m->k == k && m->n == n && (!n || !memcmp(m->ents, ents, n * sizeof *ents))) {
            *out = m->node;
            return SY_OK;
        }
    }
    sy_status st;
    uint32_t me = 0;
    /* the breakpoints of split k among these entries */
    size_t np = 0;
    int64_t *pts = NULL;
    if ((size_t)k < d->nsplit && n > 0 && d->ntn < d->budget) {
        pts = zarray(d, 2 * (size_t)n + 1, sizeof *pts);
        if (!pts) return SY_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            const dentry *e = &d->ent[ents[i]];
            if (e->lo[k] > e->hi[k]) continue;
            if (e->lo[k] != INT64_MIN) pts[np++] = e->lo[k];
            if (e->hi[k] != INT64_MAX) pts[np++] = e->hi[k] + 1;
        }
        qsort(pts, np, sizeof *pts, cmp_i64);
        size_t w = 0;
        for (size_t i = 0; i < np; i++)
            if (!w || pts[i] != pts[w - 1]) pts[w++] = pts[i];
        np = w;
    }
    if ((size_t)k < d->nsplit && n > 0 && d->ntn < d->budget) {
        if ((st = search(b, k, pts, 0, np, ents, n, depth, &me)) != SY_OK) return st;
    } else {
        if ((st = new_tnode(d, &me)) != SY_OK) return st;
        tnode *t = &d->tn[me];
        t->leaf = 1;
        t->nent = n;
        t->ent = zarray(d, n + 1, sizeof *t->ent);
        if (!t->ent) return SY_ENOMEM;
        if (n) memcpy(t->ent, ents, n * sizeof *ents);
        t->kdone = k;
        if (depth > d->depth) d->depth = depth;
        if (n > d->max_leaf) d->max_leaf = n;
    }
    if (grow(d, (void **)&b->m, b->nm, &b->mcap, sizeof *b->m)) return SY_ENOMEM;
    b->m[b->nm++] = (memo_ent){k, h, n, (uint32_t *)ents, me};
    if (2 * b->nm > b->hcap) {
        if (memo_rehash(b, 2 * b->hcap)) return SY_ENOMEM;
    } else {
        size_t j = (size_t)h & (b->hcap - 1);
        while (b->hix[j]) j = (j + 1) & (b->hcap - 1);
        b->hix[j] = (uint32_t)b->nm;
    }
    *out = me;
    return SY_OK;
}

/* ---- construction */

typedef struct src_set {
    size_t nsrc;
    const char **src;
    size_t ng;
    const sy_expr **g;
} src_set;

static sy_status finish(sy_dispatch *d, size_t n, src_set *ss)
{
    sy_status st;
    d->nsrc = ss[0].nsrc;
    d->src = ss[0].src;
    for (size_t i = 1; i < n; i++) {
        if (ss[i].nsrc != d->nsrc)
            return sy_fail_st(d->ctx, SY_EINVAL, "dispatch: entry %zu has %zu sources, entry 0 has %zu (one model)", i, ss[i].nsrc,
                              d->nsrc);
        for (size_t s = 0; s < d->nsrc; s++)
            if (strcmp(ss[i].src[s], d->src[s]))
                return sy_fail_st(d->ctx, SY_EINVAL, "dispatch: entry %zu: source %zu is %s, entry 0 has %s (one model)", i, s,
                                  ss[i].src[s], d->src[s]);
    }
    d->nent = n;
    d->ent = zarray(d, n, sizeof *d->ent);
    if (!d->ent) return SY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        dentry *e = &d->ent[i];
        e->g = zarray(d, ss[i].ng + 1, sizeof *e->g);
        if (!e->g) return SY_ENOMEM;
        for (size_t j = 0; j < ss[i].ng; j++) {
            uint32_t gid;
            if ((st = add_guard(d, ss[i].g[j], &gid)) != SY_OK) return st;
            e->g[e->ng++] = gid;
        }
    }
    /* split the sources some interval guard reads, most breakpoints first */
    size_t *cnt = zarray(d, d->nsrc + 1, sizeof *cnt);
    d->split = zarray(d, d->nsrc + 1, sizeof *d->split);
    if (!cnt || !d->split) return SY_ENOMEM;
    for (size_t g = 0; g < d->ngd; g++)
        if (d->gd[g].slot >= 0) cnt[d->gd[g].slot]++;
    for (;;) {
        size_t best = d->nsrc;
        for (size_t s = 0; s < d->nsrc; s++)
            if (cnt[s] && (best == d->nsrc || cnt[s] > cnt[best])) best = s;
        if (best == d->nsrc) break;
        cnt[best] = 0;
        d->split[d->nsplit++] = best;
    }
    for (size_t g = 0; g < d->ngd; g++)
        for (size_t k = 0; k < d->nsplit; k++)
            if (d->gd[g].slot == (long)d->split[k]) d->gd[g].rank = (int)k;
    size_t nbp = 0;
    for (size_t i = 0; i < n; i++) {
        dentry *e = &d->ent[i];
        e->lo = zarray(d, d->nsplit + 1, sizeof *e->lo);
        e->hi = zarray(d, d->nsplit + 1, sizeof *e->hi);
        if (!e->lo || !e->hi) return SY_ENOMEM;
        for (size_t k = 0; k < d->nsplit; k++) {
            e->lo[k] = INT64_MIN;
            e->hi[k] = INT64_MAX;
        }
        for (uint32_t j = 0; j < e->ng; j++) {
            const dguard *g = &d->gd[e->g[j]];
            if (g->rank == INT32_MAX) continue;
            if (g->lo > e->lo[g->rank]) e->lo[g->rank] = g->lo;
            if (g->hi < e->hi[g->rank]) e->hi[g->rank] = g->hi;
        }
        nbp += 2 * d->nsplit;
    }
    d->budget = 64 * (n + nbp) + 4096;
    uint32_t *all = zarray(d, n, sizeof *all);
    if (!all) return SY_ENOMEM;
    for (size_t i = 0; i < n; i++) all[i] = (uint32_t)i;
    build b = {d, NULL, 0, 0, NULL, 0};
    return subtree(&b, 0, all, (uint32_t)n, 0, &d->root);
}

static sy_status dispatch_init(sy_ctx *ctx, size_t n, sy_dispatch **out, src_set **ss)
{
    if (out) *out = NULL;
    if (!ctx || !out) return ctx ? sy_fail_st(ctx, SY_EINVAL, "dispatch: NULL argument") : SY_EINVAL;
    if (!n || n > UINT32_MAX / 4) return sy_fail_st(ctx, SY_EINVAL, "dispatch: %zu entries (1 or more)", n);
    sy_dispatch *d = sy_alloc(ctx, sizeof *d);
    if (!d) return sy_oom(ctx), SY_ENOMEM;
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
    if (!sy_memo_init(ctx, &d->node_of) || !sy_memo_init(ctx, &d->guard_of) || !(*ss = zarray(d, n, sizeof **ss))) {
        sy_dispatch_free(d);
        return sy_oom(ctx), SY_ENOMEM;
    }
    *out = d;
    return SY_OK;
}

static char *dstr(sy_dispatch *d, const char *s)
{
    size_t n = strlen(s);
    char *r = zalloc(d, n + 1);
    if (r) memcpy(r, s, n + 1);
    return r;
}

sy_status sy_dispatch_new(sy_ctx *ctx, size_t n, const sy_gset *const *sets, sy_dispatch **out)
{
    src_set *ss = NULL;
    sy_dispatch *d;
    if (!sets && ctx) return sy_fail_st(ctx, SY_EINVAL, "dispatch: NULL sets");
    sy_status st = dispatch_init(ctx, n, &d, &ss);
    if (st != SY_OK) return st;
    for (size_t i = 0; i < n && st == SY_OK; i++) {
        const sy_gset *gs = sets[i];
        if (!gs) {
            st = sy_fail_st(ctx, SY_EINVAL, "dispatch: set %zu is NULL", i);
            break;
        }
        ss[i].nsrc = sy_gset_nsources(gs);
        ss[i].src = zarray(d, ss[i].nsrc + 1, sizeof *ss[i].src);
        ss[i].g = zarray(d, sy_gset_size(gs) + 1, sizeof *ss[i].g);
        if (!ss[i].src || !ss[i].g) {
            st = SY_ENOMEM;
            break;
        }
        for (size_t s = 0; s < ss[i].nsrc && st == SY_OK; s++)
            if (!(ss[i].src[s] = dstr(d, sy_gset_source(gs, s)))) st = SY_ENOMEM;
        sy_ctx *gctx = sy_gset_ctx(gs);
        for (size_t j = 0; j < sy_gset_size(gs) && st == SY_OK; j++) {
            if (sy_gset_at(gs, j)->kind == SY_GK_RUNTIME_ASSERT) continue;
            char *c = sy_gset_guard_canonical(gs, j);
            if (!c) {
                st = sy_ctx_last_error(gctx) ? sy_ctx_last_error(gctx) : SY_ENOMEM;
                if (gctx != ctx) sy_fail_st(ctx, st, "dispatch: set %zu guard %zu: %s", i, j, sy_ctx_last_error_msg(gctx));
                break;
            }
            const sy_expr *e = NULL;
            st = sy_expr_parse(ctx, c, (size_t)-1, &e);
            sy_str_free(gctx, c);
            if (st == SY_OK) ss[i].g[ss[i].ng++] = e;
        }
    }
    if (st == SY_OK) st = finish(d, n, ss);
    if (st != SY_OK) {
        sy_dispatch_free(d);
        return st;
    }
    *out = d;
    return SY_OK;
}

sy_status sy_dispatch_new_json(sy_ctx *ctx, size_t n, const char *const *texts, const size_t *lens, sy_dispatch **out)
{
    src_set *ss = NULL;
    sy_dispatch *d;
    if ((!texts || !lens) && ctx) return sy_fail_st(ctx, SY_EINVAL, "dispatch: NULL texts");
    sy_status st = dispatch_init(ctx, n, &d, &ss);
    if (st != SY_OK) return st;
    for (size_t i = 0; i < n && st == SY_OK; i++) {
        json_error_t err;
        json_t *root = texts[i] ? json_loadb(texts[i], lens[i] == (size_t)-1 ? strlen(texts[i]) : lens[i], JSON_REJECT_DUPLICATES, &err)
                                : NULL;
        json_t *srcs = json_object_get(root, "sources"), *gs = json_object_get(root, "guards");
        json_t *fmt = json_object_get(root, "format");
        if (!root) st = sy_fail_st(ctx, SY_EFORMAT, "dispatch: entry %zu:%d:%d: %s", i, err.line, err.column, texts[i] ? err.text : "NULL");
        else if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "symshape.guards") || !json_is_array(srcs) || !json_is_array(gs) ||
                 !json_is_integer(json_object_get(root, "version")) || json_integer_value(json_object_get(root, "version")) != 1)
            st = sy_fail_st(ctx, SY_EFORMAT, "dispatch: entry %zu: not a guard set (\"format\": \"symshape.guards\", \"version\": 1)", i);
        if (st == SY_OK) {
            ss[i].nsrc = json_array_size(srcs);
            ss[i].src = zarray(d, ss[i].nsrc + 1, sizeof *ss[i].src);
            ss[i].g = zarray(d, json_array_size(gs) + 1, sizeof *ss[i].g);
            if (!ss[i].src || !ss[i].g) st = SY_ENOMEM;
        }
        for (size_t s = 0; st == SY_OK && s < ss[i].nsrc; s++) {
            json_t *v = json_array_get(srcs, s);
            if (!json_is_string(v)) st = sy_fail_st(ctx, SY_EFORMAT, "dispatch: entry %zu: sources[%zu] is not a string", i, s);
            else if (!(ss[i].src[s] = dstr(d, json_string_value(v)))) st = SY_ENOMEM;
        }
        for (size_t j = 0; st == SY_OK && j < json_array_size(gs); j++) {
            json_t *g = json_array_get(gs, j);
            json_t *kind = json_object_get(g, "kind"), *ex = json_object_get(g, "expr");
            if (!json_is_string(kind) || !json_is_string(ex)) {
                st = sy_fail_st(ctx, SY_EFORMAT, "dispatch: entry %zu: guards[%zu] needs string fields \"kind\" and \"expr\"", i, j);
                break;
            }
            if (!strcmp(json_string_value(kind), "runtime_assert")) continue;
            const sy_expr *e = NULL;
            if ((st = sy_expr_parse(ctx, json_string_value(ex), (size_t)-1, &e)) != SY_OK) {
                if (st != SY_ENOMEM)
                    st = sy_fail_st(ctx, SY_EFORMAT, "dispatch: entry %zu: guards[%zu]: expr does not parse: %s", i, j,
                                    sy_ctx_last_error_msg(ctx));
                break;
            }
            if (!sy_expr_is_bool(e)) {
                st = sy_fail_st(ctx, SY_EFORMAT, "dispatch: entry %zu: guards[%zu]: expr is not a relation", i, j);
                break;
            }
            /* every symbol it reads is a slot _sK of the set (a free symbol or a slot past the
             * sources was compiled to a guard that always fails: refused by name instead) */
            const sy_expr **syms = NULL;
            size_t nsy = 0;
            if ((st = sy_expr_free_symbols(ctx, e, &syms, &nsy)) != SY_OK) break;
            for (size_t k = 0; k < nsy && st == SY_OK; k++)
                if (slot_in(ss[i].nsrc, syms[k]) < 0)
                    st = sy_fail_st(ctx, SY_EFORMAT, "dispatch: entry %zu: guards[%zu]: expr reads '%s', not one of its %zu sources (_s0 .. _s%zu)",
                                    i, j, sy_expr_sym_name(syms[k]), ss[i].nsrc, ss[i].nsrc ? ss[i].nsrc - 1 : 0);
            sy_mem_free(ctx, syms);
            if (st != SY_OK) break;
            ss[i].g[ss[i].ng++] = e;
        }
        json_decref(root);
    }
    if (st == SY_OK) st = finish(d, n, ss);
    if (st != SY_OK) {
        sy_dispatch_free(d);
        return st;
    }
    *out = d;
    return SY_OK;
}

size_t sy_dispatch_nsources(const sy_dispatch *d) { return d ? d->nsrc : 0; }
const char *sy_dispatch_source(const sy_dispatch *d, size_t i) { return d && i < d->nsrc ? d->src[i] : NULL; }
size_t sy_dispatch_nentries(const sy_dispatch *d) { return d ? d->nent : 0; }
size_t sy_dispatch_frame_len(const sy_dispatch *d) { return d ? 2 * d->nn + 1 : 0; }

void sy_dispatch_stats(const sy_dispatch *d, size_t *guards, size_t *nodes, size_t *tree_nodes, size_t *depth,
                       size_t *split_sources, size_t *max_leaf)
{
    if (guards) *guards = d ? d->ngd : 0;
    if (nodes) *nodes = d ? d->nn : 0;
    if (tree_nodes) *tree_nodes = d ? d->ntn : 0;
    if (depth) *depth = d ? d->depth : 0;
    if (split_sources) *split_sources = d ? d->nsplit : 0;
    if (max_leaf) *max_leaf = d ? d->max_leaf : 0;
}

/* ---- the C form */

typedef struct cbuf {
    sy_ctx *ctx;
    char *p;
    size_t n, cap;
    int failed;
} cbuf;

static void cput(cbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void cput(cbuf *b, const char *fmt, ...)
{
    if (b->failed) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
        b->failed = 1;
        return;
    }
    if (!b->p || b->n + (size_t)k + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + (size_t)k + 1) nc *= 2;
        char *q = sy_realloc(b->ctx, b->p, b->cap, nc);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = nc;
        va_start(ap, fmt);
        vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
    }
    b->n += (size_t)k;
}

static const char c_helpers[] =
    "static inline int %s_add(int64_t a, int64_t b, int64_t *r)\n"
    "{\n    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 1;\n    *r = a + b;\n    return 0;\n}\n"
    "static inline int %s_mul(int64_t a, int64_t b, int64_t *r)\n"
    "{\n    if (a == 0 || b == 0) {\n        *r = 0;\n        return 0;\n    }\n"
    "    if (a == -1 || b == -1) {\n        int64_t o = a == -1 ? b : a;\n        if (o == INT64_MIN) return 1;\n        *r = -o;\n        return 0;\n    }\n"
    "    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b)) return 1;\n"
    "    *r = a * b;\n    return 0;\n}\n"
    "static inline int %s_floordiv(int64_t a, int64_t b, int64_t *r)\n"
    "{\n    if (b == 0) return 1;\n    if (b == -1) {\n        if (a == INT64_MIN) return 1;\n        *r = -a;\n        return 0;\n    }\n"
    "    *r = a / b - ((a %% b != 0) && ((a < 0) != (b < 0)));\n    return 0;\n}\n"
    "static inline int %s_mod(int64_t a, int64_t b, int64_t *r)\n"
    "{\n    if (b == 0) return 1;\n    if (b == -1) {\n        *r = 0;\n        return 0;\n    }\n"
    "    *r = a %% b;\n    if (*r != 0 && ((*r < 0) != (b < 0))) *r += b;\n    return 0;\n}\n"
    "static inline int %s_ceildiv(int64_t a, int64_t b, int64_t *r)\n"
    "{\n    if (b == 0) return 1;\n    if (b == -1) {\n        if (a == INT64_MIN) return 1;\n        *r = -a;\n        return 0;\n    }\n"
    "    *r = a / b + ((a %% b != 0) && ((a < 0) == (b < 0)));\n    return 0;\n}\n";

static void c_int(cbuf *b, int64_t v)
{
    if (v == INT64_MIN) cput(b, "INT64_MIN");
    else cput(b, "INT64_C(%lld)", (long long)v);
}

static void c_guard(cbuf *b, const sy_dispatch *d, const char *px, size_t gi)
{
    const dguard *g = &d->gd[gi];
    cput(b, "static inline int %s_g%zu(const int64_t *v)\n{\n    int64_t t = 0;\n    (void)v;\n    (void)t;\n", px, gi);
    for (uint32_t i = 0; i < g->nlist; i++) {
        uint32_t k = g->list[i];
        const dnode *n = &d->nodes[k];
        cput(b, "    int64_t n%u = 0;\n", k);
        switch (n->kind) {
        case N_CONST: cput(b, "    n%u = ", k), c_int(b, n->k), cput(b, ";\n"); break;
        case N_SLOT: cput(b, "    n%u = v[%lld];\n", k, (long long)n->k); break;
        case N_ADD:
            cput(b, "    n%u = ", k), c_int(b, n->k), cput(b, ";\n");
            for (uint32_t a = 0; a < n->nargs; a++) {
                cput(b, "    if (%s_mul(", px), c_int(b, n->coef[a]);
                cput(b, ", n%u, &t) || %s_add(n%u, t, &n%u)) return 0;\n", n->args[a], px, k, k);
            }
            break;
        case N_MUL:
            cput(b, "    n%u = 1;\n", k);
            for (uint32_t a = 0; a < n->nargs; a++) cput(b, "    if (%s_mul(n%u, n%u, &n%u)) return 0;\n", px, k, n->args[a], k);
            break;
        case N_POW:
            cput(b, "    n%u = 1;\n    if (n%u == -1) n%u = %d;\n    else if (n%u == 0 || n%u == 1) n%u = n%u;\n", k, n->args[0], k,
                 (n->k % 2) ? -1 : 1, n->args[0], n->args[0], k, n->args[0]);
            cput(b, "    else {\n        int64_t i;\n        for (i = 0; i < INT64_C(%lld); i++)\n            if (%s_mul(n%u, n%u, &n%u)) return 0;\n    }\n",
                 (long long)n->k, px, k, n->args[0], k);
            break;
        case N_FLOORDIV:
        case N_MOD:
        case N_CEILDIV:
            cput(b, "    if (%s_%s(n%u, n%u, &n%u)) return 0;\n", px, n->kind == N_FLOORDIV ? "floordiv" : n->kind == N_MOD ? "mod" : "ceildiv",
                 n->args[0], n->args[1], k);
            break;
        case N_MIN:
        case N_MAX:
            cput(b, "    n%u = n%u;\n", k, n->args[0]);
            for (uint32_t a = 1; a < n->nargs; a++)
                cput(b, "    if (n%u %s n%u) n%u = n%u;\n", n->args[a], n->kind == N_MIN ? "<" : ">", k, k, n->args[a]);
            break;
        case N_EQ: cput(b, "    n%u = n%u == 0;\n", k, n->args[0]); break;
        case N_NE: cput(b, "    n%u = n%u != 0;\n", k, n->args[0]); break;
        case N_LE: cput(b, "    n%u = n%u <= 0;\n", k, n->args[0]); break;
        case N_AND:
        case N_OR:
            cput(b, "    n%u = %d;\n", k, n->kind == N_AND);
            for (uint32_t a = 0; a < n->nargs; a++)
                cput(b, "    if (%sn%u) n%u = %d;\n", n->kind == N_AND ? "!" : "", n->args[a], k, n->kind == N_OR);
            break;
        default: cput(b, "    return 0; /* not representable in int64 */\n"); break;
        }
    }
    cput(b, "    return n%u != 0;\n}\n", g->root);
}

char *sy_dispatch_to_c(const sy_dispatch *d, const char *prefix)
{
    if (!d) return NULL;
    if (!prefix || !*prefix || (prefix[0] >= '0' && prefix[0] <= '9')) return SY_NFAIL(d->ctx, SY_EINVAL, "dispatch: prefix must be a C identifier");
    for (const char *p = prefix; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return SY_NFAIL(d->ctx, SY_EINVAL, "dispatch: prefix must be a C identifier");
    cbuf b = {d->ctx, NULL, 0, 0, 0};
    const char *px = prefix;
    cput(&b, "/* Generated by symshape (sy_dispatch_to_c): the dispatcher of %zu guard sets of one model.\n"
             " * %s_dispatch(v) returns the first entry accepting the %zu source values v, or -1; int64\n"
             " * overflow or a zero divisor fails the guard (closed). docs/guards.md section 9. */\n"
             "#include <stddef.h>\n#include <stdint.h>\n\n",
         d->nent, px, d->nsrc);
    cput(&b, "const size_t %s_nsources = %zu;\nconst char *const %s_sources[] = {", px, d->nsrc, px);
    for (size_t s = 0; s < d->nsrc; s++) {
        cput(&b, "%s\"", s ? ", " : "");
        for (const char *q = d->src[s]; *q; q++) cput(&b, (*q == '"' || *q == '\\') ? "\\%c" : (*q < 32 || *q > 126) ? "\\%03o" : "%c", (unsigned char)*q);
        cput(&b, "\"");
    }
    cput(&b, "%s};\n\n", d->nsrc ? "" : "0");
    cput(&b, c_helpers, px, px, px, px, px);
    for (size_t g = 0; g < d->ngd; g++) c_guard(&b, d, px, g);
    cput(&b, "\nlong %s_dispatch(const int64_t *v)\n{\n    goto t%u;\n", px, d->root);
    for (size_t i = 0; i < d->ntn; i++) {
        const tnode *t = &d->tn[i];
        cput(&b, "t%zu:\n", i);
        if (!t->leaf) {
            cput(&b, "    if (v[%zu] < ", t->slot), c_int(&b, t->thr), cput(&b, ") goto t%u;\n    goto t%u;\n", t->lo, t->hi);
            continue;
        }
        for (uint32_t e = 0; e < t->nent; e++) {
            const dentry *en = &d->ent[t->ent[e]];
            cput(&b, "    if (1");
            for (uint32_t j = 0; j < en->ng; j++)
                if (d->gd[en->g[j]].rank >= t->kdone) cput(&b, " && %s_g%u(v)", px, en->g[j]);
            cput(&b, ") return %u;\n", t->ent[e]);
        }
        cput(&b, "    return -1;\n");
    }
    cput(&b, "}\n");
    if (b.failed) {
        if (b.p) sy_dealloc(d->ctx, b.p, b.cap);
        return SY_NOOM(d->ctx);
    }
    char *r = sy_alloc(d->ctx, b.n + 1);
    if (r) memcpy(r, b.p, b.n + 1);
    sy_dealloc(d->ctx, b.p, b.cap);
    return r ? r : SY_NOOM(d->ctx);
}

/* ---- the structure, read-only (dispatch.h): for the bytecode form */

_Static_assert(N_CONST == (int)SY_DOP_CONST && N_SLOT == (int)SY_DOP_SLOT && N_ADD == (int)SY_DOP_ADD && N_MUL == (int)SY_DOP_MUL &&
                   N_POW == (int)SY_DOP_POW && N_FLOORDIV == (int)SY_DOP_FLOORDIV && N_MOD == (int)SY_DOP_MOD &&
                   N_CEILDIV == (int)SY_DOP_CEILDIV && N_MIN == (int)SY_DOP_MIN && N_MAX == (int)SY_DOP_MAX &&
                   N_EQ == (int)SY_DOP_EQ && N_NE == (int)SY_DOP_NE && N_LE == (int)SY_DOP_LE && N_AND == (int)SY_DOP_AND &&
                   N_OR == (int)SY_DOP_OR && N_BAD == (int)SY_DOP_BAD,
               "node kinds and sy_dispatch_op agree");

sy_ctx *sy_dispatch_ctx(const sy_dispatch *d) { return d ? d->ctx : NULL; }
size_t sy_dispatch_nnodes(const sy_dispatch *d) { return d ? d->nn : 0; }

sy_status sy_dispatch_get_node(const sy_dispatch *d, size_t i, sy_dispatch_node *out)
{
    if (!d || !out || i >= d->nn) return SY_EINVAL;
    const dnode *n = &d->nodes[i];
    out->op = (sy_dispatch_op)n->kind;
    out->nargs = n->nargs;
    out->args = n->args;
    out->coef = n->kind == N_ADD ? n->coef : NULL;
    out->k = n->k;
    return SY_OK;
}

sy_status sy_dispatch_get_guard(const sy_dispatch *d, size_t i, uint32_t *root, const uint32_t **list, size_t *nlist, char **text)
{
    if (text) *text = NULL;
    if (!d || i >= d->ngd) return SY_EINVAL;
    const dguard *g = &d->gd[i];
    if (root) *root = g->root;
    if (list) *list = g->list;
    if (nlist) *nlist = g->nlist;
    if (text && !(*text = sy_expr_print(d->ctx, g->expr, SY_PRINT_CANONICAL)))
        return sy_ctx_last_error(d->ctx) ? sy_ctx_last_error(d->ctx) : SY_ENOMEM;
    return SY_OK;
}

sy_status sy_dispatch_get_entry(const sy_dispatch *d, size_t e, const uint32_t **guards, size_t *nguards)
{
    if (!d || e >= d->nent) return SY_EINVAL;
    if (guards) *guards = d->ent[e].g;
    if (nguards) *nguards = d->ent[e].ng;
    return SY_OK;
}

size_t sy_dispatch_guard_rank(const sy_dispatch *d, size_t g)
{
    if (!d || g >= d->ngd || d->gd[g].rank == INT32_MAX) return SIZE_MAX;
    return (size_t)d->gd[g].rank;
}

size_t sy_dispatch_ntree(const sy_dispatch *d) { return d ? d->ntn : 0; }
size_t sy_dispatch_root(const sy_dispatch *d) { return d ? d->root : 0; }

sy_status sy_dispatch_get_tnode(const sy_dispatch *d, size_t i, sy_dispatch_tnode *out)
{
    if (!d || !out || i >= d->ntn) return SY_EINVAL;
    const tnode *t = &d->tn[i];
    out->leaf = t->leaf;
    out->slot = t->slot;
    out->thr = t->thr;
    out->lo = t->lo;
    out->hi = t->hi;
    out->nent = t->nent;
    out->ent = t->ent;
    out->kdone = (size_t)t->kdone;
    return SY_OK;
}
