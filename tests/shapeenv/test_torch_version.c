/* The PyTorch release the ops follow (issue 31): the graph's "torch_version" read by the loader
 * (sy_graph_torch_version), passed to the env by sy_env_trace, and one op of each kind whose
 * 1.13 and 2.x kernels differ (docs/ops.md section 7a), through sy_env_set_torch_version. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "symshape/graph.h"

SY_TEST_ENV_FIXTURE

#define CASE(name) Test(shapeenv_torch_version, name, .init = env_setup, .fini = env_teardown, .timeout = SY_TIMEOUT(30))

static sy_status load(const char *ver_json, sy_graph **g)
{
    char doc[640];
    snprintf(doc, sizeof doc,
             "{\"format\": \"symshape.graph\", \"version\": 1, %s%s%s \"nodes\": ["
             "{\"name\": \"x\", \"op\": \"input\", \"dtype\": \"float32\", \"shape\": [4, 0], \"dynamic\": []},"
             "{\"name\": \"o\", \"op\": \"diag\", \"args\": [{\"ref\": \"x\"}, 2]}], \"outputs\": [{\"ref\": \"o\"}]}",
             ver_json ? "\"torch_version\": " : "", ver_json ? ver_json : "", ver_json ? "," : "");
    return sy_graph_load_text(ctx, doc, strlen(doc), "tv", g);
}

CASE(graph_version_parsed)
{
    static const struct { const char *json; int want; } ok[] = {
        {"\"1.13.0a0+git49444c3\"", 113}, {"\"2.14.1+cu130\"", 214}, {"\"2.0.0\"", 200}, {"\"2.5\"", 205},
        {"\"2.9.0.dev20250101\"", 209}, {"\"2.13.0+cpu\"", 213}, {"\"2.5.0a0+git1234\"", 205}, {"\"2.6rc1\"", 206}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sy_graph *g = NULL;
        cr_assert(eq(int, load(ok[i].json, &g), SY_OK), "%s: %s", ok[i].json, sy_ctx_last_error_msg(ctx));
        cr_expect(eq(int, sy_graph_torch_version(g), ok[i].want), "%s", ok[i].json);
        sy_graph_free(g);
    }
    sy_graph *g = NULL;
    cr_assert(eq(int, load(NULL, &g), SY_OK));
    cr_expect(eq(int, sy_graph_torch_version(g), 0), "absent: 0 (the newest)");
    sy_graph_free(g);
    cr_expect(eq(int, sy_graph_torch_version(NULL), 0));
}

CASE(graph_version_rejected)
{
    static const char *bad[] = {"\"\"", "\"x\"", "\"2\"", "\"2.x\"", "214", "null", "\"0.4.1\"", "\"2.14foo\"",
                                "\"2.1rubbish\"", "\"1.13abc\"", "\"2.14.1 \"", "\"2.14a\"", "\"2.14rc\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sy_graph *g = NULL;
        cr_expect(eq(int, load(bad[i], &g), SY_EFORMAT), "%s accepted", bad[i]);
        cr_expect(strstr(sy_ctx_last_error_msg(ctx), "torch_version") != NULL, "%s: %s", bad[i], sy_ctx_last_error_msg(ctx));
        sy_graph_free(g);
    }
}

/* diag of a [4, 0] matrix at offset 2: 1.13's diag_cpu fails (length -2), 2.x's diagonal clamps to 0 */
CASE(trace_follows_the_graph)
{
    sy_graph *g = NULL;
    sy_trace *t = NULL;
    cr_assert(eq(int, load("\"1.13.0a0\"", &g), SY_OK));
    cr_expect(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_EINVAL), "1.13 traced diag of a negative length");
    cr_expect(strstr(sy_ctx_last_error_msg(ctx), "negative") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_expect(eq(int, sy_env_torch_version(env), 113));
    sy_trace_free(t);
    sy_graph_free(g);
    sy_env *e2 = sy_env_new(ctx, NULL);
    cr_assert(eq(int, load("\"2.14.1\"", &g), SY_OK));
    cr_assert(eq(int, sy_env_trace(e2, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_value *o = sy_trace_output(t, 0);
    int64_t n = -1;
    cr_assert(o && o->kind == SY_V_TENSOR && o->u.t->ndim == 1);
    cr_assert(eq(int, sy_expr_get_si(o->u.t->sizes[0], &n), 0));
    cr_expect(eq(i64, n, 0));
    sy_trace_free(t);
    sy_graph_free(g);
    sy_env_free(e2);
}

CASE(set_version_defaults_to_newest)
{
    cr_expect(eq(int, sy_env_torch_version(env), 0));
    sy_env_set_torch_version(env, 113);
    cr_expect(eq(int, sy_env_torch_version(env), 113));
    sy_env_set_torch_version(env, -5);
    cr_expect(eq(int, sy_env_torch_version(env), 0));
    sy_env_set_torch_version(NULL, 113); /* no effect, no crash */
    cr_expect(eq(int, sy_env_torch_version(NULL), 0));
}

/* a graph without "torch_version" traced in an env that traced a 1.13 graph gets the newest kernels */
CASE(reused_env_takes_each_graphs_version)
{
    sy_graph *g = NULL;
    sy_trace *t = NULL;
    cr_assert(eq(int, load("\"1.13.0a0\"", &g), SY_OK));
    (void)sy_env_trace(env, g, 0, NULL, &t);
    cr_expect(eq(int, sy_env_torch_version(env), 113));
    sy_trace_free(t);
    sy_graph_free(g);
    t = NULL;
    static const char doc[] = "{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": ["
                              "{\"name\": \"y\", \"op\": \"input\", \"dtype\": \"float32\", \"shape\": [4, 0], \"dynamic\": []},"
                              "{\"name\": \"o\", \"op\": \"diag\", \"args\": [{\"ref\": \"y\"}, 2]}], \"outputs\": [{\"ref\": \"o\"}]}";
    cr_assert(eq(int, sy_graph_load_text(ctx, doc, strlen(doc), "tv2", &g), SY_OK));
    cr_expect(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_expect(eq(int, sy_env_torch_version(env), 0));
    sy_trace_free(t);
    sy_graph_free(g);
}
