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
#include "cli/model.h"

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

/* ------------------------------------------------------------------ verify */

/* The model's example sizes as source values: *vals (sy_gset_nsources entries, free with
 * free()). A JSON graph: its inputs' shapes; an ONNX model: the values its trace saw
 * (sy_gset_source_example: --example, else each dim_value, 224 for a symbolic dim). */
static int example_values(const traced *t, size_t ni, const sy_graph_input *const *ins, int64_t **vals)
{
    size_t ns = sy_gset_nsources(t->gs);
    *vals = calloc(ns + 1, sizeof **vals);
    if (!*vals) return cli_oom();
    if (t->om) {
        for (size_t s = 0; s < ns; s++)
            if (!sy_gset_source_example(t->gs, s, &(*vals)[s])) {
                free(*vals);
                *vals = NULL;
                return cli_input_error("%s: no example value for source %s", sy_onnx_name(t->om), sy_gset_source(t->gs, s));
            }
        return EX_OK;
    }
    const char **names = calloc(ni + 1, sizeof *names);
    size_t *ranks = calloc(ni + 1, sizeof *ranks);
    const int64_t **shapes = calloc(ni + 1, sizeof *shapes);
    sy_dtype *dts = calloc(ni + 1, sizeof *dts);
    int rc = names && ranks && shapes && dts ? EX_OK : cli_oom();
    for (size_t i = 0; rc == EX_OK && i < ni; i++) {
        const sy_graph_input *in = ins[i];
        names[i] = in->name;
        ranks[i] = in->ndim;
        shapes[i] = in->shape;
    }
    if (rc == EX_OK) rc = shape_values(t, ni, names, ranks, shapes, dts, *vals, "example sizes");
    free(names);
    free(ranks);
    free(shapes);
    free(dts);
    if (rc != EX_OK) {
        free(*vals);
        *vals = NULL;
    }
    return rc;
}

static const char *const verdict_names[] = {"proven", "refuted", "unknown"};
static const char obligation_letters[] = "abcd";

static void print_obligation(void *ud, const sy_verify_obligation *ob)
{
    cli_progress *prog = ud; /* "symshape: verify: N obligations" while Z3 works on the next */
    cli_progress_clear(prog);
    /* the texts carry the model's names, any bytes: cli_put_text, never a raw newline (issue 38, fix38f) */
    printf("(%c) %-7s ", obligation_letters[ob->kind], verdict_names[ob->verdict]);
    cli_put_text(stdout, ob->what);
    printf(" [%.3f s]\n", ob->seconds);
    if (ob->counterexample) {
        printf("    counterexample: ");
        cli_put_text(stdout, ob->counterexample);
        printf("\n");
    }
    if (ob->reason) {
        printf("    reason: ");
        cli_put_text(stdout, ob->reason);
        printf("\n");
    }
    fflush(stdout);
    cli_progress_tick(prog);
}

/* ------------------------------------------------------------------ verify --artifact */

static void hex32(char out[65], const unsigned char *h)
{
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* the comment line "; min_I: TEXT" of the obligation (backends/smtlib.c write_comment: a line
 * break continues the comment, another control character is '?') */
static int has_min_line(const char *ob, size_t i, const char *text)
{
    char head[48];
    int hn = snprintf(head, sizeof head, "\n; min_%zu: ", i);
    for (const char *p = strstr(ob, head); p; p = strstr(p + 1, head)) {
        const char *q = p + hn, *t = text;
        for (; *t; t++) {
            unsigned char c = (unsigned char)*t;
            if (c == '\n') {
                if (strncmp(q, "\n;   ", 5)) break;
                q += 5;
            } else if (*q++ != (c < 32 || c == 127 ? '?' : *t)) {
                break;
            }
        }
        if (!*t && *q == '\n') return 1;
    }
    return 0;
}

/* The obligation's commands, one per line: each line that is not a comment is one balanced
 * S-expression (quoted |symbols| skipped), and the only assertions are the domain's
 * (assert (>= |SOURCE| 0)) and the claim (assert (not (= |min_all| |rec_all|))), once, with
 * |min_all| the conjunction of min_I over the program's checked guards: so an edited claim
 * (a trivially unsat one) is refused before Z3 runs. NULL, or what is wrong. */
static const char *claim_error(const char *ob, const sy_bc_program *p, char *why, size_t cap)
{
    size_t nclaim = 0, nmin = 0, nrec = 0;
    for (const char *l = ob; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        size_t n = strcspn(l, "\n");
        if (*l == ';' || n == 0) continue;
        int depth = 0, bad = *l != '(';
        for (size_t i = 0; i < n && !bad; i++) {
            if (l[i] == '|') {
                const char *e = memchr(l + i + 1, '|', n - i - 1);
                if (!e) bad = 1;
                else i = (size_t)(e - l);
            } else if (l[i] == '(') depth++;
            else if (l[i] == ')' && --depth == 0 && i + 1 != n) bad = 1;
        }
        if (bad || depth) return snprintf(why, cap, "a line of the obligation is not one command: %.60s", l), why;
        if (!strncmp(l, "(assert (not (= |min_all| |rec_all|)))", n)) nclaim++;
        else if (!strncmp(l, "(define-fun |min_all| ", 22)) nmin++;
        else if (!strncmp(l, "(define-fun |rec_all| ", 22)) nrec++;
        else if (strncmp(l, "(define-fun |", 13) && strncmp(l, "(declare-const |", 16) && strncmp(l, "(set-logic ALL)", n) &&
                 strncmp(l, "(check-sat)", n) && strncmp(l, "(define-fun sy_", 15) &&
                 !(!strncmp(l, "(assert (>= |", 13) && n > 18 && !strncmp(l + n - 5, "| 0))", 5) && !memchr(l + 13, '|', n - 18)))
            return snprintf(why, cap, "the obligation has a command the certificate does not write: %.60s", l), why;
    }
    if (nclaim != 1 || nmin != 1 || nrec != 1)
        return snprintf(why, cap, "the obligation's claim is not (assert (not (= |min_all| |rec_all|))) over one |min_all| and one |rec_all|"), why;
    if (!p) return NULL; /* C code: no guard table to compare with */
    char *want = malloc(64 + 24 * sy_bc_nguards(p));
    if (!want) return snprintf(why, cap, "out of memory"), why;
    size_t k = (size_t)sprintf(want, "\n(define-fun |min_all| () Bool (and true");
    for (size_t i = 0; i < sy_bc_nguards(p); i++)
        if (sy_bc_guard_kind(p, i) != SY_GK_RUNTIME_ASSERT) k += (size_t)sprintf(want + k, " |min_%zu|", i);
    sprintf(want + k, "))\n");
    const char *hit = strstr(ob, want);
    free(want);
    if (!hit) return snprintf(why, cap, "the obligation's |min_all| is not the conjunction of the program's %zu checked guards", sy_bc_nguards(p)), why;
    return NULL;
}

static int refuse(const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int refuse(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("refused: %s: ", cli_file_name(path));
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    return EX_FALSE;
}

static int parse_hex32(const char *s, unsigned char out[32])
{
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

/* The replay of an obligation with Z3 and its verdict line, for both kinds of artifact. */
static int replay(const char *path, sy_ctx *ctx, const char *ob, const sy_verify_options *vo, const char *what, const char *hex)
{
    sy_verify_verdict v;
    char *detail = NULL;
    double t0 = now();
    sy_status st = sy_verify_smtlib(ctx, ob, vo, &v, &detail);
    double secs = now() - t0;
    int rc = EX_OK;
    if (st == SY_EFORMAT) rc = refuse(path, "the obligation does not parse: %s", sy_ctx_last_error_msg(ctx));
    else if (st != SY_OK) rc = cli_lib_error(ctx, "verify");
    else if (v == SY_VERIFY_REFUTED) {
        char *e = sy_bc_escape(ctx, detail, SIZE_MAX);
        rc = refuse(path, "Z3 answers sat: the program's guards and the recorded guards disagree at %s", e ? e : "?");
        sy_str_free(ctx, e);
    } else if (v == SY_VERIFY_UNKNOWN) {
        refuse(path, "Z3 answers unknown (%s): the obligation is not proven", detail ? detail : "?");
        rc = EX_UNKNOWN;
    } else {
        printf("verified: %s: %s, SHA-256 %s; the obligation (the guards equal the guards recorded while tracing) is proven "
               "by Z3 (unsat) [%.3f s]\n",
               cli_file_name(path), what, hex, secs);
    }
    sy_str_free(ctx, detail);
    return rc;
}

#define C_CERT_HEAD "/* symshape certificate (docs/bytecode.md section 10): check with symshape verify --artifact\n"
#define C_CERT_H1 " * sha256 of the code after this comment: "
#define C_CERT_H2 " * sha256 of that code followed by the obligation: "
#define C_CERT_OB " * obligation:\n"

/* verify --artifact on C code (run -b c --certify): the header comment's two SHA-256s, the
 * obligation's commands, and Z3. No guard table: the obligation is not compared with the code's
 * guards (docs/bytecode.md section 10). */
static int verify_c_artifact(const char *path, sy_ctx *ctx, const char *data, size_t len, const sy_verify_options *vo)
{
    const char *p = data + strlen(C_CERT_HEAD), *end = data + len;
    unsigned char want1[32], want2[32], got1[32], got2[32];
    if ((size_t)(end - p) < strlen(C_CERT_H1) + 65 || strncmp(p, C_CERT_H1, strlen(C_CERT_H1)) ||
        parse_hex32(p + strlen(C_CERT_H1), want1))
        return refuse(path, "the certificate comment is malformed (no 'sha256 of the code' line)");
    p += strlen(C_CERT_H1) + 65;
    if ((size_t)(end - p) < strlen(C_CERT_H2) + 65 || strncmp(p, C_CERT_H2, strlen(C_CERT_H2)) ||
        parse_hex32(p + strlen(C_CERT_H2), want2))
        return refuse(path, "the certificate comment is malformed (no 'sha256 of that code followed by the obligation' line)");
    p += strlen(C_CERT_H2) + 65;
    if ((size_t)(end - p) < strlen(C_CERT_OB) || strncmp(p, C_CERT_OB, strlen(C_CERT_OB)))
        return refuse(path, "the certificate comment is malformed (no obligation)");
    p += strlen(C_CERT_OB);
    const char *close = strstr(p, "*/\n");
    if (!close) return refuse(path, "the certificate comment does not end");
    size_t ol = (size_t)(close - p);
    const char *code = close + 3;
    size_t n = (size_t)(end - code);
    char *ob = malloc(ol + 1), *cat = malloc(n + ol + 1);
    if (!ob || !cat) {
        free(ob);
        free(cat);
        return cli_oom();
    }
    memcpy(ob, p, ol);
    ob[ol] = 0;
    memcpy(cat, code, n);
    memcpy(cat + n, ob, ol);
    sy_bc_sha256(code, n, got1);
    sy_bc_sha256(cat, n + ol, got2);
    free(cat);
    char hg[65], hw[65], why[160];
    hex32(hg, got1);
    hex32(hw, want1);
    int rc;
    if (memcmp(got1, want1, 32))
        rc = refuse(path, "hash mismatch: the code after the certificate has SHA-256 %s, the certificate was issued for %s (the code "
                          "changed after certification)", hg, hw);
    else if (memcmp(got2, want2, 32))
        rc = refuse(path, "hash mismatch: the certificate's obligation was changed after certification (the code and the "
                          "obligation do not have the SHA-256 it names)");
    else if (claim_error(ob, NULL, why, sizeof why))
        rc = refuse(path, "%s", why);
    else
        rc = replay(path, ctx, ob, vo, "C code", hg);
    free(ob);
    return rc;
}

/* symshape verify --artifact FILE: the program loads (CRC, verifier), carries a certificate, its
 * bytes hash to the certificate's SHA-256, the obligation's min_I are the program's guards and
 * every checked guard has its CHECK, and Z3 proves the obligation (unsat). */
static int verify_artifact(const char *path, const sy_verify_options *vo)
{
    char *data = NULL;
    size_t len = 0;
    int rc = cli_read_input("verify", path, &data, &len);
    if (rc != EX_OK) return rc;
    sy_ctx *ctx = cli_ctx();
    if (len >= strlen(C_CERT_HEAD) && !strncmp(data, C_CERT_HEAD, strlen(C_CERT_HEAD))) {
        rc = verify_c_artifact(path, ctx, data, len, vo);
        sy_ctx_free(ctx);
        free(data);
        return rc;
    }
    sy_bc_program *p = NULL;
    sy_bc_load_err err;
    const char *ob = NULL;
    const unsigned char *want = NULL;
    unsigned char got[32], got2[32];
    char hw[65], hg[65];
    if (sy_bc_load(ctx, (const unsigned char *)data, len, &p, &err) != SY_OK) {
        rc = refuse(path, "the program does not load: %s (byte %zu)", err.msg, err.offset);
        goto out;
    }
    if (sy_bc_certificate(p, &ob, &want) != SY_OK) {
        rc = refuse(path, "no certificate (write one with: symshape run -b bytecode --certify)");
        goto out;
    }
    if (sy_bc_program_hash(p, got, got2) != SY_OK) {
        rc = cli_oom();
        goto out;
    }
    hex32(hw, want);
    hex32(hg, got);
    if (memcmp(want, got, 32)) {
        rc = refuse(path, "hash mismatch: the program's bytes have SHA-256 %s, the certificate was issued for %s (the program "
                          "changed after certification)", hg, hw);
        goto out;
    }
    if (memcmp(want + 32, got2, 32)) {
        rc = refuse(path, "hash mismatch: the certificate's obligation was changed after certification (the program's bytes "
                          "and the obligation's do not have the SHA-256 it names)");
        goto out;
    }
    size_t ng = sy_bc_nguards(p), nmin = 0;
    for (const char *q = strstr(ob, "\n; min_"); q; q = strstr(q + 1, "\n; min_")) nmin++;
    for (size_t i = 0; i < ng; i++) {
        const char *text = sy_bc_guard_text(p, i);
        char *e = sy_bc_escape(ctx, text, SIZE_MAX);
        int checked = sy_bc_guard_kind(p, i) == SY_GK_RUNTIME_ASSERT;
        for (size_t pc = 0; pc < sy_bc_ninstr(p) && !checked; pc++) {
            uint32_t w = sy_bc_instr(p, pc);
            checked = SY_BC_GET_OP(w) == SY_OP_CHECK && SY_BC_GET_BX(w) == i;
        }
        if (!has_min_line(ob, i, text))
            rc = refuse(path, "the certificate is not about this program: its guard %zu (%s) is not min_%zu of the obligation", i,
                        e ? e : "?", i);
        else if (!checked)
            rc = refuse(path, "guard %zu (%s) is never checked by the program (a guard was removed)", i, e ? e : "?");
        sy_str_free(ctx, e);
        if (rc != EX_OK) goto out;
    }
    if (nmin != ng) {
        rc = refuse(path, "the certificate is not about this program: its obligation names %zu guards (min_I), the program has %zu",
                    nmin, ng);
        goto out;
    }
    char why[160];
    if (claim_error(ob, p, why, sizeof why)) {
        rc = refuse(path, "%s", why);
        goto out;
    }
    char what[48];
    snprintf(what, sizeof what, "%zu guards", ng);
    rc = replay(path, ctx, ob, vo, what, hg);
out:
    sy_bc_free(p);
    sy_ctx_free(ctx);
    free(data);
    return rc;
}

static const struct option verify_opts[] = {{"timeout", required_argument, NULL, OPT_TIMEOUT},
                                            {"rlimit", required_argument, NULL, OPT_RLIMIT},
                                            {"cases", required_argument, NULL, OPT_CASES},
                                            {"artifact", required_argument, NULL, OPT_ARTIFACT},
                                            {"max-cases", required_argument, NULL, OPT_MAX_CASES},
                                            MODEL_OPTIONS,
                                            CLI_COMMON_OPTIONS,
                                            {0}};

static int run_verify(int argc, char **argv)
{
    model_opts m;
    memset(&m, 0, sizeof m);
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    m.eo = eo;
    sy_verify_options vo = SY_VERIFY_OPTIONS_INIT;
    const char *cases = NULL, *artifact = NULL;
    int rc = EX_OK, o;
    while (rc == EX_OK && (o = cli_getopt(&cmd_verify, argc, argv, CLI_COMMON_SHORT, verify_opts, &rc)) != -1) {
        if (o == CLI_STOP) break;
        int r = model_option("verify", &m, o, optarg);
        if (r < 0) rc = -r;
        else if (r) continue;
        else if (o == OPT_TIMEOUT) {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!*optarg || *end || v == 0 || v > 3600000ul)
                rc = cli_usage_error("verify", "--timeout expects milliseconds in [1, 3600000] (got '%s')", optarg);
            vo.timeout_ms = (unsigned)v;
        } else if (o == OPT_RLIMIT) {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!*optarg || *end || v == 0 || v > 4000000000ul)
                rc = cli_usage_error("verify", "--rlimit expects a Z3 resource limit in [1, 4000000000] (got '%s')", optarg);
            vo.rlimit = (unsigned)v;
        } else if (o == OPT_MAX_CASES) {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!*optarg || *end || v == 0 || v > SY_VERIFY_MAX_CASES_LIMIT)
                rc = cli_usage_error("verify", "--max-cases expects a number of cases in [1, %u] (got '%s')",
                                     SY_VERIFY_MAX_CASES_LIMIT, optarg);
            vo.max_cases = (unsigned)v;
        } else if (o == OPT_CASES) cases = optarg;
        else if (o == OPT_ARTIFACT) artifact = optarg;
    }
    if (rc == EX_OK && artifact && (cases || optind < argc || m.nov || !m.eo.duck_sizing || !m.eo.specialize_zero_one))
        rc = cli_usage_error("verify", "--artifact takes no model, no --cases and no model options");
    if (rc == EX_OK && artifact) {
        model_opts_free(&m);
        if (!sy_verify_available()) return cli_input_error("%s", sy_verify_unavailable_reason());
        return verify_artifact(artifact, &vo);
    }
    if (rc == EX_OK && cases && (optind < argc || m.nov || !m.eo.duck_sizing || !m.eo.specialize_zero_one))
        rc = cli_usage_error("verify", "--cases takes no model and no model options");
    if (rc == EX_OK && !cases && argc - optind != 1) rc = cli_usage_error("verify", "expected one model file (or --cases FILE)");
    /* Z3 is loaded here (symshape/verify.h): no other command loads it */
    if (rc == EX_OK && !sy_verify_available()) rc = cli_input_error("%s", sy_verify_unavailable_reason());
    if (rc != EX_OK) {
        model_opts_free(&m);
        return rc;
    }
    if (cases) {
        model_opts_free(&m);
        return cli_verify_cases(cases, &vo);
    }
    m.model = argv[optind];
    traced t;
    rc = trace_model("verify", &m, &t);
    sy_gset *produced = NULL;
    /* the inputs the guard set reads: the graph's, or those of the ONNX trace (as run) */
    size_t ni = 0;
    const sy_graph_input *const *ins = NULL;
    const sy_graph_input **gins = NULL;
    if (rc == EX_OK) rc = produce_recorded("produce guards", &t, &produced, &ins, &ni, &gins);
    /* (d): the model's example sizes */
    int64_t *example = NULL;
    if (rc == EX_OK) rc = example_values(&t, ni, ins, &example);
    sy_verify_summary sum;
    if (rc == EX_OK) {
        printf("verify ");
        cli_put_text(stdout, t.om ? sy_onnx_name(t.om) : sy_graph_name(t.g));
        printf(": %zu guards (%zu produced), %zu recorded decisions\n", sy_gset_size(t.gs), sy_gset_size(produced),
               sy_env_nguards(t.env));
        fflush(stdout);
        cli_progress prog;
        cli_progress_start(&prog, "verify", "obligations done", 0);
        if (sy_verify_model(t.env, produced, t.gs, example, &vo, print_obligation, &prog, &sum) != SY_OK)
            rc = cli_lib_error(t.ctx, "verify");
        cli_progress_done(&prog);
    }
    if (rc == EX_OK) {
        printf("%zu obligations: %zu proven, %zu refuted, %zu unknown", sum.proven + sum.refuted + sum.unknown, sum.proven,
               sum.refuted, sum.unknown);
        if (sum.skipped_runtime) printf(" (%zu runtime asserts are checked at run time, not implied)", sum.skipped_runtime);
        printf("\n");
        rc = sum.refuted ? EX_FALSE : sum.unknown ? EX_UNKNOWN : EX_OK;
    }
    free(example);
    free(gins);
    sy_gset_free(produced);
    traced_free(&t);
    model_opts_free(&m);
    return rc;
}

const cli_cmd cmd_verify = {"verify", "prove a model's guard set with Z3 (translation validation)",
    "usage: symshape verify [options] MODEL.json|MODEL.onnx\n"
    "       symshape verify [--timeout MS] [--rlimit N] [--max-cases N] --cases FILE.cases\n"
    "       symshape verify [--timeout MS] [--rlimit N] --artifact GUARDS.sybc\n\n"
    "Proves with Z3, over all integers (sizes and ranks >= 0), one line per obligation:\n"
    "  (a) the minimized guard set is equivalent to the produced one;\n"
    "  (b) the guard set implies every decision and requirement recorded while tracing\n"
    "      (translation validation, as PyTorch's fx/experimental/validator.py);\n"
    "  (c) it implies every replacement the env used;\n"
    "  (d) every guard holds at the model's example sizes (ONNX: --example, else each\n"
    "      dim_value, 224 for a symbolic dim).\n"
    "Each line says proven, refuted (with a counterexample point) or unknown (Z3's\n"
    "timeout); unknown is never counted as proven. With --cases: proves every simplify\n"
    "result equal to its input and every decide/bound answer, for all integer\n"
    "assignments that satisfy the case's assumptions (FILE '-': stdin).\n\n"
    "      --rlimit N           Z3's deterministic resource limit per obligation (default\n"
    "                           2000000): past it the verdict is unknown on every machine\n"
    "      --timeout MS         wall-clock limit per obligation (default 60000)\n"
    "      --max-cases N        the residue split's largest number of cases (default 4096):\n"
    "                           an obligation Z3 leaves unknown with Mod(p, c), FloorDiv(p, c)\n"
    "                           or CeilDiv(p, c) of a nonlinear polynomial p by a constant c is\n"
    "                           split on its symbols' residues modulo c (p(x) = p(x mod c) mod c);\n"
    "                           past N cases it stays unknown\n"
    "      --cases FILE         verify a .cases file instead of a model\n"
    "      --artifact FILE      check a certified program (symshape run -b bytecode --certify):\n"
    "                           it loads, its bytes have the SHA-256 its certificate names, the\n"
    "                           obligation is about its guards and each is checked, and Z3\n"
    "                           proves the obligation; else 'refused: REASON' and exit 1. C code\n"
    "                           of run -b c --certify: the hashes, the claim and Z3\n"
    MODEL_HELP
    CLI_EXIT_HEAD
    "  0  every obligation proven (--artifact: verified)\n"
    "  1  an obligation refuted (--artifact: refused, with the reason)\n" CLI_EXIT_USAGE
    "  3  bad model or cases file, or Z3 not available (built without it, or libz3 cannot be loaded)\n" CLI_EXIT_INTERNAL
    "  5  no refutation, but an obligation unknown (timeout)\n",
    run_verify, 0};
