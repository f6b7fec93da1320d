/* Helpers shared by the op files of the wider op surface (ops_rnn.c,
 * ops_reduce.c, ops_index.c, ops_misc.c): tuples, dim lists, reduced shapes. */
#include <string.h>

#include "shapeenv/env_private.h"

sy_status op_set_tuple(opcall *c, size_t n, const sy_tensor *const *ts)
{
    sy_value *items = sy_env_alloc(c->env, (n ? n : 1) * sizeof *items);
    if (!items) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < n; i++) {
        if (!ts[i]) return sy_ctx_last_error(c->env->ctx);
        items[i] = sy_value_tensor(ts[i]);
    }
    *c->out = sy_value_list(c->env, n, items);
    return c->out->kind == SY_V_LIST ? SY_OK : sy_ctx_last_error(c->env->ctx);
}

sy_status op_wrap_dim0(opcall *c, int64_t dim, size_t ndim, size_t *out)
{
    return op_wrap_dim(c, dim, ndim ? ndim : 1, out);
}

sy_status op_dims_mask(opcall *c, const sy_value *dv, size_t ndim, bool *sel, int *all)
{
    if (ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
    memset(sel, 0, (ndim ? ndim : 1) * sizeof *sel);
    *all = !dv || dv->kind == SY_V_NONE || (dv->kind == SY_V_LIST && dv->u.list.n == 0);
    if (*all) {
        for (size_t i = 0; i < ndim; i++) sel[i] = true;
        return SY_OK;
    }
    size_t nd = dv->kind == SY_V_LIST ? dv->u.list.n : 1;
    bool seen0 = false;
    for (size_t i = 0; i < nd; i++) {
        const sy_value *e = dv->kind == SY_V_LIST ? &dv->u.list.items[i] : dv;
        int64_t d;
        size_t w;
        if (e->kind != SY_V_INT || sy_expr_get_si(e->u.i, &d)) return op_err(c, SY_EINVAL, "dims must be constant integers");
        sy_status st = op_wrap_dim0(c, d, ndim, &w);
        if (st) return st;
        if (ndim == 0) {
            if (seen0) return op_err(c, SY_EINVAL, "dim 0 appears multiple times in the list of dims");
            seen0 = true;
            continue;
        }
        if (sel[w]) return op_err(c, SY_EINVAL, "dim %zu appears multiple times in the list of dims", w);
        sel[w] = true;
    }
    return SY_OK;
}

sy_status op_reduced(opcall *c, const sy_tensor *x, const bool *sel, int keep, const sy_expr ***out, size_t *n)
{
    const sy_expr **r = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *r);
    if (!r) return sy_ctx_last_error(c->env->ctx);
    size_t m = 0;
    for (size_t i = 0; i < x->ndim; i++) {
        if (!sel[i]) r[m++] = x->sizes[i];
        else if (keep) r[m++] = KI(c, 1);
    }
    *out = r;
    *n = m;
    return SY_OK;
}

const sy_expr *op_numel(opcall *c, const sy_tensor *t)
{
    const sy_expr *r = KI(c, 1);
    for (size_t i = 0; i < t->ndim && r; i++) r = sy_expr_mul(c->env->ctx, r, t->sizes[i]);
    return r;
}

sy_status op_require_eq(opcall *c, const sy_expr *a, const sy_expr *b, const char *what)
{
    if (a == b) return SY_OK;
    return op_require(c, sy_expr_eq(c->env->ctx, a, b), "%s: %s != %s", what, sy_env_show(c->env, a), sy_env_show(c->env, b));
}

/* ATen takes target where cur is 1 and requires cur == target elsewhere (ExpandUtils.cpp
 * inferExpandGeometry: "The expanded size of the tensor (%d) must match the existing size (%d) at
 * non-singleton dimension %d"); the result is target on both branches, so the one requirement is
 * their disjunction, exact at every size. Deciding "is cur 1?" at the example first kept only the
 * branch the example took (relax38: x.expand_as(y), a mask filled in place or added to SDPA's
 * scores, rejected a batch of 1 when the example's batches were equal, and equal batches when the
 * example's was 1; under the relaxed policy the guard cur != 1 made it accept fewer sizes than the
 * default). */
sy_status op_require_expands(opcall *c, const sy_expr *cur, const sy_expr *target, size_t dim)
{
    sy_ctx *ctx = c->env->ctx;
    if (cur == target) return SY_OK;
    const sy_expr *rel = sy_expr_or(ctx, sy_expr_eq(ctx, cur, KI(c, 1)), sy_expr_eq(ctx, cur, target));
    if (!rel) return sy_ctx_last_error(ctx);
    return op_require(c, rel, "The expanded size of the tensor (%s) must match the existing size (%s) at non-singleton dimension %zu",
                      sy_env_show(c->env, target), sy_env_show(c->env, cur), dim);
}

const sy_expr **op_sizes_copy(opcall *c, const sy_tensor *x, size_t extra)
{
    const sy_expr **r = sy_env_alloc(c->env, (x->ndim + extra ? x->ndim + extra : 1) * sizeof *r);
    if (r) SY_COPY(r, x->sizes, x->ndim * sizeof *r);
    return r;
}

sy_status op_str_def(opcall *c, size_t pos, const char *kw, const char *def, const char **out)
{
    const sy_value *v = op_arg(c, pos, kw);
    *out = def;
    if (!v || v->kind == SY_V_NONE) return SY_OK;
    if (v->kind != SY_V_STR) return op_err(c, SY_EINVAL, "argument '%s' must be a string", kw ? kw : "?");
    *out = v->u.s;
    return SY_OK;
}

sy_status op_num_def(opcall *c, size_t pos, const char *kw, double def, double *out)
{
    const sy_value *v = op_arg(c, pos, kw);
    *out = def;
    if (!v || v->kind == SY_V_NONE) return SY_OK;
    if (v->kind == SY_V_FLOAT) {
        *out = v->u.f;
        return SY_OK;
    }
    int64_t x;
    if ((v->kind == SY_V_INT) && sy_expr_get_si(v->u.i, &x) == SY_OK) {
        *out = (double)x;
        return SY_OK;
    }
    return op_err(c, SY_EINVAL, "argument '%s' must be a constant number", kw ? kw : "?");
}

int op_is_floating(sy_dtype d) { return d <= SY_DT_BFLOAT16; }
int op_is_complex(sy_dtype d) { return d == SY_DT_COMPLEX64 || d == SY_DT_COMPLEX128; }

const char *op_show_sizes(opcall *c, size_t n, const sy_expr *const *sizes)
{
    size_t cap = 3, len = 0;
    const char **parts = sy_env_alloc(c->env, (n ? n : 1) * sizeof *parts);
    if (!parts) return "?";
    for (size_t i = 0; i < n; i++) {
        parts[i] = sy_env_show(c->env, sizes[i]);
        cap += strlen(parts[i]) + 2;
    }
    char *buf = sy_env_alloc(c->env, cap + 1);
    if (!buf) return "?";
    buf[len++] = '(';
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(parts[i]);
        if (i) {
            buf[len++] = ',';
            buf[len++] = ' ';
        }
        memcpy(buf + len, parts[i], k);
        len += k;
    }
    if (n == 1) buf[len++] = ','; /* a 1-tuple: (a,) */
    buf[len++] = ')';
    buf[len] = '\0';
    return buf;
}
