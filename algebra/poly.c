/* Bridge to FLINT's multivariate polynomials (fmpz_mpoly): polynomial gcd,
 * exact division, degree and coefficients. Atoms (symbols and non-polynomial
 * nodes) become the variables. FLINT aborts on misuse, so every precondition
 * (non-zero divisor, exponents within ulong, term budget) is checked first. */
#include <flint/fmpz_mpoly.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/expr_private.h"

typedef struct {
    const sy_expr **atoms;
    size_t n, cap;
} atomset;

static bool atom_add(sy_ctx *ctx, atomset *s, const sy_expr *a)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->atoms[i] == a) return true;
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        const sy_expr **na = sy_realloc(ctx, s->atoms, s->cap * sizeof *na, nc * sizeof *na);
        if (!na) return false;
        s->atoms = na;
        s->cap = nc;
    }
    s->atoms[s->n++] = a;
    return true;
}

static const sy_expr *mono_factor(const sy_expr *m, uint32_t i, uint64_t *e)
{
    const sy_expr *f = m->kind == SY_EXPR_MUL ? m->args[i] : m;
    if (f->kind == SY_EXPR_POW) {
        *e = f->u.exp;
        return f->args[0];
    }
    *e = 1;
    return f;
}
static uint32_t mono_nf(const sy_expr *m) { return m->kind == SY_EXPR_MUL ? m->n : 1; }

static size_t nterms(const sy_expr *e) { return e->kind == SY_EXPR_ADD ? e->n : (e->kind == SY_EXPR_INT ? 0 : 1); }
static const sy_expr *term_mono(const sy_expr *e, size_t i, const fmpz **c)
{
    static const fmpz one = 1;
    if (e->kind == SY_EXPR_ADD) {
        *c = &SY_CTERMS(e)[i].coef;
        return SY_CTERMS(e)[i].mono;
    }
    *c = &one;
    return e;
}

static bool collect(sy_ctx *ctx, atomset *s, const sy_expr *e)
{
    for (size_t i = 0; i < nterms(e); i++) {
        const fmpz *c;
        const sy_expr *m = term_mono(e, i, &c);
        for (uint32_t j = 0; j < mono_nf(m); j++) {
            uint64_t ex;
            if (!atom_add(ctx, s, mono_factor(m, j, &ex))) return false;
        }
    }
    return true;
}

static size_t atom_index(const atomset *s, const sy_expr *a)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->atoms[i] == a) return i;
    return 0;
}

static void to_mpoly(fmpz_mpoly_t A, const sy_expr *e, const atomset *s, ulong *exps, const fmpz_mpoly_ctx_t mctx)
{
    fmpz_mpoly_zero(A, mctx);
    for (size_t i = 0; i < nterms(e); i++) {
        const fmpz *c;
        const sy_expr *m = term_mono(e, i, &c);
        memset(exps, 0, s->n * sizeof *exps);
        for (uint32_t j = 0; j < mono_nf(m); j++) {
            uint64_t ex;
            const sy_expr *a = mono_factor(m, j, &ex);
            exps[atom_index(s, a)] += ex;
        }
        fmpz_mpoly_push_term_fmpz_ui(A, c, exps, mctx);
    }
    fmpz_t c0;
    fmpz_init(c0);
    sy_const_term(c0, e);
    if (!fmpz_is_zero(c0)) {
        memset(exps, 0, s->n * sizeof *exps);
        fmpz_mpoly_push_term_fmpz_ui(A, c0, exps, mctx);
    }
    fmpz_clear(c0);
    fmpz_mpoly_sort_terms(A, mctx);
    fmpz_mpoly_combine_like_terms(A, mctx);
}

static const sy_expr *from_mpoly(sy_ctx *ctx, const fmpz_mpoly_t A, const atomset *s, ulong *exps,
                                 const fmpz_mpoly_ctx_t mctx)
{
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t c;
    fmpz_init(c);
    bool ok = true;
    slong len = fmpz_mpoly_length(A, mctx);
    for (slong i = 0; i < len && ok; i++) {
        fmpz_mpoly_get_term_coeff_fmpz(c, A, i, mctx);
        fmpz_mpoly_get_term_exp_ui(exps, A, i, mctx);
        const sy_expr *m = NULL;
        for (size_t v = 0; v < s->n && ok; v++) {
            if (!exps[v]) continue;
            const sy_expr *p = sy_expr_pow_ui(ctx, s->atoms[v], exps[v]);
            m = m ? sy_expr_mul(ctx, m, p) : p;
            ok = m != NULL;
        }
        if (!ok) break;
        if (!m) fmpz_add(ts.c0, ts.c0, c);
        else ok = sy_terms_push(ctx, &ts, c, m);
    }
    fmpz_clear(c);
    if (!ok) {
        sy_terms_clear(ctx, &ts);
        return NULL;
    }
    return sy_terms_build(ctx, &ts);
}

typedef struct {
    atomset s;
    ulong *exps;
    fmpz_mpoly_ctx_t mctx;
    fmpz_mpoly_t A, B, R;
    bool ready;
} bridge;

static bool bridge_init(sy_ctx *ctx, bridge *br, const sy_expr *a, const sy_expr *b)
{
    memset(br, 0, sizeof *br);
    if (nterms(a) > ctx->opts.max_terms || nterms(b) > ctx->opts.max_terms) {
        sy_fail(ctx, SY_EQUOTA, "polynomial too large for gcd/division");
        return false;
    }
    if (!collect(ctx, &br->s, a) || !collect(ctx, &br->s, b)) {
        sy_oom(ctx);
        return false;
    }
    size_t nv = br->s.n ? br->s.n : 1;
    br->exps = sy_alloc(ctx, nv * sizeof *br->exps);
    if (!br->exps) {
        sy_oom(ctx);
        return false;
    }
    fmpz_mpoly_ctx_init(br->mctx, (slong)nv, ORD_LEX);
    fmpz_mpoly_init(br->A, br->mctx);
    fmpz_mpoly_init(br->B, br->mctx);
    fmpz_mpoly_init(br->R, br->mctx);
    br->ready = true;
    to_mpoly(br->A, a, &br->s, br->exps, br->mctx);
    to_mpoly(br->B, b, &br->s, br->exps, br->mctx);
    return true;
}

static void bridge_clear(sy_ctx *ctx, bridge *br)
{
    if (br->ready) {
        fmpz_mpoly_clear(br->A, br->mctx);
        fmpz_mpoly_clear(br->B, br->mctx);
        fmpz_mpoly_clear(br->R, br->mctx);
        fmpz_mpoly_ctx_clear(br->mctx);
    }
    if (br->exps) sy_dealloc(ctx, br->exps, (br->s.n ? br->s.n : 1) * sizeof *br->exps);
    if (br->s.atoms) sy_dealloc(ctx, br->s.atoms, br->s.cap * sizeof *br->s.atoms);
}

/* Common monomial factor of every term of e intersected with the monomial m
 * (minimum exponents), times 1; NULL on error. */
static const sy_expr *mono_common(sy_ctx *ctx, const sy_expr *e, const sy_expr *m)
{
    const sy_expr *r = sy_expr_int_si(ctx, 1);
    fmpz_t c0;
    fmpz_init(c0);
    sy_const_term(c0, e);
    bool has_const = !fmpz_is_zero(c0);
    fmpz_clear(c0);
    if (has_const) return r; /* the constant term has every exponent 0 */
    for (uint32_t j = 0; j < mono_nf(m) && r; j++) {
        uint64_t em;
        const sy_expr *atom = mono_factor(m, j, &em);
        uint64_t mn = em;
        for (size_t i = 0; i < nterms(e) && mn; i++) {
            const fmpz *c;
            const sy_expr *t = term_mono(e, i, &c);
            uint64_t et = 0;
            for (uint32_t k = 0; k < mono_nf(t); k++) {
                uint64_t x;
                if (mono_factor(t, k, &x) == atom) et = x;
            }
            if (et < mn) mn = et;
        }
        if (mn) r = sy_expr_mul(ctx, r, sy_expr_pow_ui(ctx, atom, mn));
    }
    return r;
}

static bool single_term(const sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) return false;
    if (e->kind != SY_EXPR_ADD) return true;
    return e->n == 1 && fmpz_is_zero(&e->u.c0);
}

const sy_expr *sy_poly_gcd_raw(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (sy_is_zero(a)) return sy_leading_sign(b) < 0 ? sy_expr_neg(ctx, b) : b;
    if (sy_is_zero(b)) return sy_leading_sign(a) < 0 ? sy_expr_neg(ctx, a) : a;
    if (a->kind == SY_EXPR_INT || b->kind == SY_EXPR_INT) {
        fmpz_t g, t;
        fmpz_init(g);
        fmpz_init(t);
        sy_content(g, a);
        sy_content(t, b);
        fmpz_gcd(g, g, t);
        const sy_expr *r = sy_int_fmpz(ctx, g);
        fmpz_clear(g);
        fmpz_clear(t);
        return r;
    }
    if (single_term(a) || single_term(b)) {
        /* gcd with a single term c*m: gcd of the integer contents times the
         * monomial common to every term of the other operand and m */
        const sy_expr *t = single_term(a) ? a : b, *o = single_term(a) ? b : a;
        const fmpz *tc;
        const sy_expr *tm = term_mono(t, 0, &tc);
        fmpz_t g, h;
        fmpz_init(g);
        fmpz_init(h);
        sy_content(g, o);
        fmpz_abs(h, tc);
        fmpz_gcd(g, g, h);
        const sy_expr *r = o->kind == SY_EXPR_INT ? sy_int_fmpz(ctx, g) : sy_scale_fmpz(ctx, mono_common(ctx, o, tm), g);
        fmpz_clear(g);
        fmpz_clear(h);
        return r;
    }
    bridge br;
    const sy_expr *res = NULL;
    if (bridge_init(ctx, &br, a, b)) {
        if (fmpz_mpoly_gcd(br.R, br.A, br.B, br.mctx))
            res = from_mpoly(ctx, br.R, &br.s, br.exps, br.mctx);
        else
            res = sy_fail(ctx, SY_EQUOTA, "polynomial gcd failed (too large)");
    }
    bridge_clear(ctx, &br);
    if (res && sy_leading_sign(res) < 0) res = sy_expr_neg(ctx, res);
    return res;
}

int sy_poly_divides_raw(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, const sy_expr **q)
{
    if (sy_is_zero(b)) {
        sy_fail(ctx, SY_EDIVZERO, "polynomial division by zero");
        return -1;
    }
    if (sy_is_zero(a)) {
        *q = a;
        return 1;
    }
    if (b->kind == SY_EXPR_INT) {
        fmpz_t g;
        fmpz_init(g);
        sy_content(g, a);
        int ok = fmpz_divisible(g, &b->u.value);
        fmpz_clear(g);
        if (!ok) return 0;
        *q = sy_divexact_fmpz(ctx, a, &b->u.value);
        return *q ? 1 : -1;
    }
    if (a->kind == SY_EXPR_INT) return 0;
    if (a == b) {
        *q = sy_expr_int_si(ctx, 1);
        return 1;
    }
    if (single_term(b)) {
        /* every term of a must be divisible by the single term c*m of b */
        const fmpz *bc;
        const sy_expr *bm = term_mono(b, 0, &bc);
        fmpz_t c0;
        fmpz_init(c0);
        sy_const_term(c0, a);
        bool ok = fmpz_is_zero(c0);
        fmpz_clear(c0);
        for (size_t i = 0; i < nterms(a) && ok; i++) {
            const fmpz *c;
            const sy_expr *t = term_mono(a, i, &c);
            if (!fmpz_divisible(c, bc)) ok = false;
            for (uint32_t j = 0; j < mono_nf(bm) && ok; j++) {
                uint64_t eb, et = 0;
                const sy_expr *atom = mono_factor(bm, j, &eb);
                for (uint32_t k = 0; k < mono_nf(t); k++) {
                    uint64_t x;
                    if (mono_factor(t, k, &x) == atom) et = x;
                }
                if (et < eb) ok = false;
            }
        }
        if (!ok) return 0;
        /* quotient term by term */
        sy_terms ts;
        sy_terms_init(&ts);
        fmpz_t qc;
        fmpz_init(qc);
        bool good = true;
        for (size_t i = 0; i < nterms(a) && good; i++) {
            const fmpz *c;
            const sy_expr *t = term_mono(a, i, &c);
            fmpz_divexact(qc, c, bc);
            const sy_expr *qm = sy_expr_int_si(ctx, 1);
            for (uint32_t k = 0; k < mono_nf(t) && qm; k++) {
                uint64_t et, eb = 0;
                const sy_expr *atom = mono_factor(t, k, &et);
                for (uint32_t j = 0; j < mono_nf(bm); j++) {
                    uint64_t x;
                    if (mono_factor(bm, j, &x) == atom) eb = x;
                }
                if (et > eb) qm = sy_expr_mul(ctx, qm, sy_expr_pow_ui(ctx, atom, et - eb));
            }
            good = qm && sy_terms_add_expr(ctx, &ts, qc, qm);
        }
        fmpz_clear(qc);
        if (!good) {
            sy_terms_clear(ctx, &ts);
            return -1;
        }
        *q = sy_terms_build(ctx, &ts);
        sy_terms_clear(ctx, &ts);
        return *q ? 1 : -1;
    }
    if (single_term(a)) return 0; /* a polynomial with >= 2 terms never divides a single term */
    bridge br;
    int res = -1;
    if (bridge_init(ctx, &br, a, b)) {
        if (fmpz_mpoly_divides(br.R, br.A, br.B, br.mctx)) {
            *q = from_mpoly(ctx, br.R, &br.s, br.exps, br.mctx);
            res = *q ? 1 : -1;
        } else {
            res = 0;
        }
    }
    bridge_clear(ctx, &br);
    return res;
}

const sy_expr *sy_expr_poly_gcd(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!sy_check_int(ctx, a, "gcd") || !sy_check_int(ctx, b, "gcd")) return NULL;
    return sy_poly_gcd_raw(ctx, a, b);
}

sy_bool sy_expr_poly_divexact(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, const sy_expr **q)
{
    if (!ctx || !a || !b || !q) return SY_BOOL_ERROR;
    if (!sy_check_int(ctx, a, "divexact") || !sy_check_int(ctx, b, "divexact")) return SY_BOOL_ERROR;
    int r = sy_poly_divides_raw(ctx, a, b, q);
    return r < 0 ? SY_BOOL_ERROR : (r ? SY_TRUE : SY_FALSE);
}

long sy_expr_degree(const sy_expr *e, const sy_expr *x)
{
    if (sy_is_zero(e)) return -1;
    long d = 0;
    for (size_t i = 0; i < nterms(e); i++) {
        const fmpz *c;
        const sy_expr *m = term_mono(e, i, &c);
        for (uint32_t j = 0; j < mono_nf(m); j++) {
            uint64_t ex;
            if (mono_factor(m, j, &ex) == x && (long)ex > d) d = (long)ex;
        }
    }
    return d;
}

const sy_expr *sy_expr_coeff(sy_ctx *ctx, const sy_expr *e, const sy_expr *x, uint64_t k)
{
    if (!ctx || !e || !x) return NULL;
    if (!sy_check_int(ctx, e, "coeff")) return NULL;
    if (!sy_is_atom(x)) return sy_fail(ctx, SY_EINVAL, "coeff: the variable must be a symbol or an atom");
    sy_terms ts;
    sy_terms_init(&ts);
    if (k == 0) sy_const_term(ts.c0, e);
    bool ok = true;
    for (size_t i = 0; i < nterms(e) && ok; i++) {
        const fmpz *c;
        const sy_expr *m = term_mono(e, i, &c);
        uint64_t have = 0;
        const sy_expr *rest = sy_expr_int_si(ctx, 1);
        for (uint32_t j = 0; j < mono_nf(m) && rest; j++) {
            uint64_t ex;
            const sy_expr *a = mono_factor(m, j, &ex);
            if (a == x) have = ex;
            else rest = sy_expr_mul(ctx, rest, sy_expr_pow_ui(ctx, a, ex));
        }
        if (!rest) ok = false;
        else if (have == k) ok = sy_terms_add_expr(ctx, &ts, c, rest);
    }
    if (!ok) {
        sy_terms_clear(ctx, &ts);
        return NULL;
    }
    return sy_terms_build(ctx, &ts);
}
