/* Data-dependent sizes: unbacked symbols from item/tolist/unique/bincount,
 * slicing, broadcasting and view on them, runtime asserts named by the op
 * and node that produced the value (docs/shapeenv.md section 5). */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "symshape/gset.h"

SY_TEST_ENV_FIXTURE

#define CASE(name) Test(shapeenv_unbacked, name, .init = env_setup, .fini = env_teardown, .timeout = SY_TIMEOUT(30))

static sy_value VT(const sy_tensor *t) { return sy_value_tensor(t); }
static sy_value VI(int64_t v) { return sy_value_int_si(env, v); }

static sy_status try_call(const char *node, const char *op, size_t n, const sy_value *args, size_t nkw,
                          const char *const *kn, const sy_value *kv, sy_value *out)
{
    sy_provenance w = {node, op, NULL};
    return sy_env_call(env, op, n, args, nkw, kn, kv, &w, out);
}

static sy_value call(const char *node, const char *op, size_t n, const sy_value *args)
{
    sy_value out;
    cr_assert(eq(int, try_call(node, op, n, args, 0, NULL, NULL, &out), SY_OK), "%s: %s", op, sy_ctx_last_error_msg(ctx));
    return out;
}

static const sy_tensor *input(const char *name, sy_dtype dt, size_t n, const int64_t *shape)
{
    const sy_tensor *t = sy_env_input(env, name, dt, n, shape, NULL);
    cr_assert(t != NULL, "%s", sy_ctx_last_error_msg(ctx));
    return t;
}

static sy_value slice(sy_value *start, sy_value *stop, sy_value *step)
{
    sy_value sl = sy_value_none();
    sl.kind = SY_V_SLICE;
    sl.u.slice.start = start;
    sl.u.slice.stop = stop;
    sl.u.slice.step = step;
    return sl;
}

static const sy_tensor *unique_of_x(void)
{
    const sy_tensor *x = input("x", SY_DT_INT64, 2, (int64_t[]){4, 6});
    sy_value u = call("uq", "unique", 1, (sy_value[]){VT(x)});
    cr_assert(eq(int, u.kind, SY_V_TENSOR));
    cr_assert(eq(str, S(u.u.t->sizes[0]), "u0"));
    return u.u.t;
}

CASE(unique_creates_a_size_like_unbacked_symbol_named_by_its_node)
{
    const sy_tensor *u = unique_of_x();
    const sy_symbol_info *si = sy_env_symbol_of(env, u->sizes[0]);
    cr_assert(eq(int, si->unbacked, 1));
    cr_assert(eq(str, (char *)si->sources[0], "uq.size()[0] (from unique at node uq)"));
    const sy_expr *lo, *hi;
    cr_assert(eq(int, sy_facts_get_range(sy_env_facts(env), u->sizes[0], &lo, &hi), SY_OK));
    cr_assert(lo == sy_expr_int_si(ctx, 0) && hi == NULL);
    /* u0 <= numel is a fact: u0 <= s0*s1 is decided without a guard */
    sy_truth t;
    const sy_expr *numel = sy_expr_mul(ctx, sy_expr_sym(ctx, "s0"), sy_expr_sym(ctx, "s1"));
    cr_assert(eq(int, sy_decide(sy_env_facts(env), sy_expr_le(ctx, u->sizes[0], numel), &t), SY_OK));
    cr_assert(eq(int, t, SY_TRUTH_TRUE));
}

CASE(slicing_an_unbacked_size_works_without_a_question)
{
    const sy_tensor *u = unique_of_x();
    sy_value none = sy_value_none(), big = VI(INT64_MAX), one = VI(1), two = VI(2);
    sy_value a = call("a", "getitem", 2, (sy_value[]){VT(u), slice(&none, &none, &none)});
    cr_assert(eq(str, S(a.u.t->sizes[0]), "u0"));
    sy_value b = call("b", "getitem", 2, (sy_value[]){VT(u), slice(&none, &big, &none)});
    cr_assert(eq(str, S(b.u.t->sizes[0]), "u0"));
    sy_value c = call("c", "getitem", 2, (sy_value[]){VT(u), slice(&one, &none, &two)});
    cr_assert(eq(str, S(c.u.t->sizes[0]), "CeilDiv(Max(0, u0 - 1), 2)"));
    cr_assert(eq(str, S(c.u.t->strides[0]), "2"));
    cr_assert(eq(sz, sy_env_nguards(env), 0));
}

CASE(broadcasting_an_unbacked_size_records_runtime_asserts)
{
    const sy_tensor *u = unique_of_x();
    const sy_tensor *y = input("y", SY_DT_FLOAT32, 1, (int64_t[]){5});
    sy_value r = call("add1", "add", 2, (sy_value[]){VT(u), VT(y)});
    cr_assert(eq(str, S(r.u.t->sizes[0]), "s2"));
    cr_assert(eq(sz, sy_env_nguards(env), 2));
    const sy_guard_record *g0 = sy_env_guard(env, 0), *g1 = sy_env_guard(env, 1);
    cr_assert(eq(int, g0->kind, SY_GUARD_RUNTIME_ASSERT));
    cr_assert(eq(str, S(g0->expr), "u0 != 1")); /* size-oblivious: the broadcast branch, checked at run time */
    cr_assert(eq(str, (char *)g0->origins[0].node, "add1"));
    cr_assert(eq(int, g1->kind, SY_GUARD_RUNTIME_ASSERT));
    cr_assert(eq(str, S(g1->expr), "s2 == u0"));
    /* the guard set names u0 by its origin */
    sy_gset *gs = NULL;
    cr_assert(eq(int, sy_gset_produce(env, NULL, &gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    int seen = 0;
    for (size_t i = 0; i < sy_gset_size(gs); i++)
        if (sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT && !strcmp(sy_gset_at(gs, i)->text, "u0 != 1  [u0 = uq.size()[0] (from unique at node uq)]"))
            seen = 1;
    cr_assert(seen);
    sy_gset_free(gs);
}

CASE(view_of_an_unbacked_size_is_a_runtime_assert)
{
    const sy_tensor *u = unique_of_x();
    sy_value v = call("v", "view", 3, (sy_value[]){VT(u), VI(12), VI(-1)});
    cr_assert(eq(str, S(v.u.t->sizes[1]), "FloorDiv(u0, 12)"));
    cr_assert(eq(sz, sy_env_nguards(env), 1));
    cr_assert(eq(int, sy_env_guard(env, 0)->kind, SY_GUARD_RUNTIME_ASSERT));
    cr_assert(eq(str, S(sy_env_guard(env, 0)->expr), "Mod(u0, 12) == 0"));
}

CASE(an_undecidable_question_names_the_source)
{
    const sy_tensor *u = unique_of_x();
    sy_value b = call("gt", "gt", 2, (sy_value[]){sy_value_int(u->sizes[0]), VI(100)});
    sy_value out;
    cr_assert(eq(int, try_call("g", "guard_bool", 2, (sy_value[]){b, sy_value_bool(sy_expr_true(ctx))}, 0, NULL, NULL, &out), SY_OK));
    cr_assert(eq(int, sy_env_guard(env, 0)->kind, SY_GUARD_RUNTIME_ASSERT)); /* a requirement: deferred */
    /* a decision (not a requirement) that stays undecided even for sizes >= 2 is an error naming the origin */
    sy_value n = call("n", "narrow", 4, (sy_value[]){VT(u), VI(0), VI(0), VI(3)}); /* start 0, length 3: requirement */
    (void)n;
    const sy_expr *v;
    sy_provenance why = {"q", "test", "question"};
    cr_assert(eq(int, sy_env_evaluate_expr(env, sy_expr_gt(ctx, u->sizes[0], sy_expr_int_si(ctx, 1000)), &why, &v), SY_EINVAL));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx),
                 "data-dependent question 1001 <= u0 cannot be decided: it depends on the unbacked symbol u0 = uq.size()[0] "
                 "(from unique at node uq) at node q"));
}

CASE(item_is_an_unbounded_value_that_becomes_a_size_by_runtime_assert)
{
    const sy_tensor *x = input("x", SY_DT_INT64, 1, (int64_t[]){1});
    sy_value it = call("it", "item", 1, (sy_value[]){VT(x)});
    cr_assert(eq(int, it.kind, SY_V_INT));
    cr_assert(eq(str, S(it.u.i), "u0"));
    cr_assert(eq(str, (char *)sy_env_symbol_of(env, it.u.i)->sources[0], "it.item() (from item at node it)"));
    sy_value z = call("z", "zeros", 2, (sy_value[]){it, VI(3)});
    cr_assert(eq(str, S(z.u.t->sizes[0]), "u0"));
    cr_assert(eq(sz, sy_env_nguards(env), 1));
    cr_assert(eq(str, S(sy_env_guard(env, 0)->expr), "0 <= u0"));
    cr_assert(eq(int, sy_env_guard(env, 0)->kind, SY_GUARD_RUNTIME_ASSERT));
    /* bool item: a bool value */
    const sy_tensor *m = input("m", SY_DT_BOOL, 0, NULL);
    sy_value bi = call("bi", "item", 1, (sy_value[]){VT(m)});
    cr_assert(eq(int, bi.kind, SY_V_BOOL));
    cr_assert(eq(str, S(bi.u.i), "u1 != 0"));
}

CASE(item_errors)
{
    const sy_tensor *x = input("x", SY_DT_INT64, 1, (int64_t[]){3});
    sy_value out;
    cr_assert(eq(int, try_call("it", "item", 1, (sy_value[]){VT(x)}, 0, NULL, NULL, &out), SY_EINVAL));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), "item: only one element tensors can be converted to Python scalars"));
    const sy_tensor *f = input("f", SY_DT_FLOAT32, 0, NULL);
    cr_assert(eq(int, try_call("it", "item", 1, (sy_value[]){VT(f)}, 0, NULL, NULL, &out), SY_EUNSUPPORTED));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx),
                 "item: item of a float32 tensor is a data-dependent float, which symshape does not model"));
}

CASE(tolist_unique_outputs_bincount)
{
    const sy_tensor *x = sy_env_input(env, "x", SY_DT_INT64, 2, (int64_t[]){1, 2}, (sy_dim_policy[]){SY_DIM_STATIC, SY_DIM_STATIC});
    cr_assert(x != NULL);
    sy_value l = call("tl", "tolist", 1, (sy_value[]){VT(x)});
    cr_assert(eq(int, l.kind, SY_V_LIST));
    cr_assert(eq(sz, l.u.list.n, 1));
    cr_assert(eq(sz, l.u.list.items[0].u.list.n, 2));
    const sy_expr *e01 = l.u.list.items[0].u.list.items[1].u.i;
    cr_assert(eq(str, S(e01), "u1"));
    sy_value out0;
    const sy_tensor *y0 = input("y0", SY_DT_INT64, 1, (int64_t[]){3});
    cr_assert(eq(int, try_call("t2", "tolist", 1, (sy_value[]){VT(y0)}, 0, NULL, NULL, &out0), SY_EUNSUPPORTED));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), "tolist: tolist of a tensor of symbolic size y0.size()[0]: the list's length is Python-level"));
    cr_assert(eq(str, (char *)sy_env_symbol_of(env, e01)->sources[0], "tl.tolist()[0][1] (from tolist at node tl)"));
    /* unique with inverse and counts, over dim 1 */
    const sy_tensor *y = input("y", SY_DT_INT64, 2, (int64_t[]){3, 4});
    const char *kn[] = {"return_inverse", "return_counts", "dim"};
    sy_value kv[] = {sy_value_bool(sy_expr_true(ctx)), sy_value_bool(sy_expr_true(ctx)), VI(1)};
    sy_value out;
    cr_assert(eq(int, try_call("uq", "unique", 1, (sy_value[]){VT(y)}, 3, kn, kv, &out), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, out.u.list.n, 3));
    cr_assert(eq(str, S(out.u.list.items[0].u.t->sizes[0]), "s0")); /* duck-sized with y0 */
    cr_assert(eq(str, S(out.u.list.items[0].u.t->sizes[1]), "u2"));
    cr_assert(eq(str, S(out.u.list.items[1].u.t->sizes[0]), "s1"));
    cr_assert(eq(str, S(out.u.list.items[2].u.t->sizes[0]), "u2"));
    /* bincount: length >= minlength is a fact */
    const sy_tensor *b = call("bc", "bincount", 1, (sy_value[]){VT(call("fl", "flatten", 1, (sy_value[]){VT(y)}).u.t)}).u.t;
    cr_assert(eq(str, S(b->sizes[0]), "u3"));
    cr_assert(eq(int, b->dtype, SY_DT_INT64));
    cr_assert(eq(sz, sy_env_nguards(env), 0));
}
