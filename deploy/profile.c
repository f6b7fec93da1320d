/* Optimization profiles (sy_profiles_*, include/symshape/deploy.h, docs/deploy.md): boxes
 * of input shapes from a histogram, split at the guards' boundaries, each proved inside the
 * accepted set. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "algebra/internal.h"
#include "deploy/deploy_private.h"

struct sy_profiles {
    sy_ctx *ctx;
    size_t ndims, nbox, boxcap;
    const char **inputs; /* per region dim (copied) */
    size_t *dimidx;
    sy_profile_box *boxes;
    uint64_t total, outside, uncovered;
    char **strs;
    size_t nstr, strcap;
};

static char *pstrdup(sy_profiles *p, const char *s)
{
    size_t n = strlen(s) + 1;
    if (p->nstr == p->strcap) {
        size_t nc = p->strcap ? p->strcap * 2 : 16;
        char **ns = sy_realloc(p->ctx, p->strs, p->strcap * sizeof *ns, nc * sizeof *ns);
        if (!ns) return NULL;
        p->strs = ns;
        p->strcap = nc;
    }
    char *c = sy_alloc(p->ctx, n);
    if (!c) return NULL;
    memcpy(c, s, n);
    p->strs[p->nstr++] = c;
    return c;
}

sy_profiles *sy_profiles_free(sy_profiles *p)
{
    if (!p) return NULL;
    sy_ctx *ctx = p->ctx;
    for (size_t i = 0; i < p->nbox; i++) sy_dealloc(ctx, (void *)p->boxes[i].min, 3 * (p->ndims ? p->ndims : 1) * sizeof(int64_t));
    if (p->boxes) sy_dealloc(ctx, p->boxes, p->boxcap * sizeof *p->boxes);
    for (size_t i = 0; i < p->nstr; i++) sy_str_free(ctx, p->strs[i]);
    if (p->strs) sy_dealloc(ctx, p->strs, p->strcap * sizeof *p->strs);
    if (p->inputs) sy_dealloc(ctx, p->inputs, (p->ndims ? p->ndims : 1) * sizeof *p->inputs);
    if (p->dimidx) sy_dealloc(ctx, p->dimidx, (p->ndims ? p->ndims : 1) * sizeof *p->dimidx);
    sy_dealloc(ctx, p, sizeof *p);
    return NULL;
}

size_t sy_profiles_size(const sy_profiles *p) { return p ? p->nbox : 0; }
const sy_profile_box *sy_profiles_at(const sy_profiles *p, size_t i) { return p && i < p->nbox ? &p->boxes[i] : NULL; }
void sy_profiles_counts(const sy_profiles *p, uint64_t *total, uint64_t *outside, uint64_t *uncovered)
{
    if (total) *total = p ? p->total : 0;
    if (outside) *outside = p ? p->outside : 0;
    if (uncovered) *uncovered = p ? p->uncovered : 0;
}

/* the work of one sy_profiles_new */
typedef struct {
    sy_ctx *ctx;
    const sy_gset *gs;
    const sy_region *r;
    size_t nv;
    unsigned char *pinned;   /* per var: 1 pinned in every box */
    const sy_expr **tsym;    /* per var */
    const sy_expr **keys, **vals;
    size_t nsub;
    int64_t *pt;             /* inside points: npts x nv variable values */
    uint64_t *cnt;
    size_t npts;
    size_t *idx;             /* permutation of the inside points; cells are ranges of it */
    size_t sort_var;
} pwork;

static int64_t *tp(const pwork *w, size_t i) { return w->pt + i * w->nv; }

/* prove a box: every guard (but runtime asserts) TRUE with the vars in [lo, hi] */
static sy_status prove_box(pwork *w, const int64_t *lo, const int64_t *hi, int *ok)
{
    sy_ctx *ctx = w->ctx;
    *ok = 0;
    sy_facts *f = sy_facts_new(ctx);
    if (!f) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    sy_status st = SY_OK;
    for (size_t v = 0; v < w->nv && st == SY_OK; v++) {
        st = sy_dp_set_range(ctx, f, w->tsym[v], lo[v], &hi[v]);
    }
    int all = st == SY_OK;
    for (size_t i = 0; st == SY_OK && all && i < sy_gset_size(w->gs); i++) {
        const sy_gset_guard *g = sy_gset_at(w->gs, i);
        if (g->kind == SY_GK_RUNTIME_ASSERT) continue;
        const sy_expr *e = sy_expr_subs(ctx, g->expr, w->nsub, w->keys, w->vals);
        sy_truth t = SY_TRUTH_UNKNOWN;
        if (!e) st = sy_ctx_last_error(ctx);
        else st = sy_dp_decide_total(ctx, f, e, &t);
        if (st == SY_EQUOTA) { /* a budget: not proved */
            sy_ctx_reset_error(ctx);
            st = SY_OK;
        }
        if (t != SY_TRUTH_TRUE) all = 0;
    }
    sy_facts_free(f);
    *ok = st == SY_OK && all;
    return st;
}

static int cmp_var(const void *a, const void *b, void *ud)
{
    const pwork *w = ud;
    int64_t x = tp(w, *(const size_t *)a)[w->sort_var], y = tp(w, *(const size_t *)b)[w->sort_var];
    return x < y ? -1 : x > y;
}

/* insertion-free sort of idx[lo..hi) by var v (merge sort through a scratch buffer) */
static sy_status sort_cell(pwork *w, size_t lo, size_t hi, size_t v)
{
    w->sort_var = v;
    size_t n = hi - lo;
    if (n < 2) return SY_OK;
    size_t *tmp = sy_alloc(w->ctx, n * sizeof *tmp);
    if (!tmp) return sy_fail_st(w->ctx, SY_ENOMEM, "out of memory");
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t i = 0; i < n; i += 2 * width) {
            size_t a = i, am = i + width < n ? i + width : n, b = am, bm = i + 2 * width < n ? i + 2 * width : n, k = i;
            while (a < am && b < bm) tmp[k++] = cmp_var(&w->idx[lo + b], &w->idx[lo + a], w) < 0 ? w->idx[lo + b++] : w->idx[lo + a++];
            while (a < am) tmp[k++] = w->idx[lo + a++];
            while (b < bm) tmp[k++] = w->idx[lo + b++];
        }
        memcpy(&w->idx[lo], tmp, n * sizeof *tmp);
    }
    sy_dealloc(w->ctx, tmp, n * sizeof *tmp);
    return SY_OK;
}

typedef struct {
    size_t lo, hi; /* range of idx */
    uint64_t weight;
} cell;

/* the widest free var of a cell (-1: every free var constant) */
static long widest(const pwork *w, const cell *c)
{
    long best = -1;
    int64_t bw = 0;
    for (size_t v = 0; v < w->nv; v++) {
        if (w->pinned[v]) continue;
        int64_t mn = INT64_MAX, mx = INT64_MIN;
        for (size_t i = c->lo; i < c->hi; i++) {
            int64_t x = tp(w, w->idx[i])[v];
            if (x < mn) mn = x;
            if (x > mx) mx = x;
        }
        if (mx - mn > bw) {
            bw = mx - mn;
            best = (long)v;
        }
    }
    return best;
}

/* split c at the weighted median of its widest free var: *a and *b, 0 when it cannot */
static sy_status split_cell(pwork *w, const cell *c, cell *a, cell *b, int *done)
{
    *done = 0;
    long v = widest(w, c);
    if (v < 0) return SY_OK;
    sy_status st = sort_cell(w, c->lo, c->hi, (size_t)v);
    if (st != SY_OK) return st;
    uint64_t acc = 0;
    size_t cut = c->lo;
    for (size_t i = c->lo; i < c->hi; i++) {
        acc += w->cnt[w->idx[i]];
        cut = i + 1;
        if (2 * acc >= c->weight) break;
    }
    /* move the cut to a change of value, never splitting equal values */
    while (cut < c->hi && tp(w, w->idx[cut])[v] == tp(w, w->idx[cut - 1])[v]) cut++;
    if (cut >= c->hi) { /* the median's value reaches the end: cut before it */
        cut = c->hi - 1;
        while (cut > c->lo && tp(w, w->idx[cut])[v] == tp(w, w->idx[cut - 1])[v]) cut--;
        if (cut == c->lo) return SY_OK;
    }
    a->lo = c->lo;
    a->hi = b->lo = cut;
    b->hi = c->hi;
    a->weight = b->weight = 0;
    for (size_t i = a->lo; i < a->hi; i++) a->weight += w->cnt[w->idx[i]];
    b->weight = c->weight - a->weight;
    *done = 1;
    return SY_OK;
}

static sy_status add_box(sy_profiles *p, const pwork *w, const int64_t *lo, const int64_t *opt, const int64_t *hi, uint64_t covered)
{
    if (p->nbox == p->boxcap) {
        size_t nc = p->boxcap ? p->boxcap * 2 : 8;
        sy_profile_box *nb = sy_realloc(p->ctx, p->boxes, p->boxcap * sizeof *nb, nc * sizeof *nb);
        if (!nb) return sy_fail_st(p->ctx, SY_ENOMEM, "out of memory");
        p->boxes = nb;
        p->boxcap = nc;
    }
    size_t nd = p->ndims ? p->ndims : 1;
    int64_t *m = sy_alloc(p->ctx, 3 * nd * sizeof *m);
    if (!m) return sy_fail_st(p->ctx, SY_ENOMEM, "out of memory");
    for (size_t k = 0; k < p->ndims; k++) {
        const sy_region_dim *d = &w->r->dims[k];
        if (d->is_static) {
            m[k] = m[nd + k] = m[2 * nd + k] = d->value;
            continue;
        }
        m[k] = d->a * lo[d->var] + d->b;
        m[nd + k] = d->a * opt[d->var] + d->b;
        m[2 * nd + k] = d->a * hi[d->var] + d->b;
    }
    p->boxes[p->nbox++] = (sy_profile_box){m, m + nd, m + 2 * nd, covered, p->total ? (double)covered / (double)p->total : 0.0};
    return SY_OK;
}

static int cmp_cell_weight(const void *a, const void *b)
{
    const cell *x = a, *y = b;
    return x->weight < y->weight ? 1 : x->weight > y->weight ? -1 : (x->lo > y->lo) - (x->lo < y->lo);
}

static int cmp_pinned(const void *a, const void *b, void *ud)
{
    const pwork *w = ud;
    const int64_t *x = tp(w, *(const size_t *)a), *y = tp(w, *(const size_t *)b);
    for (size_t v = 0; v < w->nv; v++)
        if (w->pinned[v] && x[v] != y[v]) return x[v] < y[v] ? -1 : 1;
    return 0;
}

sy_status sy_profiles_new(const sy_gset *gs, const sy_region *r, const sy_profile_options *opts, size_t npoints,
                          const int64_t *points, const uint64_t *counts, sy_profiles **out)
{
    if (out) *out = NULL;
    sy_ctx *ctx = sy_gset_ctx(gs);
    if (!gs || !r || !out || (npoints && (!points || !counts)))
        return ctx ? sy_fail_st(ctx, SY_EINVAL, "sy_profiles_new: NULL argument") : SY_EINVAL;
    sy_profile_options o = SY_PROFILE_OPTIONS_INIT;
    if (opts) {
        if (opts->version != SY_PROFILE_OPTIONS_VERSION)
            return sy_fail_st(ctx, SY_EVERSION, "sy_profiles_new: options version %u (this library knows %u)", opts->version,
                              SY_PROFILE_OPTIONS_VERSION);
        o = *opts;
    }
    if (o.k > 64) return sy_fail_st(ctx, SY_EINVAL, "sy_profiles_new: k = %zu (at most 64 boxes)", o.k);
    size_t n = sy_gset_nsources(gs);
    if (r->nsrc != n || r->ctx != ctx) return sy_fail_st(ctx, SY_EINVAL, "sy_profiles_new: the region is not of this guard set");
    sy_profiles *p = sy_alloc(ctx, sizeof *p);
    if (!p) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->ndims = r->ndims;
    size_t nd = r->ndims ? r->ndims : 1, nv = r->nvars, nva = nv ? nv : 1, na = n ? n : 1;
    pwork w = {ctx, gs, r, nv, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0};
    cell *cells = NULL;
    size_t ncells = 0, cellcap = 0;
    int64_t *lo = NULL, *hi = NULL, *opt = NULL;
    sy_status st = SY_OK;
#define OOM_IF(c)                                                                                                        \
    do {                                                                                                                 \
        if (c) {                                                                                                         \
            st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");                                                            \
            goto done;                                                                                                   \
        }                                                                                                                \
    } while (0)
    p->inputs = sy_alloc(ctx, nd * sizeof *p->inputs);
    p->dimidx = sy_alloc(ctx, nd * sizeof *p->dimidx);
    OOM_IF(!p->inputs || !p->dimidx);
    for (size_t k = 0; k < r->ndims; k++) {
        OOM_IF(!(p->inputs[k] = pstrdup(p, r->dims[k].input)));
        p->dimidx[k] = r->dims[k].dim;
    }
    w.pinned = sy_alloc(ctx, nva);
    w.tsym = sy_alloc(ctx, nva * sizeof *w.tsym);
    w.keys = sy_alloc(ctx, na * sizeof *w.keys);
    w.vals = sy_alloc(ctx, na * sizeof *w.vals);
    lo = sy_alloc(ctx, nva * sizeof *lo);
    hi = sy_alloc(ctx, nva * sizeof *hi);
    opt = sy_alloc(ctx, nva * sizeof *opt);
    OOM_IF(!w.pinned || !w.tsym || !w.keys || !w.vals || !lo || !hi || !opt);
    /* pinned: a var of a progression or of several dims */
    for (size_t v = 0; v < nv; v++) {
        size_t uses = 0;
        int affine = 0;
        for (size_t k = 0; k < r->ndims; k++)
            if (!r->dims[k].is_static && r->dims[k].var == v) {
                uses++;
                affine |= r->dims[k].a != 1;
            }
        w.pinned[v] = (unsigned char)(uses > 1 || affine);
        char nb[64];
        snprintf(nb, sizeof nb, "deploy_p%zu", v);
        if (!(w.tsym[v] = sy_expr_sym(ctx, nb))) {
            st = sy_ctx_last_error(ctx);
            goto done;
        }
    }
    /* sources in the vars: dims a*t+b or static, the others at the example */
    for (size_t i = 0; i < n; i++) {
        const sy_expr *val = NULL;
        int64_t ex;
        if (r->dimof[i] >= 0) {
            const sy_region_dim *d = &r->dims[r->dimof[i]];
            val = d->is_static ? sy_expr_int_si(ctx, d->value) : sy_expr_add_si(ctx, sy_expr_mul_si(ctx, w.tsym[d->var], d->a), d->b);
        } else if (sy_gset_source_example(gs, i, &ex)) {
            val = sy_expr_int_si(ctx, ex);
        } else {
            continue;
        }
        if (!val) {
            st = sy_ctx_last_error(ctx);
            goto done;
        }
        w.keys[w.nsub] = sy_gset_source_var(gs, i);
        w.vals[w.nsub++] = val;
    }
    /* the example's variables (the opt without points) */
    for (size_t v = 0; v < nv; v++) opt[v] = r->vars[v].tmin;
    for (size_t k = 0; k < r->ndims; k++) {
        const sy_region_dim *d = &r->dims[k];
        if (!d->is_static && d->example >= 0 && (d->example - d->b) % d->a == 0) opt[d->var] = (d->example - d->b) / d->a;
    }
    if (npoints == 0) {
        /* one box over the region's ranges */
        for (size_t v = 0; v < nv; v++) {
            const sy_region_var *x = &r->vars[v];
            if (w.pinned[v]) {
                lo[v] = hi[v] = opt[v];
                continue;
            }
            lo[v] = x->tmin;
            int64_t cap = o.max_size > 0 ? o.max_size : (opt[v] > 0 && opt[v] < INT64_MAX / 4 ? 4 * opt[v] : x->tmin + 1);
            if (cap <= x->tmin) cap = x->tmin + 1;
            hi[v] = x->tmax != SY_REGION_UNBOUNDED && x->tmax < cap ? x->tmax : cap;
            if (opt[v] > hi[v]) opt[v] = hi[v];
        }
        int ok = 0;
        for (int raise = 0; raise <= 2 && !ok; raise++) {
            for (size_t v = 0; v < nv; v++)
                if (!w.pinned[v] && lo[v] < raise && raise <= hi[v]) lo[v] = raise;
            if ((st = prove_box(&w, lo, hi, &ok)) != SY_OK) goto done;
        }
        if (!ok) { /* the example alone */
            for (size_t v = 0; v < nv; v++) lo[v] = hi[v] = opt[v];
            if ((st = prove_box(&w, lo, hi, &ok)) != SY_OK) goto done;
        }
        if (ok && (st = add_box(p, &w, lo, opt, hi, 0)) != SY_OK) goto done;
        goto finish;
    }
    /* the histogram's points inside the region and accepted, in variable values */
    w.pt = sy_alloc(ctx, npoints * nva * sizeof *w.pt);
    w.cnt = sy_alloc(ctx, npoints * sizeof *w.cnt);
    w.idx = sy_alloc(ctx, npoints * sizeof *w.idx);
    OOM_IF(!w.pt || !w.cnt || !w.idx);
    for (size_t i = 0; i < npoints; i++) {
        const int64_t *vals = points + i * n;
        /* the counts sum to at most INT64_MAX (the JSON form's integers, 2 * a partial sum) */
        if (counts[i] > (uint64_t)INT64_MAX - p->total) {
            st = sy_fail_st(ctx, SY_EOVERFLOW, "sy_profiles_new: the histogram's counts add up past 2^63 - 1 (point %zu)", i);
            goto done;
        }
        p->total += counts[i];
        int in = 0;
        if ((st = sy_region_contains_si(r, vals, n, &in, NULL, 0)) != SY_OK) goto done;
        sy_gset_result res = SY_GSET_RESULT_INIT;
        if (in && (st = sy_gset_check_si(gs, vals, n, &res)) != SY_OK) goto done;
        if (!in || !res.accept) {
            p->outside += counts[i];
            continue;
        }
        int64_t *t = tp(&w, w.npts);
        for (size_t v = 0; v < nv; v++) t[v] = r->vars[v].tmin;
        for (size_t k = 0; k < r->ndims; k++) {
            const sy_region_dim *d = &r->dims[k];
            if (!d->is_static) t[d->var] = (vals[d->source] - d->b) / d->a;
        }
        w.cnt[w.npts] = counts[i];
        w.idx[w.npts] = w.npts;
        w.npts++;
    }
    if (!w.npts) goto finish;
    /* groups of pinned values, heaviest first */
    {
        /* sort idx by the pinned vars (merge sort on a copy through cmp_pinned) */
        size_t *tmp = sy_alloc(ctx, w.npts * sizeof *tmp);
        OOM_IF(!tmp);
        for (size_t width = 1; width < w.npts; width *= 2) {
            for (size_t i = 0; i < w.npts; i += 2 * width) {
                size_t a = i, am = i + width < w.npts ? i + width : w.npts, b = am,
                       bm = i + 2 * width < w.npts ? i + 2 * width : w.npts, k = i;
                while (a < am && b < bm) tmp[k++] = cmp_pinned(&w.idx[b], &w.idx[a], &w) < 0 ? w.idx[b++] : w.idx[a++];
                while (a < am) tmp[k++] = w.idx[a++];
                while (b < bm) tmp[k++] = w.idx[b++];
            }
            memcpy(w.idx, tmp, w.npts * sizeof *tmp);
        }
        sy_dealloc(ctx, tmp, w.npts * sizeof *tmp);
    }
    for (size_t i = 0; i < w.npts;) {
        size_t j = i + 1;
        while (j < w.npts && cmp_pinned(&w.idx[j], &w.idx[i], &w) == 0) j++;
        if (ncells == cellcap) {
            size_t nc = cellcap ? cellcap * 2 : 8;
            cell *ncl = sy_realloc(ctx, cells, cellcap * sizeof *ncl, nc * sizeof *ncl);
            OOM_IF(!ncl);
            cells = ncl;
            cellcap = nc;
        }
        cell c = {i, j, 0};
        for (size_t q = i; q < j; q++) c.weight += w.cnt[w.idx[q]];
        cells[ncells++] = c;
        i = j;
    }
    qsort(cells, ncells, sizeof *cells, cmp_cell_weight);
    size_t K = o.k ? o.k : (ncells < 4 ? ncells : 4);
    if (ncells > K) {
        for (size_t c = K; c < ncells; c++) p->uncovered += cells[c].weight;
        ncells = K;
    }
    /* split the heaviest splittable cells until K */
    while (ncells < K) {
        int did = 0;
        for (size_t c = 0; c < ncells && !did; c++) { /* cells stay sorted heaviest first */
            cell a, b;
            if ((st = split_cell(&w, &cells[c], &a, &b, &did)) != SY_OK) goto done;
            if (!did) continue;
            if (ncells == cellcap) {
                size_t nc = cellcap * 2;
                cell *ncl = sy_realloc(ctx, cells, cellcap * sizeof *ncl, nc * sizeof *ncl);
                OOM_IF(!ncl);
                cells = ncl;
                cellcap = nc;
            }
            cells[c] = a;
            cells[ncells++] = b;
            qsort(cells, ncells, sizeof *cells, cmp_cell_weight);
        }
        if (!did) break;
    }
    /* each cell: its bounding box, opt at its mode, proved (else split, else dropped) */
    for (size_t c = 0; c < ncells; c++) {
        const cell *cl = &cells[c];
        size_t mode = w.idx[cl->lo];
        for (size_t v = 0; v < nv; v++) {
            lo[v] = INT64_MAX;
            hi[v] = INT64_MIN;
        }
        for (size_t i = cl->lo; i < cl->hi; i++) {
            const int64_t *t = tp(&w, w.idx[i]);
            for (size_t v = 0; v < nv; v++) {
                if (t[v] < lo[v]) lo[v] = t[v];
                if (t[v] > hi[v]) hi[v] = t[v];
            }
            if (w.cnt[w.idx[i]] > w.cnt[mode]) mode = w.idx[i];
        }
        int ok = 0;
        if ((st = prove_box(&w, lo, hi, &ok)) != SY_OK) goto done;
        if (ok) {
            if ((st = add_box(p, &w, lo, tp(&w, mode), hi, cl->weight)) != SY_OK) goto done;
            continue;
        }
        cell a, b;
        int did = 0;
        if ((st = split_cell(&w, cl, &a, &b, &did)) != SY_OK) goto done;
        if (!did) {
            p->uncovered += cl->weight;
            continue;
        }
        if (ncells + 1 > cellcap) {
            size_t nc = cellcap * 2;
            cell *ncl = sy_realloc(ctx, cells, cellcap * sizeof *ncl, nc * sizeof *ncl);
            OOM_IF(!ncl);
            cells = ncl;
            cellcap = nc;
        }
        cells[c] = a;
        cells[ncells++] = b;
        c--; /* prove the first half now */
    }
finish:
    for (size_t i = 0; i < p->nbox; i++) p->boxes[i].share = p->total ? (double)p->boxes[i].covered / (double)p->total : 0.0;
done:
#undef OOM_IF
    if (cells) sy_dealloc(ctx, cells, cellcap * sizeof *cells);
    if (w.pinned) sy_dealloc(ctx, w.pinned, nva);
    if (w.tsym) sy_dealloc(ctx, w.tsym, nva * sizeof *w.tsym);
    if (w.keys) sy_dealloc(ctx, w.keys, na * sizeof *w.keys);
    if (w.vals) sy_dealloc(ctx, w.vals, na * sizeof *w.vals);
    if (w.pt) sy_dealloc(ctx, w.pt, npoints * nva * sizeof *w.pt);
    if (w.cnt) sy_dealloc(ctx, w.cnt, npoints * sizeof *w.cnt);
    if (w.idx) sy_dealloc(ctx, w.idx, npoints * sizeof *w.idx);
    if (lo) sy_dealloc(ctx, lo, nva * sizeof *lo);
    if (hi) sy_dealloc(ctx, hi, nva * sizeof *hi);
    if (opt) sy_dealloc(ctx, opt, nva * sizeof *opt);
    if (st != SY_OK) {
        sy_profiles_free(p);
        return st;
    }
    *out = p;
    return SY_OK;
}

/* ---- renderings */
typedef struct {
    sy_ctx *ctx;
    char *s;
    size_t n, cap;
    int oom;
} pbuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void pput(pbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + (size_t)k + 1) nc *= 2;
        char *q = sy_realloc(b->ctx, b->s, b->cap, nc);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->s = q;
        b->cap = nc;
    }
}

static char *pfinish(pbuf *b)
{
    if (!b->oom && !b->s) pput(b, "%s", "");
    if (b->oom) {
        if (b->s) sy_dealloc(b->ctx, b->s, b->cap);
        return SY_NFAIL(b->ctx, SY_ENOMEM, "out of memory");
    }
    char *s = sy_alloc(b->ctx, b->n + 1);
    if (s) memcpy(s, b->s, b->n + 1);
    sy_dealloc(b->ctx, b->s, b->cap);
    if (!s) return SY_NFAIL(b->ctx, SY_ENOMEM, "out of memory");
    return s;
}

/* How an input name from the model is written (issue 38, fourth pass: a name holding a newline, a
 * quote or ';' was written raw, and ended a comment or a string of the generated Python or a word
 * of the trtexec command line): */
enum {
    Q_TEXT,  /* a text or comment line: control bytes (the newline included) and DEL as \xHH */
    Q_SHELL, /* inside a shell single-quoted word: a quote as '\'' */
    Q_STR    /* inside a "..." string of Python and JSON alike: \" \\ and \u00XX */
};
static void pname(pbuf *b, const char *s, int q)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (q == Q_SHELL && *c == '\'') pput(b, "'\\''");
        else if (q == Q_STR && (*c == '"' || *c == '\\')) pput(b, "\\%c", *c);
        else if (q == Q_STR && (*c < 0x20 || *c == 0x7f)) pput(b, "\\u%04x", *c);
        else if (q == Q_TEXT && (*c < 0x20 || *c == 0x7f)) pput(b, "\\x%02x", *c);
        else pput(b, "%c", *c);
    }
}

/* a shell word needs quotes: a byte other than [A-Za-z0-9_.,:/=+-] in an input name */
static int shell_unsafe(const sy_profiles *p)
{
    for (size_t k = 0; k < p->ndims; k++)
        for (const char *c = p->inputs[k]; *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("_.,:/=+-", *c)))
                return 1;
    return 0;
}

/* "x:1x3x224x224" for input k0's dims of one of min/opt/max (sep between inputs; names quoted as q) */
static void shapes(pbuf *b, const sy_profiles *p, const int64_t *v, const char *sep, const char *assign, const char *dimsep, int q)
{
    for (size_t k = 0; k < p->ndims;) {
        const char *in = p->inputs[k];
        pput(b, "%s", k ? sep : "");
        pname(b, in, q);
        pput(b, "%s", assign);
        for (size_t j = k; j < p->ndims && !strcmp(p->inputs[j], in); j++) pput(b, "%s%" PRId64, j > k ? dimsep : "", v[j]);
        while (k < p->ndims && !strcmp(p->inputs[k], in)) k++;
    }
}

static void head(pbuf *b, const sy_profiles *p, size_t i, const char *c)
{
    const sy_profile_box *x = &p->boxes[i];
    pput(b, "%sprofile %zu: covers %" PRIu64 " of %" PRIu64 " (%.1f%%); proved inside the accepted set\n", c, i, x->covered, p->total,
         100.0 * x->share);
}

char *sy_profiles_format(const sy_profiles *p, sy_profile_fmt fmt)
{
    if (!p) return NULL;
    for (size_t k = 0; fmt == SY_PROFILE_JSON && k < p->ndims; k++) /* JSON cannot carry it: the dims were left out (attack38g) */
        if (sy_str_is_utf8(p->inputs[k]) != SY_TRUE)
            return SY_NFAIL(p->ctx, SY_EFORMAT, "an input's name is not valid UTF-8, which JSON cannot carry (-f text prints it)");
    pbuf b = {p->ctx, NULL, 0, 0, 0};
    switch (fmt) {
    case SY_PROFILE_TEXT:
        pput(&b, "%zu profiles; histogram %" PRIu64 ": %" PRIu64 " outside the region or rejected, %" PRIu64 " left out\n", p->nbox,
             p->total, p->outside, p->uncovered);
        for (size_t i = 0; i < p->nbox; i++) {
            head(&b, p, i, "");
            for (size_t k = 0; k < p->ndims; k++) {
                pput(&b, "  ");
                pname(&b, p->inputs[k], Q_TEXT);
                pput(&b, ".size()[%zu]  min %" PRId64 "  opt %" PRId64 "  max %" PRId64 "\n", p->dimidx[k], p->boxes[i].min[k],
                     p->boxes[i].opt[k], p->boxes[i].max[k]);
            }
        }
        break;
    case SY_PROFILE_TRTEXEC: {
        const char *qt = shell_unsafe(p) ? "'" : ""; /* one shell word each, as the names of most models need none */
        for (size_t i = 0; i < p->nbox; i++) {
            head(&b, p, i, "# ");
            pput(&b, "--minShapes=%s", qt);
            shapes(&b, p, p->boxes[i].min, ",", ":", "x", *qt ? Q_SHELL : Q_TEXT);
            pput(&b, "%s --optShapes=%s", qt, qt);
            shapes(&b, p, p->boxes[i].opt, ",", ":", "x", *qt ? Q_SHELL : Q_TEXT);
            pput(&b, "%s --maxShapes=%s", qt, qt);
            shapes(&b, p, p->boxes[i].max, ",", ":", "x", *qt ? Q_SHELL : Q_TEXT);
            pput(&b, "%s\n", qt);
        }
        break;
    }
    case SY_PROFILE_ORT: {
        static const char *const keys[3] = {"trt_profile_min_shapes", "trt_profile_opt_shapes", "trt_profile_max_shapes"};
        pput(&b, "# onnxruntime TensorrtExecutionProvider options: %zu profiles (an input listed once per profile)\n{\n", p->nbox);
        for (int q = 0; q < 3; q++) {
            pput(&b, "    \"%s\": \"", keys[q]);
            for (size_t i = 0; i < p->nbox; i++) {
                if (i) pput(&b, ",");
                shapes(&b, p, q == 0 ? p->boxes[i].min : q == 1 ? p->boxes[i].opt : p->boxes[i].max, ",", ":", "x", Q_STR);
            }
            pput(&b, "\",\n");
        }
        pput(&b, "}\n");
        break;
    }
    case SY_PROFILE_TORCH_TRT:
        pput(&b, "import torch_tensorrt\nprofiles = [\n");
        for (size_t i = 0; i < p->nbox; i++) {
            head(&b, p, i, "    # ");
            pput(&b, "    [");
            for (size_t k = 0; k < p->ndims;) {
                const char *in = p->inputs[k];
                size_t k0 = k;
                while (k < p->ndims && !strcmp(p->inputs[k], in)) k++;
                pput(&b, "%storch_tensorrt.Input(name=\"", k0 ? ", " : "");
                pname(&b, in, Q_STR);
                pput(&b, "\"");
                static const char *const kw[3] = {"min_shape", "opt_shape", "max_shape"};
                for (int q = 0; q < 3; q++) {
                    const int64_t *v = q == 0 ? p->boxes[i].min : q == 1 ? p->boxes[i].opt : p->boxes[i].max;
                    pput(&b, ", %s=(", kw[q]);
                    for (size_t j = k0; j < k; j++) pput(&b, "%s%" PRId64, j > k0 ? ", " : "", v[j]);
                    pput(&b, "%s)", k - k0 == 1 ? "," : "");
                }
                pput(&b, ")");
            }
            pput(&b, "],\n");
        }
        pput(&b, "]\n");
        break;
    case SY_PROFILE_OPENVINO:
        pput(&b, "import openvino as ov\nprofiles = [\n");
        for (size_t i = 0; i < p->nbox; i++) {
            head(&b, p, i, "    # ");
            pput(&b, "    {");
            for (size_t k = 0; k < p->ndims;) {
                const char *in = p->inputs[k];
                size_t k0 = k;
                while (k < p->ndims && !strcmp(p->inputs[k], in)) k++;
                pput(&b, "%s\"", k0 ? ", " : "");
                pname(&b, in, Q_STR);
                pput(&b, "\": ov.PartialShape(\"[");
                for (size_t j = k0; j < k; j++) {
                    if (p->boxes[i].min[j] == p->boxes[i].max[j]) pput(&b, "%s%" PRId64, j > k0 ? "," : "", p->boxes[i].min[j]);
                    else pput(&b, "%s%" PRId64 "..%" PRId64, j > k0 ? "," : "", p->boxes[i].min[j], p->boxes[i].max[j]);
                }
                pput(&b, "]\")");
            }
            pput(&b, "},\n");
        }
        pput(&b, "]\n");
        break;
    case SY_PROFILE_JSON: {
        json_t *root = json_pack("{s:s, s:i, s:I, s:I, s:I}", "format", "symshape.profiles", "version", 1, "total",
                                 (json_int_t)p->total, "outside", (json_int_t)p->outside, "uncovered", (json_int_t)p->uncovered);
        json_t *arr = json_array();
        if (!root || !arr) {
            json_decref(root);
            json_decref(arr);
            return SY_NFAIL(p->ctx, SY_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < p->nbox; i++) {
            json_t *dims = json_array();
            for (size_t k = 0; dims && k < p->ndims; k++)
                json_array_append_new(dims, json_pack("{s:s, s:I, s:I, s:I, s:I}", "input", p->inputs[k], "dim",
                                                      (json_int_t)p->dimidx[k], "min", (json_int_t)p->boxes[i].min[k], "opt",
                                                      (json_int_t)p->boxes[i].opt[k], "max", (json_int_t)p->boxes[i].max[k]));
            json_array_append_new(arr, json_pack("{s:I, s:f, s:o}", "covered", (json_int_t)p->boxes[i].covered, "share",
                                                 p->boxes[i].share, "dims", dims ? dims : json_null()));
        }
        json_object_set_new(root, "profiles", arr);
        char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(root);
        if (!s) return SY_NFAIL(p->ctx, SY_ENOMEM, "out of memory");
        pput(&b, "%s\n", s);
        free(s);
        break;
    }
    default:
        return SY_NFAIL(p->ctx, SY_EINVAL, "sy_profiles_format: unknown format %d", (int)fmt);
    }
    return pfinish(&b);
}
