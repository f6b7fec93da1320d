/* Interval arithmetic over the integers with infinite endpoints.
 * Soundness rule: results only ever widen. See ival.h. */
#include "algebra/ival.h"

void sy_ival_init(sy_ival *r)
{
    fmpz_init(r->lo);
    fmpz_init(r->hi);
    r->lo_inf = r->hi_inf = true;
}
void sy_ival_clear(sy_ival *r)
{
    fmpz_clear(r->lo);
    fmpz_clear(r->hi);
}
void sy_ival_set(sy_ival *r, const sy_ival *a)
{
    if (r == a) return;
    fmpz_set(r->lo, a->lo);
    fmpz_set(r->hi, a->hi);
    r->lo_inf = a->lo_inf;
    r->hi_inf = a->hi_inf;
}
void sy_ival_set_full(sy_ival *r)
{
    fmpz_zero(r->lo);
    fmpz_zero(r->hi);
    r->lo_inf = r->hi_inf = true;
}
void sy_ival_set_fmpz(sy_ival *r, const fmpz_t v)
{
    fmpz_set(r->lo, v);
    fmpz_set(r->hi, v);
    r->lo_inf = r->hi_inf = false;
}
void sy_ival_set_si(sy_ival *r, int64_t lo, int64_t hi)
{
    fmpz_set_si(r->lo, lo);
    fmpz_set_si(r->hi, hi);
    r->lo_inf = r->hi_inf = false;
}
void sy_ival_set_bounds64(sy_ival *r, int64_t lo, int64_t hi)
{
    r->lo_inf = (lo == INT64_MIN);
    r->hi_inf = (hi == INT64_MAX);
    fmpz_set_si(r->lo, r->lo_inf ? 0 : lo);
    fmpz_set_si(r->hi, r->hi_inf ? 0 : hi);
}
void sy_ival_get_bounds64(const sy_ival *a, int64_t *lo, int64_t *hi)
{
    /* Finite values outside (INT64_MIN, INT64_MAX) round outward. */
    if (a->lo_inf || fmpz_cmp_si(a->lo, INT64_MIN + 1) < 0)
        *lo = INT64_MIN;
    else if (fmpz_cmp_si(a->lo, INT64_MAX - 1) > 0)
        *lo = INT64_MAX - 1;
    else
        *lo = fmpz_get_si(a->lo);
    if (a->hi_inf || fmpz_cmp_si(a->hi, INT64_MAX - 1) > 0)
        *hi = INT64_MAX;
    else if (fmpz_cmp_si(a->hi, INT64_MIN + 1) < 0)
        *hi = INT64_MIN + 1;
    else
        *hi = fmpz_get_si(a->hi);
}
bool sy_ival_is_empty(const sy_ival *a)
{
    return !a->lo_inf && !a->hi_inf && fmpz_cmp(a->lo, a->hi) > 0;
}
bool sy_ival_is_point(const sy_ival *a)
{
    return !a->lo_inf && !a->hi_inf && fmpz_equal(a->lo, a->hi);
}
bool sy_ival_contains_zero(const sy_ival *a)
{
    return (a->lo_inf || fmpz_sgn(a->lo) <= 0) && (a->hi_inf || fmpz_sgn(a->hi) >= 0);
}
bool sy_ival_positive(const sy_ival *a) { return !a->lo_inf && fmpz_sgn(a->lo) > 0; }
bool sy_ival_negative(const sy_ival *a) { return !a->hi_inf && fmpz_sgn(a->hi) < 0; }

void sy_ival_add(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    bool li = a->lo_inf || b->lo_inf, hi = a->hi_inf || b->hi_inf;
    if (!li) fmpz_add(r->lo, a->lo, b->lo);
    if (!hi) fmpz_add(r->hi, a->hi, b->hi);
    r->lo_inf = li;
    r->hi_inf = hi;
}
void sy_ival_neg(sy_ival *r, const sy_ival *a)
{
    fmpz_t t;
    fmpz_init(t);
    fmpz_neg(t, a->lo);
    fmpz_neg(r->lo, a->hi);
    fmpz_swap(r->hi, t);
    bool li = a->hi_inf, hi = a->lo_inf;
    r->lo_inf = li;
    r->hi_inf = hi;
    fmpz_clear(t);
}
void sy_ival_scale(sy_ival *r, const sy_ival *a, const fmpz_t c)
{
    if (fmpz_is_zero(c)) {
        fmpz_zero(r->lo);
        fmpz_zero(r->hi);
        r->lo_inf = r->hi_inf = false;
        return;
    }
    if (fmpz_sgn(c) > 0) {
        fmpz_mul(r->lo, a->lo, c);
        fmpz_mul(r->hi, a->hi, c);
        r->lo_inf = a->lo_inf;
        r->hi_inf = a->hi_inf;
    } else {
        fmpz_t t;
        fmpz_init(t);
        fmpz_mul(t, a->lo, c);
        fmpz_mul(r->lo, a->hi, c);
        fmpz_swap(r->hi, t);
        bool li = a->hi_inf, hi = a->lo_inf;
        r->lo_inf = li;
        r->hi_inf = hi;
        fmpz_clear(t);
    }
}
void sy_ival_add_fmpz(sy_ival *r, const sy_ival *a, const fmpz_t c)
{
    fmpz_add(r->lo, a->lo, c);
    fmpz_add(r->hi, a->hi, c);
    r->lo_inf = a->lo_inf;
    r->hi_inf = a->hi_inf;
}

/* Extended value: sign s in {-1,0,1} for infinities, or finite v. */
typedef struct { int inf; fmpz_t v; } xval;

static void xmul(xval *r, const fmpz_t av, int ainf, const fmpz_t bv, int binf)
{
    /* ainf: 0 finite, -1 -oo, +1 +oo. 0 * oo = 0 (the infinite end is a limit
     * of finite values; a zero factor makes every product zero). */
    int as = ainf ? ainf : fmpz_sgn(av);
    int bs = binf ? binf : fmpz_sgn(bv);
    if (!ainf && !binf) {
        r->inf = 0;
        fmpz_mul(r->v, av, bv);
    } else if (as == 0 || bs == 0) {
        r->inf = 0;
        fmpz_zero(r->v);
    } else {
        r->inf = as * bs;
    }
}

void sy_ival_mul(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    xval c[4];
    for (int i = 0; i < 4; i++) fmpz_init(c[i].v);
    xmul(&c[0], a->lo, a->lo_inf ? -1 : 0, b->lo, b->lo_inf ? -1 : 0);
    xmul(&c[1], a->lo, a->lo_inf ? -1 : 0, b->hi, b->hi_inf ? 1 : 0);
    xmul(&c[2], a->hi, a->hi_inf ? 1 : 0, b->lo, b->lo_inf ? -1 : 0);
    xmul(&c[3], a->hi, a->hi_inf ? 1 : 0, b->hi, b->hi_inf ? 1 : 0);
    int mn = 0, mx = 0;
    for (int i = 1; i < 4; i++) {
        /* compare extended values */
        int lt_mn = (c[i].inf < 0 && c[mn].inf >= 0) ||
                    (c[i].inf == 0 && c[mn].inf == 0 && fmpz_cmp(c[i].v, c[mn].v) < 0) ||
                    (c[i].inf == 0 && c[mn].inf > 0);
        if (lt_mn) mn = i;
        int gt_mx = (c[i].inf > 0 && c[mx].inf <= 0) ||
                    (c[i].inf == 0 && c[mx].inf == 0 && fmpz_cmp(c[i].v, c[mx].v) > 0) ||
                    (c[i].inf == 0 && c[mx].inf < 0);
        if (gt_mx) mx = i;
    }
    bool li = c[mn].inf != 0, hi = c[mx].inf != 0;
    if (!li) fmpz_set(r->lo, c[mn].v);
    if (!hi) fmpz_set(r->hi, c[mx].v);
    r->lo_inf = li;
    r->hi_inf = hi;
    for (int i = 0; i < 4; i++) fmpz_clear(c[i].v);
}

void sy_ival_pow(sy_ival *r, const sy_ival *a, uint64_t k)
{
    if (k == 0) {
        sy_ival_set_si(r, 1, 1);
        return;
    }
    if (k == 1) {
        sy_ival_set(r, a);
        return;
    }
    /* Guard against astronomically large endpoint powers: beyond 2^20 bits
     * treat as infinite (outward rounding keeps soundness). */
    sy_ival t;
    sy_ival_init(&t);
    bool lo_big = !a->lo_inf && (uint64_t)fmpz_bits(a->lo) * k > (1u << 20);
    bool hi_big = !a->hi_inf && (uint64_t)fmpz_bits(a->hi) * k > (1u << 20);
    if (k % 2 == 1) {
        /* monotone increasing */
        t.lo_inf = a->lo_inf || lo_big;
        t.hi_inf = a->hi_inf || hi_big;
        if (!t.lo_inf) fmpz_pow_ui(t.lo, a->lo, k);
        if (!t.hi_inf) fmpz_pow_ui(t.hi, a->hi, k);
        if (lo_big && !a->lo_inf && fmpz_sgn(a->lo) > 0) { /* huge positive lo: keep a finite lower bound */
            t.lo_inf = false;
            fmpz_set(t.lo, a->lo);
        }
        if (hi_big && !a->hi_inf && fmpz_sgn(a->hi) < 0) {
            t.hi_inf = false;
            fmpz_set(t.hi, a->hi);
        }
    } else {
        /* even: min is 0 if a contains 0, else the smaller |endpoint|^k */
        bool lo_neg = a->lo_inf || fmpz_sgn(a->lo) < 0;
        bool hi_pos = a->hi_inf || fmpz_sgn(a->hi) > 0;
        if (lo_neg && hi_pos) {
            t.lo_inf = false;
            fmpz_zero(t.lo);
            t.hi_inf = a->lo_inf || a->hi_inf || lo_big || hi_big;
            if (!t.hi_inf) {
                fmpz_t x, y;
                fmpz_init(x);
                fmpz_init(y);
                fmpz_pow_ui(x, a->lo, k);
                fmpz_pow_ui(y, a->hi, k);
                fmpz_set(t.hi, fmpz_cmp(x, y) > 0 ? x : y);
                fmpz_clear(x);
                fmpz_clear(y);
            }
        } else if (!lo_neg) { /* a >= 0: increasing */
            t.lo_inf = false;
            if (lo_big) fmpz_set(t.lo, a->lo); else fmpz_pow_ui(t.lo, a->lo, k);
            t.hi_inf = a->hi_inf || hi_big;
            if (!t.hi_inf) fmpz_pow_ui(t.hi, a->hi, k);
        } else { /* a <= 0: decreasing */
            t.lo_inf = false;
            if (hi_big) fmpz_zero(t.lo); else fmpz_pow_ui(t.lo, a->hi, k);
            t.hi_inf = a->lo_inf || lo_big;
            if (!t.hi_inf) fmpz_pow_ui(t.hi, a->lo, k);
        }
    }
    sy_ival_set(r, &t);
    sy_ival_clear(&t);
}

/* floor(x / y) for an extended x and a positive extended y. */
static void xfdiv_pos(xval *r, const fmpz_t xv, int xinf, const fmpz_t yv, int yinf)
{
    if (xinf) {
        r->inf = xinf; /* +-oo / positive */
    } else if (yinf) {
        r->inf = 0; /* finite / +oo -> 0 or -1 (floor of a tiny negative) */
        fmpz_set_si(r->v, fmpz_sgn(xv) < 0 ? -1 : 0);
    } else {
        r->inf = 0;
        fmpz_fdiv_q(r->v, xv, yv);
    }
}

/* a / b with b >= 1 everywhere. */
static void fdiv_pos(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    xval c[4];
    for (int i = 0; i < 4; i++) fmpz_init(c[i].v);
    /* floor(x/y) increases with x; for fixed x it is monotone in y. The
     * extremes are at the corners. */
    xfdiv_pos(&c[0], a->lo, a->lo_inf ? -1 : 0, b->lo, 0);
    xfdiv_pos(&c[1], a->lo, a->lo_inf ? -1 : 0, b->hi, b->hi_inf ? 1 : 0);
    xfdiv_pos(&c[2], a->hi, a->hi_inf ? 1 : 0, b->lo, 0);
    xfdiv_pos(&c[3], a->hi, a->hi_inf ? 1 : 0, b->hi, b->hi_inf ? 1 : 0);
    /* min of c0, c1; max of c2, c3 */
    bool li = c[0].inf < 0 || c[1].inf < 0;
    if (!li) fmpz_set(r->lo, fmpz_cmp(c[0].v, c[1].v) < 0 ? c[0].v : c[1].v);
    bool hi = c[2].inf > 0 || c[3].inf > 0;
    if (!hi) fmpz_set(r->hi, fmpz_cmp(c[2].v, c[3].v) > 0 ? c[2].v : c[3].v);
    r->lo_inf = li;
    r->hi_inf = hi;
    for (int i = 0; i < 4; i++) fmpz_clear(c[i].v);
}

/* Split b into its positive part and (negated) negative part. Returns a mask:
 * 1 positive part non-empty, 2 negative part non-empty. */
static int split_divisor(const sy_ival *b, sy_ival *pos, sy_ival *negneg)
{
    int mask = 0;
    if (b->hi_inf || fmpz_sgn(b->hi) > 0) {
        mask |= 1;
        pos->lo_inf = false;
        if (!b->lo_inf && fmpz_sgn(b->lo) > 0) fmpz_set(pos->lo, b->lo); else fmpz_one(pos->lo);
        pos->hi_inf = b->hi_inf;
        fmpz_set(pos->hi, b->hi);
    }
    if (b->lo_inf || fmpz_sgn(b->lo) < 0) {
        mask |= 2;
        /* -b restricted to >= 1 */
        negneg->lo_inf = false;
        if (!b->hi_inf && fmpz_sgn(b->hi) < 0) fmpz_neg(negneg->lo, b->hi); else fmpz_one(negneg->lo);
        negneg->hi_inf = b->lo_inf;
        fmpz_neg(negneg->hi, b->lo);
    }
    return mask;
}

bool sy_ival_floordiv(sy_ival *r, const sy_ival *a, const sy_ival *b, bool nonzero_b)
{
    if (sy_ival_contains_zero(b) && !nonzero_b) {
        sy_ival_set_full(r);
        return false;
    }
    sy_ival pos, nn, na, t1, t2;
    sy_ival_init(&pos); sy_ival_init(&nn); sy_ival_init(&na); sy_ival_init(&t1); sy_ival_init(&t2);
    int mask = split_divisor(b, &pos, &nn);
    bool have = false;
    if (mask & 1) {
        fdiv_pos(&t1, a, &pos);
        have = true;
    }
    if (mask & 2) {
        /* FloorDiv(a, b) = FloorDiv(-a, -b) */
        sy_ival_neg(&na, a);
        fdiv_pos(&t2, &na, &nn);
        if (have) sy_ival_union(&t1, &t1, &t2); else sy_ival_set(&t1, &t2);
        have = true;
    }
    bool ok = have;
    if (have) sy_ival_set(r, &t1); else sy_ival_set_full(r);
    sy_ival_clear(&pos); sy_ival_clear(&nn); sy_ival_clear(&na); sy_ival_clear(&t1); sy_ival_clear(&t2);
    return ok;
}

bool sy_ival_ceildiv(sy_ival *r, const sy_ival *a, const sy_ival *b, bool nonzero_b)
{
    /* CeilDiv(a, b) = -FloorDiv(-a, b) */
    sy_ival na;
    sy_ival_init(&na);
    sy_ival_neg(&na, a);
    bool ok = sy_ival_floordiv(r, &na, b, nonzero_b);
    sy_ival_neg(r, r);
    sy_ival_clear(&na);
    return ok;
}

/* Mod(a, b) for b >= 1 everywhere: into r. */
static void mod_pos(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    /* Exact when b is a single value k and a stays within one period. */
    if (sy_ival_is_point(b) && !a->lo_inf && !a->hi_inf) {
        fmpz_t q1, q2;
        fmpz_init(q1);
        fmpz_init(q2);
        fmpz_fdiv_q(q1, a->lo, b->lo);
        fmpz_fdiv_q(q2, a->hi, b->lo);
        if (fmpz_equal(q1, q2)) {
            fmpz_fdiv_r(r->lo, a->lo, b->lo);
            fmpz_fdiv_r(r->hi, a->hi, b->lo);
            r->lo_inf = r->hi_inf = false;
            fmpz_clear(q1);
            fmpz_clear(q2);
            return;
        }
        fmpz_clear(q1);
        fmpz_clear(q2);
    }
    /* General: 0 <= Mod < b_hi; and Mod(a,b) <= a when a >= 0. */
    r->lo_inf = false;
    fmpz_zero(r->lo);
    bool hi_inf = b->hi_inf;
    fmpz_t h;
    fmpz_init(h);
    if (!hi_inf) fmpz_sub_ui(h, b->hi, 1);
    if (!a->lo_inf && fmpz_sgn(a->lo) >= 0 && !a->hi_inf) {
        if (hi_inf || fmpz_cmp(a->hi, h) < 0) fmpz_set(h, a->hi);
        hi_inf = false;
    }
    r->hi_inf = hi_inf;
    if (!hi_inf) fmpz_set(r->hi, h);
    fmpz_clear(h);
}

bool sy_ival_mod(sy_ival *r, const sy_ival *a, const sy_ival *b, bool nonzero_b)
{
    if (sy_ival_contains_zero(b) && !nonzero_b) {
        sy_ival_set_full(r);
        return false;
    }
    sy_ival pos, nn, na, t1, t2;
    sy_ival_init(&pos); sy_ival_init(&nn); sy_ival_init(&na); sy_ival_init(&t1); sy_ival_init(&t2);
    int mask = split_divisor(b, &pos, &nn);
    bool have = false;
    if (mask & 1) {
        mod_pos(&t1, a, &pos);
        have = true;
    }
    if (mask & 2) {
        /* Mod(a, b) = -Mod(-a, -b) */
        sy_ival_neg(&na, a);
        mod_pos(&t2, &na, &nn);
        sy_ival_neg(&t2, &t2);
        if (have) sy_ival_union(&t1, &t1, &t2); else sy_ival_set(&t1, &t2);
        have = true;
    }
    if (have) sy_ival_set(r, &t1); else sy_ival_set_full(r);
    sy_ival_clear(&pos); sy_ival_clear(&nn); sy_ival_clear(&na); sy_ival_clear(&t1); sy_ival_clear(&t2);
    return have;
}

void sy_ival_min(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    bool li = a->lo_inf || b->lo_inf;
    if (!li) fmpz_set(r->lo, fmpz_cmp(a->lo, b->lo) < 0 ? a->lo : b->lo);
    bool hi = a->hi_inf && b->hi_inf;
    if (!hi) {
        if (a->hi_inf) fmpz_set(r->hi, b->hi);
        else if (b->hi_inf) fmpz_set(r->hi, a->hi);
        else fmpz_set(r->hi, fmpz_cmp(a->hi, b->hi) < 0 ? a->hi : b->hi);
    }
    r->lo_inf = li;
    r->hi_inf = hi;
}

void sy_ival_max(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    bool hi = a->hi_inf || b->hi_inf;
    if (!hi) fmpz_set(r->hi, fmpz_cmp(a->hi, b->hi) > 0 ? a->hi : b->hi);
    bool li = a->lo_inf && b->lo_inf;
    if (!li) {
        if (a->lo_inf) fmpz_set(r->lo, b->lo);
        else if (b->lo_inf) fmpz_set(r->lo, a->lo);
        else fmpz_set(r->lo, fmpz_cmp(a->lo, b->lo) > 0 ? a->lo : b->lo);
    }
    r->lo_inf = li;
    r->hi_inf = hi;
}

void sy_ival_union(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    bool li = a->lo_inf || b->lo_inf, hi = a->hi_inf || b->hi_inf;
    if (!li) fmpz_set(r->lo, fmpz_cmp(a->lo, b->lo) < 0 ? a->lo : b->lo);
    if (!hi) fmpz_set(r->hi, fmpz_cmp(a->hi, b->hi) > 0 ? a->hi : b->hi);
    r->lo_inf = li;
    r->hi_inf = hi;
}

void sy_ival_intersect(sy_ival *r, const sy_ival *a, const sy_ival *b)
{
    bool li = a->lo_inf && b->lo_inf, hi = a->hi_inf && b->hi_inf;
    if (!li) {
        if (a->lo_inf) fmpz_set(r->lo, b->lo);
        else if (b->lo_inf) fmpz_set(r->lo, a->lo);
        else fmpz_set(r->lo, fmpz_cmp(a->lo, b->lo) > 0 ? a->lo : b->lo);
    }
    if (!hi) {
        if (a->hi_inf) fmpz_set(r->hi, b->hi);
        else if (b->hi_inf) fmpz_set(r->hi, a->hi);
        else fmpz_set(r->hi, fmpz_cmp(a->hi, b->hi) < 0 ? a->hi : b->hi);
    }
    r->lo_inf = li;
    r->hi_inf = hi;
}
