/* Integer points of linear equations (the .cases runner's Diophantine witnesses, cases.c; issue 38
 * leftovers). A false claim such as `decide 6*a != 35*b + 1 | a >= 1000; b >= 1000 => true` or
 * `decide Mod(7*a, 12) != 5 => true` is false only on a lattice: the samplers' vertices, grid,
 * random points and per-symbol bisection rarely land on it. Here the equations are solved over
 * the integers exactly (FLINT's Hermite normal form with its transform, fmpz_mat_hnf_transform),
 * the kernel is LLL-reduced (fmpz_lll), and the lattice points nearest the symbols' preferred
 * values (Babai's rounding) and the small box around them are handed to the caller.
 *
 * Linear means: an affine combination of symbols and of FloorDiv(P, m), Mod(P, m),
 * CeilDiv(P, m) with P linear and m a nonzero constant; each such atom gets two auxiliary
 * unknowns q, r with P = m*q + r and r between 0 and m (exclusive; Python's floor semantics),
 * a point whose r falls outside is skipped. A point is a candidate only: the caller evaluates
 * the case at it exactly, so nothing here can make the runner accept a wrong claim. */
#include <string.h>

#include <flint/fmpq_mat.h>
#include <flint/fmpz_lll.h>
#include <flint/fmpz_mat.h>

#include "algebra/eval.h"
#include "algebra/expr_private.h"
#include "algebra/lattice.h"

enum { LAT_VARS = 32, LAT_EQS = 24 };
#define LAT_ROW(m, i) ((m)->rows[i]) /* FLINT 2.9 has no fmpz_mat_row */

typedef struct {
    const sy_expr *const *syms;
    size_t nsyms;
    size_t nv;                       /* symbols first, then q, r pairs */
    const sy_expr *atom[LAT_VARS];   /* the FloorDiv / Mod / CeilDiv of an aux pair (at its q) */
    fmpz_mat_t eq;                   /* LAT_EQS x (LAT_VARS + 1): coefficients, constant last */
    size_t neq;
    fmpz vlo[LAT_VARS], vhi[LAT_VARS]; /* each unknown's range: a symbol's, r's [0, m) */
    bool hlo[LAT_VARS], hhi[LAT_VARS]; /* has that end */
    bool fail;
} lin;

static long sym_var(lin *L, const sy_expr *s)
{
    for (size_t i = 0; i < L->nsyms; i++)
        if (L->syms[i] == s) return (long)i;
    return -1;
}

static bool lin_add(lin *L, const sy_expr *e, const fmpz_t k, fmpz *row);

/* the aux pair of a FloorDiv / Mod / CeilDiv atom (made once): the index of q; -1 when P is not
 * linear, m not a nonzero constant, or there is no room */
static long aux_pair(lin *L, const sy_expr *e)
{
    for (size_t i = L->nsyms; i < L->nv; i++)
        if (L->atom[i] == e) return (long)i;
    const sy_expr *m = e->args[1];
    if (m->kind != SY_EXPR_INT || fmpz_is_zero(&m->u.value)) return -1;
    if (L->nv + 2 > LAT_VARS || L->neq >= LAT_EQS) return -1;
    size_t q = L->nv, r = L->nv + 1, row = L->neq;
    L->nv += 2;
    L->atom[q] = e;
    L->hlo[r] = L->hhi[r] = true;
    if (fmpz_sgn(&m->u.value) > 0) {
        fmpz_zero(L->vlo + r);
        fmpz_sub_ui(L->vhi + r, &m->u.value, 1);
    } else {
        fmpz_add_ui(L->vlo + r, &m->u.value, 1);
        fmpz_zero(L->vhi + r);
    }
    L->neq++;
    fmpz *a = LAT_ROW(L->eq, (slong)row);
    fmpz_t one;
    fmpz_init_set_si(one, e->kind == SY_EXPR_CEILDIV ? -1 : 1); /* CeilDiv(P, m) = -FloorDiv(-P, m) */
    bool ok = lin_add(L, e->args[0], one, a); /* P - m*q - r == 0 */
    fmpz_clear(one);
    if (!ok) return -1;
    fmpz_sub(a + q, a + q, &m->u.value);
    fmpz_sub_ui(a + r, a + r, 1);
    return (long)q;
}

/* row += k * e (the constant in row[LAT_VARS]); false when e is not linear */
static bool lin_add(lin *L, const sy_expr *e, const fmpz_t k, fmpz *row)
{
    long v;
    switch (e->kind) {
    case SY_EXPR_INT:
        fmpz_addmul(row + LAT_VARS, k, &e->u.value);
        return true;
    case SY_EXPR_SYM:
        if ((v = sym_var(L, e)) < 0) return false;
        fmpz_add(row + v, row + v, k);
        return true;
    case SY_EXPR_ADD: {
        fmpz_addmul(row + LAT_VARS, k, &e->u.c0);
        fmpz_t kk;
        fmpz_init(kk);
        bool ok = true;
        for (uint32_t i = 0; i < e->n && ok; i++) {
            fmpz_mul(kk, k, &SY_CTERMS(e)[i].coef);
            ok = lin_add(L, SY_CTERMS(e)[i].mono, kk, row);
        }
        fmpz_clear(kk);
        return ok;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV:
        if ((v = aux_pair(L, e)) < 0) return false;
        if (e->kind == SY_EXPR_MOD) v++;
        if (e->kind == SY_EXPR_CEILDIV) fmpz_sub(row + v, row + v, k);
        else fmpz_add(row + v, row + v, k);
        return true;
    default:
        return false;
    }
}

/* one equation e == off into L; false when not linear (the row is dropped) */
static bool lin_eq(lin *L, const sy_expr *e, slong off)
{
    if (L->neq >= LAT_EQS) return false;
    size_t row = L->neq++, nv0 = L->nv, neq0 = row;
    fmpz *a = LAT_ROW(L->eq, (slong)row);
    fmpz_t one;
    fmpz_init_set_ui(one, 1);
    bool ok = lin_add(L, e, one, a);
    fmpz_clear(one);
    if (!ok) { /* drop the row and any aux pair it made */
        for (size_t i = neq0; i < L->neq; i++)
            for (size_t j = 0; j <= LAT_VARS; j++) fmpz_zero(fmpz_mat_entry(L->eq, (slong)i, (slong)j));
        for (size_t i = nv0; i < L->nv; i++) L->atom[i] = NULL, L->hlo[i] = L->hhi[i] = false;
        L->neq = neq0, L->nv = nv0;
        return false;
    }
    fmpz_sub_si(a + LAT_VARS, a + LAT_VARS, off);
    return true;
}

/* the general solution of the equations: x0 (nv) and a reduced kernel basis K (k x nv), or
 * false when there is no integer solution */
static bool solve(const lin *L, fmpz_mat_t x0, fmpz_mat_t K)
{
    slong nv = (slong)L->nv, ne = (slong)L->neq;
    /* the HNF of [A^T | I] is [H | U] with U A^T = H, U unimodular: A U^T = H^T, so v = U^T y
     * with H^T y = b (fmpz_mat_hnf_transform does the same, through a modular algorithm whose
     * random primes cost more than the elimination at these sizes) */
    fmpz_mat_t Aug, H, U;
    fmpz_mat_init(Aug, nv, ne + nv);
    for (slong j = 0; j < nv; j++) {
        for (slong i = 0; i < ne; i++) fmpz_set(fmpz_mat_entry(Aug, j, i), fmpz_mat_entry(L->eq, i, j));
        fmpz_one(fmpz_mat_entry(Aug, j, ne + j));
    }
    fmpz_mat_t HU;
    fmpz_mat_init(HU, nv, ne + nv);
    fmpz_mat_hnf_xgcd(HU, Aug);
    fmpz_mat_window_init(H, HU, 0, 0, nv, ne);
    fmpz_mat_window_init(U, HU, 0, ne, nv, ne + nv);
    slong rank = 0;
    while (rank < nv && !fmpz_mat_is_zero_row(H, rank)) rank++;
    fmpz_mat_t y;
    fmpz_mat_init(y, 1, nv);
    bool ok = true;
    fmpz_t s, rem;
    fmpz_init(s);
    fmpz_init(rem);
    /* H^T y = b, b = -constants: row i of H has its pivot at column p_i, increasing */
    slong p = 0;
    for (slong i = 0; i < rank && ok; i++) {
        while (p < ne && fmpz_is_zero(fmpz_mat_entry(H, i, p))) p++;
        fmpz_neg(s, fmpz_mat_entry(L->eq, p, LAT_VARS));
        for (slong j = 0; j < i; j++) fmpz_submul(s, fmpz_mat_entry(y, 0, j), fmpz_mat_entry(H, j, p));
        fmpz_fdiv_qr(fmpz_mat_entry(y, 0, i), rem, s, fmpz_mat_entry(H, i, p));
        ok = fmpz_is_zero(rem);
    }
    for (slong c = 0; c < ne && ok; c++) { /* every equation, the non-pivot ones too */
        fmpz_neg(s, fmpz_mat_entry(L->eq, c, LAT_VARS));
        for (slong j = 0; j < rank; j++) fmpz_submul(s, fmpz_mat_entry(y, 0, j), fmpz_mat_entry(H, j, c));
        ok = fmpz_is_zero(s);
    }
    if (ok) {
        fmpz_mat_init(x0, 1, nv);
        for (slong j = 0; j < rank; j++)
            for (slong c = 0; c < nv; c++)
                fmpz_addmul(fmpz_mat_entry(x0, 0, c), fmpz_mat_entry(y, 0, j), fmpz_mat_entry(U, j, c));
        fmpz_mat_init(K, nv - rank, nv);
        for (slong j = rank; j < nv; j++)
            for (slong c = 0; c < nv; c++) fmpz_set(fmpz_mat_entry(K, j - rank, c), fmpz_mat_entry(U, j, c));
        if (nv - rank > 0) {
            fmpz_lll_t fl;
            fmpz_lll_context_init_default(fl);
            fmpz_lll(K, NULL, fl);
        }
    }
    fmpz_clear(s);
    fmpz_clear(rem);
    fmpz_mat_clear(y);
    fmpz_mat_window_clear(H);
    fmpz_mat_window_clear(U);
    fmpz_mat_clear(HU);
    fmpz_mat_clear(Aug);
    return ok;
}

/* t nearest x0 + t K to the preferred point p (Babai's rounding over the rationals) */
static void nearest(const fmpz_mat_t x0, const fmpz_mat_t K, const fmpz *p, fmpz *t)
{
    slong k = fmpz_mat_nrows(K), nv = fmpz_mat_ncols(K);
    fmpz_mat_t G, r;
    fmpq_mat_t X;
    fmpz_mat_init(G, k, k);
    fmpz_mat_init(r, k, 1);
    fmpq_mat_init(X, k, 1);
    fmpz_t d;
    fmpz_init(d);
    for (slong i = 0; i < k; i++) {
        for (slong j = 0; j < k; j++)
            for (slong c = 0; c < nv; c++)
                fmpz_addmul(fmpz_mat_entry(G, i, j), fmpz_mat_entry(K, i, c), fmpz_mat_entry(K, j, c));
        for (slong c = 0; c < nv; c++) {
            fmpz_sub(d, p + c, fmpz_mat_entry(x0, 0, c));
            fmpz_addmul(fmpz_mat_entry(r, i, 0), fmpz_mat_entry(K, i, c), d);
        }
    }
    if (fmpq_mat_solve_fmpz_mat(X, G, r)) { /* G is a Gram matrix of independent rows: invertible */
        for (slong i = 0; i < k; i++) { /* round half up: floor((2n + d) / 2d) */
            const fmpq *q = fmpq_mat_entry(X, i, 0);
            fmpz_mul_2exp(d, fmpq_numref(q), 1);
            fmpz_add(d, d, fmpq_denref(q));
            fmpz_mul_2exp(t + i, fmpq_denref(q), 1);
            fmpz_fdiv_q(t + i, d, t + i);
        }
    } else {
        for (slong i = 0; i < k; i++) fmpz_zero(t + i);
    }
    fmpz_clear(d);
    fmpz_mat_clear(G);
    fmpz_mat_clear(r);
    fmpq_mat_clear(X);
}

/* t moved into the unknowns' ranges where one direction at a time can: for each kernel row i,
 * the interval of t_i (the others fixed) that keeps every bounded unknown in its range, t_i
 * clamped into it when it is not empty (twice over the rows: a later row can free an earlier) */
static void fit(const lin *L, const fmpz_mat_t x0, const fmpz_mat_t K, fmpz *t)
{
    slong k = fmpz_mat_nrows(K), nv = (slong)L->nv;
    fmpz *v = _fmpz_vec_init(nv);
    fmpz_t tl, th, b, q;
    fmpz_init(tl), fmpz_init(th), fmpz_init(b), fmpz_init(q);
    for (int pass = 0; pass < 2; pass++)
        for (slong i = 0; i < k; i++) {
            for (slong c = 0; c < nv; c++) { /* v: the point without row i */
                fmpz_set(v + c, fmpz_mat_entry(x0, 0, c));
                for (slong j = 0; j < k; j++)
                    if (j != i) fmpz_addmul(v + c, t + j, fmpz_mat_entry(K, j, c));
            }
            bool htl = false, hth = false, empty = false;
            for (slong c = 0; c < nv && !empty; c++) {
                const fmpz *a = fmpz_mat_entry(K, i, c);
                if (fmpz_is_zero(a)) {
                    empty = (L->hlo[c] && fmpz_cmp(v + c, L->vlo + c) < 0) || (L->hhi[c] && fmpz_cmp(v + c, L->vhi + c) > 0);
                    continue;
                }
                for (int end = 0; end < 2; end++) { /* lo <= v + t*a <= hi */
                    if (!(end ? L->hhi[c] : L->hlo[c])) continue;
                    fmpz_sub(b, end ? L->vhi + c : L->vlo + c, v + c);
                    bool upper = (end == 1) == (fmpz_sgn(a) > 0); /* t <= b / a, else t >= b / a */
                    if (upper) {
                        fmpz_fdiv_q(q, b, a);
                        if (!hth || fmpz_cmp(q, th) < 0) fmpz_set(th, q), hth = true;
                    } else {
                        fmpz_cdiv_q(q, b, a);
                        if (!htl || fmpz_cmp(q, tl) > 0) fmpz_set(tl, q), htl = true;
                    }
                }
            }
            if (empty || (htl && hth && fmpz_cmp(tl, th) > 0)) continue;
            if (htl && fmpz_cmp(t + i, tl) < 0) fmpz_set(t + i, tl);
            if (hth && fmpz_cmp(t + i, th) > 0) fmpz_set(t + i, th);
        }
    fmpz_clear(tl), fmpz_clear(th), fmpz_clear(b), fmpz_clear(q);
    _fmpz_vec_clear(v, nv);
}

/* The in-range points of x0 + t K found level by level (issue 38, lattice47): `fit` moves along
 * one kernel direction at a time and misses a box point that needs two at once (`6*a + 9*b +
 * 97*c == 8994001813` with a, b, c in small boxes far out). The columns are ordered by how tight
 * their ranges are (both ends, narrowest first; then one end; then none) and K is put in Hermite
 * normal form over that order: row j is zero before its pivot column piv[j], so the columns
 * piv[j] .. piv[j+1] - 1 depend on t_0 .. t_j only, and each gives t_j an exact interval once
 * t_0 .. t_{j-1} are fixed. t_j runs over its interval from the value nearest the preferred
 * pivot value outwards; at most `budget` nodes and `max` points (each in every range). */
typedef struct {
    const lin *L;
    fmpz_mat_t E;               /* K in HNF, columns permuted */
    slong k, nv;
    slong perm[LAT_VARS];       /* E's column c is the unknown perm[c] */
    slong piv[LAT_VARS + 1];    /* the pivot column of each row; piv[k] = nv */
    fmpz *v, *out;              /* the point (permuted), the point passed to fn */
    const fmpz *p;              /* preferred values (unpermuted) */
    size_t nodes, budget, emitted, max;
    sy_lattice_fn fn;
    void *ud;
    bool stop;
} dfs;

static bool col_lo(const dfs *D, slong c, const fmpz **b) { *b = D->L->vlo + D->perm[c]; return D->L->hlo[D->perm[c]]; }
static bool col_hi(const dfs *D, slong c, const fmpz **b) { *b = D->L->vhi + D->perm[c]; return D->L->hhi[D->perm[c]]; }

static void dfs_level(dfs *D, slong j)
{
    if (D->stop) return;
    if (j == D->k) {
        for (slong c = 0; c < D->nv; c++) fmpz_set(D->out + D->perm[c], D->v + c);
        if (D->fn(D->ud, D->out) < 0 || ++D->emitted >= D->max) D->stop = true;
        return;
    }
    fmpz_t tl, th, b, q, t;
    fmpz_init(tl), fmpz_init(th), fmpz_init(b), fmpz_init(q), fmpz_init(t);
    bool htl = false, hth = false, empty = false;
    for (slong c = D->piv[j]; c < D->piv[j + 1] && !empty; c++) { /* lo <= v_c + t*a <= hi */
        const fmpz *a = fmpz_mat_entry(D->E, j, c), *bd;
        for (int end = 0; end < 2 && !empty; end++) {
            if (!(end ? col_hi(D, c, &bd) : col_lo(D, c, &bd))) continue;
            fmpz_sub(b, bd, D->v + c);
            if (fmpz_is_zero(a)) {
                empty = end ? fmpz_sgn(b) < 0 : fmpz_sgn(b) > 0;
                continue;
            }
            if ((end == 1) == (fmpz_sgn(a) > 0)) { /* t <= b / a */
                fmpz_fdiv_q(q, b, a);
                if (!hth || fmpz_cmp(q, th) < 0) fmpz_set(th, q), hth = true;
            } else { /* t >= b / a */
                fmpz_cdiv_q(q, b, a);
                if (!htl || fmpz_cmp(q, tl) > 0) fmpz_set(tl, q), htl = true;
            }
        }
    }
    if (!empty && !(htl && hth && fmpz_cmp(tl, th) > 0)) {
        /* the centre: the pivot nearest its preferred value, round((p - v) / a), a > 0 (HNF) */
        slong pc = D->piv[j];
        const fmpz *a = fmpz_mat_entry(D->E, j, pc);
        fmpz_sub(b, D->p + D->perm[pc], D->v + pc);
        fmpz_mul_2exp(b, b, 1);
        fmpz_add(b, b, a);
        fmpz_mul_2exp(q, a, 1);
        fmpz_fdiv_q(b, b, q); /* b: the centre */
        if (htl && fmpz_cmp(b, tl) < 0) fmpz_set(b, tl);
        if (hth && fmpz_cmp(b, th) > 0) fmpz_set(b, th);
        bool up = true, down = true;
        for (slong s = 0; (up || down) && !D->stop; s++) { /* b, b + 1, b - 1, b + 2, ... */
            bool isup = s % 2 == 1 || s == 0;
            if (s > 0 && !(isup ? up : down)) continue;
            fmpz_set(t, b);
            if (isup) fmpz_add_si(t, t, (s + 1) / 2);
            else fmpz_sub_si(t, t, s / 2);
            if (isup && hth && fmpz_cmp(t, th) > 0) { up = false; continue; }
            if (!isup && htl && fmpz_cmp(t, tl) < 0) { down = false; continue; }
            if (++D->nodes > D->budget) { D->stop = true; break; }
            for (slong c = pc; c < D->nv; c++) fmpz_addmul(D->v + c, t, fmpz_mat_entry(D->E, j, c));
            dfs_level(D, j + 1);
            for (slong c = pc; c < D->nv; c++) fmpz_submul(D->v + c, t, fmpz_mat_entry(D->E, j, c));
        }
    }
    fmpz_clear(tl), fmpz_clear(th), fmpz_clear(b), fmpz_clear(q), fmpz_clear(t);
}

/* the unknown's tightness: 0 both ends, 1 one end, 2 none; w its width when 0 */
static int col_class(const lin *L, slong c, fmpz_t w)
{
    if (L->hlo[c] && L->hhi[c]) {
        fmpz_sub(w, L->vhi + c, L->vlo + c);
        return 0;
    }
    fmpz_zero(w);
    return L->hlo[c] || L->hhi[c] ? 1 : 2;
}

static void search(const lin *L, const fmpz_mat_t x0, const fmpz_mat_t K, const fmpz *p, size_t max,
                   sy_lattice_fn fn, void *ud)
{
    dfs D;
    memset(&D, 0, sizeof D);
    D.L = L, D.k = fmpz_mat_nrows(K), D.nv = (slong)L->nv, D.p = p, D.max = max, D.budget = 16 * max;
    D.fn = fn, D.ud = ud;
    if (D.k == 0) return; /* x0 alone: the box walk visited it */
    fmpz_t wa, wb;
    fmpz_init(wa), fmpz_init(wb);
    for (slong c = 0; c < D.nv; c++) { /* insertion sort: class, then width, then index */
        slong x = c, i = c;
        int cx = col_class(L, x, wa);
        while (i > 0) {
            int cy = col_class(L, D.perm[i - 1], wb);
            if (cy < cx || (cy == cx && fmpz_cmp(wb, wa) <= 0)) break;
            D.perm[i] = D.perm[i - 1];
            i--;
        }
        D.perm[i] = x;
    }
    fmpz_clear(wa), fmpz_clear(wb);
    fmpz_mat_t Kp;
    fmpz_mat_init(Kp, D.k, D.nv);
    fmpz_mat_init(D.E, D.k, D.nv);
    for (slong i = 0; i < D.k; i++)
        for (slong c = 0; c < D.nv; c++) fmpz_set(fmpz_mat_entry(Kp, i, c), fmpz_mat_entry(K, i, D.perm[c]));
    fmpz_mat_hnf(D.E, Kp);
    fmpz_mat_clear(Kp);
    D.v = _fmpz_vec_init(D.nv), D.out = _fmpz_vec_init(D.nv);
    for (slong c = 0; c < D.nv; c++) fmpz_set(D.v + c, fmpz_mat_entry(x0, 0, D.perm[c]));
    bool ok = true;
    slong c = 0;
    for (slong i = 0; i < D.k && ok; i++) { /* K has full row rank: k nonzero echelon rows */
        while (c < D.nv && fmpz_is_zero(fmpz_mat_entry(D.E, i, c))) c++;
        ok = c < D.nv;
        D.piv[i] = c;
    }
    D.piv[D.k] = D.nv;
    for (slong c0 = 0; ok && c0 < D.piv[0]; c0++) { /* the columns no row moves */
        const fmpz *bd;
        if (col_lo(&D, c0, &bd) && fmpz_cmp(D.v + c0, bd) < 0) ok = false;
        if (col_hi(&D, c0, &bd) && fmpz_cmp(D.v + c0, bd) > 0) ok = false;
    }
    if (ok) dfs_level(&D, 0);
    _fmpz_vec_clear(D.v, D.nv), _fmpz_vec_clear(D.out, D.nv);
    fmpz_mat_clear(D.E);
}

/* the box radius per kernel dimension so that (2R + 1)^k <= max */
static long radius(slong k, size_t max)
{
    long R = 0;
    for (long c = 1; c < 1000; c++) {
        double n = 1;
        for (slong i = 0; i < k; i++) n *= (double)(2 * c + 1);
        if (n > (double)max) break;
        R = c;
    }
    return R;
}

sy_status sy_lattice_points(sy_ctx *ctx, const sy_expr *const *eqs, const slong *offs, size_t neq,
                            const sy_expr *const *syms, const fmpz *pref, const sy_expr *const *lo,
                            const sy_expr *const *hi, size_t nsyms, size_t max, sy_lattice_fn fn, void *ud)
{
    if (nsyms == 0 || nsyms > LAT_VARS - 2 || neq == 0) return SY_OK;
    lin L;
    memset(&L, 0, sizeof L);
    L.syms = syms, L.nsyms = nsyms, L.nv = nsyms;
    fmpz_mat_init(L.eq, LAT_EQS, LAT_VARS + 1);
    for (size_t i = 0; i < LAT_VARS; i++) fmpz_init(L.vlo + i), fmpz_init(L.vhi + i);
    for (size_t i = 0; i < nsyms; i++) {
        if ((L.hlo[i] = lo && lo[i] && lo[i]->kind == SY_EXPR_INT)) fmpz_set(L.vlo + i, &lo[i]->u.value);
        if ((L.hhi[i] = hi && hi[i] && hi[i]->kind == SY_EXPR_INT)) fmpz_set(L.vhi + i, &hi[i]->u.value);
    }
    bool all = true;
    for (size_t i = 0; i < neq && all; i++) all = lin_eq(&L, eqs[i], offs ? offs[i] : 0);
    sy_status st = SY_OK;
    fmpz_mat_t x0, K;
    if (all && solve(&L, x0, K)) {
        slong k = fmpz_mat_nrows(K), nv = (slong)L.nv;
        fmpz *p = _fmpz_vec_init(nv), *t = _fmpz_vec_init(k ? k : 1), *v = _fmpz_vec_init(nv);
        /* the preferred point: the symbols' values given, each q the FloorDiv of its P there
         * (with r 0), in order (an atom's P only uses earlier variables) */
        for (size_t i = 0; i < nsyms; i++) fmpz_set(p + i, pref + i);
        for (size_t i = nsyms; i < L.nv; i++) {
            if (!L.atom[i]) continue;
            const fmpz *a = LAT_ROW(L.eq, 0); /* find the defining row: the one with -1 at r */
            for (size_t e = 0; e < L.neq; e++) {
                a = LAT_ROW(L.eq, (slong)e);
                if (fmpz_equal_si(a + i + 1, -1) && !fmpz_is_zero(a + i)) break;
                a = NULL;
            }
            if (!a) continue;
            fmpz_t s;
            fmpz_init_set(s, a + LAT_VARS);
            for (size_t j = 0; j < i; j++) fmpz_addmul(s, a + j, p + j);
            fmpz_t m;
            fmpz_init(m);
            fmpz_neg(m, a + i);
            fmpz_fdiv_q(p + i, s, m);
            fmpz_clear(m);
            fmpz_clear(s);
        }
        nearest(x0, K, p, t);
        fit(&L, x0, K, t);
        long R = k ? radius(k, max) : 0;
        size_t dsz = (size_t)(k ? k : 1) * sizeof(slong);
        slong *d = sy_alloc(ctx, dsz);
        if (!d) st = SY_ENOMEM;
        for (slong i = 0; d && i < k; i++) d[i] = -R;
        /* v = x0 + (t + d) K, kept up to date as the odometer steps (one row added, or a row's
         * 2R subtracted when it wraps) */
        for (slong c = 0; c < nv; c++) fmpz_set(v + c, fmpz_mat_entry(x0, 0, c));
        fmpz_t ti;
        fmpz_init(ti);
        for (slong i = 0; i < k; i++) {
            fmpz_sub_si(ti, t + i, R);
            for (slong c = 0; c < nv; c++) fmpz_addmul(v + c, ti, fmpz_mat_entry(K, i, c));
        }
        fmpz_set_si(ti, 2 * R);
        bool stopped = false;
        for (size_t it = 0; d && it < max; it++) {
            bool inr = true;
            for (slong c = 0; c < nv && inr; c++)
                inr = (!L.hlo[c] || fmpz_cmp(v + c, L.vlo + c) >= 0) && (!L.hhi[c] || fmpz_cmp(v + c, L.vhi + c) <= 0);
            if (inr && fn(ud, v) < 0) {
                stopped = true;
                break;
            }
            slong i = 0; /* the odometer over the box */
            while (i < k && d[i] == R) {
                d[i] = -R;
                for (slong c = 0; c < nv; c++) fmpz_submul(v + c, ti, fmpz_mat_entry(K, i, c));
                i++;
            }
            if (i == k) break;
            d[i]++;
            for (slong c = 0; c < nv; c++) fmpz_add(v + c, v + c, fmpz_mat_entry(K, i, c));
        }
        fmpz_clear(ti);
        if (d && !stopped) search(&L, x0, K, p, max, fn, ud);
        if (d) sy_dealloc(ctx, d, dsz);
        _fmpz_vec_clear(p, nv);
        _fmpz_vec_clear(t, k ? k : 1);
        _fmpz_vec_clear(v, nv);
        fmpz_mat_clear(x0);
        fmpz_mat_clear(K);
    }
    for (size_t i = 0; i < LAT_VARS; i++) fmpz_clear(L.vlo + i), fmpz_clear(L.vhi + i);
    fmpz_mat_clear(L.eq);
    return st;
}
