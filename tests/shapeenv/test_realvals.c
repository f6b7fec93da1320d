/* get_real_value: memo hits, invalidation on rebind, errors name the node. */
#include "common.h"

static const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"t\",\"nodes\":["
                       "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,8],\"dynamic\":[0,1]},"
                       "{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},1]},"
                       "{\"name\":\"e\",\"op\":\"eq\",\"args\":[{\"ref\":\"s\"},8]},"
                       "{\"name\":\"a\",\"op\":\"_assert\",\"args\":[{\"ref\":\"e\"},\"width must be 8\"]},"
                       "{\"name\":\"v\",\"op\":\"view\",\"args\":[{\"ref\":\"x\"},-1,4]}],"
                       "\"outputs\":[{\"ref\":\"v\"}]}";

Test(shapeenv_realvals, memo_and_invalidation, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "t", &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_realvals *rv = sy_realvals_new(ctx, g);
    const sy_value *v;
    cr_assert(eq(int, sy_realvals_get(rv, 0, &v), SY_EINVAL)); /* unbound */
    cr_assert(eq(int, sy_realvals_bind(rv, "x", 2, (int64_t[]){3, 8}), SY_OK));
    cr_assert(eq(int, sy_realvals_get(rv, 4, &v), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    int64_t d0;
    cr_assert(eq(int, sy_expr_get_si(v->u.t->sizes[0], &d0), SY_OK));
    cr_assert(eq(i64, d0, 6));
    size_t computed, hits;
    sy_realvals_stats(rv, &computed, &hits);
    cr_assert(eq(sz, computed, 5));
    cr_assert(eq(int, sy_realvals_get(rv, 1, &v), SY_OK));
    cr_assert(eq(int, sy_realvals_get(rv, 4, &v), SY_OK));
    sy_realvals_stats(rv, &computed, &hits);
    cr_assert(eq(sz, computed, 5));
    cr_assert(eq(sz, hits, 2));
    /* rebinding invalidates: the assert now fails and names the node */
    cr_assert(eq(int, sy_realvals_bind(rv, "x", 2, (int64_t[]){3, 7}), SY_OK));
    cr_assert(eq(int, sy_realvals_get(rv, 1, &v), SY_OK));
    int64_t w;
    cr_assert(eq(int, sy_expr_get_si(v->u.i, &w), SY_OK));
    cr_assert(eq(i64, w, 7));
    cr_assert(eq(int, sy_realvals_get(rv, 4, &v), SY_EINVAL));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "node 'a'") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "width must be 8") != NULL);
    cr_assert(eq(int, sy_realvals_bind(rv, "y", 1, (int64_t[]){3}), SY_EINVAL));
    cr_assert(eq(int, sy_realvals_bind(rv, "x", 1, (int64_t[]){3}), SY_EINVAL));
    sy_realvals_free(rv);
    sy_graph_free(g);
}

Test(shapeenv_graph, malformed_documents_name_the_place, .init = ctx_setup, .fini = ctx_teardown)
{
    static const struct { const char *text; sy_status st; const char *msg; } t[] = {
        {"{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": [}", SY_EFORMAT, "line 1, column"},
        {"{\"format\": \"other\", \"version\": 1, \"nodes\": [], \"outputs\": []}", SY_EFORMAT, "\"format\""},
        {"{\"format\": \"symshape.graph\", \"version\": 7, \"nodes\": [], \"outputs\": []}", SY_EVERSION, "version 7"},
        {"{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": [{\"name\": \"a\", \"op\": \"relu\", \"args\": [{\"ref\": \"zz\"}]}], \"outputs\": []}", SY_EFORMAT, "node 'a': dangling ref 'zz'"},
        {"{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": [{\"name\": \"a\", \"op\": \"relu\", \"args\": [{\"ref\": \"a\"}]}], \"outputs\": []}", SY_EFORMAT, "later node"},
        {"{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": [{\"name\": \"x\", \"op\": \"input\", \"dtype\": \"float99\", \"shape\": [1]}], \"outputs\": []}", SY_EFORMAT, "node 'x': unknown or missing dtype"},
        {"{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": [{\"name\": \"x\", \"op\": \"input\", \"dtype\": \"float32\", \"shape\": [1, -2]}], \"outputs\": []}", SY_EFORMAT, "shape entry 1"},
        {"{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": [{\"op\": \"relu\"}], \"outputs\": []}", SY_EFORMAT, "node #0 has no \"name\""},
        {"[1, 2]", SY_EFORMAT, "must be a JSON object"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        sy_graph *g = (sy_graph *)1;
        sy_status st = sy_graph_load_text(ctx, t[i].text, strlen(t[i].text), "doc.json", &g);
        cr_assert(eq(int, st, t[i].st), "case %zu: %s", i, sy_ctx_last_error_msg(ctx));
        cr_assert(g == NULL);
        cr_assert(strstr(sy_ctx_last_error_msg(ctx), t[i].msg) != NULL, "case %zu: '%s'", i, sy_ctx_last_error_msg(ctx));
    }
    /* an unknown op fails at trace time naming node and op */
    const char *u = "{\"format\": \"symshape.graph\", \"version\": 1, \"nodes\": [{\"name\": \"x\", \"op\": \"input\", \"dtype\": \"float32\", \"shape\": [3]}, {\"name\": \"k\", \"op\": \"frob\", \"args\": [{\"ref\": \"x\"}]}], \"outputs\": []}";
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, u, strlen(u), "u.json", &g), SY_OK));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *tr;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &tr), SY_EUNSUPPORTED));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "node 'k' (frob)") != NULL, "%s", sy_ctx_last_error_msg(ctx));
    sy_env_free(env);
    sy_graph_free(g);
}
