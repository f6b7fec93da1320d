/* The trace's op memo (shapeenv/trace.c): it is hit where nodes repeat an op
 * on the same shapes, it is not used where the first call met an unknown,
 * made an unbacked symbol or recorded a guard, and on every corpus model the
 * guard sets with and without it are the same text. */
#include <stdlib.h>

#include "common.h"
#include "corpus.h"

#define DOC(nodes, out)                                                                                              \
    "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":["                                                        \
    "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[3,8],\"dynamic\":[0,1]}," nodes "],"            \
    "\"outputs\":[" out "]}"

static sy_trace *trace_doc(const char *doc, sy_env **envp, sy_graph **gp)
{
    cr_assert(eq(int, sy_graph_load_text(ctx, doc, strlen(doc), "memo", gp), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    *envp = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(*envp, *gp, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return t;
}

static const sy_tensor *tensor_at(const sy_graph *g, const sy_trace *t, const char *name)
{
    const sy_value *v = sy_trace_value(t, (size_t)sy_graph_find(g, name));
    cr_assert(eq(int, v->kind, SY_V_TENSOR), "%s is not a tensor", name);
    return v->u.t;
}

Test(shapeenv_memo, repeated_op_on_the_same_shapes_is_reused, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC("{\"name\":\"a\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"b\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"c\",\"op\":\"relu\",\"args\":[{\"ref\":\"a\"}]},"
                                "{\"name\":\"d\",\"op\":\"sum\",\"args\":[{\"ref\":\"c\"},1]}",
                                "{\"ref\":\"b\"},{\"ref\":\"d\"}"),
                            &env, &g);
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    /* a is computed and stored; b (same argument) and c (a has x's sizes and
     * strides) reuse it; d is a different op */
    cr_assert(eq(sz, m.lookups, 4));
    cr_assert(eq(sz, m.hits, 2));
    cr_assert(eq(sz, m.stored, 2));
    cr_assert(eq(sz, m.refused, 0));
    const sy_tensor *a = tensor_at(g, t, "a"), *b = tensor_at(g, t, "b"), *c = tensor_at(g, t, "c");
    cr_assert(ne(ptr, (void *)a, (void *)b), "a reused result is a tensor of its own");
    cr_assert(eq(sz, b->ndim, 2));
    for (size_t i = 0; i < 2; i++) {
        cr_assert(eq(ptr, (void *)b->sizes[i], (void *)a->sizes[i]));
        cr_assert(eq(ptr, (void *)c->sizes[i], (void *)a->sizes[i]));
        cr_assert(eq(ptr, (void *)b->strides[i], (void *)a->strides[i]));
    }
    char *s = sy_expr_print(ctx, tensor_at(g, t, "d")->sizes[0], SY_PRINT_CANONICAL);
    cr_assert(eq(str, s, "s0"));
    sy_str_free(ctx, s);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

Test(shapeenv_memo, off_by_environment_knob, .init = ctx_setup, .fini = ctx_teardown)
{
    setenv("SY_TRACE_MEMO", "0", 1);
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC("{\"name\":\"a\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"b\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}",
                                "{\"ref\":\"b\"}"),
                            &env, &g);
    unsetenv("SY_TRACE_MEMO");
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    cr_assert(eq(sz, m.lookups, 0));
    cr_assert(eq(sz, m.hits, 0));
    cr_assert(ne(ptr, (void *)tensor_at(g, t, "a"), (void *)tensor_at(g, t, "b")));
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* nonzero makes an unbacked symbol: impure, never looked up, and the second
 * call has a symbol of its own. Slicing [0:3] of the unbacked dim asks
 * "u0 - 0 >= 0 / <= 0?", unknown, answered by Max(..., 0) without a guard:
 * not stored, so the identical slice after it is computed again. */
Test(shapeenv_memo, not_used_after_an_unknown_or_an_unbacked_symbol, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC("{\"name\":\"n1\",\"op\":\"nonzero\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"n2\",\"op\":\"nonzero\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"p\",\"op\":\"getitem\",\"args\":[{\"ref\":\"n1\"},{\"slice\":[0,3,null]}]},"
                                "{\"name\":\"q\",\"op\":\"getitem\",\"args\":[{\"ref\":\"n1\"},{\"slice\":[0,3,null]}]}",
                                "{\"ref\":\"p\"},{\"ref\":\"q\"},{\"ref\":\"n2\"}"),
                            &env, &g);
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    cr_assert(eq(sz, m.lookups, 2), "only the two getitem nodes are looked up");
    cr_assert(eq(sz, m.hits, 0));
    cr_assert(eq(sz, m.stored, 0));
    cr_assert(eq(sz, m.refused, 2));
    cr_assert(ne(ptr, (void *)tensor_at(g, t, "n1")->sizes[0], (void *)tensor_at(g, t, "n2")->sizes[0]));
    char *s = sy_expr_print(ctx, tensor_at(g, t, "q")->sizes[0], SY_PRINT_CANONICAL);
    cr_assert(eq(str, s, "Min(3, u0)"), "got %s", s);
    sy_str_free(ctx, s);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* a call that records a guard is not stored; the same call after it, with the
 * guard now a fact, is (a new facts version) */
Test(shapeenv_memo, not_stored_when_a_guard_was_recorded, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC("{\"name\":\"s\",\"op\":\"size\",\"args\":[{\"ref\":\"x\"},0]},"
                                "{\"name\":\"g1\",\"op\":\"guard_int\",\"args\":[{\"ref\":\"s\"},3]},"
                                "{\"name\":\"g2\",\"op\":\"guard_int\",\"args\":[{\"ref\":\"s\"},3]}",
                                "{\"ref\":\"g2\"}"),
                            &env, &g);
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    cr_assert(eq(sz, m.hits, 0));
    cr_assert(ge(sz, m.refused, 1), "guard_int's first call recorded a guard");
    cr_assert(eq(sz, sy_env_nguards(env), 1));
    cr_assert(eq(str, (char *)sy_env_guard(env, 0)->origins[0].node, "g1"));
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* every corpus model: the JSON guard set (with provenance) is the same text
 * with the memo on and off, and the memo is hit */
static char *gset_json(const char *path, int memo, size_t *hits)
{
    if (memo) unsetenv("SY_TRACE_MEMO");
    else setenv("SY_TRACE_MEMO", "0", 1);
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    sy_gset *gs;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_produce(env, g, &gs), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(gs), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    *hits = m.hits;
    /* json and the report: the guards, their sources and which node caused each */
    char *copy = NULL;
    size_t total = 0;
    static const char *const backends[] = {"json", "report"};
    for (int b = 0; b < 2; b++) {
        unsigned char *data;
        size_t len;
        cr_assert(eq(int, sy_backend_render(backends[b], gs, NULL, &data, &len), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
        copy = realloc(copy, total + len + 1);
        cr_assert(copy != NULL);
        memcpy(copy + total, data, len);
        total += len;
        copy[total] = 0;
        sy_mem_free(ctx, data);
    }
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
    unsetenv("SY_TRACE_MEMO");
    return copy;
}

static void same_guards(const char *path, const char *probes, const char *name, void *ud)
{
    (void)probes;
    (void)name;
    size_t hon, hoff;
    char *on = gset_json(path, 1, &hon), *off = gset_json(path, 0, &hoff);
    cr_assert(eq(str, on, off), "%s: the guard sets differ with the memo on and off", path);
    cr_assert(eq(sz, hoff, 0));
    cr_assert(lt(sz, 0, hon), "%s: the memo was never hit", path);
    *(size_t *)ud += hon;
    free(on);
    free(off);
}

Test(shapeenv_memo, corpus_guard_sets_same_with_and_without_memo, .init = ctx_setup, .fini = ctx_teardown, .timeout = 120)
{
    size_t hits = 0;
    cr_assert(lt(int, 0, corpus_for_each(same_guards, &hits)), "no model found");
    cr_assert(lt(sz, 0, hits));
}
