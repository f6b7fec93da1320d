/* The graph interpreter (a thin dispatcher over sy_env_call) and real
 * values at concrete sizes (get_real_value). */
#include <stdio.h>
#include <string.h>

#include "shapeenv/graph_private.h"

struct sy_trace {
    sy_env *env;
    size_t n;
    sy_value *vals;
    size_t nout;
    sy_value *outs;
};

/* ------------------------------------------------------------------ capture artifacts
 * torch.fx formats a Proxy inside an f-string as "Proxy(NODE)" (torch/fx/proxy.py,
 * Proxy.__repr__), so an _assert message captured by symbolic tracing reads
 * "Wrong image height! Expected 224 but got Proxy(getitem_2)!". The message is
 * rendered with what NODE stands for, in source names: "... but got x.size()[2]!". */

static void put_value(sy_env *env, char *b, size_t cap, size_t *len, const sy_value *v, int depth)
{
#define PUT(...) (*len += *len < cap ? (size_t)snprintf(b + *len, cap - *len, __VA_ARGS__) : 0)
    switch (v->kind) {
    case SY_V_INT:
    case SY_V_BOOL: PUT("%s", sy_env_show(env, v->u.i)); break;
    case SY_V_FLOAT: PUT("%g", v->u.f); break;
    case SY_V_STR: PUT("%s", v->u.s); break;
    case SY_V_TENSOR:
        PUT("tensor of shape [");
        for (size_t i = 0; i < v->u.t->ndim; i++) PUT("%s%s", i ? ", " : "", sy_env_show(env, v->u.t->sizes[i]));
        PUT("]");
        break;
    case SY_V_LIST:
        if (depth > 4) {
            PUT("[...]");
            break;
        }
        PUT("[");
        for (size_t i = 0; i < v->u.list.n; i++) {
            PUT("%s", i ? ", " : "");
            put_value(env, b, cap, len, &v->u.list.items[i], depth + 1);
        }
        PUT("]");
        break;
    default: PUT("%s", v->kind == SY_V_NONE ? "None" : "?"); break;
    }
#undef PUT
}

/* Rewrites a STR value holding "Proxy(NODE)" for a node computed before node
 * @p upto; anything else (an unknown name, a later node) stays as written. */
static sy_status resolve_proxies(sy_env *env, const sy_graph *g, const sy_value *vals, size_t upto, sy_value *v)
{
    if (v->kind != SY_V_STR || !strstr(v->u.s, "Proxy(")) return SY_OK;
    char out[2048];
    size_t len = 0;
    const char *p = v->u.s;
    while (*p && len < sizeof out - 1) {
        const char *q = strstr(p, "Proxy("), *e = q ? strchr(q + 6, ')') : NULL;
        if (!q || !e) {
            len += (size_t)snprintf(out + len, sizeof out - len, "%s", p);
            break;
        }
        char name[256];
        size_t nl = (size_t)(e - (q + 6));
        long ni = -1;
        if (nl < sizeof name) {
            memcpy(name, q + 6, nl);
            name[nl] = 0;
            ni = sy_graph_find(g, name);
        }
        len += (size_t)snprintf(out + len, sizeof out - len, "%.*s", (int)(q - p), p);
        if (ni >= 0 && (size_t)ni < upto && vals[ni].kind != SY_V_NONE) put_value(env, out, sizeof out, &len, &vals[ni], 0);
        else len += len < sizeof out ? (size_t)snprintf(out + len, sizeof out - len, "%.*s", (int)(e + 1 - q), q) : 0;
        p = e + 1;
    }
    sy_value r = sy_value_str(env, out);
    if (!r.u.s) return sy_ctx_last_error(env->ctx);
    *v = r;
    return SY_OK;
}

/* the strides an input's "strides" field declares, over its sizes (ndim <= 64):
 * channels_last(_3d) dense in the order (1, 3, 2, 0) / (1, 4, 3, 2, 0) (the
 * fastest dim first), contiguous dense in the reverse dim order, or the
 * explicit integers */
static sy_status declared_strides(sy_ctx *ctx, const sy_graph_input *in, const sy_expr *const *sizes, const sy_expr **stv)
{
    static const size_t cl4[4] = {1, 3, 2, 0}, cl5[5] = {1, 4, 3, 2, 0};
    const size_t *order = in->layout == SY_LAYOUT_CHANNELS_LAST ? cl4 : in->layout == SY_LAYOUT_CHANNELS_LAST_3D ? cl5 : NULL;
    const sy_expr *acc = sy_expr_int_si(ctx, 1);
    for (size_t k = 0; k < in->ndim; k++) {
        if (in->layout == SY_LAYOUT_EXPLICIT) {
            stv[k] = sy_expr_int_si(ctx, in->strides[k]);
        } else {
            size_t d = order ? order[k] : in->ndim - 1 - k;
            stv[d] = acc;
            acc = sy_expr_mul(ctx, acc, sizes[d]);
        }
        if (!acc || (in->layout == SY_LAYOUT_EXPLICIT && !stv[k])) return sy_ctx_last_error(ctx);
    }
    return SY_OK;
}

/* Run nodes [from, to) of g in env, storing values in vals. */
static sy_status run_nodes(sy_env *env, const sy_graph *g, size_t from, size_t to, sy_value *vals, size_t nov,
                           const sy_trace_override *ov)
{
    sy_ctx *ctx = env->ctx;
    size_t in_cursor = 0;
    for (size_t i = from; i < to; i++) {
        const gnode *nd = &g->nodes[i];
        sy_status st = SY_OK;
        if (!strcmp(nd->op, "input") || !strcmp(nd->op, "param")) {
            const json_t *jshape = json_object_get(nd->j, "shape");
            sy_dtype dt = SY_DT_FLOAT32;
            sy_dtype_parse(json_string_value(json_object_get(nd->j, "dtype")), &dt);
            size_t nd_ = json_array_size(jshape);
            int64_t shape[64];
            sy_dim_policy pol[64];
            if (nd_ > 64) return sy_fail_st(ctx, SY_EUNSUPPORTED, "node '%s': more than 64 dims", nd->name);
            for (size_t k = 0; k < nd_; k++) {
                shape[k] = json_integer_value(json_array_get(jshape, k));
                pol[k] = SY_DIM_STATIC;
            }
            if (!strcmp(nd->op, "input")) {
                /* the graph lists its inputs in node order: a cursor finds each
                 * in O(1) (a scan per input node was quadratic in 10^3 inputs) */
                const sy_graph_input *in = NULL;
                while (in_cursor < g->ninputs && g->inputs[in_cursor].node < i) in_cursor++;
                if (in_cursor < g->ninputs && g->inputs[in_cursor].node == i)
                    in = &g->inputs[in_cursor];
                else
                    for (size_t k = 0; k < g->ninputs; k++)
                        if (g->inputs[k].node == i) in = &g->inputs[k];
                const sy_trace_override *o = NULL;
                for (size_t k = 0; k < nov; k++)
                    if (ov[k].input && !strcmp(ov[k].input, nd->name)) o = &ov[k];
                const sy_dim_spec *spec[64];
                for (size_t k = 0; k < nd_; k++) {
                    pol[k] = in && in->dynamic[k] ? SY_DIM_DUCK : SY_DIM_STATIC;
                    spec[k] = NULL;
                }
                for (size_t k = 0; in && k < in->nspec; k++) spec[in->spec[k].dim] = &in->spec[k];
                if (o) {
                    for (size_t k = 0; k < nd_; k++) {
                        pol[k] = SY_DIM_STATIC;
                        spec[k] = NULL;
                    }
                    if (o->make_static) {
                    } else if (o->spec) {
                        for (size_t k = 0; k < o->spec->ndims; k++) {
                            const sy_dim_spec *d = &o->spec->dims[k];
                            if (d->dim >= nd_)
                                return sy_fail_st(ctx, SY_EINVAL, "dynamic spec of input '%s': no dim %zu (it is %zu-D)", nd->name,
                                                  d->dim, nd_);
                            pol[d->dim] = SY_DIM_DUCK;
                            spec[d->dim] = d;
                        }
                    } else
                        for (size_t k = 0; k < o->ndims; k++) {
                            if (o->dims[k] < 0 || (size_t)o->dims[k] >= nd_)
                                return sy_fail_st(ctx, SY_EINVAL, "input '%s' has no dim %d", nd->name, o->dims[k]);
                            pol[o->dims[k]] = SY_DIM_DUCK;
                        }
                }
                const sy_tensor *t = sy_env_input_spec(env, nd->name, dt, nd_, shape, pol, spec);
                if (!t) {
                    char msg[1024]; /* the message buffer is the context's: copy before reformatting */
                    snprintf(msg, sizeof msg, "%s", sy_ctx_last_error_msg(ctx));
                    return sy_fail_st(ctx, sy_ctx_last_error(ctx), "node '%s' (input): %s", nd->name, msg);
                }
                if (in && in->strides_given) { /* declared strides: the fake tensor's, and stride guards */
                    const sy_expr *stv[64];
                    if ((st = declared_strides(ctx, in, t->sizes, stv))) return st;
                    t = sy_env_input_set_strides(env, nd->name, stv);
                    if (!t) {
                        char msg[1024];
                        snprintf(msg, sizeof msg, "%s", sy_ctx_last_error_msg(ctx));
                        return sy_fail_st(ctx, sy_ctx_last_error(ctx), "node '%s' (input): strides: %s", nd->name, msg);
                    }
                }
                vals[i] = sy_value_tensor(t);
            } else {
                const sy_expr *sz[64];
                for (size_t k = 0; k < nd_; k++) sz[k] = sy_expr_int_si(ctx, shape[k]);
                const sy_tensor *t = sy_tensor_new(env, dt, nd_, sz);
                if (!t) return sy_ctx_last_error(ctx);
                vals[i] = sy_value_tensor(t);
            }
            continue;
        }
        if (!strcmp(nd->op, "constant")) {
            if ((st = sy_graph_value(env, g, json_object_get(nd->j, "value"), vals, &vals[i])))
                return sy_fail_st(ctx, st, "node '%s' (constant): %s", nd->name, sy_ctx_last_error_msg(ctx));
            continue;
        }
        const json_t *args = json_object_get(nd->j, "args"), *kw = json_object_get(nd->j, "kwargs");
        size_t na = json_array_size(args), nk = json_object_size(kw);
        sy_value *av = sy_env_alloc(env, (na ? na : 1) * sizeof *av);
        sy_value *kv = sy_env_alloc(env, (nk ? nk : 1) * sizeof *kv);
        const char **kn = sy_env_alloc(env, (nk ? nk : 1) * sizeof *kn);
        if (!av || !kv || !kn) return sy_ctx_last_error(ctx);
        for (size_t k = 0; k < na && !st; k++)
            if (!(st = sy_graph_value(env, g, json_array_get(args, k), vals, &av[k]))) st = resolve_proxies(env, g, vals, i, &av[k]);
        size_t k = 0;
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)kw, key, val) {
            if (st) break;
            kn[k] = key;
            st = sy_graph_value(env, g, val, vals, &kv[k]);
            k++;
        }
        if (st) return sy_fail_st(ctx, st, "node '%s' (%s): %s", nd->name, nd->op, sy_ctx_last_error_msg(ctx));
        sy_provenance where = {nd->name, nd->op, NULL};
        sy_env_set_loc(env, &nd->loc);
        sy_op_begin(ctx, false); /* the work budgets of ctx.h hold per graph node */
        st = sy_op_end_st(ctx, sy_env_call(env, nd->op, na, av, nk, kn, kv, &where, &vals[i]));
        sy_env_set_loc(env, NULL);
        if (st) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", sy_ctx_last_error_msg(ctx));
            return sy_fail_st(ctx, st, "node '%s' (%s): %s", nd->name, nd->op, msg);
        }
    }
    return SY_OK;
}


sy_status sy_env_trace(sy_env *env, const sy_graph *g, size_t nov, const sy_trace_override *ov, sy_trace **out)
{
    if (!env) return SY_EINVAL;
    if (!g || !out || (nov && !ov)) return sy_env_fail(env, SY_EINVAL, "trace: NULL argument");
    *out = NULL;
    for (size_t k = 0; k < nov; k++)
        if (!ov[k].input || sy_graph_find(g, ov[k].input) < 0 || strcmp(g->nodes[sy_graph_find(g, ov[k].input)].op, "input"))
            return sy_env_fail(env, SY_EINVAL, "no input named '%s'", ov[k].input ? ov[k].input : "(null)");
    sy_trace *t = sy_alloc(env->ctx, sizeof *t);
    if (!t) return sy_env_fail(env, SY_ENOMEM, "out of memory");
    memset(t, 0, sizeof *t);
    t->env = env;
    t->n = g->n;
    t->vals = sy_env_alloc(env, (g->n ? g->n : 1) * sizeof *t->vals);
    if (!t->vals) {
        sy_trace_free(t);
        return sy_ctx_last_error(env->ctx);
    }
    sy_status st = run_nodes(env, g, 0, g->n, t->vals, nov, ov);
    if (!st) {
        t->nout = json_array_size(g->outputs);
        t->outs = sy_env_alloc(env, (t->nout ? t->nout : 1) * sizeof *t->outs);
        if (!t->outs) st = sy_ctx_last_error(env->ctx);
        for (size_t i = 0; i < t->nout && !st; i++) st = sy_graph_value(env, g, json_array_get(g->outputs, i), t->vals, &t->outs[i]);
    }
    if (st) {
        sy_trace_free(t);
        return st;
    }
    *out = t;
    return SY_OK;
}

sy_trace *sy_trace_free(sy_trace *t)
{
    if (t) sy_dealloc(t->env->ctx, t, sizeof *t);
    return NULL;
}
const sy_value *sy_trace_value(const sy_trace *t, size_t i) { return t && i < t->n ? &t->vals[i] : NULL; }
size_t sy_trace_noutputs(const sy_trace *t) { return t ? t->nout : 0; }
const sy_value *sy_trace_output(const sy_trace *t, size_t i) { return t && i < t->nout ? &t->outs[i] : NULL; }

/* ------------------------------------------------------------------ real values */

struct sy_realvals {
    sy_ctx *ctx;
    const sy_graph *g;
    int64_t **shapes; /* per input (NULL: unbound) */
    sy_env *env;      /* concrete env for the current bindings */
    sy_value *vals;
    size_t computed;  /* nodes [0, computed) have values */
    sy_status err;    /* sticky error at node err_node */
    size_t err_node;
    char *errmsg;
    size_t stat_computed, stat_hits;
};

sy_realvals *sy_realvals_new(sy_ctx *ctx, const sy_graph *g)
{
    if (!ctx || !g) return NULL;
    sy_realvals *rv = sy_alloc(ctx, sizeof *rv);
    if (!rv) return SY_NOOM(ctx);
    memset(rv, 0, sizeof *rv);
    rv->ctx = ctx;
    rv->g = g;
    rv->shapes = sy_alloc(ctx, (g->ninputs ? g->ninputs : 1) * sizeof *rv->shapes);
    if (!rv->shapes) {
        sy_dealloc(ctx, rv, sizeof *rv);
        return SY_NOOM(ctx);
    }
    memset(rv->shapes, 0, (g->ninputs ? g->ninputs : 1) * sizeof *rv->shapes);
    return rv;
}

static void invalidate(sy_realvals *rv)
{
    rv->env = sy_env_free(rv->env);
    rv->vals = NULL;
    rv->computed = 0;
    rv->err = SY_OK;
    if (rv->errmsg) sy_dealloc(rv->ctx, rv->errmsg, strlen(rv->errmsg) + 1);
    rv->errmsg = NULL;
}

sy_realvals *sy_realvals_free(sy_realvals *rv)
{
    if (!rv) return NULL;
    invalidate(rv);
    for (size_t i = 0; i < rv->g->ninputs; i++)
        if (rv->shapes[i]) sy_dealloc(rv->ctx, rv->shapes[i], (rv->g->inputs[i].ndim ? rv->g->inputs[i].ndim : 1) * sizeof(int64_t));
    sy_dealloc(rv->ctx, rv->shapes, (rv->g->ninputs ? rv->g->ninputs : 1) * sizeof *rv->shapes);
    sy_dealloc(rv->ctx, rv, sizeof *rv);
    return NULL;
}

sy_status sy_realvals_bind(sy_realvals *rv, const char *name, size_t ndim, const int64_t *shape)
{
    if (!rv) return SY_EINVAL;
    if (!name || (ndim && !shape)) return sy_fail_st(rv->ctx, SY_EINVAL, "bind: NULL argument");
    for (size_t i = 0; i < rv->g->ninputs; i++) {
        const sy_graph_input *in = &rv->g->inputs[i];
        if (strcmp(in->name, name)) continue;
        if (in->ndim != ndim)
            return sy_fail_st(rv->ctx, SY_EINVAL, "input '%s' has %zu dims, got %zu sizes", name, in->ndim, ndim);
        for (size_t k = 0; k < ndim; k++)
            if (shape[k] < 0) return sy_fail_st(rv->ctx, SY_EINVAL, "input '%s': size %zu is negative", name, k);
        if (!rv->shapes[i]) {
            rv->shapes[i] = sy_alloc(rv->ctx, (ndim ? ndim : 1) * sizeof(int64_t));
            if (!rv->shapes[i]) return sy_fail_st(rv->ctx, SY_ENOMEM, "out of memory");
        }
        memcpy(rv->shapes[i], shape, ndim * sizeof(int64_t));
        invalidate(rv);
        return SY_OK;
    }
    return sy_fail_st(rv->ctx, SY_EINVAL, "the graph has no input named '%s'", name);
}

/* The concrete env reads input shapes from the bindings: swap the example
 * shapes of the input nodes by running the input nodes ourselves. */
static sy_status start_env(sy_realvals *rv)
{
    const sy_graph *g = rv->g;
    for (size_t i = 0; i < g->ninputs; i++)
        if (!rv->shapes[i]) return sy_fail_st(rv->ctx, SY_EINVAL, "input '%s' is not bound", g->inputs[i].name);
    sy_env_options o = SY_ENV_OPTIONS_INIT;
    rv->env = sy_env_new(rv->ctx, &o);
    if (!rv->env) return sy_ctx_last_error(rv->ctx);
    rv->env->concrete = 1;
    rv->vals = sy_env_alloc(rv->env, (g->n ? g->n : 1) * sizeof *rv->vals);
    if (!rv->vals) return sy_ctx_last_error(rv->ctx);
    return SY_OK;
}

static sy_status compute_to(sy_realvals *rv, size_t upto)
{
    const sy_graph *g = rv->g;
    while (rv->computed < upto) {
        size_t i = rv->computed;
        if (!strcmp(g->nodes[i].op, "input")) {
            const sy_graph_input *in = NULL;
            size_t k;
            for (k = 0; k < g->ninputs; k++)
                if (g->inputs[k].node == i) {
                    in = &g->inputs[k];
                    break;
                }
            const sy_expr *sz[64];
            if (!in || in->ndim > 64) return sy_fail_st(rv->ctx, SY_EINVAL, "bad input node");
            for (size_t d = 0; d < in->ndim; d++) sz[d] = sy_expr_int_si(rv->ctx, rv->shapes[k][d]);
            const sy_expr *stv[64]; /* the declared layout at these sizes */
            sy_status sst = in->strides_given ? declared_strides(rv->ctx, in, sz, stv) : SY_OK;
            if (sst) return sst;
            const sy_tensor *t = in->strides_given ? sy_tensor_new_strided(rv->env, in->dtype, in->ndim, sz, stv)
                                                   : sy_tensor_new(rv->env, in->dtype, in->ndim, sz);
            if (!t) return sy_ctx_last_error(rv->ctx);
            rv->vals[i] = sy_value_tensor(t);
        } else {
            sy_status st = run_nodes(rv->env, g, i, i + 1, rv->vals, 0, NULL);
            if (st) return st;
        }
        rv->computed++;
        rv->stat_computed++;
    }
    return SY_OK;
}

sy_status sy_realvals_get(sy_realvals *rv, size_t i, const sy_value **out)
{
    if (!rv) return SY_EINVAL;
    if (!out || i >= rv->g->n) return sy_fail_st(rv->ctx, SY_EINVAL, "get_real_value: node index out of range");
    if (rv->err && i >= rv->err_node) return sy_fail_st(rv->ctx, rv->err, "%s", rv->errmsg ? rv->errmsg : "failed");
    if (rv->env && i < rv->computed) {
        rv->stat_hits++;
        *out = &rv->vals[i];
        return SY_OK;
    }
    sy_status st = SY_OK;
    if (!rv->env) st = start_env(rv);
    if (!st) st = compute_to(rv, i + 1);
    if (st) {
        rv->err = st;
        rv->err_node = rv->computed;
        const char *m = sy_ctx_last_error_msg(rv->ctx);
        rv->errmsg = sy_alloc(rv->ctx, strlen(m) + 1);
        if (rv->errmsg) strcpy(rv->errmsg, m);
        return st;
    }
    *out = &rv->vals[i];
    return SY_OK;
}

size_t sy_realvals_noutputs(const sy_realvals *rv) { return rv ? json_array_size(rv->g->outputs) : 0; }

sy_status sy_realvals_output(sy_realvals *rv, size_t i, const sy_value **out)
{
    if (!rv) return SY_EINVAL;
    if (!out || i >= sy_realvals_noutputs(rv)) return sy_fail_st(rv->ctx, SY_EINVAL, "output index out of range");
    const json_t *o = json_array_get(rv->g->outputs, i);
    const json_t *r = json_object_get(o, "ref");
    if (r) return sy_realvals_get(rv, (size_t)sy_graph_find(rv->g, json_string_value(r)), out);
    /* a literal or a list output: compute everything, then convert */
    const sy_value *last;
    sy_status st = rv->g->n ? sy_realvals_get(rv, rv->g->n - 1, &last) : (rv->env ? SY_OK : start_env(rv));
    if (st) return st;
    sy_value *v = sy_env_alloc(rv->env, sizeof *v);
    if (!v) return sy_ctx_last_error(rv->ctx);
    if ((st = sy_graph_value(rv->env, rv->g, o, rv->vals, v))) return st;
    *out = v;
    return SY_OK;
}

void sy_realvals_stats(const sy_realvals *rv, size_t *computed, size_t *hits)
{
    if (computed) *computed = rv ? rv->stat_computed : 0;
    if (hits) *hits = rv ? rv->stat_hits : 0;
}
