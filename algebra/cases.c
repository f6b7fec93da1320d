/* Runner for .cases files (see include/symshape/cases.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/buf.h"
#include "algebra/eval_private.h"
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
} runner;

static uint64_t rnd(runner *R)
{
    uint64_t x = R->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return R->rng = x;
}

static void report(runner *R, const char *kind, const char *fmt, ...)
{
    if (!R->o->report) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(R->o->report, "%s:%zu: %s: ", R->name, R->line, kind);
    vfprintf(R->o->report, fmt, ap);
    fputc('\n', R->o->report);
    va_end(ap);
}

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
        report(R, "FAIL", "cannot parse %s '%s': %s", what, text, sy_ctx_last_error_msg(R->ctx));
        return NULL;
    }
    return e;
}

/* Parse "a; b; c" into a list of boolean expressions. */
static int parse_assumptions(runner *R, char *text, const sy_expr **out, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        tok = trim(tok);
        if (!*tok) continue;
        if (n == max) {
            report(R, "FAIL", "too many assumptions");
            return -1;
        }
        const sy_expr *e = parse(R, tok, "assumption");
        if (!e) return -1;
        if (!sy_expr_is_bool(e)) {
            report(R, "FAIL", "assumption '%s' is not a relation", tok);
            return -1;
        }
        out[n++] = e;
    }
    return n;
}

/* ---------------------------------------------------------------- sampling */

typedef struct {
    const sy_expr **syms;
    size_t n;
} symlist;

static bool add_syms(sy_ctx *ctx, symlist *L, const sy_expr *e)
{
    const sy_expr **v;
    size_t k;
    if (sy_expr_free_symbols(ctx, e, &v, &k) != SY_OK) return false;
    for (size_t i = 0; i < k; i++) {
        bool have = false;
        for (size_t j = 0; j < L->n; j++) have = have || L->syms[j] == v[i];
        if (!have && L->n < 64) L->syms[L->n++] = v[i];
    }
    sy_mem_free(ctx, v);
    return true;
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

static long sample(runner *R, const symlist *L, const sy_expr *const *as, int nas, unsigned want, point_fn fn,
                   void *ud)
{
    sy_binding b;
    if (!sy_binding_init(R->ctx, &b)) return -2;
    fmpz_t v, t;
    fmpz_init(v);
    fmpz_init(t);
    long found = 0;
    /* exhaustive small grid first */
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
                sy_binding_set(&b, sy_expr_sym_id(L->syms[i]), v);
            }
        } else {
            for (size_t i = 0; i < L->n; i++) {
                random_value(R, v);
                sy_binding_set(&b, sy_expr_sym_id(L->syms[i]), v);
            }
        }
        bool ok = true;
        for (int i = 0; i < nas && ok; i++) {
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
    for (size_t i = 0; i < L->n; i++) {
        char *s = fmpz_get_str(NULL, 10, &b->vz[sy_expr_sym_id(L->syms[i])]);
        sy_buf_printf(out, "%s%s=%s", i ? ", " : "", sy_expr_sym_name(L->syms[i]), s);
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
            sy_buf_printf(&o, ": got %s, expected %s", xs, ys);
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

static void run_simplify(runner *R, char *lhs, char *assume, char *rhs)
{
    const sy_expr *as[32];
    int nas = 0;
    if (assume && (nas = parse_assumptions(R, assume, as, 32)) < 0) goto fail;
    const sy_expr *e = parse(R, lhs, "expression");
    const sy_expr *x = e ? parse(R, rhs, "expected expression") : NULL;
    if (!x) goto fail;
    const sy_expr *se = e, *sx = x;
    sy_facts *f = NULL;
    if (nas) {
        f = sy_facts_new(R->ctx);
        for (int i = 0; f && i < nas; i++)
            if (sy_facts_add(f, as[i]) != SY_OK) {
                report(R, "FAIL", "cannot add assumption: %s", sy_ctx_last_error_msg(R->ctx));
                sy_facts_free(f);
                goto fail;
            }
        se = f ? sy_simplify(f, e) : NULL;
        sx = f ? sy_simplify(f, x) : NULL;
        sy_facts_free(f);
        if (!se || !sx) {
            report(R, "FAIL", "simplify failed: %s", sy_ctx_last_error_msg(R->ctx));
            goto fail;
        }
    }
    if (se == sx) {
        R->r->passed++;
        R->r->by_kind[K_SIMPLIFY][0]++;
        return;
    }
    symlist L = {NULL, 0};
    const sy_expr *symbuf[64];
    L.syms = symbuf;
    add_syms(R->ctx, &L, e);
    add_syms(R->ctx, &L, x);
    for (int i = 0; i < nas; i++) add_syms(R->ctx, &L, as[i]);
    cmp_ud u = {e, x, &L, NULL, 0};
    /* compare the simplified form against the original and the expected */
    u.a = se;
    u.b = x;
    long n = sample(R, &L, as, nas, R->o->samples ? R->o->samples : 400, cmp_point, &u);
    if (n == -1) {
        char *ps = sy_expr_print(R->ctx, se, SY_PRINT_CANONICAL);
        report(R, "FAIL", "simplify %s: result %s disagrees at %s", lhs, ps ? ps : "?", u.bad ? u.bad : "?");
        sy_str_free(R->ctx, ps);
        sy_str_free(R->ctx, u.bad);
        goto fail;
    }
    if (u.compared == 0) {
        report(R, "FAIL", "simplify %s: no sampled point satisfies the assumptions; cannot compare forms", lhs);
        goto fail;
    }
    R->r->passed++;
    R->r->other_form++;
    R->r->by_kind[K_SIMPLIFY][0]++;
    if (R->o->verbose) {
        char *a = sy_expr_print(R->ctx, se, SY_PRINT_CANONICAL), *b = sy_expr_print(R->ctx, sx, SY_PRINT_CANONICAL);
        report(R, "other form", "%s  vs expected  %s (%ld points agree)", a ? a : "?", b ? b : "?", u.compared);
        sy_str_free(R->ctx, a);
        sy_str_free(R->ctx, b);
    }
    return;
fail:
    R->r->failed++;
    R->r->by_kind[K_SIMPLIFY][1]++;
}

/* ---------------------------------------------------------------- eval */

static void run_eval(runner *R, char *lhs, char *rhs)
{
    char *at = strchr(lhs, '@');
    const sy_expr *syms[64], *vals[64];
    size_t n = 0;
    if (at) {
        *at = '\0';
        char *save = NULL;
        for (char *tok = strtok_r(at + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(tok, '=');
            if (!eq || n == 64) {
                report(R, "FAIL", "bad binding '%s'", trim(tok));
                goto fail;
            }
            *eq = '\0';
            syms[n] = sy_expr_sym(R->ctx, trim(tok));
            vals[n] = parse(R, trim(eq + 1), "value");
            if (!syms[n] || !vals[n] || !sy_expr_is_int(vals[n])) {
                report(R, "FAIL", "bad binding '%s'", trim(tok));
                goto fail;
            }
            n++;
        }
    }
    const sy_expr *e = parse(R, trim(lhs), "expression");
    const sy_expr *x = e ? parse(R, rhs, "expected value") : NULL;
    if (!x) goto fail;
    const sy_expr *v;
    sy_ctx_reset_error(R->ctx);
    if (sy_expr_eval(R->ctx, e, n, syms, vals, &v) != SY_OK) {
        report(R, "FAIL", "eval %s: %s", trim(lhs), sy_ctx_last_error_msg(R->ctx));
        goto fail;
    }
    if (v != x) {
        char *a = sy_expr_print(R->ctx, v, SY_PRINT_CANONICAL);
        report(R, "FAIL", "eval %s: got %s, expected %s", trim(lhs), a ? a : "?", rhs);
        sy_str_free(R->ctx, a);
        goto fail;
    }
    R->r->passed++;
    R->r->by_kind[K_EVAL][0]++;
    return;
fail:
    R->r->failed++;
    R->r->by_kind[K_EVAL][1]++;
}

/* ---------------------------------------------------------------- decide / bound */

static void run_decide(runner *R, char *lhs, char *assume, char *rhs)
{
    const sy_expr *as[32];
    int nas = 0;
    sy_facts *f = NULL;
    if (assume && (nas = parse_assumptions(R, assume, as, 32)) < 0) goto fail;
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
    for (int i = 0; i < nas; i++)
        if (sy_facts_add(f, as[i]) != SY_OK) {
            report(R, "FAIL", "cannot add assumption: %s", sy_ctx_last_error_msg(R->ctx));
            goto fail;
        }
    sy_truth got;
    if (sy_decide(f, e, &got) != SY_OK) {
        report(R, "FAIL", "decide %s: %s", lhs, sy_ctx_last_error_msg(R->ctx));
        goto fail;
    }
    static const char *names[] = {"false", "true", "unknown"};
    if (got == want) {
        R->r->passed++;
        R->r->by_kind[K_DECIDE][0]++;
    } else if (got == SY_TRUTH_UNKNOWN) {
        R->r->passed++;
        R->r->precision_miss++;
        R->r->by_kind[K_DECIDE][0]++;
        if (R->o->verbose) report(R, "precision miss", "decide %s: unknown, exact answer %s", lhs, rhs);
    } else {
        report(R, "FAIL", "decide %s: answered %s, correct answer %s (WRONG)", lhs, names[got], rhs);
        goto fail;
    }
    sy_facts_free(f);
    return;
fail:
    sy_facts_free(f);
    R->r->failed++;
    R->r->by_kind[K_DECIDE][1]++;
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

static void run_bound(runner *R, char *lhs, char *assume, char *rhs)
{
    const sy_expr *as[32];
    int nas = 0;
    sy_facts *f = NULL;
    char *rhs_copy = NULL;
    if (assume && (nas = parse_assumptions(R, assume, as, 32)) < 0) goto fail;
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
    for (int i = 0; i < nas; i++)
        if (sy_facts_add(f, as[i]) != SY_OK) {
            report(R, "FAIL", "cannot add assumption: %s", sy_ctx_last_error_msg(R->ctx));
            goto fail;
        }
    const sy_expr *glo = NULL, *ghi = NULL;
    sy_status st = sy_bound(f, e, &glo, &ghi);
    if (st != SY_OK && st != SY_EDIVZERO) {
        report(R, "FAIL", "bound %s: %s", lhs, sy_ctx_last_error_msg(R->ctx));
        goto fail;
    }
    if (st == SY_EDIVZERO) glo = ghi = NULL; /* unknown: the widest (sound) answer */
    /* sound: got range contains the expected one */
    bool lo_sound = !glo || (wlo && sy_expr_is_int(wlo) && sy_expr_cmp(glo, wlo) <= 0);
    bool hi_sound = !ghi || (whi && sy_expr_is_int(whi) && sy_expr_cmp(ghi, whi) >= 0);
    char *gl = glo ? sy_expr_print(R->ctx, glo, SY_PRINT_CANONICAL) : NULL;
    char *gh = ghi ? sy_expr_print(R->ctx, ghi, SY_PRINT_CANONICAL) : NULL;
    if (!lo_sound || !hi_sound) {
        report(R, "FAIL", "bound %s: got [%s, %s], correct range %s (WRONG: excludes attained values)", lhs,
               gl ? gl : "-oo", gh ? gh : "oo", rhs_copy);
        sy_str_free(R->ctx, gl);
        sy_str_free(R->ctx, gh);
        goto fail;
    }
    R->r->passed++;
    R->r->by_kind[K_BOUND][0]++;
    if (glo != wlo || ghi != whi) {
        R->r->precision_miss++;
        if (R->o->verbose)
            report(R, "precision miss", "bound %s: got [%s, %s], exact %s", lhs, gl ? gl : "-oo", gh ? gh : "oo",
                   rhs_copy);
    }
    sy_str_free(R->ctx, gl);
    sy_str_free(R->ctx, gh);
    sy_facts_free(f);
    sy_str_free(R->ctx, rhs_copy);
    return;
fail:
    sy_facts_free(f);
    sy_str_free(R->ctx, rhs_copy);
    R->r->failed++;
    R->r->by_kind[K_BOUND][1]++;
}

/* ---------------------------------------------------------------- driver */

static void run_line(runner *R, char *line)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    line = trim(line);
    if (!*line) return;
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
    sy_ctx_reset_error(R->ctx);
}

sy_status sy_cases_run_text(sy_ctx *ctx, const char *text, size_t len, const char *name,
                            const sy_cases_options *opts, sy_cases_result *res)
{
    if (!ctx || !text || !res) return SY_EINVAL;
    sy_cases_options defo = {NULL, 0, 0, 0};
    runner R = {ctx, opts ? opts : &defo, res, name ? name : "<text>", 0, 0};
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
        run_line(&R, line);
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
