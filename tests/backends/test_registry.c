/* Backend registry: lookup, listing, user registration, errors; the JSON
 * backend renders the stable serialization. */
#include "common.h"

static sy_status render_upper(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)opts;
    return sy_output_printf(out, "%s:%zu", (const char *)self->ud, sy_gset_size(gs));
}
static sy_backend user_backend = {"count", "number of guards", render_upper, "guards"};

Test(backends_registry, builtins_user_backends_and_errors, .init = ctx_setup, .fini = ctx_teardown)
{
    cr_assert(sy_backend_find("json") != NULL);
    cr_assert(lt(sz, 0, sy_backend_count()));
    cr_assert(eq(int, sy_backend_register(NULL), SY_EINVAL));
    cr_assert(eq(int, sy_backend_register(sy_backend_find("json")), SY_EINVAL)); /* duplicate name */
    if (!sy_backend_find("count")) cr_assert(eq(int, sy_backend_register(&user_backend), SY_OK));
    const char *G = "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["
                    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[4,6],\"dynamic\":[0]}],"
                    "\"outputs\":[{\"ref\":\"x\"}]}";
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_text(ctx, G, strlen(G), "t", &g), SY_OK));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK));
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK));
    unsigned char *data;
    size_t len;
    cr_assert(eq(int, sy_backend_render("count", gs, NULL, &data, &len), SY_OK));
    char want[32];
    snprintf(want, sizeof want, "guards:%zu", sy_gset_size(gs));
    cr_assert(eq(str, (char *)data, want));
    sy_mem_free(ctx, data);
    cr_assert(eq(int, sy_backend_render("json", gs, NULL, &data, &len), SY_OK));
    cr_assert(strstr((char *)data, "\"format\": \"symshape.guards\"") != NULL);
    cr_assert(strstr((char *)data, "x.size()[1] == 6") != NULL);
    sy_mem_free(ctx, data);
    cr_assert(eq(int, sy_backend_render("nope", gs, NULL, &data, &len), SY_EINVAL));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "unknown backend 'nope'") != NULL);
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}
