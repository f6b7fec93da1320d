/* The graph interpreter (a thin dispatcher over sy_env_call) and real
 * values at concrete sizes (get_real_value). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapeenv/graph_private.h"

struct sy_trace {
    sy_env *env;
    size_t n;
    sy_value *vals;
    size_t nout;
    sy_value *outs;
    sy_trace_memo_stats memo;
};

/* ------------------------------------------------------------------ op memo
 * Many nodes apply one op with the same arguments to inputs whose sizes and
 * strides are the very same interned expressions (the blocks of a stage, the
 * branches of an inception module). The trace keeps, per call, a key of
 *   the node's template id (gnode.tid, given at load: nodes share it when
 *   they have the same op, keyword names and compiled arguments but for
 *   their refs, so equal ids and equal ref values give equal arguments),
 *   the values of its refs in order (tensors by dtype, rank, size and stride
 *   expressions; ints and bools by expression; floats, strings, dtypes by
 *   value; lists and slices recursively),
 *   the fact set's version (sy_facts_version) and the context's rollback
 *   generation (sy_ctx_generation),
 * and reuses the result of an earlier call with the same key (a hit builds
 * no argument values at all).
 *
 * Why this gives the same answer as running the op again: an op's result is
 * a function of its arguments, the facts (decisions and replacements) and the
 * env's fixed options, plus its side effects on the env. A call is stored
 * only when it
 *   - is a pure op worth it (sy_env_op_memoizable: no data values, no
 *     unbacked symbols; rows with OP_MEMO (ops_*.c): convolutions, pooling,
 *     batch_norm, relu);
 *   - recorded no guard (sy_env_guards_recorded unchanged, so no provenance
 *     is lost on a reuse and no fact came from it), added no fact and no
 *     runtime assert (facts version unchanged), made no symbol and no input;
 *   - met no "unknown" in a decision and no spent layer budget
 *     (sy_decide_stats unknown and budget_hits unchanged): every decision
 *     was answered by the facts alone;
 *   - set no env flag (strides_read unchanged) and returned a tensor, an int,
 *     a bool or a list of those.
 * Its remaining effects are idempotent: symbols it marked as relied upon
 * (touched) stay marked, and memos inside the env are caches. A reuse under
 * the same key sees the same facts, so a re-run would decide every question
 * the same way and build the same hash-consed expressions: the result is
 * identical, and so are the guards later recorded (none came from the call).
 * Keys hold expression addresses: the rollback generation in the key keeps a
 * released and reused address from matching. A reused tensor is a fresh
 * sy_tensor struct sharing the (immutable) size and stride arrays.
 * SY_TRACE_MEMO=0 in the environment turns the memo off (the differential
 * tests compare both). */

#define MEMO_KEY_WORDS 512 /* 4 KiB; a longer key is not memoized */

typedef struct mentry {
    uint64_t hash;
    size_t klen;        /* words */
    uint64_t *key;      /* in the memo's key chunks */
    sy_value out;       /* as the op returned it (env-owned) */
} mentry;

typedef struct kbuf {
    uint64_t w[MEMO_KEY_WORDS];
    size_t n; /* words */
    bool bad; /* too long or a value kind the memo does not key */
} kbuf;

/* A param's (or a static input's) sizes and contiguous strides by its
 * static shape: nodes with equal shapes share the (immutable) arrays, as the
 * op memo's reused tensors do. Pure construction (interned integers and
 * their products), kept for the context's rollback generation it was made
 * in. */
typedef struct pshape {
    uint64_t hash, gen;
    size_t ndim;
    const int64_t *shape; /* the graph's */
    const sy_tensor *t;   /* the first tensor made with it (sizes, strides) */
} pshape;

typedef struct opmemo {
    sy_ctx *ctx;
    mentry *tab;
    size_t cap, n;
    bool on;
    kbuf *kb;    /* the key buffer (4 KiB: off the stack, and not thread-local: a TLS access per key word cost more than the key) */
    struct kchunk *keys; /* the stored keys, bump-allocated (newest chunk first; freed by memo_clear) */
    size_t kused;        /* bytes used in keys */
    pshape *ps;  /* param shapes */
    size_t pscap, npsh;
} opmemo;

/* a chunk of stored keys: one allocation holds many (a malloc and a free per
 * stored key cost more than a bn or relu call's key) */
typedef struct kchunk {
    struct kchunk *next;
    size_t size; /* bytes of data */
    unsigned char data[];
} kchunk;

#define KCHUNK 4096

/* The key is a sequence of 64-bit words, written in place: a value's words
 * are reserved at once (one bounds check per value, not per word) and the
 * hash runs over the finished key. */
static uint64_t *kres(kbuf *k, size_t nw)
{
    if (k->bad || nw > MEMO_KEY_WORDS - k->n) {
        k->bad = true;
        return NULL;
    }
    uint64_t *p = k->w + k->n;
    k->n += nw;
    return p;
}
static void kword(kbuf *k, uint64_t w)
{
    uint64_t *p = kres(k, 1);
    if (p) *p = w;
}
/* bytes in whole words (the last one zero-padded), after their length */
static void kbytes(kbuf *k, const void *s, size_t n)
{
    uint64_t *p = kres(k, 1 + (n + 7) / 8);
    if (!p) return;
    p[0] = n;
    p[(n + 7) / 8] = 0;
    SY_COPY(p + 1, s, n);
}
static void kstr(kbuf *k, const char *s)
{
    if (!s) kword(k, UINT64_MAX);
    else kbytes(k, s, strlen(s));
}

static void kvalue(kbuf *k, const sy_value *v, int depth)
{
    if (depth > 8) {
        k->bad = true;
        return;
    }
    switch (v->kind) {
    case SY_V_NONE:
    case SY_V_ELLIPSIS: kword(k, (uint64_t)v->kind); break;
    case SY_V_INT:
    case SY_V_BOOL: {
        uint64_t *p = kres(k, 2);
        if (p) p[0] = (uint64_t)v->kind, p[1] = (uint64_t)(uintptr_t)v->u.i;
        break;
    }
    case SY_V_FLOAT: {
        uint64_t *p = kres(k, 2);
        if (!p) break;
        p[0] = (uint64_t)v->kind;
        memcpy(&p[1], &v->u.f, sizeof v->u.f < 8 ? sizeof v->u.f : 8);
        break;
    }
    case SY_V_STR:
        kword(k, (uint64_t)v->kind);
        kstr(k, v->u.s);
        break;
    case SY_V_DTYPE: {
        uint64_t *p = kres(k, 2);
        if (p) p[0] = (uint64_t)v->kind, p[1] = (uint64_t)v->u.dtype;
        break;
    }
    case SY_V_SCALED: {
        uint64_t *p = kres(k, 3);
        if (p) p[0] = (uint64_t)v->kind, p[1] = (uint64_t)(uintptr_t)v->u.scaled.x, memcpy(&p[2], &v->u.scaled.s, 8);
        break;
    }
    case SY_V_QUOT: {
        uint64_t *p = kres(k, 3);
        if (p) p[0] = (uint64_t)v->kind, p[1] = (uint64_t)(uintptr_t)v->u.quot.num, p[2] = (uint64_t)(uintptr_t)v->u.quot.den;
        break;
    }
    case SY_V_TENSOR: {
        /* the size and stride expressions, each array in one copy */
        const sy_tensor *t = v->u.t;
        /* strides not known (not modelled, or deferred: layout.c): the tensor itself, as a
         * deferred tensor's strides are those of its own source */
        size_t nd = t->ndim, ns = t->strides ? nd : 1;
        if (nd > MEMO_KEY_WORDS) {
            k->bad = true;
            break;
        }
        uint64_t *p = kres(k, 2 + nd + ns);
        if (!p) break;
        p[0] = (uint64_t)v->kind;
        p[1] = (uint64_t)t->dtype | (uint64_t)nd << 8 | (uint64_t)(t->strides != NULL) << 16;
        for (size_t i = 0; i < nd; i++) p[2 + i] = (uint64_t)(uintptr_t)t->sizes[i];
        if (!t->strides) p[2 + nd] = (uint64_t)(uintptr_t)t;
        for (size_t i = 0; t->strides && i < ns; i++) p[2 + nd + i] = (uint64_t)(uintptr_t)t->strides[i];
        break;
    }
    case SY_V_LIST: {
        uint64_t *p = kres(k, 2);
        if (!p) break;
        p[0] = (uint64_t)v->kind;
        p[1] = (uint64_t)v->u.list.n;
        for (size_t i = 0; i < v->u.list.n && !k->bad; i++) kvalue(k, &v->u.list.items[i], depth + 1);
        break;
    }
    case SY_V_SLICE:
        kword(k, (uint64_t)v->kind);
        kvalue(k, v->u.slice.start, depth + 1);
        kvalue(k, v->u.slice.stop, depth + 1);
        kvalue(k, v->u.slice.step, depth + 1);
        break;
    default: k->bad = true; break;
    }
}

/* one multiply per word; the final mix brings the high bits (where the
 * products gather every word's bits) down to the slot bits */
static uint64_t khash(const kbuf *k)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < k->n; i++) h = (h ^ k->w[i]) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}

/* a result the memo can hand out again: tensors, ints, bools, one level of list */
static bool storable(const sy_value *v, int depth)
{
    if (v->kind == SY_V_TENSOR || v->kind == SY_V_INT || v->kind == SY_V_BOOL) return true;
    if (v->kind != SY_V_LIST || depth) return false;
    for (size_t i = 0; i < v->u.list.n; i++)
        if (!storable(&v->u.list.items[i], 1)) return false;
    return true;
}

/* a copy of a stored result for a new node: new tensor structs (the size and
 * stride arrays are immutable and shared), a new list */
static sy_status reuse(sy_env *env, const sy_value *v, sy_value *out)
{
    if (v->kind == SY_V_TENSOR) {
        sy_tensor *t = sy_env_alloc(env, sizeof *t);
        if (!t) return sy_ctx_last_error(env->ctx);
        *t = *v->u.t;
        *out = sy_value_tensor(t);
        return SY_OK;
    }
    if (v->kind != SY_V_LIST) {
        *out = *v;
        return SY_OK;
    }
    size_t n = v->u.list.n;
    sy_value *items = sy_env_alloc(env, (n ? n : 1) * sizeof *items);
    if (!items) return sy_ctx_last_error(env->ctx);
    for (size_t i = 0; i < n; i++) {
        sy_status st = reuse(env, &v->u.list.items[i], &items[i]);
        if (st) return st;
    }
    out->kind = SY_V_LIST;
    out->u.list.n = n;
    out->u.list.items = items;
    return SY_OK;
}

static mentry *memo_find(opmemo *m, const kbuf *k, uint64_t h)
{
    if (!m->cap) return NULL;
    for (size_t j = (size_t)h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        mentry *e = &m->tab[j];
        if (!e->key) return e;
        if (e->hash == h && e->klen == k->n && !memcmp(e->key, k->w, k->n * sizeof *k->w)) return e;
    }
}

/* store a result; false only when out of memory (the memo then just misses) */
static bool memo_put(opmemo *m, const kbuf *k, uint64_t h, const sy_value *out)
{
    if ((m->n + 1) * 4 > m->cap * 3) { /* at most 3/4 full */
        size_t nc = m->cap ? m->cap * 2 : 32;
        mentry *nt = sy_alloc(m->ctx, nc * sizeof *nt);
        if (!nt) return false;
        memset(nt, 0, nc * sizeof *nt);
        for (size_t i = 0; i < m->cap; i++)
            if (m->tab[i].key) {
                size_t j = (size_t)m->tab[i].hash & (nc - 1);
                while (nt[j].key) j = (j + 1) & (nc - 1);
                nt[j] = m->tab[i];
            }
        if (m->tab) sy_dealloc(m->ctx, m->tab, m->cap * sizeof *m->tab);
        m->tab = nt;
        m->cap = nc;
    }
    mentry *e = memo_find(m, k, h);
    if (e->key) return true;
    size_t need = k->n * sizeof *k->w;
    if (!need) need = 8;
    if (!m->keys || m->keys->size - m->kused < need) {
        size_t sz = need > KCHUNK ? need : KCHUNK;
        kchunk *c = sy_alloc(m->ctx, sizeof *c + sz);
        if (!c) return false;
        c->next = m->keys;
        c->size = sz;
        m->keys = c;
        m->kused = 0;
    }
    unsigned char *kc = m->keys->data + m->kused;
    m->kused += need;
    SY_COPY(kc, k->w, k->n * sizeof *k->w);
    e->hash = h;
    e->klen = k->n;
    e->key = (uint64_t *)(void *)kc; /* 8-aligned: chunks are malloc'd, keys whole words */
    e->out = *out;
    m->n++;
    return true;
}

static void memo_clear(opmemo *m)
{
    if (m->kb) sy_dealloc(m->ctx, m->kb, sizeof *m->kb);
    if (m->ps) sy_dealloc(m->ctx, m->ps, m->pscap * sizeof *m->ps);
    m->kb = NULL;
    m->ps = NULL;
    m->pscap = m->npsh = 0;
    while (m->keys) {
        kchunk *c = m->keys;
        m->keys = c->next;
        sy_dealloc(m->ctx, c, sizeof *c + c->size);
    }
    m->kused = 0;
    if (m->tab) sy_dealloc(m->ctx, m->tab, m->cap * sizeof *m->tab);
    m->tab = NULL;
    m->cap = m->n = 0;
}

/* what a call may change that makes it unfit for the memo */
typedef struct envmark {
    size_t recorded, nsyms, ninputs, ntins;
    uint64_t facts_version;
    size_t unknown, budget_hits;
    int strides_read;
} envmark;

static void env_mark(sy_env *env, envmark *m)
{
    sy_decide_stats ds;
    sy_facts_get_stats(env->facts, &ds);
    m->recorded = env->recorded;
    m->nsyms = env->nsyms;
    m->ninputs = env->ninputs;
    m->ntins = env->ntins;
    m->facts_version = sy_facts_version(env->facts);
    m->unknown = ds.unknown;
    m->budget_hits = ds.budget_hits;
    m->strides_read = env->strides_read;
}

static bool env_same(const envmark *a, const envmark *b)
{
    return a->recorded == b->recorded && a->nsyms == b->nsyms && a->ninputs == b->ninputs && a->ntins == b->ntins &&
           a->facts_version == b->facts_version && a->unknown == b->unknown && a->budget_hits == b->budget_hits &&
           a->strides_read == b->strides_read;
}

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
        } else if (!order) { /* contiguous: Max(size, 1) products, as every contiguous tensor */
            size_t d = in->ndim - 1 - k;
            stv[d] = sy_tensor_contig_stride(ctx, in->ndim, sizes, d);
            acc = stv[d];
        } else { /* channels_last: plain products (c10 get_channels_last_strides_2d/3d; measured:
                  * empty((2, 0, 4, 5), memory_format=channels_last).stride() is (0, 1, 0, 0)) */
            size_t d = order[k];
            stv[d] = acc;
            acc = sy_expr_mul(ctx, acc, sizes[d]);
        }
        if (!acc || (in->layout == SY_LAYOUT_EXPLICIT && !stv[k])) return sy_ctx_last_error(ctx);
    }
    return SY_OK;
}

static uint64_t pshape_hash(size_t ndim, const int64_t *shape)
{
    uint64_t h = 0x9e3779b97f4a7c15ull * (ndim + 1);
    for (size_t k = 0; k < ndim; k++) {
        h = (h ^ (uint64_t)shape[k]) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

static pshape *pshape_slot(pshape *tab, size_t cap, uint64_t h, size_t ndim, const int64_t *shape)
{
    for (size_t j = (size_t)h & (cap - 1);; j = (j + 1) & (cap - 1)) {
        pshape *e = &tab[j];
        if (!e->t || (e->hash == h && e->ndim == ndim && !memcmp(e->shape, shape, ndim * sizeof *shape))) return e;
    }
}

/* A param's tensor: contiguous with the static shape; with memo, the sizes
 * and strides of an earlier param of the same shape (a new tensor struct) */
static const sy_tensor *param_tensor(sy_env *env, opmemo *memo, sy_dtype dt, size_t ndim, const int64_t *shape)
{
    sy_ctx *ctx = env->ctx;
    uint64_t h = 0, gen = sy_ctx_generation(ctx);
    pshape *e = NULL;
    if (memo) {
        h = pshape_hash(ndim, shape);
        if (memo->pscap) e = pshape_slot(memo->ps, memo->pscap, h, ndim, shape);
        if (e && e->t && e->gen == gen) {
            sy_tensor *t = sy_env_alloc(env, sizeof *t);
            if (!t) return NULL;
            *t = *e->t;
            t->dtype = dt;
            return t;
        }
    }
    const sy_expr *sz[64];
    for (size_t k = 0; k < ndim; k++) sz[k] = sy_expr_int_si(ctx, shape[k]);
    const sy_tensor *t = sy_tensor_new(env, dt, ndim, sz);
    if (!t || !memo) return t;
    if (e && e->t) { /* made in another generation: replace */
        *e = (pshape){h, gen, ndim, shape, t};
        return t;
    }
    if ((memo->npsh + 1) * 2 > memo->pscap) { /* grow; a failed allocation only loses the entry */
        size_t nc = memo->pscap ? memo->pscap * 2 : 64;
        pshape *nt = sy_alloc(ctx, nc * sizeof *nt);
        if (!nt) return t;
        memset(nt, 0, nc * sizeof *nt);
        for (size_t j = 0; j < memo->pscap; j++)
            if (memo->ps[j].t) *pshape_slot(nt, nc, memo->ps[j].hash, memo->ps[j].ndim, memo->ps[j].shape) = memo->ps[j];
        if (memo->ps) sy_dealloc(ctx, memo->ps, memo->pscap * sizeof *memo->ps);
        memo->ps = nt;
        memo->pscap = nc;
    }
    *pshape_slot(memo->ps, memo->pscap, h, ndim, shape) = (pshape){h, gen, ndim, shape, t};
    memo->npsh++;
    return t;
}

/* Run nodes [from, to) of g in env, storing values in vals. */
static sy_status run_nodes(sy_env *env, const sy_graph *g, size_t from, size_t to, sy_value *vals, size_t nov,
                           const sy_trace_override *ov, opmemo *memo, sy_trace_memo_stats *ms)
{
    sy_ctx *ctx = env->ctx;
    size_t in_cursor = 0;
    for (size_t i = from; i < to; i++) {
        const gnode *nd = &g->nodes[i];
        sy_status st = SY_OK;
        if (nd->kind == GN_INPUT || nd->kind == GN_PARAM) {
            sy_dtype dt = nd->dtype;
            size_t nd_ = nd->ndim;
            const int64_t *shape = nd_ ? g->shapes + nd->shape : NULL;
            sy_dim_policy pol[64];
            if (nd_ > 64) return sy_fail_st(ctx, SY_EUNSUPPORTED, "node '%s': more than 64 dims", nd->name);
            if (nd->kind == GN_INPUT) {
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
                const sy_tensor *t = param_tensor(env, memo, dt, nd_, shape);
                if (!t) return sy_ctx_last_error(ctx);
                if (nd->has_values && (st = sy_env_values_set_const(env, t, nd->vlo, nd->vhi, nd->vstep))) return st;
                vals[i] = sy_value_tensor(t);
            }
            continue;
        }
        if (nd->kind == GN_CONSTANT) {
            if ((st = sy_graph_gvalue(env, g, nd->args, vals, &vals[i])))
                return sy_fail_st(ctx, st, "node '%s' (constant): %s", nd->name, sy_ctx_last_error_msg(ctx));
            continue;
        }
        size_t na = nd->na, nk = nd->nk;
        /* the op memo (above): the key, and a reuse when an earlier node had it */
        kbuf *mk = NULL;
        uint64_t kh = 0;
        if (memo && memo->on && nd->memo && (memo->kb || (memo->kb = sy_alloc(ctx, sizeof *memo->kb)))) {
            mk = memo->kb;
            mk->n = 0;
            mk->bad = false;
            uint64_t *hd = kres(mk, 3);
            hd[0] = nd->tid;
            hd[1] = sy_facts_version(env->facts);
            hd[2] = sy_ctx_generation(ctx);
            for (size_t a = 0; a < nd->nref && !mk->bad; a++) kvalue(mk, &vals[g->reflist[nd->refl + a]], 0);
            if (mk->bad) mk = NULL;
            else {
                kh = khash(mk);
                ms->lookups++;
                mentry *e = memo_find(memo, mk, kh);
                if (e && e->key) {
                    ms->hits++;
                    if ((st = reuse(env, &e->out, &vals[i]))) return st;
                    continue;
                }
            }
        }
        sy_value *av = sy_env_alloc(env, (na ? na : 1) * sizeof *av);
        sy_value *kv = sy_env_alloc(env, (nk ? nk : 1) * sizeof *kv);
        if (!av || !kv) return sy_ctx_last_error(ctx);
        const char *const *kn = nk ? g->kwnames + nd->kw : NULL;
        for (size_t k = 0; k < na && !st; k++)
            if (!(st = sy_graph_gvalue(env, g, nd->args + k, vals, &av[k])) && nd->proxy) st = resolve_proxies(env, g, vals, i, &av[k]);
        for (size_t k = 0; k < nk && !st; k++) st = sy_graph_gvalue(env, g, nd->kwv + k, vals, &kv[k]);
        if (st) return sy_fail_st(ctx, st, "node '%s' (%s): %s", nd->name, nd->op, sy_ctx_last_error_msg(ctx));
        envmark before, after;
        if (mk) env_mark(env, &before);
        sy_provenance where = {nd->name, nd->op, NULL};
        sy_env_set_loc(env, &nd->loc);
        sy_op_begin(ctx, false); /* the work budgets of ctx.h hold per graph node */
        st = sy_op_end_st(ctx, sy_env_call(env, nd->op, na, av, nk, kn, kv, &where, &vals[i]));
        sy_env_set_loc(env, NULL);
        if (!st && mk) {
            env_mark(env, &after);
            if (env_same(&before, &after) && storable(&vals[i], 0)) {
                if (memo_put(memo, mk, kh, &vals[i])) ms->stored++;
            } else
                ms->refused++;
        }
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
    env->torch_version = g->torch_version; /* a graph without "torch_version" is the newest (0), whatever came before */
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
    const char *knob = getenv("SY_TRACE_MEMO");
    opmemo memo = {env->ctx, NULL, 0, 0, !(knob && !strcmp(knob, "0")), NULL, NULL, 0, NULL, 0, 0};
    sy_status st = run_nodes(env, g, 0, g->n, t->vals, nov, ov, &memo, &t->memo);
    memo_clear(&memo);
    if (!st) {
        t->nout = g->gv[g->outv].u.list.n;
        t->outs = sy_env_alloc(env, (t->nout ? t->nout : 1) * sizeof *t->outs);
        if (!t->outs) st = sy_ctx_last_error(env->ctx);
        for (size_t i = 0; i < t->nout && !st; i++) st = sy_graph_gvalue(env, g, g->gv[g->outv].u.list.first + i, t->vals, &t->outs[i]);
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
void sy_trace_get_memo_stats(const sy_trace *t, sy_trace_memo_stats *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (t) *out = t->memo;
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
    rv->env->torch_version = g->torch_version;
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
            sy_status st = run_nodes(rv->env, g, i, i + 1, rv->vals, 0, NULL, NULL, NULL);
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

size_t sy_realvals_noutputs(const sy_realvals *rv) { return rv ? rv->g->gv[rv->g->outv].u.list.n : 0; }

sy_status sy_realvals_output(sy_realvals *rv, size_t i, const sy_value **out)
{
    if (!rv) return SY_EINVAL;
    if (!out || i >= sy_realvals_noutputs(rv)) return sy_fail_st(rv->ctx, SY_EINVAL, "output index out of range");
    size_t o = rv->g->gv[rv->g->outv].u.list.first + i;
    if (rv->g->gv[o].kind == GV_REF) return sy_realvals_get(rv, rv->g->gv[o].u.ref, out);
    /* a literal or a list output: compute everything, then convert */
    const sy_value *last;
    sy_status st = rv->g->n ? sy_realvals_get(rv, rv->g->n - 1, &last) : (rv->env ? SY_OK : start_env(rv));
    if (st) return st;
    sy_value *v = sy_env_alloc(rv->env, sizeof *v);
    if (!v) return sy_ctx_last_error(rv->ctx);
    if ((st = sy_graph_gvalue(rv->env, rv->g, o, rv->vals, v))) return st;
    *out = v;
    return SY_OK;
}

void sy_realvals_stats(const sy_realvals *rv, size_t *computed, size_t *hits)
{
    if (computed) *computed = rv ? rv->stat_computed : 0;
    if (hits) *hits = rv ? rv->stat_hits : 0;
}
