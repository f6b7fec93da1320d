/* symshape verify --cases FILE: the engine's answer to every simplify, decide
 * and bound case, proved with Z3 for all integer assignments that satisfy the
 * case's assumptions (symshape/verify.h). The case syntax is the runner's
 * (docs/algebra.md "Case files"): KIND EXPR [| ASSUME; ...] => EXPECTED.
 * The expected answers are the runner's business (symshape cases); here the
 * engine's own answers are proved, so that a wrong rewrite or a wrong "true"
 * shows up as "refuted" with a counterexample. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

typedef struct {
    size_t proven, refuted, unknown, nothing, errors, skipped;
} vcounts;

static const char *const vnames[] = {"proven", "refuted", "unknown"};

/* One case line (comment already stripped). */
static void verify_line(sy_ctx *ctx, const char *file, size_t lineno, char *line, const sy_verify_options *vo, vcounts *c)
{
    const char *kinds[] = {"simplify", "decide", "bound", "eval"};
    int kind = -1;
    size_t kl = 0;
    for (int k = 0; k < 4 && kind < 0; k++) {
        kl = strlen(kinds[k]);
        if (!strncmp(line, kinds[k], kl) && (line[kl] == ' ' || line[kl] == '\t')) kind = k;
    }
    if (kind < 0) {
        printf("%s:%zu: error: unknown case kind\n", file, lineno);
        c->errors++;
        return;
    }
    if (kind == 3) { /* eval: the evaluator is the reference; nothing to prove */
        c->skipped++;
        return;
    }
    char *body = line + kl, *arrow = NULL;
    for (char *p = strstr(body, "=>"); p; p = strstr(p + 2, "=>")) arrow = p;
    if (!arrow) {
        printf("%s:%zu: error: missing '=>'\n", file, lineno);
        c->errors++;
        return;
    }
    *arrow = '\0';
    char *assume = strchr(body, '|');
    if (assume) *assume++ = '\0';
    const sy_expr *e = cli_parse(ctx, trim(body), "expression");
    if (!e) {
        printf("%s:%zu: error: %s\n", file, lineno, sy_ctx_last_error_msg(ctx));
        c->errors++;
        return;
    }
    const sy_expr **as = NULL;
    size_t na = 0, cap = 0;
    sy_facts *f = sy_facts_new(ctx);
    int bad = !f;
    for (char *a = assume; a && !bad;) {
        char *semi = strchr(a, ';');
        if (semi) *semi = '\0';
        char *t = trim(a);
        if (*t) {
            const sy_expr *x = cli_parse(ctx, t, "assumption");
            if (!x || cli_reserve(&as, &cap, na + 1, sizeof *as) || sy_facts_add(f, x) != SY_OK) bad = 1;
            else as[na++] = x;
        }
        a = semi ? semi + 1 : NULL;
    }
    if (bad) {
        printf("%s:%zu: error: %s\n", file, lineno, sy_ctx_last_error_msg(ctx));
        c->errors++;
        free(as);
        sy_facts_free(f);
        return;
    }
    sy_verify_verdict v = SY_VERIFY_UNKNOWN;
    char *cex = NULL;
    sy_status st = SY_OK;
    char *what = NULL;
    int nothing = 0;
    if (kind == 0) {
        const sy_expr *r = sy_simplify(f, e);
        if (!r) st = sy_ctx_last_error(ctx);
        else {
            what = sy_expr_print(ctx, r, SY_PRINT_CANONICAL);
            st = sy_verify_equal(ctx, na, as, e, r, vo, &v, &cex);
        }
    } else if (kind == 1) {
        sy_truth t;
        st = sy_decide(f, e, &t);
        if (st == SY_OK && t == SY_TRUTH_UNKNOWN) nothing = 1;
        else if (st == SY_OK) {
            what = strdup(t == SY_TRUTH_TRUE ? "true" : "false");
            st = sy_verify_equal(ctx, na, as, e, t == SY_TRUTH_TRUE ? sy_expr_true(ctx) : sy_expr_false(ctx), vo, &v, &cex);
        }
    } else {
        const sy_expr *lo = NULL, *hi = NULL;
        st = sy_bound(f, e, &lo, &hi);
        if (st == SY_OK && !lo && !hi) nothing = 1;
        else if (st == SY_OK) {
            char *l = lo ? sy_expr_print(ctx, lo, SY_PRINT_CANONICAL) : NULL, *h = hi ? sy_expr_print(ctx, hi, SY_PRINT_CANONICAL) : NULL;
            size_t len = (l ? strlen(l) : 3) + (h ? strlen(h) : 3) + 8;
            what = malloc(len);
            if (what) snprintf(what, len, "[%s, %s]", l ? l : "-oo", h ? h : "oo");
            sy_str_free(ctx, l);
            sy_str_free(ctx, h);
            st = sy_verify_bound(ctx, na, as, e, lo, hi, vo, &v, &cex);
        }
    }
    if (st != SY_OK) {
        /* the engine's own refusal (a divisor that may be 0, a budget) is not a proof obligation */
        printf("%s:%zu: engine error (nothing to prove): %s\n", file, lineno, sy_ctx_last_error_msg(ctx));
        c->nothing++;
    } else if (nothing) {
        c->nothing++;
    } else {
        if (v == SY_VERIFY_PROVEN) c->proven++;
        else if (v == SY_VERIFY_REFUTED) c->refuted++;
        else c->unknown++;
        if (v != SY_VERIFY_PROVEN) {
            printf("%s:%zu: %s: %s %s => %s\n", file, lineno, vnames[v], kinds[kind], trim(body), what ? what : "?");
            if (cex) printf("    counterexample: %s\n", cex);
        }
    }
    if (kind == 1 || kind == 2) free(what);
    else sy_str_free(ctx, what);
    sy_str_free(ctx, cex);
    free(as);
    sy_facts_free(f);
    sy_ctx_reset_error(ctx);
}

int cli_verify_cases(const char *path, const sy_verify_options *vo)
{
    char *text = NULL;
    size_t len = 0;
    int rc = cli_read_input("verify", path, &text, &len);
    if (rc != EX_OK) return rc;
    if (memchr(text, '\0', len)) {
        free(text);
        return cli_input_error("%s: a NUL byte in the file", cli_file_name(path));
    }
    sy_ctx *ctx = cli_ctx();
    vcounts c = {0, 0, 0, 0, 0, 0};
    size_t lineno = 0;
    for (char *line = text; line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *t = trim(line);
        if (*t) verify_line(ctx, cli_file_name(path), lineno, t, vo, &c);
        line = nl ? nl + 1 : NULL;
    }
    printf("%zu cases proved: %zu proven, %zu refuted, %zu unknown; %zu with nothing to prove (unknown/unbounded answers, "
           "engine errors), %zu eval cases not proved (the evaluator is the reference)",
           c.proven + c.refuted + c.unknown, c.proven, c.refuted, c.unknown, c.nothing, c.skipped);
    if (c.errors) printf(", %zu unreadable lines", c.errors);
    printf("\n");
    sy_ctx_free(ctx);
    free(text);
    if (c.errors) return EX_INPUT;
    return c.refuted ? EX_FALSE : c.unknown ? EX_UNKNOWN : EX_OK;
}
