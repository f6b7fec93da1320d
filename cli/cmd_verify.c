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

typedef struct {
    sy_ctx *ctx;
    const sy_verify_options *vo;
    size_t proven, refuted, unknown, nothing, errors, skipped;
    cli_progress prog; /* "symshape: verify: N cases done" on a terminal */
} vcounts;

static const char *const vnames[] = {"proven", "refuted", "unknown"};
static const char *const kinds[] = {"simplify", "decide", "bound", "eval"};

/* One case, exactly as the runner parsed it, with the engine's answer
 * (sy_cases_options.on_case). */
static void verify_case_1(void *ud, const sy_case *k)
{
    vcounts *c = ud;
    sy_ctx *ctx = c->ctx;
    if (!k->expr) {
        printf("%s:%zu: error: %s\n", k->file, k->line, k->message ? k->message : "cannot read the line");
        c->errors++;
        return;
    }
    if (k->kind == SY_CASE_EVAL) { /* the evaluator is the reference; nothing to prove */
        c->skipped++;
        return;
    }
    if (k->status != SY_OK) {
        /* the engine's own refusal (a divisor that may be 0, a budget) is not a proof obligation */
        printf("%s:%zu: engine error (nothing to prove): %s\n", k->file, k->line, k->message ? k->message : "");
        c->nothing++;
        return;
    }
    sy_verify_verdict v = SY_VERIFY_UNKNOWN;
    char *cex = NULL, *what = NULL, range[256] = "";
    sy_status st = SY_OK;
    if (k->kind == SY_CASE_SIMPLIFY) {
        what = sy_expr_print(ctx, k->simplified, SY_PRINT_CANONICAL);
        st = sy_verify_equal(ctx, k->nassume, k->assume, k->expr, k->simplified, c->vo, &v, &cex);
    } else if (k->kind == SY_CASE_DECIDE) {
        if (k->truth == SY_TRUTH_UNKNOWN) {
            c->nothing++;
            return;
        }
        const sy_expr *t = k->truth == SY_TRUTH_TRUE ? sy_expr_true(ctx) : sy_expr_false(ctx);
        what = sy_expr_print(ctx, t, SY_PRINT_CANONICAL);
        st = sy_verify_equal(ctx, k->nassume, k->assume, k->expr, t, c->vo, &v, &cex);
    } else {
        if (!k->lo && !k->hi) {
            c->nothing++;
            return;
        }
        char *l = k->lo ? sy_expr_print(ctx, k->lo, SY_PRINT_CANONICAL) : NULL;
        char *h = k->hi ? sy_expr_print(ctx, k->hi, SY_PRINT_CANONICAL) : NULL;
        snprintf(range, sizeof range, "[%s, %s]", l ? l : "-oo", h ? h : "oo");
        sy_str_free(ctx, l);
        sy_str_free(ctx, h);
        st = sy_verify_bound(ctx, k->nassume, k->assume, k->expr, k->lo, k->hi, c->vo, &v, &cex);
    }
    if (st != SY_OK) {
        printf("%s:%zu: error: %s\n", k->file, k->line, sy_ctx_last_error_msg(ctx));
        c->errors++;
    } else {
        if (v == SY_VERIFY_PROVEN) c->proven++;
        else if (v == SY_VERIFY_REFUTED) c->refuted++;
        else c->unknown++;
        if (v != SY_VERIFY_PROVEN) {
            printf("%s:%zu: %s: %s %s => %s\n", k->file, k->line, vnames[v], kinds[k->kind], k->text, what ? what : *range ? range : "?");
            if (cex) printf("    %s: %s\n", v == SY_VERIFY_REFUTED ? "counterexample" : "reason", cex);
        }
    }
    sy_str_free(ctx, what);
    sy_str_free(ctx, cex);
}

/* verify_case_1 under the progress line: erased before the case's lines, redrawn after */
static void verify_case(void *ud, const sy_case *k)
{
    vcounts *c = ud;
    cli_progress_clear(&c->prog);
    verify_case_1(ud, k);
    fflush(stdout);
    cli_progress_tick(&c->prog);
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
    vcounts c = {ctx, vo, 0, 0, 0, 0, 0, 0, {0}};
    cli_progress_start(&c.prog, "verify", "cases done", 0);
    /* the runner parses the cases and asks the engine; its own sampling of
     * the expected answers is not needed here (one point) */
    sy_cases_options co = {.samples = 1, .on_case = verify_case, .on_case_ud = &c};
    sy_cases_result res;
    memset(&res, 0, sizeof res);
    sy_status st = sy_cases_run_text(ctx, text, len, cli_file_name(path), &co, &res);
    cli_progress_done(&c.prog);
    if (st != SY_OK) {
        int e = cli_lib_error(ctx, "verify");
        sy_ctx_free(ctx);
        free(text);
        return e;
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
