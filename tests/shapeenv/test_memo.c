/* The trace's op memo (shapeenv/trace.c): it is hit where nodes repeat an op
 * on the same shapes, it is not used where the first call met an unknown and
 * recorded a guard or made an unbacked symbol, and on every corpus model the
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

#define X4 "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[1,3,8,8],\"dynamic\":[0,2]},"
#define DOC4(nodes, out) "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[" X4 nodes "],\"outputs\":[" out "]}"
#define W "{\"name\":\"w\",\"op\":\"param\",\"dtype\":\"float32\",\"shape\":[4,3,3,3]},"
#define CONV(n) "{\"name\":\"" n "\",\"op\":\"conv2d\",\"args\":[{\"ref\":\"x\"},{\"ref\":\"w\"}]}"

static void print_stats(const char *what, const sy_trace_memo_stats *m)
{
    if (getenv("SY_PRINT_ACTUAL"))
        fprintf(stderr, "%s: lookups %zu hits %zu stored %zu refused %zu\n", what, m->lookups, m->hits, m->stored, m->refused);
}

Test(shapeenv_memo, repeated_op_on_the_same_shapes_is_reused, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC4("{\"name\":\"a\",\"op\":\"adaptive_avg_pool2d\",\"args\":[{\"ref\":\"x\"},[2,2]]},"
                                 "{\"name\":\"b\",\"op\":\"adaptive_avg_pool2d\",\"args\":[{\"ref\":\"x\"},[2,2]]},"
                                 "{\"name\":\"r\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]},"
                                 "{\"name\":\"c\",\"op\":\"adaptive_avg_pool2d\",\"args\":[{\"ref\":\"r\"},[2,2]]},"
                                 "{\"name\":\"d\",\"op\":\"adaptive_avg_pool2d\",\"args\":[{\"ref\":\"x\"},[3,3]]}",
                                 "{\"ref\":\"b\"},{\"ref\":\"c\"},{\"ref\":\"d\"}"),
                            &env, &g);
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    print_stats("reused", &m);
    /* a is computed and stored; b (same argument) and c (r has x's sizes and
     * strides) reuse it; d has other arguments; relu is looked up and stored
     * (the first relu of these sizes) */
    cr_assert(eq(sz, m.lookups, 5));
    cr_assert(eq(sz, m.hits, 2));
    cr_assert(eq(sz, m.stored, 3));
    cr_assert(eq(sz, m.refused, 0));
    const sy_tensor *a = tensor_at(g, t, "a"), *b = tensor_at(g, t, "b"), *c = tensor_at(g, t, "c");
    cr_assert(ne(ptr, (void *)a, (void *)b), "a reused result is a tensor of its own");
    cr_assert(eq(sz, b->ndim, 4));
    for (size_t i = 0; i < 4; i++) {
        cr_assert(eq(ptr, (void *)b->sizes[i], (void *)a->sizes[i]));
        cr_assert(eq(ptr, (void *)c->sizes[i], (void *)a->sizes[i]));
        cr_assert(eq(ptr, (void *)b->strides[i], (void *)a->strides[i]));
    }
    char *s = sy_expr_print(ctx, tensor_at(g, t, "d")->sizes[3], SY_PRINT_CANONICAL);
    cr_assert(eq(str, s, "3"));
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
    sy_trace *t = trace_doc(DOC4("{\"name\":\"a\",\"op\":\"adaptive_avg_pool2d\",\"args\":[{\"ref\":\"x\"},[2,2]]},"
                                 "{\"name\":\"b\",\"op\":\"adaptive_avg_pool2d\",\"args\":[{\"ref\":\"x\"},[2,2]]}",
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

/* The first conv asks "is the output non-empty (s1 - 2 >= 1)?": unknown from
 * s1's range, answered by a guard; not stored. The second runs under the new
 * fact (another facts version, a miss) and is stored; the third reuses it.
 * The guard keeps the first node as its origin. */
Test(shapeenv_memo, not_stored_after_an_unknown_or_a_guard, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC4(W CONV("c1") "," CONV("c2") "," CONV("c3"), "{\"ref\":\"c3\"}"), &env, &g);
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    print_stats("conv", &m);
    cr_assert(eq(sz, m.lookups, 3));
    cr_assert(eq(sz, m.refused, 1));
    cr_assert(eq(sz, m.stored, 1));
    cr_assert(eq(sz, m.hits, 1));
    cr_assert(lt(sz, 0, sy_env_nguards(env)));
    for (size_t i = 0; i < sy_env_nguards(env); i++) {
        const sy_guard_record *r = sy_env_guard(env, i);
        for (size_t k = 0; k < r->norigins; k++)
            cr_assert(eq(str, (char *)r->origins[k].node, "c1"), "guard %zu has origin %s", i, r->origins[k].node);
    }
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* The rule that a call which met an "unknown" decision is not stored, in
 * isolation: no guard, no fact, no symbol. x has explicit strides (not
 * contiguous) and symbolic H and W, so a convolution's layout rule asks
 * whether a stride is below a symbolic product (maybe_channels_last in
 * layout.c: 100 < 10*W and the like) and the facts cannot tell. Both calls
 * have the same key (nothing changed in between), and neither may be served
 * from the memo: without the rule, c1 would be stored and c2 a hit. */
#define XS "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,3,8,8],\"dynamic\":[0,2,3]," \
           "\"strides\":[1000,1,100,10]},"
#define W1 "{\"name\":\"w\",\"op\":\"param\",\"dtype\":\"float32\",\"shape\":[4,3,1,1]},"
#define CONV1(n) "{\"name\":\"" n "\",\"op\":\"conv2d\",\"args\":[{\"ref\":\"x\"},{\"ref\":\"w\"}]}"
#define DOCS(nodes, out) "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[" XS W1 nodes "],\"outputs\":[" out "]}"

Test(shapeenv_memo, not_stored_after_an_unknown_without_a_guard, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env0, *env;
    sy_graph *g0, *g;
    sy_trace *t0 = trace_doc(DOCS(CONV1("c1"), "{\"ref\":\"c1\"}"), &env0, &g0);
    size_t guards_one = sy_env_nguards(env0);
    sy_trace *t = trace_doc(DOCS(CONV1("c1") "," CONV1("c2"), "{\"ref\":\"c2\"}"), &env, &g);
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    print_stats("unknown", &m);
    sy_decide_stats ds;
    sy_facts_get_stats(sy_env_facts(env), &ds);
    cr_assert(lt(sz, 0, ds.unknown), "the layout rule met no unknown: the test does not test the rule");
    cr_assert(eq(sz, sy_env_nguards(env), guards_one), "a convolution recorded a guard: the test does not isolate the rule");
    cr_assert(eq(sz, m.lookups, 2));
    cr_assert(eq(sz, m.hits, 0));
    cr_assert(eq(sz, m.stored, 0));
    cr_assert(eq(sz, m.refused, 2));
    /* the layout the re-run gives: not modelled (the facts do not tell) */
    cr_assert(eq(ptr, (void *)tensor_at(g, t, "c2")->strides, NULL));
    sy_trace_free(t0);
    sy_env_free(env0);
    sy_graph_free(g0);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* nonzero makes an unbacked symbol: impure, never looked up, and the second
 * call has a symbol of its own */
Test(shapeenv_memo, unbacked_ops_are_not_memoized, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC("{\"name\":\"n1\",\"op\":\"nonzero\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"n2\",\"op\":\"nonzero\",\"args\":[{\"ref\":\"x\"}]}",
                                "{\"ref\":\"n1\"},{\"ref\":\"n2\"}"),
                            &env, &g);
    sy_trace_memo_stats m;
    sy_trace_get_memo_stats(t, &m);
    cr_assert(eq(sz, m.lookups, 0));
    cr_assert(ne(ptr, (void *)tensor_at(g, t, "n1")->sizes[0], (void *)tensor_at(g, t, "n2")->sizes[0]));
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* nonzero's layouts (attack38h): [u, ndim] column-major, strides (1, u)
 * (nonzero_out_cpu); as_tuple=True, where(condition) alone: ndim tensors [u]
 * sharing u, each contiguous; argwhere is nonzero */
static char *show(const sy_expr *e)
{
    return sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
}

static void expect_expr(const sy_expr *e, const char *want)
{
    char *s = show(e);
    cr_expect(eq(str, s, (char *)want));
    sy_str_free(ctx, s);
}

Test(shapeenv_memo, nonzero_tuple_and_layout, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env;
    sy_graph *g;
    sy_trace *t = trace_doc(DOC("{\"name\":\"n\",\"op\":\"nonzero\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"a\",\"op\":\"argwhere\",\"args\":[{\"ref\":\"x\"}]},"
                                "{\"name\":\"tu\",\"op\":\"nonzero\",\"args\":[{\"ref\":\"x\"}],\"kwargs\":{\"as_tuple\":true}},"
                                "{\"name\":\"w\",\"op\":\"where\",\"args\":[{\"ref\":\"x\"}]}",
                                "{\"ref\":\"n\"},{\"ref\":\"a\"},{\"ref\":\"tu\"},{\"ref\":\"w\"}"),
                            &env, &g);
    const char *names[2] = {"n", "a"};
    for (int k = 0; k < 2; k++) {
        const sy_tensor *n = tensor_at(g, t, names[k]);
        cr_assert(eq(sz, n->ndim, 2));
        cr_assert(n->strides != NULL);
        expect_expr(n->sizes[1], "2");
        expect_expr(n->strides[0], "1");
        cr_expect(eq(ptr, (void *)n->strides[1], (void *)n->sizes[0])); /* (1, u) */
    }
    const char *tuples[2] = {"tu", "w"};
    for (int k = 0; k < 2; k++) {
        const sy_value *v = sy_trace_value(t, (size_t)sy_graph_find(g, tuples[k]));
        cr_assert(eq(int, v->kind, SY_V_LIST));
        cr_assert(eq(sz, v->u.list.n, 2));
        for (size_t i = 0; i < 2; i++) {
            const sy_tensor *e = v->u.list.items[i].u.t;
            cr_assert(eq(int, v->u.list.items[i].kind, SY_V_TENSOR));
            cr_assert(eq(sz, e->ndim, 1));
            cr_expect(eq(int, e->dtype, SY_DT_INT64));
            cr_expect(eq(ptr, (void *)e->sizes[0], (void *)v->u.list.items[0].u.t->sizes[0])); /* one count */
        }
    }
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

/* every corpus model: the JSON guard set and the report (with provenance) are
 * the same text with the memo on and off; the memo is hit on the corpus (not
 * on every model: vit_b_16 has one convolution) */
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
    *(size_t *)ud += hon;
    free(on);
    free(off);
}

Test(shapeenv_memo, corpus_guard_sets_same_with_and_without_memo, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    size_t hits = 0;
    cr_assert(lt(int, 0, corpus_for_each(same_guards, &hits)), "no model found");
    cr_assert(lt(sz, 0, hits));
}
