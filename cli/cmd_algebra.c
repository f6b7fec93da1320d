/* Algebra commands: simplify, eval, decide, bound, cases. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* Collect --assume REL options into facts; the remaining positional
 * arguments are returned in pos[] (count *npos). */
static int read_assumptions(sy_ctx *ctx, const char *cmd, int argc, char **argv, sy_facts **facts,
                            char **pos, int *npos)
{
    *npos = 0;
    *facts = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--assume") || !strcmp(argv[i], "-a")) {
            if (i + 1 >= argc) return cli_usage_error(cmd, "--assume needs a relation");
            const sy_expr *r = cli_parse(ctx, argv[++i], "assumption");
            if (!r) return EX_INPUT;
            if (!sy_expr_is_bool(r)) return cli_input_error("assumption '%s' is not a relation", argv[i]);
            if (!*facts && !(*facts = sy_facts_new(ctx))) return EX_INTERNAL;
            if (sy_facts_add(*facts, r) != SY_OK) return cli_lib_error(ctx, "assumption");
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        } else {
            pos[(*npos)++] = argv[i];
        }
    }
    return EX_OK;
}

/* The common front of simplify, decide and bound: --assume options into
 * facts (always created), exactly one positional argument parsed into *e.
 * kind: 0 any expression, 1 a relation, 2 an integer expression. */
static int read_query(sy_ctx *ctx, const char *cmd, int kind, int argc, char **argv, sy_facts **f, const sy_expr **e)
{
    char **pos = malloc((size_t)argc * sizeof *pos);
    int npos = 0, rc = pos ? read_assumptions(ctx, cmd, argc, argv, f, pos, &npos) : EX_INTERNAL;
    const char *what = kind == 1 ? "relation" : "expression";
    if (rc == EX_OK && npos != 1) rc = cli_usage_error(cmd, "expected one %s", what);
    if (rc == EX_OK && !(*e = cli_parse(ctx, pos[0], what))) rc = EX_INPUT;
    if (rc == EX_OK && kind == 1 && !sy_expr_is_bool(*e)) rc = cli_input_error("'%s' is not a relation", pos[0]);
    if (rc == EX_OK && kind == 2 && sy_expr_is_bool(*e))
        rc = cli_input_error("'%s' is a relation, not an integer expression", pos[0]);
    if (rc == EX_OK && !*f && !(*f = sy_facts_new(ctx))) rc = EX_INTERNAL;
    free(pos);
    return rc;
}

static int run_simplify(int argc, char **argv)
{
    sy_ctx *ctx = cli_ctx();
    sy_facts *f = NULL;
    const sy_expr *e = NULL;
    int rc = read_query(ctx, "simplify", 0, argc, argv, &f, &e);
    if (rc == EX_OK && !(e = sy_simplify(f, e))) rc = cli_lib_error(ctx, "simplify");
    if (rc == EX_OK) {
        char *s = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
        if (!s) rc = EX_INTERNAL;
        else printf("%s\n", s);
        sy_str_free(ctx, s);
    }
    sy_facts_free(f);
    sy_ctx_free(ctx);
    return rc;
}

static int run_eval(int argc, char **argv)
{
    if (argc < 2) return cli_usage_error("eval", "expected an expression and bindings NAME=VALUE");
    sy_ctx *ctx = cli_ctx();
    int rc = EX_OK;
    const sy_expr *e = cli_parse(ctx, argv[1], "expression");
    size_t n = (size_t)argc;
    const sy_expr **syms = calloc(n, sizeof *syms), **vals = calloc(n, sizeof *vals);
    size_t k = 0;
    if (!e) rc = EX_INPUT;
    for (int i = 2; i < argc && rc == EX_OK; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            rc = cli_usage_error("eval", "binding '%s' is not NAME=VALUE", argv[i]);
            break;
        }
        *eq = '\0';
        syms[k] = sy_expr_sym(ctx, argv[i]);
        if (!syms[k]) {
            rc = cli_input_error("bad symbol name '%s': %s", argv[i], sy_ctx_last_error_msg(ctx));
            break;
        }
        for (size_t j = 0; j < k; j++)
            if (syms[j] == syms[k]) rc = cli_usage_error("eval", "'%s' is bound twice", argv[i]);
        if (rc != EX_OK) break;
        vals[k] = sy_expr_int_str(ctx, eq + 1);
        if (!vals[k]) {
            rc = cli_input_error("value of %s is not an integer: '%s'", argv[i], eq + 1);
            break;
        }
        k++;
    }
    const sy_expr *v = NULL;
    if (rc == EX_OK && sy_expr_eval(ctx, e, k, syms, vals, &v) != SY_OK) rc = cli_lib_error(ctx, "eval");
    if (rc == EX_OK) {
        char *s = sy_expr_print(ctx, v, SY_PRINT_CANONICAL);
        printf("%s\n", s ? s : "?");
        sy_str_free(ctx, s);
    }
    free(syms);
    free(vals);
    sy_ctx_free(ctx);
    return rc;
}

static int run_decide(int argc, char **argv)
{
    sy_ctx *ctx = cli_ctx();
    sy_facts *f = NULL;
    const sy_expr *e = NULL;
    int rc = read_query(ctx, "decide", 1, argc, argv, &f, &e);
    sy_truth t = SY_TRUTH_UNKNOWN;
    if (rc == EX_OK && sy_decide(f, e, &t) != SY_OK) rc = cli_lib_error(ctx, "decide");
    if (rc == EX_OK) {
        printf("%s\n", t == SY_TRUTH_TRUE ? "true" : t == SY_TRUTH_FALSE ? "false" : "unknown");
        if (t == SY_TRUTH_FALSE) rc = EX_FALSE;
    }
    sy_facts_free(f);
    sy_ctx_free(ctx);
    return rc;
}

static int run_bound(int argc, char **argv)
{
    sy_ctx *ctx = cli_ctx();
    sy_facts *f = NULL;
    const sy_expr *e = NULL;
    int rc = read_query(ctx, "bound", 2, argc, argv, &f, &e);
    const sy_expr *lo = NULL, *hi = NULL;
    if (rc == EX_OK && sy_bound(f, e, &lo, &hi) != SY_OK) rc = cli_lib_error(ctx, "bound");
    if (rc == EX_OK) {
        char *l = lo ? sy_expr_print(ctx, lo, SY_PRINT_CANONICAL) : NULL;
        char *h = hi ? sy_expr_print(ctx, hi, SY_PRINT_CANONICAL) : NULL;
        printf("[%s, %s]\n", l ? l : "-oo", h ? h : "oo");
        sy_str_free(ctx, l);
        sy_str_free(ctx, h);
    }
    sy_facts_free(f);
    sy_ctx_free(ctx);
    return rc;
}

static int run_cases(int argc, char **argv)
{
    int verbose = 0, nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) verbose = 1;
        else if (argv[i][0] == '-' && argv[i][1]) return cli_usage_error("cases", "unknown option '%s'", argv[i]);
        else nfiles++;
    }
    if (!nfiles) return cli_usage_error("cases", "expected at least one .cases file");
    sy_ctx *ctx = cli_ctx();
    sy_cases_result r;
    memset(&r, 0, sizeof r);
    sy_cases_options o = {stdout, verbose, 0, 0};
    int rc = EX_OK;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) continue;
        if (isatty(2) && nfiles > 1) fprintf(stderr, "\r[%s]", argv[i]);
        if (sy_cases_run_file(ctx, argv[i], &o, &r) != SY_OK) {
            rc = cli_input_error("%s", sy_ctx_last_error_msg(ctx));
            break;
        }
    }
    if (isatty(2) && nfiles > 1) fprintf(stderr, "\r\033[K");
    if (rc == EX_OK) {
        printf("(%zu other form, %zu precision misses, %zu skipped; simplify %zu/%zu, decide %zu/%zu, bound %zu/%zu, eval %zu/%zu passed)\n",
               r.other_form, r.precision_miss, r.skipped, r.by_kind[0][0], r.by_kind[0][0] + r.by_kind[0][1],
               r.by_kind[1][0], r.by_kind[1][0] + r.by_kind[1][1], r.by_kind[2][0], r.by_kind[2][0] + r.by_kind[2][1],
               r.by_kind[3][0], r.by_kind[3][0] + r.by_kind[3][1]);
        printf("%zu passed, %zu failed\n", r.passed, r.failed);
        if (r.failed) rc = EX_FALSE;
    }
    sy_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_simplify = {"simplify", "canonical form of an expression (optionally under assumptions)",
    "usage: symshape simplify 'EXPR' [--assume 'REL']...\n\n"
    "Prints the canonical form of EXPR. With --assume, simplifies under the\n"
    "assumptions (range-aware rewriting, replacements from equalities).\n"
    "Syntax: Python-like; + - * ** // %, comparisons, and/or/not, FloorDiv Mod\n"
    "CeilDiv Min Max Eq Ne Lt Le Gt Ge And Or Not (docs/algebra.md).\n"
    "exit: 0 ok, 2 usage, 3 unparsable expression (message with byte offset)\n",
    run_simplify};
const cli_cmd cmd_eval = {"eval", "exact value of an expression at a point",
    "usage: symshape eval 'EXPR' NAME=VALUE...\n\n"
    "Prints the exact value (integers of any size; true/false for relations).\n"
    "exit: 0 ok, 2 usage, 3 bad expression, unbound symbol or division by zero\n",
    run_eval};
const cli_cmd cmd_decide = {"decide", "decide a relation under assumptions: true, false or unknown",
    "usage: symshape decide 'REL' [--assume 'REL']...\n\n"
    "Prints true (holds at every integer point satisfying the assumptions),\n"
    "false (fails at every such point) or unknown. Never guesses.\n"
    "exit: 0 true or unknown, 1 false, 2 usage, 3 bad input\n",
    run_decide};
const cli_cmd cmd_bound = {"bound", "range of an expression under assumptions",
    "usage: symshape bound 'EXPR' [--assume 'REL']...\n\n"
    "Prints [lo, hi] (-oo / oo for no bound): a sound range of EXPR over the\n"
    "integer points satisfying the assumptions. A division whose divisor may be\n"
    "zero is an error naming it (exit 3), never an invented range.\n",
    run_bound};
const cli_cmd cmd_cases = {"cases", "run researchers' .cases files",
    "usage: symshape cases [-v] FILE...\n\n"
    "Runs every case (simplify, decide, bound, eval lines; format in\n"
    "docs/algebra.md). Prints each failure as FILE:LINE, then a summary line\n"
    "and finally 'N passed, M failed'. -v also lists other-form results and\n"
    "precision misses.\nexit: 0 all passed, 1 some failed, 2 usage, 3 unreadable file\n",
    run_cases};
