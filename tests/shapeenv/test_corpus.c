/* Every corpus model traces; at every node carrying an example the symbolic
 * result evaluated at the example sizes equals it; real values agree with
 * real PyTorch on every probe point. Reads ../shared when present and the
 * bundled examples/ otherwise. */
#include <jansson.h>

#include "common.h"
#include "corpus.h"
#include "shapeenv/graph_private.h"

static int matches(sy_env *env, const sy_value *v, const json_t *ex, char *why, size_t n)
{
    if (!ex) return 1;
    const json_t *shape = json_object_get(ex, "shape"), *value = json_object_get(ex, "value"), *items = json_object_get(ex, "items");
    if (shape) {
        if (v->kind != SY_V_TENSOR) return snprintf(why, n, "expected a tensor"), 0;
        if (v->u.t->ndim != json_array_size(shape)) return snprintf(why, n, "rank %zu vs %zu", v->u.t->ndim, json_array_size(shape)), 0;
        for (size_t i = 0; i < v->u.t->ndim; i++) {
            const sy_expr *h;
            int64_t x;
            if (sy_env_hint(env, v->u.t->sizes[i], &h) || sy_expr_get_si(h, &x)) return snprintf(why, n, "no hint"), 0;
            if (x != json_integer_value(json_array_get(shape, i)))
                return snprintf(why, n, "dim %zu: %lld vs %lld", i, (long long)x, (long long)json_integer_value(json_array_get(shape, i))), 0;
        }
        const json_t *dt = json_object_get(ex, "dtype");
        if (dt && strcmp(json_string_value(dt), sy_dtype_name(v->u.t->dtype)))
            return snprintf(why, n, "dtype %s vs %s", sy_dtype_name(v->u.t->dtype), json_string_value(dt)), 0;
        return 1;
    }
    if (items) {
        if (v->kind != SY_V_LIST || v->u.list.n != json_array_size(items)) return snprintf(why, n, "tuple arity"), 0;
        for (size_t i = 0; i < v->u.list.n; i++)
            if (!json_is_null(json_array_get(items, i)) && !matches(env, &v->u.list.items[i], json_array_get(items, i), why, n)) return 0;
        return 1;
    }
    if (value) {
        if (json_is_array(value)) {
            if (v->kind != SY_V_LIST || v->u.list.n != json_array_size(value)) return snprintf(why, n, "list length"), 0;
            for (size_t i = 0; i < v->u.list.n; i++) {
                json_t *w = json_pack("{s:O}", "value", json_array_get(value, i));
                int ok = matches(env, &v->u.list.items[i], w, why, n);
                json_decref(w);
                if (!ok) return 0;
            }
            return 1;
        }
        if (v->kind == SY_V_INT || v->kind == SY_V_BOOL) {
            const sy_expr *h;
            if (sy_env_hint(env, v->u.i, &h)) return snprintf(why, n, "no hint"), 0;
            if (json_is_boolean(value)) {
                if ((sy_expr_kind_of(h) == SY_EXPR_TRUE) != json_is_true(value)) return snprintf(why, n, "bool differs"), 0;
                return 1;
            }
            int64_t x;
            if (sy_expr_get_si(h, &x) || x != json_integer_value(value)) return snprintf(why, n, "int differs"), 0;
            return 1;
        }
        return 1; /* floats, strings: not shape-relevant */
    }
    return 1;
}

static void trace_one(const char *path, const char *probes, const char *name, void *ud)
{
    (void)probes;
    (void)name;
    (void)ud;
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    size_t checked = 0;
    for (size_t i = 0; i < sy_graph_nnodes(g); i++) {
        const json_t *ex = sy_graph_node_example(g, i);
        if (!ex) continue;
        char why[256] = "";
        cr_assert(matches(env, sy_trace_value(t, i), ex, why, sizeof why), "%s: node %s (%s): %s", path,
                  sy_graph_node_name(g, i), sy_graph_node_op(g, i), why);
        checked++;
    }
    cr_assert(lt(sz, 0, checked));
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

Test(shapeenv_corpus, every_model_traces_and_matches_its_examples, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    cr_assert(lt(int, 0, corpus_for_each(trace_one, NULL)), "no model found");
}

static void probe_one(const char *path, const char *probes, const char *name, void *ud)
{
    (void)name;
    (void)ud;
    json_error_t err;
    json_t *pr = json_load_file(probes, 0, &err);
    if (!pr) return; /* no probes for this model */
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK));
    sy_realvals *rv = sy_realvals_new(ctx, g);
    size_t i;
    json_t *p;
    size_t ok_points = 0;
    json_array_foreach(json_object_get(pr, "points"), i, p) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(p, "sizes"), k, v) {
            int64_t sh[16];
            size_t n = json_array_size(v);
            for (size_t d = 0; d < n && d < 16; d++) sh[d] = json_integer_value(json_array_get(v, d));
            cr_assert(eq(int, sy_realvals_bind(rv, k, n, sh), SY_OK));
        }
        json_t *outs = json_array();
        sy_status st = SY_OK;
        for (size_t o = 0; o < sy_realvals_noutputs(rv) && !st; o++) {
            const sy_value *val;
            st = sy_realvals_output(rv, o, &val);
            if (!st) corpus_flat_shapes(val, outs);
        }
        char *sizes = json_dumps(json_object_get(p, "sizes"), 0);
        if (json_is_true(json_object_get(p, "ok"))) {
            cr_assert(eq(int, st, SY_OK), "%s at %s: torch ran but we fail: %s", path, sizes, sy_ctx_last_error_msg(ctx));
            cr_assert(json_equal(outs, json_object_get(p, "outputs")), "%s at %s: output shapes differ", path, sizes);
            ok_points++;
        } else {
            cr_assert(ne(int, st, SY_OK), "%s at %s: torch failed (%s) but we run", path, sizes,
                      json_string_value(json_object_get(p, "error")));
        }
        free(sizes);
        json_decref(outs);
    }
    sy_realvals_free(rv);
    sy_graph_free(g);
    json_decref(pr);
}

Test(shapeenv_corpus, real_values_agree_with_pytorch_on_every_probe, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(300))
{
    cr_assert(lt(int, 0, corpus_for_each(probe_one, NULL)), "no model found");
}
