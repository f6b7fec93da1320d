/* Corner tests (sy_corners_*, include/symshape/deploy.h, docs/deploy.md): the sizes where a
 * guard set changes its mind, each checked against the set. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "algebra/internal.h"
#include "deploy/deploy_private.h"

struct sy_corners {
    sy_ctx *ctx;
    size_t nsrc, n, cap;
    sy_corner *c;
    uint64_t *hash; /* per corner (hcap entries): a hash of its values, compared before them */
    size_t hcap;
    size_t ndims;   /* the region's dims, for the JSON: input name, dim index, source slot */
    char **inputs;
    size_t *dimidx, *source;
};

sy_corners *sy_corners_free(sy_corners *c)
{
    if (!c) return NULL;
    sy_ctx *ctx = c->ctx;
    for (size_t i = 0; i < c->n; i++) {
        sy_str_free(ctx, (char *)c->c[i].label);
        sy_str_free(ctx, (char *)c->c[i].guard);
        sy_dealloc(ctx, (void *)c->c[i].values, (c->nsrc ? c->nsrc : 1) * sizeof(int64_t));
    }
    if (c->c) sy_dealloc(ctx, c->c, c->cap * sizeof *c->c);
    if (c->hash) sy_dealloc(ctx, c->hash, c->hcap * sizeof *c->hash);
    for (size_t k = 0; k < c->ndims; k++) sy_str_free(ctx, c->inputs[k]);
    size_t nd = c->ndims ? c->ndims : 1;
    if (c->inputs) sy_dealloc(ctx, c->inputs, nd * sizeof *c->inputs);
    if (c->dimidx) sy_dealloc(ctx, c->dimidx, nd * sizeof *c->dimidx);
    if (c->source) sy_dealloc(ctx, c->source, nd * sizeof *c->source);
    sy_dealloc(ctx, c, sizeof *c);
    return NULL;
}

size_t sy_corners_size(const sy_corners *c) { return c ? c->n : 0; }
const sy_corner *sy_corners_at(const sy_corners *c, size_t i) { return c && i < c->n ? &c->c[i] : NULL; }

static char *cdup(sy_ctx *ctx, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = sy_alloc(ctx, n);
    if (p) memcpy(p, s, n);
    return p;
}

/* FNV-1a over the values (a fixed function: the same corners on every run) */
static uint64_t vals_hash(const int64_t *vals, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 64; b += 8) h = (h ^ (((uint64_t)vals[i] >> b) & 0xff)) * 1099511628211ull;
    return h;
}

/* The stride sources of a corner (a graph that reads x.stride() or declares strides, docs/guards.md)
 * are those of contiguous inputs of the corner's sizes, by sy_gset_values_from_tensors' rule: the
 * corner tests run contiguous inputs (deploy.run_corners: torch.randn). They kept the example's
 * value, which the set does not have for a stride (0), so every corner of such a graph, the example
 * too, was reported rejected by its stride guard (attack46p: `x.size()[1] == x.stride()[0] failed:
 * x.stride()[0] = 0`). Each input is rebuilt from its sources: the rank from NAME.dim(), else past
 * its last size source; the sizes from NAME.size()[I]. */
static sy_status contiguous_strides(sy_corners *c, const sy_gset *gs, int64_t *vals)
{
    sy_ctx *ctx = c->ctx;
    size_t n = c->nsrc, nin = 0, nstride = 0;
    for (size_t s = 0; s < n; s++) nstride += sy_gset_source_parse(sy_gset_source(gs, s), NULL, NULL) == SY_SOURCE_STRIDE;
    if (!nstride) return SY_OK;
    sy_status st = SY_OK;
    size_t *in = sy_alloc(ctx, n * sizeof *in), *nl = sy_alloc(ctx, n * sizeof *nl), *ranks = sy_alloc(ctx, n * sizeof *ranks);
    char **names = sy_alloc(ctx, n * sizeof *names);
    int64_t **shapes = sy_alloc(ctx, n * sizeof *shapes), *tmp = sy_alloc(ctx, n * sizeof *tmp);
    if (names) memset(names, 0, n * sizeof *names);
    if (shapes) memset(shapes, 0, n * sizeof *shapes);
    if (!in || !nl || !ranks || !names || !shapes || !tmp) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t s = 0; s < n; s++) { /* the inputs, in the order of their first source */
        const char *src = sy_gset_source(gs, s);
        size_t len = 0, d = 0;
        int kind = sy_gset_source_parse(src, &len, &d);
        size_t i = 0;
        while (i < nin && !(nl[i] == len && !strncmp(names[i], src, len))) i++;
        if (i == nin) {
            if (!(names[i] = sy_alloc(ctx, len + 1))) {
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                goto done;
            }
            memcpy(names[i], src, len);
            names[i][len] = 0;
            nl[i] = len;
            ranks[i] = 0;
            nin++;
        }
        in[s] = i;
        if (kind == SY_SOURCE_SIZE && d + 1 > ranks[i]) ranks[i] = d + 1;
    }
    for (size_t s = 0; s < n; s++)
        if (sy_gset_source_parse(sy_gset_source(gs, s), NULL, NULL) == SY_SOURCE_DIM && vals[s] >= 0 && (uint64_t)vals[s] <= n)
            ranks[in[s]] = (size_t)vals[s];
    for (size_t i = 0; i < nin; i++) {
        if (!(shapes[i] = sy_alloc(ctx, (ranks[i] ? ranks[i] : 1) * sizeof **shapes))) {
            st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            goto done;
        }
        memset(shapes[i], 0, (ranks[i] ? ranks[i] : 1) * sizeof **shapes);
    }
    for (size_t s = 0; s < n; s++) {
        size_t d = 0;
        if (sy_gset_source_parse(sy_gset_source(gs, s), NULL, &d) == SY_SOURCE_SIZE && d < ranks[in[s]]) shapes[in[s]][d] = vals[s];
    }
    if ((st = sy_gset_values_from_tensors(gs, nin, (const char *const *)names, ranks, (const int64_t *const *)shapes, NULL, NULL, tmp)) != SY_OK)
        goto done;
    for (size_t s = 0; s < n; s++)
        if (sy_gset_source_parse(sy_gset_source(gs, s), NULL, NULL) == SY_SOURCE_STRIDE) vals[s] = tmp[s];
done:
    for (size_t i = 0; names && i < nin; i++) {
        if (names[i]) sy_dealloc(ctx, names[i], nl[i] + 1);
        if (shapes && shapes[i]) sy_dealloc(ctx, shapes[i], (ranks[i] ? ranks[i] : 1) * sizeof **shapes);
    }
    if (in) sy_dealloc(ctx, in, n * sizeof *in);
    if (nl) sy_dealloc(ctx, nl, n * sizeof *nl);
    if (ranks) sy_dealloc(ctx, ranks, n * sizeof *ranks);
    if (names) sy_dealloc(ctx, names, n * sizeof *names);
    if (shapes) sy_dealloc(ctx, shapes, n * sizeof *shapes);
    if (tmp) sy_dealloc(ctx, tmp, n * sizeof *tmp);
    return st;
}

/* add the point vals (copied) unless a corner has it already or a size is negative. The
 * duplicate test compares hashes first: comparing every corner's values made corners cubic in
 * the variables (issue 38, fourth pass: 1,200 variables took 9.5 s, 8 times 600's) */
static sy_status add_corner(sy_corners *c, const sy_gset *gs, const sy_region *r, int64_t *vals, const char *label)
{
    sy_ctx *ctx = c->ctx;
    for (size_t k = 0; k < r->ndims; k++)
        if (vals[r->dims[k].source] < 0) return SY_OK;
    sy_status cs = contiguous_strides(c, gs, vals);
    if (cs != SY_OK) return cs;
    uint64_t h = vals_hash(vals, c->nsrc);
    for (size_t i = 0; i < c->n; i++)
        if (c->hash[i] == h && !memcmp(c->c[i].values, vals, c->nsrc * sizeof *vals)) return SY_OK;
    if (c->n == c->hcap) {
        size_t nc = c->hcap ? c->hcap * 2 : 16;
        uint64_t *nh = sy_realloc(ctx, c->hash, c->hcap * sizeof *nh, nc * sizeof *nh);
        if (!nh) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        c->hash = nh;
        c->hcap = nc;
    }
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 16;
        sy_corner *ncr = sy_realloc(ctx, c->c, c->cap * sizeof *ncr, nc * sizeof *ncr);
        if (!ncr) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        c->c = ncr;
        c->cap = nc;
    }
    c->hash[c->n] = h;
    int64_t *v = sy_alloc(ctx, (c->nsrc ? c->nsrc : 1) * sizeof *v);
    char *l = cdup(ctx, label);
    if (!v || !l) {
        if (v) sy_dealloc(ctx, v, (c->nsrc ? c->nsrc : 1) * sizeof *v);
        sy_str_free(ctx, l);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    memcpy(v, vals, c->nsrc * sizeof *v);
    sy_corner *k = &c->c[c->n];
    *k = (sy_corner){l, v, 0, 0, NULL};
    c->n++; /* owned from here: freed with the corners on any error below */
    sy_status st = sy_region_contains_si(r, v, c->nsrc, &k->in_region, NULL, 0);
    sy_gset_result res = SY_GSET_RESULT_INIT;
    if (st == SY_OK) st = sy_gset_check_si(gs, v, c->nsrc, &res);
    if (st != SY_OK) return st;
    k->accept = res.accept;
    if (!res.accept && !(k->guard = cdup(ctx, res.message))) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    return SY_OK;
}

/* the base point with variable t of var v, others at base (sizes of every dim of the region);
 * 0 when a size does not fit int64 (no such corner) */
static int point(const sy_region *r, const int64_t *base_t, size_t v, int64_t tv, const int64_t *ex, size_t n, int64_t *vals)
{
    memcpy(vals, ex, n * sizeof *vals);
    for (size_t k = 0; k < r->ndims; k++) {
        const sy_region_dim *d = &r->dims[k];
        int64_t x;
        if (d->is_static) x = d->value;
        else if (__builtin_mul_overflow(d->a, d->var == v ? tv : base_t[d->var], &x) || __builtin_add_overflow(x, d->b, &x))
            return 0;
        vals[d->source] = x;
    }
    return 1;
}

sy_status sy_corners_new(const sy_gset *gs, const sy_region *r, sy_corners **out)
{
    if (out) *out = NULL;
    sy_ctx *ctx = sy_gset_ctx(gs);
    if (!gs || !r || !out) return ctx ? sy_fail_st(ctx, SY_EINVAL, "sy_corners_new: NULL argument") : SY_EINVAL;
    size_t n = sy_gset_nsources(gs);
    if (r->nsrc != n || r->ctx != ctx) return sy_fail_st(ctx, SY_EINVAL, "sy_corners_new: the region is not of this guard set");
    sy_corners *c = sy_alloc(ctx, sizeof *c);
    if (!c) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->nsrc = n;
    c->ndims = r->ndims;
    size_t nd = r->ndims ? r->ndims : 1, nv = r->nvars ? r->nvars : 1, na = n ? n : 1;
    sy_status st = SY_OK;
    int64_t *ex = sy_alloc(ctx, na * sizeof *ex), *vals = sy_alloc(ctx, na * sizeof *vals), *bt = sy_alloc(ctx, nv * sizeof *bt);
    c->inputs = sy_alloc(ctx, nd * sizeof *c->inputs);
    c->dimidx = sy_alloc(ctx, nd * sizeof *c->dimidx);
    c->source = sy_alloc(ctx, nd * sizeof *c->source);
    if (!ex || !vals || !bt || !c->inputs || !c->dimidx || !c->source) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        c->ndims = 0;
        goto done;
    }
    for (size_t k = 0; k < r->ndims; k++) c->inputs[k] = NULL;
    for (size_t k = 0; k < r->ndims; k++) {
        if (!(c->inputs[k] = cdup(ctx, r->dims[k].input))) {
            st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            goto done;
        }
        c->dimidx[k] = r->dims[k].dim;
        c->source[k] = r->dims[k].source;
    }
    for (size_t i = 0; i < n; i++)
        if (!sy_gset_source_example(gs, i, &ex[i])) ex[i] = 0;
    /* the base: the example's variables when the example is inside, else each variable's min */
    for (size_t v = 0; v < r->nvars; v++) bt[v] = r->vars[v].tmin;
    if (r->example_inside)
        for (size_t k = 0; k < r->ndims; k++) {
            const sy_region_dim *d = &r->dims[k];
            if (!d->is_static && d->example >= 0) bt[d->var] = (d->example - d->b) / d->a;
        }
    char label[256];
    if (point(r, bt, (size_t)-1, 0, ex, n, vals) && (st = add_corner(c, gs, r, vals, "the example")) != SY_OK) goto done;
    for (size_t v = 0; v < r->nvars; v++) {
        const sy_region_var *x = &r->vars[v];
        if (x->tmax != SY_REGION_UNBOUNDED && x->tmax == x->tmin) continue;
        int64_t ts[4] = {x->tmin - 1, x->tmin, x->tmax, x->tmax == SY_REGION_UNBOUNDED || x->tmax == INT64_MAX ? 0 : x->tmax + 1};
        static const char *const what[4] = {"min - 1", "min", "max", "max + 1"};
        for (int q = 0; q < 4; q++) {
            if (q >= 2 && x->tmax == SY_REGION_UNBOUNDED) continue;
            if (q == 3 && x->tmax == INT64_MAX) continue;
            if (!point(r, bt, v, ts[q], ex, n, vals)) continue;
            snprintf(label, sizeof label, "%s = %s (%" PRId64 ")", x->name, what[q], ts[q]);
            if ((st = add_corner(c, gs, r, vals, label)) != SY_OK) goto done;
        }
        /* sizes 0, 1, 2 of each plain dim, off each progression, each tied dim alone + 1 */
        size_t uses = 0;
        for (size_t k = 0; k < r->ndims; k++) uses += !r->dims[k].is_static && r->dims[k].var == v;
        for (size_t k = 0; k < r->ndims; k++) {
            const sy_region_dim *d = &r->dims[k];
            if (d->is_static || d->var != v) continue;
            for (int64_t s = 0; s <= 2; s++) {
                if (!point(r, bt, (size_t)-1, 0, ex, n, vals)) break;
                vals[d->source] = s;
                if (d->a == 1 && uses == 1) {
                    snprintf(label, sizeof label, "%s = %" PRId64, d->name, s);
                    if ((st = add_corner(c, gs, r, vals, label)) != SY_OK) goto done;
                }
            }
            if (d->a > 1)
                for (int sgn = -1; sgn <= 1; sgn += 2) {
                    if (!point(r, bt, (size_t)-1, 0, ex, n, vals) || vals[d->source] == INT64_MAX) break;
                    vals[d->source] += sgn;
                    snprintf(label, sizeof label, "%s off its progression %" PRId64 "*%s + %" PRId64 " (%+d)", d->name, d->a, x->name, d->b, sgn);
                    if ((st = add_corner(c, gs, r, vals, label)) != SY_OK) goto done;
                }
            if (uses > 1 && point(r, bt, (size_t)-1, 0, ex, n, vals) && vals[d->source] < INT64_MAX) {
                vals[d->source] += 1;
                snprintf(label, sizeof label, "%s + 1 alone (its tie to %s broken)", d->name, x->name);
                if ((st = add_corner(c, gs, r, vals, label)) != SY_OK) goto done;
            }
        }
    }
done:
    if (ex) sy_dealloc(ctx, ex, na * sizeof *ex);
    if (vals) sy_dealloc(ctx, vals, na * sizeof *vals);
    if (bt) sy_dealloc(ctx, bt, nv * sizeof *bt);
    if (st != SY_OK) {
        sy_corners_free(c);
        return st;
    }
    *out = c;
    return SY_OK;
}

char *sy_corners_to_json(const sy_corners *c)
{
    if (!c) return NULL;
    /* JSON cannot carry a name that is not UTF-8: the corner's sizes were left empty (attack38g) */
    for (size_t d = 0; d < c->ndims; d++)
        if (sy_str_is_utf8(c->inputs[d]) != SY_TRUE)
            return SY_NFAIL(c->ctx, SY_EFORMAT, "an input's name is not valid UTF-8, which JSON cannot carry (the text form prints it)");
    for (size_t i = 0; i < c->n; i++)
        if (sy_str_is_utf8(c->c[i].label) != SY_TRUE || (c->c[i].guard && sy_str_is_utf8(c->c[i].guard) != SY_TRUE))
            return SY_NFAIL(c->ctx, SY_EFORMAT, "corner %zu's label or guard is not valid UTF-8, which JSON cannot carry", i);
    json_t *root = json_pack("{s:s, s:i}", "format", "symshape.corners", "version", 1), *arr = json_array();
    if (!root || !arr) {
        json_decref(root);
        json_decref(arr);
        return SY_NFAIL(c->ctx, SY_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < c->n; i++) {
        const sy_corner *k = &c->c[i];
        json_t *sizes = json_object();
        for (size_t d = 0; sizes && d < c->ndims; d++) {
            json_t *a = json_object_get(sizes, c->inputs[d]);
            if (!a) {
                a = json_array();
                json_object_set_new(sizes, c->inputs[d], a);
            }
            json_array_append_new(a, json_integer((json_int_t)k->values[c->source[d]]));
        }
        json_array_append_new(arr, json_pack("{s:s, s:o, s:b, s:b, s:s?}", "label", k->label, "sizes", sizes ? sizes : json_null(),
                                             "in_region", k->in_region, "accept", k->accept, "guard", k->guard));
    }
    json_object_set_new(root, "corners", arr);
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s) return SY_NFAIL(c->ctx, SY_ENOMEM, "out of memory");
    size_t n = strlen(s);
    char *out = sy_alloc(c->ctx, n + 2);
    if (out) {
        memcpy(out, s, n);
        out[n] = '\n';
        out[n + 1] = '\0';
    }
    free(s);
    if (!out) return SY_NFAIL(c->ctx, SY_ENOMEM, "out of memory");
    return out;
}
