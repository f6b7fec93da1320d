/* Memory envelopes (sy_memory_*, include/symshape/deploy.h, docs/deploy.md): element counts
 * and bytes of every tensor value over the region's variables, and the largest value of one
 * variable that fits a byte budget, proved with the decision procedure. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/internal.h"
#include "deploy/deploy_private.h"

struct sy_memory {
    sy_ctx *ctx;
    sy_memory_value *v;
    size_t *born, *dies; /* per value: its node's index, and the last node reading it (outputs: the last node) */
    size_t n, cap, skipped, nnodes;
    char **strs;
    size_t nstr;
};

sy_memory *sy_memory_free(sy_memory *m)
{
    if (!m) return NULL;
    for (size_t i = 0; i < m->nstr; i++) sy_str_free(m->ctx, m->strs[i]);
    if (m->strs) sy_dealloc(m->ctx, m->strs, (m->cap ? m->cap : 1) * 2 * sizeof *m->strs);
    if (m->v) sy_dealloc(m->ctx, m->v, (m->cap ? m->cap : 1) * sizeof *m->v);
    if (m->born) sy_dealloc(m->ctx, m->born, (m->cap ? m->cap : 1) * sizeof *m->born);
    if (m->dies) sy_dealloc(m->ctx, m->dies, (m->cap ? m->cap : 1) * sizeof *m->dies);
    sy_dealloc(m->ctx, m, sizeof *m);
    return NULL;
}

size_t sy_memory_size(const sy_memory *m) { return m ? m->n : 0; }
const sy_memory_value *sy_memory_at(const sy_memory *m, size_t i) { return m && i < m->n ? &m->v[i] : NULL; }
size_t sy_memory_nskipped(const sy_memory *m) { return m ? m->skipped : 0; }

static int64_t elem_bytes(sy_dtype d)
{
    switch (d) {
    case SY_DT_FLOAT64: case SY_DT_INT64: case SY_DT_COMPLEX64: return 8;
    case SY_DT_COMPLEX128: return 16;
    case SY_DT_FLOAT16: case SY_DT_BFLOAT16: case SY_DT_INT16: return 2;
    case SY_DT_INT8: case SY_DT_UINT8: case SY_DT_BOOL: return 1;
    default: return 4; /* float32, int32 */
    }
}

static char *mdup(sy_memory *m, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = sy_alloc(m->ctx, n);
    if (!p) return NULL;
    memcpy(p, s, n);
    m->strs[m->nstr++] = p;
    return p;
}

/* the core of both constructors: values vals[0..n) over nnodes nodes (born non-decreasing) */
sy_status sy_memory_new_values(sy_env *env, size_t nn, size_t nval, const sy_memory_input *vals, const sy_region *r, sy_memory **out)
{
    if (out) *out = NULL;
    sy_ctx *ctx = env ? sy_env_ctx(env) : NULL;
    if (!env || !r || !out || (nval && !vals) || !nn)
        return ctx ? sy_fail_st(ctx, SY_EINVAL, "sy_memory_new_values: NULL argument or no node") : SY_EINVAL;
    for (size_t i = 0; i < nval; i++) {
        const sy_memory_input *in = &vals[i];
        if (!in->node || !in->op || !in->t || in->elem_bytes < 1 || in->born > in->dies || in->dies >= nn ||
            (i && in->born < vals[i - 1].born))
            return sy_fail_st(ctx, SY_EINVAL,
                              "sy_memory_new_values: value %zu ('%s'): NULL field, elem_bytes < 1, or born/dies not in node order "
                              "(0 <= born <= dies < %zu, born non-decreasing)",
                              i, in->node ? in->node : "?", nn);
    }
    size_t nid = sy_env_ninput_dims(env);
    sy_memory *m = sy_alloc(ctx, sizeof *m);
    if (!m) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->nnodes = nn;
    m->cap = nval ? nval : 1;
    m->v = sy_alloc(ctx, m->cap * sizeof *m->v);
    m->strs = sy_alloc(ctx, m->cap * 2 * sizeof *m->strs);
    m->born = sy_alloc(ctx, m->cap * sizeof *m->born);
    m->dies = sy_alloc(ctx, m->cap * sizeof *m->dies);
    size_t na = nid ? nid : 1;
    const sy_expr **keys = sy_alloc(ctx, na * sizeof *keys), **valx = sy_alloc(ctx, na * sizeof *valx);
    const sy_expr **vsym = sy_alloc(ctx, (r->nvars ? r->nvars : 1) * sizeof *vsym);
    sy_status st = SY_OK;
    size_t nk = 0;
    if (!m->v || !m->strs || !m->born || !m->dies || !keys || !valx || !vsym) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t v = 0; v < r->nvars; v++)
        if (!(vsym[v] = sy_expr_sym(ctx, r->vars[v].name))) {
            st = sy_ctx_last_error(ctx);
            goto done;
        }
    /* each input dim's symbol -> its form in the region's variables */
    for (size_t i = 0; i < nid; i++) {
        const sy_input_dim *d = sy_env_input_dim(env, i);
        if (sy_expr_kind_of(d->expr) != SY_EXPR_SYM) continue;
        size_t namelen = 0, dim = 0;
        if (sy_gset_source_parse(d->source, &namelen, &dim) != SY_SOURCE_SIZE) continue;
        for (size_t k = 0; k < r->ndims; k++) {
            const sy_region_dim *rd = &r->dims[k];
            if (rd->dim != dim || strlen(rd->input) != namelen || strncmp(rd->input, d->source, namelen)) continue;
            const sy_expr *val = rd->is_static ? sy_expr_int_si(ctx, rd->value)
                                               : sy_expr_add_si(ctx, sy_expr_mul_si(ctx, vsym[rd->var], rd->a), rd->b);
            if (!val) {
                st = sy_ctx_last_error(ctx);
                goto done;
            }
            int dup = 0;
            for (size_t q = 0; q < nk; q++) dup |= keys[q] == d->expr;
            if (!dup) {
                keys[nk] = d->expr;
                valx[nk++] = val;
            }
            break;
        }
    }
    for (size_t i = 0; i < nval; i++) {
        const sy_tensor *t = vals[i].t;
        const sy_expr *numel = sy_expr_mul_n(ctx, t->ndim, t->sizes);
        numel = numel ? sy_facts_apply(sy_env_facts(env), numel) : NULL;
        numel = numel ? sy_expr_subs(ctx, numel, nk, keys, valx) : NULL;
        if (!numel) {
            st = sy_ctx_last_error(ctx);
            goto done;
        }
        /* every symbol left must be a region variable */
        const sy_expr **fs = NULL;
        size_t nf = 0;
        if ((st = sy_expr_free_symbols(ctx, numel, &fs, &nf)) != SY_OK) goto done;
        int ok = 1;
        for (size_t q = 0; q < nf && ok; q++) {
            int hit = 0;
            for (size_t v2 = 0; v2 < r->nvars; v2++) hit |= fs[q] == vsym[v2];
            ok = hit;
        }
        sy_mem_free(ctx, fs);
        if (!ok) {
            m->skipped++;
            continue;
        }
        int64_t eb = vals[i].elem_bytes;
        const sy_expr *bytes = sy_expr_mul_si(ctx, numel, eb);
        const char *node = mdup(m, vals[i].node), *op = mdup(m, vals[i].op);
        if (!bytes || !node || !op) {
            st = !bytes ? sy_ctx_last_error(ctx) : sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            goto done;
        }
        m->born[m->n] = vals[i].born;
        m->dies[m->n] = vals[i].dies;
        m->v[m->n++] = (sy_memory_value){node, op, eb, numel, bytes};
    }
done:
    if (keys) sy_dealloc(ctx, keys, na * sizeof *keys);
    if (valx) sy_dealloc(ctx, valx, na * sizeof *valx);
    if (vsym) sy_dealloc(ctx, vsym, (r->nvars ? r->nvars : 1) * sizeof *vsym);
    if (st != SY_OK) {
        sy_memory_free(m);
        return st;
    }
    *out = m;
    return SY_OK;
}

sy_status sy_memory_new(sy_env *env, const sy_graph *g, const sy_trace *tr, const sy_region *r, sy_memory **out)
{
    if (out) *out = NULL;
    sy_ctx *ctx = env ? sy_env_ctx(env) : NULL;
    if (!env || !g || !tr || !r || !out) return ctx ? sy_fail_st(ctx, SY_EINVAL, "sy_memory_new: NULL argument") : SY_EINVAL;
    size_t nn = sy_graph_nnodes(g), cap = nn ? nn : 1, rcap = 16, nv = 0;
    size_t *last = sy_alloc(ctx, cap * sizeof *last);
    long *refs = sy_alloc(ctx, rcap * sizeof *refs);
    sy_memory_input *in = sy_alloc(ctx, cap * sizeof *in);
    sy_status st = SY_OK;
    if (!last || !refs || !in) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        goto done;
    }
    /* liveness in graph order: a value lives from its node to the last node reading it; the
     * graph's outputs to the end. One pass over the refs: linear in the graph's size. */
    for (size_t i = 0; i < nn; i++) last[i] = i;
    for (size_t i = 0; i <= nn; i++) { /* i == nn: the graph's outputs */
        size_t k = i < nn ? sy_graph_node_refs(g, i, refs, rcap) : sy_graph_output_refs(g, refs, rcap);
        if (k > rcap) {
            long *nr = sy_realloc(ctx, refs, rcap * sizeof *refs, k * sizeof *nr);
            if (!nr) {
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                goto done;
            }
            refs = nr;
            rcap = k;
            k = i < nn ? sy_graph_node_refs(g, i, refs, rcap) : sy_graph_output_refs(g, refs, rcap);
        }
        size_t at = i < nn ? i : nn ? nn - 1 : 0;
        for (size_t q = 0; q < k; q++)
            if (refs[q] >= 0 && (size_t)refs[q] < nn && last[refs[q]] < at) last[refs[q]] = at;
    }
    for (size_t i = 0; i < nn; i++) {
        const sy_value *v = sy_trace_value(tr, i);
        if (!v || v->kind != SY_V_TENSOR || !v->u.t) continue;
        in[nv++] = (sy_memory_input){sy_graph_node_name(g, i), sy_graph_node_op(g, i), v->u.t, elem_bytes(v->u.t->dtype), i, last[i]};
    }
    st = sy_memory_new_values(env, cap, nv, in, r, out);
done:
    if (last) sy_dealloc(ctx, last, cap * sizeof *last);
    if (refs) sy_dealloc(ctx, refs, rcap * sizeof *refs);
    if (in) sy_dealloc(ctx, in, cap * sizeof *in);
    return st;
}

/* the activations' bytes (max or sum) at the variables' values t; *over when past int64 */
/* SY_MEM_LIVE at t: the live values' bytes summed at each node (a value lives from its node to
 * its last reader), swept in graph order: *fits when no node's sum exceeds the budget */
static sy_status eval_live(const sy_memory *m, const sy_region *r, const sy_expr *const *vsym, const int64_t *t, uint64_t budget,
                           uint64_t *scratch, int *fits)
{
    sy_ctx *ctx = m->ctx;
    size_t nn = m->nnodes;
    uint64_t *add = scratch, *sub = scratch + nn; /* per node: bytes born there, bytes whose last reader it is */
    memset(scratch, 0, 2 * (nn ? nn : 1) * sizeof *scratch);
    *fits = 1;
    for (size_t i = 0; i < m->n; i++) {
        if (!strcmp(m->v[i].op, "param")) continue;
        int64_t b = 0;
        sy_status st = sy_expr_eval_si(ctx, m->v[i].bytes, r->nvars, vsym, t, &b);
        if (st == SY_EOVERFLOW || (st == SY_OK && (uint64_t)(b < 0 ? 0 : b) > budget)) {
            if (st != SY_OK) sy_ctx_reset_error(ctx);
            *fits = 0;
            return SY_OK;
        }
        if (st != SY_OK) return st;
        if (b < 0) b = 0;
        /* several values may be born at one node (an ONNX node's outputs, the graph's inputs) */
        if (add[m->born[i]] > budget - (uint64_t)b || sub[m->dies[i]] > UINT64_MAX - (uint64_t)b) { *fits = 0; return SY_OK; }
        add[m->born[i]] += (uint64_t)b; /* each <= budget here, the sums checked below */
        sub[m->dies[i]] += (uint64_t)b;
    }
    uint64_t acc = 0;
    for (size_t s = 0; s < nn; s++) {
        if (acc > budget - add[s]) { /* acc + add[s] > budget, without overflow (add[s] <= budget) */
            *fits = 0;
            return SY_OK;
        }
        acc += add[s];
        acc -= sub[s] <= acc ? sub[s] : acc;
    }
    return SY_OK;
}

static sy_status eval_at(const sy_memory *m, const sy_region *r, const sy_expr *const *vsym, const int64_t *t, sy_memory_what what,
                         uint64_t budget, uint64_t *scratch, int *fits)
{
    sy_ctx *ctx = m->ctx;
    uint64_t acc = 0;
    if (what == SY_MEM_LIVE) return eval_live(m, r, vsym, t, budget, scratch, fits);
    *fits = 1;
    for (size_t i = 0; i < m->n && *fits; i++) {
        if (!strcmp(m->v[i].op, "param")) continue;
        int64_t b = 0;
        sy_status st = sy_expr_eval_si(ctx, m->v[i].bytes, r->nvars, vsym, t, &b);
        if (st == SY_EOVERFLOW) {
            sy_ctx_reset_error(ctx);
            *fits = 0;
            break;
        }
        if (st != SY_OK) return st;
        if (b < 0) b = 0;
        if (what == SY_MEM_LARGEST) *fits = (uint64_t)b <= budget;
        else {
            acc += (uint64_t)b;
            *fits = acc <= budget && acc >= (uint64_t)b;
        }
    }
    return SY_OK;
}

/* the proof of SY_MEM_LIVE under the facts f: at the node of each value, the sum of the values
 * live there (born at or before it, last read at or after it) <= N. The live set moves forward
 * in graph order, so each value enters and leaves it once; one sum and one decision per value. */
/* value i's bytes under the substitution sub (the tied variables' forms; NULL: none) */
typedef struct {
    size_t n;
    const sy_expr **keys, **vals;
} msub;
static const sy_expr *bytes_of(const sy_memory *m, size_t i, const msub *sub)
{
    return sub && sub->n ? sy_expr_subs(m->ctx, m->v[i].bytes, sub->n, sub->keys, sub->vals) : m->v[i].bytes;
}

static sy_status prove_live(const sy_memory *m, sy_facts *f, const sy_expr *N, const msub *sub, int *all)
{
    sy_ctx *ctx = m->ctx;
    size_t n1 = m->n ? m->n : 1, nn = m->nnodes ? m->nnodes : 1;
    /* terms[i]: value i's bytes (made once); the live values in buckets by their last reader
     * (head[j] .. next[]), left at the first value born after j: the sum moves by one term per
     * value entering or leaving, not rebuilt at each node */
    const sy_expr **terms = sy_alloc(ctx, n1 * sizeof *terms);
    size_t *next = sy_alloc(ctx, n1 * sizeof *next), *head = sy_alloc(ctx, nn * sizeof *head);
    sy_status st = SY_OK;
    *all = 1;
    if (!terms || !next || !head) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    else
        for (size_t j = 0; j < nn; j++) head[j] = SIZE_MAX;
    const sy_expr *sum = sy_expr_int_si(ctx, 0);
    size_t gone = 0; /* buckets of nodes before it are out of the sum */
    for (size_t i = 0; st == SY_OK && *all && i < m->n; i++) {
        if (!strcmp(m->v[i].op, "param")) continue;
        for (; sum && gone < m->born[i]; gone++) /* drop the values last read before this node */
            for (size_t q = head[gone]; sum && q != SIZE_MAX; q = next[q]) sum = sy_expr_sub(ctx, sum, terms[q]);
        terms[i] = bytes_of(m, i, sub);
        sum = sum && terms[i] ? sy_expr_add(ctx, sum, terms[i]) : NULL;
        next[i] = head[m->dies[i]];
        head[m->dies[i]] = i;
        const sy_expr *le = sum ? sy_expr_le(ctx, sum, N) : NULL;
        sy_truth tr = SY_TRUTH_UNKNOWN;
        if (!le) st = sy_ctx_last_error(ctx);
        else st = sy_dp_decide_total(ctx, f, le, &tr);
        if (st == SY_EQUOTA) { /* a budget: not proved */
            sy_ctx_reset_error(ctx);
            st = SY_OK;
        }
        *all = st == SY_OK && tr == SY_TRUTH_TRUE;
    }
    if (terms) sy_dealloc(ctx, terms, n1 * sizeof *terms);
    if (next) sy_dealloc(ctx, next, n1 * sizeof *next);
    if (head) sy_dealloc(ctx, head, nn * sizeof *head);
    if (st != SY_OK) *all = 0;
    return st;
}

/* under the facts f: every activation's bytes (SY_MEM_LARGEST), their sum (SY_MEM_TOTAL) or the
 * live sum at each node (SY_MEM_LIVE) <= N, decided; *all = 1 when every decision is TRUE (a
 * budget exhausted is "not proved", not an error) */
static sy_status prove_fits(const sy_memory *m, sy_facts *f, const sy_expr *N, sy_memory_what what, const msub *sub, int *all)
{
    sy_ctx *ctx = m->ctx;
    sy_status st = SY_OK;
    *all = 1;
    const sy_expr **terms = what == SY_MEM_TOTAL ? sy_alloc(ctx, (m->n ? m->n : 1) * sizeof *terms) : NULL;
    size_t nt = 0;
    if (what == SY_MEM_TOTAL && !terms) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        return st;
    }
    for (size_t i = 0; i < m->n && *all && what != SY_MEM_LIVE; i++) {
        if (!strcmp(m->v[i].op, "param")) continue;
        const sy_expr *b = bytes_of(m, i, sub);
        if (!b) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        if (what == SY_MEM_TOTAL) {
            terms[nt++] = b;
            continue;
        }
        sy_truth tr = SY_TRUTH_UNKNOWN;
        const sy_expr *le = sy_expr_le(ctx, b, N);
        if (!le || (st = sy_dp_decide_total(ctx, f, le, &tr)) != SY_OK) {
            if (!le) st = sy_ctx_last_error(ctx);
            if (st == SY_EQUOTA) {
                sy_ctx_reset_error(ctx);
                st = SY_OK;
            }
            *all = 0;
            break;
        }
        *all = tr == SY_TRUTH_TRUE;
    }
    if (what == SY_MEM_TOTAL && st == SY_OK) {
        const sy_expr *sum = sy_expr_add_n(ctx, nt, terms), *le = sum ? sy_expr_le(ctx, sum, N) : NULL;
        sy_truth tr = SY_TRUTH_UNKNOWN;
        if (!le) st = sy_ctx_last_error(ctx);
        else st = sy_dp_decide_total(ctx, f, le, &tr);
        if (st == SY_EQUOTA) {
            sy_ctx_reset_error(ctx);
            st = SY_OK;
        }
        *all = st == SY_OK && tr == SY_TRUTH_TRUE;
    }
    if (terms) sy_dealloc(ctx, terms, (m->n ? m->n : 1) * sizeof *terms);
    if (what == SY_MEM_LIVE && st == SY_OK && *all) st = prove_live(m, f, N, sub, all);
    if (st != SY_OK) *all = 0;
    return st;
}

sy_status sy_memory_largest(const sy_memory *m, const sy_region *r, size_t var, const int64_t *fixed, sy_memory_what what,
                            uint64_t budget, int64_t *best, int *proved)
{
    return sy_memory_largest_tied(m, r, var, fixed, NULL, NULL, what, budget, best, proved, NULL);
}

/* the point of the search at t[var] = x: the tied variables at a*x + b */
static void tie_point(size_t nv, size_t var, const int64_t *ta, const int64_t *tb, int64_t x, int64_t *t)
{
    t[var] = x;
    for (size_t v = 0; ta && v < nv; v++)
        if (v != var && ta[v]) t[v] = ta[v] * x + tb[v]; /* no overflow: x <= lim (below) */
}

sy_status sy_memory_largest_tied(const sy_memory *m, const sy_region *r, size_t var, const int64_t *fixed, const int64_t *tie_a,
                                 const int64_t *tie_b, sy_memory_what what, uint64_t budget, int64_t *best, int *proved, int *stop)
{
    sy_ctx *ctx = m ? m->ctx : NULL;
    if (!m || !r || !fixed || !best || !proved || var >= r->nvars || (!tie_a) != (!tie_b))
        return ctx ? sy_fail_st(ctx, SY_EINVAL, "sy_memory_largest: NULL argument or variable out of range") : SY_EINVAL;
    *best = -1;
    *proved = 0;
    if (stop) *stop = 0;
    size_t nv = r->nvars;
    const sy_region_var *x = &r->vars[var];
    /* the values of the variable the ranges allow: its own range, and each tied variable's */
    int64_t lo0 = x->tmin, lim = x->tmax == SY_REGION_UNBOUNDED ? ((int64_t)1 << 40) : x->tmax;
    int cap_end = x->tmax == SY_REGION_UNBOUNDED; /* lim is the 2^40 cap, not a range's end */
    for (size_t v = 0; v < nv; v++) {
        const sy_region_var *y = &r->vars[v];
        if (v == var) continue;
        if (tie_a && tie_a[v]) {
            int64_t a = tie_a[v], b = tie_b[v];
            if (a < 1 || a > ((int64_t)1 << 20) || b < -((int64_t)1 << 40) || b > ((int64_t)1 << 40))
                return sy_fail_st(ctx, SY_EINVAL, "sy_memory_largest: %s = %" PRId64 "*%s + %" PRId64 ": the factor must be in 1 .. 2^20 "
                                  "and the offset within +-2^40", y->name, a, x->name, b);
            int64_t need = y->tmin - b, l = need <= 0 ? -((-need) / a) : (need + a - 1) / a; /* ceil((tmin - b) / a) */
            if (l > lo0) lo0 = l;
            if (y->tmax != SY_REGION_UNBOUNDED) {
                int64_t room = y->tmax - b, h = room >= 0 ? room / a : -((-room + a - 1) / a); /* floor((tmax - b) / a) */
                if (h < lim) {
                    lim = h;
                    cap_end = 0;
                }
            }
            continue;
        }
        if (fixed[v] < y->tmin || (y->tmax != SY_REGION_UNBOUNDED && fixed[v] > y->tmax))
            return sy_fail_st(ctx, SY_EINVAL, "sy_memory_largest: %s = %" PRId64 " is outside its range", y->name, fixed[v]);
    }
    if (what != SY_MEM_LARGEST && what != SY_MEM_TOTAL && what != SY_MEM_LIVE)
        return sy_fail_st(ctx, SY_EINVAL, "sy_memory_largest: unknown sy_memory_what %d", (int)what);
    if (lo0 > lim)
        return sy_fail_st(ctx, SY_EINVAL, "sy_memory_largest: no value of %s keeps the tied variables in their ranges", x->name);
    const sy_expr **vsym = sy_alloc(ctx, nv * sizeof *vsym), **keys = sy_alloc(ctx, nv * sizeof *keys),
                  **vals = sy_alloc(ctx, nv * sizeof *vals);
    int64_t *t = sy_alloc(ctx, nv * sizeof *t);
    size_t nsc = what == SY_MEM_LIVE ? 2 * (m->nnodes ? m->nnodes : 1) : 1;
    uint64_t *scratch = sy_alloc(ctx, nsc * sizeof *scratch);
    sy_facts *f = NULL;
    sy_status st = SY_OK;
    msub sub = {0, keys, vals};
    if (!vsym || !t || !scratch || !keys || !vals) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t v = 0; v < nv; v++) {
        if (!(vsym[v] = sy_expr_sym(ctx, r->vars[v].name))) {
            st = sy_ctx_last_error(ctx);
            goto done;
        }
        t[v] = fixed[v];
    }
    int fits;
    tie_point(nv, var, tie_a, tie_b, lo0, t);
    if ((st = eval_at(m, r, vsym, t, what, budget, scratch, &fits)) != SY_OK) goto done;
    if (!fits) goto done;
    int64_t lo = lo0, hi = lo0; /* lo fits; find hi that does not (or lim) */
    int64_t step = 1;
    for (;;) {
        hi = lo + step > lim || lo + step < lo ? lim : lo + step;
        tie_point(nv, var, tie_a, tie_b, hi, t);
        if ((st = eval_at(m, r, vsym, t, what, budget, scratch, &fits)) != SY_OK) goto done;
        if (!fits || hi == lim) break;
        lo = hi;
        step *= 2;
    }
    if (fits) { /* every value up to the range's end (or 2^40) fits */
        lo = hi;
        if (stop) *stop = cap_end ? 2 : 1;
    } else {
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            tie_point(nv, var, tie_a, tie_b, mid, t);
            if ((st = eval_at(m, r, vsym, t, what, budget, scratch, &fits)) != SY_OK) goto done;
            if (fits) lo = mid;
            else hi = mid;
        }
    }
    *best = lo;
    /* the proof: over t[var] in [lo0, best], the tied variables at their forms, the others fixed,
     * every activation (or the sum) fits */
    if (!(f = sy_facts_new(ctx))) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t v = 0; v < nv && st == SY_OK; v++) {
        if (v == var) st = sy_dp_set_range(ctx, f, vsym[v], lo0, best);
        else if (tie_a && tie_a[v]) {
            const sy_expr *form = sy_expr_add_si(ctx, sy_expr_mul_si(ctx, vsym[var], tie_a[v]), tie_b[v]);
            if (!form) st = sy_ctx_last_error(ctx);
            keys[sub.n] = vsym[v];
            vals[sub.n++] = form;
        } else st = sy_dp_set_range(ctx, f, vsym[v], fixed[v], &fixed[v]);
    }
    if (st != SY_OK) goto done;
    char bud[32];
    snprintf(bud, sizeof bud, "%" PRIu64, budget);
    const sy_expr *N = sy_expr_int_str(ctx, bud);
    if (!N) {
        st = sy_ctx_last_error(ctx);
        goto done;
    }
    int all = 0;
    st = prove_fits(m, f, N, what, &sub, &all);
    *proved = st == SY_OK && all;
done:
    if (scratch) sy_dealloc(ctx, scratch, nsc * sizeof *scratch);
    sy_facts_free(f);
    if (vsym) sy_dealloc(ctx, vsym, nv * sizeof *vsym);
    if (keys) sy_dealloc(ctx, keys, nv * sizeof *keys);
    if (vals) sy_dealloc(ctx, vals, nv * sizeof *vals);
    if (t) sy_dealloc(ctx, t, nv * sizeof *t);
    return st;
}

/* the measure at t, exactly: the largest activation, the sum, or the largest live sum at a node;
 * *over when it passes 2^64 - 1 (or a size passes int64) */
static sy_status measure_at(const sy_memory *m, const sy_region *r, const sy_expr *const *vsym, const int64_t *t,
                            sy_memory_what what, uint64_t *scratch, uint64_t *value, int *over)
{
    sy_ctx *ctx = m->ctx;
    size_t nn = m->nnodes;
    *value = 0;
    *over = 0;
    if (what == SY_MEM_LIVE) memset(scratch, 0, 2 * (nn ? nn : 1) * sizeof *scratch);
    for (size_t i = 0; i < m->n; i++) {
        if (!strcmp(m->v[i].op, "param")) continue;
        int64_t b = 0;
        sy_status st = sy_expr_eval_si(ctx, m->v[i].bytes, r->nvars, vsym, t, &b);
        if (st == SY_EOVERFLOW) {
            sy_ctx_reset_error(ctx);
            *over = 1;
            return SY_OK;
        }
        if (st != SY_OK) return st;
        uint64_t u = b < 0 ? 0 : (uint64_t)b;
        if (what == SY_MEM_LARGEST) *value = u > *value ? u : *value;
        else if (what == SY_MEM_TOTAL) {
            if (*value > UINT64_MAX - u) { *over = 1; return SY_OK; }
            *value += u;
        } else {
            if (scratch[m->born[i]] > UINT64_MAX - u || scratch[nn + m->dies[i]] > UINT64_MAX - u) { *over = 1; return SY_OK; }
            scratch[m->born[i]] += u;
            scratch[nn + m->dies[i]] += u;
        }
    }
    if (what == SY_MEM_LIVE) {
        uint64_t acc = 0;
        for (size_t s = 0; s < nn; s++) {
            if (acc > UINT64_MAX - scratch[s]) { *over = 1; return SY_OK; }
            acc += scratch[s];
            if (acc > *value) *value = acc;
            acc -= scratch[nn + s] <= acc ? scratch[nn + s] : acc;
        }
    }
    return SY_OK;
}

sy_status sy_memory_peak(const sy_memory *m, const sy_region *r, const int64_t *lo, const int64_t *hi, sy_memory_what what,
                         uint64_t *peak, int *proved)
{
    sy_ctx *ctx = m ? m->ctx : NULL;
    if (!m || !r || !lo || !hi || !peak || !proved)
        return ctx ? sy_fail_st(ctx, SY_EINVAL, "sy_memory_peak: NULL argument") : SY_EINVAL;
    *peak = 0;
    *proved = 0;
    if (what != SY_MEM_LARGEST && what != SY_MEM_TOTAL && what != SY_MEM_LIVE)
        return sy_fail_st(ctx, SY_EINVAL, "sy_memory_peak: unknown sy_memory_what %d", (int)what);
    size_t nv = r->nvars;
    for (size_t v = 0; v < nv; v++) {
        const sy_region_var *x = &r->vars[v];
        if (lo[v] > hi[v] || lo[v] < x->tmin || (x->tmax != SY_REGION_UNBOUNDED && hi[v] > x->tmax))
            return sy_fail_st(ctx, SY_EINVAL, "sy_memory_peak: %s in [%" PRId64 ", %" PRId64 "] is empty or outside its range [%" PRId64
                              ", %s]", x->name, lo[v], hi[v], x->tmin, x->tmax == SY_REGION_UNBOUNDED ? "oo" : "its max");
    }
    const sy_expr **vsym = sy_alloc(ctx, (nv ? nv : 1) * sizeof *vsym);
    size_t nsc = 2 * (m->nnodes ? m->nnodes : 1);
    uint64_t *scratch = sy_alloc(ctx, nsc * sizeof *scratch);
    sy_facts *f = NULL;
    sy_status st = SY_OK;
    if (!vsym || !scratch || !(f = sy_facts_new(ctx))) {
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t v = 0; v < nv && st == SY_OK; v++)
        st = (vsym[v] = sy_expr_sym(ctx, r->vars[v].name)) ? sy_dp_set_range(ctx, f, vsym[v], lo[v], &hi[v]) : sy_ctx_last_error(ctx);
    if (st != SY_OK) goto done;
    /* the candidate: the measure at the upper corner (attained there); proved the largest over
     * the box when the measure <= it is decided TRUE everywhere in it */
    int over = 0;
    if ((st = measure_at(m, r, vsym, hi, what, scratch, peak, &over)) != SY_OK) goto done;
    if (over) {
        st = sy_fail_st(ctx, SY_EOVERFLOW, "sy_memory_peak: the bytes at the range's upper corner pass 2^64 - 1");
        goto done;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, *peak);
    const sy_expr *N = sy_expr_int_str(ctx, buf);
    if (!N) {
        st = sy_ctx_last_error(ctx);
        goto done;
    }
    st = prove_fits(m, f, N, what, NULL, proved);
done:
    sy_facts_free(f);
    if (scratch) sy_dealloc(ctx, scratch, nsc * sizeof *scratch);
    if (vsym) sy_dealloc(ctx, vsym, (nv ? nv : 1) * sizeof *vsym);
    return st;
}
