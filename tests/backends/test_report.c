/* The report backends ("report", "markdown"): golden files for resnet18,
 * vit_b_16 (examples/) and squeezenet1_0 (../shared/corpus, when present)
 * rendered with the env and the graph, and for vit_b_16 from the guard set
 * alone and with the graph only; what the reports must say (ViT's image size
 * pinned by its _assert, ranges, totals); determinism; Markdown escaping;
 * runtime asserts; out-of-memory behaviour. Regenerate the goldens with
 * SY_UPDATE_GOLDEN=1 (see golden.h). */
#include <unistd.h>

#include "golden.h"

typedef struct {
    sy_graph *g;
    sy_env *env;
    sy_gset *gs;
} traced;

/* trace t->g (loaded), produce and minimize */
static void trace_loaded(traced *t)
{
    t->env = sy_env_new(ctx, NULL);
    cr_assert(t->env != NULL);
    sy_trace *tr;
    cr_assert(eq(int, sy_env_trace(t->env, t->g, 0, NULL, &tr), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_produce(t->env, t->g, &t->gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(t->gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(tr);
}

static void trace(const char *path, traced *t)
{
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &t->g), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    trace_loaded(t);
}

static void untrace(traced *t)
{
    sy_gset_free(t->gs);
    sy_env_free(t->env);
    sy_graph_free(t->g);
}

/* render with the env and/or the graph (NULL: left out) */
static char *render(const char *backend, const traced *t, int with_env, int with_graph, size_t *len)
{
    sy_backend_options o = SY_BACKEND_OPTIONS_INIT;
    o.env = with_env ? t->env : NULL;
    o.graph = with_graph ? t->g : NULL;
    unsigned char *data;
    cr_assert(eq(int, sy_backend_render(backend, t->gs, &o, &data, len), SY_OK), "%s: %s", backend, sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, strlen((char *)data), *len));
    return (char *)data;
}

static void golden_model(const char *path, const char *name)
{
    traced t;
    trace(path, &t);
    char gname[256];
    size_t len;
    char *s = render("report", &t, 1, 1, &len);
    snprintf(gname, sizeof gname, "%s.txt", name);
    golden_check(gname, s, len);
    sy_mem_free(ctx, s);
    s = render("markdown", &t, 1, 1, &len);
    snprintf(gname, sizeof gname, "%s.md", name);
    golden_check(gname, s, len);
    sy_mem_free(ctx, s);
    untrace(&t);
}

Test(backends_report, golden_resnet18, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    golden_model(SY_TESTS_DIR "/../examples/resnet18.json", "resnet18");
}

Test(backends_report, golden_vit_b_16, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    golden_model(SY_TESTS_DIR "/../examples/vit_b_16.json", "vit_b_16");
    /* from the guard set alone, and with the graph but no env */
    traced t;
    trace(SY_TESTS_DIR "/../examples/vit_b_16.json", &t);
    size_t len;
    char *s = render("report", &t, 0, 0, &len);
    golden_check("vit_b_16.gset-only.txt", s, len);
    sy_mem_free(ctx, s);
    s = render("markdown", &t, 0, 1, &len);
    golden_check("vit_b_16.graph-only.md", s, len);
    sy_mem_free(ctx, s);
    untrace(&t);
}

Test(backends_report, golden_squeezenet1_0, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    const char *path = SY_SHARED_DIR "/corpus/squeezenet1_0.json";
    if (access(path, R_OK) != 0) cr_skip_test("%s not present", path);
    golden_model(path, "squeezenet1_0");
}

/* what a PyTorch user must read in the report, independent of the layout */
Test(backends_report, vit_image_size_is_pinned_by_its_assert, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    traced t;
    trace(SY_TESTS_DIR "/../examples/vit_b_16.json", &t);
    for (int mode = 0; mode < 3; mode++) {
        /* env and graph; graph only; guard set only */
        size_t len;
        char *s = render("report", &t, mode == 0, mode < 2, &len);
        cr_assert(strstr(s, "symshape guard report: vit_b_16") != NULL, "%s", s);
        cr_assert(strstr(s, "x.size()[2]  specialized: 224") != NULL, "%s", s);
        cr_assert(strstr(s, "x.size()[3]  specialized: 224") != NULL, "%s", s);
        cr_assert(strstr(s, "forced at node _assert (op _assert, 1 time): Wrong image height! Expected 224") != NULL, "%s", s);
        cr_assert(strstr(s, "x.size()[1]  static: 3") != NULL, "%s", s);
        cr_assert(strstr(s, "x.size()[0]  dynamic: ") != NULL, "%s", s);
        cr_assert(strstr(s, "recorded during tracing (with repeats):              1") != NULL, "%s", s);
        cr_assert(strstr(s, "in the set after minimization (with derived guards): 6") != NULL, "%s", s);
        if (mode == 0) cr_assert(strstr(s, "dynamic: symbol s0, range [2, oo)") != NULL, "%s", s);
        else cr_assert(strstr(s, "range [2, oo) (from the guards)") != NULL, "%s", s);
        if (mode < 2) cr_assert(strstr(s, "x: float32, rank 4, example shape [2, 3, 224, 224]") != NULL, "%s", s);
        else cr_assert(strstr(s, "x: float32, rank 4\n") != NULL, "%s", s);
        sy_mem_free(ctx, s);
    }
    untrace(&t);
}

Test(backends_report, output_is_deterministic_across_contexts, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    const char *backends[] = {"report", "markdown"};
    for (int b = 0; b < 2; b++) {
        traced t;
        trace(SY_TESTS_DIR "/../examples/vit_b_16.json", &t);
        size_t l1, l2;
        char *s1 = render(backends[b], &t, 1, 1, &l1);
        char *s2 = render(backends[b], &t, 1, 1, &l2);
        cr_assert(eq(str, s1, s2));
        /* a second context with other symbols interned first */
        sy_ctx *c2 = NULL;
        cr_assert(eq(int, sy_ctx_new(NULL, &c2), SY_OK));
        const sy_expr *junk;
        cr_assert(eq(int, sy_expr_parse(c2, "zz*yy + FloorDiv(q, 3)", (size_t)-1, &junk), SY_OK));
        sy_graph *g2;
        cr_assert(eq(int, sy_graph_load_file(c2, SY_TESTS_DIR "/../examples/vit_b_16.json", &g2), SY_OK));
        sy_env *e2 = sy_env_new(c2, NULL);
        sy_trace *tr;
        cr_assert(eq(int, sy_env_trace(e2, g2, 0, NULL, &tr), SY_OK));
        sy_gset *gs2;
        cr_assert(eq(int, sy_gset_produce(e2, g2, &gs2), SY_OK));
        cr_assert(eq(int, sy_gset_minimize(gs2), SY_OK));
        sy_backend_options o = SY_BACKEND_OPTIONS_INIT;
        o.env = e2;
        o.graph = g2;
        unsigned char *d3;
        size_t l3;
        cr_assert(eq(int, sy_backend_render(backends[b], gs2, &o, &d3, &l3), SY_OK));
        cr_assert(eq(str, s1, (char *)d3));
        sy_mem_free(c2, d3);
        sy_gset_free(gs2);
        sy_trace_free(tr);
        sy_env_free(e2);
        sy_graph_free(g2);
        sy_ctx_free(c2);
        sy_mem_free(ctx, s1);
        sy_mem_free(ctx, s2);
        untrace(&t);
    }
}

/* user facts, a runtime assert, text that needs Markdown escaping */
Test(backends_report, runtime_asserts_provenance_and_markdown_escaping, .init = ctx_setup, .fini = ctx_teardown)
{
    const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"m_x\",\"nodes\":["
                    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"int64\",\"shape\":[6,8],\"dynamic\":[0,1]},"
                    "{\"name\":\"y\",\"op\":\"input\",\"dtype\":\"float16\",\"shape\":[1,8],\"dynamic\":[0,1]}],"
                    "\"outputs\":[{\"ref\":\"x\"},{\"ref\":\"y\"}]}";
    traced t;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "m", &t.g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    t.env = sy_env_new(ctx, NULL);
    sy_trace *tr;
    cr_assert(eq(int, sy_env_trace(t.env, t.g, 0, NULL, &tr), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_tensor *x = sy_trace_value(tr, 0)->u.t;
    sy_provenance why = {"check_1", "my_op", "sizes must satisfy a|b*c <x>"};
    const sy_expr *rel = sy_expr_le(ctx, sy_expr_mod(ctx, x->sizes[0], sy_expr_int_si(ctx, 4)), sy_expr_int_si(ctx, 2));
    cr_assert(eq(int, sy_env_assume(t.env, rel, &why), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_env_assume(t.env, rel, &why), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_provenance ra = {"item", "item", "u0 >= 0"};
    cr_assert(eq(int, sy_env_runtime_assert(t.env, sy_expr_le(ctx, x->sizes[0], sy_expr_mul_si(ctx, x->sizes[1], 3)), &ra),
                 SY_OK),
              "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_produce(t.env, t.g, &t.gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_trace_free(tr);
    size_t len;
    char *s = render("report", &t, 1, 1, &len);
    cr_assert(strstr(s, "runtime_assert (1) - Deferred asserts") != NULL, "%s", s);
    cr_assert(strstr(s, "relation (1)") != NULL, "%s", s);
    cr_assert(strstr(s, "node check_1 (op my_op, 1 time): sizes must satisfy a|b*c <x>") != NULL, "%s", s);
    cr_assert(strstr(s, "y: float16, rank 2, example shape [1, 8]") != NULL, "%s", s);
    cr_assert(strstr(s, "y.size()[0]  static: 1 (0/1 specialization: example size 1; --no-specialize-01 or a spec with min=1 avoids it)") != NULL, "%s", s);
    cr_assert(strstr(s, "x.size()[1]  dynamic: symbol s1, range [2, oo); equal to y.size()[1]") != NULL, "%s", s);
    sy_mem_free(ctx, s);
    s = render("markdown", &t, 1, 1, &len);
    cr_assert(strstr(s, "# Guard report: `m_x`") != NULL, "%s", s);
    cr_assert(strstr(s, "sizes must satisfy a\\|b\\*c \\<x\\>") != NULL, "%s", s);
    cr_assert(strstr(s, "### runtime\\_assert (1)") == NULL && strstr(s, "### runtime_assert (1)") != NULL, "%s", s);
    cr_assert(strstr(s, "| **specialized** |") == NULL, "%s", s);
    sy_mem_free(ctx, s);
    untrace(&t);
}

/* a set rendered alone (no graph, no env): the inputs come from the sources,
 * and `NAME.stride()[I]` sources belong to input NAME like its sizes do */
Test(backends_report, stride_sources_belong_to_their_input, .init = ctx_setup, .fini = ctx_teardown)
{
    const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["
                    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,3,8,8],"
                    "\"dynamic\":[0,0,1,1],\"strides\":\"channels_last\"},"
                    "{\"name\":\"r\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}],\"outputs\":[{\"ref\":\"r\"}]}";
    traced t;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "m", &t.g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    trace_loaded(&t);
    size_t len;
    char *s = render("report", &t, 0, 0, &len);
    cr_assert(strstr(s, "\n  x: float32, rank 4\n") != NULL, "%s", s);
    cr_assert(strstr(s, "\n  x.stride()") == NULL, "a stride source is listed as an input of its own:\n%s", s);
    sy_mem_free(ctx, s);
    untrace(&t);
}

/* every allocation failing in turn: SY_ENOMEM, nothing leaked, then the
 * same bytes once memory suffices */
Test(backends_report, out_of_memory_at_every_allocation, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    traced t;
    trace(SY_TESTS_DIR "/../examples/vit_b_16.json", &t);
    const char *backends[] = {"report", "markdown", "c"};
    for (int b = 0; b < 3; b++) {
        size_t wlen;
        char *want = render(backends[b], &t, 1, 1, &wlen);
        sy_backend_options o = SY_BACKEND_OPTIONS_INIT;
        o.env = t.env;
        o.graph = t.g;
        int ok = 0;
        for (long n = 0; n < 100000 && !ok; n++) {
            long live = g_alloc.live;
            g_alloc.count = 0;
            g_alloc.fail_at = n;
            unsigned char *data = NULL;
            size_t len = 0;
            sy_status st = sy_backend_render(backends[b], t.gs, &o, &data, &len);
            g_alloc.fail_at = -1;
            if (st == SY_OK) {
                cr_assert(eq(str, (char *)data, want), "%s: output differs after %ld allocations", backends[b], n);
                sy_mem_free(ctx, data);
                ok = 1;
            } else {
                cr_assert(eq(int, st, SY_ENOMEM), "%s, allocation %ld: %s", backends[b], n, sy_ctx_last_error_msg(ctx));
                cr_assert(data == NULL);
                /* interned nodes may stay in the context's arena; nothing else */
                cr_assert(le(long, g_alloc.live - live, 8), "%s, allocation %ld: %ld blocks more", backends[b], n,
                          g_alloc.live - live);
            }
        }
        cr_assert(ok);
        sy_mem_free(ctx, want);
    }
    untrace(&t);
}
