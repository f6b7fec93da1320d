/* Graph documents (../shared/graph-format.md, version 1) read with jansson.
 * Every error names the place: line/column for JSON syntax, the node for
 * structural problems. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/buf.h"
#include "shapeenv/graph_private.h"

static uint64_t hstr(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

long sy_graph_find(const sy_graph *g, const char *name)
{
    if (!g || !name || !g->hcap) return -1;
    size_t m = g->hcap - 1, j = (size_t)hstr(name) & m;
    while (g->hash[j]) {
        size_t i = g->hash[j] - 1;
        if (!strcmp(g->nodes[i].name, name)) return (long)i;
        j = (j + 1) & m;
    }
    return -1;
}

sy_graph *sy_graph_free(sy_graph *g)
{
    if (!g) return NULL;
    sy_ctx *ctx = g->ctx;
    if (g->root) json_decref(g->root);
    if (g->name) sy_dealloc(ctx, g->name, strlen(g->name) + 1);
    if (g->nodes) sy_dealloc(ctx, g->nodes, (g->n ? g->n : 1) * sizeof *g->nodes);
    if (g->hash) sy_dealloc(ctx, g->hash, g->hcap * sizeof *g->hash);
    if (g->gv) sy_dealloc(ctx, g->gv, g->gvcap * sizeof *g->gv);
    if (g->shapes) sy_dealloc(ctx, g->shapes, g->shapecap * sizeof *g->shapes);
    if (g->kwnames) sy_dealloc(ctx, g->kwnames, g->kwncap * sizeof *g->kwnames);
    if (g->reflist) sy_dealloc(ctx, g->reflist, g->reflistcap * sizeof *g->reflist);
    for (size_t i = 0; i < g->ninputs; i++) {
        sy_dealloc(ctx, (void *)g->inputs[i].shape, (g->inputs[i].ndim ? g->inputs[i].ndim : 1) * sizeof(int64_t));
        sy_dealloc(ctx, (void *)g->inputs[i].dynamic, (g->inputs[i].ndim ? g->inputs[i].ndim : 1) * sizeof(int));
        if (g->inputs[i].spec) sy_dealloc(ctx, (void *)g->inputs[i].spec, (g->inputs[i].ndim ? g->inputs[i].ndim : 1) * sizeof *g->inputs[i].spec);
        if (g->inputs[i].strides) sy_dealloc(ctx, (void *)g->inputs[i].strides, (g->inputs[i].ndim ? g->inputs[i].ndim : 1) * sizeof(int64_t));
    }
    if (g->inputs) sy_dealloc(ctx, g->inputs, g->n * sizeof *g->inputs + 1);
    sy_dealloc(ctx, g, sizeof *g);
    return NULL;
}

static sy_status gerr(sy_ctx *ctx, const char *file, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static sy_status gerr(sy_ctx *ctx, const char *file, sy_status st, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sy_fail_st(ctx, st, "%s: %s", file, msg);
}

/* a "shape" list into g->shapes[*first, *first + *n) */
static bool grow_by(sy_ctx *ctx, void **p, size_t *len, size_t *cap, size_t elem, size_t n, size_t *first);
static sy_status read_shape(sy_graph *g, const char *file, const char *node, const json_t *arr, size_t *first, size_t *n)
{
    if (!json_is_array(arr)) return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"shape\" must be a list of integers", node);
    size_t k = json_array_size(arr);
    if (!grow_by(g->ctx, (void **)&g->shapes, &g->nshapes, &g->shapecap, sizeof *g->shapes, k, first))
        return sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
    for (size_t i = 0; i < k; i++) { /* indexed, not g->shapes + *first: shapes is NULL for an empty first list */
        const json_t *x = json_array_get(arr, i);
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return gerr(g->ctx, file, SY_EFORMAT, "node '%s': shape entry %zu must be a non-negative integer", node, i);
        g->shapes[*first + i] = json_integer_value(x);
    }
    *n = k;
    return SY_OK;
}

/* the optional "loc": {"file": str, "line": int >= 1, "function": str} (line and
 * function optional) */
static sy_status read_loc(sy_graph *g, const char *file, const char *node, const json_t *j, sy_loc *out)
{
    memset(out, 0, sizeof *out);
    if (!j) return SY_OK;
    if (!json_is_object(j)) return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"loc\" must be an object {file, line, function}", node);
    const json_t *f = json_object_get(j, "file"), *l = json_object_get(j, "line"), *fn = json_object_get(j, "function");
    if (!json_is_string(f) || !*json_string_value(f))
        return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"loc\" needs a non-empty string \"file\"", node);
    if (l && !json_is_null(l) && (!json_is_integer(l) || json_integer_value(l) < 1 || json_integer_value(l) > 2147483647))
        return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"loc\".line must be a positive integer", node);
    if (fn && !json_is_null(fn) && !json_is_string(fn))
        return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"loc\".function must be a string", node);
    out->file = json_string_value(f);
    out->line = json_is_integer(l) ? (long)json_integer_value(l) : 0;
    out->function = json_is_string(fn) ? json_string_value(fn) : NULL;
    return SY_OK;
}

/* An input's "dynamic" list: dim indexes or {"dim", "name", "min", "max"}
 * objects (docs/graph-format.md "Dynamic-dim spec"). */
static sy_status read_dynamic(sy_graph *g, const char *file, const char *nname, const json_t *dl, sy_graph_input *in,
                              int *dyn)
{
    sy_ctx *ctx = g->ctx;
    size_t n = json_array_size(dl);
    if (!n) return SY_OK;
    sy_dim_spec *sp = sy_alloc(ctx, (in->ndim ? in->ndim : 1) * sizeof *sp); /* distinct dims: at most ndim */
    if (!sp) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    in->spec = sp;
    size_t k;
    const json_t *x;
    json_array_foreach(dl, k, x) {
        sy_dim_spec spec, *d = &spec; /* copied into sp[] only once its dim is known to be new */
        d->name = NULL;
        d->min = d->max = SY_DIM_SPEC_UNSET;
        const json_t *jd = x;
        if (json_is_object(x)) {
            const char *key;
            json_t *v;
            json_object_foreach((json_t *)x, key, v) {
                if (strcmp(key, "dim") && strcmp(key, "name") && strcmp(key, "min") && strcmp(key, "max"))
                    return gerr(ctx, file, SY_EFORMAT, "node '%s': dynamic entry %zu: unknown field \"%s\" (known: dim, name, min, max)",
                                nname, k, key);
            }
            jd = json_object_get(x, "dim");
            if (!jd)
                return gerr(ctx, file, SY_EFORMAT, "node '%s': dynamic entry %zu: a dim spec needs \"dim\"", nname, k);
            const json_t *jn = json_object_get(x, "name"), *jlo = json_object_get(x, "min"), *jhi = json_object_get(x, "max");
            if (jn) {
                const char *s = json_is_string(jn) ? json_string_value(jn) : NULL;
                bool ok = s && (isalpha((unsigned char)s[0]) || s[0] == '_');
                for (const char *c = s; ok && *c; c++) ok = isalnum((unsigned char)*c) || *c == '_';
                if (!ok)
                    return gerr(ctx, file, SY_EFORMAT, "node '%s': dynamic entry %zu: \"name\" must be an identifier ([A-Za-z_][A-Za-z0-9_]*)",
                                nname, k);
                d->name = s;
            }
            const json_t *jb[2] = {jlo, jhi};
            int64_t *bv[2] = {&d->min, &d->max};
            for (int b = 0; b < 2; b++) {
                if (!jb[b]) continue;
                if (!json_is_integer(jb[b]) || json_integer_value(jb[b]) < 0)
                    return gerr(ctx, file, SY_EFORMAT, "node '%s': dynamic entry %zu: \"%s\" must be a non-negative integer", nname,
                                k, b ? "max" : "min");
                *bv[b] = json_integer_value(jb[b]);
            }
            if (jlo && jhi && d->min > d->max)
                return gerr(ctx, file, SY_EFORMAT, "node '%s': dynamic entry %zu: the range is empty (min %lld > max %lld)", nname,
                            k, (long long)d->min, (long long)d->max);
            if (jlo && jhi && d->min == d->max) /* torch.export's Dim asserts max > min */
                return gerr(ctx, file, SY_EFORMAT,
                            "node '%s': dynamic entry %zu: the range [%lld, %lld] holds one size: a dynamic dim needs min < max "
                            "(as torch.export's Dim); a dim of one size is static",
                            nname, k, (long long)d->min, (long long)d->max);
        }
        if (!json_is_integer(jd) || json_integer_value(jd) < 0 || (size_t)json_integer_value(jd) >= in->ndim) {
            char bad[64];
            if (json_is_integer(jd)) snprintf(bad, sizeof bad, "%lld", (long long)json_integer_value(jd));
            else snprintf(bad, sizeof bad, "(not an integer)");
            return gerr(ctx, file, SY_EFORMAT, "node '%s': dynamic entry %zu, %s, is not a dim index of a %zu-D input", nname, k,
                        bad, in->ndim);
        }
        size_t dim = (size_t)json_integer_value(jd);
        if (dyn[dim]) {
            /* a bare index listed twice is harmless (as before); a spec must be unique */
            bool twice_spec = json_is_object(x);
            for (size_t q = 0; q < in->nspec; q++)
                if (sp[q].dim == dim && sy_dim_spec_declared(&sp[q])) twice_spec = true;
            if (twice_spec)
                return gerr(ctx, file, SY_EFORMAT, "node '%s': dynamic entry %zu: dim %zu is listed twice", nname, k, dim);
            continue;
        }
        dyn[dim] = 1;
        d->dim = dim;
        sp[in->nspec++] = spec;
    }
    return SY_OK;
}

/* an input's optional "strides" (docs/graph-format.md): a memory format name
 * ("contiguous", "channels_last" for 4-D, "channels_last_3d" for 5-D; the
 * "torch." prefix of str(torch.channels_last) is accepted) or a list of ndim
 * non-negative integers */
/* a param's "values": [lo, hi], its least and greatest elements (docs/graph-format.md): integers
 * within its integer dtype, lo <= hi; only on a param of an integer dtype with an element. An
 * optional third integer, the step: the param is a row (every dim but the last 1) whose elements
 * are the sequence from lo (step > 0) or hi (step < 0), (hi - lo) / |step| + 1 of them */
static sy_status read_values(sy_graph *g, const char *file, const char *nname, const json_t *js, gnode *gn)
{
    int64_t mn, mx, n = 1;
    if (!js) return SY_OK;
    for (size_t k = 0; k < gn->ndim; k++)
        if (!g->shapes[gn->shape + k]) n = 0;
    if (gn->kind != GN_PARAM || !sy_vb_int_dtype(gn->dtype, &mn, &mx, NULL) || !n)
        return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"values\" is for a param of an integer dtype (int64, int32, int16, int8, uint8) with an element", nname);
    if (!json_is_array(js) || (json_array_size(js) != 2 && json_array_size(js) != 3) || !json_is_integer(json_array_get(js, 0)) ||
        !json_is_integer(json_array_get(js, 1)) || (json_array_size(js) == 3 && !json_is_integer(json_array_get(js, 2))))
        return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"values\" must be [least, greatest] or [least, greatest, step], integers", nname);
    int64_t lo = json_integer_value(json_array_get(js, 0)), hi = json_integer_value(json_array_get(js, 1));
    if (lo > hi || lo < mn || hi > mx)
        return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"values\" [%" PRId64 ", %" PRId64 "] must have least <= greatest, within [%" PRId64 ", %" PRId64 "] of its dtype",
                    nname, lo, hi, mn, mx);
    int64_t step = json_array_size(js) == 3 ? json_integer_value(json_array_get(js, 2)) : 0;
    if (json_array_size(js) == 3) {
        /* a row of numel elements: every dim but the last the constant 1, numel = (hi - lo) / |step| + 1 */
        int64_t numel = 1, d, a = 1;
        bool row = gn->ndim >= 1 && step != 0 && step != INT64_MIN;
        if (row) a = step < 0 ? -step : step;
        for (size_t k = 0; row && k < gn->ndim; k++) {
            if ((d = g->shapes[gn->shape + k]) < 0 || (k + 1 < gn->ndim && d != 1)) row = false;
            else numel = d;
        }
        uint64_t span = (uint64_t)hi - (uint64_t)lo;
        if (!row || span % (uint64_t)a || span / (uint64_t)a != (uint64_t)numel - 1)
            return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"values\" [least, greatest, step] is for a row (every dim but the last 1) of (greatest - least) / |step| + 1 elements", nname);
    }
    gn->has_values = true;
    gn->vlo = lo;
    gn->vhi = hi;
    gn->vstep = step;
    return SY_OK;
}

static sy_status read_strides(sy_graph *g, const char *file, const char *nname, const json_t *js, sy_graph_input *in)
{
    sy_ctx *ctx = g->ctx;
    if (!js) return SY_OK;
    in->strides_given = 1;
    if (json_is_string(js)) {
        const char *s = json_string_value(js);
        if (!strncmp(s, "torch.", 6)) s += 6;
        if (!strcmp(s, "contiguous") || !strcmp(s, "contiguous_format")) in->layout = SY_LAYOUT_CONTIGUOUS;
        else if (!strcmp(s, "channels_last")) in->layout = SY_LAYOUT_CHANNELS_LAST;
        else if (!strcmp(s, "channels_last_3d")) in->layout = SY_LAYOUT_CHANNELS_LAST_3D;
        else
            return gerr(ctx, file, SY_EFORMAT,
                        "node '%s': \"strides\" '%s' is not a memory format (contiguous, channels_last, channels_last_3d) or a list",
                        nname, json_string_value(js));
        size_t want = in->layout == SY_LAYOUT_CHANNELS_LAST ? 4 : in->layout == SY_LAYOUT_CHANNELS_LAST_3D ? 5 : in->ndim;
        if (in->ndim != want)
            return gerr(ctx, file, SY_EFORMAT, "node '%s': \"strides\" %s needs a %zu-D input, this one is %zu-D", nname,
                        json_string_value(js), want, in->ndim);
        return SY_OK;
    }
    if (!json_is_array(js) || json_array_size(js) != in->ndim)
        return gerr(ctx, file, SY_EFORMAT, "node '%s': \"strides\" must be a memory format name or a list of %zu integers", nname,
                    in->ndim);
    int64_t *st = sy_alloc(ctx, (in->ndim ? in->ndim : 1) * sizeof *st);
    if (!st) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    in->strides = st;
    in->layout = SY_LAYOUT_EXPLICIT;
    for (size_t k = 0; k < in->ndim; k++) {
        const json_t *e = json_array_get(js, k);
        if (!json_is_integer(e) || json_integer_value(e) < 0)
            return gerr(ctx, file, SY_EFORMAT, "node '%s': \"strides\"[%zu] must be a non-negative integer", nname, k);
        st[k] = json_integer_value(e);
    }
    return SY_OK;
}

/* ------------------------------------------------------------------ compiled arguments
 * Each node's arguments are parsed once, here, into gval slots (graph_private.h),
 * following sy_graph_value's reading of the JSON case by case; the trace then
 * builds sy_values from them without jansson (about a tenth of a trace was
 * json_object_get and sy_graph_value, callgrind on inception_v3). */

/* n more elements at the end of a growable array (zeroed); false when out of memory */
static bool grow_by(sy_ctx *ctx, void **p, size_t *len, size_t *cap, size_t elem, size_t n, size_t *first)
{
    if (*len + n > *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        while (nc < *len + n) nc *= 2;
        void *np = sy_realloc(ctx, *p, *cap * elem, nc * elem);
        if (!np) return false;
        *p = np;
        *cap = nc;
    }
    if (n) memset((char *)*p + *len * elem, 0, n * elem);
    *first = *len;
    *len += n;
    return true;
}

static bool gv_reserve(sy_graph *g, size_t n, size_t *first)
{
    return grow_by(g->ctx, (void **)&g->gv, &g->ngv, &g->gvcap, sizeof *g->gv, n, first);
}

/* the only key of a one-key object, else NULL */
static const char *only_key(const json_t *j, const json_t **val)
{
    if (json_object_size(j) != 1) return NULL;
    void *it = json_object_iter((json_t *)j);
    *val = json_object_iter_value(it);
    return json_object_iter_key(it);
}

/* Validate j, a value of node `node` (index self; the outputs: self = n), and
 * compile it into gv[slot], in one walk: refs must be strings naming earlier
 * nodes (which are marked read), a slice is [start, stop, step], nesting is at
 * most 64 deep. The cases follow sy_graph_gvalue's reading: {"ref"} before
 * {"slice"} before {"ellipsis"} before a one-key {"dtype": str}; any other
 * object is a Python dict, its values in document order. */
static sy_status gv_build(sy_graph *g, const char *file, const char *node, long self, const json_t *j, size_t slot, int depth)
{
    if (depth > 64) return gerr(g->ctx, file, SY_EFORMAT, "node '%s': value nested too deeply", node);
    gval v;
    memset(&v, 0, sizeof v);
    size_t first;
    switch (j ? json_typeof(j) : JSON_NULL) {
    case JSON_NULL: v.kind = GV_NONE; break;
    case JSON_TRUE:
    case JSON_FALSE:
        v.kind = GV_BOOL;
        v.u.i = json_is_true(j);
        break;
    case JSON_INTEGER:
        v.kind = GV_INT;
        v.u.i = json_integer_value(j);
        break;
    case JSON_REAL:
        v.kind = GV_REAL;
        v.u.f = json_real_value(j);
        break;
    case JSON_STRING:
        v.kind = GV_STR;
        v.u.s = json_string_value(j);
        break;
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        if (!gv_reserve(g, n, &first)) return sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
        v.kind = GV_LIST;
        v.u.list.n = n;
        v.u.list.first = first;
        g->gv[slot] = v;
        for (size_t i = 0; i < n; i++) {
            sy_status st = gv_build(g, file, node, self, json_array_get(j, i), first + i, depth + 1);
            if (st) return st;
        }
        return SY_OK;
    }
    case JSON_OBJECT: {
        const json_t *r = NULL, *s = NULL, *one = NULL;
        const char *k = only_key(j, &one);
        bool ellipsis = false;
        if (k) { /* the common case, a one-key object, without a lookup */
            if (!strcmp(k, "ref")) r = one;
            else if (!strcmp(k, "slice")) s = one;
            else if (!strcmp(k, "ellipsis")) ellipsis = true;
        } else if (json_object_size(j) > 1) {
            r = json_object_get(j, "ref");
            s = r ? NULL : json_object_get(j, "slice");
            ellipsis = !r && !s && json_object_get(j, "ellipsis");
        }
        if (r) {
            if (!json_is_string(r)) return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"ref\" must be a string", node);
            long i = sy_graph_find(g, json_string_value(r));
            if (i < 0) return gerr(g->ctx, file, SY_EFORMAT, "node '%s': dangling ref '%s'", node, json_string_value(r));
            if (i >= self)
                return gerr(g->ctx, file, SY_EFORMAT, "node '%s': ref '%s' refers to a later node (nodes must be in execution order)",
                            node, json_string_value(r));
            g->nodes[i].read = true;
            v.kind = GV_REF;
            v.u.ref = (size_t)i;
        } else if (s) {
            if (!json_is_array(s) || json_array_size(s) != 3)
                return gerr(g->ctx, file, SY_EFORMAT, "node '%s': \"slice\" must be [start, stop, step]", node);
            if (depth + 1 > 64) return gerr(g->ctx, file, SY_EFORMAT, "node '%s': value nested too deeply", node);
            if (!gv_reserve(g, 3, &first)) return sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
            v.kind = GV_SLICE;
            v.u.list.n = 3;
            v.u.list.first = first;
            g->gv[slot] = v;
            for (size_t i = 0; i < 3; i++) {
                sy_status st = gv_build(g, file, node, self, json_array_get(s, i), first + i, depth + 2);
                if (st) return st;
            }
            return SY_OK;
        } else if (ellipsis) {
            v.kind = GV_ELLIPSIS;
        } else if (k && !strcmp(k, "dtype") && json_is_string(one)) {
            v.kind = sy_dtype_parse(json_string_value(one), &v.u.dtype) ? GV_BADDTYPE : GV_DTYPE;
            if (v.kind == GV_BADDTYPE) v.u.s = json_string_value(one);
        } else { /* a dict: its values as a list, in document order */
            size_t n = json_object_size(j), q = 0;
            if (!gv_reserve(g, n, &first)) return sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
            v.kind = GV_LIST;
            v.u.list.n = n;
            v.u.list.first = first;
            g->gv[slot] = v;
            const char *key;
            json_t *x;
            json_object_foreach((json_t *)j, key, x) {
                sy_status st = gv_build(g, file, node, self, x, first + q++, depth + 1);
                if (st) return st;
            }
            return SY_OK;
        }
        break;
    }
    default: return sy_fail_st(g->ctx, SY_ERROR, "graph: unknown JSON type");
    }
    g->gv[slot] = v;
    return SY_OK;
}

sy_status sy_graph_gvalue(sy_env *env, const sy_graph *g, size_t slot, const sy_value *vals, sy_value *out)
{
    sy_ctx *ctx = env->ctx;
    const gval *v = &g->gv[slot];
    *out = sy_value_none();
    switch (v->kind) {
    case GV_NONE: return SY_OK;
    case GV_BOOL: *out = sy_value_bool(sy_expr_bool(ctx, v->u.i != 0)); return SY_OK;
    case GV_INT:
        *out = sy_value_int(sy_expr_int_si(ctx, v->u.i));
        return out->u.i ? SY_OK : sy_ctx_last_error(ctx);
    case GV_REAL: *out = sy_value_float(v->u.f); return SY_OK;
    case GV_STR:
        *out = sy_value_str(env, v->u.s);
        return out->u.s ? SY_OK : sy_ctx_last_error(ctx);
    case GV_REF: *out = vals[v->u.ref]; return SY_OK;
    case GV_ELLIPSIS: out->kind = SY_V_ELLIPSIS; return SY_OK;
    case GV_DTYPE:
        out->kind = SY_V_DTYPE;
        out->u.dtype = v->u.dtype;
        return SY_OK;
    case GV_BADDTYPE: return sy_fail_st(ctx, SY_EFORMAT, "unknown dtype '%s'", v->u.s);
    case GV_LIST:
    case GV_SLICE: {
        size_t n = v->u.list.n, first = v->u.list.first;
        bool slice = v->kind == GV_SLICE;
        sy_value *items = sy_env_alloc(env, (n ? n : 1) * sizeof *items);
        if (!items) return sy_ctx_last_error(ctx);
        for (size_t i = 0; i < n; i++) {
            sy_status st = sy_graph_gvalue(env, g, first + i, vals, &items[i]);
            if (st) return st;
        }
        if (slice) {
            out->kind = SY_V_SLICE;
            out->u.slice.start = &items[0];
            out->u.slice.stop = &items[1];
            out->u.slice.step = &items[2];
        } else {
            out->kind = SY_V_LIST;
            out->u.list.n = n;
            out->u.list.items = items;
        }
        return SY_OK;
    }
    default: return sy_fail_st(ctx, SY_ERROR, "graph: bad compiled value");
    }
}

/* The memo template of a node: its op, keyword names and compiled
 * arguments with every ref as a placeholder, as bytes. Nodes with equal
 * bytes build equal sy_values from equal ref values. */
typedef struct tbuf {
    unsigned char b[2048];
    size_t n;
    bool bad; /* too long, or an argument the memo does not key */
} tbuf;

static void tput(tbuf *t, const void *p, size_t n)
{
    if (t->bad || n > sizeof t->b - t->n) {
        t->bad = true;
        return;
    }
    memcpy(t->b + t->n, p, n);
    t->n += n;
}
static void tword(tbuf *t, uint64_t w) { tput(t, &w, sizeof w); }
static void tstr(tbuf *t, const char *s)
{
    size_t n = strlen(s);
    tword(t, n);
    tput(t, s, n);
}

static void tval(sy_graph *g, tbuf *t, size_t slot, int depth)
{
    const gval *v = &g->gv[slot];
    if (depth > 8) {
        t->bad = true;
        return;
    }
    tput(t, &v->kind, 1);
    switch (v->kind) {
    case GV_NONE:
    case GV_ELLIPSIS: break;
    case GV_BOOL:
    case GV_INT: tword(t, (uint64_t)v->u.i); break;
    case GV_REAL: tput(t, &v->u.f, sizeof v->u.f); break;
    case GV_STR: tstr(t, v->u.s); break;
    case GV_DTYPE: tword(t, (uint64_t)v->u.dtype); break;
    case GV_REF: /* the placeholder: the ref's value is in the trace's key */
        if (!grow_by(g->ctx, (void **)&g->reflist, &g->nreflist, &g->reflistcap, sizeof *g->reflist, 1, &(size_t){0})) t->bad = true;
        else g->reflist[g->nreflist - 1] = v->u.ref;
        break;
    case GV_LIST:
    case GV_SLICE:
        tword(t, v->u.list.n);
        for (size_t i = 0; i < v->u.list.n && !t->bad; i++) tval(g, t, v->u.list.first + i, depth + 1);
        break;
    default: t->bad = true; break;
    }
}

/* template bytes -> id, while loading */
typedef struct ttab {
    struct tent { uint64_t h; size_t n, id; unsigned char *b; } *e;
    size_t cap, n;
} ttab;

static void ttab_free(sy_ctx *ctx, ttab *tt)
{
    for (size_t i = 0; i < tt->cap; i++)
        if (tt->e[i].b) sy_dealloc(ctx, tt->e[i].b, tt->e[i].n ? tt->e[i].n : 1);
    if (tt->e) sy_dealloc(ctx, tt->e, tt->cap * sizeof *tt->e);
}

/* the id of t's bytes (1-based; equal bytes, equal id); 0 when out of memory */
static size_t ttab_id(sy_ctx *ctx, ttab *tt, const tbuf *t)
{
    uint64_t h = 1469598103934665603ull, w;
    size_t q = 0;
    for (; q + 8 <= t->n; q += 8) { /* a word at a time, the tail bytewise */
        memcpy(&w, t->b + q, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (; q < t->n; q++) h = (h ^ t->b[q]) * 1099511628211ull;
    if ((tt->n + 1) * 2 > tt->cap) {
        size_t nc = tt->cap ? tt->cap * 2 : 64;
        struct tent *ne = sy_alloc(ctx, nc * sizeof *ne);
        if (!ne) return 0;
        memset(ne, 0, nc * sizeof *ne);
        for (size_t i = 0; i < tt->cap; i++)
            if (tt->e[i].b) {
                size_t j = (size_t)tt->e[i].h & (nc - 1);
                while (ne[j].b) j = (j + 1) & (nc - 1);
                ne[j] = tt->e[i];
            }
        if (tt->e) sy_dealloc(ctx, tt->e, tt->cap * sizeof *tt->e);
        tt->e = ne;
        tt->cap = nc;
    }
    size_t j = (size_t)h & (tt->cap - 1);
    for (; tt->e[j].b; j = (j + 1) & (tt->cap - 1))
        if (tt->e[j].h == h && tt->e[j].n == t->n && !memcmp(tt->e[j].b, t->b, t->n)) return tt->e[j].id;
    unsigned char *b = sy_alloc(ctx, t->n ? t->n : 1);
    if (!b) return 0;
    memcpy(b, t->b, t->n);
    tt->e[j] = (struct tent){h, t->n, ++tt->n, b};
    return tt->n;
}

/* The fields of a node object the loader reads, gathered in one pass over its
 * keys (jansson rejected duplicate keys); NULL: absent. */
typedef struct nfields {
    const json_t *name, *op, *loc, *dtype, *shape, *dynamic, *strides, *value, *values, *args, *kwargs;
} nfields;

static void node_fields(const json_t *nd, nfields *f)
{
    memset(f, 0, sizeof *f);
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)nd, k, x) {
        const json_t **slot = NULL;
        switch (k[0]) {
        case 'a': slot = !strcmp(k, "args") ? &f->args : NULL; break;
        case 'd': slot = !strcmp(k, "dtype") ? &f->dtype : !strcmp(k, "dynamic") ? &f->dynamic : NULL; break;
        case 'k': slot = !strcmp(k, "kwargs") ? &f->kwargs : NULL; break;
        case 'l': slot = !strcmp(k, "loc") ? &f->loc : NULL; break;
        case 'n': slot = !strcmp(k, "name") ? &f->name : NULL; break;
        case 'o': slot = !strcmp(k, "op") ? &f->op : NULL; break;
        case 's': slot = !strcmp(k, "shape") ? &f->shape : !strcmp(k, "strides") ? &f->strides : NULL; break;
        case 'v': slot = !strcmp(k, "value") ? &f->value : !strcmp(k, "values") ? &f->values : NULL; break;
        default: break;
        }
        if (slot) *slot = x;
    }
}

/* Validate and compile node i's arguments (a call: args and kwargs, checked
 * to be a list and an object; a constant: its value) and its memo template. */
static sy_status compile_args(sy_graph *g, const char *file, size_t i, const nfields *f, ttab *tt)
{
    sy_ctx *ctx = g->ctx;
    gnode *nd = &g->nodes[i];
    const char *op = nd->op, *nname = nd->name;
    if (nd->kind == GN_CONSTANT) {
        if (!f->value) return gerr(ctx, file, SY_EFORMAT, "node '%s': constant without \"value\"", nname);
        nd->na = 1;
        if (!gv_reserve(g, 1, &nd->args)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        return gv_build(g, file, nname, (long)i, f->value, nd->args, 0);
    }
    const json_t *args = f->args, *kw = f->kwargs;
    if (args && !json_is_array(args)) return gerr(ctx, file, SY_EFORMAT, "node '%s': \"args\" must be a list", nname);
    if (kw && !json_is_object(kw)) return gerr(ctx, file, SY_EFORMAT, "node '%s': \"kwargs\" must be an object", nname);
    nd->na = json_array_size(args);
    nd->nk = json_object_size(kw);
    if (!gv_reserve(g, nd->na, &nd->args) || !gv_reserve(g, nd->nk, &nd->kwv) ||
        !grow_by(ctx, (void **)&g->kwnames, &g->nkwn, &g->kwncap, sizeof *g->kwnames, nd->nk, &nd->kw))
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    sy_status st;
    /* args is a list value at depth 0: its items at depth 1; each keyword value at depth 0 */
    for (size_t k = 0; k < nd->na; k++)
        if ((st = gv_build(g, file, nname, (long)i, json_array_get(args, k), nd->args + k, 1))) return st;
    size_t k = 0;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)kw, key, val) {
        g->kwnames[nd->kw + k] = key;
        if ((st = gv_build(g, file, nname, (long)i, val, nd->kwv + k, 0))) return st;
        k++;
    }
    for (k = 0; k < nd->na; k++) {
        const gval *v = &g->gv[nd->args + k];
        if (v->kind == GV_STR && strstr(v->u.s, "Proxy(")) nd->proxy = true;
    }
    if (nd->proxy || !sy_env_op_memoizable(op)) return SY_OK;
    static _Thread_local tbuf t; /* 2 KiB: off the stack */
    t.n = 0;
    t.bad = false;
    tstr(&t, op);
    nd->refl = g->nreflist;
    tword(&t, nd->na);
    for (k = 0; k < nd->na && !t.bad; k++) tval(g, &t, nd->args + k, 0);
    tword(&t, nd->nk);
    for (k = 0; k < nd->nk && !t.bad; k++) {
        tstr(&t, g->kwnames[nd->kw + k]);
        tval(g, &t, nd->kwv + k, 0);
    }
    nd->nref = g->nreflist - nd->refl;
    if (t.bad) return SY_OK; /* not memoized */
    if (!(nd->tid = ttab_id(ctx, tt, &t))) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    nd->memo = true;
    return SY_OK;
}

/* "torch_version": the PyTorch release the graph was captured with (torch.__version__,
 * e.g. "2.14.1+cu130", "1.13.0a0+git49444c3"): major * 100 + minor in *out; absent: 0 (the
 * newest semantics). The ops follow that release's kernels where they differ (docs/ops.md). */
static sy_status read_torch_version(sy_ctx *ctx, const char *file, const json_t *j, int *out)
{
    *out = 0;
    if (!j) return SY_OK;
    const char *s = json_is_string(j) ? json_string_value(j) : NULL;
    long major = -1, minor = -1;
    if (s && *s >= '0' && *s <= '9') {
        char *e;
        major = strtol(s, &e, 10);
        if (*e == '.' && e[1] >= '0' && e[1] <= '9') minor = strtol(e + 1, &e, 10);
        /* after MAJOR.MINOR: nothing, ".PATCH...", "+LOCAL", or a pre-release aN / bN / rcN (PEP 440) */
        int pre = (*e == 'a' || *e == 'b') ? 1 : (e[0] == 'r' && e[1] == 'c') ? 2 : 0;
        if (pre) {
            if (e[pre] < '0' || e[pre] > '9') minor = -1;
        } else if (*e && *e != '.' && *e != '+') {
            minor = -1;
        }
        for (const char *q = e; *q && minor >= 0; q++)
            if (*q <= ' ' || *q > '~') minor = -1; /* no spaces or control characters */
    }
    if (major < 1 || major > 99 || minor < 0 || minor > 99)
        return gerr(ctx, file, SY_EFORMAT, "\"torch_version\" must be a PyTorch version string such as \"2.14.1\" (torch.__version__)");
    *out = (int)(major * 100 + minor);
    return SY_OK;
}

/* The graph of a parsed document; TAKES root (kept by the graph, or freed on error). */
static sy_status load_root(sy_ctx *ctx, json_t *root, const char *file, sy_graph **out)
{
    sy_graph *g = sy_alloc(ctx, sizeof *g);
    if (!g) {
        json_decref(root);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    memset(g, 0, sizeof *g);
    g->ctx = ctx;
    g->root = root;
    sy_status st = SY_OK;
    ttab tt = {NULL, 0, 0}; /* memo templates, while loading */
    if (!json_is_object(root)) {
        st = gerr(ctx, file, SY_EFORMAT, "the document must be a JSON object");
        goto fail;
    }
    const json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "version");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "symshape.graph")) {
        st = gerr(ctx, file, SY_EFORMAT, "\"format\" must be \"symshape.graph\"");
        goto fail;
    }
    if (!json_is_integer(ver)) {
        st = gerr(ctx, file, SY_EFORMAT, "\"version\" must be an integer");
        goto fail;
    }
    if (json_integer_value(ver) != 1) {
        st = gerr(ctx, file, SY_EVERSION, "unknown graph format version %lld (this reader knows version 1)",
                  (long long)json_integer_value(ver));
        goto fail;
    }
    if ((st = read_torch_version(ctx, file, json_object_get(root, "torch_version"), &g->torch_version))) goto fail;
    const json_t *nm = json_object_get(root, "name");
    const char *gname = json_is_string(nm) ? json_string_value(nm) : file;
    g->name = sy_alloc(ctx, strlen(gname) + 1);
    if (!g->name) goto oom;
    strcpy(g->name, gname);
    const json_t *nodes = json_object_get(root, "nodes");
    if (!json_is_array(nodes)) {
        st = gerr(ctx, file, SY_EFORMAT, "\"nodes\" must be a list");
        goto fail;
    }
    g->n = json_array_size(nodes);
    g->nodes = sy_alloc(ctx, (g->n ? g->n : 1) * sizeof *g->nodes);
    g->hcap = 16;
    while (g->hcap < g->n * 2 + 2) g->hcap *= 2;
    g->hash = sy_alloc(ctx, g->hcap * sizeof *g->hash);
    g->inputs = sy_alloc(ctx, g->n * sizeof *g->inputs + 1);
    if (!g->nodes || !g->hash || !g->inputs) goto oom;
    memset(g->hash, 0, g->hcap * sizeof *g->hash);
    for (size_t i = 0; i < g->n; i++) {
        json_t *nd = json_array_get(nodes, i);
        if (!json_is_object(nd)) {
            st = gerr(ctx, file, SY_EFORMAT, "node #%zu is not an object", i);
            goto fail;
        }
        nfields f;
        node_fields(nd, &f);
        const json_t *jn = f.name, *jo = f.op;
        if (!json_is_string(jn) || !*json_string_value(jn)) {
            st = gerr(ctx, file, SY_EFORMAT, "node #%zu has no \"name\"", i);
            goto fail;
        }
        const char *nname = json_string_value(jn);
        if (!json_is_string(jo)) {
            st = gerr(ctx, file, SY_EFORMAT, "node '%s' has no \"op\"", nname);
            goto fail;
        }
        /* one probe: the name's slot, or the node that already has it */
        size_t m = g->hcap - 1, j = (size_t)hstr(nname) & m;
        for (; g->hash[j]; j = (j + 1) & m)
            if (!strcmp(g->nodes[g->hash[j] - 1].name, nname)) {
                st = gerr(ctx, file, SY_EFORMAT, "node name '%s' is not unique", nname);
                goto fail;
            }
        gnode *gn = &g->nodes[i];
        memset(gn, 0, sizeof *gn);
        gn->name = nname;
        gn->op = json_string_value(jo);
        gn->j = nd;
        if ((st = read_loc(g, file, nname, f.loc, &gn->loc))) goto fail;
        g->hash[j] = i + 1;
        const char *op = gn->op;
        if (!strcmp(op, "input") || !strcmp(op, "param")) {
            gn->kind = op[0] == 'i' ? GN_INPUT : GN_PARAM;
            sy_dtype d;
            if (!json_is_string(f.dtype) || sy_dtype_parse(json_string_value(f.dtype), &d) != SY_OK) {
                st = gerr(ctx, file, SY_EFORMAT, "node '%s': unknown or missing dtype", nname);
                goto fail;
            }
            gn->dtype = d; /* kept for the trace */
            if ((st = read_shape(g, file, nname, f.shape, &gn->shape, &gn->ndim))) goto fail;
            if ((st = read_values(g, file, nname, f.values, gn))) goto fail;
            if (gn->kind == GN_INPUT) {
                sy_graph_input *in = &g->inputs[g->ninputs];
                memset(in, 0, sizeof *in);
                in->name = nname;
                in->dtype = d;
                in->node = i;
                in->ndim = gn->ndim;
                size_t nd1 = in->ndim ? in->ndim : 1;
                int64_t *sh = sy_alloc(ctx, nd1 * sizeof *sh);
                int *dyn = sh ? sy_alloc(ctx, nd1 * sizeof *dyn) : NULL;
                if (!dyn) {
                    if (sh) sy_dealloc(ctx, sh, nd1 * sizeof *sh);
                    goto oom;
                }
                if (in->ndim) memcpy(sh, g->shapes + gn->shape, in->ndim * sizeof *sh);
                memset(dyn, 0, nd1 * sizeof *dyn);
                in->shape = sh;
                in->dynamic = dyn;
                g->ninputs++;
                const json_t *dl = f.dynamic;
                if (dl && !json_is_array(dl)) {
                    st = gerr(ctx, file, SY_EFORMAT, "node '%s': \"dynamic\" must be a list of dim indices or dim specs", nname);
                    goto fail;
                }
                if ((st = read_dynamic(g, file, nname, dl, in, dyn))) goto fail;
                if ((st = read_strides(g, file, nname, f.strides, in))) goto fail;
            }
            continue;
        }
        gn->kind = !strcmp(op, "constant") ? GN_CONSTANT : GN_CALL;
        if ((st = compile_args(g, file, i, &f, &tt))) goto fail;
    }
    ttab_free(ctx, &tt);
    tt = (ttab){NULL, 0, 0};
    g->outputs = json_object_get(root, "outputs");
    if (!json_is_array(g->outputs)) {
        st = gerr(ctx, file, SY_EFORMAT, "\"outputs\" must be a list");
        goto fail;
    }
    /* the outputs: one list value, gv[outv] */
    if (!gv_reserve(g, 1, &g->outv)) goto oom;
    if ((st = gv_build(g, file, "outputs", (long)g->n, g->outputs, g->outv, 0))) goto fail;
    *out = g;
    return SY_OK;
oom:
    st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
fail:
    ttab_free(ctx, &tt);
    sy_graph_free(g);
    return st;
}

sy_status sy_graph_load_text(sy_ctx *ctx, const char *text, size_t len, const char *name, sy_graph **out)
{
    if (!ctx) return SY_EINVAL;
    if (!text || !out) return sy_fail_st(ctx, SY_EINVAL, "graph: NULL argument");
    *out = NULL;
    const char *file = name ? name : "<graph>";
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) return gerr(ctx, file, SY_EFORMAT, "line %d, column %d: %s", err.line, err.column, err.text);
    return load_root(ctx, root, file, out);
}

/* json_load_callback's reader: the next bytes of the file */
static size_t read_chunk(void *buf, size_t len, void *fp) { return fread(buf, 1, len, (FILE *)fp); }

/* The file is parsed in jansson's 1 KiB chunks (json_load_callback over
 * fread): no copy of the whole text, whose pages a multi-MB buffer would fault
 * in on every load, and no per-character fgetc as json_loadf does (issue 14:
 * the loader adds at most 10% on top of json_load_file). */
sy_status sy_graph_load_file(sy_ctx *ctx, const char *path, sy_graph **out)
{
    if (!ctx) return SY_EINVAL;
    if (!path || !out) return sy_fail_st(ctx, SY_EINVAL, "graph: NULL argument");
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return sy_fail_st(ctx, SY_EFORMAT, "cannot open %s: %s", path, strerror(errno));
    json_error_t err;
    json_t *root = json_load_callback(read_chunk, fp, JSON_REJECT_DUPLICATES, &err);
    int bad = ferror(fp), e = bad ? errno : 0;
    fclose(fp);
    if (bad) {
        json_decref(root);
        return sy_fail_st(ctx, SY_EFORMAT, "cannot read %s%s%s", path, e ? ": " : "", e ? strerror(e) : "");
    }
    if (!root) return gerr(ctx, path, SY_EFORMAT, "line %d, column %d: %s", err.line, err.column, err.text);
    return load_root(ctx, root, path, out);
}

const char *sy_graph_name(const sy_graph *g) { return g ? g->name : NULL; }
int sy_graph_torch_version(const sy_graph *g) { return g ? g->torch_version : 0; }
size_t sy_graph_nnodes(const sy_graph *g) { return g ? g->n : 0; }
const char *sy_graph_node_name(const sy_graph *g, size_t i) { return g && i < g->n ? g->nodes[i].name : NULL; }
const char *sy_graph_node_op(const sy_graph *g, size_t i) { return g && i < g->n ? g->nodes[i].op : NULL; }
static void collect_refs(const sy_graph *g, const json_t *v, long *out, size_t cap, size_t *n, int depth)
{
    if (depth > 64 || !v) return;
    if (json_is_array(v)) {
        size_t k;
        const json_t *x;
        json_array_foreach(v, k, x) collect_refs(g, x, out, cap, n, depth + 1);
        return;
    }
    if (!json_is_object(v)) return;
    const json_t *r = json_object_get(v, "ref");
    if (json_is_string(r)) {
        long i = sy_graph_find(g, json_string_value(r));
        if (i >= 0) {
            if (*n < cap) out[*n] = i;
            (*n)++;
        }
        return;
    }
    collect_refs(g, json_object_get(v, "slice"), out, cap, n, depth + 1);
}

size_t sy_graph_node_refs(const sy_graph *g, size_t i, long *out, size_t cap)
{
    if (!g || i >= g->n) return 0;
    size_t n = 0;
    collect_refs(g, json_object_get(g->nodes[i].j, "args"), out, cap, &n, 0);
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(g->nodes[i].j, "kwargs"), k, v) collect_refs(g, v, out, cap, &n, 0);
    return n;
}

size_t sy_graph_output_refs(const sy_graph *g, long *out, size_t cap)
{
    if (!g) return 0;
    size_t n = 0;
    collect_refs(g, g->outputs, out, cap, &n, 0);
    return n;
}

int sy_graph_node_read(const sy_graph *g, size_t i) { return g && i < g->n && g->nodes[i].read; }
const sy_loc *sy_graph_node_loc(const sy_graph *g, size_t i)
{
    return g && i < g->n && g->nodes[i].loc.file ? &g->nodes[i].loc : NULL;
}
size_t sy_graph_ninputs(const sy_graph *g) { return g ? g->ninputs : 0; }
const sy_graph_input *sy_graph_input_at(const sy_graph *g, size_t i) { return g && i < g->ninputs ? &g->inputs[i] : NULL; }
const json_t *sy_graph_node_example(const sy_graph *g, size_t i)
{
    return g && i < g->n ? json_object_get(g->nodes[i].j, "example") : NULL;
}
