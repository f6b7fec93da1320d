/* Guard sets: minimization (sy_gset_minimize): cost order, dropping implied
 * guards, the Implied list. The witness points that prove a guard NOT implied
 * are in gset_witness.c. See docs/guards.md, "Minimization". */
#include "guards/gset_private.h"

/* Tree size of e (every node counted once per occurrence, as a printer
 * would), saturating; memoized on node identity so that a guard over a
 * shared DAG (a nested FloorDiv chain) costs its number of distinct nodes
 * to measure, not its exponential tree size. */
typedef struct { sy_ctx *ctx; const sy_expr **k; size_t *v; size_t cap, n; bool off; } costmemo;

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX / 2 - b ? SIZE_MAX / 2 : a + b; }

static void cost_put(costmemo *m, const sy_expr *e, size_t n)
{
    if (m->off) return;
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        if (!sy_etab_grow(m->ctx, &m->k, (void **)&m->v, sizeof *m->v, m->cap, nc)) { /* no memo: the walk stays exact, only slower */
            if (sy_ctx_last_error(m->ctx) == SY_ENOMEM) sy_ctx_reset_error(m->ctx);
            m->off = true;
            return;
        }
        m->cap = nc;
    }
    size_t j = (size_t)sy_expr_hash(e) & (m->cap - 1);
    while (m->k[j]) j = (j + 1) & (m->cap - 1);
    m->k[j] = e;
    m->v[j] = n;
    m->n++;
}

static size_t expr_cost_rec(costmemo *m, const sy_expr *e)
{
    size_t na = sy_expr_nargs(e);
    if (na == 0) return 1;
    if (m->k) {
        size_t j = (size_t)sy_expr_hash(e) & (m->cap - 1);
        while (m->k[j]) {
            if (m->k[j] == e) return m->v[j];
            j = (j + 1) & (m->cap - 1);
        }
    }
    size_t n = 1;
    for (size_t i = 0; i < na; i++) n = sat_add(n, expr_cost_rec(m, sy_expr_arg(e, i)));
    cost_put(m, e, n);
    return n;
}

/* expr_cost_rec without the memo while the tree has at most *left nodes
 * (false once it has more): a small guard's count needs no table */
static bool cost_within(const sy_expr *e, size_t *left, size_t *n)
{
    if (*left == 0) return false;
    (*left)--;
    size_t na = sy_expr_nargs(e);
    size_t c = 1;
    for (size_t i = 0; i < na; i++) {
        size_t ci;
        if (!cost_within(sy_expr_arg(e, i), left, &ci)) return false;
        c += ci;
    }
    *n = c;
    return true;
}

static size_t expr_cost(sy_ctx *ctx, const sy_expr *e)
{
    size_t left = 1024, small;
    if (cost_within(e, &left, &small)) return small; /* at most 1024: no saturation either */
    costmemo m = {ctx, NULL, NULL, 0, 0, false};
    size_t c = expr_cost_rec(&m, e);
    if (m.k) {
        sy_dealloc(ctx, m.k, m.cap * sizeof *m.k);
        sy_dealloc(ctx, m.v, m.cap * sizeof *m.v);
    }
    return c;
}

static int guard_order(const void *x, const void *y)
{
    const gguard *a = x, *b = y;
    if (a->pub.kind != b->pub.kind) return a->pub.kind < b->pub.kind ? -1 : 1;
    size_t ca = a->cost, cb = b->cost;
    if (a->pub.kind >= SY_GK_RELATION && ca != cb) return ca < cb ? -1 : 1;
    size_t sa = a->pub.nslots ? a->pub.slots[0] : (size_t)-1, sb = b->pub.nslots ? b->pub.slots[0] : (size_t)-1;
    if (sa != sb) return sa < sb ? -1 : 1;
    return sy_expr_cmp(a->pub.expr, b->pub.expr);
}

/* single-variable bound: v <= c (upper) or c <= v (lower) */
bool as_bound(const sy_expr *e, const sy_expr **v, int *upper, fmpz_t c)
{
    if (sy_expr_kind_of(e) != SY_EXPR_LE) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) == SY_EXPR_SYM) {
        *v = d;
        *upper = 1;
        fmpz_zero(c);
        return true;
    }
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) != 1 || sy_expr_kind_of(sy_expr_arg(d, 0)) != SY_EXPR_SYM)
        return false;
    *v = sy_expr_arg(d, 0);
    const fmpz *a = sy_expr_add_coef_ref(d, 0);
    *upper = fmpz_sgn(a) > 0;
    /* d = a*v + c0 with a = +-1: upper v <= -c0; lower v >= c0 */
    if (*upper) fmpz_neg(c, sy_expr_add_c0_ref(d));
    else fmpz_set(c, sy_expr_add_c0_ref(d));
    return fmpz_is_pm1(a);
}

static void drop_guard(gguard *gg) { gg->dead = true; }

/* Non-constant divisors of e (check() fails a guard whose divisor is 0, while
 * the decision procedure reasons only where divisions are defined), in the
 * order of a tree walk, repeats included, at most cap (*n == cap: too many,
 * or the memo could not be allocated). Subtrees found to hold no divisor are
 * remembered (memo on node identity) and skipped, and the walk stops at cap:
 * the same list as the plain tree walk, without its exponential time on a
 * nested FloorDiv chain. */
static void collect_divisors_rec(const sy_expr *e, sy_ctx *ctx, sy_memo *nodiv, const sy_expr **out, size_t *n, size_t cap)
{
    if (*n >= cap || sy_memo_get(nodiv, e)) return;
    size_t before = *n;
    sy_expr_kind k = sy_expr_kind_of(e);
    if ((k == SY_EXPR_FLOORDIV || k == SY_EXPR_MOD || k == SY_EXPR_CEILDIV) && !sy_expr_is_int(sy_expr_arg(e, 1)))
        out[(*n)++] = sy_expr_arg(e, 1);
    for (size_t i = 0; i < sy_expr_nargs(e) && *n < cap; i++) collect_divisors_rec(sy_expr_arg(e, i), ctx, nodiv, out, n, cap);
    if (*n == before && !sy_memo_put(ctx, nodiv, e, e)) *n = cap;
}

void collect_divisors(sy_ctx *ctx, const sy_expr *e, const sy_expr **out, size_t *n, size_t cap)
{
    sy_memo seen;
    if (!sy_memo_init(ctx, &seen)) {
        *n = cap;
        return;
    }
    collect_divisors_rec(e, ctx, &seen, out, n, cap);
    sy_memo_clear(ctx, &seen);
}

size_t uf_find(size_t *parent, size_t x)
{
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* The guards that serve as facts for one another in minimization. */
bool is_fact_guard(const gguard *g)
{
    return g->pub.kind != SY_GK_TENSOR_MATCH && g->pub.kind != SY_GK_RUNTIME_ASSERT;
}

/* Is the candidate certainly NOT implied by the other fact guards? True
 * when it is `d == 0` with d linear in symbols and some source of
 * coefficient +-1 in d is read by no other fact guard (nreaders[slot] == 1,
 * the candidate itself): from any point that satisfies the others, moving
 * that source alone keeps them satisfied and makes d non-zero. (If the
 * others are unsatisfiable, keeping the candidate is still sound.) Saves
 * building the facts of a large component for the leaves of duck-sizing
 * equalities. */
static bool surely_not_implied(const sy_gset *gs, const gguard *cand, const size_t *nreaders)
{
    const sy_expr *e = cand->pub.expr;
    if (sy_expr_kind_of(e) != SY_EXPR_EQ) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD) return false;
    size_t nt = sy_expr_nargs(d);
    for (size_t i = 0; i < nt; i++)
        if (sy_expr_kind_of(sy_expr_arg(d, i)) != SY_EXPR_SYM) return false;
    for (size_t i = 0; i < nt; i++) {
        if (!fmpz_is_pm1(sy_expr_add_coef_ref(d, i))) continue;
        const sy_expr *mono = sy_expr_arg(d, i);
        for (size_t k = 0; k < cand->pub.nslots; k++)
            if (gs->vars[cand->pub.slots[k]] == mono && nreaders[cand->pub.slots[k]] == 1) return true;
    }
    return false;
}



/* Remove the dead guards (releasing their arrays), keeping the order. */
void compact(sy_gset *gs)
{
    size_t m = 0;
    for (size_t i = 0; i < gs->n; i++) {
        if (gs->g[i].dead) {
            if (gs->g[i].orig) sy_dealloc(gs->ctx, gs->g[i].orig, gs->g[i].origcap * sizeof *gs->g[i].orig);
            continue;
        }
        gs->g[m++] = gs->g[i];
    }
    gs->n = m;
}

/* ------------------------------------------------------------------ the Implied list */

drec *add_drop(sy_gset *gs, const gguard *g, bool normalized)
{
    drec *d = galloc(gs, sizeof *d);
    if (!d) return NULL;
    memset(d, 0, sizeof *d);
    d->uid = g->uid;
    d->normalized = normalized;
    d->kind = g->pub.kind;
    d->expr = g->pub.expr;
    d->tx = g->tx;
    d->next = gs->drops;
    gs->drops = d;
    return d;
}

void drop_imp(drec *d, size_t uid)
{
    if (d->nimp < DREC_MAX) d->imp[d->nimp++] = uid;
    else d->partial = true;
}

static int size_cmp(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/* Resolve each implied guard's implying uids to kept guards (a uid dropped
 * later stands for the guards that implied it, breadth first, at most
 * DREC_VISITS records visited each), after the final order is set. */
static sy_status build_implied(sy_gset *gs)
{
    sy_ctx *ctx = gs->ctx;
    gs->impl = NULL;
    gs->nimpl = 0;
    size_t nd = 0, nu = gs->next_uid ? gs->next_uid : 1;
    for (drec *d = gs->drops; d; d = d->next) nd += !d->normalized;
    if (!nd) return SY_OK;
    size_t *at = sy_alloc(ctx, nu * sizeof *at), *seen = sy_alloc(ctx, nu * sizeof *seen);
    drec **byuid = sy_alloc(ctx, nu * sizeof *byuid);
    sy_gset_implied *out = galloc(gs, nd * sizeof *out);
    gtext **otx = galloc(gs, nd * sizeof *otx);
    sy_status st = at && seen && byuid && out && otx ? SY_OK : sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    if (!st) {
        for (size_t u = 0; u < nu; u++) {
            at[u] = SIZE_MAX;
            seen[u] = SIZE_MAX;
            byuid[u] = NULL;
        }
        for (size_t i = 0; i < gs->n; i++) at[gs->g[i].uid] = i;
        for (drec *d = gs->drops; d; d = d->next)
            if (!byuid[d->uid]) byuid[d->uid] = d;
        size_t k = 0, stamp = 0;
        /* the list in creation order of the dropped guards (drops is newest first) */
        drec **ord = sy_alloc(ctx, nd * sizeof *ord);
        if (!ord) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        size_t no = 0;
        for (drec *d = gs->drops; d && !st; d = d->next)
            if (!d->normalized) ord[no++] = d;
        for (size_t q = no; q-- > 0 && !st;) {
            drec *d = ord[q];
            size_t *by = galloc(gs, DREC_MAX * sizeof *by);
            if (!by) {
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                break;
            }
            size_t nby = 0, visits = 0;
            bool partial = d->partial;
            size_t queue[DREC_VISITS];
            size_t qh = 0, qt = 0;
            stamp++;
            seen[d->uid] = stamp;
            for (size_t j = 0; j < d->nimp && qt < DREC_VISITS; j++) queue[qt++] = d->imp[j];
            while (qh < qt) {
                size_t u = queue[qh++];
                if (u >= nu || seen[u] == stamp) continue;
                seen[u] = stamp;
                if (at[u] != SIZE_MAX) {
                    if (nby < DREC_MAX) by[nby++] = at[u];
                    else partial = true;
                } else if (byuid[u] && ++visits <= DREC_VISITS) {
                    partial |= byuid[u]->partial;
                    for (size_t j = 0; j < byuid[u]->nimp; j++) {
                        if (qt < DREC_VISITS) queue[qt++] = byuid[u]->imp[j];
                        else partial = true;
                    }
                } else {
                    partial = true;
                }
            }
            qsort(by, nby, sizeof *by, size_cmp);
            otx[k] = d->tx;
            out[k++] = (sy_gset_implied){d->kind, d->expr, NULL, NULL, NULL, nby, by, partial}; /* texts: texts_make */
        }
        if (ord) sy_dealloc(ctx, ord, nd * sizeof *ord);
        if (!st) {
            gs->impl = out;
            gs->impl_tx = otx;
            gs->nimpl = k;
        }
    }
    if (at) sy_dealloc(ctx, at, nu * sizeof *at);
    if (seen) sy_dealloc(ctx, seen, nu * sizeof *seen);
    if (byuid) sy_dealloc(ctx, byuid, nu * sizeof *byuid);
    return st;
}


/* ---- the pass */

typedef struct { uint64_t key; size_t i; } keyed;
static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

/* The live fact guards, for drop_implied: per source the fact guards reading it (ascending),
 * per component its live fact guards in a doubly linked list (ascending). Scanning the whole set
 * for each dropped guard made the pass O(n^2) on a set of n bounds tied to one source (issue 38). */
typedef struct {
    size_t *rd_at, *rd; /* CSR: rd[rd_at[s] .. rd_at[s+1]) the fact guards reading source s, ascending */
    size_t *nx, *pv;    /* per guard: the next and previous live fact guard of its component (SIZE_MAX: none) */
    size_t *head;       /* per guard that is a component root: its first live fact guard */
    size_t *mark;       /* per guard: the candidate (plus one) that took it in pass 0 */
    size_t n, nsrc, nrd;
} dindex;

static void dindex_clear(sy_ctx *ctx, dindex *x)
{
    size_t n = x->n ? x->n : 1, nrd = x->nrd ? x->nrd : 1;
    if (x->rd_at) sy_dealloc(ctx, x->rd_at, (x->nsrc + 1) * sizeof *x->rd_at);
    if (x->rd) sy_dealloc(ctx, x->rd, nrd * sizeof *x->rd);
    if (x->nx) sy_dealloc(ctx, x->nx, n * sizeof *x->nx);
    if (x->pv) sy_dealloc(ctx, x->pv, n * sizeof *x->pv);
    if (x->head) sy_dealloc(ctx, x->head, n * sizeof *x->head);
    if (x->mark) sy_dealloc(ctx, x->mark, n * sizeof *x->mark);
    memset(x, 0, sizeof *x);
}

static sy_status dindex_init(sy_gset *gs, dindex *x, const size_t *comp)
{
    sy_ctx *ctx = gs->ctx;
    memset(x, 0, sizeof *x);
    x->n = gs->n;
    x->nsrc = gs->nsrc;
    for (size_t i = 0; i < gs->n; i++)
        if (!gs->g[i].dead && is_fact_guard(&gs->g[i])) x->nrd += gs->g[i].pub.nslots;
    size_t n = x->n ? x->n : 1, nrd = x->nrd ? x->nrd : 1;
    x->rd_at = sy_alloc(ctx, (x->nsrc + 1) * sizeof *x->rd_at);
    x->rd = sy_alloc(ctx, nrd * sizeof *x->rd);
    x->nx = sy_alloc(ctx, n * sizeof *x->nx);
    x->pv = sy_alloc(ctx, n * sizeof *x->pv);
    x->head = sy_alloc(ctx, n * sizeof *x->head);
    x->mark = sy_alloc(ctx, n * sizeof *x->mark);
    if (!x->rd_at || !x->rd || !x->nx || !x->pv || !x->head || !x->mark) {
        dindex_clear(ctx, x);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    memset(x->rd_at, 0, (x->nsrc + 1) * sizeof *x->rd_at);
    for (size_t i = 0; i < gs->n; i++) {
        x->mark[i] = 0;
        x->head[i] = x->nx[i] = x->pv[i] = SIZE_MAX;
        if (gs->g[i].dead || !is_fact_guard(&gs->g[i])) continue;
        for (size_t k = 0; k < gs->g[i].pub.nslots; k++) x->rd_at[gs->g[i].pub.slots[k] + 1]++;
    }
    for (size_t s = 0; s < x->nsrc; s++) x->rd_at[s + 1] += x->rd_at[s];
    /* fill: rd_at[s] walks up to rd_at[s + 1] and is moved back after */
    for (size_t i = 0; i < gs->n; i++) {
        if (gs->g[i].dead || !is_fact_guard(&gs->g[i])) continue;
        for (size_t k = 0; k < gs->g[i].pub.nslots; k++) x->rd[x->rd_at[gs->g[i].pub.slots[k]]++] = i;
    }
    for (size_t s = x->nsrc; s > 0; s--) x->rd_at[s] = x->rd_at[s - 1];
    x->rd_at[0] = 0;
    /* the component lists, ascending (mark serves as each root's tail while linking) */
    for (size_t i = 0; i < gs->n; i++) x->mark[i] = SIZE_MAX;
    for (size_t i = 0; i < gs->n; i++) {
        if (gs->g[i].dead || !is_fact_guard(&gs->g[i])) continue;
        size_t r = comp[i];
        if (x->head[r] == SIZE_MAX) x->head[r] = i;
        else {
            x->nx[x->mark[r]] = i;
            x->pv[i] = x->mark[r];
        }
        x->mark[r] = i;
    }
    for (size_t i = 0; i < gs->n; i++) x->mark[i] = 0;
    return SY_OK;
}

/* Drop candidate i, implied by the live fact guards of its component; they
 * are recorded as its implying guards, those sharing a source with it first
 * (each group in index order, at most DREC_MAX, then the list is partial). */
static sy_status drop_implied(sy_gset *gs, size_t i, const size_t *comp, size_t *nreaders, dindex *x)
{
    gguard *cand = &gs->g[i];
    drec *d = add_drop(gs, cand, false);
    if (!d) return sy_fail_st(gs->ctx, SY_ENOMEM, "out of memory");
    /* pass 0: the sharers, ascending: a merge of the candidate's sources' lists (each
     * ascending; a guard read through two sources is taken once) */
    size_t small[8], ns = cand->pub.nslots, *cur = ns <= 8 ? small : sy_alloc(gs->ctx, ns * sizeof *cur);
    if (!cur) return sy_fail_st(gs->ctx, SY_ENOMEM, "out of memory");
    for (size_t k = 0; k < ns; k++) cur[k] = x->rd_at[cand->pub.slots[k]];
    while (!d->partial) {
        size_t best = SIZE_MAX;
        for (size_t k = 0; k < ns; k++) {
            size_t end = x->rd_at[cand->pub.slots[k] + 1];
            while (cur[k] < end && (x->rd[cur[k]] == i || gs->g[x->rd[cur[k]]].dead || x->mark[x->rd[cur[k]]] == i + 1)) cur[k]++;
            if (cur[k] < end && x->rd[cur[k]] < best) best = x->rd[cur[k]];
        }
        if (best == SIZE_MAX) break;
        drop_imp(d, gs->g[best].uid);
        x->mark[best] = i + 1;
    }
    if (cur != small) sy_dealloc(gs->ctx, cur, ns * sizeof *cur);
    /* pass 1: the rest of the component, ascending */
    for (size_t j = x->head[comp[i]]; j != SIZE_MAX && !d->partial; j = x->nx[j])
        if (j != i && x->mark[j] != i + 1) drop_imp(d, gs->g[j].uid);
    cand->dead = true;
    for (size_t k = 0; k < cand->pub.nslots; k++) nreaders[cand->pub.slots[k]]--;
    /* unlink i from its component's list */
    size_t r = comp[i];
    if (x->pv[i] != SIZE_MAX) x->nx[x->pv[i]] = x->nx[i];
    else if (x->head[r] == i) x->head[r] = x->nx[i];
    if (x->nx[i] != SIZE_MAX) x->pv[x->nx[i]] = x->pv[i];
    x->nx[i] = x->pv[i] = SIZE_MAX;
    return SY_OK;
}

/* ---- one guard implying another linear one (issue 38)
 *
 * A linear guard `a.x + a0 <= 0` over sources is often implied by ONE other linear guard
 * `b.x + b0 <= 0` and the sources' bounds: for p/q >= 0, q*(a.x + a0) = p*(b.x + b0) + r.x
 * + q*a0 - p*b0 with r = q*a - p*b, and b.x + b0 <= 0, so it holds wherever q*a0 - p*b0 + max r.x
 * <= 0 (max over the box of the sources' bounds). p/q is the least ratio that leaves no term
 * unbounded above: max a_v/b_v over the sources of b (b_v > 0) with no upper bound, at least 0.
 * The bounds are the set's single-source bounds (as_bound) at the start of the pass; a bound
 * dropped later was implied by the guards then live, so it still holds wherever they do (the
 * live fact guards always accept exactly what the produced ones accept). A chain of K Concats
 * has K widths `d0 + ... + dj <= 2^62 - 1`; each decision took the whole component as facts
 * (K^3 in all) and past 48 sources the linear layer gave up, keeping all K. The widest others of
 * the candidate's component are tried first (a wider sum is what implies a narrower one), at
 * most LIN_TRIES of them, each O(terms). Sound, not complete: what it misses goes to sy_decide. */
enum { LIN_TRIES = 4, LIN_SCAN = 16 };

typedef struct {
    size_t *ord;               /* the linear fact guards, by (component, width descending, index) */
    size_t nord;
    size_t *cstart;            /* per guard that is a component root: its first position in ord, or SIZE_MAX */
    size_t *sid;               /* per symbol id below nsid: its slot, or SIZE_MAX */
    uint32_t nsid;
    fmpz *lo, *hi;             /* per slot: its bounds, when haslo / hashi */
    unsigned char *haslo, *hashi;
    const fmpz **ca, **cb;     /* per slot scratch: the candidate's and the other's coefficients, when stamped */
    size_t *sa, *sb, tick;
    size_t n, nsrc;
    const size_t *comp;
} linindex;

/* the guard is `d <= 0` with d a sum of at least two sources (coefficients any, a constant) */
static bool lin_le(const gguard *g)
{
    const sy_expr *e = g->pub.expr;
    if (sy_expr_kind_of(e) != SY_EXPR_LE) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) < 2) return false;
    for (size_t i = 0; i < sy_expr_nargs(d); i++)
        if (sy_expr_kind_of(sy_expr_arg(d, i)) != SY_EXPR_SYM) return false;
    return true;
}

static void lin_clear(sy_ctx *ctx, linindex *L)
{
    size_t n = L->n ? L->n : 1, ns = L->nsrc ? L->nsrc : 1;
    if (L->ord) sy_dealloc(ctx, L->ord, n * sizeof *L->ord);
    if (L->cstart) sy_dealloc(ctx, L->cstart, n * sizeof *L->cstart);
    if (L->sid) sy_dealloc(ctx, L->sid, (L->nsid ? L->nsid : 1) * sizeof *L->sid);
    for (size_t s = 0; L->lo && L->hi && s < ns; s++) {
        fmpz_clear(L->lo + s);
        fmpz_clear(L->hi + s);
    }
    if (L->lo) sy_dealloc(ctx, L->lo, ns * sizeof *L->lo);
    if (L->hi) sy_dealloc(ctx, L->hi, ns * sizeof *L->hi);
    if (L->haslo) sy_dealloc(ctx, L->haslo, ns);
    if (L->hashi) sy_dealloc(ctx, L->hashi, ns);
    if (L->ca) sy_dealloc(ctx, L->ca, ns * sizeof *L->ca);
    if (L->cb) sy_dealloc(ctx, L->cb, ns * sizeof *L->cb);
    if (L->sa) sy_dealloc(ctx, L->sa, ns * sizeof *L->sa);
    if (L->sb) sy_dealloc(ctx, L->sb, ns * sizeof *L->sb);
    memset(L, 0, sizeof *L);
}

typedef struct { size_t comp, width, i; } linkey;
static int linkey_cmp(const void *x, const void *y)
{
    const linkey *a = x, *b = y;
    if (a->comp != b->comp) return a->comp < b->comp ? -1 : 1;
    if (a->width != b->width) return a->width > b->width ? -1 : 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

/* false (no index, no error) when there is no linear guard or no memory */
static bool lin_init(linindex *L, sy_gset *gs, const size_t *comp)
{
    sy_ctx *ctx = gs->ctx;
    memset(L, 0, sizeof *L);
    size_t nl = 0;
    for (size_t i = 0; i < gs->n; i++) nl += !gs->g[i].dead && is_fact_guard(&gs->g[i]) && lin_le(&gs->g[i]);
    if (nl < 2) return false;
    L->n = gs->n;
    L->nsrc = gs->nsrc;
    L->comp = comp;
    uint32_t nsid = 0;
    for (size_t s = 0; s < gs->nsrc; s++)
        if (sy_expr_sym_id(gs->vars[s]) >= nsid) nsid = sy_expr_sym_id(gs->vars[s]) + 1;
    L->nsid = nsid;
    size_t n = gs->n, ns = gs->nsrc ? gs->nsrc : 1;
    linkey *k = sy_alloc(ctx, nl * sizeof *k);
    L->ord = sy_alloc(ctx, n * sizeof *L->ord);
    L->cstart = sy_alloc(ctx, n * sizeof *L->cstart);
    L->sid = sy_alloc(ctx, (nsid ? nsid : 1) * sizeof *L->sid);
    L->haslo = sy_alloc(ctx, ns);
    L->hashi = sy_alloc(ctx, ns);
    L->ca = sy_alloc(ctx, ns * sizeof *L->ca);
    L->cb = sy_alloc(ctx, ns * sizeof *L->cb);
    L->sa = sy_alloc(ctx, ns * sizeof *L->sa);
    L->sb = sy_alloc(ctx, ns * sizeof *L->sb);
    L->lo = sy_alloc(ctx, ns * sizeof *L->lo);
    L->hi = sy_alloc(ctx, ns * sizeof *L->hi);
    if (L->lo && L->hi)
        for (size_t s = 0; s < ns; s++) {
            fmpz_init(L->lo + s);
            fmpz_init(L->hi + s);
        }
    else if (L->lo) sy_dealloc(ctx, L->lo, ns * sizeof *L->lo), L->lo = NULL;
    else if (L->hi) sy_dealloc(ctx, L->hi, ns * sizeof *L->hi), L->hi = NULL;
    if (!k || !L->lo || !L->hi || !L->ord || !L->cstart || !L->sid || !L->haslo || !L->hashi || !L->ca || !L->cb || !L->sa || !L->sb) {
        if (k) sy_dealloc(ctx, k, nl * sizeof *k);
        sy_ctx_reset_error(ctx);
        lin_clear(ctx, L);
        return false;
    }
    for (uint32_t v = 0; v < nsid; v++) L->sid[v] = SIZE_MAX;
    for (size_t s = 0; s < gs->nsrc; s++) L->sid[sy_expr_sym_id(gs->vars[s])] = s;
    for (size_t s = 0; s < ns; s++) {
        L->haslo[s] = L->hashi[s] = 0;
        L->sa[s] = L->sb[s] = 0;
    }
    fmpz_t c;
    fmpz_init(c);
    size_t m = 0;
    for (size_t i = 0; i < gs->n; i++) {
        L->cstart[i] = SIZE_MAX;
        const gguard *g = &gs->g[i];
        if (g->dead || !is_fact_guard(g)) continue;
        const sy_expr *v;
        int up;
        if (g->pub.nslots == 1 && as_bound(g->pub.expr, &v, &up, c) && gs->vars[g->pub.slots[0]] == v) {
            size_t s = g->pub.slots[0];
            if (up && (!L->hashi[s] || fmpz_cmp(c, L->hi + s) < 0)) fmpz_set(L->hi + s, c), L->hashi[s] = 1;
            if (!up && (!L->haslo[s] || fmpz_cmp(c, L->lo + s) > 0)) fmpz_set(L->lo + s, c), L->haslo[s] = 1;
        }
        if (lin_le(g)) k[m++] = (linkey){comp[i], g->pub.nslots, i};
    }
    fmpz_clear(c);
    qsort(k, m, sizeof *k, linkey_cmp);
    for (size_t q = 0; q < m; q++) {
        L->ord[q] = k[q].i;
        if (q == 0 || k[q].comp != k[q - 1].comp) L->cstart[k[q].comp] = q;
    }
    L->nord = m;
    sy_dealloc(ctx, k, nl * sizeof *k);
    return true;
}

/* the slots of d's terms (sources) into the scratch coefficients co / stamps st; false when a term is no source */
static bool lin_scatter(linindex *L, const sy_expr *d, const fmpz **co, size_t *st)
{
    for (size_t t = 0; t < sy_expr_nargs(d); t++) {
        uint32_t id = sy_expr_sym_id(sy_expr_arg(d, t));
        size_t s = id < L->nsid ? L->sid[id] : SIZE_MAX;
        if (s == SIZE_MAX) return false;
        co[s] = sy_expr_add_coef_ref(d, t);
        st[s] = L->tick;
    }
    return true;
}

/* acc += max of r*x over the bounds of slot s; false when unbounded that way */
static bool lin_addmax(const linindex *L, size_t s, const fmpz_t r, fmpz_t acc)
{
    int sg = fmpz_sgn(r);
    if (sg > 0) {
        if (!L->hashi[s]) return false;
        fmpz_addmul(acc, r, L->hi + s);
    } else if (sg < 0) {
        if (!L->haslo[s]) return false;
        fmpz_addmul(acc, r, L->lo + s);
    }
    return true;
}

/* Does guard gi (`b.x + b0 <= 0`) with the sources' bounds imply candidate ci (`a.x + a0 <= 0`)? */
static bool lin_implies(linindex *L, const sy_gset *gs, size_t gi, size_t ci)
{
    const sy_expr *dc = sy_expr_arg(gs->g[ci].pub.expr, 0), *dg = sy_expr_arg(gs->g[gi].pub.expr, 0);
    L->tick++;
    if (!lin_scatter(L, dc, L->ca, L->sa) || !lin_scatter(L, dg, L->cb, L->sb)) return false;
    fmpz_t p, q, r, t, acc;
    fmpz_init(p);
    fmpz_init_set_ui(q, 1);
    fmpz_init(r);
    fmpz_init(t);
    fmpz_init(acc);
    /* p/q: max a_v/b_v over the sources of b with b_v > 0 and no upper bound, at least 0 */
    for (size_t k = 0; k < sy_expr_nargs(dg); k++) {
        size_t s = L->sid[sy_expr_sym_id(sy_expr_arg(dg, k))];
        const fmpz *b = L->cb[s];
        if (fmpz_sgn(b) <= 0 || L->hashi[s] || L->sa[s] != L->tick) continue;
        const fmpz *a = L->ca[s];
        fmpz_mul(r, a, q);
        fmpz_mul(t, p, b);
        if (fmpz_cmp(r, t) > 0) fmpz_set(p, a), fmpz_set(q, b);
    }
    /* acc = q*a0 - p*b0 + max r.x */
    fmpz_mul(acc, q, sy_expr_add_c0_ref(dc));
    fmpz_submul(acc, p, sy_expr_add_c0_ref(dg));
    bool ok = true;
    for (size_t k = 0; k < sy_expr_nargs(dg) && ok; k++) {
        size_t s = L->sid[sy_expr_sym_id(sy_expr_arg(dg, k))];
        fmpz_mul(r, p, L->cb[s]);
        fmpz_neg(r, r);
        if (L->sa[s] == L->tick) fmpz_addmul(r, q, L->ca[s]);
        ok = lin_addmax(L, s, r, acc);
    }
    for (size_t k = 0; k < sy_expr_nargs(dc) && ok; k++) {
        size_t s = L->sid[sy_expr_sym_id(sy_expr_arg(dc, k))];
        if (L->sb[s] == L->tick) continue; /* done above */
        fmpz_mul(r, q, L->ca[s]);
        ok = lin_addmax(L, s, r, acc);
    }
    ok = ok && fmpz_sgn(acc) <= 0;
    fmpz_clear(p);
    fmpz_clear(q);
    fmpz_clear(r);
    fmpz_clear(t);
    fmpz_clear(acc);
    return ok;
}

/* Is linear candidate ci implied by one of the widest live linear guards of its component? */
static bool lin_implied(linindex *L, const sy_gset *gs, size_t ci)
{
    if (!L->ord || !lin_le(&gs->g[ci])) return false;
    size_t at = L->cstart[L->comp[ci]];
    if (at == SIZE_MAX) return false;
    /* the component's widest entries that died stay dead: skip them once */
    while (at < L->nord && L->comp[L->ord[at]] == L->comp[ci] && gs->g[L->ord[at]].dead) at++;
    L->cstart[L->comp[ci]] = at;
    size_t tries = 0;
    for (size_t q = at, scanned = 0; q < L->nord && L->comp[L->ord[q]] == L->comp[ci] && tries < LIN_TRIES && scanned < LIN_SCAN;
         q++, scanned++) {
        size_t j = L->ord[q];
        if (j == ci || gs->g[j].dead) continue;
        tries++;
        if (lin_implies(L, gs, j, ci)) return true;
    }
    return false;
}

/* *t: whether the live fact guards of candidate i's component imply it (the decision procedure),
 * and keep each symbolic divisor of it non-zero (dropping is exact only then); unknown when the
 * component is inconsistent. The status of an error (out of memory, ...). */
static sy_status decide_implied(sy_gset *gs, size_t i, const size_t *comp, sy_truth *t)
{
    sy_ctx *ctx = gs->ctx;
    const gguard *cand = &gs->g[i];
    *t = SY_TRUTH_UNKNOWN;
    sy_facts *f = sy_facts_new(ctx);
    if (!f) return sy_ctx_last_error(ctx);
    sy_status st = SY_OK;
    for (size_t j = 0; j < gs->n && st == SY_OK; j++)
        if (j != i && comp[j] == comp[i] && !gs->g[j].dead && is_fact_guard(&gs->g[j])) st = sy_facts_add(f, gs->g[j].pub.expr);
    if (st == SY_OK && sy_facts_consistent(f) == SY_TRUE) st = sy_decide(f, cand->pub.expr, t);
    const sy_expr *divs[32];
    size_t nd = 0;
    collect_divisors(ctx, cand->pub.expr, divs, &nd, 32);
    if (nd == 32) *t = SY_TRUTH_UNKNOWN;
    for (size_t k = 0; k < nd && st == SY_OK && *t == SY_TRUTH_TRUE; k++) {
        sy_truth nz;
        st = sy_decide(f, sy_expr_ne(ctx, divs[k], sy_expr_int_si(ctx, 0)), &nz);
        if (nz != SY_TRUTH_TRUE) *t = SY_TRUTH_UNKNOWN;
    }
    sy_facts_free(f);
    return st;
}

/* e holds a node of kind k (FloorDiv/CeilDiv with a constant divisor when k is one of them);
 * the walk stops at depth 64 (deeper: answered false, so nothing is rewritten) */
static bool holds_kind(const sy_expr *e, sy_expr_kind k, int depth)
{
    if (depth > 64) return false;
    sy_expr_kind ek = sy_expr_kind_of(e);
    if (ek == k && (k == SY_EXPR_MOD || sy_expr_is_int(sy_expr_arg(e, 1)))) return true;
    for (size_t i = 0; i < sy_expr_nargs(e); i++)
        if (holds_kind(sy_expr_arg(e, i), k, depth + 1)) return true;
    return false;
}

/* a congruence guard: Mod(A, k) == r (the relation d == 0 with a Mod in d) */
static bool congruence(const sy_expr *e) { return sy_expr_kind_of(e) == SY_EXPR_EQ && holds_kind(e, SY_EXPR_MOD, 0); }

/* the same free symbols (so the same slots) */
static sy_status same_symbols(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, bool *same)
{
    const sy_expr **sa = NULL, **sb = NULL;
    size_t na = 0, nb = 0;
    sy_status st = sy_expr_free_symbols(ctx, a, &sa, &na);
    if (!st) st = sy_expr_free_symbols(ctx, b, &sb, &nb);
    *same = !st && na == nb; /* both sorted the same way (by the canonical order) */
    for (size_t i = 0; *same && i < na; i++) *same = sa[i] == sb[i];
    sy_mem_free(ctx, sa);
    sy_mem_free(ctx, sb);
    return st;
}

/* 4. rewriting under the other guards (issue 32): a live guard with a FloorDiv or CeilDiv by a
 * constant, in a component with a congruence guard Mod(A, k) == r, is replaced by its
 * simplification under the other live guards of its component (sy_simplify: equivalent where
 * they hold, so the set accepts the same points): FloorDiv(n, 2) != 1 next to Mod(n, 2) == 0
 * reads n != 2. Kept only when it is a relation reading the same sources, cheaper, with no
 * symbolic divisor, and not a duplicate; a guard with a symbolic divisor is left alone (its
 * divisor's 0 fails it, which a rewrite could lose). One guard at a time, so each rewrite is
 * checked against the set as it is then. */
static sy_status rewrite_under_others(sy_gset *gs, const size_t *comp)
{
    sy_ctx *ctx = gs->ctx;
    sy_status st = SY_OK;
    for (size_t i = 0; i < gs->n && st == SY_OK; i++) {
        gguard *cand = &gs->g[i];
        const sy_expr *e = cand->pub.expr;
        if (cand->dead || !is_fact_guard(cand) || !cand->tx || cand->tx->expr != e) continue;
        if (!holds_kind(e, SY_EXPR_FLOORDIV, 0) && !holds_kind(e, SY_EXPR_CEILDIV, 0)) continue;
        const sy_expr *divs[1];
        size_t nd = 0;
        collect_divisors(ctx, e, divs, &nd, 1);
        if (nd) continue;
        bool any = false;
        for (size_t j = 0; j < gs->n && !any; j++)
            any = j != i && comp[j] == comp[i] && !gs->g[j].dead && is_fact_guard(&gs->g[j]) && congruence(gs->g[j].pub.expr);
        if (!any) continue;
        sy_facts *f = sy_facts_new(ctx);
        if (!f) return sy_ctx_last_error(ctx);
        for (size_t j = 0; j < gs->n && st == SY_OK; j++)
            if (j != i && comp[j] == comp[i] && !gs->g[j].dead && is_fact_guard(&gs->g[j])) st = sy_facts_add(f, gs->g[j].pub.expr);
        const sy_expr *r = NULL;
        if (st == SY_OK && sy_facts_consistent(f) == SY_TRUE) r = sy_simplify(f, e);
        sy_facts_free(f);
        if (st == SY_ENOMEM || (!r && sy_ctx_last_error(ctx) == SY_ENOMEM)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        if (st || !r) { /* quota, unsupported: the guard stays as it is */
            sy_ctx_reset_error(ctx);
            st = SY_OK;
            continue;
        }
        sy_expr_kind rk = sy_expr_kind_of(r);
        if (r == e || (rk != SY_EXPR_EQ && rk != SY_EXPR_NE && rk != SY_EXPR_LE) || expr_cost(ctx, r) >= expr_cost(ctx, e)) continue;
        collect_divisors(ctx, r, divs, &nd, 1);
        if (nd) continue; /* no symbolic divisor gained either */
        bool same = false, dup = false;
        if ((st = same_symbols(ctx, e, r, &same))) {
            if (st == SY_ENOMEM) return st;
            sy_ctx_reset_error(ctx);
            st = SY_OK;
            continue;
        }
        for (size_t j = 0; j < gs->n && !dup; j++) dup = !gs->g[j].dead && gs->g[j].pub.expr == r;
        if (!same || dup) continue;
        cand->pub.expr = r;
        cand->tx->expr = r; /* its texts are made again (texts_make) */
        cand->tx->done = false;
        cand->tx->text = cand->tx->display = cand->tx->why = NULL;
        cand->pub.text = cand->pub.display = cand->pub.why = NULL;
        cand->cost = expr_cost(ctx, r);
    }
    return st;
}

static sy_status minimize(sy_gset *gs)
{
    sy_ctx *ctx = gs->ctx;
    size_t n0 = gs->n ? gs->n : 1;
    keyed *ks = sy_alloc(ctx, n0 * sizeof *ks);
    if (!ks) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    /* 1. duplicates: merge provenance into the first (in index order). Grouped
     * by the expression's creation serial (sorted once), not by an O(n^2) scan. */
    for (size_t i = 0; i < gs->n; i++) {
        ks[i].key = sy_expr_serial(gs->g[i].pub.expr);
        ks[i].i = i;
    }
    if (gs->n) qsort(ks, gs->n, sizeof *ks, keyed_cmp);
    for (size_t a = 0; a < gs->n;) {
        size_t b = a + 1;
        while (b < gs->n && ks[b].key == ks[a].key) b++;
        gguard *first = &gs->g[ks[a].i];
        for (size_t q = a + 1; q < b; q++) {
            gguard *dup = &gs->g[ks[q].i];
            for (size_t k = 0; k < dup->pub.norigins; k++)
                if (!add_origin(gs, first, &dup->orig[k])) {
                    sy_dealloc(ctx, ks, n0 * sizeof *ks);
                    return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                }
            first->pub.count += dup->pub.count;
            drop_guard(dup);
        }
        a = b;
    }
    /* 2. bounds per variable: keep only the tightest lower and upper (the
     * first in index order among equally tight ones). Grouped by (variable,
     * side), sorted once. */
    fmpz_t c, c2;
    fmpz_init(c);
    fmpz_init(c2);
    size_t nb = 0;
    for (size_t i = 0; i < gs->n; i++) {
        const sy_expr *v;
        int up;
        if (gs->g[i].dead || gs->g[i].pub.kind == SY_GK_RUNTIME_ASSERT || !as_bound(gs->g[i].pub.expr, &v, &up, c)) continue;
        ks[nb].key = sy_expr_serial(v) * 2 + (uint64_t)(up != 0);
        ks[nb].i = i;
        nb++;
    }
    if (nb) qsort(ks, nb, sizeof *ks, keyed_cmp);
    for (size_t a = 0; a < nb;) {
        size_t b = a + 1;
        while (b < nb && ks[b].key == ks[a].key) b++;
        const sy_expr *v;
        int up;
        size_t best = ks[a].i;
        as_bound(gs->g[best].pub.expr, &v, &up, c);
        for (size_t q = a + 1; q < b; q++) {
            as_bound(gs->g[ks[q].i].pub.expr, &v, &up, c2);
            if ((up && fmpz_cmp(c2, c) < 0) || (!up && fmpz_cmp(c2, c) > 0)) {
                best = ks[q].i;
                fmpz_set(c, c2);
            }
        }
        for (size_t q = a; q < b; q++)
            if (ks[q].i != best) {
                drec *d = add_drop(gs, &gs->g[ks[q].i], false);
                if (!d) {
                    fmpz_clear(c);
                    fmpz_clear(c2);
                    sy_dealloc(ctx, ks, n0 * sizeof *ks);
                    return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                }
                drop_imp(d, gs->g[best].uid);
                drop_guard(&gs->g[ks[q].i]);
            }
        a = b;
    }
    fmpz_clear(c);
    fmpz_clear(c2);
    sy_dealloc(ctx, ks, n0 * sizeof *ks);
    /* 3. implication: from the least important guard upwards, drop each guard
     * the remaining ones imply */
    gguard *tmp = sy_alloc(ctx, (gs->n ? gs->n : 1) * sizeof *tmp);
    if (!tmp) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < gs->n; i++) {
        if (gs->g[i].dead) {
            if (gs->g[i].orig) sy_dealloc(ctx, gs->g[i].orig, gs->g[i].origcap * sizeof *gs->g[i].orig);
            continue;
        }
        tmp[m++] = gs->g[i];
    }
    if (m) memcpy(gs->g, tmp, m * sizeof *tmp); /* an empty set may have no array */
    sy_dealloc(ctx, tmp, (gs->n ? gs->n : 1) * sizeof *tmp);
    gs->n = m;
    for (size_t i = 0; i < gs->n; i++) gs->g[i].cost = expr_cost(ctx, gs->g[i].pub.expr);
    if (gs->n) qsort(gs->g, gs->n, sizeof *gs->g, guard_order);
    /* Only guards connected to the candidate through shared sources can
     * imply it: split the set into components (union-find over guards, joined
     * by each source slot they read) and give each candidate only its
     * component as facts. Sound: fewer facts imply less (and an inconsistent
     * component decides nothing); it makes the pass near-linear for many
     * independent inputs instead of quadratic in facts. nreaders[slot]
     * counts the live fact guards reading the slot, for surely_not_implied. */
    size_t nc = gs->n ? gs->n : 1, nsl = gs->nsrc ? gs->nsrc : 1;
    size_t *comp = sy_alloc(ctx, nc * sizeof *comp), *owner = sy_alloc(ctx, nsl * sizeof *owner),
           *nreaders = sy_alloc(ctx, nsl * sizeof *nreaders);
    sy_status cst = comp && owner && nreaders ? SY_OK : sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    if (!cst) {
        for (size_t k = 0; k < gs->nsrc; k++) {
            owner[k] = SIZE_MAX; /* the first guard reading slot k */
            nreaders[k] = 0;
        }
        for (size_t i = 0; i < gs->n; i++) {
            comp[i] = i;
            for (size_t k = 0; k < gs->g[i].pub.nslots; k++) {
                size_t sl = gs->g[i].pub.slots[k];
                if (is_fact_guard(&gs->g[i])) nreaders[sl]++;
                if (owner[sl] == SIZE_MAX) owner[sl] = i;
                else {
                    size_t ra = uf_find(comp, i), rb = uf_find(comp, owner[sl]);
                    if (ra != rb) comp[ra] = rb;
                }
            }
        }
        for (size_t i = 0; i < gs->n; i++) comp[i] = uf_find(comp, i);
    }
    dindex dx = {0};
    if (cst == SY_OK) cst = dindex_init(gs, &dx, comp);
    witness w;
    bool have_w = cst == SY_OK && witness_init(&w, gs);
    hlindex hx = {0}, hc = {0};
    /* hc: the half-lines by classes of sources the live offset equalities tie (hl_classes), made
     * again after such an equality dies, at most HC_REBUILDS times (then the decision alone) */
    enum { HC_REBUILDS = 64 };
    int hc_rebuilds = 0;
    bool hc_ok = false;
    if (have_w && hl_init(&hx, &w)) hc_ok = hl_classes(&hc, &hx, gs);
    linindex lx;
    bool lin_ok = cst == SY_OK && lin_init(&lx, gs, comp);
    for (size_t i = gs->n; i-- > 0 && cst == SY_OK;) {
        gguard *cand = &gs->g[i];
        if (!is_fact_guard(cand) || surely_not_implied(gs, cand, nreaders)) continue;
        if (have_w && has_witness(&w, i)) continue; /* certainly not implied: kept, as the decision would */
        /* exactly implied by one other guard's half-line, on its source or one the live equalities
         * tie to it; else the decision procedure */
        sy_truth imp = hl_implied(&hx, gs, i) || (hc_ok && hl_implied(&hc, gs, i)) || (lin_ok && lin_implied(&lx, gs, i))
                           ? SY_TRUTH_TRUE
                           : SY_TRUTH_UNKNOWN;
        if (imp != SY_TRUTH_TRUE && (cst = decide_implied(gs, i, comp, &imp))) break;
        if (imp != SY_TRUTH_TRUE) continue;
        cst = drop_implied(gs, i, comp, nreaders, &dx);
        if (cst == SY_OK && hc_ok && hl_is_class_edge(cand)) hc_ok = ++hc_rebuilds <= HC_REBUILDS && hl_classes(&hc, &hx, gs);
    }
    if (cst == SY_OK) cst = rewrite_under_others(gs, comp);
    hl_clear(ctx, &hx);
    hl_clear(ctx, &hc);
    if (lin_ok) lin_clear(ctx, &lx);
    dindex_clear(ctx, &dx);
    if (have_w) witness_clear(&w);
    if (comp) sy_dealloc(ctx, comp, nc * sizeof *comp);
    if (owner) sy_dealloc(ctx, owner, nsl * sizeof *owner);
    if (nreaders) sy_dealloc(ctx, nreaders, nsl * sizeof *nreaders);
    if (cst) return cst;
    compact(gs);
    sy_status nst = normalize(gs);
    if (nst) return nst;
    if (gs->n) qsort(gs->g, gs->n, sizeof *gs->g, guard_order);
    if ((nst = build_implied(gs))) return nst;
    return find_violations(gs);
}

/* minimize, then the texts of the guards it made (normalized ranges) and of
 * its Implied list, also after an error: the set is read the same */
sy_status sy_gset_minimize(sy_gset *gs)
{
    if (!gs) return SY_EINVAL;
    sy_status st = minimize(gs);
    sy_status tst = texts_make(gs);
    return st ? st : tst;
}
