/* Algebra commands: simplify, eval, decide, bound, cases. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* The expression of a query: the operand, or the contents of -f FILE. */
typedef struct {
    char *file_text; /* -f: the file's contents (owned) */
    size_t file_len;
    const char *file;
} expr_src;

static int expr_from_file(const char *cmd, const char *path, expr_src *src)
{
    if (src->file) return cli_usage_error(cmd, "-f given twice");
    src->file = path;
    return cli_read_input(cmd, path, &src->file_text, &src->file_len);
}

/* Parse the expression from -f FILE (if given) or operand *text. */
static const sy_expr *parse_expr(sy_ctx *ctx, const expr_src *src, const char *text, const char *what)
{
    if (!src->file) return cli_parse(ctx, text, what);
    char name[512];
    snprintf(name, sizeof name, "%s %s", what, cli_file_name(src->file));
    return cli_parse_n(ctx, src->file_text, src->file_len, name);
}

static const struct option query_opts[] = {
    {"assume", required_argument, NULL, 'a'}, {"file", required_argument, NULL, 'f'}, CLI_COMMON_OPTIONS, {0}};
static const struct option simplify_opts[] = {{"assume", required_argument, NULL, 'a'},
                                              {"file", required_argument, NULL, 'f'},
                                              {"print", required_argument, NULL, 'p'},
                                              CLI_COMMON_OPTIONS,
                                              {0}};

/* simplify --print: the canonical text, the let-form, or (auto) the
 * canonical text unless the expression's tree has more than AUTO_LET_NODES
 * nodes (a DAG whose shared subterms would repeat exponentially often). */
enum { PRINT_AUTO, PRINT_CANONICAL, PRINT_LET };
#define AUTO_LET_NODES 100000u

/* The common front of simplify, decide and bound: --assume options into
 * facts (always created), the expression from exactly one operand or -f
 * FILE, parsed into *e. kind: 0 any expression, 1 a relation, 2 an integer
 * expression. */
static int read_query(sy_ctx *ctx, const cli_cmd *c, int kind, int argc, char **argv, sy_facts **f, const sy_expr **e,
                      int *print)
{
    const char *cmd = c->name;
    expr_src src = {NULL, 0, NULL};
    int rc = EX_OK, o;
    if (!(*f = sy_facts_new(ctx))) return cli_oom();
    while (rc == EX_OK && (o = cli_getopt(c, argc, argv, print ? "a:f:p:" CLI_COMMON_SHORT : "a:f:" CLI_COMMON_SHORT,
                                          print ? simplify_opts : query_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        if (o == 'p') {
            if (!strcmp(optarg, "auto")) *print = PRINT_AUTO;
            else if (!strcmp(optarg, "canonical")) *print = PRINT_CANONICAL;
            else if (!strcmp(optarg, "let")) *print = PRINT_LET;
            else rc = cli_usage_error(cmd, "--print must be auto, canonical or let (got '%s')", optarg);
        } else if (o == 'f') {
            rc = expr_from_file(cmd, optarg, &src);
        } else if (o == 'a') {
            const sy_expr *r = cli_parse(ctx, optarg, "assumption");
            if (!r) rc = EX_INPUT;
            else if (!sy_expr_is_bool(r)) rc = cli_input_error("assumption '%s' is not a relation", optarg);
            else if (sy_facts_add(*f, r) != SY_OK) rc = cli_lib_error(ctx, "assumption");
        }
    }
    const char *what = kind == 1 ? "relation" : "expression";
    int nops = argc - optind;
    const char *text = nops == 1 ? argv[optind] : src.file ? cli_file_name(src.file) : "";
    if (rc == EX_OK && src.file && nops)
        rc = cli_usage_error(cmd, "expected the %s either as an operand or with -f, not both", what);
    else if (rc == EX_OK && !src.file && nops != 1)
        rc = cli_usage_error(cmd, "expected one %s (or -f FILE)", what);
    if (rc == EX_OK && !(*e = parse_expr(ctx, &src, text, what))) rc = EX_INPUT;
    if (rc == EX_OK && kind == 1 && !sy_expr_is_bool(*e)) rc = cli_input_error("'%s' is not a relation", text);
    if (rc == EX_OK && kind == 2 && sy_expr_is_bool(*e))
        rc = cli_input_error("'%s' is a relation, not an integer expression", text);
    free(src.file_text);
    return rc;
}

static int run_simplify(int argc, char **argv)
{
    sy_ctx *ctx = cli_ctx();
    sy_facts *f = NULL;
    const sy_expr *e = NULL;
    int print = PRINT_AUTO;
    int rc = read_query(ctx, &cmd_simplify, 0, argc, argv, &f, &e, &print);
    if (rc == EX_OK && !(e = sy_simplify(f, e))) rc = cli_lib_error(ctx, "simplify");
    uint64_t nodes = 0;
    if (rc == EX_OK && print == PRINT_AUTO) {
        if (sy_expr_tree_size(ctx, e, &nodes) != SY_OK) rc = cli_lib_error(ctx, "simplify");
        else if (nodes > AUTO_LET_NODES) {
            print = PRINT_LET;
            fprintf(stderr,
                    "symshape: note: the canonical text repeats shared subterms (%llu nodes as a tree); printed the "
                    "let-form ('--print canonical' prints the canonical text)\n",
                    (unsigned long long)nodes);
        }
    }
    if (rc == EX_OK) {
        char *s = print == PRINT_LET ? sy_expr_print_let(ctx, e, SY_PRINT_CANONICAL) : sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
        if (!s) rc = cli_lib_error(ctx, "simplify");
        else printf("%s\n", s);
        sy_str_free(ctx, s);
    }
    sy_facts_free(f);
    sy_ctx_free(ctx);
    return rc;
}

static const struct option eval_opts[] = {{"file", required_argument, NULL, 'f'}, CLI_COMMON_OPTIONS, {0}};

static int run_eval(int argc, char **argv)
{
    expr_src src = {NULL, 0, NULL};
    int rc = EX_OK, o;
    while (rc == EX_OK && (o = cli_getopt(&cmd_eval, argc, argv, "f:" CLI_COMMON_SHORT, eval_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        if (o == 'f') rc = expr_from_file("eval", optarg, &src);
    }
    int first = optind + (src.file ? 0 : 1);
    if (rc == EX_OK && !src.file && optind >= argc)
        rc = cli_usage_error("eval", "expected an expression (or -f FILE) and bindings NAME=VALUE");
    if (rc != EX_OK) {
        free(src.file_text);
        return rc;
    }
    sy_ctx *ctx = cli_ctx();
    const sy_expr *e = parse_expr(ctx, &src, src.file ? NULL : argv[optind], "expression");
    size_t n = (size_t)argc;
    const sy_expr **syms = calloc(n, sizeof *syms), **vals = calloc(n, sizeof *vals);
    size_t k = 0;
    if (!e) rc = EX_INPUT;
    if (!syms || !vals) rc = cli_oom();
    for (int i = first; i < argc && rc == EX_OK; i++) {
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
        if (!s) rc = cli_oom();
        else printf("%s\n", s);
        sy_str_free(ctx, s);
    }
    free(syms);
    free(vals);
    free(src.file_text);
    sy_ctx_free(ctx);
    return rc;
}

static int run_decide(int argc, char **argv)
{
    sy_ctx *ctx = cli_ctx();
    sy_facts *f = NULL;
    const sy_expr *e = NULL;
    int rc = read_query(ctx, &cmd_decide, 1, argc, argv, &f, &e, NULL);
    sy_truth t = SY_TRUTH_UNKNOWN;
    if (rc == EX_OK && sy_decide(f, e, &t) != SY_OK) rc = cli_lib_error(ctx, "decide");
    if (rc == EX_OK) {
        printf("%s\n", t == SY_TRUTH_TRUE ? "true" : t == SY_TRUTH_FALSE ? "false" : "unknown");
        if (t == SY_TRUTH_FALSE) rc = EX_FALSE;
        else if (t == SY_TRUTH_UNKNOWN) rc = EX_UNKNOWN;
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
    int rc = read_query(ctx, &cmd_bound, 2, argc, argv, &f, &e, NULL);
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

static const struct option cases_opts[] = {
    {"verbose", no_argument, NULL, 'v'}, {"strict", no_argument, NULL, 's'}, CLI_COMMON_OPTIONS, {0}};

/* progress on a terminal: "[FILE]" on stderr, cleared before any report line */
static int progress_shown;
static void clear_progress(void *ud)
{
    (void)ud;
    if (progress_shown) fprintf(stderr, "\r\033[K");
    progress_shown = 0;
}

static int run_cases(int argc, char **argv)
{
    int verbose = 0, strict = 0, rc = EX_OK, o;
    while ((o = cli_getopt(&cmd_cases, argc, argv, "vs" CLI_COMMON_SHORT, cases_opts, &rc)) != -1) {
        if (o == CLI_STOP) return rc;
        if (o == 'v') verbose = 1;
        if (o == 's') strict = 1;
    }
    int nfiles = argc - optind;
    if (!nfiles) return cli_usage_error("cases", "expected at least one .cases file ('-': stdin)");
    sy_ctx *ctx = cli_ctx();
    sy_cases_result r;
    memset(&r, 0, sizeof r);
    int tty = isatty(2);
    sy_cases_options co = {.report = stdout, .verbose = verbose, .strict = strict, .before_report = tty ? clear_progress : NULL};
    for (int i = optind; i < argc; i++) {
        if (tty) {
            fprintf(stderr, "\r\033[K[%s]", cli_file_name(argv[i]));
            progress_shown = 1;
        }
        char *text = NULL;
        size_t len = 0;
        if ((rc = cli_read_input("cases", argv[i], &text, &len)) != EX_OK) break;
        fflush(stdout);
        sy_status st = sy_cases_run_text(ctx, text, len, cli_file_name(argv[i]), &co, &r);
        fflush(stdout);
        free(text);
        if (st != SY_OK) {
            clear_progress(NULL);
            rc = cli_lib_error(ctx, cli_file_name(argv[i]));
            break;
        }
    }
    clear_progress(NULL);
    if (rc == EX_OK) {
        printf("simplify %zu/%zu, decide %zu/%zu, bound %zu/%zu, eval %zu/%zu passed\n", r.by_kind[0][0],
               r.by_kind[0][0] + r.by_kind[0][1], r.by_kind[1][0], r.by_kind[1][0] + r.by_kind[1][1], r.by_kind[2][0],
               r.by_kind[2][0] + r.by_kind[2][1], r.by_kind[3][0], r.by_kind[3][0] + r.by_kind[3][1]);
        printf("%zu other form: simplify results that agree with the expected form at every sampled point but are "
               "another canonical form (%s)\n",
               r.other_form, strict ? "failed: --strict" : "passed; --strict fails them");
        printf("%zu precision misses: decide/bound answers that are sound but weaker than the expected answer, which "
               "sampling did not refute (%s)\n",
               r.precision_miss, strict ? "failed: --strict" : "passed; --strict fails them");
        if (r.skipped) printf("%zu skipped: case kinds this build cannot check\n", r.skipped);
        printf("%zu passed, %zu failed\n", r.passed, r.failed);
        if (r.failed) rc = EX_FALSE;
    }
    sy_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_simplify = {"simplify", "canonical form of an expression (optionally under assumptions)",
    "usage: symshape simplify [-a REL]... [--print auto|canonical|let] (EXPR | -f FILE)\n\n"
    "Prints the canonical form of EXPR. With --assume, simplifies under the\n"
    "assumptions (range-aware rewriting, replacements from equalities).\n"
    "Syntax: Python-like; + - * ** // %, comparisons, and/or/not, FloorDiv Mod\n"
    "CeilDiv Min Max Eq Ne Lt Le Gt Ge And Or Not (docs/algebra.md).\n\n"
    "  -a, --assume REL  an assumption (repeatable)\n"
    "  -f, --file FILE   read the expression from FILE ('-': stdin) instead of the operand\n"
    "  -p, --print MODE  canonical: the canonical text; let: a debug form that prints each\n"
    "                    shared subterm once ('let $K = ...' lines, then 'in ...'); auto\n"
    "                    (default): canonical unless the expression as a tree has more\n"
    "                    than 100000 nodes, then let (with a note on stderr)\n"
    "  --budget steps=N,terms=N,bytes=N  work budgets of one operation (symshape --help)\n"
    "  -h, --help        this help;  -V, --version  the version\n"
    "An expression that starts with '-' goes after '--': symshape simplify -- '-x + 1'.\n"
    CLI_EXIT_HEAD
    "  0  printed the canonical form\n" CLI_EXIT_USAGE
    "  3  bad input: unparsable expression (message with byte offset), division by zero,\n"
    "     term or work budget exceeded, unreadable -f file\n" CLI_EXIT_INTERNAL,
    run_simplify, 1};
const cli_cmd cmd_eval = {"eval", "exact value of an expression at a point",
    "usage: symshape eval (EXPR | -f FILE) NAME=VALUE...\n\n"
    "Prints the exact value (integers of any size; true/false for relations).\n"
    "Each symbol is bound once.\n\n"
    "  -f, --file FILE   read the expression from FILE ('-': stdin); all operands are bindings\n"
    "  -h, --help        this help;  -V, --version  the version\n"
    "An expression that starts with '-' goes after '--': symshape eval -- '-x' x=1.\n"
    CLI_EXIT_HEAD
    "  0  printed the value\n"
    "  2  usage error (unknown option, a binding not NAME=VALUE, a symbol bound twice)\n"
    "  3  bad input: unparsable expression, unbound symbol, a value that is not an integer,\n"
    "     division by zero, unreadable -f file\n" CLI_EXIT_INTERNAL,
    run_eval, 1};
const cli_cmd cmd_decide = {"decide", "decide a relation under assumptions: true, false or unknown",
    "usage: symshape decide [-a REL]... (REL | -f FILE)\n\n"
    "Prints true (holds at every integer point satisfying the assumptions),\n"
    "false (fails at every such point) or unknown. Never guesses.\n\n"
    "  -a, --assume REL  an assumption (repeatable)\n"
    "  -f, --file FILE   read the relation from FILE ('-': stdin) instead of the operand\n"
    "  -h, --help        this help;  -V, --version  the version\n"
    "A relation that starts with '-' goes after '--': symshape decide -- '-x < 1'.\n"
    CLI_EXIT_HEAD
    "  0  true\n"
    "  1  false\n" CLI_EXIT_USAGE
    "  3  bad input: unparsable relation or assumption, not a relation, unreadable -f file\n"
    CLI_EXIT_INTERNAL
    "  5  unknown\n",
    run_decide, 1};
const cli_cmd cmd_bound = {"bound", "range of an expression under assumptions",
    "usage: symshape bound [-a REL]... (EXPR | -f FILE)\n\n"
    "Prints [lo, hi] (-oo / oo for no bound): a sound range of EXPR over the\n"
    "integer points satisfying the assumptions. A division whose divisor may be\n"
    "zero is an error naming it, never an invented range.\n\n"
    "  -a, --assume REL  an assumption (repeatable)\n"
    "  -f, --file FILE   read the expression from FILE ('-': stdin) instead of the operand\n"
    "  -h, --help        this help;  -V, --version  the version\n"
    "An expression that starts with '-' goes after '--': symshape bound -- '-x'.\n"
    CLI_EXIT_HEAD
    "  0  printed the range\n" CLI_EXIT_USAGE
    "  3  bad input: unparsable expression, a relation, a divisor that may be zero,\n"
    "     unreadable -f file\n" CLI_EXIT_INTERNAL,
    run_bound, 1};
const cli_cmd cmd_cases = {"cases", "run researchers' .cases files",
    "usage: symshape cases [-v] [--strict] FILE...\n\n"
    "Runs every case (simplify, decide, bound, eval lines; format in\n"
    "docs/algebra.md) of each FILE ('-': stdin). Each expectation is sampled\n"
    "too: a point that refutes it fails the case ('the expected answer is\n"
    "wrong: counterexample ...'). Prints each failure as FILE:LINE: FAIL: ...,\n"
    "then the counts per kind and per category and finally 'N passed, M failed'.\n\n"
    "  -v, --verbose     also list other-form results and precision misses\n"
    "  -s, --strict      other-form results and precision misses are failures\n"
    "  -h, --help        this help;  -V, --version  the version\n"
    CLI_EXIT_HEAD
    "  0  every case passed\n"
    "  1  some case failed\n" CLI_EXIT_USAGE
    "  3  a file cannot be read\n" CLI_EXIT_INTERNAL,
    run_cases, 0};
