/* Guard sets: witness points and half-lines, proving cheaply that a guard is
 * NOT implied by the others (used by minimization, gset_minimize.c). */
#include "guards/gset_private.h"

/* ---- witness points: proving cheaply that a guard is NOT implied.
 *
 * Every guard holds at the example point (the sizes the model was traced
 * with). Moving one source t alone to a value t* that violates the candidate
 * while every other fact guard still holds shows that the others do not
 * imply it; then the decision procedure, being sound, cannot prove the
 * implication either, so keeping the candidate without asking it gives the
 * same set. Per source the other guards are indexed once: a guard linear in
 * t (d = a*t + r, r free of t) allows, with the other sources at the example,
 * exactly t_ex (==), all but one value (!=), or a half-line (<=); any other
 * guard reading t is evaluated at the point. */

/* Order of the entries of one slot: kind, then (NE) whether the forbidden
 * value exists, (LE) lower bounds before upper ones, then the value, so that
 * others_hold finds the entries a trial value violates by binary search. */
static int lin_key_cmp(const lin_entry *a, lin_kind kind, int has_value, int upper, int64_t value)
{
    if (a->kind != kind) return a->kind < kind ? -1 : 1;
    if (a->has_value != has_value) return a->has_value < has_value ? -1 : 1;
    if (a->upper != upper) return a->upper < upper ? -1 : 1;
    if (a->value != value) return a->value < value ? -1 : 1;
    return 0;
}

static int lin_cmp(const void *x, const void *y)
{
    const lin_entry *a = x, *b = y;
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    int c = lin_key_cmp(a, b->kind, b->has_value, b->upper, b->value);
    if (c) return c;
    return a->guard < b->guard ? -1 : (a->guard > b->guard);
}

/* first entry of lin[lo, hi) whose key is >= (kind, has_value, upper, value) */
static size_t lin_lower(const lin_entry *lin, size_t lo, size_t hi, lin_kind kind, int has_value, int upper, int64_t value)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lin_key_cmp(&lin[mid], kind, has_value, upper, value) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* does sym occur in e (outside the top-level term list)? bounded walk */
static int occurs(const sy_expr *e, const sy_expr *sym, int *budget)
{
    if (e == sym) return 1;
    if (--*budget < 0) return -1;
    for (size_t i = 0; i < sy_expr_nargs(e); i++) {
        int r = occurs(sy_expr_arg(e, i), sym, budget);
        if (r) return r;
    }
    return 0;
}

static int64_t fdiv_i(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static int64_t cdiv_i(int64_t a, int64_t b) { return -fdiv_i(-a, b); }

/* The entry of a guard of kind k whose d reads a*t + R with the other sources at the example
 * (out->guard and out->slot set, kind LIN_NONE until known). */
static void classify_tail(sy_expr_kind k, int64_t a, int64_t R, lin_entry *out)
{
    if (R > ((int64_t)1 << 62) || R < -((int64_t)1 << 62)) return;
    if (k == SY_EXPR_EQ) {
        out->kind = LIN_EQ;
    } else if (k == SY_EXPR_NE) { /* a*t + R == 0 forbidden */
        out->kind = LIN_NE;
        if (R % a == 0) {
            out->has_value = 1;
            out->value = -R / a;
        }
    } else { /* a*t + R <= 0 */
        out->kind = LIN_LE;
        if (a > 0) {
            out->upper = 1;
            out->value = fdiv_i(-R, a);
        } else {
            out->upper = 0;
            out->value = cdiv_i(R, -a);
        }
    }
}

/* Classify guard g in source t: fills e (kind LIN_NONE when not linear or
 * not evaluable). R = value of d - a*t at the example (binding b). */
static void classify_lin(sy_ctx *ctx, const gguard *g, size_t gi, size_t slot, const sy_expr *t, sy_binding *b,
                         lin_entry *out)
{
    out->guard = gi;
    out->slot = slot;
    out->kind = LIN_NONE;
    out->has_value = 0;
    out->value = 0;
    out->upper = 0;
    const sy_expr *e = g->pub.expr;
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k != SY_EXPR_EQ && k != SY_EXPR_NE && k != SY_EXPR_LE) return;
    const sy_expr *d = sy_expr_arg(e, 0);
    int64_t a = 0;
    if (d == t) a = 1;
    else if (sy_expr_kind_of(d) == SY_EXPR_ADD) {
        int budget = 256;
        size_t nt = sy_expr_nargs(d);
        for (size_t i = 0; i < nt; i++) {
            const sy_expr *mono = sy_expr_arg(d, i);
            if (mono == t) {
                const fmpz *coef = sy_expr_add_coef_ref(d, i);
                if (!fmpz_fits_si(coef)) return;
                a = fmpz_get_si(coef);
            } else if (occurs(mono, t, &budget) != 0) {
                return; /* t also inside another term, or the walk ran out */
            }
        }
    }
    if (a == 0 || a == INT64_MIN || a > (1 << 30) || a < -(1 << 30)) return;
    /* R = d(example) - a * t_ex */
    fmpz_t v;
    fmpz_init(v);
    sy_status st = sy_eval_raw(ctx, d, b, v);
    if (st != SY_OK) {
        sy_ctx_reset_error(ctx);
        fmpz_clear(v);
        return;
    }
    uint32_t id = sy_expr_sym_id(t);
    if (id >= b->n || b->has[id] != 2) {
        fmpz_clear(v);
        return;
    }
    fmpz_submul_si(v, &b->vz[id], a); /* R = d(example) - a * t_ex */
    int64_t R = fmpz_fits_si(v) ? fmpz_get_si(v) : INT64_MAX;
    fmpz_clear(v);
    classify_tail(k, a, R, out);
}


void witness_clear(witness *w)
{
    if (w->ready) sy_binding_clear(w->ctx, &w->b);
    if (w->lin) sy_dealloc(w->ctx, w->lin, (w->nlin ? w->nlin : 1) * sizeof *w->lin);
    if (w->slot_at) sy_dealloc(w->ctx, w->slot_at, (w->gs->nsrc + 1) * sizeof *w->slot_at);
    size_t ns = w->gs->nsrc ? w->gs->nsrc : 1;
    if (w->cls) sy_dealloc(w->ctx, w->cls, ns * sizeof *w->cls);
    if (w->cls_next) sy_dealloc(w->ctx, w->cls_next, ns * sizeof *w->cls_next);
    if (w->cls_head) sy_dealloc(w->ctx, w->cls_head, ns * sizeof *w->cls_head);
    w->ready = false;
    w->lin = NULL;
    w->slot_at = NULL;
    w->cls = w->cls_next = w->cls_head = NULL;
}

/* e is `a - b + k == 0` for two sources a, b (coefficients 1 and -1) and an int64 k with
 * |k| <= 2^40: *first_pos is 1 when the first term's coefficient is +1, *k the constant (NULL
 * outputs are not written). The offsets stay small, so sums of n of them fit int64. */
static bool offset_equality(const sy_expr *e, int *first_pos, int64_t *k)
{
    if (sy_expr_kind_of(e) != SY_EXPR_EQ) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) != 2) return false;
    const fmpz *c0 = sy_expr_add_c0_ref(d), *a0 = sy_expr_add_coef_ref(d, 0), *a1 = sy_expr_add_coef_ref(d, 1);
    if (!fmpz_fits_si(c0) || fmpz_get_si(c0) > ((int64_t)1 << 40) || fmpz_get_si(c0) < -((int64_t)1 << 40)) return false;
    if (sy_expr_kind_of(sy_expr_arg(d, 0)) != SY_EXPR_SYM || sy_expr_kind_of(sy_expr_arg(d, 1)) != SY_EXPR_SYM ||
        !fmpz_is_pm1(a0) || !fmpz_is_pm1(a1) || fmpz_sgn(a0) == fmpz_sgn(a1))
        return false;
    if (first_pos) *first_pos = fmpz_sgn(a0) > 0;
    if (k) *k = fmpz_get_si(c0);
    return true;
}

/* e is `a - b == 0` for two sources a, b (coefficients 1 and -1, no constant) */
static bool pure_equality(const sy_expr *e)
{
    if (sy_expr_kind_of(e) != SY_EXPR_EQ) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) != 2 || !fmpz_is_zero(sy_expr_add_c0_ref(d)))
        return false;
    const fmpz *a0 = sy_expr_add_coef_ref(d, 0), *a1 = sy_expr_add_coef_ref(d, 1);
    return sy_expr_kind_of(sy_expr_arg(d, 0)) == SY_EXPR_SYM && sy_expr_kind_of(sy_expr_arg(d, 1)) == SY_EXPR_SYM &&
           fmpz_is_pm1(a0) && fmpz_is_pm1(a1) && fmpz_sgn(a0) != fmpz_sgn(a1);
}

/* The classes of sources that the fact guards make equal two by two; no
 * classes (w->cls NULL) when there is no such guard or no memory. */
static void witness_classes(witness *w)
{
    sy_gset *gs = w->gs;
    size_t ns = gs->nsrc ? gs->nsrc : 1;
    bool any = false;
    for (size_t i = 0; i < gs->n && !any; i++)
        any = is_fact_guard(&gs->g[i]) && gs->g[i].pub.nslots == 2 && pure_equality(gs->g[i].pub.expr);
    if (!any) return;
    w->cls = sy_alloc(w->ctx, ns * sizeof *w->cls);
    w->cls_next = sy_alloc(w->ctx, ns * sizeof *w->cls_next);
    w->cls_head = sy_alloc(w->ctx, ns * sizeof *w->cls_head);
    if (!w->cls || !w->cls_next || !w->cls_head) {
        sy_ctx_reset_error(w->ctx);
        if (w->cls) sy_dealloc(w->ctx, w->cls, ns * sizeof *w->cls);
        if (w->cls_next) sy_dealloc(w->ctx, w->cls_next, ns * sizeof *w->cls_next);
        if (w->cls_head) sy_dealloc(w->ctx, w->cls_head, ns * sizeof *w->cls_head);
        w->cls = w->cls_next = w->cls_head = NULL;
        return;
    }
    for (size_t k = 0; k < gs->nsrc; k++) w->cls[k] = k;
    for (size_t i = 0; i < gs->n; i++) {
        const gguard *g = &gs->g[i];
        if (!is_fact_guard(g) || g->pub.nslots != 2 || !pure_equality(g->pub.expr)) continue;
        size_t ra = uf_find(w->cls, g->pub.slots[0]), rb = uf_find(w->cls, g->pub.slots[1]);
        if (ra != rb) w->cls[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
    for (size_t k = 0; k < gs->nsrc; k++) {
        w->cls[k] = uf_find(w->cls, k);
        w->cls_head[k] = SIZE_MAX;
    }
    for (size_t k = gs->nsrc; k-- > 0;) {
        w->cls_next[k] = w->cls_head[w->cls[k]];
        w->cls_head[w->cls[k]] = k;
    }
}

/* classify_lin of guard gi in each of its slots at once, when it is a relation over a sum of
 * sources (one term per slot read): d is evaluated once, not once per slot, and no term is
 * walked for the others (per slot that cost O(terms): O(terms^2) per guard, K^3 for the K width
 * guards of a chain of K Concats). Same entries as classify_lin gives; false (nothing written)
 * for any other guard. */
static bool classify_sum(witness *w, size_t gi, const size_t *sid, uint32_t nsid)
{
    const gguard *g = &w->gs->g[gi];
    const sy_expr *e = g->pub.expr;
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k != SY_EXPR_EQ && k != SY_EXPR_NE && k != SY_EXPR_LE) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    size_t nt = sy_expr_nargs(d);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || nt != g->pub.nslots || nt < 2) return false;
    for (size_t t = 0; t < nt; t++) {
        const sy_expr *m = sy_expr_arg(d, t);
        if (sy_expr_kind_of(m) != SY_EXPR_SYM || sy_expr_sym_id(m) >= nsid || sid[sy_expr_sym_id(m)] == SIZE_MAX) return false;
    }
    fmpz_t v;
    fmpz_init(v);
    bool ok = sy_eval_raw(w->ctx, d, &w->b, v) == SY_OK;
    if (!ok) sy_ctx_reset_error(w->ctx);
    for (size_t t = 0; t < nt; t++) {
        const sy_expr *m = sy_expr_arg(d, t);
        lin_entry *out = &w->lin[w->nlin++];
        *out = (lin_entry){gi, sid[sy_expr_sym_id(m)], LIN_NONE, 0, 0, 0};
        const fmpz *coef = sy_expr_add_coef_ref(d, t);
        uint32_t id = sy_expr_sym_id(m);
        if (!ok || !fmpz_fits_si(coef) || id >= w->b.n || w->b.has[id] != 2) continue;
        int64_t a = fmpz_get_si(coef);
        if (a == 0 || a > (1 << 30) || a < -(1 << 30)) continue;
        fmpz_t r;
        fmpz_init_set(r, v);
        fmpz_submul_si(r, &w->b.vz[id], a); /* R = d(example) - a * t_ex */
        int64_t R = fmpz_fits_si(r) ? fmpz_get_si(r) : INT64_MAX;
        fmpz_clear(r);
        classify_tail(k, a, R, out);
    }
    fmpz_clear(v);
    return true;
}

/* Build the index; false (no witnesses, no error) when some fact guard reads a
 * source without example, or does not hold at the example. */
bool witness_init(witness *w, sy_gset *gs)
{
    sy_ctx *ctx = gs->ctx;
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->gs = gs;
    for (size_t i = 0; i < gs->nsrc; i++)
        if (!gs->has_example[i]) return false;
    if (!sy_binding_init(ctx, &w->b)) {
        sy_ctx_reset_error(ctx);
        return false;
    }
    w->ready = true;
    fmpz_t v;
    fmpz_init(v);
    for (size_t i = 0; i < gs->nsrc; i++) {
        fmpz_set_si(v, gs->example[i]);
        sy_binding_set(&w->b, sy_expr_sym_id(gs->vars[i]), v);
    }
    size_t n = 0;
    bool ok = true;
    for (size_t i = 0; i < gs->n && ok; i++) {
        if (!is_fact_guard(&gs->g[i])) continue;
        ok = sy_eval_raw(ctx, gs->g[i].pub.expr, &w->b, v) == SY_OK && fmpz_is_one(v);
        n += gs->g[i].pub.nslots;
    }
    fmpz_clear(v);
    if (!ok) {
        sy_ctx_reset_error(ctx);
        witness_clear(w);
        return false;
    }
    w->lin = sy_alloc(ctx, (n ? n : 1) * sizeof *w->lin);
    w->slot_at = sy_alloc(ctx, (gs->nsrc + 1) * sizeof *w->slot_at);
    if (!w->lin || !w->slot_at) {
        sy_ctx_reset_error(ctx);
        w->nlin = n;
        witness_clear(w);
        return false;
    }
    w->nlin = 0;
    /* per symbol id: its slot (for classify_sum), or none when out of memory */
    uint32_t nsid = 0;
    for (size_t s = 0; s < gs->nsrc; s++)
        if (sy_expr_sym_id(gs->vars[s]) >= nsid) nsid = sy_expr_sym_id(gs->vars[s]) + 1;
    size_t *sid = sy_alloc(ctx, (nsid ? nsid : 1) * sizeof *sid);
    if (!sid) sy_ctx_reset_error(ctx);
    for (uint32_t id = 0; sid && id < nsid; id++) sid[id] = SIZE_MAX;
    for (size_t s = 0; sid && s < gs->nsrc; s++) sid[sy_expr_sym_id(gs->vars[s])] = s;
    for (size_t i = 0; i < gs->n; i++) {
        if (!is_fact_guard(&gs->g[i])) continue;
        if (sid && classify_sum(w, i, sid, nsid)) continue;
        for (size_t k = 0; k < gs->g[i].pub.nslots; k++) {
            size_t sl = gs->g[i].pub.slots[k];
            classify_lin(ctx, &gs->g[i], i, sl, gs->vars[sl], &w->b, &w->lin[w->nlin++]);
        }
    }
    if (sid) sy_dealloc(ctx, sid, (nsid ? nsid : 1) * sizeof *sid);
    qsort(w->lin, w->nlin, sizeof *w->lin, lin_cmp);
    size_t j = 0;
    for (size_t sl = 0; sl <= gs->nsrc; sl++) {
        while (j < w->nlin && w->lin[j].slot < sl) j++;
        w->slot_at[sl] = j;
    }
    witness_classes(w);
    return true;
}

/* Do all fact guards reading slot sl, except guard `skip`, hold with t = tv
 * (other sources at the example)? The entries a value can violate are found
 * by binary search (lin_cmp's order): any live (==) unless tv is the example,
 * the (!=) entries forbidding exactly tv, the upper bounds below tv and the
 * lower bounds above it; so a slot read by many guards costs a logarithm per
 * trial, not a scan (dead entries met on the way are skipped). */
static bool others_hold(witness *w, size_t sl, int64_t tv, size_t skip)
{
    sy_gset *gs = w->gs;
    const lin_entry *lin = w->lin;
    int64_t tex = gs->example[sl];
    size_t lo = w->slot_at[sl], hi = w->slot_at[sl + 1];
#define LIVE(j) (lin[j].guard != skip && !gs->g[lin[j].guard].dead)
    size_t eq = lin_lower(lin, lo, hi, LIN_EQ, 0, 0, INT64_MIN), ne = lin_lower(lin, eq, hi, LIN_NE, 0, 0, INT64_MIN),
           le = lin_lower(lin, ne, hi, LIN_LE, 0, 0, INT64_MIN), up = lin_lower(lin, le, hi, LIN_LE, 0, 1, INT64_MIN);
    if (tv != tex)
        for (size_t j = eq; j < ne; j++)
            if (LIVE(j)) return false;
    for (size_t j = lin_lower(lin, ne, le, LIN_NE, 1, 0, tv); j < le && lin[j].value == tv; j++)
        if (LIVE(j)) return false;
    for (size_t j = up; j > le && lin[j - 1].value > tv; j--) /* lower bounds t >= value */
        if (LIVE(j - 1)) return false;
    for (size_t j = up; j < hi && lin[j].value < tv; j++) /* upper bounds t <= value */
        if (LIVE(j)) return false;
    size_t nopaque = 0;
    for (size_t j = lo; j < eq && nopaque <= 16; j++) nopaque += LIVE(j);
#undef LIVE
    if (nopaque == 0) return true;
    if (nopaque > 16) return false;
    /* evaluate the others at the point */
    uint32_t id = sy_expr_sym_id(gs->vars[sl]);
    fmpz_t v;
    fmpz_init_set_si(v, tv);
    sy_binding_set(&w->b, id, v);
    bool ok = true;
    for (size_t j = lo; j < eq && ok; j++) {
        const lin_entry *L = &w->lin[j];
        if (L->guard == skip || gs->g[L->guard].dead) continue;
        ok = sy_eval_raw(w->ctx, gs->g[L->guard].pub.expr, &w->b, v) == SY_OK && fmpz_is_one(v);
    }
    if (!ok) sy_ctx_reset_error(w->ctx);
    fmpz_set_si(v, tex);
    sy_binding_set(&w->b, id, v);
    fmpz_clear(v);
    return ok;
}

enum { CLASS_EVALS = 64, CLASS_DEAD = 1 << 16 };

/* The witness point with every source of sl's class at tv (the others at the
 * example; the class's sources are equal at the example, since its
 * equalities hold there), checked exactly: the candidate ci evaluates to
 * false and every other live fact guard reading the class to true, each
 * without an error (a division by zero is no witness). At most CLASS_EVALS
 * guards are evaluated (of a class of at most as many sources, scanning at
 * most 4 times as many live index entries), else no witness. Moving the class together keeps
 * its equalities, which a move of one source alone breaks: `2 <= h` beside
 * `h == w` has the witness h = w = 1. */
static bool class_witness(witness *w, size_t sl, int64_t tv, size_t ci)
{
    sy_gset *gs = w->gs;
    if (!w->cls) return false;
    size_t root = w->cls[sl];
    size_t members = 0;
    for (size_t m = w->cls_head[root]; m != SIZE_MAX && members <= CLASS_EVALS; m = w->cls_next[m]) members++;
    if (members < 2 || members > CLASS_EVALS) return false; /* one: others_hold's case; many: not tried */
    fmpz_t v;
    fmpz_init_set_si(v, tv);
    for (size_t m = w->cls_head[root]; m != SIZE_MAX; m = w->cls_next[m]) sy_binding_set(&w->b, sy_expr_sym_id(gs->vars[m]), v);
    bool ok = sy_eval_raw(w->ctx, gs->g[ci].pub.expr, &w->b, v) == SY_OK && fmpz_is_zero(v);
    /* bounded work per trial: the live entries scanned, and the dead ones apart (a flag each): a
     * source of a chain of K Concats is read by up to K width guards, dead after the widest
     * implied them, and counting them among the live made half the range guards go to the
     * decision with the whole component as facts (K^2) */
    size_t evals = 0, scanned = 0, dead = 0;
    for (size_t m = w->cls_head[root]; m != SIZE_MAX && ok; m = w->cls_next[m])
        for (size_t j = w->slot_at[m]; j < w->slot_at[m + 1] && ok; j++) {
            const gguard *g = &gs->g[w->lin[j].guard];
            if (g->dead ? ++dead > CLASS_DEAD : ++scanned > 4 * CLASS_EVALS) {
                ok = false;
                break;
            }
            if (w->lin[j].guard == ci || g->dead) continue;
            size_t first = SIZE_MAX; /* the guard is evaluated once: at its first slot in the class */
            for (size_t k = 0; k < g->pub.nslots && first == SIZE_MAX; k++)
                if (w->cls[g->pub.slots[k]] == root) first = g->pub.slots[k];
            if (first != m) continue;
            ok = ++evals <= CLASS_EVALS && sy_eval_raw(w->ctx, g->pub.expr, &w->b, v) == SY_OK && fmpz_is_one(v);
        }
    if (!ok) sy_ctx_reset_error(w->ctx);
    for (size_t m = w->cls_head[root]; m != SIZE_MAX; m = w->cls_next[m]) {
        fmpz_set_si(v, gs->example[m]);
        sy_binding_set(&w->b, sy_expr_sym_id(gs->vars[m]), v);
    }
    fmpz_clear(v);
    return ok;
}

/* Is there a witness that candidate ci is not implied by the other fact guards? */
/* Guard ci evaluates to false, without an error, with source sl at tv and the others at the
 * example. An Or of equalities tying n sources to one (the relaxed policy's broadcasts) had no
 * witness, so each went to the decision procedure with the other n as facts: O(n^2) (issue 38). */
static bool fails_at(witness *w, size_t ci, size_t sl, int64_t tv)
{
    sy_gset *gs = w->gs;
    uint32_t id = sy_expr_sym_id(gs->vars[sl]);
    fmpz_t v;
    fmpz_init_set_si(v, tv);
    sy_binding_set(&w->b, id, v);
    bool f = sy_eval_raw(w->ctx, gs->g[ci].pub.expr, &w->b, v) == SY_OK && fmpz_is_zero(v);
    if (!f) sy_ctx_reset_error(w->ctx);
    fmpz_set_si(v, gs->example[sl]);
    sy_binding_set(&w->b, id, v);
    fmpz_clear(v);
    return f;
}

bool has_witness(witness *w, size_t ci)
{
    if (!w->ready) return false;
    sy_gset *gs = w->gs;
    const gguard *c = &gs->g[ci];
    for (size_t k = 0; k < c->pub.nslots && k < 4; k++) {
        size_t sl = c->pub.slots[k];
        lin_entry self;
        classify_lin(w->ctx, c, ci, sl, gs->vars[sl], &w->b, &self);
        int64_t tex = gs->example[sl], cands[2];
        int nc = 0;
        switch (self.kind) {
        case LIN_EQ:
            if (tex < INT64_MAX) cands[nc++] = tex + 1;
            if (tex > INT64_MIN) cands[nc++] = tex - 1;
            break;
        case LIN_NE:
            if (self.has_value) cands[nc++] = self.value;
            break;
        case LIN_LE:
            if (self.upper && self.value < INT64_MAX) cands[nc++] = self.value + 1;
            if (!self.upper && self.value > INT64_MIN) cands[nc++] = self.value - 1;
            break;
        default: /* not linear in the source (an Or, a Mod, ...): a step each way, where it fails */
            if (tex < INT64_MAX && fails_at(w, ci, sl, tex + 1)) cands[nc++] = tex + 1;
            if (tex > INT64_MIN && fails_at(w, ci, sl, tex - 1)) cands[nc++] = tex - 1;
            break;
        }
        for (int q = 0; q < nc; q++)
            if (others_hold(w, sl, cands[q], ci) || class_witness(w, sl, cands[q], ci)) return true;
    }
    return false;
}

/* ---- cheap implication: single-source monotone guards
 *
 * A fact guard `d <= 0` whose d reads one source v and is monotone in v
 * (sums with constant coefficients, FloorDiv by a positive constant, Min,
 * Max of such; CeilDiv by a constant is canonically -FloorDiv(-a, b)) holds
 * exactly on a half-line of the integers: v >= thr when d does not increase
 * with v (up), v <= thr when it does not decrease. Such a candidate is
 * implied by any other live guard on the same source and side with a
 * threshold at least as strong; that is an exact implication, so dropping it
 * without the decision procedure is sound. It is used only when every fact
 * guard holds at the example (the witness is ready): then the component is
 * consistent, as the decision procedure's own path requires. The threshold
 * is found by bisection over [-2^40, 2^40] with exact evaluation; a guard
 * whose half-line has no finite end inside that range is not used (it goes
 * to the decision procedure). Any range is exact, since d is monotone on all
 * integers; 2^40 keeps d's values, for coefficients below 2^21, within
 * FLINT's small integers (|x| < 2^62): the first bignum of a process makes
 * FLINT allocate a ~167 KB block, which was most of a small model's heap. */

/* +1 non-decreasing in v, -1 non-increasing, 0 constant, 2 unknown */
static int mono_in(const sy_expr *e, const sy_expr *v, int depth)
{
    if (depth > 64) return 2;
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_INT: return 0;
    case SY_EXPR_SYM: return e == v ? 1 : 2;
    case SY_EXPR_ADD: {
        int dir = 0;
        size_t nt = sy_expr_nargs(e);
        for (size_t i = 0; i < nt; i++) {
            int m = mono_in(sy_expr_arg(e, i), v, depth + 1);
            if (m == 2) return 2;
            if (fmpz_sgn(sy_expr_add_coef_ref(e, i)) < 0) m = -m;
            if (m && dir && m != dir) return 2;
            if (m) dir = m;
        }
        return dir;
    }
    case SY_EXPR_FLOORDIV: {
        const sy_expr *b = sy_expr_arg(e, 1);
        if (!sy_expr_is_int(b) || fmpz_sgn(sy_expr_int_ref(b)) <= 0) return 2;
        return mono_in(sy_expr_arg(e, 0), v, depth + 1);
    }
    case SY_EXPR_MIN:
    case SY_EXPR_MAX: {
        int dir = 0;
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            int m = mono_in(sy_expr_arg(e, i), v, depth + 1);
            if (m == 2 || (m && dir && m != dir)) return 2;
            if (m) dir = m;
        }
        return dir;
    }
    default: return 2;
    }
}

/* d(x) <= 0 at v = x (other sources at the example); -1 on an error */
static int holds_at(witness *w, const sy_expr *d, uint32_t id, int64_t x, fmpz_t tmp)
{
    fmpz_set_si(tmp, x);
    sy_binding_set(&w->b, id, tmp);
    if (sy_eval_raw(w->ctx, d, &w->b, tmp) != SY_OK) {
        sy_ctx_reset_error(w->ctx);
        return -1;
    }
    return fmpz_sgn(tmp) <= 0;
}

/* D(y) = d(sg * y) as an int64 (sg = 1 or -1); false on an error or a value past int64 */
static bool dval_at(witness *w, const sy_expr *d, uint32_t id, int sg, int64_t y, fmpz_t tmp, int64_t *out)
{
    fmpz_set_si(tmp, sg * y);
    sy_binding_set(&w->b, id, tmp);
    if (sy_eval_raw(w->ctx, d, &w->b, tmp) != SY_OK) {
        sy_ctx_reset_error(w->ctx);
        return false;
    }
    if (!fmpz_fits_si(tmp)) return false;
    *out = fmpz_get_si(tmp);
    return true;
}

/* The end of a half-line from the values of d, not only their signs. With
 * y = sg*x (sg = 1 up, -1 down), D(y) = d(sg*y) is non-increasing and the
 * guard holds exactly for y >= T; T is wanted in [-R, R], given that it holds
 * at ey. A guard over floor divisions by constants is nearly linear, so the
 * line through D at ey and at a second point (half-way to 0, at least 64
 * away) predicts T within a few units; galloping from the prediction
 * brackets it and bisection ends it: ~6 evaluations instead of
 * ~2 log2|T - ey|. T is defined by the monotone D alone, so it is the end the
 * search from the example finds. Returns 1 (*T found), 0 (it holds at -R: no
 * finite end in range), -1 (an error or a value past int64: the caller
 * searches by signs). */
static int halfline_secant(witness *w, const sy_expr *d, uint32_t id, int sg, int64_t ey, int64_t R, fmpz_t tmp, int64_t *T)
{
    int64_t D0, D1, Dy;
    if (!dval_at(w, d, id, sg, ey, tmp, &D0) || D0 > 0) return -1;
    int64_t in = ey, fail = 0; /* in: holds; fail: fails, once hasfail */
    bool hasfail = false, held;
    int64_t step = (ey < 0 ? -(ey / 2) : ey / 2);
    if (step < 64) step = 64;
    int64_t y1 = ey - step < -R ? -R : ey - step;
    if (!dval_at(w, d, id, sg, y1, tmp, &D1)) return -1;
    if (D1 <= 0) {
        if (y1 == -R) return 0;
        in = y1;
    } else {
        fail = y1;
        hasfail = true;
    }
    /* the prediction, inside what is known: (fail, in] */
    int64_t y = in - 1;
    if (D1 != D0) {
        long double est = (long double)y1 + (long double)D1 * (long double)(ey - y1) / (long double)(D1 - D0);
        long double lo = hasfail ? (long double)fail + 1 : (long double)-R;
        if (est < lo) est = lo;
        if (est > (long double)in) est = (long double)in;
        y = (int64_t)est;
    }
    if (y < -R) y = -R;
    if (!dval_at(w, d, id, sg, y, tmp, &Dy)) return -1;
    if ((held = Dy <= 0)) {
        if (y == -R) return 0;
        in = y;
    } else {
        fail = y;
        hasfail = true;
    }
    /* gallop from the prediction toward the other side of the end */
    for (int64_t st = 1;; st *= 2) {
        int64_t x;
        if (held) {
            x = in - st < -R ? -R : in - st;
            if (hasfail && x <= fail) break;
        } else {
            x = fail + st;
            if (x >= in) break;
        }
        if (!dval_at(w, d, id, sg, x, tmp, &Dy)) return -1;
        if (Dy <= 0) {
            if (x == -R) return 0;
            in = x;
            if (!held) break;
        } else {
            fail = x;
            hasfail = true;
            if (held) break;
        }
    }
    while (in - fail > 1) {
        int64_t mid = fail + (in - fail) / 2;
        if (!dval_at(w, d, id, sg, mid, tmp, &Dy)) return -1;
        if (Dy <= 0) in = mid;
        else fail = mid;
    }
    *T = in;
    return 1;
}

/* The half-line of fact guard g, or false when it has none (see above). */
static bool guard_halfline(witness *w, const gguard *g, halfline *out)
{
    const sy_expr *e = g->pub.expr;
    if (!w->ready || sy_expr_kind_of(e) != SY_EXPR_LE || g->pub.nslots != 1) return false;
    size_t sl = g->pub.slots[0];
    const sy_expr *v = w->gs->vars[sl], *d = sy_expr_arg(e, 0);
    int m = mono_in(d, v, 0);
    if (m != 1 && m != -1) return false;
    int up = m < 0; /* d non-increasing: d <= 0 from some v on */
    uint32_t id = sy_expr_sym_id(v);
    const int64_t R = (int64_t)1 << 40;
    fmpz_t tmp;
    fmpz_init(tmp);
    /* up: the least x with d(x) <= 0; down: the greatest. The guard holds at
     * the example (the witness is ready only then), so the end is bracketed
     * by galloping away from the example (steps 1, 2, 4, ...) until it fails
     * or reaches -R (up) / R (down), then found by bisection inside the
     * bracket: ~2 log2|thr - example| evaluations instead of 41 for the
     * whole range. d is monotone, so the end found is the same one bisection
     * over [-R, R] finds, and a guard that holds at -R (up) / R (down) has
     * no finite end in range either way; only the points evaluated differ. */
    int64_t lo = -R, hi = R, ex = w->gs->example[sl], T = 0;
    bool ok;
    int sec = ex > -R && ex < R ? halfline_secant(w, d, id, up ? 1 : -1, up ? ex : -ex, R, tmp, &T) : -1;
    if (sec >= 0) {
        ok = sec == 1;
        if (up) lo = T - 1, hi = T; /* the bracket the search below ends with */
        else lo = -T, hi = -T + 1;
    } else if (ex > -R && ex < R) {
        int64_t step = 1, in = ex, fail = ex; /* in: holds; fail: fails (once found) */
        int found = 0;
        ok = true;
        while (ok && !found) {
            int64_t x = up ? (in - step < -R ? -R : in - step) : (in + step > R ? R : in + step);
            int h = holds_at(w, d, id, x, tmp);
            if (h < 0) ok = false;
            else if (!h) fail = x, found = 1;
            else if (x == (up ? -R : R)) ok = false; /* holds at the range end: no finite end */
            else in = x, step *= 2;
        }
        if (up) lo = fail, hi = in;
        else lo = in, hi = fail;
    } else {
        int a = holds_at(w, d, id, lo, tmp), b = holds_at(w, d, id, hi, tmp);
        ok = a >= 0 && b >= 0 && (up ? (!a && b) : (a && !b));
    }
    while (ok && (uint64_t)hi - (uint64_t)lo > 1) { /* up: fails at lo, holds at hi; down: holds at lo, fails at hi */
        int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
        int h = holds_at(w, d, id, mid, tmp);
        if (h < 0) ok = false;
        else if (h == up) hi = mid;
        else lo = mid;
    }
    fmpz_set_si(tmp, w->gs->example[sl]);
    sy_binding_set(&w->b, id, tmp);
    fmpz_clear(tmp);
    if (!ok) return false;
    out->slot = sl;
    out->up = up;
    out->thr = up ? hi : lo;
    return true;
}


/* strongest first within a (slot, side) group; ties by guard index */
static int hl_cmp(const hlindex *x, size_t i, size_t j)
{
    const halfline *a = &x->hl[i], *b = &x->hl[j];
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    if (a->up != b->up) return a->up < b->up ? -1 : 1;
    if (a->thr != b->thr) return (a->up ? a->thr > b->thr : a->thr < b->thr) ? -1 : 1;
    return i < j ? -1 : (i > j);
}

/* Sort x->ord[0..nord) by hl_cmp: a bottom-up merge sort through tmp (nord
 * entries). The comparator takes the index as an argument: a file-scope
 * pointer read by a qsort comparator was shared by every thread minimizing
 * with its own context (issue 38). */
static void hl_sort(const hlindex *x, size_t *tmp)
{
    size_t n = x->nord, *a = x->ord, *b = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) b[k++] = hl_cmp(x, a[j], a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        size_t *t = a;
        a = b;
        b = t;
    }
    if (a != x->ord) memcpy(x->ord, a, n * sizeof *a);
}

void hl_clear(sy_ctx *ctx, hlindex *x)
{
    size_t n = x->n ? x->n : 1;
    if (x->hl) sy_dealloc(ctx, x->hl, n * sizeof *x->hl);
    if (x->has) sy_dealloc(ctx, x->has, n * sizeof *x->has);
    if (x->ord) sy_dealloc(ctx, x->ord, n * sizeof *x->ord);
    if (x->grp) sy_dealloc(ctx, x->grp, n * sizeof *x->grp);
    if (x->cur) sy_dealloc(ctx, x->cur, n * sizeof *x->cur);
    if (x->end) sy_dealloc(ctx, x->end, n * sizeof *x->end);
    memset(x, 0, sizeof *x);
}

/* the groups of x->ord (sorted): per guard its group's first position, per group its cursor and end */
static void hl_group(hlindex *x)
{
    for (size_t a = 0; a < x->nord;) {
        size_t b = a + 1;
        const halfline *h = &x->hl[x->ord[a]];
        while (b < x->nord && x->hl[x->ord[b]].slot == h->slot && x->hl[x->ord[b]].up == h->up) b++;
        for (size_t q = a; q < b; q++) x->grp[x->ord[q]] = a;
        x->cur[a] = a;
        x->end[a] = b;
        a = b;
    }
}

/* x's arrays for n guards, x emptied first; false (x empty, no error) when out of memory */
static bool hl_alloc(sy_ctx *ctx, hlindex *x, size_t n0)
{
    memset(x, 0, sizeof *x);
    x->n = n0;
    size_t n = n0 ? n0 : 1;
    x->hl = sy_alloc(ctx, n * sizeof *x->hl);
    x->has = sy_alloc(ctx, n * sizeof *x->has);
    x->ord = sy_alloc(ctx, n * sizeof *x->ord);
    x->grp = sy_alloc(ctx, n * sizeof *x->grp);
    x->cur = sy_alloc(ctx, n * sizeof *x->cur);
    x->end = sy_alloc(ctx, n * sizeof *x->end);
    if (x->hl && x->has && x->ord && x->grp && x->cur && x->end) return true;
    sy_ctx_reset_error(ctx);
    hl_clear(ctx, x);
    return false;
}

/* false (no index, no error) when out of memory */
bool hl_init(hlindex *x, witness *w)
{
    sy_gset *gs = w->gs;
    sy_ctx *ctx = gs->ctx;
    if (!hl_alloc(ctx, x, gs->n)) return false;
    for (size_t i = 0; i < gs->n; i++) {
        x->has[i] = is_fact_guard(&gs->g[i]) && guard_halfline(w, &gs->g[i], &x->hl[i]);
        if (x->has[i]) x->ord[x->nord++] = i;
    }
    if (x->nord > 1) {
        size_t *tmp = sy_alloc(ctx, x->nord * sizeof *tmp);
        if (!tmp) {
            sy_ctx_reset_error(ctx);
            hl_clear(ctx, x);
            return false;
        }
        hl_sort(x, tmp);
        sy_dealloc(ctx, tmp, x->nord * sizeof *tmp);
    }
    hl_group(x);
    return true;
}

/* The root of slot x in a union-find with offsets (value(x) = value(root) + *off), path compressed. */
static size_t uf_find_off(size_t *parent, int64_t *off, size_t x, int64_t *o)
{
    size_t r = x;
    int64_t sum = 0;
    while (parent[r] != r) {
        sum += off[r];
        r = parent[r];
    }
    /* compress: every slot on the path points at r with its whole offset */
    int64_t rest = sum;
    while (parent[x] != r && parent[x] != x) {
        size_t nx = parent[x];
        int64_t ox = off[x];
        parent[x] = r;
        off[x] = rest;
        rest -= ox;
        x = nx;
    }
    *o = sum;
    return r;
}

/* Group the half-lines of x again, by the class of their source under the live fact guards
 * `a - b + k == 0` (offset equalities, offset_equality; k = 0 for duck sizing's), into c: c's
 * half-lines are x's with the class's root as the slot and the threshold moved by the source's
 * offset from the root (a = root + o: a >= t is root >= t - o), so hl_implied(c, ...) finds the
 * strongest live half-line of any source of the class on the candidate's side. Sound while those
 * equalities stay live: with them, a == b + d exactly, and b >= t2 implies a >= t1 for
 * t2 + d >= t1. A set tying n sources to one with an equality each, each source with its bound,
 * had every bound decided with the n equalities as facts (O(n^2) fact adds); by the classes each
 * is one comparison. Offsets: a chain x_{i+1} == x_i + 1 under 0/1 specialization (each range
 * guard 2 <= x_i implied by 3 <= x_0) took 2.9 s to minimize at 250 inputs, 108 s at 1,000
 * (each decision adding the whole chain as facts). Call again after such an equality dies (the
 * classes may split). False (no index, no error) when out of memory, when no live offset
 * equality exists, or when two of them disagree (no class is made then). */
bool hl_classes(hlindex *c, const hlindex *x, const sy_gset *gs)
{
    sy_ctx *ctx = gs->ctx;
    hl_clear(ctx, c);
    if (!x->hl || x->nord < 2) return false;
    bool any = false;
    for (size_t i = 0; i < gs->n && !any; i++)
        any = !gs->g[i].dead && is_fact_guard(&gs->g[i]) && gs->g[i].pub.nslots == 2 &&
              offset_equality(gs->g[i].pub.expr, NULL, NULL);
    /* offsets are at most 2^40 each, so a class's (a sum along its tree) stays within 2^60 */
    if (!any || gs->nsrc > ((size_t)1 << 20)) return false;
    size_t ns = gs->nsrc ? gs->nsrc : 1, n = x->n ? x->n : 1;
    size_t *root = sy_alloc(ctx, ns * sizeof *root), *tmp = sy_alloc(ctx, n * sizeof *tmp);
    int64_t *off = sy_alloc(ctx, ns * sizeof *off);
    bool ok = root && tmp && off;
    if (!ok) sy_ctx_reset_error(ctx);
    ok = ok && hl_alloc(ctx, c, x->n);
    for (size_t k = 0; ok && k < gs->nsrc; k++) {
        root[k] = k;
        off[k] = 0;
    }
    for (size_t i = 0; ok && i < gs->n; i++) {
        const gguard *g = &gs->g[i];
        int first_pos;
        int64_t k;
        if (g->dead || !is_fact_guard(g) || g->pub.nslots != 2 || !offset_equality(g->pub.expr, &first_pos, &k)) continue;
        /* c0 + A - B == 0 (first_pos) or c0 - A + B == 0: A = B + d */
        const sy_expr *d = sy_expr_arg(g->pub.expr, 0);
        size_t sa = g->pub.slots[0], sb = g->pub.slots[1];
        if (gs->vars[sa] != sy_expr_arg(d, 0)) sa = g->pub.slots[1], sb = g->pub.slots[0];
        int64_t delta = first_pos ? -k : k, oa, ob;
        size_t ra = uf_find_off(root, off, sa, &oa), rb = uf_find_off(root, off, sb, &ob);
        if (ra == rb) ok = oa == ob + delta; /* disagreeing equalities: no classes */
        else if (ra > rb) root[ra] = rb, off[ra] = ob + delta - oa;
        else root[rb] = ra, off[rb] = oa - ob - delta;
    }
    if (!ok) {
        if (root) sy_dealloc(ctx, root, ns * sizeof *root);
        if (off) sy_dealloc(ctx, off, ns * sizeof *off);
        if (tmp) sy_dealloc(ctx, tmp, n * sizeof *tmp);
        hl_clear(ctx, c);
        return false;
    }
    memcpy(c->hl, x->hl, x->n * sizeof *c->hl);
    memcpy(c->has, x->has, x->n * sizeof *c->has);
    c->nord = 0;
    for (size_t i = 0; i < x->n; i++)
        if (c->has[i] && !gs->g[i].dead) {
            int64_t o;
            c->hl[i].slot = uf_find_off(root, off, c->hl[i].slot, &o);
            c->hl[i].thr -= o; /* |thr| <= 2^40, |o| <= 2^60 */
            c->ord[c->nord++] = i;
        } else
            c->has[i] = false;
    if (c->nord > 1) hl_sort(c, tmp);
    hl_group(c);
    sy_dealloc(ctx, root, ns * sizeof *root);
    sy_dealloc(ctx, off, ns * sizeof *off);
    sy_dealloc(ctx, tmp, n * sizeof *tmp);
    return true;
}

/* an offset equality between two sources (its death may split hl_classes' classes) */
bool hl_is_class_edge(const gguard *g)
{
    return is_fact_guard(g) && g->pub.nslots == 2 && offset_equality(g->pub.expr, NULL, NULL);
}

/* Is candidate ci implied by another live guard's half-line? */
bool hl_implied(hlindex *x, const sy_gset *gs, size_t ci)
{
    if (!x->hl || !x->has[ci]) return false;
    size_t g = x->grp[ci];
    while (x->cur[g] < x->end[g] && gs->g[x->ord[x->cur[g]]].dead) x->cur[g]++;
    for (size_t q = x->cur[g]; q < x->end[g]; q++) {
        size_t j = x->ord[q];
        if (j == ci || gs->g[j].dead) continue;
        const halfline *c = &x->hl[ci], *o = &x->hl[j]; /* o: the strongest live other */
        return c->up ? o->thr >= c->thr : o->thr <= c->thr;
    }
    return false;
}
