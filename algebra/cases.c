/* Runner for .cases files (see include/symshape/cases.h).
 *
 * Length (1,230 lines): one runner, its four kinds of case (simplify, decide, bound, eval) and
 * the samplers they share to refute a wrong expectation (the ranges' vertices, the constants'
 * candidates, the grid, random points, the decision procedure's witness); they share the
 * runner's state and its reporting, and apart they would need it in a private header. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/buf.h"
#include "algebra/eval.h"
#include "algebra/expr_private.h"
#include "algebra/lattice.h"
#include "symshape/cases.h"
#include "symshape/decide.h"

enum { K_SIMPLIFY, K_DECIDE, K_BOUND, K_EVAL };

typedef struct {
    sy_ctx *ctx;
    const sy_cases_options *o;
    sy_cases_result *r;
    const char *name;
    size_t line;
    uint64_t rng;
    bool notified; /* on_case called for the current line */
    char lastmsg[512]; /* the last report's text */
} runner;

/* The per-case callback (sy_cases_options.on_case) with what was parsed and
 * the engine's answer; c->file, c->line and c->message are filled here. */
static void notify(runner *R, sy_case *c)
{
    if (R->notified || !R->o->on_case) return;
    R->notified = true;
    c->file = R->name;
    c->line = R->line;
    if (c->status != SY_OK || !c->expr) {
        if (c->status == SY_OK) c->status = SY_EFORMAT;
        const char *m = sy_ctx_last_error_msg(R->ctx);
        c->message = m && *m ? m : R->lastmsg;
    }
    R->o->on_case(R->o->on_case_ud, c);
}

static uint64_t rnd(runner *R)
{
    uint64_t x = R->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return R->rng = x;
}

/* A report line longer than this keeps its first REPORT_HEAD and last REPORT_TAIL bytes around
 * "... [N bytes cut] ...": a case's expression (or its result) can be megabytes, and one line
 * echoed it in full (issue 38: 10 MB of output for one failing case). The tail keeps the end
 * of the message (the counterexample). */
enum { REPORT_MAX = 4096, REPORT_HEAD = 2560, REPORT_TAIL = 1024 };

static void report(runner *R, const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(R->lastmsg, sizeof R->lastmsg, fmt, ap); /* for on_case (sy_case.message; may be cut) */
    va_end(ap);
    if (!R->o->report) return;
    if (R->o->before_report) R->o->before_report(R->o->before_report_ud);
    fprintf(R->o->report, "%s:%zu: %s: ", R->name, R->line, kind);
    char *full = n >= 0 && (size_t)n >= sizeof R->lastmsg ? sy_alloc(R->ctx, (size_t)n + 1) : NULL;
    if (full) {
        va_start(ap, fmt);
        vsnprintf(full, (size_t)n + 1, fmt, ap);
        va_end(ap);
        if (n > REPORT_MAX)
            fprintf(R->o->report, "%.*s ... [%d bytes cut] ... %s", (int)REPORT_HEAD, full, n - REPORT_HEAD - REPORT_TAIL,
                    full + n - REPORT_TAIL);
        else
            fputs(full, R->o->report);
        sy_dealloc(R->ctx, full, (size_t)n + 1);
    } else {
        if (n >= 0 && (size_t)n >= sizeof R->lastmsg) sy_ctx_reset_error(R->ctx); /* out of memory: the cut text */
        fputs(R->lastmsg, R->o->report);
    }
    fputc('\n', R->o->report);
}

/* the text of e for a message: the let-form past 10^5 tree nodes (linear in the DAG), so a
 * shared chain is not expanded; report() cuts what is still long */
static char *show(runner *R, const sy_expr *e) { return sy_expr_print_bounded(R->ctx, e, SY_PRINT_CANONICAL, 100000u); }

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = '\0';
    return s;
}

static const sy_expr *parse(runner *R, const char *text, const char *what)
{
    const sy_expr *e;
    sy_ctx_reset_error(R->ctx);
    if (sy_expr_parse(R->ctx, text, (size_t)-1, &e) != SY_OK) {
        if (sy_ctx_last_error(R->ctx) == SY_EDIVZERO) /* parsed, but folding a constant divisor 0 */
            report(R, "FAIL", "%s '%s': %s", what, text, sy_ctx_last_error_msg(R->ctx));
        else
            report(R, "FAIL", "cannot parse %s '%s': %s", what, text, sy_ctx_last_error_msg(R->ctx));
        return NULL;
    }
    return e;
}

/* A growable array of expressions (context allocator): assumptions, symbols,
 * bindings. No fixed limit. */
typedef struct {
    const sy_expr **v;
    size_t n, cap;
} evec;

static bool evec_push(sy_ctx *ctx, evec *a, const sy_expr *e)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 16;
        if (nc > SIZE_MAX / sizeof *a->v) return false;
        const sy_expr **nv = sy_realloc(ctx, (void *)a->v, a->cap * sizeof *a->v, nc * sizeof *a->v);
        if (!nv) return false;
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = e;
    return true;
}

static void evec_free(sy_ctx *ctx, evec *a)
{
    if (a->v) sy_dealloc(ctx, (void *)a->v, a->cap * sizeof *a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

/* Parse "a; b; c" into a list of boolean expressions; false on error (reported). */
static bool parse_assumptions(runner *R, char *text, evec *out)
{
    char *save = NULL;
    for (char *tok = strtok_r(text, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        tok = trim(tok);
        if (!*tok) continue;
        const sy_expr *e = parse(R, tok, "assumption");
        if (!e) return false;
        if (!sy_expr_is_bool(e)) {
            report(R, "FAIL", "assumption '%s' is not a relation", tok);
            return false;
        }
        if (!evec_push(R->ctx, out, e)) {
            report(R, "FAIL", "out of memory");
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- sampling */

typedef evec symlist; /* the free symbols of a case, each once */

static bool add_syms(sy_ctx *ctx, symlist *L, const sy_expr *e)
{
    const sy_expr **v;
    size_t k;
    if (sy_expr_free_symbols(ctx, e, &v, &k) != SY_OK) return false;
    bool ok = true;
    for (size_t i = 0; i < k && ok; i++) {
        bool have = false;
        for (size_t j = 0; j < L->n && !have; j++) have = L->v[j] == v[i];
        if (!have) ok = evec_push(ctx, L, v[i]);
    }
    sy_mem_free(ctx, v);
    return ok;
}

/* The symbols of the case's expressions and assumptions; false when out of memory. */
static bool case_syms(runner *R, symlist *L, const sy_expr *a, const sy_expr *b, const evec *as)
{
    bool ok = add_syms(R->ctx, L, a) && (!b || add_syms(R->ctx, L, b));
    for (size_t i = 0; ok && i < as->n; i++) ok = add_syms(R->ctx, L, as->v[i]);
    if (!ok) report(R, "FAIL", "out of memory");
    return ok;
}

static void random_value(runner *R, fmpz_t v)
{
    uint64_t k = rnd(R) % 100;
    int64_t x;
    if (k < 45) x = (int64_t)(rnd(R) % 21) - 10;
    else if (k < 75) x = (int64_t)(rnd(R) % 2001) - 1000;
    else if (k < 92) x = (int64_t)(rnd(R) % 2000000000001ull) - 1000000000000ll;
    else {
        fmpz_set_ui(v, rnd(R));
        fmpz_mul_2exp(v, v, 10 + rnd(R) % 20);
        if (rnd(R) & 1) fmpz_neg(v, v);
        return;
    }
    fmpz_set_si(v, x);
}

/* Sample points satisfying the assumptions; for each, call fn. Returns the
 * number of satisfying points visited, or -1 when fn asked to stop. */
typedef int (*point_fn)(runner *R, sy_binding *b, void *ud);

/* The vertices of the box the facts f give the symbols of L: per symbol its
 * least and greatest values and their neighbours (lo, lo + 1, hi - 1, hi; -1,
 * 0, 1 for an unbounded side), every combination (at most VERTEX_MAX points,
 * fewer values per symbol past it), each visited when it satisfies the
 * assumptions A (and extra, when not NULL). Random and grid sampling miss the
 * ends of a declared range (issue 38: h = 20 in 8 <= h <= 20). Returns the
 * points visited, -1 when fn asked to stop, -2 out of memory. */
enum { VERTEX_MAX = 4096, VERTEX_PER_SYM = 4 };

/* every assumption of A (and extra, when not NULL) is defined and non-zero at b; t: scratch */
static bool assumptions_hold(runner *R, const evec *A, const sy_expr *extra, sy_binding *b, fmpz_t t)
{
    for (size_t i = 0; i <= A->n; i++) {
        const sy_expr *a = i < A->n ? A->v[i] : extra;
        if (!a) continue;
        sy_ctx_reset_error(R->ctx);
        if (sy_eval_raw(R->ctx, a, b, t) != SY_OK || fmpz_is_zero(t)) return false;
    }
    return true;
}

static long vertex_sample(runner *R, const symlist *L, const evec *A, sy_facts *f, const sy_expr *extra, long want,
                          point_fn fn, void *ud)
{
    size_t n = L->n;
    if (!n || !f || sy_facts_consistent(f) == SY_FALSE) return 0;
    fmpz *vals = sy_alloc(R->ctx, n * VERTEX_PER_SYM * sizeof *vals);
    size_t *cnt = sy_alloc(R->ctx, n * sizeof *cnt), *idx = sy_alloc(R->ctx, n * sizeof *idx);
    sy_binding b;
    bool bound = vals && cnt && idx && sy_binding_init(R->ctx, &b);
    if (!bound) {
        if (vals) sy_dealloc(R->ctx, vals, n * VERTEX_PER_SYM * sizeof *vals);
        if (cnt) sy_dealloc(R->ctx, cnt, n * sizeof *cnt);
        if (idx) sy_dealloc(R->ctx, idx, n * sizeof *idx);
        sy_ctx_reset_error(R->ctx);
        return -2;
    }
    for (size_t i = 0; i < n * VERTEX_PER_SYM; i++) fmpz_init(vals + i);
    /* per symbol: its candidate values, distinct */
    for (size_t i = 0; i < n; i++) {
        const sy_expr *lo = NULL, *hi = NULL;
        fmpz *c = vals + i * VERTEX_PER_SYM;
        size_t k = 0;
        if (sy_facts_get_range(f, L->v[i], &lo, &hi) != SY_OK) lo = hi = NULL;
        sy_ctx_reset_error(R->ctx);
        if (lo && lo->kind != SY_EXPR_INT) lo = NULL;
        if (hi && hi->kind != SY_EXPR_INT) hi = NULL;
        fmpz_t cand[4];
        for (int j = 0; j < 4; j++) fmpz_init(cand[j]);
        int nc = 0;
        if (lo) { fmpz_set(cand[nc++], &lo->u.value); fmpz_add_ui(cand[nc], &lo->u.value, 1); nc++; }
        if (hi) { fmpz_set(cand[nc++], &hi->u.value); fmpz_sub_ui(cand[nc], &hi->u.value, 1); nc++; }
        if (!lo && !hi) { fmpz_set_si(cand[nc++], 0); fmpz_set_si(cand[nc++], 1); fmpz_set_si(cand[nc++], -1); }
        for (int j = 0; j < nc; j++) {
            if ((lo && fmpz_cmp(cand[j], &lo->u.value) < 0) || (hi && fmpz_cmp(cand[j], &hi->u.value) > 0)) continue;
            bool dup = false;
            for (size_t q = 0; q < k && !dup; q++) dup = fmpz_equal(c + q, cand[j]);
            if (!dup && k < VERTEX_PER_SYM) fmpz_set(c + k++, cand[j]);
        }
        for (int j = 0; j < 4; j++) fmpz_clear(cand[j]);
        cnt[i] = k ? k : 1; /* an empty set cannot happen for a consistent range; keep the odometer going */
        if (!k) fmpz_zero(c);
    }
    /* fewer values per symbol until the product is within VERTEX_MAX */
    for (size_t per = VERTEX_PER_SYM; per >= 1; per--) {
        size_t total = 1;
        bool over = false;
        for (size_t i = 0; i < n && !over; i++) {
            size_t ci = cnt[i] < per ? cnt[i] : per;
            over = total > VERTEX_MAX / ci;
            total *= ci;
        }
        if (!over || per == 1) {
            for (size_t i = 0; i < n; i++) cnt[i] = cnt[i] < per ? cnt[i] : per;
            break;
        }
    }
    fmpz_t t;
    fmpz_init(t);
    long found = 0;
    memset(idx, 0, n * sizeof *idx);
    for (size_t it = 0; it < VERTEX_MAX && found < want; it++) {
        for (size_t i = 0; i < n; i++) sy_binding_set(&b, sy_expr_sym_id(L->v[i]), vals + i * VERTEX_PER_SYM + idx[i]);
        if (assumptions_hold(R, A, extra, &b, t)) {
            found++;
            if (fn(R, &b, ud) < 0) {
                found = -1;
                break;
            }
        }
        size_t i = 0; /* the odometer */
        while (i < n && ++idx[i] == cnt[i]) idx[i++] = 0;
        if (i == n) break;
    }
    sy_ctx_reset_error(R->ctx);
    fmpz_clear(t);
    for (size_t i = 0; i < n * VERTEX_PER_SYM; i++) fmpz_clear(vals + i);
    sy_dealloc(R->ctx, vals, n * VERTEX_PER_SYM * sizeof *vals);
    sy_dealloc(R->ctx, cnt, n * sizeof *cnt);
    sy_dealloc(R->ctx, idx, n * sizeof *idx);
    sy_binding_clear(R->ctx, &b);
    return found;
}

/* vertex_sample under the facts of A alone (a fact set built for it) */
static long vertex_sample_assumed(runner *R, const symlist *L, const evec *A, long want, point_fn fn, void *ud)
{
    if (!A->n) return 0;
    sy_facts *f = sy_facts_new(R->ctx);
    bool ok = f != NULL;
    for (size_t i = 0; ok && i < A->n; i++) ok = sy_facts_add(f, A->v[i]) == SY_OK;
    long r = ok ? vertex_sample(R, L, A, f, NULL, want, fn, ud) : 0;
    sy_facts_free(f);
    sy_ctx_reset_error(R->ctx);
    return r;
}

/* Candidate values from the constants of the case (attack38e): a claim false at one point
 * that neither the vertices nor the grid nor random values reach (`x != 123456789` => true,
 * `Min(1, (x - 123456789)**2)` => 1, `Mod(x, 1000003) != 999999` => true) passed as a precision
 * miss or another form. Each integer constant c of the expressions (a node or an Add's
 * coefficient, the first CONST_MAX) gives c, c - 1, c + 1, -c, FloorDiv(c, 2), CeilDiv(c, 2)
 * and the integer square and cube roots of |c| (and + 1), the roots of an expanded power or
 * product: (x - r)**2 has the coefficient 2*r and the constant r**2. Every symbol takes every
 * candidate, each combination tried (at most CAND_POINTS, fewer values per symbol past it). */
enum { CONST_MAX = 32, CAND_MAX = 160, CAND_POINTS = 2048 };

typedef struct {
    runner *R;
    fmpz *v;
    size_t n, nconst;
    sy_etab seen; /* the nodes entered: a DAG is walked once */
} cands;

static void cand_push(cands *k, const fmpz_t x)
{
    for (size_t i = 0; i < k->n; i++)
        if (fmpz_equal(k->v + i, x)) return;
    if (k->n < CAND_MAX) fmpz_set(k->v + k->n++, x);
}

static void cand_from(cands *k, const fmpz_t c)
{
    if (k->nconst >= CONST_MAX || fmpz_bits(c) > 4096) return;
    k->nconst++;
    fmpz_t t, a;
    fmpz_init(t);
    fmpz_init(a);
    cand_push(k, c);
    fmpz_sub_ui(t, c, 1);
    cand_push(k, t);
    fmpz_add_ui(t, c, 1);
    cand_push(k, t);
    fmpz_neg(t, c);
    cand_push(k, t);
    fmpz_fdiv_q_2exp(t, c, 1);
    cand_push(k, t);
    fmpz_cdiv_q_2exp(t, c, 1);
    cand_push(k, t);
    fmpz_abs(a, c);
    for (int r = 2; r <= 3; r++) {
        fmpz_root(t, a, r);
        cand_push(k, t);
        fmpz_add_ui(t, t, 1);
        cand_push(k, t);
    }
    fmpz_clear(t);
    fmpz_clear(a);
}

/* a walk's skip: e was visited before (or the table is out of memory), so its subtree is skipped */
static int seen_before(sy_ctx *ctx, sy_etab *seen, const sy_expr *e)
{
    if (sy_etab_slot(ctx, seen, e, 0, true) == SIZE_MAX) return 1;
    bool fresh = seen->fresh;
    seen->fresh = false;
    return !fresh;
}

static int cand_skip(void *ud, const sy_expr *e)
{
    cands *k = ud;
    return k->nconst >= CONST_MAX || seen_before(k->R->ctx, &k->seen, e);
}

static sy_status cand_visit(void *ud, const sy_expr *e)
{
    cands *k = ud;
    if (e->kind == SY_EXPR_INT) cand_from(k, &e->u.value);
    else if (e->kind == SY_EXPR_ADD) {
        cand_from(k, &e->u.c0);
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            const sy_expr *c = sy_expr_add_coeff(k->R->ctx, e, i);
            if (c && c->kind == SY_EXPR_INT) cand_from(k, &c->u.value);
        }
    }
    return SY_OK;
}

/* the candidate points of the constants of e1 and e2 (either NULL) that satisfy A; the
 * number visited, -1 when fn asked to stop, -2 out of memory */
static long const_sample(runner *R, const symlist *L, const evec *A, const sy_expr *e1, const sy_expr *e2, point_fn fn,
                         void *ud)
{
    size_t n = L->n;
    if (!n) return 0;
    cands k = {R, sy_alloc(R->ctx, CAND_MAX * sizeof(fmpz)), 0, 0, {NULL, NULL, 0, 0, false}};
    sy_binding b;
    if (!k.v || !sy_binding_init(R->ctx, &b)) {
        if (k.v) sy_dealloc(R->ctx, k.v, CAND_MAX * sizeof(fmpz));
        sy_ctx_reset_error(R->ctx);
        return -2;
    }
    for (size_t i = 0; i < CAND_MAX; i++) fmpz_init(k.v + i);
    if (e1) sy_expr_walk_postorder(R->ctx, e1, cand_skip, cand_visit, &k);
    if (e2) sy_expr_walk_postorder(R->ctx, e2, cand_skip, cand_visit, &k);
    for (size_t i = 0; i < A->n; i++) sy_expr_walk_postorder(R->ctx, A->v[i], cand_skip, cand_visit, &k);
    sy_etab_clear(R->ctx, &k.seen, 0);
    sy_ctx_reset_error(R->ctx);
    /* values per symbol: the largest per with per**n <= CAND_POINTS */
    size_t per = k.n;
    for (;;) {
        size_t total = 1;
        bool over = false;
        for (size_t i = 0; i < n && !over; i++) {
            over = total > CAND_POINTS / (per ? per : 1);
            total *= per ? per : 1;
        }
        if (!over || per <= 1) break;
        per--;
    }
    long found = 0;
    size_t *idx = per ? sy_alloc(R->ctx, n * sizeof *idx) : NULL;
    fmpz_t t;
    fmpz_init(t);
    if (idx) {
        memset(idx, 0, n * sizeof *idx);
        for (size_t it = 0; it < CAND_POINTS; it++) {
            for (size_t i = 0; i < n; i++) sy_binding_set(&b, sy_expr_sym_id(L->v[i]), k.v + idx[i]);
            if (assumptions_hold(R, A, NULL, &b, t)) {
                found++;
                if (fn(R, &b, ud) < 0) {
                    found = -1;
                    break;
                }
            }
            size_t i = 0; /* the odometer */
            while (i < n && ++idx[i] == per) idx[i++] = 0;
            if (i == n) break;
        }
        sy_dealloc(R->ctx, idx, n * sizeof *idx);
    } else if (per) {
        found = -2;
    }
    sy_ctx_reset_error(R->ctx);
    fmpz_clear(t);
    for (size_t i = 0; i < CAND_MAX; i++) fmpz_clear(k.v + i);
    sy_dealloc(R->ctx, k.v, CAND_MAX * sizeof(fmpz));
    sy_binding_clear(R->ctx, &b);
    return found;
}

/* Points from solving the case's equalities (issue 38): `x*y != 12345*54321 => true` is false
 * only at the factor pairs, which no vertex, candidate, grid or random point reaches. Each
 * target g (an integer expression; a relation stands for its atoms' d of d == 0, d != 0,
 * d <= 0, and, for each Mod(P, m) / FloorDiv(P, m) in it with a constant m, P - v for v = c,
 * c + m, c*m, c*m + m - 1 with c a constant of the relation) is solved for each of its
 * symbols s (the first SOLVE_SYMS) with the others at candidate values: the vertices of their
 * ranges, then the divisors d of the constants of the case and of those v (d, -d, d - 1,
 * d + 1: a product's factors, a shifted factor's (x + 1)*(y - 1)), every combination up to
 * SOLVE_COMBOS. For s, bisection on each side of 0 of s's range (cut at +-2^(bits + 16), bits
 * those of the largest constant) finds where g changes sign: exactly the root of a monotone
 * g (linear in s, a product given the other factors, a FloorDiv of either), and the root of an
 * even one (x**2 - c); the points at the ends and around each sign change are visited. Bounded:
 * at most SOLVE_WORK evaluated nodes (an evaluation counts the nodes of the case's
 * expressions), deterministic. Returns the points visited, -1 when fn asked to stop, -2 out of
 * memory. */
enum { LATTICE_EQS = 16, LATTICE_POINTS = 64 };
enum { SOLVE_TARGETS = 24, SOLVE_SYMS = 8, SOLVE_CANDS = 256, SOLVE_COMBOS = 256, SOLVE_DIVS = 64, SOLVE_CONSTS = 24 };
#define SOLVE_WORK ((uint64_t)1 << 23)

typedef struct {
    runner *R;
    const symlist *L;
    const evec *A;
    sy_facts *f;
    sy_binding b;
    point_fn fn;
    void *ud;
    uint64_t work, cost; /* nodes left to evaluate; nodes of one evaluation */
    long found;
    int stop; /* 1: fn asked to stop; 2: out of work */
    evec tg;  /* integer targets */
    fmpz *cv; /* the divisor candidates, SOLVE_CANDS */
    size_t ncv;
    fmpz *kc; /* the relation's constants (absolute) for the Mod/FloorDiv targets, SOLVE_CONSTS */
    size_t nkc;
    slong bits; /* the largest constant's bits */
    sy_etab seen;
    size_t nodes;
    bool oom;
    bool no_atoms; /* walking the assumptions */
    /* each symbol's range under the facts, by symbol id, computed once (sv_get_range): the
     * bisections asked sy_facts_get_range for every combination, 11% of a fuzz_cases run */
    const sy_expr **rlo, **rhi;
    unsigned char *rhave;
    size_t nr;
} solver;

static bool sv_charge(solver *S)
{
    if (S->stop) return false;
    if (S->work < S->cost) {
        S->stop = 2;
        return false;
    }
    S->work -= S->cost;
    return true;
}

/* the value of g at the binding: true when it evaluates (into out) */
static bool sv_eval(solver *S, const sy_expr *g, fmpz_t out)
{
    if (!sv_charge(S)) return false;
    sy_status st = sy_eval_raw(S->R->ctx, g, &S->b, out);
    sy_ctx_reset_error(S->R->ctx);
    return st == SY_OK;
}

/* visit the binding with s := x when the assumptions hold there */
static void sv_visit(solver *S, const sy_expr *s, const fmpz_t x)
{
    if (!sv_charge(S)) return;
    sy_binding_set(&S->b, sy_expr_sym_id(s), x);
    fmpz_t t;
    fmpz_init(t);
    if (assumptions_hold(S->R, S->A, NULL, &S->b, t)) {
        S->found++;
        if (S->fn(S->R, &S->b, S->ud) < 0) S->stop = 1;
    }
    fmpz_clear(t);
    sy_ctx_reset_error(S->R->ctx);
}

static void sv_cand(solver *S, const fmpz_t x)
{
    for (size_t i = 0; i < S->ncv; i++)
        if (fmpz_equal(S->cv + i, x)) return;
    if (S->ncv < SOLVE_CANDS) fmpz_set(S->cv + S->ncv++, x);
}

/* the divisors of the constants as candidates, d, -d, d - 1, d + 1, the constants taking turns
 * (the i-th divisor of each, smallest and largest first) */
static void sv_divisors(solver *S)
{
    size_t nk = S->nkc, *nd = sy_alloc(S->R->ctx, (nk ? nk : 1) * sizeof *nd), most = 0;
    fmpz *d = sy_alloc(S->R->ctx, (nk ? nk : 1) * SOLVE_DIVS * sizeof *d);
    if (!nd || !d) {
        if (nd) sy_dealloc(S->R->ctx, nd, (nk ? nk : 1) * sizeof *nd);
        if (d) sy_dealloc(S->R->ctx, d, (nk ? nk : 1) * SOLVE_DIVS * sizeof *d);
        S->oom = true;
        return;
    }
    for (size_t i = 0; i < nk * SOLVE_DIVS; i++) fmpz_init(d + i);
    for (size_t k = 0; k < nk; k++) {
        nd[k] = sy_fmpz_divisors(S->kc + k, d + k * SOLVE_DIVS, SOLVE_DIVS);
        if (nd[k] > most) most = nd[k];
    }
    fmpz_t t;
    fmpz_init(t);
    for (size_t i = 0; i < most && S->ncv < SOLVE_CANDS; i++)
        for (size_t k = 0; k < nk; k++) {
            if (i >= nd[k]) continue;
            const fmpz *x = d + k * SOLVE_DIVS + i;
            sv_cand(S, x);
            fmpz_neg(t, x);
            sv_cand(S, t);
            fmpz_sub_ui(t, x, 1);
            sv_cand(S, t);
            fmpz_add_ui(t, x, 1);
            sv_cand(S, t);
        }
    fmpz_clear(t);
    for (size_t i = 0; i < nk * SOLVE_DIVS; i++) fmpz_clear(d + i);
    sy_dealloc(S->R->ctx, d, (nk ? nk : 1) * SOLVE_DIVS * sizeof *d);
    sy_dealloc(S->R->ctx, nd, (nk ? nk : 1) * sizeof *nd);
}

static void sv_const(solver *S, const fmpz *c)
{
    if (!c || fmpz_is_zero(c) || fmpz_bits(c) > SY_DIVISORS_BITS) return;
    if ((slong)fmpz_bits(c) > S->bits) S->bits = (slong)fmpz_bits(c);
    bool have = false;
    for (size_t i = 0; i < S->nkc && !have; i++) have = fmpz_cmpabs(S->kc + i, c) == 0;
    if (have || S->nkc >= SOLVE_CONSTS) return;
    fmpz_abs(S->kc + S->nkc++, c);
}

static int sv_skip(void *ud, const sy_expr *e)
{
    solver *S = ud;
    return seen_before(S->R->ctx, &S->seen, e);
}

/* every node once: count it, record its constants and its atoms (targets) */
static sy_status sv_node(void *ud, const sy_expr *e)
{
    solver *S = ud;
    sy_ctx *ctx = S->R->ctx;
    S->nodes++;
    if (S->no_atoms) return SY_OK; /* an assumption's: the vertices give its range's ends */
    if (e->kind == SY_EXPR_INT) sv_const(S, &e->u.value);
    else if (e->kind == SY_EXPR_ADD) {
        sv_const(S, &e->u.c0);
        size_t n = sy_expr_nargs(e) < 8 ? sy_expr_nargs(e) : 8;
        for (size_t i = 0; i < n; i++) sv_const(S, sy_expr_add_coef_ref(e, i));
        /* (x + a)*(y + b) + k expands to x*y + b*x + a*y + a*b + k: the product's constant is
         * c0 - a*b, with a and b two coefficients of the sum */
        fmpz_t v;
        fmpz_init(v);
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                const fmpz *a = sy_expr_add_coef_ref(e, i), *b = sy_expr_add_coef_ref(e, j);
                if (!a || !b || fmpz_bits(a) > SY_DIVISORS_BITS || fmpz_bits(b) > SY_DIVISORS_BITS) continue;
                fmpz_mul(v, a, b);
                fmpz_sub(v, &e->u.c0, v);
                sv_const(S, v);
            }
        fmpz_clear(v);
    }
    if ((e->kind == SY_EXPR_EQ || e->kind == SY_EXPR_NE || e->kind == SY_EXPR_LE) && sy_expr_nargs(e) == 1 &&
        S->tg.n < SOLVE_TARGETS && !evec_push(ctx, &S->tg, sy_expr_arg(e, 0)))
        S->oom = true;
    return SY_OK;
}

/* the Mod / FloorDiv targets of e: P - v (above) */
static int sv_skip2(void *ud, const sy_expr *e)
{
    solver *S = ud;
    return S->tg.n >= SOLVE_TARGETS || sv_skip(ud, e);
}

static sy_status sv_divmod(void *ud, const sy_expr *e)
{
    solver *S = ud;
    sy_ctx *ctx = S->R->ctx;
    if (e->kind != SY_EXPR_MOD && e->kind != SY_EXPR_FLOORDIV) return SY_OK;
    const sy_expr *m = sy_expr_arg(e, 1);
    if (m->kind != SY_EXPR_INT || fmpz_bits(&m->u.value) > SY_DIVISORS_BITS || fmpz_is_zero(&m->u.value)) return SY_OK;
    fmpz_t v;
    fmpz_init(v);
    size_t nk = S->nkc; /* the relation's own constants; the values v join them */
    for (size_t i = 0; i < nk && S->tg.n < SOLVE_TARGETS; i++) {
        for (int k = 0; k < 4 && S->tg.n < SOLVE_TARGETS; k++) {
            if (k == 0) fmpz_set(v, S->kc + i);
            else if (k == 1) fmpz_add(v, S->kc + i, &m->u.value);
            else fmpz_mul(v, S->kc + i, &m->u.value);
            if (k == 3) {
                fmpz_add(v, v, &m->u.value);
                fmpz_sub_ui(v, v, 1);
            }
            sv_const(S, v);
            const sy_expr *g = sy_expr_sub(ctx, sy_expr_arg(e, 0), sy_int_fmpz(ctx, v));
            if (!g || !evec_push(ctx, &S->tg, g)) {
                fmpz_clear(v);
                S->oom = true;
                return SY_ENOMEM;
            }
        }
    }
    fmpz_clear(v);
    return SY_OK;
}

/* s's range under the facts (NULL ends: unbounded), once per symbol */
static void sv_get_range(solver *S, const sy_expr *s, const sy_expr **lo, const sy_expr **hi)
{
    uint32_t id = sy_expr_sym_id(s);
    if (id < S->nr && S->rhave[id]) {
        *lo = S->rlo[id], *hi = S->rhi[id];
        return;
    }
    *lo = *hi = NULL;
    if (!S->f || sy_facts_get_range(S->f, s, lo, hi) != SY_OK) *lo = *hi = NULL;
    sy_ctx_reset_error(S->R->ctx);
    if (id < S->nr) S->rlo[id] = *lo, S->rhi[id] = *hi, S->rhave[id] = 1;
}

/* the vertex value of symbol s: its range's lower end (or upper end; 1 when unbounded) */
static void sv_default(solver *S, const sy_expr *s, fmpz_t out)
{
    const sy_expr *lo = NULL, *hi = NULL;
    sv_get_range(S, s, &lo, &hi);
    if (lo && lo->kind == SY_EXPR_INT) fmpz_set(out, &lo->u.value);
    else if (hi && hi->kind == SY_EXPR_INT) fmpz_set(out, &hi->u.value);
    else fmpz_one(out);
}

/* s's range, cut at +-2^(bits + 16): false when empty */
static bool sv_range(solver *S, const sy_expr *s, fmpz_t lo, fmpz_t hi)
{
    const sy_expr *l = NULL, *h = NULL;
    sv_get_range(S, s, &l, &h);
    fmpz_one(hi);
    fmpz_mul_2exp(hi, hi, (ulong)S->bits + 16);
    fmpz_neg(lo, hi);
    if (l && l->kind == SY_EXPR_INT && fmpz_cmp(&l->u.value, lo) > 0) fmpz_set(lo, &l->u.value);
    if (h && h->kind == SY_EXPR_INT && fmpz_cmp(&h->u.value, hi) < 0) fmpz_set(hi, &h->u.value);
    return fmpz_cmp(lo, hi) <= 0;
}

/* the candidate values of symbol s (into v, room SOLVE_CANDS + 4): its range's ends and their
 * neighbours, then the divisor candidates inside the range */
static size_t sv_values(solver *S, const sy_expr *s, fmpz *v, size_t max)
{
    const sy_expr *lo = NULL, *hi = NULL;
    sv_get_range(S, s, &lo, &hi);
    if (lo && lo->kind != SY_EXPR_INT) lo = NULL;
    if (hi && hi->kind != SY_EXPR_INT) hi = NULL;
    size_t n = 0, nends = 0;
    fmpz_t t;
    fmpz_init(t);
    for (int j = 0; j < 4 + (int)S->ncv && n < max; j++) {
        if (j == 4) nends = n;
        if (j == 0) lo ? fmpz_set(t, &lo->u.value) : fmpz_one(t);
        else if (j == 1) lo ? fmpz_add_ui(t, &lo->u.value, 1) : fmpz_set_si(t, -1);
        else if (j == 2) hi ? fmpz_set(t, &hi->u.value) : fmpz_zero(t);
        else if (j == 3) hi ? fmpz_sub_ui(t, &hi->u.value, 1) : fmpz_set_si(t, 2);
        else fmpz_set(t, S->cv + j - 4);
        if ((lo && fmpz_cmp(t, &lo->u.value) < 0) || (hi && fmpz_cmp(t, &hi->u.value) > 0)) continue;
        /* the divisor candidates are distinct (sv_cand): each is compared with the ends only */
        bool dup = false;
        for (size_t q = 0; q < (j < 4 ? n : nends) && !dup; q++) dup = fmpz_equal(v + q, t);
        if (!dup) fmpz_set(v + n++, t);
    }
    fmpz_clear(t);
    return n;
}

/* g at s := *end; when it does not evaluate (a value past the size limit: an end far out),
 * *end moves halfway towards other until it does. false when no point evaluates. */
static bool sv_end(solver *S, const sy_expr *g, const sy_expr *s, const fmpz_t other, fmpz_t end, fmpz_t out)
{
    fmpz_t m;
    fmpz_init(m);
    bool ok = false;
    for (;;) {
        sy_binding_set(&S->b, sy_expr_sym_id(s), end);
        if ((ok = sv_eval(S, g, out)) || S->stop) break;
        fmpz_add(m, end, other);
        fmpz_fdiv_q_2exp(m, m, 1);
        if (fmpz_equal(m, end) || fmpz_equal(m, other)) break;
        fmpz_set(end, m);
    }
    fmpz_clear(m);
    return ok;
}

/* where g changes sign for s in [a, b] (a <= b): the ends, and the points around the change */
static void sv_bisect(solver *S, const sy_expr *g, const sy_expr *s, const fmpz_t a0, const fmpz_t b0)
{
    fmpz_t a, b, m, ga, gm;
    fmpz_init_set(a, a0);
    fmpz_init_set(b, b0);
    fmpz_init(m);
    fmpz_init(ga);
    fmpz_init(gm);
    uint32_t id = sy_expr_sym_id(s);
    bool oka = sv_end(S, g, s, b0, a, ga);
    sv_visit(S, s, a);
    bool okb = !S->stop && sv_end(S, g, s, a, b, gm);
    if (fmpz_cmp(a, b) != 0) sv_visit(S, s, b);
    if (oka && okb && (fmpz_sgn(ga) < 0) != (fmpz_sgn(gm) < 0)) {
        bool nega = fmpz_sgn(ga) < 0;
        fmpz_t lo, hi, gb, w, num, den; /* the ends that evaluate; g at b; the width */
        fmpz_init_set(lo, a);
        fmpz_init_set(hi, b);
        fmpz_init_set(gb, gm);
        fmpz_init(w), fmpz_init(num), fmpz_init(den);
        /* regula falsi, a bisection step after each one that did not halve the interval: the
         * root of a g linear in s in two or three evaluations, not the 66 of bisection from
         * +-2^64 (62% of a fuzz_cases run was the solver, issue 38 leftovers); the same a,
         * b = a + 1 at the end for a monotone g, at most twice the steps otherwise */
        bool interp = true;
        while (!S->stop) {
            fmpz_sub(w, b, a);
            if (fmpz_cmp_ui(w, 1) <= 0) break;
            if (interp) { /* a + |g(a)| (b - a) / (|g(a)| + |g(b)|), inside (a, b) */
                fmpz_abs(num, ga);
                fmpz_abs(den, gb);
                fmpz_add(den, den, num);
                fmpz_mul(num, num, w);
                fmpz_fdiv_q(m, num, den);
                fmpz_add(m, m, a);
                if (fmpz_cmp(m, a) <= 0) fmpz_add_ui(m, a, 1);
                if (fmpz_cmp(m, b) >= 0) fmpz_sub_ui(m, b, 1);
            } else {
                fmpz_add(m, a, b);
                fmpz_fdiv_q_2exp(m, m, 1);
            }
            sy_binding_set(&S->b, id, m);
            if (!sv_eval(S, g, gm)) break;
            if ((fmpz_sgn(gm) < 0) == nega) fmpz_set(a, m), fmpz_set(ga, gm);
            else fmpz_set(b, m), fmpz_set(gb, gm);
            fmpz_sub(num, b, a); /* halved? */
            fmpz_mul_2exp(num, num, 1);
            interp = !interp || fmpz_cmp(num, w) <= 0;
        }
        fmpz_clear(gb), fmpz_clear(w), fmpz_clear(num), fmpz_clear(den);
        /* a - 1, a, b, b + 1 (the ends themselves were visited) */
        fmpz_sub_ui(m, a, 1);
        for (int k = 0; k < 4 && !S->stop; k++, fmpz_add_ui(m, m, 1))
            if (fmpz_cmp(m, lo) > 0 && fmpz_cmp(m, hi) < 0) sv_visit(S, s, m);
        fmpz_clear(lo);
        fmpz_clear(hi);
    }
    fmpz_clear(a);
    fmpz_clear(b);
    fmpz_clear(m);
    fmpz_clear(ga);
    fmpz_clear(gm);
}

static void sv_solve(solver *S, const sy_expr *g, const sy_expr *s)
{
    fmpz_t lo, hi, a, b;
    fmpz_init(lo);
    fmpz_init(hi);
    fmpz_init(a);
    fmpz_init(b);
    if (sv_range(S, s, lo, hi)) {
        /* below 0, then from 0: an even g (x**2 - c) changes sign on each side */
        if (fmpz_sgn(lo) < 0) {
            fmpz_set(a, lo);
            fmpz_sgn(hi) < 0 ? fmpz_set(b, hi) : fmpz_set_si(b, -1);
            sv_bisect(S, g, s, a, b);
        }
        if (fmpz_sgn(hi) >= 0 && !S->stop) {
            fmpz_sgn(lo) > 0 ? fmpz_set(a, lo) : fmpz_zero(a);
            sv_bisect(S, g, s, a, hi);
        }
    }
    fmpz_clear(lo);
    fmpz_clear(hi);
    fmpz_clear(a);
    fmpz_clear(b);
}

/* g solved for each of its symbols, the others over their candidate values */
static void sv_target(solver *S, const sy_expr *g, const fmpz *defv)
{
    sy_ctx *ctx = S->R->ctx;
    const sy_expr **fs = NULL;
    size_t nfs = 0;
    if (sy_expr_free_symbols(ctx, g, &fs, &nfs) != SY_OK) {
        sy_ctx_reset_error(ctx);
        return;
    }
    size_t n = nfs < SOLVE_SYMS ? nfs : SOLVE_SYMS;
    size_t nvals = n * (SOLVE_CANDS + 4);
    fmpz *vals = n ? sy_alloc(ctx, nvals * sizeof *vals) : NULL;
    size_t cnt[SOLVE_SYMS], idx[SOLVE_SYMS], li[SOLVE_SYMS];
    if (n && !vals) {
        sy_mem_free(ctx, fs);
        S->oom = true;
        return;
    }
    for (size_t i = 0; i < n * (SOLVE_CANDS + 4); i++) fmpz_init(vals + i);
    /* values per other symbol: the largest per with per**(n - 1) <= SOLVE_COMBOS */
    size_t per = SOLVE_CANDS + 4;
    while (per > 1) {
        size_t total = 1;
        bool over = false;
        for (size_t i = 1; i < n && !over; i++) {
            over = total > SOLVE_COMBOS / per;
            total *= per;
        }
        if (!over) break;
        per--;
    }
    for (size_t i = 0; i < n; i++) { /* the first per of each: the odometer uses no more */
        cnt[i] = sv_values(S, fs[i], vals + i * (SOLVE_CANDS + 4), per);
        li[i] = SIZE_MAX;
        for (size_t j = 0; j < S->L->n && li[i] == SIZE_MAX; j++)
            if (S->L->v[j] == fs[i]) li[i] = j;
    }
    for (size_t k = 0; k < n && !S->stop; k++) {
        if (li[k] == SIZE_MAX) continue;
        memset(idx, 0, sizeof idx);
        for (size_t it = 0; it < SOLVE_COMBOS && !S->stop; it++) {
            for (size_t i = 0; i < n; i++)
                if (i != k && cnt[i]) sy_binding_set(&S->b, sy_expr_sym_id(fs[i]), vals + i * (SOLVE_CANDS + 4) + idx[i]);
            sv_solve(S, g, fs[k]);
            size_t i = 0; /* the odometer over the others */
            for (; i < n; i++) {
                if (i == k) continue;
                size_t c = cnt[i] < per ? cnt[i] : per;
                if (++idx[i] < c) break;
                idx[i] = 0;
            }
            if (i == n) break;
        }
    }
    /* the symbols back at their defaults */
    for (size_t i = 0; i < n; i++)
        if (li[i] != SIZE_MAX) sy_binding_set(&S->b, sy_expr_sym_id(fs[i]), defv + li[i]);
    for (size_t i = 0; i < n * (SOLVE_CANDS + 4); i++) fmpz_clear(vals + i);
    if (vals) sy_dealloc(ctx, vals, nvals * sizeof *vals);
    sy_mem_free(ctx, fs);
}

/* a lattice point (sy_lattice_points): the symbols bound to it, visited when the assumptions hold */
static int sv_lattice_point(void *ud, const fmpz *vals)
{
    solver *S = ud;
    if (!sv_charge(S)) return -1;
    for (size_t i = 0; i < S->L->n; i++) sy_binding_set(&S->b, sy_expr_sym_id(S->L->v[i]), vals + i);
    fmpz_t t;
    fmpz_init(t);
    if (assumptions_hold(S->R, S->A, NULL, &S->b, t)) {
        S->found++;
        if (S->fn(S->R, &S->b, S->ud) < 0) S->stop = 1;
    }
    fmpz_clear(t);
    sy_ctx_reset_error(S->R->ctx);
    return S->stop ? -1 : 0;
}

/* the equalities d == 0 an assumption states (its And's operands too) */
static void eq_atoms(sy_ctx *ctx, const sy_expr *a, evec *out, bool *oom)
{
    if (a->kind == SY_EXPR_AND) {
        for (size_t i = 0; i < sy_expr_nargs(a); i++) eq_atoms(ctx, sy_expr_arg(a, i), out, oom);
    } else if (a->kind == SY_EXPR_EQ && sy_expr_nargs(a) == 1 && out->n < LATTICE_EQS && !evec_push(ctx, out, sy_expr_arg(a, 0))) {
        *oom = true;
    }
}

/* Diophantine witnesses (issue 38 leftovers): `2*a != 3*b + 1`, `Mod(7*a, 12) != 5` are false
 * only on a lattice that neither the bisection of one symbol nor the grid reaches when the
 * ranges start far out or the coefficients are large. The assumptions' equalities, with each
 * target g == 0 and g == 1 (an atom d <= 0 is false from d = 1 on), and with none, are solved
 * exactly over the integers (algebra/lattice.c) and the lattice points nearest the symbols'
 * default values visited, LATTICE_POINTS per system. */
static void sv_lattice(solver *S, const fmpz *defv)
{
    sy_ctx *ctx = S->R->ctx;
    evec eqs = {0};
    bool oom = false;
    for (size_t i = 0; i < S->A->n && !oom; i++) eq_atoms(ctx, S->A->v[i], &eqs, &oom);
    size_t nmand = eqs.n, ns = S->L->n;
    slong offs[LATTICE_EQS + 1] = {0};
    const sy_expr **lo = sy_alloc(ctx, (ns ? ns : 1) * 2 * sizeof *lo), **hi = lo ? lo + ns : NULL;
    if (!lo) oom = true;
    for (size_t i = 0; lo && i < ns; i++) {
        lo[i] = hi[i] = NULL;
        sv_get_range(S, S->L->v[i], &lo[i], &hi[i]);
    }
    if (!oom && nmand && sy_lattice_points(ctx, eqs.v, offs, nmand, S->L->v, defv, lo, hi, ns, LATTICE_POINTS,
                                           sv_lattice_point, S) != SY_OK)
        oom = true;
    for (size_t i = 0; i < S->tg.n && !S->stop && !oom; i++) {
        if (eqs.n == nmand && !evec_push(ctx, &eqs, S->tg.v[i])) {
            oom = true;
            break;
        }
        eqs.v[nmand] = S->tg.v[i];
        for (slong k = 0; k < 2 && !S->stop && !oom; k++) {
            offs[nmand] = k;
            if (sy_lattice_points(ctx, eqs.v, offs, nmand + 1, S->L->v, defv, lo, hi, ns, LATTICE_POINTS,
                                  sv_lattice_point, S) != SY_OK)
                oom = true;
        }
    }
    if (oom) S->oom = true;
    if (lo) sy_dealloc(ctx, lo, (ns ? ns : 1) * 2 * sizeof *lo);
    evec_free(ctx, &eqs);
    sy_ctx_reset_error(ctx);
}

static long solve_sample(runner *R, const symlist *L, const evec *A, const evec *targets, point_fn fn, void *ud)
{
    if (!L->n || !targets || !targets->n) return 0;
    sy_ctx *ctx = R->ctx;
    solver S;
    memset(&S, 0, sizeof S);
    S.R = R, S.L = L, S.A = A, S.fn = fn, S.ud = ud, S.work = SOLVE_WORK, S.bits = 48;
    if (!sy_binding_init(ctx, &S.b)) {
        sy_ctx_reset_error(ctx);
        return -2;
    }
    size_t rcap = S.b.n ? S.b.n : 1; /* every symbol of the context (sy_binding_init) */
    S.rlo = sy_alloc(ctx, rcap * 2 * sizeof *S.rlo);
    S.rhave = sy_alloc(ctx, rcap);
    if (S.rlo && S.rhave) {
        S.nr = S.b.n, S.rhi = S.rlo + rcap;
        memset(S.rhave, 0, rcap);
    } /* else no cache: sy_facts_get_range each time */
    sy_ctx_reset_error(ctx);
    S.f = sy_facts_new(ctx);
    for (size_t i = 0; S.f && i < A->n; i++)
        if (sy_facts_add(S.f, A->v[i]) != SY_OK) {
            sy_facts_free(S.f);
            S.f = NULL;
        }
    sy_ctx_reset_error(ctx);
    S.cv = sy_alloc(ctx, SOLVE_CANDS * sizeof *S.cv);
    S.kc = sy_alloc(ctx, SOLVE_CONSTS * sizeof *S.kc);
    fmpz *defv = sy_alloc(ctx, L->n * sizeof *defv);
    if (!S.cv || !S.kc || !defv) {
        if (S.cv) sy_dealloc(ctx, S.cv, SOLVE_CANDS * sizeof *S.cv);
        if (S.kc) sy_dealloc(ctx, S.kc, SOLVE_CONSTS * sizeof *S.kc);
        if (defv) sy_dealloc(ctx, defv, L->n * sizeof *defv);
        sy_facts_free(S.f);
        sy_binding_clear(ctx, &S.b);
        if (S.rlo) sy_dealloc(ctx, S.rlo, rcap * 2 * sizeof *S.rlo);
        if (S.rhave) sy_dealloc(ctx, S.rhave, rcap);
        sy_ctx_reset_error(ctx);
        return -2;
    }
    for (size_t i = 0; i < SOLVE_CANDS; i++) fmpz_init(S.cv + i);
    for (size_t i = 0; i < SOLVE_CONSTS; i++) fmpz_init(S.kc + i);
    for (size_t i = 0; i < L->n; i++) fmpz_init(defv + i);
    /* the targets' atoms and constants (every node once), then the Mod / FloorDiv targets */
    for (size_t i = 0; i < targets->n && !S.oom; i++) {
        const sy_expr *t = targets->v[i];
        if (!sy_expr_is_bool(t) && S.tg.n < SOLVE_TARGETS && !evec_push(ctx, &S.tg, t)) S.oom = true;
        if (sy_expr_walk_postorder(ctx, t, sv_skip, sv_node, &S) == SY_ENOMEM) S.oom = true;
    }
    S.no_atoms = true;
    for (size_t i = 0; i < A->n && !S.oom; i++) /* counted only */
        if (sy_expr_walk_postorder(ctx, A->v[i], sv_skip, sv_node, &S) == SY_ENOMEM) S.oom = true;
    sy_etab_clear(ctx, &S.seen, 0);
    for (size_t i = 0; i < targets->n && !S.oom && S.tg.n < SOLVE_TARGETS; i++)
        if (sy_expr_walk_postorder(ctx, targets->v[i], sv_skip2, sv_divmod, &S) == SY_ENOMEM) S.oom = true;
    sy_etab_clear(ctx, &S.seen, 0);
    if (!S.oom) sv_divisors(&S);
    sy_ctx_reset_error(ctx);
    S.cost = S.nodes ? S.nodes : 1;
    if (!S.oom) {
        for (size_t i = 0; i < L->n; i++) {
            sv_default(&S, L->v[i], defv + i);
            sy_binding_set(&S.b, sy_expr_sym_id(L->v[i]), defv + i);
        }
        sv_lattice(&S, defv); /* first: exact and bounded, the bisections can use up the work */
        for (size_t i = 0; i < L->n; i++) sy_binding_set(&S.b, sy_expr_sym_id(L->v[i]), defv + i);
        for (size_t i = 0; i < S.tg.n && !S.stop; i++) sv_target(&S, S.tg.v[i], defv);
    }
    for (size_t i = 0; i < L->n; i++) fmpz_clear(defv + i);
    sy_dealloc(ctx, defv, L->n * sizeof *defv);
    for (size_t i = 0; i < SOLVE_CANDS; i++) fmpz_clear(S.cv + i);
    for (size_t i = 0; i < SOLVE_CONSTS; i++) fmpz_clear(S.kc + i);
    sy_dealloc(ctx, S.cv, SOLVE_CANDS * sizeof *S.cv);
    sy_dealloc(ctx, S.kc, SOLVE_CONSTS * sizeof *S.kc);
    evec_free(ctx, &S.tg);
    sy_facts_free(S.f);
    sy_binding_clear(ctx, &S.b);
    if (S.rlo) sy_dealloc(ctx, S.rlo, rcap * 2 * sizeof *S.rlo);
    if (S.rhave) sy_dealloc(ctx, S.rhave, rcap);
    sy_ctx_reset_error(ctx);
    return S.oom ? -2 : S.stop == 1 ? -1 : S.found;
}

/* a solver target (solve_sample): e - (c + k), skipped when it cannot be built */
static void tg_push(runner *R, evec *tg, const sy_expr *e, const sy_expr *c, long k)
{
    const sy_expr *t = !e ? NULL : !c ? e : sy_expr_sub(R->ctx, e, sy_expr_add(R->ctx, c, sy_expr_int_si(R->ctx, k)));
    if (!t || !evec_push(R->ctx, tg, t)) sy_ctx_reset_error(R->ctx);
}

/* Sample points satisfying A: the vertices of the assumptions' ranges, the candidates of the
 * constants of e1 and e2 (either NULL; not counted towards want), the solver's points of the
 * targets tg (NULL: none; not counted either), an exhaustive small grid, then random points. */
static long sample(runner *R, const symlist *L, const evec *A, const sy_expr *e1, const sy_expr *e2, const evec *tg,
                   unsigned want, point_fn fn, void *ud)
{
    const sy_expr *const *as = A->v;
    size_t nas = A->n;
    sy_binding b;
    if (!sy_binding_init(R->ctx, &b)) return -2;
    fmpz_t v, t;
    fmpz_init(v);
    fmpz_init(t);
    /* the vertices of the assumptions' ranges first, then an exhaustive small grid */
    long found = vertex_sample_assumed(R, L, A, (long)want, fn, ud);
    if (found >= 0) {
        long kc = const_sample(R, L, A, e1, e2, fn, ud);
        if (kc < 0) found = kc;
    }
    if (found >= 0) {
        long ks = solve_sample(R, L, A, tg, fn, ud);
        if (ks < 0) found = ks;
    }
    if (found < 0) {
        fmpz_clear(v);
        fmpz_clear(t);
        sy_binding_clear(R->ctx, &b);
        return found == -1 ? -1 : -2;
    }
    int radius = 0;
    {
        size_t total = 1;
        for (int r = 1; r <= 12; r++) {
            total = 1;
            for (size_t i = 0; i < L->n && total <= 30000; i++) total *= (size_t)(2 * r + 1);
            if (total > 30000) break;
            radius = r;
        }
    }
    size_t grid = 1;
    for (size_t i = 0; i < L->n; i++) grid *= (size_t)(2 * radius + 1);
    if (radius == 0) grid = 0;
    size_t attempts = grid + 40000;
    for (size_t it = 0; it < attempts && found < (long)want; it++) {
        if (it < grid) {
            size_t idx = it;
            for (size_t i = 0; i < L->n; i++) {
                fmpz_set_si(v, (int64_t)(idx % (size_t)(2 * radius + 1)) - radius);
                idx /= (size_t)(2 * radius + 1);
                sy_binding_set(&b, sy_expr_sym_id(L->v[i]), v);
            }
        } else {
            for (size_t i = 0; i < L->n; i++) {
                random_value(R, v);
                sy_binding_set(&b, sy_expr_sym_id(L->v[i]), v);
            }
        }
        bool ok = true;
        for (size_t i = 0; i < nas && ok; i++) {
            sy_ctx_reset_error(R->ctx);
            ok = sy_eval_raw(R->ctx, as[i], &b, t) == SY_OK && !fmpz_is_zero(t);
        }
        if (!ok) continue;
        found++;
        int rc = fn(R, &b, ud);
        if (rc < 0) {
            found = -1;
            break;
        }
    }
    sy_ctx_reset_error(R->ctx);
    fmpz_clear(v);
    fmpz_clear(t);
    sy_binding_clear(R->ctx, &b);
    return found;
}

static void describe_point(runner *R, const symlist *L, sy_binding *b, sy_buf *out)
{
    if (!L->n) sy_buf_puts(out, "(no symbols)");
    for (size_t i = 0; i < L->n; i++) {
        char *s = fmpz_get_str(NULL, 10, &b->vz[sy_expr_sym_id(L->v[i])]);
        sy_buf_printf(out, "%s%s=%s", i ? ", " : "", sy_expr_sym_name(L->v[i]), s);
        flint_free(s);
    }
    (void)R;
}

/* ---------------------------------------------------------------- simplify */

typedef struct {
    const sy_expr *a, *b;
    const symlist *L;
    char *bad; /* description of the first disagreement */
    long compared;
    const char *la, *lb; /* what a and b are, in messages */
} cmp_ud;

static int cmp_point(runner *R, sy_binding *b, void *vud)
{
    cmp_ud *u = vud;
    fmpz_t x, y;
    fmpz_init(x);
    fmpz_init(y);
    sy_status s1 = sy_eval_raw(R->ctx, u->a, b, x);
    sy_status s2 = sy_eval_raw(R->ctx, u->b, b, y);
    sy_ctx_reset_error(R->ctx);
    int rc = 0;
    if (s1 == SY_OK && s2 == SY_OK) {
        u->compared++;
        if (!fmpz_equal(x, y)) {
            sy_buf o;
            sy_buf_init(&o, R->ctx);
            describe_point(R, u->L, b, &o);
            char *xs = fmpz_get_str(NULL, 10, x), *ys = fmpz_get_str(NULL, 10, y);
            sy_buf_printf(&o, ": %s %s, %s %s", u->la, xs, u->lb, ys);
            flint_free(xs);
            flint_free(ys);
            u->bad = sy_buf_finish(&o);
            rc = -1;
        }
    }
    fmpz_clear(x);
    fmpz_clear(y);
    return rc;
}

/* A result that passes only outside --strict (other form, precision miss):
 * counted as passed, or as a FAIL line under strict. */
static bool soft_pass(runner *R, int kind, const char *what, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (R->o->strict) {
        report(R, "FAIL", "%s (a failure with --strict): %s", what, msg);
        R->r->failed++;
        R->r->by_kind[kind][1]++;
        return false;
    }
    if (R->o->verbose) report(R, what, "%s", msg);
    R->r->passed++;
    R->r->by_kind[kind][0]++;
    return true;
}

static void run_simplify(runner *R, char *lhs, char *assume, char *rhs)
{
    evec A = {NULL, 0, 0};
    symlist L = {NULL, 0, 0};
    sy_facts *f = NULL;
    char *a = NULL, *b = NULL;
    if (assume && !parse_assumptions(R, assume, &A)) goto fail;
    const sy_expr *e = parse(R, lhs, "expression");
    const sy_expr *x = e ? parse(R, rhs, "expected expression") : NULL;
    if (!x) goto fail;
    const sy_expr *se = e, *sx = x;
    if (A.n) {
        f = sy_facts_new(R->ctx);
        for (size_t i = 0; f && i < A.n; i++)
            if (sy_facts_add(f, A.v[i]) != SY_OK) {
                report(R, "FAIL", "cannot add assumption: %s", sy_ctx_last_error_msg(R->ctx));
                goto fail;
            }
        se = f ? sy_simplify(f, e) : NULL;
        if (!se) {
            sy_case c = {.kind = SY_CASE_SIMPLIFY, .text = lhs, .expr = e, .nassume = A.n, .assume = A.v,
                         .status = f ? sy_ctx_last_error(R->ctx) : SY_ENOMEM};
            notify(R, &c);
        }
        sx = f && se ? sy_simplify(f, x) : NULL;
        if (!se || !sx) {
            report(R, "FAIL", "simplify failed: %s", sy_ctx_last_error_msg(R->ctx));
            goto fail;
        }
    }
    sy_case sc = {.kind = SY_CASE_SIMPLIFY, .text = lhs, .expr = e, .nassume = A.n, .assume = A.v, .simplified = se};
    notify(R, &sc);
    if (se == sx) {
        R->r->passed++;
        R->r->by_kind[K_SIMPLIFY][0]++;
        goto done;
    }
    if (!case_syms(R, &L, e, x, &A)) goto fail;
    unsigned want = R->o->samples ? R->o->samples : 400;
    /* the expectation first: the expected form against the expression itself */
    cmp_ud u = {x, e, &L, NULL, 0, "the expected form is", "the expression"};
    evec tg = {NULL, 0, 0};
    tg_push(R, &tg, e, x, 0);
    long n = sample(R, &L, &A, e, x, &tg, want, cmp_point, &u);
    evec_free(R->ctx, &tg);
    if (n == -1) {
        report(R, "FAIL", "simplify %s: the expected answer is wrong: counterexample %s", lhs, u.bad ? u.bad : "?");
        sy_str_free(R->ctx, u.bad);
        goto fail;
    }
    /* then the engine's result against the expression */
    cmp_ud v = {se, e, &L, NULL, 0, "the result is", "the expression"};
    tg_push(R, &tg, e, se, 0);
    n = sample(R, &L, &A, e, se, &tg, want, cmp_point, &v);
    evec_free(R->ctx, &tg);
    if (n == -1) {
        char *ps = show(R, se);
        report(R, "FAIL", "simplify %s: result %s disagrees at %s (WRONG)", lhs, ps ? ps : "?", v.bad ? v.bad : "?");
        sy_str_free(R->ctx, ps);
        sy_str_free(R->ctx, v.bad);
        goto fail;
    }
    if (u.compared == 0) {
        report(R, "FAIL", "simplify %s: no sampled point satisfies the assumptions; cannot compare forms", lhs);
        goto fail;
    }
    R->r->other_form++;
    a = show(R, se);
    b = show(R, sx);
    soft_pass(R, K_SIMPLIFY, "other form", "%s  vs expected  %s (%ld points agree)", a ? a : "?", b ? b : "?",
              u.compared);
    goto done;
fail:
    R->r->failed++;
    R->r->by_kind[K_SIMPLIFY][1]++;
done:
    sy_str_free(R->ctx, a);
    sy_str_free(R->ctx, b);
    sy_facts_free(f);
    evec_free(R->ctx, &A);
    evec_free(R->ctx, &L);
}

/* ---------------------------------------------------------------- eval */

static void run_eval(runner *R, char *lhs, char *rhs)
{
    char *at = strchr(lhs, '@');
    evec syms = {NULL, 0, 0}, vals = {NULL, 0, 0};
    if (at) {
        *at = '\0';
        char *save = NULL;
        for (char *tok = strtok_r(at + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(tok, '=');
            if (!eq) {
                report(R, "FAIL", "bad binding '%s' (expected NAME=VALUE)", trim(tok));
                goto fail;
            }
            *eq = '\0';
            const sy_expr *sym = sy_expr_sym(R->ctx, trim(tok));
            const sy_expr *val = sym ? parse(R, trim(eq + 1), "value") : NULL;
            if (!sym || !val || !sy_expr_is_int(val) || val->kind != SY_EXPR_INT) {
                report(R, "FAIL", "bad binding '%s=%s' (expected NAME=INTEGER)", trim(tok), trim(eq + 1));
                goto fail;
            }
            for (size_t j = 0; j < syms.n; j++)
                if (syms.v[j] == sym) {
                    report(R, "FAIL", "eval: '%s' is bound twice", sy_expr_sym_name(sym));
                    goto fail;
                }
            if (!evec_push(R->ctx, &syms, sym) || !evec_push(R->ctx, &vals, val)) {
                report(R, "FAIL", "out of memory");
                goto fail;
            }
        }
    }
    const sy_expr *e = parse(R, trim(lhs), "expression");
    if (e) {
        sy_case c = {.kind = SY_CASE_EVAL, .text = trim(lhs), .expr = e};
        notify(R, &c);
    }
    const sy_expr *x = e ? parse(R, rhs, "expected value") : NULL;
    if (!x) goto fail;
    const sy_expr *v;
    sy_ctx_reset_error(R->ctx);
    if (sy_expr_eval(R->ctx, e, syms.n, syms.v, vals.v, &v) != SY_OK) {
        report(R, "FAIL", "eval %s: %s", trim(lhs), sy_ctx_last_error_msg(R->ctx));
        goto fail;
    }
    if (v != x) {
        char *a = show(R, v);
        report(R, "FAIL", "eval %s: got %s, expected %s", trim(lhs), a ? a : "?", rhs);
        sy_str_free(R->ctx, a);
        goto fail;
    }
    R->r->passed++;
    R->r->by_kind[K_EVAL][0]++;
    evec_free(R->ctx, &syms);
    evec_free(R->ctx, &vals);
    return;
fail:
    evec_free(R->ctx, &syms);
    evec_free(R->ctx, &vals);
    R->r->failed++;
    R->r->by_kind[K_EVAL][1]++;
}

/* ---------------------------------------------------------------- decide / bound */

/* Sampling a relation: the first point where it holds and the first where it fails. */
typedef struct {
    const sy_expr *rel;
    const symlist *L;
    char *at_true, *at_false;
    long evaluated;
} dec_ud;

static int dec_point(runner *R, sy_binding *b, void *vud)
{
    dec_ud *u = vud;
    fmpz_t t;
    fmpz_init(t);
    sy_status st = sy_eval_raw(R->ctx, u->rel, b, t);
    sy_ctx_reset_error(R->ctx);
    if (st == SY_OK) {
        u->evaluated++;
        char **slot = fmpz_is_zero(t) ? &u->at_false : &u->at_true;
        if (!*slot) {
            sy_buf o;
            sy_buf_init(&o, R->ctx);
            describe_point(R, u->L, b, &o);
            *slot = sy_buf_finish(&o);
        }
    }
    fmpz_clear(t);
    return u->at_true && u->at_false ? -1 : 0;
}

static void run_decide(runner *R, char *lhs, char *assume, char *rhs)
{
    static const char *names[] = {"false", "true", "unknown"};
    evec A = {NULL, 0, 0};
    symlist L = {NULL, 0, 0};
    sy_facts *f = NULL;
    dec_ud u = {NULL, NULL, NULL, NULL, 0};
    if (assume && !parse_assumptions(R, assume, &A)) goto fail;
    const sy_expr *e = parse(R, lhs, "relation");
    if (!e) goto fail;
    if (!sy_expr_is_bool(e)) {
        report(R, "FAIL", "decide: '%s' is not a relation", lhs);
        goto fail;
    }
    sy_truth want;
    if (!strcmp(rhs, "true")) want = SY_TRUTH_TRUE;
    else if (!strcmp(rhs, "false")) want = SY_TRUTH_FALSE;
    else if (!strcmp(rhs, "unknown")) want = SY_TRUTH_UNKNOWN;
    else {
        report(R, "FAIL", "decide: expected answer '%s' is not true/false/unknown", rhs);
        goto fail;
    }
    f = sy_facts_new(R->ctx);
    if (!f) goto fail;
    for (size_t i = 0; i < A.n; i++)
        if (sy_facts_add(f, A.v[i]) != SY_OK) {
            report(R, "FAIL", "cannot add assumption: %s", sy_ctx_last_error_msg(R->ctx));
            goto fail;
        }
    sy_truth got = SY_TRUTH_UNKNOWN;
    sy_status dst = sy_decide(f, e, &got);
    sy_case dc = {.kind = SY_CASE_DECIDE, .text = lhs, .expr = e, .nassume = A.n, .assume = A.v, .status = dst, .truth = got};
    notify(R, &dc);
    if (dst != SY_OK) {
        report(R, "FAIL", "decide %s: %s", lhs, sy_ctx_last_error_msg(R->ctx));
        goto fail;
    }
    /* sample the relation over the points satisfying the assumptions */
    if (!case_syms(R, &L, e, NULL, &A)) goto fail;
    u.rel = e;
    u.L = &L;
    evec tg = {NULL, 0, 0};
    tg_push(R, &tg, e, NULL, 0); /* its atoms: where the relation changes */
    sample(R, &L, &A, e, NULL, &tg, R->o->samples ? R->o->samples : 400, dec_point, &u);
    evec_free(R->ctx, &tg);
    /* the engine's answer, refuted by a sampled point */
    const char *engine_cex = got == SY_TRUTH_TRUE ? u.at_false : got == SY_TRUTH_FALSE ? u.at_true : NULL;
    /* the expectation, refuted by a sampled point ("unknown" claims nothing a point can refute) */
    const char *want_cex = want == SY_TRUTH_TRUE ? u.at_false : want == SY_TRUTH_FALSE ? u.at_true : NULL;
    if (want_cex) {
        report(R, "FAIL", "decide %s: the expected answer is wrong: counterexample %s (the relation is %s there)%s", lhs,
               want_cex, want == SY_TRUTH_TRUE ? "false" : "true",
               got == want ? "; the engine gives the same answer (WRONG)" : "");
        goto fail;
    }
    if (engine_cex) {
        report(R, "FAIL", "decide %s: answered %s, but the relation is %s at %s (WRONG)", lhs, names[got],
               got == SY_TRUTH_TRUE ? "false" : "true", engine_cex);
        goto fail;
    }
    if (got == want) {
        R->r->passed++;
        R->r->by_kind[K_DECIDE][0]++;
    } else if (got == SY_TRUTH_UNKNOWN) {
        R->r->precision_miss++;
        soft_pass(R, K_DECIDE, "precision miss", "decide %s: unknown, expected %s (%ld sampled points agree with it)",
                  lhs, rhs, u.evaluated);
    } else if (u.evaluated == 0) {
        report(R, "FAIL", "decide %s: answered %s, expected %s; no sampled point satisfies the assumptions", lhs,
               names[got], rhs);
        goto fail;
    } else {
        /* the engine proved an answer no sampled point refutes; the expectation
         * (unknown, or the opposite answer that a point would refute) is wrong
         * unless the engine is and every counterexample is rare */
        report(R, "FAIL", "decide %s: the expected answer is wrong: the engine proves %s, expected %s, and no sampled "
               "point (%ld) refutes %s", lhs, names[got], rhs, u.evaluated, names[got]);
        goto fail;
    }
    goto done;
fail:
    R->r->failed++;
    R->r->by_kind[K_DECIDE][1]++;
done:
    sy_str_free(R->ctx, u.at_true);
    sy_str_free(R->ctx, u.at_false);
    sy_facts_free(f);
    evec_free(R->ctx, &A);
    evec_free(R->ctx, &L);
}

/* parse "[lo, hi]" with -oo / oo */
static bool parse_bound(runner *R, char *s, const sy_expr **lo, const sy_expr **hi)
{
    s = trim(s);
    size_t n = strlen(s);
    if (n < 2 || s[0] != '[' || s[n - 1] != ']') return false;
    s[n - 1] = '\0';
    char *comma = strchr(s + 1, ',');
    if (!comma) return false;
    *comma = '\0';
    char *a = trim(s + 1), *b = trim(comma + 1);
    *lo = !strcmp(a, "-oo") ? NULL : parse(R, a, "bound");
    *hi = !strcmp(b, "oo") ? NULL : parse(R, b, "bound");
    if ((strcmp(a, "-oo") && !*lo) || (strcmp(b, "oo") && !*hi)) return false;
    /* integer endpoints, and not an empty range */
    if ((*lo && (*lo)->kind != SY_EXPR_INT) || (*hi && (*hi)->kind != SY_EXPR_INT)) return false;
    if (*lo && *hi && fmpz_cmp(&(*lo)->u.value, &(*hi)->u.value) > 0) return false;
    return true;
}

/* Sampling an integer expression: its least and greatest sampled values and where. */
typedef struct {
    const sy_expr *e;
    const symlist *L;
    fmpz_t min, max;
    char *at_min, *at_max;
    long evaluated;
} bnd_ud;

static char *point_str(runner *R, const symlist *L, sy_binding *b)
{
    sy_buf o;
    sy_buf_init(&o, R->ctx);
    describe_point(R, L, b, &o);
    return sy_buf_finish(&o);
}

static int bnd_point(runner *R, sy_binding *b, void *vud)
{
    bnd_ud *u = vud;
    fmpz_t t;
    fmpz_init(t);
    sy_status st = sy_eval_raw(R->ctx, u->e, b, t);
    sy_ctx_reset_error(R->ctx);
    if (st == SY_OK) {
        if (!u->evaluated || fmpz_cmp(t, u->min) < 0) {
            fmpz_set(u->min, t);
            sy_str_free(R->ctx, u->at_min);
            u->at_min = point_str(R, u->L, b);
        }
        if (!u->evaluated || fmpz_cmp(t, u->max) > 0) {
            fmpz_set(u->max, t);
            sy_str_free(R->ctx, u->at_max);
            u->at_max = point_str(R, u->L, b);
        }
        u->evaluated++;
    }
    fmpz_clear(t);
    return 0;
}

/* A value of u->e satisfying the assumptions A and the relation past (e > hi or e < lo), looked
 * for with the decision procedure: the facts A + past; when they are contradictory there is
 * none (0); else the vertices of the symbols' ranges under them are evaluated (bnd_point
 * updates u->min/max and where): 1 when one satisfies A and past, else 0. -1: out of memory. */
static int witness(runner *R, const symlist *L, const evec *A, sy_facts *f, const sy_expr *past, bnd_ud *u)
{
    sy_facts *g = sy_facts_copy(f);
    if (!g) return -1;
    int r = 0;
    if (sy_facts_add(g, past) == SY_OK && sy_facts_consistent(g) != SY_FALSE) {
        bnd_ud w;
        memset(&w, 0, sizeof w);
        fmpz_init(w.min);
        fmpz_init(w.max);
        w.e = u->e;
        w.L = L;
        long n = vertex_sample(R, L, A, g, past, VERTEX_MAX, bnd_point, &w);
        if (n > 0 && w.evaluated) {
            r = 1;
            /* the witness's value and point become the sample's extreme on that side */
            if (!u->evaluated || fmpz_cmp(w.min, u->min) < 0) {
                fmpz_set(u->min, w.min);
                sy_str_free(R->ctx, u->at_min);
                u->at_min = w.at_min;
                w.at_min = NULL;
            }
            if (!u->evaluated || fmpz_cmp(w.max, u->max) > 0) {
                fmpz_set(u->max, w.max);
                sy_str_free(R->ctx, u->at_max);
                u->at_max = w.at_max;
                w.at_max = NULL;
            }
            u->evaluated += w.evaluated;
        } else if (n < -1) {
            r = -1;
        }
        sy_str_free(R->ctx, w.at_min);
        sy_str_free(R->ctx, w.at_max);
        fmpz_clear(w.min);
        fmpz_clear(w.max);
    }
    sy_facts_free(g);
    sy_ctx_reset_error(R->ctx);
    return r;
}

/* v is below lo (lo NULL: -oo) / above hi (hi NULL: oo) */
static bool below(const fmpz_t v, const sy_expr *lo) { return lo && fmpz_cmp(v, &lo->u.value) < 0; }
static bool above(const fmpz_t v, const sy_expr *hi) { return hi && fmpz_cmp(v, &hi->u.value) > 0; }

static void run_bound(runner *R, char *lhs, char *assume, char *rhs)
{
    evec A = {NULL, 0, 0};
    symlist L = {NULL, 0, 0};
    sy_facts *f = NULL;
    char *rhs_copy = NULL, *gl = NULL, *gh = NULL, *smin = NULL, *smax = NULL;
    bnd_ud u;
    memset(&u, 0, sizeof u);
    fmpz_init(u.min);
    fmpz_init(u.max);
    if (assume && !parse_assumptions(R, assume, &A)) goto fail;
    const sy_expr *e = parse(R, lhs, "expression");
    if (!e) goto fail;
    const sy_expr *wlo, *whi;
    size_t rl = strlen(rhs);
    rhs_copy = sy_alloc(R->ctx, rl + 1);
    if (!rhs_copy) goto fail;
    memcpy(rhs_copy, rhs, rl + 1);
    if (!parse_bound(R, rhs, &wlo, &whi)) {
        report(R, "FAIL", "bound: cannot read expected range '%s' (want [LO, HI] with integers LO <= HI, -oo, oo)", rhs_copy);
        goto fail;
    }
    f = sy_facts_new(R->ctx);
    if (!f) goto fail;
    for (size_t i = 0; i < A.n; i++)
        if (sy_facts_add(f, A.v[i]) != SY_OK) {
            report(R, "FAIL", "cannot add assumption: %s", sy_ctx_last_error_msg(R->ctx));
            goto fail;
        }
    const sy_expr *glo = NULL, *ghi = NULL;
    sy_status st = sy_bound(f, e, &glo, &ghi);
    if (st != SY_OK && st != SY_EDIVZERO) {
        sy_case ec = {.kind = SY_CASE_BOUND, .text = lhs, .expr = e, .nassume = A.n, .assume = A.v, .status = st};
        notify(R, &ec);
        report(R, "FAIL", "bound %s: %s", lhs, sy_ctx_last_error_msg(R->ctx));
        goto fail;
    }
    if (st == SY_EDIVZERO) glo = ghi = NULL; /* unknown: the widest (sound) answer */
    sy_case bc = {.kind = SY_CASE_BOUND, .text = lhs, .expr = e, .nassume = A.n, .assume = A.v, .lo = glo, .hi = ghi,
                  .status = st == SY_EDIVZERO ? SY_OK : st};
    notify(R, &bc);
    if ((glo && glo->kind != SY_EXPR_INT) || (ghi && ghi->kind != SY_EXPR_INT)) {
        report(R, "FAIL", "bound %s: the engine's range has a non-constant endpoint", lhs);
        goto fail;
    }
    gl = glo ? sy_expr_print(R->ctx, glo, SY_PRINT_CANONICAL) : NULL;
    gh = ghi ? sy_expr_print(R->ctx, ghi, SY_PRINT_CANONICAL) : NULL;
    const char *GL = gl ? gl : "-oo", *GH = gh ? gh : "oo";
    /* sample the expression over the points satisfying the assumptions */
    if (!case_syms(R, &L, e, NULL, &A)) goto fail;
    u.e = e;
    u.L = &L;
    evec tg = {NULL, 0, 0}; /* where e passes either range: one past each end */
    if (whi) tg_push(R, &tg, e, whi, 1);
    if (wlo) tg_push(R, &tg, e, wlo, -1);
    if (ghi) tg_push(R, &tg, e, ghi, 1);
    if (glo) tg_push(R, &tg, e, glo, -1);
    sample(R, &L, &A, e, NULL, &tg, R->o->samples ? R->o->samples : 400, bnd_point, &u);
    evec_free(R->ctx, &tg);
    if (u.evaluated) {
        smin = fmpz_get_str(NULL, 10, u.min);
        smax = fmpz_get_str(NULL, 10, u.max);
    }
    /* the expectation, refuted by a sampled value outside it */
    if (u.evaluated && (below(u.min, wlo) || above(u.max, whi))) {
        bool lo_bad = below(u.min, wlo);
        report(R, "FAIL", "bound %s: the expected answer is wrong: counterexample %s: the value %s is outside %s", lhs,
               lo_bad ? u.at_min : u.at_max, lo_bad ? smin : smax, rhs_copy);
        goto fail;
    }
    /* the engine's range, refuted by a sampled value outside it */
    if (u.evaluated && (below(u.min, glo) || above(u.max, ghi))) {
        bool lo_bad = below(u.min, glo);
        report(R, "FAIL", "bound %s: got [%s, %s], but the value is %s at %s (WRONG: excludes attained values)", lhs,
               GL, GH, lo_bad ? smin : smax, lo_bad ? u.at_min : u.at_max);
        goto fail;
    }
    if (glo == wlo && ghi == whi) {
        R->r->passed++;
        R->r->by_kind[K_BOUND][0]++;
        goto done;
    }
    /* the engine's range contains the expected one: sound, weaker */
    bool lo_weaker = !glo || (wlo && fmpz_cmp(&glo->u.value, &wlo->u.value) <= 0);
    bool hi_weaker = !ghi || (whi && fmpz_cmp(&ghi->u.value, &whi->u.value) >= 0);
    if (lo_weaker && hi_weaker) {
        /* before calling it a precision miss: is a value past the expected range possible? The
         * decision procedure under the assumptions plus e > hi (e < lo): contradictory, none;
         * else the vertices of the symbols' ranges under those facts are tried as witnesses */
        for (int side = 0; side < 2; side++) {
            const sy_expr *w = side ? wlo : whi, *g = side ? glo : ghi;
            if (!w || g == w) continue;
            const sy_expr *past = side ? sy_expr_lt(R->ctx, e, w) : sy_expr_gt(R->ctx, e, w);
            int hit = past ? witness(R, &L, &A, f, past, &u) : 0;
            if (hit > 0) {
                bool lo_bad = side == 1;
                char *sv = fmpz_get_str(NULL, 10, lo_bad ? u.min : u.max);
                report(R, "FAIL", "bound %s: the expected answer is wrong: counterexample %s: the value %s is outside %s "
                       "(a witness of the decision procedure)", lhs, lo_bad ? u.at_min : u.at_max, sv, rhs_copy);
                flint_free(sv);
                goto fail;
            }
            sy_ctx_reset_error(R->ctx);
        }
        R->r->precision_miss++;
        soft_pass(R, K_BOUND, "precision miss", "bound %s: got [%s, %s], expected %s (sampled values in [%s, %s])", lhs,
                  GL, GH, rhs_copy, smin ? smin : "-", smax ? smax : "-");
        goto done;
    }
    /* the engine proves a range that excludes part of the expected one, and no
     * sampled value contradicts it: the expected range is not exact */
    if (u.evaluated)
        report(R, "FAIL", "bound %s: the expected answer is wrong: %s is not the exact range: the engine proves [%s, %s] "
               "and the %ld sampled values lie in [%s, %s]", lhs, rhs_copy, GL, GH, u.evaluated, smin, smax);
    else
        report(R, "FAIL", "bound %s: got [%s, %s], expected %s; no sampled point satisfies the assumptions", lhs, GL,
               GH, rhs_copy);
fail:
    R->r->failed++;
    R->r->by_kind[K_BOUND][1]++;
done:
    if (smin) flint_free(smin);
    if (smax) flint_free(smax);
    sy_str_free(R->ctx, gl);
    sy_str_free(R->ctx, gh);
    sy_str_free(R->ctx, u.at_min);
    sy_str_free(R->ctx, u.at_max);
    fmpz_clear(u.min);
    fmpz_clear(u.max);
    sy_facts_free(f);
    sy_str_free(R->ctx, rhs_copy);
    evec_free(R->ctx, &A);
    evec_free(R->ctx, &L);
}

/* ---------------------------------------------------------------- driver */

static void run_line_body(runner *R, char *line);

static void run_line(runner *R, char *line)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    line = trim(line);
    if (!*line) return;
    R->notified = false;
    R->lastmsg[0] = '\0';
    run_line_body(R, line);
    /* a line the runner could not read (or whose answer it did not reach) */
    sy_case c = {.kind = SY_CASE_EVAL, .text = line, .status = sy_ctx_last_error(R->ctx)};
    notify(R, &c);
    sy_ctx_reset_error(R->ctx);
}

static void run_line_body(runner *R, char *line)
{
    int kind;
    size_t kl;
    if (!strncmp(line, "simplify", 8)) { kind = K_SIMPLIFY; kl = 8; }
    else if (!strncmp(line, "decide", 6)) { kind = K_DECIDE; kl = 6; }
    else if (!strncmp(line, "bound", 5)) { kind = K_BOUND; kl = 5; }
    else if (!strncmp(line, "eval", 4)) { kind = K_EVAL; kl = 4; }
    else {
        report(R, "FAIL", "unknown case kind in '%s'", line);
        R->r->failed++;
        return;
    }
    if (line[kl] != ' ' && line[kl] != '\t') {
        report(R, "FAIL", "unknown case kind in '%s'", line);
        R->r->failed++;
        return;
    }
    char *body = line + kl;
    char *arrow = NULL;
    for (char *p = strstr(body, "=>"); p; p = strstr(p + 2, "=>")) arrow = p;
    if (!arrow) {
        report(R, "FAIL", "missing '=>' in '%s'", line);
        R->r->failed++;
        R->r->by_kind[kind][1]++;
        return;
    }
    *arrow = '\0';
    char *rhs = trim(arrow + 2);
    char *assume = NULL;
    if (kind != K_EVAL) {
        char *bar = strchr(body, '|');
        if (bar) {
            *bar = '\0';
            assume = bar + 1;
        }
    }
    char *lhs = trim(body);
    switch (kind) {
    case K_SIMPLIFY: run_simplify(R, lhs, assume, rhs); break;
    case K_DECIDE: run_decide(R, lhs, assume, rhs); break;
    case K_BOUND: run_bound(R, lhs, assume, rhs); break;
    default: run_eval(R, lhs, rhs); break;
    }
}

sy_status sy_cases_run_text(sy_ctx *ctx, const char *text, size_t len, const char *name,
                            const sy_cases_options *opts, sy_cases_result *res)
{
    if (!ctx || !text || !res) return SY_EINVAL;
    sy_cases_options defo = {NULL, 0, 0, 0, 0, NULL, NULL, NULL, NULL};
    runner R = {ctx, opts ? opts : &defo, res, name ? name : "<text>", 0, 0, false, ""};
    R.rng = R.o->seed ? R.o->seed : 0x9e3779b97f4a7c15ull;
    size_t pos = 0;
    char *line = NULL;
    size_t linecap = 0;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        size_t n = end - pos;
        if (n + 1 > linecap) {
            char *nl = sy_realloc(ctx, line, linecap, n + 1);
            if (!nl) {
                if (line) sy_dealloc(ctx, line, linecap);
                return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            }
            line = nl;
            linecap = n + 1;
        }
        memcpy(line, text + pos, n);
        line[n] = '\0';
        R.line++;
        const char *nul = memchr(line, '\0', n);
        if (nul) { /* never a silent truncation */
            report(&R, "FAIL", "NUL byte at column %zu", (size_t)(nul - line) + 1);
            res->failed++;
            R.notified = false;
            sy_fail_st(ctx, SY_EFORMAT, "NUL byte at column %zu", (size_t)(nul - line) + 1);
            sy_case c = {.kind = SY_CASE_EVAL, .text = "", .status = SY_EFORMAT};
            notify(&R, &c);
            sy_ctx_reset_error(ctx);
        } else {
            run_line(&R, line);
        }
        pos = end + 1;
    }
    if (line) sy_dealloc(ctx, line, linecap);
    return SY_OK;
}

sy_status sy_cases_run_file(sy_ctx *ctx, const char *path, const sy_cases_options *opts, sy_cases_result *res)
{
    if (!ctx || !path || !res) return SY_EINVAL;
    char *data;
    size_t n, cap;
    sy_status rst = sy_read_file(ctx, path, &data, &n, &cap);
    if (rst) return rst;
    sy_status st = sy_cases_run_text(ctx, data, n, path, opts, res);
    if (data) sy_dealloc(ctx, data, cap);
    return st;
}
