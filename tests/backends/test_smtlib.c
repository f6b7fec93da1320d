/* The "smtlib" backend, checked by the z3 command (Debian's z3): every guard
 * set it renders is accepted by z3, and z3's verdict at a point (the script
 * plus the point's values, one push/pop per point) equals sy_gset_check_si's
 * at 10^3 points per corpus model and at points that give the divisions
 * negative operands. */
#include <stdio.h>
#include <unistd.h>

#include "bc_test_util.h"
#include "corpus.h"

TestSuite(smtlib, .init = ctx_setup, .fini = ctx_teardown);

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static char *render(const sy_gset *gs)
{
    unsigned char *data = NULL;
    size_t len = 0;
    cr_assert(eq(int, sy_backend_render("smtlib", gs, NULL, &data, &len), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return (char *)data;
}

/* Runs z3 on the script, then once per point on the script's body again
 * inside (push)/(pop) with every source defined as the point's value instead of
 * declared (z3 then decides the point by evaluation; asserting equalities on
 * declared constants would leave nonlinear div/mod to the incremental solver).
 * Compares each verdict with the reference checker. Returns points checked. */
static long z3_agrees(const sy_gset *gs, const char *script, const int64_t *pts, long npts, int set_alone)
{
    size_t ns = sy_gset_nsources(gs);
    const char *body = strstr(script, "(declare-const ");
    cr_assert(body != NULL);
    char path[] = "/tmp/sy_smtlib_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fwrite(script, 1, (size_t)(body - script), f); /* the prelude */
    if (set_alone) fprintf(f, "(push 1)\n%s(pop 1)\n", body); /* ends with (assert all)(check-sat) */
    for (long p = 0; p < npts; p++) {
        fputs("(push 1)\n", f);
        const char *q = body;
        while (*q) {
            const char *nl = strchr(q, '\n');
            size_t len = nl ? (size_t)(nl - q + 1) : strlen(q);
            if (!strncmp(q, "(declare-const |", 16)) {
                const char *nm = q + 16, *bar = strchr(nm, '|');
                long slot = -1;
                for (size_t s = 0; s < ns && slot < 0; s++)
                    if (strlen(sy_gset_source(gs, s)) == (size_t)(bar - nm) && !strncmp(sy_gset_source(gs, s), nm, (size_t)(bar - nm)))
                        slot = (long)s;
                cr_assert(slot >= 0, "unknown source in %.*s", (int)len, q);
                int64_t v = pts[p * (long)ns + slot];
                fprintf(f, "(define-fun |%.*s| () Int %s%lld%s)\n", (int)(bar - nm), nm, v < 0 ? "(- " : "",
                        (long long)(v < 0 ? -v : v), v < 0 ? ")" : "");
            } else if (strncmp(q, "; satisfiable", 13)) {
                fwrite(q, 1, len, f);
            }
            q += len;
        }
        fputs("(pop 1)\n", f);
    }
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "z3 -T:120 %s 2>&1", path);
    FILE *z = popen(cmd, "r");
    cr_assert(z != NULL, "cannot run z3");
    char line[256];
    if (set_alone) { /* the set alone: the example point satisfies it */
        cr_assert(fgets(line, sizeof line, z) != NULL, "z3 printed nothing");
        cr_assert(eq(str, line, "sat\n"), "z3 on the set alone: %s", line);
    }
    long checked = 0;
    for (long p = 0; p < npts; p++) {
        cr_assert(fgets(line, sizeof line, z) != NULL, "z3 stopped after %ld points", p);
        sy_gset_result r = SY_GSET_RESULT_INIT;
        cr_assert(eq(int, sy_gset_check_si(gs, pts + p * (long)ns, ns, &r), SY_OK));
        const char *want = r.accept ? "sat\n" : "unsat\n";
        cr_assert(eq(str, line, (char *)want), "point %ld: z3 says %s, the checker %s (%s)", p, line, want, r.message);
        checked++;
    }
    pclose(z);
    unlink(path);
    return checked;
}

/* Points around the example: sizes in [0, 2*example + 3], rank and dtype right
 * with probability 15/16 each. */
static int64_t *sample_points(const sy_gset *gs, const int64_t *example, long npts)
{
    size_t ns = sy_gset_nsources(gs);
    int64_t *pts = malloc((size_t)npts * ns * sizeof *pts);
    for (long p = 0; p < npts; p++)
        for (size_t s = 0; s < ns; s++) {
            const char *src = sy_gset_source(gs, s);
            int64_t ex = example[s];
            int64_t v;
            if (strstr(src, ".dim()") || strstr(src, ".dtype"))
                v = (rnd() % 16) ? ex : rnd_in(0, 11);
            else
                v = (rnd() % 4) ? (rnd() % 2 ? ex : rnd_in(0, 2 * ex + 3)) : rnd_in(0, 2 * ex + 3);
            pts[p * (long)ns + (long)s] = v;
        }
    return pts;
}

typedef struct { long models, points; } corpus_acc;

static void check_model(const char *path, const char *probes, const char *name, void *ud)
{
    (void)probes;
    (void)name;
    corpus_acc *acc = ud;
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    /* the example point: the graph's example shapes */
    size_t ni = sy_graph_ninputs(g), ns = sy_gset_nsources(gs);
    const char **names = malloc(ni * sizeof *names);
    size_t *ranks = malloc(ni * sizeof *ranks);
    const int64_t **shapes = malloc(ni * sizeof *shapes);
    sy_dtype *dts = malloc(ni * sizeof *dts);
    for (size_t i = 0; i < ni; i++) {
        const sy_graph_input *in = sy_graph_input_at(g, i);
        names[i] = in->name;
        ranks[i] = in->ndim;
        shapes[i] = in->shape;
        dts[i] = in->dtype;
    }
    int64_t *example = malloc(ns * sizeof *example);
    cr_assert(eq(int, sy_gset_values_from_shapes(gs, ni, names, ranks, shapes, dts, example), SY_OK));
    int64_t *pts = sample_points(gs, example, 1000);
    memcpy(pts, example, ns * sizeof *pts); /* point 0 is the example itself */
    char *script = render(gs);
    acc->points += z3_agrees(gs, script, pts, 1000, 1);
    acc->models++;
    sy_mem_free(ctx, script);
    free(pts);
    free(example);
    free(names);
    free(ranks);
    free(shapes);
    free(dts);
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

Test(smtlib, z3_agrees_with_the_checker_on_every_corpus_model)
{
    corpus_acc acc = {0, 0};
    cr_assert(corpus_for_each(check_model, &acc) > 0);
    cr_assert(eq(long, acc.points, acc.models * 1000));
}

/* Random relations over three sizes whose divisions see negative operands and
 * divisors (s - 7, 3 - s, ...), as user facts (sy_env_assume), so the guard
 * set holds them verbatim; z3 must agree with the evaluator at every point,
 * including points where a divisor is 0 (the guard fails). */
static const sy_expr *rnd_term(sy_ctx *c, const sy_expr *const *s, int depth)
{
    if (depth == 0 || rnd() % 4 == 0) {
        if (rnd() % 3 == 0) return sy_expr_int_si(c, rnd_in(-9, 9));
        return sy_expr_add_si(c, sy_expr_mul_si(c, s[rnd() % 3], rnd() % 2 ? 1 : -1), rnd_in(-8, 8));
    }
    const sy_expr *a = rnd_term(c, s, depth - 1), *b = rnd_term(c, s, depth - 1);
    int64_t bv;
    switch (rnd() % 8) {
    case 0: return sy_expr_add(c, a, b);
    case 1: return sy_expr_mul(c, a, b);
    case 2: if (sy_expr_get_si(b, &bv) == SY_OK && bv == 0) return a; return sy_expr_floordiv(c, a, b);
    case 3: if (sy_expr_get_si(b, &bv) == SY_OK && bv == 0) return a; return sy_expr_mod(c, a, b);
    case 4: if (sy_expr_get_si(b, &bv) == SY_OK && bv == 0) return a; return sy_expr_ceildiv(c, a, b);
    case 5: return sy_expr_min(c, a, b);
    case 6: return sy_expr_max(c, a, b);
    default: return sy_expr_pow_ui(c, a, 2 + rnd() % 2);
    }
}

Test(smtlib, floor_semantics_on_negative_operands_match_the_evaluator)
{
    long total = 0, sets = 0;
    for (int round = 0; round < 20; round++) {
        sy_env *env = sy_env_new(ctx, NULL);
        int64_t shape[3] = {rnd_in(2, 12), rnd_in(2, 12), rnd_in(2, 12)};
        sy_dim_policy pol[3] = {SY_DIM_DYNAMIC, SY_DIM_DYNAMIC, SY_DIM_DYNAMIC};
        const sy_tensor *x = sy_env_input(env, "x", SY_DT_FLOAT32, 3, shape, pol);
        cr_assert(x != NULL);
        const sy_expr *s[3] = {x->sizes[0], x->sizes[1], x->sizes[2]};
        int added = 0;
        for (int k = 0; k < 12; k++) {
            const sy_expr *l = rnd_term(ctx, s, 3), *r = rnd_term(ctx, s, 2);
            if (!l || !r) {
                sy_ctx_reset_error(ctx);
                continue;
            }
            const sy_expr *rel = sy_expr_rel(ctx, (sy_rel_op)(rnd() % 6), l, r);
            if (!rel) {
                sy_ctx_reset_error(ctx);
                continue;
            }
            const sy_expr *h = NULL;
            if (sy_env_hint(env, rel, &h) != SY_OK) {
                sy_ctx_reset_error(ctx);
                continue;
            }
            if (sy_expr_kind_of(h) == SY_EXPR_FALSE) rel = sy_expr_not(ctx, rel);
            sy_provenance why = {"test", "assume", "random fact"};
            if (sy_env_assume(env, rel, &why) == SY_OK) added++;
            else sy_ctx_reset_error(ctx);
        }
        sy_gset *gs;
        cr_assert(eq(int, sy_gset_produce(env, NULL, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        size_t ns = sy_gset_nsources(gs);
        int64_t *pts = malloc(200 * ns * sizeof *pts);
        for (long p = 0; p < 200; p++)
            for (size_t q = 0; q < ns; q++) {
                const char *src = sy_gset_source(gs, q);
                int64_t v = rnd_in(0, 14);
                if (strstr(src, ".dim()")) v = 3;
                else if (strstr(src, ".dtype")) v = 0;
                else if (p == 0) v = shape[src[strlen(src) - 2] - '0'];
                pts[p * (long)ns + (long)q] = v;
            }
        char *script = render(gs);
        total += z3_agrees(gs, script, pts, 200, 0);
        sets += added > 0;
        sy_mem_free(ctx, script);
        free(pts);
        sy_gset_free(gs);
        sy_env_free(env);
    }
    cr_assert(eq(long, total, 20 * 200));
    cr_assert(sets >= 15, "only %ld rounds had facts", sets);
}

Test(smtlib, shared_subterms_are_bound_once)
{
    /* FloorDiv chain: every layer reads the previous one twice; the tree has
     * 2^20 leaves, the DAG 20 layers: the script must stay small. */
    sy_env *env = sy_env_new(ctx, NULL);
    int64_t shape[1] = {5};
    const sy_tensor *x = sy_env_input(env, "x", SY_DT_FLOAT32, 1, shape, NULL);
    const sy_expr *l = x->sizes[0];
    for (int i = 0; i < 20; i++) l = sy_expr_floordiv(ctx, sy_expr_add(ctx, sy_expr_mul(ctx, l, l), l), sy_expr_add_si(ctx, l, 1));
    sy_provenance why = {"test", "assume", "chain"};
    const sy_expr *rel = sy_expr_ge(ctx, l, sy_expr_int_si(ctx, 0));
    cr_assert(rel != NULL);
    cr_assert(eq(int, sy_env_assume(env, rel, &why), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, NULL, &gs), SY_OK));
    char *script = render(gs);
    cr_assert(lt(sz, strlen(script), (size_t)20000), "script of %zu bytes", strlen(script));
    int64_t pts[4 * 8] = {0};
    size_t ns = sy_gset_nsources(gs);
    cr_assert(le(sz, ns, (size_t)8));
    for (int p = 0; p < 4; p++)
        for (size_t q = 0; q < ns; q++) pts[p * (long)ns + (long)q] = strstr(sy_gset_source(gs, q), ".dim()") ? 1 : strstr(sy_gset_source(gs, q), ".dtype") ? 0 : p + 2;
    z3_agrees(gs, script, pts, 4, 0);
    sy_mem_free(ctx, script);
    sy_gset_free(gs);
    sy_env_free(env);
}

/* Issue 14's nested FloorDiv chain (the 69-node graph, and the chain as a
 * user fact with divisor Q - 1, which divides by zero for L in 22..29): one
 * define-fun per shared node, the let-form guard text as comment lines
 * (before: the second line of the let-form was outside the comment and z3
 * rejected the script). z3 accepts the script and agrees with the
 * reference at sizes 0..4, 18..32 and 156..160, failing ones included. */
static void chain_z3(const sy_gset *gs)
{
    char *script = render(gs);
    size_t ns = sy_gset_nsources(gs);
    cr_assert(le(sz, ns, (size_t)8));
    int64_t pts[25 * 8];
    long np = 0;
    for (int64_t v = 0; v <= 160; v++) {
        if ((v > 4 && v < 18) || (v > 32 && v < 156)) continue;
        for (size_t q = 0; q < ns; q++)
            pts[np * (long)ns + (long)q] = strstr(sy_gset_source(gs, q), ".dim()") ? 1 : strstr(sy_gset_source(gs, q), ".dtype") ? 0 : v;
        np++;
    }
    cr_assert(eq(long, z3_agrees(gs, script, pts, np, 1), np));
    sy_mem_free(ctx, script);
}

Test(smtlib, floordiv_chain_69_and_the_chain_as_a_guard_are_accepted_by_z3)
{
    sy_graph *g;
    sy_gset *gs = bt_chain69_gset(&g);
    chain_z3(gs);
    sy_gset_free(gs);
    sy_graph_free(g);
    gs = bt_chain_gset(6, &g);
    chain_z3(gs);
    sy_gset_free(gs);
    sy_graph_free(g);
}

/* The model's name and the guard texts (which carry input names) go into `;`
 * comments: a line break in them continued the comment no more, so a model
 * named "m\n(assert false)\n" made the script unsat. Every line of the script
 * outside the prelude's definitions is now a comment or one of the script's
 * own commands, a \r is written as '?', and z3 still says sat. A prefix that
 * cannot stand in a quoted symbol is refused. */
Test(smtlib, names_cannot_leave_a_comment)
{
    static const char G[] =
        "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"m\\n(assert false)\\r(assert false)\\n\",\"nodes\":["
        "{\"name\":\"x\\n(assert false)\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,3],\"dynamic\":[0,1]}],"
        "\"outputs\":[{\"ref\":\"x\\n(assert false)\"}]}";
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "t.json", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    char *script = render(gs);
    cr_assert(strstr(script, "\r") == NULL);
    for (const char *l = script; *l; l = strchr(l, '\n') + 1) {
        if (!strncmp(l, "(assert ", 8)) cr_assert(strncmp(l, "(assert |guard_all|)", 20) == 0, "%.40s", l);
        if (!strchr(l, '\n')) break;
    }
    cr_assert(strstr(script, "; symshape guard set of m\n;   (assert false)?(assert false)\n;   : ") != NULL, "%s", script);
    char path[] = "/tmp/sy_smtlib_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(script, f);
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "z3 %s 2>&1", path);
    FILE *p = popen(cmd, "r");
    char out[256] = {0};
    size_t n = fread(out, 1, sizeof out - 1, p);
    pclose(p);
    unlink(path);
    cr_assert(eq(str, (n ? out : ""), "sat\n"));
    sy_mem_free(ctx, script);
    sy_backend_options bo = SY_BACKEND_OPTIONS_INIT;
    bo.prefix = "a|b";
    unsigned char *data = NULL;
    size_t len = 0;
    cr_assert(eq(int, sy_backend_render("smtlib", gs, &bo, &data, &len), SY_EINVAL));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "prefix 'a|b' cannot stand in an SMT-LIB quoted symbol") != NULL);
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* Issue 38 (third pass): the quoted symbol of a source wrote '_' for '|', '\' and control
 * characters, so inputs "a|b" and "a_b" were one SMT constant (declared twice, and a guard
 * relating them read x == x). Now those bytes and '%' are %XX: "a|b", "a_b" and "a%7cb" are
 * three constants, z3 accepts the script, and a point that breaks the guard between two of
 * them is unsat. */
Test(smtlib, distinct_names_stay_distinct_symbols)
{
    sy_env *env = sy_env_new(ctx, NULL);
    const char *names[3] = {"a|b", "a_b", "a%7cb"};
    const sy_expr *s[3];
    for (int i = 0; i < 3; i++) {
        int64_t shape[1] = {3 + i};
        const sy_tensor *t = sy_env_input(env, names[i], SY_DT_FLOAT32, 1, shape, NULL);
        cr_assert(t != NULL, "%s", sy_ctx_last_error_msg(ctx));
        s[i] = t->sizes[0];
    }
    sy_provenance why = {"test", "assume", "names"};
    for (int i = 0; i < 2; i++)
        cr_assert(eq(int, sy_env_assume(env, sy_expr_eq(ctx, sy_expr_add_si(ctx, s[i], 1), s[i + 1]), &why), SY_OK), "%s",
                  sy_ctx_last_error_msg(ctx));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, NULL, &gs), SY_OK));
    char *script = render(gs);
    cr_assert(strstr(script, "(declare-const |a%7cb.size()[0]| Int)") != NULL, "%s", script);
    cr_assert(strstr(script, "(declare-const |a_b.size()[0]| Int)") != NULL, "%s", script);
    cr_assert(strstr(script, "(declare-const |a%257cb.size()[0]| Int)") != NULL, "%s", script);
    char path[] = "/tmp/sy_smtlib_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(script, f); /* ends with (check-sat): the example point satisfies the set */
    fputs("(push 1)\n(assert (= |a%7cb.size()[0]| 3))\n(assert (= |a_b.size()[0]| 3))\n(check-sat)\n(pop 1)\n", f);
    fputs("(push 1)\n(assert (= |a_b.size()[0]| 4))\n(assert (= |a%257cb.size()[0]| 4))\n(check-sat)\n(pop 1)\n", f);
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "z3 -T:60 %s 2>&1", path);
    FILE *z = popen(cmd, "r");
    cr_assert(z != NULL, "cannot run z3");
    char out[256] = "";
    size_t n = fread(out, 1, sizeof out - 1, z);
    out[n] = 0;
    pclose(z);
    unlink(path);
    cr_assert(eq(str, out, "sat\nunsat\nunsat\n"), "z3: %s", out);
    sy_mem_free(ctx, script);
    sy_gset_free(gs);
    sy_env_free(env);
}
