/* Value bounds of integer tensors whose values are a known function of sizes
 * (GPT-2's `wpe(torch.arange(T))` was accepted at T past the table's rows,
 * where the CPU raises "index out of range in self").
 *
 * A private side table of the env maps a result tensor to bounds [lo, hi]
 * (integer expressions): when the tensor has an element, lo and hi are its
 * least and greatest elements (attained, not just bounds), so a requirement
 * built from them is the model's own condition, never a limit of ours.
 * Source: `arange` with integer arguments and an int64 result (ops_shape.c).
 * Propagation (sy_env_values_after_call, on the op's final result): ops whose
 * int64 result holds exactly the same set of values as their first argument
 * whenever it has an element (views, copies, broadcasts, repeats, int64
 * conversions, indexing with only None / Ellipsis / `:`) keep its bounds;
 * `add`/`sub` with an integer scalar (alpha 1) and `rsub` of an integer shift
 * them. Any op that may write into a tensor (a name ending in '_', setitem,
 * the augmented assignments, an `out=` argument, `inplace` true or maybe true)
 * empties the table: an alias
 * of a bounded tensor may change its values. A tensor not in the table holds
 * data values: nothing is checked (docs/ops.md, embedding). */
#include <string.h>
#include "algebra/internal.h"
#include "shapeenv/env_private.h"

static size_t vb_hash(const sy_tensor *t, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static int vb_find(const sy_env *env, const sy_tensor *t, size_t *pos)
{
    if (!env->vbcap) return 0;
    for (size_t i = vb_hash(t, env->vbcap);; i = (i + 1) & (env->vbcap - 1)) {
        if (!env->vb[i].t) {
            *pos = i;
            return 0;
        }
        if (env->vb[i].t == t) {
            *pos = i;
            return 1;
        }
    }
}

int sy_env_values_get(const sy_env *env, const sy_tensor *t, const sy_expr **lo, const sy_expr **hi)
{
    size_t p = 0;
    if (!env || !t || !vb_find(env, t, &p)) return 0;
    *lo = env->vb[p].lo;
    *hi = env->vb[p].hi;
    return 1;
}

sy_status sy_env_values_set(sy_env *env, const sy_tensor *t, const sy_expr *lo, const sy_expr *hi)
{
    if (!lo || !hi) return sy_ctx_last_error(env->ctx);
    if (2 * (env->nvb + 1) > env->vbcap) { /* grow: load <= 1/2 */
        size_t ncap = env->vbcap ? 2 * env->vbcap : 16;
        struct sy_env_vb *old = env->vb, *nv = sy_alloc(env->ctx, ncap * sizeof *nv);
        if (!nv) return sy_ctx_last_error(env->ctx);
        memset(nv, 0, ncap * sizeof *nv);
        size_t ocap = env->vbcap;
        env->vb = nv;
        env->vbcap = ncap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].t) {
                size_t p = 0;
                vb_find(env, old[i].t, &p);
                env->vb[p] = old[i];
            }
        if (old) sy_dealloc(env->ctx, old, ocap * sizeof *old);
    }
    size_t p = 0;
    if (!vb_find(env, t, &p)) env->nvb++;
    env->vb[p].t = t;
    env->vb[p].lo = lo;
    env->vb[p].hi = hi;
    return SY_OK;
}

void sy_env_values_free(sy_env *env)
{
    if (env->vb) sy_dealloc(env->ctx, env->vb, env->vbcap * sizeof *env->vb);
    env->vb = NULL;
    env->nvb = env->vbcap = 0;
}

static int is_false(const sy_value *v)
{
    return v->kind == SY_V_NONE || (v->kind == SY_V_BOOL && sy_expr_kind_of(v->u.i) == SY_EXPR_FALSE);
}

static int writes(const opcall *c)
{
    size_t n = strlen(c->op);
    if (n > 1 && c->op[n - 1] == '_' && c->op[n - 2] != '_') return 1; /* add_, index_put_, ... */
    static const char *const w[] = {"setitem", "__setitem__", "iadd", "isub", "imul", "idiv", "itruediv", "ifloordiv",
                                    "imod", "ipow", "iand", "ior", "ixor", "ilshift", "irshift", NULL};
    for (int i = 0; w[i]; i++)
        if (!strcmp(c->op, w[i])) return 1;
    for (size_t i = 0; i < c->nkw; i++) {
        if (!c->kwnames[i]) continue;
        if (!strcmp(c->kwnames[i], "out")) return 1;
        if (!strcmp(c->kwnames[i], "inplace") && !is_false(&c->kwvals[i])) return 1;
    }
    /* F.relu(x, True), F.dropout(x, p, training, inplace): the functions with an inplace
     * parameter, given a positional bool that may be true (training too: conservative) */
    static const char *const ip[] = {"relu", "relu6", "elu", "selu", "celu", "leaky_relu", "hardtanh", "rrelu",
                                     "threshold", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
                                     "feature_alpha_dropout", "hardswish", "hardsigmoid", "silu", "mish", NULL};
    for (int i = 0; ip[i]; i++)
        if (!strcmp(c->op, ip[i]))
            for (size_t a = 1; a < c->nargs; a++)
                if (c->args[a].kind == SY_V_BOOL && !is_false(&c->args[a])) return 1;
    return 0;
}

static int is_none(const sy_value *v) { return !v || v->kind == SY_V_NONE; } /* a slice's part */

/* x[...] with only None, Ellipsis and full slices `:`: a view of every element */
static int index_keeps_all(const sy_value *idx)
{
    const sy_value *it = idx->kind == SY_V_LIST ? idx->u.list.items : idx;
    size_t n = idx->kind == SY_V_LIST ? idx->u.list.n : 1;
    for (size_t i = 0; i < n; i++) {
        if (it[i].kind == SY_V_NONE || it[i].kind == SY_V_ELLIPSIS) continue;
        if (it[i].kind == SY_V_SLICE && is_none(it[i].u.slice.start) && is_none(it[i].u.slice.stop) &&
            is_none(it[i].u.slice.step))
            continue;
        return 0;
    }
    return 1;
}

static int bounded_arg(const opcall *c, size_t i, const sy_expr **lo, const sy_expr **hi)
{
    return i < c->nargs && c->args[i].kind == SY_V_TENSOR && sy_env_values_get(c->env, c->args[i].u.t, lo, hi);
}

/* alpha of add/sub (#2 or keyword): absent or the integer 1 */
static int alpha_one(const opcall *c)
{
    const sy_value *a = c->nargs > 2 ? &c->args[2] : NULL;
    for (size_t i = 0; i < c->nkw; i++)
        if (c->kwnames[i] && !strcmp(c->kwnames[i], "alpha")) a = &c->kwvals[i];
    int64_t v;
    return !a || a->kind == SY_V_NONE || (a->kind == SY_V_INT && !sy_expr_get_si(a->u.i, &v) && v == 1);
}

sy_status sy_env_values_after_call(opcall *c)
{
    sy_env *env = c->env;
    if (writes(c)) {
        if (env->nvb) memset(env->vb, 0, env->vbcap * sizeof *env->vb);
        env->nvb = 0;
        env->vpend = 0;
        return SY_OK;
    }
    int pend = env->vpend;
    env->vpend = 0;
    if (c->out->kind != SY_V_TENSOR || c->out->u.t->dtype != SY_DT_INT64) return SY_OK;
    const sy_tensor *out = c->out->u.t;
    sy_ctx *ctx = env->ctx;
    if (pend) return sy_env_values_set(env, out, env->vpend_lo, env->vpend_hi); /* arange */
    static const char *const same[] = {"unsqueeze", "squeeze", "view", "reshape", "flatten", "expand", "expand_as",
                                       "view_as", "reshape_as", "clone", "contiguous", "detach", "to", "long",
                                       "repeat", "transpose", "permute", "t", NULL};
    const sy_expr *lo, *hi;
    for (int i = 0; same[i]; i++)
        if (!strcmp(c->op, same[i])) return bounded_arg(c, 0, &lo, &hi) ? sy_env_values_set(env, out, lo, hi) : SY_OK;
    if (!strcmp(c->op, "getitem"))
        return c->nargs == 2 && index_keeps_all(&c->args[1]) && bounded_arg(c, 0, &lo, &hi) ? sy_env_values_set(env, out, lo, hi)
                                                                                              : SY_OK;
    int add = !strcmp(c->op, "add"), sub = !strcmp(c->op, "sub"), rsub = !strcmp(c->op, "rsub");
    if ((!add && !sub && !rsub) || c->nargs < 2 || !alpha_one(c)) return SY_OK;
    if (bounded_arg(c, 0, &lo, &hi) && c->args[1].kind == SY_V_INT) { /* x + s, x - s, s - x (rsub) */
        const sy_expr *s = c->args[1].u.i;
        if (add) return sy_env_values_set(env, out, sy_expr_add(ctx, lo, s), sy_expr_add(ctx, hi, s));
        if (sub) return sy_env_values_set(env, out, sy_expr_sub(ctx, lo, s), sy_expr_sub(ctx, hi, s));
        return sy_env_values_set(env, out, sy_expr_sub(ctx, s, hi), sy_expr_sub(ctx, s, lo));
    }
    if (!rsub && c->args[0].kind == SY_V_INT && bounded_arg(c, 1, &lo, &hi)) { /* s + x, s - x */
        const sy_expr *s = c->args[0].u.i;
        if (add) return sy_env_values_set(env, out, sy_expr_add(ctx, s, lo), sy_expr_add(ctx, s, hi));
        return sy_env_values_set(env, out, sy_expr_sub(ctx, s, hi), sy_expr_sub(ctx, s, lo));
    }
    return SY_OK;
}
