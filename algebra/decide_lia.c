/* Linear integer arithmetic under facts: Fourier-Motzkin elimination over
 * the linearized relations (rows, equalities, McCormick products), the fact
 * index it draws on, and its memo. Budgets: decide_private.h and
 * docs/decision.md, "Budgets". Every answer is a proof of infeasibility or
 * UNKNOWN. */
#include "algebra/decide_private.h"

/* ------------------------------------------------------------------ linear integer arithmetic */


/* Rows are allocated through the context allocator; a failed allocation
 * leaves r->a NULL and the caller's system marked overflowed (UNKNOWN). */
static bool row_init(sy_ctx *ctx, row *r, size_t nv)
{
    fmpz_init(r->c);
    r->a = sy_alloc(ctx, (nv ? nv : 1) * sizeof(fmpz));
    if (!r->a) return false;
    memset(r->a, 0, (nv ? nv : 1) * sizeof(fmpz)); /* fmpz 0 is a valid initialised zero */
    return true;
}
static void row_clear(sy_ctx *ctx, row *r, size_t nv)
{
    if (r->a) {
        for (size_t i = 0; i < nv; i++) fmpz_clear(&r->a[i]);
        sy_dealloc(ctx, r->a, (nv ? nv : 1) * sizeof(fmpz));
    }
    r->a = NULL;
    fmpz_clear(r->c);
}

void lsys_init(lsys *L, sy_facts *f)
{
    memset(L, 0, sizeof *L);
    L->f = f;
    L->ctx = f->ctx;
}
void lsys_clear(lsys *L)
{
    for (size_t i = 0; i < L->nrows; i++) row_clear(L->ctx, &L->rows[i], LIA_MAX_VARS);
    for (size_t i = 0; i < L->neqs; i++) row_clear(L->ctx, &L->eqs[i], LIA_MAX_VARS);
    if (L->rows) sy_dealloc(L->ctx, L->rows, L->cap * sizeof *L->rows);
    if (L->eqs) sy_dealloc(L->ctx, L->eqs, L->eqcap * sizeof *L->eqs);
}

long var_of(lsys *L, const sy_expr *m)
{
    for (size_t i = 0; i < L->nv; i++)
        if (L->vars[i] == m) return (long)i;
    if (L->nv == LIA_MAX_VARS) {
        L->overflow = true;
        return -1;
    }
    L->vars[L->nv] = m;
    return (long)L->nv++;
}

/* Coefficients of polynomial d into a fresh row (constant into c). */
static bool linearize(lsys *L, const sy_expr *d, row *r)
{
    if (!row_init(L->ctx, r, LIA_MAX_VARS)) {
        row_clear(L->ctx, r, LIA_MAX_VARS);
        L->overflow = true;
        return false;
    }
    sy_const_term(r->c, d);
    size_t nt = d->kind == SY_EXPR_ADD ? d->n : (d->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = d->kind == SY_EXPR_ADD ? SY_CTERMS(d)[i].mono : d;
        long v = var_of(L, m);
        if (v < 0) {
            row_clear(L->ctx, r, LIA_MAX_VARS);
            return false;
        }
        if (d->kind == SY_EXPR_ADD) fmpz_add(&r->a[v], &r->a[v], &SY_CTERMS(d)[i].coef);
        else fmpz_add_ui(&r->a[v], &r->a[v], 1);
    }
    return true;
}

static bool add_row(lsys *L, row *r, bool eq)
{
    row **arr = eq ? &L->eqs : &L->rows;
    size_t *n = eq ? &L->neqs : &L->nrows, *cap = eq ? &L->eqcap : &L->cap;
    if (*n >= LIA_MAX_ROWS || !r->a) {
        row_clear(L->ctx, r, LIA_MAX_VARS);
        L->overflow = true;
        return false;
    }
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        row *na = sy_realloc(L->ctx, *arr, *cap * sizeof *na, nc * sizeof *na);
        if (!na) {
            row_clear(L->ctx, r, LIA_MAX_VARS);
            L->overflow = true;
            return false;
        }
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = *r;
    return true;
}

/* add "d <= 0" (or d == 0) */
bool add_poly(lsys *L, const sy_expr *d, bool eq)
{
    if (!d) {
        L->overflow = true;
        return false;
    }
    row r;
    if (!linearize(L, d, &r)) return false;
    return add_row(L, &r, eq);
}

/* bounds: lo <= v <= hi from an interval */
static void add_bounds(lsys *L, long v, const sy_ival *iv)
{
    row r;
    if (!iv->hi_inf) { /* v - hi <= 0 */
        row_init(L->ctx, &r, LIA_MAX_VARS);
        if (!r.a) {
            add_row(L, &r, false);
            return;
        }
        fmpz_one(&r.a[v]);
        fmpz_neg(r.c, iv->hi);
        add_row(L, &r, false);
    }
    if (!iv->lo_inf) { /* lo - v <= 0 */
        row_init(L->ctx, &r, LIA_MAX_VARS);
        if (!r.a) {
            add_row(L, &r, false);
            return;
        }
        fmpz_set_si(&r.a[v], -1);
        fmpz_set(r.c, iv->lo);
        add_row(L, &r, false);
    }
}

/* McCormick envelope of w = x*y over the boxes of x and y. */
static void add_mccormick(lsys *L, long w, long x, long y, const sy_ival *X, const sy_ival *Y)
{
    /* (x - xl)(y - yl) >= 0:  xl*y + yl*x - xl*yl - w <= 0 */
    /* (xh - x)(yh - y) >= 0:  xh*y + yh*x - xh*yh - w <= 0 */
    /* (x - xl)(yh - y) >= 0:  w - xl*y - yh*x + xl*yh <= 0 */
    /* (xh - x)(y - yl) >= 0:  w - xh*y - yl*x + xh*yl <= 0 */
    const fmpz *xs[2] = {X->lo, X->hi}, *ys[2] = {Y->lo, Y->hi};
    bool xinf[2] = {X->lo_inf, X->hi_inf}, yinf[2] = {Y->lo_inf, Y->hi_inf};
    int pairs[4][3] = {{0, 0, -1}, {1, 1, -1}, {0, 1, 1}, {1, 0, 1}}; /* xi, yi, sign of w */
    for (int p = 0; p < 4; p++) {
        int xi = pairs[p][0], yi = pairs[p][1], sw = pairs[p][2];
        if (xinf[xi] || yinf[yi]) continue;
        row r;
        if (!row_init(L->ctx, &r, LIA_MAX_VARS)) {
            row_clear(L->ctx, &r, LIA_MAX_VARS);
            L->overflow = true;
            return;
        }
        /* sw = -1: xb*y + yb*x - xb*yb - w <= 0 ; sw = +1: w - xb*y - yb*x + xb*yb <= 0 */
        fmpz_set_si(&r.a[w], sw);
        if (x == y) {
            fmpz_t t;
            fmpz_init(t);
            fmpz_add(t, xs[xi], ys[yi]);
            if (sw < 0) fmpz_add(&r.a[x], &r.a[x], t); else fmpz_sub(&r.a[x], &r.a[x], t);
            fmpz_clear(t);
        } else {
            if (sw < 0) {
                fmpz_add(&r.a[y], &r.a[y], xs[xi]);
                fmpz_add(&r.a[x], &r.a[x], ys[yi]);
            } else {
                fmpz_sub(&r.a[y], &r.a[y], xs[xi]);
                fmpz_sub(&r.a[x], &r.a[x], ys[yi]);
            }
        }
        fmpz_mul(r.c, xs[xi], ys[yi]);
        if (sw < 0) fmpz_neg(r.c, r.c);
        add_row(L, &r, false);
    }
}

static void bound_of(sy_facts *f, const sy_expr *e, sy_ival *out)
{
    bctx B = {f, NULL, NULL};
    bound_rec(&B, e, out);
}

/* Defining constraints of variable v (an atom or a non-linear monomial). */
static void define_var(lsys *L, size_t v)
{
    sy_facts *f = L->f;
    sy_ctx *ctx = f->ctx;
    const sy_expr *m = L->vars[v];
    sy_ival iv, iy;
    sy_ival_init(&iv);
    sy_ival_init(&iy);
    bound_of(f, m, &iv);
    add_bounds(L, (long)v, &iv);
    switch (m->kind) {
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
        if (m->args[1]->kind == SY_EXPR_INT && fmpz_sgn(&m->args[1]->u.value) > 0) {
            const sy_expr *k = m->args[1], *a = m->args[0];
            const sy_expr *km = sy_expr_mul(ctx, k, m);
            if (m->kind == SY_EXPR_FLOORDIV) {
                /* k*q <= a <= k*q + k - 1 */
                add_poly(L, sy_expr_sub(ctx, km, a), false);
                add_poly(L, sy_expr_sub(ctx, sy_expr_sub(ctx, a, km), sy_expr_add_si(ctx, k, -1)), false);
            } else {
                /* k*c - k + 1 <= a <= k*c */
                add_poly(L, sy_expr_sub(ctx, a, km), false);
                add_poly(L, sy_expr_add_si(ctx, sy_expr_sub(ctx, sy_expr_sub(ctx, km, k), a), 1), false);
            }
        }
        break;
    case SY_EXPR_MOD:
        if (m->args[1]->kind == SY_EXPR_INT && fmpz_sgn(&m->args[1]->u.value) > 0) {
            /* r = a - k*FloorDiv(a, k) */
            const sy_expr *k = m->args[1], *a = m->args[0];
            const sy_expr *q = sy_expr_floordiv(ctx, a, k);
            add_poly(L, sy_expr_sub(ctx, m, sy_expr_sub(ctx, a, sy_expr_mul(ctx, k, q))), true);
        } else {
            sy_ival_set_full(&iy);
            bound_of(f, m->args[1], &iy);
            if (sy_ival_positive(&iy)) {
                /* 0 <= r <= b - 1; r <= a when a >= 0 */
                add_poly(L, sy_expr_add_si(ctx, sy_expr_sub(ctx, m, m->args[1]), 1), false);
                add_poly(L, sy_expr_neg(ctx, m), false);
                bound_of(f, m->args[0], &iy);
                if (!iy.lo_inf && fmpz_sgn(iy.lo) >= 0) add_poly(L, sy_expr_sub(ctx, m, m->args[0]), false);
            }
        }
        break;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        for (uint32_t i = 0; i < m->n; i++)
            add_poly(L, m->kind == SY_EXPR_MIN ? sy_expr_sub(ctx, m, m->args[i]) : sy_expr_sub(ctx, m->args[i], m),
                     false);
        if (m->n == 2) {
            /* Min(a, b) + Max(a, b) == a + b when both are variables of the
             * system already (no variable is added).  The row is added once,
             * when the later of the two is defined. */
            const sy_expr *dual = m->kind == SY_EXPR_MIN ? sy_expr_max(ctx, m->args[0], m->args[1])
                                                         : sy_expr_min(ctx, m->args[0], m->args[1]);
            for (size_t i = 0; dual && i < v; i++)
                if (L->vars[i] == dual) {
                    add_poly(L, sy_expr_sub(ctx, sy_expr_add(ctx, m, dual), sy_expr_add(ctx, m->args[0], m->args[1])),
                             true);
                    break;
                }
        }
        break;
    case SY_EXPR_POW:
    case SY_EXPR_MUL: {
        /* w = x * rest */
        const sy_expr *x, *rest;
        if (m->kind == SY_EXPR_POW) {
            x = m->args[0];
            rest = sy_expr_pow_ui(ctx, x, m->u.exp - 1);
        } else {
            x = m->args[0];
            rest = sy_expr_int_si(ctx, 1);
            for (uint32_t i = 1; i < m->n && rest; i++) rest = sy_expr_mul(ctx, rest, m->args[i]);
            if (x->kind == SY_EXPR_POW) { /* split x^e * R as x * (x^(e-1) R) */
                const sy_expr *base = x->args[0];
                rest = sy_expr_mul(ctx, rest, sy_expr_pow_ui(ctx, base, x->u.exp - 1));
                x = base;
            }
        }
        if (!rest) break;
        long xv = var_of(L, x), rv = var_of(L, rest);
        if (xv < 0 || rv < 0) break;
        sy_ival ix;
        sy_ival_init(&ix);
        bound_of(f, x, &ix);
        bound_of(f, rest, &iy);
        add_mccormick(L, (long)v, xv, rv, &ix, &iy);
        sy_ival_clear(&ix);
        break;
    }
    default: break;
    }
    sy_ival_clear(&iv);
    sy_ival_clear(&iy);
}

void define_all(lsys *L)
{
    while (L->nextdef < L->nv && !L->overflow) define_var(L, L->nextdef++);
}

/* normalise a row: divide by the gcd of variable coefficients, round the
 * constant up (valid over the integers). Returns 1 if the row is trivially
 * true (no variables, c <= 0), -1 if trivially false, 0 otherwise. */
static int normalise(sy_ctx *ctx, row *r, size_t nv)
{
    (void)ctx;
    fmpz_t g;
    fmpz_init(g);
    for (size_t i = 0; i < nv; i++) fmpz_gcd(g, g, &r->a[i]);
    int res = 0;
    if (fmpz_is_zero(g)) {
        res = fmpz_sgn(r->c) > 0 ? -1 : 1;
    } else if (!fmpz_is_one(g)) {
        for (size_t i = 0; i < nv; i++) fmpz_divexact(&r->a[i], &r->a[i], g);
        fmpz_cdiv_q(r->c, r->c, g);
    }
    fmpz_clear(g);
    return res;
}

/* Eliminate equalities: a unit-coefficient variable is substituted
 * everywhere; otherwise the equality becomes two inequalities (after a
 * divisibility check: gcd of coefficients must divide the constant). */
static bool eliminate_eqs(lsys *L, bool *infeasible, long keep)
{
    size_t nv = L->nv;
    for (size_t e = 0; e < L->neqs; e++) {
        row *q = &L->eqs[e];
        fmpz_t g;
        fmpz_init(g);
        for (size_t i = 0; i < nv; i++) fmpz_gcd(g, g, &q->a[i]);
        if (fmpz_is_zero(g)) {
            bool bad = !fmpz_is_zero(q->c);
            fmpz_clear(g);
            if (bad) {
                *infeasible = true;
                return true;
            }
            continue;
        }
        if (!fmpz_divisible(q->c, g)) {
            fmpz_clear(g);
            *infeasible = true;
            return true;
        }
        fmpz_clear(g);
        long piv = -1;
        for (size_t i = 0; i < nv && piv < 0; i++)
            if (fmpz_is_pm1(&q->a[i]) && (long)i != keep) piv = (long)i;
        if (piv < 0) {
            /* two inequalities */
            row r1, r2;
            bool ok1 = row_init(L->ctx, &r1, LIA_MAX_VARS), ok2 = row_init(L->ctx, &r2, LIA_MAX_VARS);
            if (!ok1 || !ok2) {
                row_clear(L->ctx, &r1, LIA_MAX_VARS);
                row_clear(L->ctx, &r2, LIA_MAX_VARS);
                return false;
            }
            for (size_t i = 0; i < nv; i++) {
                fmpz_set(&r1.a[i], &q->a[i]);
                fmpz_neg(&r2.a[i], &q->a[i]);
            }
            fmpz_set(r1.c, q->c);
            fmpz_neg(r2.c, q->c);
            if (!add_row(L, &r1, false)) {
                row_clear(L->ctx, &r2, LIA_MAX_VARS);
                return false;
            }
            if (!add_row(L, &r2, false)) return false;
            continue;
        }
        /* x_piv = -(rest)/a_piv; substitute into other equalities and rows:
         * row += (-row.a[piv] / q.a[piv]) * q */
        fmpz_t m;
        fmpz_init(m);
        for (size_t k = 0; k < L->neqs + L->nrows; k++) {
            row *t = k < L->neqs ? &L->eqs[k] : &L->rows[k - L->neqs];
            if (t == q || fmpz_is_zero(&t->a[piv])) continue;
            fmpz_mul(m, &t->a[piv], &q->a[piv]); /* a_piv = +-1: -t.a/q.a = -t.a*q.a */
            fmpz_neg(m, m);
            for (size_t i = 0; i < nv; i++) fmpz_addmul(&t->a[i], m, &q->a[i]);
            fmpz_addmul(t->c, m, q->c);
        }
        fmpz_clear(m);
    }
    return true;
}

/* A hash of a row's coefficients (not its constant): fm_run's dedupe looks a
 * new row up by it instead of comparing it with every kept row, which made
 * one elimination step cost O(rows * vars) and a bound() on a degree-8
 * polynomial take 0.6 s (fuzz_expr found it). Equal coefficient vectors hash
 * equal; a collision only costs a comparison. */
static uint64_t row_hash(const row *r, size_t nv)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t v = 0; v < nv; v++) {
        const fmpz *a = &r->a[v];
        uint64_t x = fmpz_fits_si(a) ? (uint64_t)fmpz_get_si(a) : (uint64_t)fmpz_fdiv_ui(a, 4294967291u) ^ 0xa5a5a5a5ull;
        h = (h ^ x) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    return h;
}

static bool row_coeffs_equal(const row *p, const row *q, size_t nv)
{
    for (size_t v = 0; v < nv; v++)
        if (!fmpz_equal(&p->a[v], &q->a[v])) return false;
    return true;
}

/* Fourier-Motzkin with integer tightening. Returns 1 when the system is
 * infeasible over the integers, 0 when no contradiction was found, -1 when a
 * budget ran out. If keep >= 0, that variable is not eliminated and its
 * resulting bounds are written to *proj. */
int fm_run(lsys *L, long keep, sy_ival *proj)
{
    bool infeasible = false;
    if (!eliminate_eqs(L, &infeasible, keep)) return -1;
    if (infeasible) return 1;
    size_t nv = L->nv;
    row *rows = L->rows;
    size_t n = L->nrows;
    /* normalise; trivially true rows are dropped, a trivially false one
     * proves infeasibility (the row count stays consistent for lsys_clear) */
    size_t w = 0;
    bool trivially_false = false;
    for (size_t i = 0; i < n; i++) {
        int t = normalise(L->ctx, &rows[i], nv);
        if (t < 0) trivially_false = true;
        if (t > 0) {
            row_clear(L->ctx, &rows[i], LIA_MAX_VARS);
            continue;
        }
        rows[w++] = rows[i];
    }
    n = w;
    L->nrows = n;
    if (trivially_false) return 1;
    bool *alive = sy_alloc(L->ctx, (nv ? nv : 1) * sizeof *alive);
    if (!alive) return -1;
    memset(alive, 0, (nv ? nv : 1) * sizeof *alive);
    for (size_t v = 0; v < nv; v++) alive[v] = (long)v != keep;
    size_t steps = 0;
    int result = 0;
    for (;;) {
        /* choose variable with the fewest new rows */
        long best = -1;
        size_t bestcost = (size_t)-1;
        for (size_t v = 0; v < nv; v++) {
            if (!alive[v]) continue;
            size_t np = 0, nn = 0;
            for (size_t i = 0; i < n; i++) {
                int s = fmpz_sgn(&L->rows[i].a[v]);
                if (s > 0) np++; else if (s < 0) nn++;
            }
            size_t cost = np * nn;
            if (cost < bestcost) {
                bestcost = cost;
                best = (long)v;
            }
        }
        if (best < 0) break;
        alive[best] = false;
        if (bestcost + n > LIA_MAX_ROWS * 2) {
            result = -1;
            break;
        }
        /* combine */
        size_t nrcap = n + bestcost + 1;
        row *nr = sy_alloc(L->ctx, nrcap * sizeof *nr);
        if (!nr) {
            result = -1;
            break;
        }
        /* open-addressed table of indexes into nr (+1; 0 = empty), at most half full */
        size_t hcap = 16;
        while (hcap < 2 * nrcap) hcap *= 2;
        size_t *ht = sy_alloc(L->ctx, hcap * sizeof *ht);
        if (!ht) {
            sy_dealloc(L->ctx, nr, nrcap * sizeof *nr);
            result = -1;
            break;
        }
        memset(ht, 0, hcap * sizeof *ht);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (fmpz_is_zero(&L->rows[i].a[best])) {
                /* every kept row is indexed; a new row whose coefficients equal several
                 * kept rows' merges into the first of them, as the linear scan did */
                size_t hi = (size_t)row_hash(&L->rows[i], nv) & (hcap - 1);
                while (ht[hi]) hi = (hi + 1) & (hcap - 1);
                ht[hi] = m + 1;
                nr[m++] = L->rows[i];
            }
        for (size_t i = 0; i < n && result == 0; i++) {
            if (fmpz_sgn(&L->rows[i].a[best]) <= 0) continue;
            for (size_t j = 0; j < n && result == 0; j++) {
                if (fmpz_sgn(&L->rows[j].a[best]) >= 0) continue;
                if (++steps > LIA_MAX_STEPS) {
                    result = -1;
                    break;
                }
                /* |a_j| * row_i + a_i * row_j */
                row c;
                if (!row_init(L->ctx, &c, LIA_MAX_VARS)) {
                    row_clear(L->ctx, &c, LIA_MAX_VARS);
                    result = -1;
                    break;
                }
                fmpz_t ai, aj;
                fmpz_init_set(ai, &L->rows[i].a[best]);
                fmpz_init(aj);
                fmpz_neg(aj, &L->rows[j].a[best]);
                for (size_t v = 0; v < nv; v++) {
                    fmpz_mul(&c.a[v], aj, &L->rows[i].a[v]);
                    fmpz_addmul(&c.a[v], ai, &L->rows[j].a[v]);
                }
                fmpz_mul(c.c, aj, L->rows[i].c);
                fmpz_addmul(c.c, ai, L->rows[j].c);
                fmpz_clear(ai);
                fmpz_clear(aj);
                int t = normalise(L->ctx, &c, nv);
                if (t < 0) result = 1;
                if (t != 0) {
                    row_clear(L->ctx, &c, LIA_MAX_VARS);
                    continue;
                }
                /* dedupe: same coefficients keep the larger constant (the first
                 * kept row with them, in the order the rows were kept) */
                size_t hi = (size_t)row_hash(&c, nv) & (hcap - 1), first = 0;
                for (; ht[hi]; hi = (hi + 1) & (hcap - 1))
                    if (row_coeffs_equal(&nr[ht[hi] - 1], &c, nv) && (!first || ht[hi] < first)) first = ht[hi];
                if (first) {
                    if (fmpz_cmp(c.c, nr[first - 1].c) > 0) fmpz_set(nr[first - 1].c, c.c);
                    row_clear(L->ctx, &c, LIA_MAX_VARS);
                } else {
                    ht[hi] = m + 1;
                    nr[m++] = c;
                }
            }
        }
        sy_dealloc(L->ctx, ht, hcap * sizeof *ht);
        for (size_t i = 0; i < n; i++)
            if (!fmpz_is_zero(&L->rows[i].a[best])) row_clear(L->ctx, &L->rows[i], LIA_MAX_VARS);
        sy_dealloc(L->ctx, L->rows, L->cap * sizeof *L->rows);
        L->rows = nr;
        L->nrows = n = m;
        L->cap = nrcap;
        if (result != 0) break;
    }
    if (result == 0 && keep >= 0 && proj) {
        /* rows now only mention keep: a*x + c <= 0 */
        sy_ival_set_full(proj);
        fmpz_t t;
        fmpz_init(t);
        for (size_t i = 0; i < n; i++) {
            const fmpz *a = &L->rows[i].a[keep];
            if (fmpz_is_zero(a)) continue;
            fmpz_neg(t, L->rows[i].c);
            if (fmpz_sgn(a) > 0) { /* x <= floor(-c/a) */
                fmpz_fdiv_q(t, t, a);
                if (proj->hi_inf || fmpz_cmp(t, proj->hi) < 0) fmpz_set(proj->hi, t);
                proj->hi_inf = false;
            } else { /* x >= ceil(-c/a) = ceil(c/|a|) */
                fmpz_cdiv_q(t, t, a);
                if (proj->lo_inf || fmpz_cmp(t, proj->lo) > 0) fmpz_set(proj->lo, t);
                proj->lo_inf = false;
            }
        }
        fmpz_clear(t);
        if (sy_ival_is_empty(proj)) result = 1;
    }
    sy_dealloc(L->ctx, alive, (nv ? nv : 1) * sizeof *alive);
    return result;
}

static bool rel_mentions_any(const sy_expr *r, const sy_expr *const *syms, size_t n, sy_ctx *ctx)
{
    const sy_expr **fs;
    size_t k;
    if (sy_expr_free_symbols(ctx, r, &fs, &k) != SY_OK) return true;
    bool hit = false;
    for (size_t i = 0; i < k && !hit; i++)
        for (size_t j = 0; j < n && !hit; j++) hit = fs[i] == syms[j];
    sy_mem_free(ctx, fs);
    return hit;
}

static size_t rinv_find(const sy_facts *f, const sy_expr *sym)
{
    size_t mask = f->rinv_cap - 1, j = (size_t)sym->hash & mask;
    while (f->rinv[j].sym && f->rinv[j].sym != sym) j = (j + 1) & mask;
    return j;
}

/* Bring the symbol index up to date; false when out of memory (then the
 * caller scans as before). */
static bool ridx_update(sy_facts *f)
{
    sy_ctx *ctx = f->ctx;
    size_t nr = f->nrels < RIDX_MAX ? f->nrels : RIDX_MAX;
    if (f->ridx_epoch != f->rels_epoch || f->ridx_n > nr) {
        if (f->rinv) memset(f->rinv, 0, f->rinv_cap * sizeof *f->rinv);
        f->rinv_n = f->rpool_n = f->ridx_n = f->rfwd_n = 0;
        f->ridx_epoch = f->rels_epoch;
    }
    if (f->ridx_n < nr && !f->rfix) {
        f->rfix = sy_alloc(ctx, RIDX_MAX * sizeof *f->rfix);
        if (!f->rfix) return false;
    }
    for (; f->ridx_n < nr; f->ridx_n++) {
        size_t i = f->ridx_n;
        const sy_expr *r = f->rels[i];
        f->ridx_all[i / 64] &= ~((uint64_t)1 << (i % 64));
        f->rfix[i].len = UINT32_MAX;
        if (r->kind != SY_EXPR_LE && r->kind != SY_EXPR_EQ) continue;
        const sy_expr **fs;
        size_t k;
        if (sy_expr_free_symbols(ctx, r, &fs, &k) != SY_OK) {
            if (ctx->err == SY_ENOMEM) return false;
            f->ridx_all[i / 64] |= (uint64_t)1 << (i % 64); /* as rel_mentions_any: relevant */
            continue;
        }
        bool ok = k < UINT32_MAX && f->rfwd_n + k < UINT32_MAX;
        if (ok && f->rfwd_n + k > f->rfwd_cap) {
            size_t nc = f->rfwd_cap ? f->rfwd_cap : 64;
            while (nc < f->rfwd_n + k) nc *= 2;
            const sy_expr **nf = sy_realloc(ctx, f->rfwd, f->rfwd_cap * sizeof *nf, nc * sizeof *nf);
            if (!nf) ok = false;
            else {
                f->rfwd = nf;
                f->rfwd_cap = nc;
            }
        }
        if (ok) {
            if (k) memcpy(f->rfwd + f->rfwd_n, fs, k * sizeof *fs);
            f->rfix[i] = (struct rfix){(uint32_t)f->rfwd_n, (uint32_t)k};
            f->rfwd_n += k;
        }
        for (size_t j = 0; j < k && ok; j++) {
            if ((f->rinv_n + 1) * 2 > f->rinv_cap) {
                size_t nc = f->rinv_cap ? f->rinv_cap * 2 : 64;
                struct rinv *ni = sy_alloc(ctx, nc * sizeof *ni);
                if (!ni) { ok = false; break; }
                memset(ni, 0, nc * sizeof *ni);
                for (size_t t = 0; t < f->rinv_cap; t++) {
                    if (!f->rinv[t].sym) continue;
                    size_t u = (size_t)f->rinv[t].sym->hash & (nc - 1);
                    while (ni[u].sym) u = (u + 1) & (nc - 1);
                    ni[u] = f->rinv[t];
                }
                if (f->rinv) sy_dealloc(ctx, f->rinv, f->rinv_cap * sizeof *f->rinv);
                f->rinv = ni;
                f->rinv_cap = nc;
            }
            if (f->rpool_n == f->rpool_cap) {
                size_t nc = f->rpool_cap ? f->rpool_cap * 2 : 64;
                struct rpool *np = sy_realloc(ctx, f->rpool, f->rpool_cap * sizeof *np, nc * sizeof *np);
                if (!np) { ok = false; break; }
                f->rpool = np;
                f->rpool_cap = nc;
            }
            size_t u = rinv_find(f, fs[j]);
            if (!f->rinv[u].sym) {
                f->rinv[u].sym = fs[j];
                f->rinv[u].head = 0;
                f->rinv_n++;
            }
            f->rpool[f->rpool_n] = (struct rpool){(uint32_t)i, f->rinv[u].head};
            f->rinv[u].head = (uint32_t)++f->rpool_n;
        }
        sy_mem_free(ctx, fs);
        if (!ok) {
            f->ridx_epoch = f->rels_epoch - 1; /* incomplete: rebuild next time */
            return false;
        }
    }
    return true;
}

/* Set the bit of every indexed relation that reads sym in cand; with
 * pend, also in pend for those after index `after` not yet taken. */
static void ridx_mark(const sy_facts *f, const sy_expr *sym, uint64_t *cand, uint64_t *pend, const uint64_t *taken,
                      size_t after)
{
    if (!f->rinv_cap) return;
    size_t slot = rinv_find(f, sym);
    if (!f->rinv[slot].sym) return;
    for (uint32_t p = f->rinv[slot].head; p; p = f->rpool[p - 1].next) {
        size_t u = f->rpool[p - 1].rel;
        cand[u / 64] |= (uint64_t)1 << (u % 64);
        if (pend && u > after && !(taken[u / 64] >> (u % 64) & 1)) pend[u / 64] |= (uint64_t)1 << (u % 64);
    }
}

/* Build the system: relevant facts + extra rows. goal rows are added by the
 * caller through add_poly before solving. */
void add_facts(lsys *L, const sy_expr *query)
{
    sy_facts *f = L->f;
    sy_ctx *ctx = f->ctx;
    const sy_expr **qs;
    size_t nq;
    if (sy_expr_free_symbols(ctx, query, &qs, &nq) != SY_OK) {
        L->overflow = true;
        return;
    }
    /* relevance: facts sharing a symbol with the query (one round of
     * closure over the facts) */
    const sy_expr *syms[128];
    size_t ns = 0;
    for (size_t i = 0; i < nq && ns < 128; i++) syms[ns++] = qs[i];
    sy_mem_free(ctx, qs);
    size_t nr = f->nrels < RIDX_MAX ? f->nrels : RIDX_MAX;
    /* Bit sets over the first RIDX_MAX relations: pend = relations that read
     * one of syms (what rel_mentions_any says), kept up to date as syms
     * grows, minus those taken. Each round takes them in index order, a
     * relation made relevant during a round by a later index in the same
     * round, as the scan over every relation did. */
    uint64_t pend[RIDX_MAX / 64] = {0}, taken[RIDX_MAX / 64] = {0}, cand[RIDX_MAX / 64];
    bool indexed = ridx_update(f);
    if (indexed) {
        memcpy(cand, f->ridx_all, sizeof cand);
        for (size_t t = 0; t < ns; t++) ridx_mark(f, syms[t], cand, NULL, NULL, 0);
    }
    for (int round = 0; round < 3; round++) {
        if (indexed) /* the pending set of this round (bits past nr are never set) */
            for (size_t w = 0; w < RIDX_MAX / 64; w++) pend[w] = cand[w] & ~taken[w];
        for (size_t i = 0; i < nr; i++) {
            if (indexed) { /* next pending index >= i */
                size_t w = i / 64;
                uint64_t m = pend[w] & (~(uint64_t)0 << (i % 64));
                while (!m && ++w < RIDX_MAX / 64) m = pend[w];
                if (!m) break;
                i = w * 64 + (size_t)__builtin_ctzll(m);
                if (i >= nr) break;
                pend[w] &= ~((uint64_t)1 << (i % 64));
            } else if (taken[i / 64] >> (i % 64) & 1) {
                continue;
            }
            const sy_expr *r = f->rels[i];
            if (r->kind != SY_EXPR_LE && r->kind != SY_EXPR_EQ) continue;
            if (!indexed && !rel_mentions_any(r, syms, ns, ctx)) continue;
            taken[i / 64] |= (uint64_t)1 << (i % 64);
            const sy_expr **fs;
            size_t k;
            /* the index's copy when listed (what sy_expr_free_symbols gives) */
            bool listed = indexed && f->rfix[i].len != UINT32_MAX;
            if (listed) {
                fs = f->rfwd + f->rfix[i].off;
                k = f->rfix[i].len;
            }
            if (listed || sy_expr_free_symbols(ctx, r, &fs, &k) == SY_OK) {
                for (size_t j = 0; j < k && ns < 128; j++) {
                    bool have = false;
                    for (size_t t = 0; t < ns && !have; t++) have = syms[t] == fs[j];
                    if (have) continue;
                    syms[ns++] = fs[j];
                    if (!indexed) continue;
                    ridx_mark(f, fs[j], cand, pend, taken, i); /* later indices join this round, earlier ones the next */
                }
                if (!listed) sy_mem_free(ctx, fs);
            }
            add_poly(L, r->args[0], r->kind == SY_EXPR_EQ);
        }
    }
}

/* Is facts && (d <= 0) [or d == 0 when eq] infeasible? 1 yes, 0 no/unknown, -1 budget */
/* Is facts && every given row infeasible? rows: n polynomials with eq flags
 * (d <= 0, or d == 0). 1 yes, 0 no/unknown, -1 budget. */
int lia_infeasible_n(sy_facts *f, size_t n, const sy_expr *const *ds, const bool *eqs, const sy_expr *query)
{
    if (f->lia_budget == 0) {
        f->stats.budget_hits++;
        return -1;
    }
    f->lia_budget--;
    lsys L;
    lsys_init(&L, f);
    add_facts(&L, query);
    for (size_t i = 0; i < n; i++) add_poly(&L, ds[i], eqs[i]);
    define_all(&L);
    int r = L.overflow ? -1 : fm_run(&L, -1, NULL);
    lsys_clear(&L);
    if (r < 0) f->stats.budget_hits++;
    return r;
}

static size_t lm_slot(const sy_facts *f, const sy_expr *d, bool eq, const sy_expr *query)
{
    uint64_t h = d->hash * 0x9E3779B97F4A7C15ull ^ query->hash ^ (uint64_t)eq;
    size_t mask = f->lm_cap - 1, j = (size_t)(h ^ h >> 29) & mask;
    while (f->lm[j].d && !(f->lm[j].d == d && f->lm[j].query == query && f->lm[j].eq == (int)eq)) j = (j + 1) & mask;
    return j;
}

static bool lm_used(const void *e) { return ((const struct lentry *)e)->d != NULL; }
static size_t lm_reslot(const void *f, const void *e)
{
    const struct lentry *l = e;
    return lm_slot(f, l->d, l->eq, l->query);
}

/* Remember a definite answer. A failed allocation only loses the entry. */
static void lm_put(sy_facts *f, const sy_expr *d, bool eq, const sy_expr *query, int r)
{
    sy_ctx *ctx = f->ctx;
    if (f->lm_n >= CACHE_MAX) {
        memset(f->lm, 0, f->lm_cap * sizeof *f->lm);
        f->lm_n = 0;
    }
    if ((f->lm_n + 1) * 2 > f->lm_cap &&
        !sy_otab_grow(ctx, (void **)&f->lm, &f->lm_cap, sizeof *f->lm, f->lm_cap ? f->lm_cap * 2 : 64, lm_used, lm_reslot,
                      f)) {
        if (ctx->err == SY_ENOMEM) sy_ctx_reset_error(ctx);
        return;
    }
    size_t j = lm_slot(f, d, eq, query);
    if (!f->lm[j].d) f->lm_n++;
    f->lm[j] = (struct lentry){d, query, (int)eq, r};
}

/* Enter a top-level pure operation (sy_decide, sy_simplify, sy_bound). */
lm_mark lm_op_begin(sy_facts *f)
{
    facts_sync(f);
    lm_mark m = {f->lm != NULL, f->ctx->gen};
    sy_op_begin(f->ctx, true);
    return m;
}

/* After sy_op_end_*: see above. */
void lm_after_op(sy_facts *f, lm_mark m)
{
    if (m.had || !f->lm || f->ctx->gen == m.gen0) return;
    sy_dealloc(f->ctx, f->lm, f->lm_cap * sizeof *f->lm);
    f->lm = NULL;
    f->lm_n = f->lm_cap = 0;
}

int lia_infeasible(sy_facts *f, const sy_expr *d, bool eq, const sy_expr *query)
{
    if (f->lia_budget == 0) {
        f->stats.budget_hits++;
        return -1;
    }
    f->lia_budget--;
    if (f->lm) {
        size_t j = lm_slot(f, d, eq, query);
        if (f->lm[j].d) {
            if (f->lm[j].r < 0) f->stats.budget_hits++; /* counted as the computation would */
            return f->lm[j].r;
        }
    }
    lsys L;
    lsys_init(&L, f);
    add_facts(&L, query);
    add_poly(&L, d, eq);
    define_all(&L);
    int r = L.overflow ? -1 : fm_run(&L, -1, NULL);
    lsys_clear(&L);
    if (r < 0) f->stats.budget_hits++;
    if (f->ctx->err == SY_OK) lm_put(f, d, eq, query, r);
    return r;
}
