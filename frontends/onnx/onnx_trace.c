/* The ONNX graph interpreter: inputs, initializers, the node loop over the op
 * table (onnx_ops.c), scopes for subgraphs, display names, value_info output.
 *
 * Length (about 1,850 lines, over the tree's 1,200): the value_info writer
 * (sy_onnx_write_value_info, the last 480 lines) reads the trace's layout
 * and scopes, which are private to this file; it moves to its own file once
 * that layout is in a private header (issue 34). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <flint/fmpz.h> /* COEFF_MIN, COEFF_MAX: the values an fmpz holds without an mpz */

#include "algebra/internal.h"
#include "frontends/onnx/onnx_private.h"

typedef struct ox_chunk {
    struct ox_chunk *next;
    size_t size, used;
    max_align_t data[];
} ox_chunk;

struct ox_scope {
    ox_scope *parent;
    ox_val **vals;
    size_t n, cap;
    struct ox_slot { uint32_t idx, hash; } *tab; /* open addressing: index + 1 (0 = empty), the name's hash */
    size_t tabcap;
    ox_scope *next_alloc;
    uint32_t *life; /* the main graph's scope only: per value its node and the last node reading it (2 entries,
                       a subgraph's read counted at its node; sy_onnx_trace_value_life), else NULL */
    uint32_t cur;   /* the main graph's node being run (0 before the first) */
};

/* an index of pointers or strings (strings: 1) to array positions (below: "indexes") */
typedef struct {
    struct ox_islot { const void *key; uint64_t hash; size_t idx; } *s;
    size_t n, cap;
    int strings;
} ox_index;

struct sy_onnx_trace {
    sy_env *env;
    sy_ctx *ctx;
    const sy_onnx_model *m;
    ox_chunk *chunks;
    ox_scope *scopes; /* every scope, for freeing */
    ox_scope *top;
    size_t *outputs, nout;
    sy_graph_input *gin;
    const sy_graph_input **ginp;
    size_t ngin;
    /* display names: env symbol -> display symbol */
    const sy_expr **dfrom, **dto;
    size_t ndisp, dispcap;
    ox_index dfrom_ix, dto_ix; /* dfrom[i] -> i, dto[i] -> i (built past OX_INDEX_MIN entries) */
    /* source text -> display symbol */
    const char **srcs;
    const sy_expr **srcsym;
    size_t nsrc, srccap;
    ox_index src_ix;           /* srcs[i] -> i, the first of equal texts (past OX_INDEX_MIN entries) */
    /* the values' tensors by dtype and sizes (open addressing, load at most 3/4; ox_tensor) */
    const sy_tensor **tens;
    size_t ntens, tenscap;
    const char *related; /* sy_onnx_trace_related: the examples a retry chose (onnx_relate.c), or NULL */
    int concrete;        /* sy_onnx_trace_options.concrete: every dim static at a point (ox_trace_concrete) */
};

/* ------------------------------------------------------------------ memory */

/* Bump allocation, zeroed, aligned to @p align (8: the trace holds pointers,
 * int64 and double, nothing wider; 1: strings, packed). */
static void *tr_alloc_a(sy_onnx_trace *t, size_t size, size_t align)
{
    if (!size) size = 1;
    ox_chunk *c = t->chunks;
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || at > c->size || c->size - at < size) {
        /* 512 bytes first, growing by a quarter to 4 KiB: little slack in the last one */
        size_t cs = sy_arena_next(c ? c->size : 0, 512, 4096);
        if (cs < size) cs = size;
        ox_chunk *nc = sy_alloc(t->ctx, sizeof *nc + cs);
        if (!nc) {
            sy_fail_st(t->ctx, SY_ENOMEM, "out of memory");
            return NULL;
        }
        nc->next = c;
        nc->size = cs;
        nc->used = 0;
        t->chunks = c = nc;
        at = 0;
    }
    void *p = (char *)c->data + at;
    c->used = at + size;
    memset(p, 0, size);
    return p;
}

static void *tr_alloc(sy_onnx_trace *t, size_t size) { return tr_alloc_a(t, size, 8); }

void *ox_alloc(ox_call *c, size_t size) { return tr_alloc(c->tr, size); }

static const char *tr_strdup(sy_onnx_trace *t, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = tr_alloc_a(t, n, 1);
    if (d) memcpy(d, s, n);
    return d;
}

/* ------------------------------------------------------------------ scopes */

/* the hash of a value name: 8 bytes at a time (ONNX names are long paths,
 * "/encoder/layers/encoder_layer_3/self_attention/Reshape_2_output_0") */
static uint64_t hstr(const char *s)
{
    size_t n = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

static ox_scope *scope_new(sy_onnx_trace *t, ox_scope *parent)
{
    ox_scope *s = tr_alloc(t, sizeof *s);
    if (!s) return NULL;
    s->parent = parent;
    s->next_alloc = t->scopes;
    t->scopes = s;
    return s;
}

/* the position of value name in s->vals, or SIZE_MAX */
static size_t scope_index1h(const ox_scope *s, const char *name, uint64_t h)
{
    if (!s->tabcap) return SIZE_MAX;
    uint32_t h32 = (uint32_t)(h >> 32);
    for (size_t i = h32 & (s->tabcap - 1);; i = (i + 1) & (s->tabcap - 1)) {
        if (!s->tab[i].idx) return SIZE_MAX;
        if (s->tab[i].hash != h32) continue;
        if (!strcmp(s->vals[s->tab[i].idx - 1]->name, name)) return s->tab[i].idx - 1;
    }
}

static ox_val *scope_find1h(const ox_scope *s, const char *name, uint64_t h)
{
    size_t i = scope_index1h(s, name, h);
    return i == SIZE_MAX ? NULL : s->vals[i];
}

static ox_val *scope_find1(const ox_scope *s, const char *name) { return scope_find1h(s, name, hstr(name)); }

/* the value named name in s or its parents; a value of the main graph's scope is marked read by
 * the node being run there (a subgraph's read: by the node holding the subgraph) */
static ox_val *scope_find(ox_scope *s, const char *name)
{
    uint64_t h = hstr(name);
    for (; s; s = s->parent) {
        size_t i = scope_index1h(s, name, h);
        if (i == SIZE_MAX) continue;
        if (s->life && s->life[2 * i + 1] < s->cur) s->life[2 * i + 1] = s->cur;
        return s->vals[i];
    }
    return NULL;
}

static sy_status scope_add(sy_onnx_trace *t, ox_scope *s, ox_val *v)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        ox_val **nv = sy_realloc(t->ctx, s->vals, s->cap * sizeof *nv, nc * sizeof *nv);
        if (!nv) return sy_fail_st(t->ctx, SY_ENOMEM, "out of memory");
        s->vals = nv;
        if (s == t->top) {
            uint32_t *nl = sy_realloc(t->ctx, s->life, 2 * s->cap * sizeof *nl, 2 * nc * sizeof *nl);
            if (!nl) return sy_fail_st(t->ctx, SY_ENOMEM, "out of memory");
            s->life = nl;
        }
        s->cap = nc;
    }
    if (s->n >= UINT32_MAX - 1) return sy_fail_st(t->ctx, SY_EQUOTA, "more than 2^32 - 2 values in one graph");
    if ((s->n + 1) * 4 > s->tabcap * 3) { /* linear probing, load at most 3/4 */
        size_t nc = s->tabcap ? s->tabcap * 2 : 32;
        while ((s->n + 1) * 4 > nc * 3) nc *= 2;
        struct ox_slot *nt = sy_alloc(t->ctx, nc * sizeof *nt);
        if (!nt) return sy_fail_st(t->ctx, SY_ENOMEM, "out of memory");
        memset(nt, 0, nc * sizeof *nt);
        for (size_t i = 0; i < s->tabcap; i++) { /* rehash with the stored hashes */
            if (!s->tab[i].idx) continue;
            size_t k = s->tab[i].hash & (nc - 1);
            while (nt[k].idx) k = (k + 1) & (nc - 1);
            nt[k] = s->tab[i];
        }
        if (s->tab) sy_dealloc(t->ctx, s->tab, s->tabcap * sizeof *s->tab);
        s->tab = nt;
        s->tabcap = nc;
    }
    uint32_t h32 = (uint32_t)(hstr(v->name) >> 32);
    size_t i = h32 & (s->tabcap - 1);
    while (s->tab[i].idx) {
        if (s->tab[i].hash == h32 && !strcmp(s->vals[s->tab[i].idx - 1]->name, v->name)) {
            s->vals[s->tab[i].idx - 1] = v; /* SSA violation: the later definition wins */
            return SY_OK;
        }
        i = (i + 1) & (s->tabcap - 1);
    }
    if (s->life) s->life[2 * s->n] = s->life[2 * s->n + 1] = s->cur;
    s->vals[s->n] = v;
    s->tab[i].idx = (uint32_t)++s->n;
    s->tab[i].hash = h32;
    return SY_OK;
}

/* ------------------------------------------------------------------ indexes */

/* Open addressing, load at most 3/4, of keys to their index in an array the
 * caller owns (issue 14: the display table, the sources, the inputs, the
 * dim_params and the examples were scanned once per lookup, quadratic in the
 * number of inputs: 1000 inputs of [p_i, 3] cost 775M instructions). The
 * trace's tables are built only past OX_INDEX_MIN entries (a linear scan
 * below: a small graph keeps its peak heap). */
enum { OX_INDEX_MIN = 16 };

static uint64_t hptr(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* the index of key (a pointer, or a string when x->strings), or SIZE_MAX */
static size_t ix_get(const ox_index *x, const void *key)
{
    if (!x->cap) return SIZE_MAX;
    uint64_t h = x->strings ? hstr(key) : hptr(key);
    for (size_t i = (size_t)h & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
        if (!x->s[i].key) return SIZE_MAX;
        if (x->s[i].key == key || (x->strings && x->s[i].hash == h && !strcmp(x->s[i].key, key))) return x->s[i].idx;
    }
}

/* e into the first free slot from its hash (s has one: the load is at most 3/4) */
static void ix_place(struct ox_islot *s, size_t cap, struct ox_islot e)
{
    size_t k = (size_t)e.hash & (cap - 1);
    while (s[k].key) k = (k + 1) & (cap - 1);
    s[k] = e;
}

/* key -> idx (a string key must outlive the index); an existing key keeps its index unless replace
 * (then the last put wins) */
static sy_status ix_put(sy_ctx *ctx, ox_index *x, const void *key, size_t idx, bool replace)
{
    if ((x->n + 1) * 4 > x->cap * 3) {
        size_t nc = x->cap ? x->cap * 2 : 32;
        struct ox_islot *ns = sy_alloc(ctx, nc * sizeof *ns);
        if (!ns) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        memset(ns, 0, nc * sizeof *ns);
        for (size_t i = 0; i < x->cap; i++)
            if (x->s[i].key) ix_place(ns, nc, x->s[i]);
        if (x->s) sy_dealloc(ctx, x->s, x->cap * sizeof *x->s);
        x->s = ns;
        x->cap = nc;
    }
    uint64_t h = x->strings ? hstr(key) : hptr(key);
    size_t i = (size_t)h & (x->cap - 1);
    for (; x->s[i].key; i = (i + 1) & (x->cap - 1))
        if (x->s[i].key == key || (x->strings && x->s[i].hash == h && !strcmp(x->s[i].key, key))) {
            if (replace) x->s[i].idx = idx;
            return SY_OK;
        }
    x->s[i].key = key;
    x->s[i].hash = h;
    x->s[i].idx = idx;
    x->n++;
    return SY_OK;
}

static void ix_free(sy_ctx *ctx, ox_index *x)
{
    if (x->s) sy_dealloc(ctx, x->s, x->cap * sizeof *x->s);
    x->s = NULL;
    x->n = x->cap = 0;
}

/* ------------------------------------------------------------------ tensors of values */

static uint64_t tensor_hash(sy_dtype dt, size_t nd, const sy_expr *const *sz)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)dt << 32) ^ nd;
    for (size_t i = 0; i < nd; i++) {
        h = (h ^ (uint64_t)(uintptr_t)sz[i]) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return h;
}

/* One tensor per distinct (dtype, sizes): a graph's hundreds of values have a
 * few dozen shapes (vit_b_16: 353 values, 35 shapes), and a tensor with its
 * sizes takes 48 to 64 bytes of the env. ONNX tensors have no strides, and
 * expressions are interned, so equal sizes are equal pointers. */
const sy_tensor *ox_tensor(sy_onnx_trace *t, sy_dtype dt, size_t nd, const sy_expr *const *sz)
{
    return ox_tensor_made(t, dt, nd, sz, NULL);
}
const sy_tensor *ox_tensor_made(sy_onnx_trace *t, sy_dtype dt, size_t nd, const sy_expr *const *sz, int *made)
{
    uint64_t h = tensor_hash(dt, nd, sz);
    size_t mask = t->tenscap - 1, i = t->tenscap ? (size_t)h & mask : 0;
    if (made) *made = 0;
    for (; t->tenscap && t->tens[i]; i = (i + 1) & mask) {
        const sy_tensor *e = t->tens[i];
        if (e->dtype == dt && e->ndim == nd && (!nd || !memcmp(e->sizes, sz, nd * sizeof *sz))) return e;
    }
    const sy_tensor *r = sy_tensor_new_strided(t->env, dt, nd, sz, NULL); /* ONNX has no strides */
    if (!r) return NULL;
    if (made) *made = 1;
    if ((t->ntens + 1) * 4 > t->tenscap * 3) { /* grow; out of memory only loses the sharing */
        size_t nc = t->tenscap ? t->tenscap * 2 : 16;
        const sy_tensor **nt = sy_alloc(t->ctx, nc * sizeof *nt);
        if (!nt) return r;
        memset(nt, 0, nc * sizeof *nt);
        for (size_t k = 0; k < t->tenscap; k++) {
            const sy_tensor *e = t->tens[k];
            if (!e) continue;
            size_t j = (size_t)tensor_hash(e->dtype, e->ndim, e->sizes) & (nc - 1);
            while (nt[j]) j = (j + 1) & (nc - 1);
            nt[j] = e;
        }
        if (t->tens) sy_dealloc(t->ctx, t->tens, t->tenscap * sizeof *t->tens);
        t->tens = nt;
        t->tenscap = nc;
        mask = nc - 1;
        for (i = (size_t)h & mask; t->tens[i]; i = (i + 1) & mask) {}
    }
    t->tens[i] = r;
    t->ntens++;
    return r;
}

/* ------------------------------------------------------------------ errors, attributes */

sy_status ox_err(ox_call *c, sy_status st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sy_fail_st(c->ctx, st, "node '%s' (%s): %s", c->nname, c->node->op_type, msg);
}

static const char *attr_type_name(int t)
{
    static const char *n[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS",
                              "TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    return t >= 0 && t <= 14 ? n[t] : "unknown";
}

const Onnx__AttributeProto *ox_attr(ox_call *c, const char *name)
{
    for (size_t i = 0; i < c->node->n_attribute; i++)
        if (c->node->attribute[i]->name && !strcmp(c->node->attribute[i]->name, name)) return c->node->attribute[i];
    return NULL;
}

static sy_status want_type(ox_call *c, const Onnx__AttributeProto *a, int type)
{
    if (a->has_type && (int)a->type == type) return SY_OK;
    return ox_err(c, SY_EINVAL, "attribute '%s' has type %s, expected %s", a->name, a->has_type ? attr_type_name(a->type) : "(none)",
                  attr_type_name(type));
}

sy_status ox_attr_int(ox_call *c, const char *name, int64_t dflt, int64_t *out)
{
    const Onnx__AttributeProto *a = ox_attr(c, name);
    *out = dflt;
    if (!a) return SY_OK;
    sy_status st = want_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    if (!st) *out = a->i;
    return st;
}

sy_status ox_attr_float(ox_call *c, const char *name, double dflt, double *out)
{
    const Onnx__AttributeProto *a = ox_attr(c, name);
    *out = dflt;
    if (!a) return SY_OK;
    sy_status st = want_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    if (!st) *out = a->f;
    return st;
}

sy_status ox_attr_ints(ox_call *c, const char *name, size_t *n, const int64_t **v)
{
    const Onnx__AttributeProto *a = ox_attr(c, name);
    *n = 0;
    *v = NULL;
    if (!a) return SY_OK;
    sy_status st = want_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    if (!st) {
        *n = a->n_ints;
        *v = a->ints;
    }
    return st;
}

sy_status ox_attr_floats(ox_call *c, const char *name, size_t *n, const float *const **unused, const float **v)
{
    (void)unused;
    const Onnx__AttributeProto *a = ox_attr(c, name);
    *n = 0;
    *v = NULL;
    if (!a) return SY_OK;
    sy_status st = want_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    if (!st) {
        *n = a->n_floats;
        *v = a->floats;
    }
    return st;
}

sy_status ox_attr_string(ox_call *c, const char *name, const char *dflt, char *buf, size_t cap)
{
    const Onnx__AttributeProto *a = ox_attr(c, name);
    if (cap) { /* snprintf(buf, cap, "%s", dflt) without its ~600 instructions */
        size_t k = strlen(dflt);
        if (k > cap - 1) k = cap - 1;
        memcpy(buf, dflt, k);
        buf[k] = 0;
    }
    if (!a) return SY_OK;
    sy_status st = want_type(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    if (st) return st;
    /* the value whole or an error: a NUL inside was cut there (so "constant\0x" read as
     * "constant"), a value longer than buf was cut to its start; every value an op takes fits buf
     * and has no NUL, an Einsum equation up to 511 bytes; onnxruntime compares the whole string
     * (issue 38) */
    if (a->s.len && memchr(a->s.data, 0, a->s.len))
        return ox_err(c, SY_EINVAL, "attribute '%s': its string holds a NUL byte at byte %zu (of %zu)", name,
                      (size_t)((const uint8_t *)memchr(a->s.data, 0, a->s.len) - a->s.data), a->s.len);
    if (a->s.len > cap - 1)
        return ox_err(c, SY_EUNSUPPORTED, "attribute '%s': its string of %zu bytes is past the %zu read for it (a limit of symshape)",
                      name, a->s.len, cap - 1);
    if (a->s.len) memcpy(buf, a->s.data, a->s.len); /* an empty string attribute has no data */
    buf[a->s.len] = 0;
    return SY_OK;
}

/* ------------------------------------------------------------------ tensors */

static int64_t rd_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    if (n < 8 && (v >> (8 * n - 1) & 1)) v |= ~0ull << (8 * n); /* sign-extend */
    return (int64_t)v;
}

static double half_to_double(unsigned h, int bf16)
{
    if (bf16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    int s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? m / 1024.0 / 16384.0 : e == 31 ? (m ? 0.0 / 0.0 : 1.0 / 0.0) : (1 + m / 1024.0) * (double)(1 << e) / 32768.0;
    return s ? -v : v;
}

/* a tensor's error: "KIND 'NAME': ..." (NAME NULL: "KIND: ...") */
static sy_status tv_fail(sy_ctx *ctx, sy_status st, const char *kind, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static sy_status tv_fail(sy_ctx *ctx, sy_status st, const char *kind, const char *name, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (name) return sy_fail_st(ctx, st, "%s '%.256s': %s", kind, name, msg);
    return sy_fail_st(ctx, st, "%s: %s", kind, msg);
}

sy_status ox_tensor_val(sy_onnx_trace *t, const Onnx__TensorProto *tp, const char *kind, const char *name, ox_val *out)
{
    sy_ctx *ctx = t->ctx;
    int elem = tp->has_data_type ? tp->data_type : OX_UNDEF;
    if (elem == OX_STRING || elem == OX_UNDEF || elem > 16)
        return tv_fail(ctx, SY_EUNSUPPORTED, kind, name, "tensor of element type %s is not supported", ox_elem_name(elem));
    const sy_expr *szs[16], **sz = tp->n_dims <= 16 ? szs : tr_alloc(t, tp->n_dims * sizeof *sz); /* copied by ox_tensor */
    if (!sz) return SY_ENOMEM;
    uint64_t numel = 1;
    int big = 0;
    for (size_t i = 0; i < tp->n_dims; i++) {
        if (tp->dims[i] < 0) return tv_fail(ctx, SY_EFORMAT, kind, name, "negative dim %lld", (long long)tp->dims[i]);
        sz[i] = sy_expr_int_si(ctx, tp->dims[i]);
        if (tp->dims[i] && numel > (uint64_t)1 << 62 / (uint64_t)tp->dims[i]) big = 1;
        else numel *= (uint64_t)tp->dims[i];
    }
    out->elem = elem;
    out->t = ox_tensor(t, ox_dtype(elem), tp->n_dims, sz);
    if (!out->t) return sy_ctx_last_error(ctx);
    if (big || numel > SY_ONNX_MAX_VALUES) return SY_OK;
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) return SY_OK;
    size_t n = (size_t)numel, es = ox_elem_size(elem);
    int isf = ox_is_float(elem) || elem == OX_COMPLEX64 || elem == OX_COMPLEX128;
    if (elem == OX_COMPLEX64 || elem == OX_COMPLEX128) return SY_OK;
    /* a typed data field that holds values, but not one per element: onnxruntime refuses the model
     * ("data field count (2) does not match expected count from shape (3)"); it was read as values
     * unknown, and every size accepted (attack38e). An absent field (0 values) is a dropped payload. */
    if (!tp->has_raw_data) {
        size_t cnt = elem == OX_FLOAT ? tp->n_float_data : elem == OX_DOUBLE ? tp->n_double_data
                   : elem == OX_INT64 ? tp->n_int64_data : (elem == OX_UINT64 || elem == OX_UINT32) ? tp->n_uint64_data
                   : tp->n_int32_data;
        if (cnt && cnt != n)
            return tv_fail(ctx, SY_EFORMAT, kind, name, "its data field holds %zu values, expected %zu (the elements of its shape)",
                           cnt, n);
    }
    int64_t kv[SY_ONNX_MAX_VALUES]; /* n <= SY_ONNX_MAX_VALUES here */
    double *fv = isf ? tr_alloc(t, (n ? n : 1) * sizeof *fv) : NULL;
    if (isf && !fv) return SY_ENOMEM;
    int wide = 0; /* a value FLINT holds as a bignum */
    size_t have = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t x = 0;
        double f = 0;
        if (tp->has_raw_data) {
            if (tp->raw_data.len != n * es)
                return tv_fail(ctx, SY_EFORMAT, kind, name, "raw_data has %zu bytes, expected %zu (%zu elements of %s)",
                                  tp->raw_data.len, n * es, n, ox_elem_name(elem));
            const unsigned char *p = tp->raw_data.data + i * es;
            if (elem == OX_FLOAT) {
                float fl;
                memcpy(&fl, p, 4);
                f = fl;
            } else if (elem == OX_DOUBLE) {
                memcpy(&f, p, 8);
            } else if (elem == OX_FLOAT16 || elem == OX_BFLOAT16) {
                f = half_to_double((unsigned)rd_le(p, 2) & 0xffff, elem == OX_BFLOAT16);
            } else if (elem == OX_UINT8 || elem == OX_UINT16 || elem == OX_UINT32 || elem == OX_BOOL) {
                uint64_t u = 0;
                for (size_t k = 0; k < es; k++) u |= (uint64_t)p[k] << (8 * k);
                x = (int64_t)u;
            } else {
                x = rd_le(p, es);
            }
        } else if (elem == OX_FLOAT && tp->n_float_data == n) {
            f = tp->float_data[i];
        } else if (elem == OX_DOUBLE && tp->n_double_data == n) {
            f = tp->double_data[i];
        } else if (elem == OX_INT64 && tp->n_int64_data == n) {
            x = tp->int64_data[i];
        } else if ((elem == OX_UINT64 || elem == OX_UINT32) && tp->n_uint64_data == n) {
            x = (int64_t)tp->uint64_data[i];
        } else if (tp->n_int32_data == n && (elem == OX_FLOAT16 || elem == OX_BFLOAT16)) {
            f = half_to_double((unsigned)tp->int32_data[i] & 0xffff, elem == OX_BFLOAT16);
        } else if (tp->n_int32_data == n && !isf) {
            x = tp->int32_data[i];
        } else {
            break; /* no data (dropped payload or none): values unknown */
        }
        if (isf) fv[i] = f;
        else kv[i] = elem == OX_BOOL ? (x != 0) : x;
        if (!isf && (kv[i] > COEFF_MAX || kv[i] < COEFF_MIN)) wide = 1;
        have++;
    }
    if (have != n) return SY_OK;
    out->nv = n;
    out->fv = fv;
    if (wide) { /* kept as int64 until a rule needs expressions (Slice reads them as int64) */
        int64_t *k = tr_alloc(t, n * sizeof *k);
        if (!k) return SY_ENOMEM;
        memcpy(k, kv, n * sizeof *k);
        ox_set_kv(out, k);
        return SY_OK;
    }
    if (isf) return SY_OK;
    const sy_expr **iv = tr_alloc(t, (n ? n : 1) * sizeof *iv);
    if (!iv) return SY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        iv[i] = elem == OX_BOOL ? sy_expr_bool(ctx, kv[i] != 0) : sy_expr_int_si(ctx, kv[i]);
        if (!iv[i]) return sy_ctx_last_error(ctx);
    }
    out->iv = iv;
    return SY_OK;
}

sy_status ox_materialize(sy_onnx_trace *t, ox_val *v)
{
    const int64_t *kv = v ? ox_kv(v) : NULL;
    if (!v || v->iv || !kv) return SY_OK;
    const sy_expr **iv = tr_alloc(t, (v->nv ? v->nv : 1) * sizeof *iv);
    if (!iv) return SY_ENOMEM;
    for (size_t i = 0; i < v->nv; i++)
        if (!(iv[i] = sy_expr_int_si(t->ctx, kv[i]))) return sy_ctx_last_error(t->ctx);
    v->iv = iv;
    ox_set_kv(v, NULL);
    return SY_OK;
}

/* ------------------------------------------------------------------ graphs */

/* one node: its inputs from the scope, its rule, its outputs into the scope
 * (names copied: a main-graph node lives only until the next one is read) */
static sy_status run_node(sy_onnx_trace *t, ox_scope *s, const Onnx__NodeProto *nd, size_t i)
{
    sy_ctx *ctx = t->ctx;
    char idx[32] = "";
    if (!nd->name || !*nd->name) snprintf(idx, sizeof idx, "#%zu", i);
    ox_call c;
    memset(&c, 0, sizeof c);
    c.tr = t;
    c.env = t->env;
    c.ctx = ctx;
    c.scope = s;
    c.node = nd;
    c.nname = nd->name && *nd->name ? nd->name : idx;
    c.opset = t->m->opset;
    c.why.node = c.nname;
    c.why.op = nd->op_type ? nd->op_type : "?";
    if (!nd->op_type || !*nd->op_type) return sy_fail_st(ctx, SY_EFORMAT, "node '%s': no op_type", c.nname);
    if (nd->domain && *nd->domain && strcmp(nd->domain, "ai.onnx"))
        return ox_err(&c, SY_EUNSUPPORTED, "op of domain '%s' is not supported (only the default ONNX domain is)", nd->domain);
    const ox_op *op = ox_find_op(nd->op_type);
    if (!op) return ox_err(&c, SY_EUNSUPPORTED, "unknown op '%s' (not in symshape's ONNX op table, docs/onnx.md)", nd->op_type);
    if ((int)nd->n_input < op->min_in || (op->max_in >= 0 && (int)nd->n_input > op->max_in)) {
        if (op->max_in < 0) return ox_err(&c, SY_EINVAL, "expects at least %d inputs, got %zu", op->min_in, nd->n_input);
        return ox_err(&c, SY_EINVAL, "expects %d to %d inputs, got %zu", op->min_in, op->max_in, nd->n_input);
    }
    ox_val *inl[8], outl[4];
    if (s == t->top) s->cur = i > UINT32_MAX ? UINT32_MAX : (uint32_t)i;
    c.nin = nd->n_input;
    c.nout = nd->n_output;
    /* small nodes use the stack (tr_alloc zeroes what it returns) */
    memset(inl, 0, sizeof inl);
    memset(outl, 0, sizeof outl);
    c.in = c.nin <= 8 ? inl : tr_alloc(t, c.nin * sizeof *c.in);
    c.out = c.nout <= 4 ? outl : tr_alloc(t, c.nout * sizeof *c.out);
    if (!c.in || !c.out) return SY_ENOMEM;
    for (size_t k = 0; k < c.nin; k++) {
        if (!nd->input[k] || !*nd->input[k]) continue;
        c.in[k] = scope_find(s, nd->input[k]);
        if (!c.in[k])
            return ox_err(&c, SY_EINVAL, "input %zu '%s' is not defined (no graph input, initializer or earlier node output has that name)",
                          k, nd->input[k]);
    }
    for (int k = 0; k < op->min_in; k++)
        if (!c.in[k]) return ox_err(&c, SY_EINVAL, "required input %d is missing (empty name)", k);
    /* Concat, Einsum, Max, Mean, Min, Sum: their variadic input is not optional (Operators.md
     * gives it no "(optional)"), so an empty name there is an error too; Loop and Scan
     * (min_in 0) have optional leading inputs. fuzz_onnx found Einsum reading a NULL tensor. */
    if (op->max_in < 0 && op->min_in > 0)
        for (size_t k = (size_t)op->min_in; k < c.nin; k++)
            if (!c.in[k]) return ox_err(&c, SY_EINVAL, "input %zu of the variadic input list is missing (empty name)", k);
    sy_status tst = ox_check_types(&c);
    if (tst) return tst;
    for (size_t k = 0; k < c.nin; k++)
        if (c.in[k] && ox_kv(c.in[k]) && !(k < 32 && op->raw >> k & 1u)) {
            sy_status st = ox_materialize(t, c.in[k]);
            if (st) return st;
        }
    sy_status st = op->rule(&c);
    if (!st) st = ox_keep_bounds(&c);
    if (st) {
        const char *msg = sy_ctx_last_error_msg(ctx);
        if (strncmp(msg, "node '", 6)) return ox_err(&c, st, "%s", msg);
        return st;
    }
    for (size_t k = 0; k < c.nout; k++) {
        if (!nd->output[k] || !*nd->output[k]) continue;
        if (!c.out[k].t) return ox_err(&c, SY_EUNSUPPORTED, "output %zu is not supported by the shape rule", k);
        /* SSA (onnx/docs/IR.md "Names Within a Graph"): one definition per name; a second one
         * used to replace the first silently (issue 38) */
        const ox_val *prev = scope_find1(s, nd->output[k]);
        if (prev)
            return ox_err(&c, SY_EINVAL, "output %zu '%s' is already defined, as %s: a value has one definition (SSA)", k,
                          nd->output[k],
                          prev->role == 1   ? "a graph input"
                          : prev->role == 2 ? "an initializer"
                                            : "the output of an earlier node (or of this one)");
        ox_val *v = tr_alloc(t, sizeof *v);
        if (!v) return SY_ENOMEM;
        *v = c.out[k];
        if (!(v->name = tr_strdup(t, nd->output[k]))) return SY_ENOMEM;
        if ((st = scope_add(t, s, v))) return st;
    }
    return SY_OK;
}

/* the initializers and nodes of g; the main graph's nodes are read one at a time */
static sy_status run_nodes(sy_onnx_trace *t, ox_scope *s, const Onnx__GraphProto *g)
{
    sy_ctx *ctx = t->ctx;
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        if (!tp->name || !*tp->name) return sy_fail_st(ctx, SY_EFORMAT, "initializer %zu has no name", i);
        ox_val *v = tr_alloc(t, sizeof *v);
        if (!v) return SY_ENOMEM;
        v->name = tp->name;
        v->role = s == t->top ? 2 : 0;
        sy_status st = ox_tensor_val(t, tp, "initializer", tp->name, v);
        if (st) return st;
        if ((st = scope_add(t, s, v))) return st;
    }
    if (g != t->m->graph) {
        for (size_t i = 0; i < g->n_node; i++) {
            sy_status st = run_node(t, s, g->node[i], i);
            if (st) return st;
        }
        return SY_OK;
    }
    ox_nodes *r = NULL;
    sy_status st = ox_nodes_open(t->m, &r);
    for (size_t i = 0; !st && i < t->m->ninits; i++) { /* the main graph's initializers, one at a time */
        const Onnx__TensorProto *tp = NULL;
        ox_val *v = NULL;
        if (!(st = ox_init_get(r, i, &tp)) && !(v = tr_alloc(t, sizeof *v))) st = SY_ENOMEM;
        if (st) break;
        v->name = t->m->init_names[i]; /* the model's: it outlives the trace */
        v->role = 2;
        if (!(st = ox_tensor_val(t, tp, "initializer", v->name, v))) st = scope_add(t, s, v);
    }
    for (size_t i = 0; !st && i < t->m->nnodes; i++) {
        const Onnx__NodeProto *nd = NULL;
        if (!(st = ox_node_get(r, i, &nd))) st = run_node(t, s, nd, i);
    }
    ox_nodes_close(r);
    return st;
}

sy_status ox_run_graph(sy_onnx_trace *t, ox_scope *parent, const Onnx__GraphProto *g, size_t nbind,
                       const char *const *bind_names, ox_val *const *bind_vals, ox_val ***outs, ox_scope **scope_out)
{
    ox_scope *s = scope_new(t, parent);
    if (!s) return SY_ENOMEM;
    sy_status st;
    for (size_t i = 0; i < nbind; i++) {
        ox_val *v = tr_alloc(t, sizeof *v);
        if (!v) return SY_ENOMEM;
        *v = *bind_vals[i];
        v->name = bind_names[i];
        if ((st = scope_add(t, s, v))) return st;
    }
    if ((st = run_nodes(t, s, g))) return st;
    ox_val **o = tr_alloc(t, (g->n_output ? g->n_output : 1) * sizeof *o);
    if (!o) return SY_ENOMEM;
    for (size_t i = 0; i < g->n_output; i++) {
        const char *nm = g->output[i]->name ? g->output[i]->name : "";
        o[i] = scope_find(s, nm);
        if (!o[i]) return sy_fail_st(t->ctx, SY_EINVAL, "graph '%s': output '%s' is not defined", g->name ? g->name : "?", nm);
    }
    *outs = o;
    if (scope_out) *scope_out = s;
    return SY_OK;
}

/* ------------------------------------------------------------------ display names */

/* the index of env symbol from in dfrom, or SIZE_MAX */
static size_t disp_find(const sy_onnx_trace *t, const sy_expr *from)
{
    if (t->dfrom_ix.cap) return ix_get(&t->dfrom_ix, from);
    for (size_t i = 0; i < t->ndisp; i++)
        if (t->dfrom[i] == from) return i;
    return SIZE_MAX;
}

/* a display symbol already has this name: names are interned, so the symbol
 * of that name is one of dto (a reserved name has no symbol: not taken) */
static int disp_taken(const sy_onnx_trace *t, const char *nm, const sy_expr **sym)
{
    *sym = sy_expr_sym(t->ctx, nm);
    if (!*sym) return 0;
    if (t->dto_ix.cap) return ix_get(&t->dto_ix, *sym) != SIZE_MAX;
    for (size_t i = 0; i < t->ndisp; i++)
        if (t->dto[i] == *sym) return 1;
    return 0;
}

static sy_status add_display(sy_onnx_trace *t, const sy_expr *from, const char *want, const char *fallback)
{
    if (disp_find(t, from) != SIZE_MAX) return SY_OK;
    char buf[160];
    const char *cands[2] = {want, fallback};
    const sy_expr *to = NULL;
    for (int k = 0; k < 2 && !to; k++) {
        if (!cands[k]) continue;
        size_t j = 0;
        for (const char *p = cands[k]; *p && j < 120; p++) {
            char ch = *p;
            int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (j && ch >= '0' && ch <= '9');
            if (!j && ch >= '0' && ch <= '9') buf[j++] = '_';
            buf[j++] = ok || (ch >= '0' && ch <= '9') ? ch : '_';
        }
        buf[j] = 0;
        if (!j) continue;
        for (int suffix = 1; suffix < 100 && !to; suffix++) {
            char nm[180];
            if (suffix == 1) memcpy(nm, buf, j + 1); /* j <= 121 < sizeof nm */
            else snprintf(nm, sizeof nm, "%s_%d", buf, suffix);
            const sy_expr *sym;
            if (disp_taken(t, nm, &sym)) continue;
            if (!sym) {
                sy_ctx_reset_error(t->ctx); /* reserved name: try the next candidate */
                break;
            }
            to = sym;
        }
    }
    if (!to) to = from;
    else if (sy_env_symbol_of(t->env, from) && sy_env_symbol_set_display(t->env, from, to)) /* run's report shows it */
        return sy_ctx_last_error(t->ctx);
    if (t->ndisp == t->dispcap) {
        size_t nc = t->dispcap ? t->dispcap * 2 : 16;
        const sy_expr **a = sy_realloc(t->ctx, t->dfrom, t->dispcap * sizeof *a, nc * sizeof *a);
        if (!a) return SY_ENOMEM;
        t->dfrom = a;
        const sy_expr **b = sy_realloc(t->ctx, t->dto, t->dispcap * sizeof *b, nc * sizeof *b);
        if (!b) return SY_ENOMEM;
        t->dto = b;
        t->dispcap = nc;
    }
    t->dfrom[t->ndisp] = from;
    t->dto[t->ndisp++] = to;
    sy_status st = SY_OK;
    if (t->ndisp > OX_INDEX_MIN) /* past the first entries: index them all, then each new one */
        for (size_t i = t->dfrom_ix.cap ? t->ndisp - 1 : 0; i < t->ndisp && !st; i++)
            if (!(st = ix_put(t->ctx, &t->dfrom_ix, t->dfrom[i], i, false))) st = ix_put(t->ctx, &t->dto_ix, t->dto[i], i, false);
    return st;
}

static sy_status add_srcsym(sy_onnx_trace *t, const char *src, const sy_expr *e)
{
    if (t->nsrc == t->srccap) {
        size_t nc = t->srccap ? t->srccap * 2 : 16;
        const char **a = sy_realloc(t->ctx, t->srcs, t->srccap * sizeof *a, nc * sizeof *a);
        if (!a) return SY_ENOMEM;
        t->srcs = a;
        const sy_expr **b = sy_realloc(t->ctx, t->srcsym, t->srccap * sizeof *b, nc * sizeof *b);
        if (!b) return SY_ENOMEM;
        t->srcsym = b;
        t->srccap = nc;
    }
    t->srcs[t->nsrc] = tr_strdup(t, src);
    if (!t->srcs[t->nsrc]) return SY_ENOMEM;
    t->srcsym[t->nsrc++] = e;
    sy_status st = SY_OK;
    if (t->nsrc > OX_INDEX_MIN) /* the first of equal texts keeps its place, as the scan found it first */
        for (size_t i = t->src_ix.cap ? t->nsrc - 1 : 0; i < t->nsrc && !st; i++) st = ix_put(t->ctx, &t->src_ix, t->srcs[i], i, false);
    return st;
}

/* the index of source text in srcs (the first of equal texts), or SIZE_MAX */
static size_t src_find(const sy_onnx_trace *t, const char *source)
{
    if (t->src_ix.cap) return ix_get(&t->src_ix, source);
    for (size_t i = 0; i < t->nsrc; i++)
        if (!strcmp(t->srcs[i], source)) return i;
    return SIZE_MAX;
}

/* The substitution of every display pair (one sy_expr_subs over the whole
 * table), done over only the pairs whose env symbol occurs in e: the others
 * replace nothing, and the table has one pair per input dim (issue 14). An
 * integer has no symbol; a symbol is one lookup. */
const sy_expr *sy_onnx_trace_display(sy_onnx_trace *t, const sy_expr *e)
{
    if (!t || !e) return NULL;
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k == SY_EXPR_INT || k == SY_EXPR_TRUE || k == SY_EXPR_FALSE) return e;
    if (k == SY_EXPR_SYM) {
        size_t i = disp_find(t, e);
        return i == SIZE_MAX ? e : t->dto[i];
    }
    const sy_expr **fs = NULL, *fromb[8], *tob[8];
    size_t nfs = 0;
    if (sy_expr_free_symbols(t->ctx, e, &fs, &nfs) != SY_OK) return NULL;
    const sy_expr **from = nfs <= 8 ? fromb : sy_alloc(t->ctx, nfs * sizeof *from);
    const sy_expr **to = nfs <= 8 ? tob : sy_alloc(t->ctx, nfs * sizeof *to);
    const sy_expr *r = NULL;
    if (from && to) {
        size_t n = 0;
        for (size_t i = 0; i < nfs; i++) { /* one pair per symbol, substituted at once: their order does not matter */
            size_t d = disp_find(t, fs[i]);
            if (d == SIZE_MAX) continue;
            from[n] = t->dfrom[d];
            to[n++] = t->dto[d];
        }
        r = sy_expr_subs(t->ctx, e, n, from, to);
    } else {
        sy_fail(t->ctx, SY_ENOMEM, "out of memory");
    }
    if (from && from != fromb) sy_dealloc(t->ctx, from, nfs * sizeof *from);
    if (to && to != tob) sy_dealloc(t->ctx, to, nfs * sizeof *to);
    sy_mem_free(t->ctx, fs);
    return r;
}

const sy_expr *sy_onnx_trace_source_symbol(const sy_onnx_trace *t, const char *source)
{
    if (!t || !source) return NULL;
    size_t i = src_find(t, source);
    return i == SIZE_MAX ? NULL : t->srcsym[i];
}

/* ------------------------------------------------------------------ trace */

/* the names of setup_inputs, indexed past OX_INDEX_MIN of them (a linear scan below) */
typedef struct {
    ox_index in, ex, ov; /* the model's inputs (the first of a name), --examples and overrides (the last of a name) */
} ox_names;

static sy_status names_index(sy_ctx *ctx, ox_names *x, const sy_onnx_model *m, const sy_onnx_trace_options *o)
{
    sy_status st = SY_OK;
    x->in.strings = x->ex.strings = x->ov.strings = 1;
    for (size_t i = 0; m->ninputs > OX_INDEX_MIN && i < m->ninputs && !st; i++) st = ix_put(ctx, &x->in, m->inputs[i].name, i, false);
    for (size_t i = 0; o->nexamples > OX_INDEX_MIN && i < o->nexamples && !st; i++)
        st = ix_put(ctx, &x->ex, o->examples[i].input, i, true);
    for (size_t i = 0; o->nov > OX_INDEX_MIN && i < o->nov && !st; i++)
        if (o->ov[i].input) st = ix_put(ctx, &x->ov, o->ov[i].input, i, true);
    return st;
}

static void names_free(sy_ctx *ctx, ox_names *x)
{
    ix_free(ctx, &x->in);
    ix_free(ctx, &x->ex);
    ix_free(ctx, &x->ov);
}

static const char *ov_name(const sy_onnx_trace_options *o, size_t i) { return o->ov[i].input; }
static const char *ex_name(const sy_onnx_trace_options *o, size_t i) { return o->examples[i].input; }

/* the position of the last of the n names of o (name_at; NULL: none) equal to name, by the index x when
 * it is built; SIZE_MAX when none is */
static size_t last_named(const ox_index *x, const sy_onnx_trace_options *o, size_t n,
                         const char *(*name_at)(const sy_onnx_trace_options *, size_t), const char *name)
{
    if (x->cap) return ix_get(x, name);
    size_t r = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (name_at(o, i) && !strcmp(name_at(o, i), name)) r = i;
    return r;
}

/* the last override of input name, or NULL */
static const sy_trace_override *find_ov(const ox_names *x, const sy_onnx_trace_options *o, const char *name)
{
    size_t i = last_named(&x->ov, o, o->nov, ov_name, name);
    return i == SIZE_MAX ? NULL : &o->ov[i];
}

/* the last --example of input name, or NULL */
static const sy_onnx_example *find_ex(const ox_names *x, const sy_onnx_trace_options *o, const char *name)
{
    size_t i = last_named(&x->ex, o, o->nexamples, ex_name, name);
    return i == SIZE_MAX ? NULL : &o->examples[i];
}

/* The dynamic-dim spec of an override (sy_input_spec), and the dim_params
 * (docs/onnx.md "Inputs"): a dim_param is one symbol for every dim that
 * carries it. A declared spec entry (a name or a bound) on a dim with
 * dim_param P declares P: every dynamic dim with P gets that Dim (merge);
 * an unnamed entry on such a dim takes the name of P's Dim (the first
 * declared entry on a dim with P, named P itself when that entry has no
 * name). Two dims with P that end up with different symbols (different Dim
 * names, or one of them static) keep ONNX's declaration as a guard
 * (sy_env_assume), so the guard set checks it and the spec check reports it. */
typedef struct {
    const char *param;
    const sy_dim_spec *spec; /* the effective (named) spec of P, or NULL */
    const sy_expr *e;        /* the expression of P's first dynamic dim, or NULL */
    const char *in;          /* ... and where it was created */
    size_t dim;
    int64_t ex;              /* P's --example size (from any input with P), or -1 when none gives one */
    const char *ex_in;       /* ... the input and dim it was given for */
    size_t ex_dim;
} ox_pbind;

typedef struct {
    ox_pbind *b;
    size_t n, cap;
    ox_index ix; /* param -> index in b, past OX_INDEX_MIN params */
} ox_ptab;

static ox_pbind *ptab_find(ox_ptab *p, const char *param)
{
    if (p->ix.cap) {
        size_t i = ix_get(&p->ix, param);
        return i == SIZE_MAX ? NULL : &p->b[i];
    }
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->b[i].param, param)) return &p->b[i];
    return NULL;
}

static ox_pbind *ptab_add(sy_onnx_trace *t, ox_ptab *p, const char *param)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 16;
        ox_pbind *nb = tr_alloc(t, nc * sizeof *nb);
        if (!nb) return NULL;
        if (p->n) memcpy(nb, p->b, p->n * sizeof *nb);
        p->b = nb;
        p->cap = nc;
    }
    ox_pbind *b = &p->b[p->n++];
    memset(b, 0, sizeof *b);
    b->param = param;
    b->ex = -1;
    if (p->n > OX_INDEX_MIN) /* a new param is not in the table yet (ptab_find first) */
        for (size_t i = p->ix.cap ? p->n - 1 : 0; i < p->n; i++)
            if (ix_put(t->ctx, &p->ix, p->b[i].param, i, false)) return NULL;
    return b;
}

/* the spec entry of dim d, or NULL */
static const sy_dim_spec *spec_entry(const sy_trace_override *ov, size_t d)
{
    if (!ov || !ov->spec || ov->make_static) return NULL;
    for (size_t k = 0; k < ov->spec->ndims; k++)
        if (ov->spec->dims[k].dim == d) return &ov->spec->dims[k];
    return NULL;
}

static const sy_onnx_input *input_named(const ox_names *x, const sy_onnx_model *m, const char *name)
{
    if (x->in.cap) {
        size_t i = ix_get(&x->in, name);
        return i == SIZE_MAX ? NULL : &m->inputs[i];
    }
    for (size_t k = 0; k < m->ninputs; k++)
        if (!strcmp(m->inputs[k].name, name)) return &m->inputs[k];
    return NULL;
}

/* the hint of a dim expression (a constant or a backed symbol) */
static int64_t dim_hint(sy_env *env, const sy_expr *e)
{
    int64_t h = -1;
    const sy_symbol_info *si = sy_env_symbol_of(env, e);
    if (si) return si->hint;
    if (sy_expr_get_si(e, &h) != SY_OK) h = -1;
    return h;
}

/* ONNX declares dims with one dim_param equal: keep it as a guard when they
 * got different expressions */
static sy_status declare_equal(sy_onnx_trace *t, const ox_pbind *b, const sy_expr *e, const char *in, size_t d,
                               int64_t example)
{
    sy_ctx *ctx = t->ctx;
    if (e == b->e) return SY_OK;
    int64_t h = dim_hint(t->env, b->e);
    if (h != example)
        return sy_fail_st(ctx, SY_EINVAL, "input '%s' dim %zu shares dim_param '%s' with input '%s' dim %zu, but their examples differ (%lld, %lld)",
                          in, d, b->param, b->in, b->dim, (long long)example, (long long)h);
    char reason[600];
    snprintf(reason, sizeof reason, "ONNX declares dims with one dim_param equal: input '%.200s' dim %zu and input '%.200s' dim %zu share '%.100s'",
             b->in, b->dim, in, d, b->param);
    sy_provenance why = {in, "dim_param", reason};
    return sy_env_assume(t->env, sy_expr_eq(ctx, e, b->e), &why);
}

/* out = name mid d tail, truncated to cap - 1 bytes as snprintf(out, cap, "%s%s%zu%s", ...) does (cap > 0):
 * snprintf cost ~850 instructions a call, four calls per input dim */
static void name_dim(char *out, size_t cap, const char *name, const char *mid, size_t d, const char *tail)
{
    char num[24];
    size_t k = sizeof num, n = 0;
    do {
        num[--k] = (char)('0' + d % 10);
        d /= 10;
    } while (d);
    const char *part[4] = {name, mid, num + k, tail};
    size_t len[4] = {strlen(name), strlen(mid), sizeof num - k, strlen(tail)};
    for (int i = 0; i < 4 && n < cap - 1; i++) {
        size_t c = len[i] < cap - 1 - n ? len[i] : cap - 1 - n;
        memcpy(out + n, part[i], c);
        n += c;
    }
    out[n] = 0;
}

/* The env refused the default example SY_ONNX_DEFAULT_EXAMPLE of input dim d (no dim_value, no --example):
 * it is outside the declared range of spec. Its message, and how to give an example inside the range:
 * an --example of the input with the dim_values, every dim_param's example, the default clamped into
 * this dim's range for dim d and the default for the other dims. */
static sy_status default_outside(sy_onnx_trace *t, const sy_onnx_input *in, ox_ptab *pt, size_t d, const sy_dim_spec *spec)
{
    char msg[512], sug[400];
    snprintf(msg, sizeof msg, "%s", sy_ctx_last_error_msg(t->ctx));
    size_t n = (size_t)snprintf(sug, sizeof sug, "--example %.200s=", in->name);
    for (size_t k = 0; k < in->ndim && n < sizeof sug; k++) {
        const ox_pbind *b = in->params[k] ? ptab_find(pt, in->params[k]) : NULL;
        int64_t x = in->dims[k] >= 0 ? in->dims[k] : b && b->ex >= 0 ? b->ex : SY_ONNX_DEFAULT_EXAMPLE;
        if (k == d && spec->max != SY_DIM_SPEC_UNSET && x > spec->max) x = spec->max;
        if (k == d && spec->min != SY_DIM_SPEC_UNSET && x < spec->min) x = spec->min;
        n += (size_t)snprintf(sug + n, sizeof sug - n, "%s%lld", k ? "," : "", (long long)x);
    }
    return sy_fail_st(t->ctx, SY_EINVAL,
                      "%s; %d is the default example of a dim without dim_value: give an example inside the range, e.g. %s",
                      msg, SY_ONNX_DEFAULT_EXAMPLE, sug);
}

/* The default example of input in's dims that nothing else gives a size: SY_ONNX_DEFAULT_EXAMPLE,
 * or the largest size below it at which the input's numel (its dim_values, the examples its
 * dim_params have, the default for the rest) fits int64, which torch and onnxruntime require of
 * every tensor (c10 safe_compute_numel, onnxruntime TensorShape::Size): [n, 2^62] traced at
 * n = 224 traced a tensor that cannot exist (issue 38). When its given sizes alone are past
 * int64 (only a dim of size 0 makes it exist), the default stays. */
static sy_status default_that_fits(sy_onnx_trace *t, const sy_onnx_input *in, ox_ptab *pt, int64_t *out)
{
    uint64_t p = 1;
    size_t m = 0; /* dims at the default */
    int zero = 0;
    for (size_t k = 0; k < in->ndim; k++) {
        const ox_pbind *b = in->params[k] ? ptab_find(pt, in->params[k]) : NULL;
        int64_t x = in->dims[k] >= 0 ? in->dims[k] : b && b->ex >= 0 ? b->ex : -1;
        if (x < 0) m++;
        else if (x == 0) zero = 1;
        else if (p && (__builtin_mul_overflow(p, (uint64_t)x, &p) || p > (uint64_t)INT64_MAX)) p = 0; /* 0: past int64 */
    }
    *out = SY_ONNX_DEFAULT_EXAMPLE;
    if (zero) return SY_OK;
    if (!p) return SY_OK; /* only a size 0 makes it exist: the default stays (the ops' int64 checks speak) */
    for (int64_t dv = SY_ONNX_DEFAULT_EXAMPLE; m && dv >= 1; dv--) {
        uint64_t q = p;
        int over = 0;
        for (size_t j = 0; j < m && !over; j++) over = __builtin_mul_overflow(q, (uint64_t)dv, &q) || q > (uint64_t)INT64_MAX;
        if (!over) {
            *out = dv;
            return SY_OK;
        }
    }
    return SY_OK; /* m == 0 */
}

static sy_status setup_inputs1(sy_onnx_trace *t, const sy_onnx_trace_options *o, const ox_names *nx, ox_ptab *ptp)
{
    sy_ctx *ctx = t->ctx;
    const sy_onnx_model *m = t->m;
    for (size_t i = 0; i < o->nexamples; i++)
        if (!input_named(nx, m, o->examples[i].input))
            return sy_fail_st(ctx, SY_EINVAL, "the model has no input named '%s'", o->examples[i].input);
    ox_ptab *pt = ptp;
    for (size_t i = 0; i < o->nov; i++) {
        const sy_onnx_input *in = input_named(nx, m, o->ov[i].input);
        if (!in) return sy_fail_st(ctx, SY_EINVAL, "override: the model has no input named '%s'", o->ov[i].input);
        const sy_input_spec *sp = o->ov[i].make_static ? NULL : o->ov[i].spec;
        for (size_t k = 0; sp && k < sp->ndims; k++) {
            const sy_dim_spec *e = &sp->dims[k];
            if (e->dim >= in->ndim)
                return sy_fail_st(ctx, SY_EINVAL, "dynamic-dim spec of input '%s': no dim %zu (rank %zu)", in->name, e->dim, in->ndim);
            const char *param = in->params[e->dim];
            if (o->concrete || !sy_dim_spec_declared(e) || !param || ptab_find(pt, param)) continue;
            /* the first declared entry on a dim with this dim_param declares it */
            ox_pbind *b = ptab_add(t, pt, param);
            sy_dim_spec *c = b ? tr_alloc(t, sizeof *c) : NULL;
            if (!c) return SY_ENOMEM;
            *c = *e;
            if (!c->name) c->name = param;
            b->spec = c;
        }
    }
    /* an --example of a dim with dim_param P is the example of every dim with P, whichever input
     * it was given for (a later input's example reaches an earlier input's dims); two inputs that
     * give P different sizes are an error */
    for (size_t i = 0; i < m->ninputs; i++) {
        const sy_onnx_input *in = &m->inputs[i];
        const sy_onnx_example *ex = find_ex(nx, o, in->name); /* the last --example of an input counts, as below */
        if (!ex || ex->ndim != in->ndim) continue; /* a rank mismatch is reported below */
        for (size_t d = 0; d < in->ndim; d++) {
            const char *param = in->params[d];
            if (!param || in->dims[d] >= 0) continue;
            int64_t x = ex->shape[d];
            ox_pbind *b = ptab_find(pt, param);
            if (!b && !(b = ptab_add(t, pt, param))) return SY_ENOMEM;
            if (b->ex < 0) {
                b->ex = x;
                b->ex_in = in->name;
                b->ex_dim = d;
            } else if (b->ex != x) {
                /* a concrete run (probe's point) has no --example: its sizes are the point's */
                return sy_fail_st(ctx, SY_EINVAL, "%s input '%s' dim %zu the size %lld and input '%s' dim %zu the size %lld, but they share dim_param '%s'%s",
                                  o->concrete ? "the point gives" : "--example gives", b->ex_in, b->ex_dim, (long long)b->ex, in->name, d,
                                  (long long)x, param, o->concrete ? " (ONNX declares dims with one dim_param equal)" : "");
            }
        }
    }
    sy_status st = SY_OK;
    t->ngin = m->ninputs;
    t->gin = tr_alloc(t, (t->ngin ? t->ngin : 1) * sizeof *t->gin);
    t->ginp = tr_alloc(t, (t->ngin ? t->ngin : 1) * sizeof *t->ginp);
    if (!t->gin || !t->ginp) st = SY_ENOMEM;
    for (size_t i = 0; i < m->ninputs && !st; i++) {
        const sy_onnx_input *in = &m->inputs[i];
        if (scope_find1(t->top, in->name)) { /* the later lookups by name would mix the two ranks */
            st = sy_fail_st(ctx, SY_EFORMAT, "graph input '%s' is listed twice (input %zu repeats an earlier name)", in->name, i);
            break;
        }
        const sy_onnx_example *ex = find_ex(nx, o, in->name);
        if (ex && ex->ndim != in->ndim) {
            st = sy_fail_st(ctx, SY_EINVAL, "example of input '%s' has rank %zu, the model's input has rank %zu", in->name, ex->ndim,
                            in->ndim);
            break;
        }
        const sy_trace_override *ov = find_ov(nx, o, in->name);
        const sy_expr **dims = tr_alloc(t, (in->ndim ? in->ndim : 1) * sizeof *dims);
        const sy_dim_spec **specs = tr_alloc(t, (in->ndim ? in->ndim : 1) * sizeof *specs);
        sy_dim_policy polb[8], *pols = in->ndim <= 8 ? polb : tr_alloc(t, in->ndim * sizeof *pols); /* read by the env's call */
        if (!dims || !specs || !pols) {
            st = SY_ENOMEM;
            break;
        }
        int64_t dflt = SY_ONNX_DEFAULT_EXAMPLE;
        if (!ex && !o->concrete) st = default_that_fits(t, in, pt, &dflt);
        for (size_t d = 0; d < in->ndim && !st; d++) {
            const char *param = in->params[d];
            ox_pbind *b = param ? ptab_find(pt, param) : NULL;
            int64_t example = ex                  ? ex->shape[d]
                              : in->dims[d] >= 0  ? in->dims[d]
                              : b && b->ex >= 0   ? b->ex
                                                  : dflt;
            if (in->dims[d] >= 0 && example != in->dims[d]) {
                st = sy_fail_st(ctx, SY_EINVAL, "example of input '%s' dim %zu is %lld, the model declares dim_value %lld", in->name, d,
                                (long long)example, (long long)in->dims[d]);
                break;
            }
            const sy_dim_spec *own = spec_entry(ov, d);
            int dynamic = in->dims[d] < 0;
            if (ov) {
                dynamic = own != NULL;
                if (!ov->make_static && !ov->spec)
                    for (size_t k = 0; k < ov->ndims; k++) dynamic |= ov->dims[k] == (int)d;
            }
            if (o->concrete) dynamic = 0;
            if (!dynamic || !sy_dim_spec_declared(own)) own = NULL;
            char src[300];
            name_dim(src, sizeof src, in->name, ".size()[", d, "]");
            const sy_dim_spec *use = own;
            if (own && !own->name && param) { /* an unnamed entry on a dim_param: the dim_param's Dim */
                sy_dim_spec *c = tr_alloc(t, sizeof *c);
                if (!c) {
                    st = SY_ENOMEM;
                    break;
                }
                *c = *own;
                c->name = b && b->spec ? b->spec->name : param;
                use = c;
            } else if (!own && dynamic && b) {
                use = b->spec; /* a dim_param another input's spec declares */
            }
            const sy_expr *e = NULL;
            if (!dynamic) e = sy_expr_int_si(ctx, example);
            else if (use) e = sy_env_create_symbol_spec(t->env, example, src, use);
            else if (b && b->e) e = b->e;
            else e = sy_env_create_symbol(t->env, example, src, SY_DIM_DYNAMIC);
            if (!e && dynamic && use && !ex && in->dims[d] < 0 && !(b && b->ex >= 0) &&
                !(use->max != SY_DIM_SPEC_UNSET && use->min > use->max) &&
                ((use->min != SY_DIM_SPEC_UNSET && example < use->min) || (use->max != SY_DIM_SPEC_UNSET && example > use->max))) {
                st = default_outside(t, in, pt, d, use); /* the default example is outside the declared range: say how to give one */
                break;
            }
            if (!e) {
                st = sy_ctx_last_error(ctx);
                break;
            }
            if (dynamic && param) {
                if (!b && !(b = ptab_add(t, pt, param))) {
                    st = SY_ENOMEM;
                    break;
                }
                if (!b->e) {
                    b->e = e;
                    b->in = in->name;
                    b->dim = d;
                } else if ((st = declare_equal(t, b, e, in->name, d, example))) {
                    break;
                }
            }
            dims[d] = e;
            specs[d] = use;
            pols[d] = dynamic ? SY_DIM_DYNAMIC : SY_DIM_STATIC; /* dynamic, e constant: 0/1-specialized */
            char fb[300];
            name_dim(fb, sizeof fb, in->name, "_d", d, "");
            if (!sy_expr_is_int(e) && (st = add_display(t, e, use && use->name ? use->name : param, fb))) break;
            if ((st = add_srcsym(t, src, sy_expr_is_int(e) ? e : NULL))) break;
        }
        if (st) break;
        ox_val *v = tr_alloc(t, sizeof *v);
        if (!v) {
            st = SY_ENOMEM;
            break;
        }
        v->name = in->name;
        v->elem = in->elem_type;
        v->role = 1;
        v->t = sy_env_input_exprs_policy(t->env, in->name, in->dtype, in->ndim, dims, specs, pols);
        if (!v->t) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        if ((st = scope_add(t, t->top, v))) break;
        sy_graph_input *gi = &t->gin[i];
        gi->name = in->name;
        gi->dtype = in->dtype;
        gi->ndim = in->ndim;
        t->ginp[i] = gi;
    }
    /* a static dim with a dim_param that other dims made a symbol: ONNX's equality is a guard */
    for (size_t i = 0; i < m->ninputs && !st; i++) {
        const sy_onnx_input *in = &m->inputs[i];
        const sy_tensor *tv = scope_find1(t->top, in->name) ? scope_find1(t->top, in->name)->t : NULL;
        for (size_t d = 0; tv && d < in->ndim && !st; d++) {
            ox_pbind *b = in->params[d] ? ptab_find(pt, in->params[d]) : NULL;
            if (!b || !b->e || !sy_expr_is_int(tv->sizes[d]) || sy_expr_is_int(b->e)) continue;
            int64_t c = 0;
            sy_expr_get_si(tv->sizes[d], &c);
            st = declare_equal(t, b, tv->sizes[d], in->name, d, c);
        }
    }
    /* source symbols: the display symbol of each dynamic source, from the last env input dim of that source
     * (the env's dims backwards, the first found wins; one lookup each, not a scan of the dims per source) */
    for (size_t k = sy_env_ninput_dims(t->env); k-- > 0 && !st;) {
        const sy_input_dim *d = sy_env_input_dim(t->env, k);
        size_t i = src_find(t, d->source);
        if (i != SIZE_MAX && !t->srcsym[i]) t->srcsym[i] = sy_onnx_trace_display(t, d->expr);
    }
    return st;
}

static sy_status setup_inputs(sy_onnx_trace *t, const sy_onnx_trace_options *o)
{
    ox_names nx;
    memset(&nx, 0, sizeof nx);
    ox_ptab pt;
    memset(&pt, 0, sizeof pt);
    pt.ix.strings = 1;
    sy_status st = names_index(t->ctx, &nx, t->m, o);
    if (!st) st = setup_inputs1(t, o, &nx, &pt);
    names_free(t->ctx, &nx);
    ix_free(t->ctx, &pt.ix);
    return st;
}

sy_onnx_trace *sy_onnx_trace_free(sy_onnx_trace *t)
{
    if (!t) return NULL;
    sy_ctx *ctx = t->ctx;
    for (ox_scope *s = t->scopes; s; s = s->next_alloc) {
        if (s->vals) sy_dealloc(ctx, s->vals, s->cap * sizeof *s->vals);
        if (s->tab) sy_dealloc(ctx, s->tab, s->tabcap * sizeof *s->tab);
        if (s->life) sy_dealloc(ctx, s->life, 2 * s->cap * sizeof *s->life);
    }
    if (t->outputs) sy_dealloc(ctx, t->outputs, (t->nout ? t->nout : 1) * sizeof *t->outputs);
    if (t->dfrom) sy_dealloc(ctx, t->dfrom, t->dispcap * sizeof *t->dfrom);
    if (t->dto) sy_dealloc(ctx, t->dto, t->dispcap * sizeof *t->dto);
    if (t->srcs) sy_dealloc(ctx, t->srcs, t->srccap * sizeof *t->srcs);
    if (t->srcsym) sy_dealloc(ctx, t->srcsym, t->srccap * sizeof *t->srcsym);
    ix_free(ctx, &t->dfrom_ix);
    ix_free(ctx, &t->dto_ix);
    ix_free(ctx, &t->src_ix);
    if (t->tens) sy_dealloc(ctx, t->tens, t->tenscap * sizeof *t->tens);
    for (ox_chunk *c = t->chunks; c;) {
        ox_chunk *n = c->next;
        sy_dealloc(ctx, c, sizeof *c + c->size);
        c = n;
    }
    sy_dealloc(ctx, t, sizeof *t);
    return NULL;
}

/* ------------------------------------------------------------------ simplified value shapes */

/* a symbolic size, printed, is longer than its rewrite: the rewrite is kept only when shorter (a
 * replacement total_seq -> past_seq + seq does not make a value's shape simpler) */
static size_t print_len(sy_ctx *ctx, const sy_expr *e)
{
    char *s = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
    size_t n = s ? strlen(s) : SIZE_MAX;
    sy_str_free(ctx, s);
    return n;
}

/* Issue 32: every value's symbolic sizes simplified under what holds wherever the guard set accepts
 * a point: each input dim >= 0 and every guard the trace recorded (flip's Slice gives
 * Max(0, n - Max(-1, n - 9223372036854775807) - 1), which is n). Not the env's own facts: a 0/1
 * specialization's 2 <= s holds only where it is guarded, and sy_env_simplify would touch the
 * symbol and add that guard (throwing sizes 0 and 1 away for a shorter print). The rewrite is
 * sy_simplify's (equal at every point of the facts); a size is replaced only by a shorter print,
 * each distinct size simplified once; a budget that trips keeps the size as it was. */
static sy_status simplify_values(sy_onnx_trace *t)
{
    sy_ctx *ctx = t->ctx;
    sy_env *env = t->env;
    sy_facts *f = sy_facts_new(ctx);
    if (!f) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    sy_status st = SY_OK;
    const sy_expr *zero = sy_expr_int_si(ctx, 0);
    for (size_t i = 0; i < sy_env_nsymbols(env) && !st; i++) {
        const sy_symbol_info *si = sy_env_symbol(env, i);
        if (si && !si->unbacked && si->nsources) st = sy_facts_set_range(f, si->sym, zero, NULL);
    }
    for (size_t i = 0; i < sy_env_nguards(env) && !st; i++) st = sy_facts_add(f, sy_env_guard(env, i)->expr);
    if (st == SY_OK && sy_facts_consistent(f) == SY_FALSE) st = SY_EINVAL; /* nothing to simplify under */
    ox_index memo = {0};
    const sy_expr **res = NULL;
    size_t nres = 0, capres = 0;
    for (size_t k = 0; k < t->top->n && !st; k++) {
        ox_val *v = t->top->vals[k];
        if (!v->t || v->role == 1 || v->role == 2 || !v->t->ndim || v->t->ndim > 64) continue; /* inputs, weights: as declared */
        const sy_expr *sz[64];
        bool changed = false;
        for (size_t d = 0; d < v->t->ndim && !st; d++) {
            const sy_expr *e = sz[d] = v->t->sizes[d];
            if (sy_expr_is_int(e) || sy_expr_kind_of(e) == SY_EXPR_SYM) continue;
            size_t j = ix_get(&memo, e);
            if (j == SIZE_MAX) {
                const sy_expr *r = sy_simplify(f, e);
                if (!r || sy_expr_is_bool(r) || (r != e && print_len(ctx, r) >= print_len(ctx, e))) r = e;
                sy_ctx_reset_error(ctx);
                if (nres == capres) {
                    size_t nc = capres ? 2 * capres : 32;
                    const sy_expr **nr = sy_realloc(ctx, res, capres * sizeof *nr, nc * sizeof *nr);
                    if (!nr) {
                        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                        break;
                    }
                    res = nr, capres = nc;
                }
                res[j = nres++] = r;
                if ((st = ix_put(ctx, &memo, e, j, false))) break;
            }
            if (res[j] != e) sz[d] = res[j], changed = true;
        }
        if (!st && changed) {
            const sy_tensor *nt = ox_tensor(t, v->t->dtype, v->t->ndim, sz);
            if (nt) v->t = nt;
            else sy_ctx_reset_error(ctx); /* kept as it was */
        }
    }
    if (st == SY_EINVAL) st = SY_OK;
    if (res) sy_dealloc(ctx, res, capres * sizeof *res);
    ix_free(ctx, &memo);
    sy_facts_free(f);
    if (st && st != SY_ENOMEM) { /* a budget: the shapes as traced */
        sy_ctx_reset_error(ctx);
        st = SY_OK;
    }
    return st;
}

sy_status sy_env_trace_onnx(sy_env *env, const sy_onnx_model *m, const sy_onnx_trace_options *opts, sy_onnx_trace **out)
{
    return ox_trace_keep(env, m, opts, out, NULL);
}

const char *sy_onnx_trace_related(const sy_onnx_trace *t) { return t ? t->related : NULL; }

int ox_trace_concrete(const sy_onnx_trace *t) { return t->concrete; }

sy_status ox_trace_set_related(sy_onnx_trace *t, const char *note)
{
    t->related = note ? tr_strdup(t, note) : NULL;
    return !note || t->related ? SY_OK : SY_ENOMEM;
}

/* sy_env_trace_onnx; with @p failed, a trace that fails is kept there (its inputs' tensors and display
 * names, for the related-example retry: onnx_relate.c) instead of freed */
sy_status ox_trace_keep(sy_env *env, const sy_onnx_model *m, const sy_onnx_trace_options *opts, sy_onnx_trace **out,
                        sy_onnx_trace **failed)
{
    if (failed) *failed = NULL;
    if (!env) return SY_EINVAL;
    sy_ctx *ctx = sy_env_ctx(env);
    if (!m || !out) return sy_fail_st(ctx, SY_EINVAL, "onnx trace: NULL argument");
    *out = NULL;
    sy_onnx_trace_options dflt = SY_ONNX_TRACE_OPTIONS_INIT;
    if (!opts) opts = &dflt;
    if (opts->version != SY_ONNX_TRACE_OPTIONS_VERSION)
        return sy_fail_st(ctx, SY_EVERSION, "onnx trace: unknown options version %u", opts->version);
    sy_onnx_trace *t = sy_alloc(ctx, sizeof *t);
    if (!t) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    memset(t, 0, sizeof *t);
    t->env = env;
    t->ctx = ctx;
    t->m = m;
    t->src_ix.strings = 1;
    t->concrete = opts->concrete;
    sy_status st = SY_OK;
    if (!(t->top = scope_new(t, NULL))) st = SY_ENOMEM;
    if (!st) st = setup_inputs(t, opts);
    if (!st) st = run_nodes(t, t->top, m->graph);
    if (!st) {
        const Onnx__GraphProto *g = m->graph;
        t->nout = g->n_output;
        t->outputs = sy_alloc(ctx, (t->nout ? t->nout : 1) * sizeof *t->outputs);
        if (!t->outputs) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        for (size_t i = 0; i < g->n_output && !st; i++) {
            const char *nm = g->output[i]->name ? g->output[i]->name : "";
            size_t k = scope_index1h(t->top, nm, hstr(nm)); /* a value is at one position (scope_add) */
            if (k == SIZE_MAX) {
                st = sy_fail_st(ctx, SY_EINVAL, "graph output '%s' is not defined by any node, input or initializer", nm);
                break;
            }
            ox_val *v = t->top->vals[k];
            if (!v->role) v->role = 3;
            t->outputs[i] = k;
            if (t->top->life) t->top->life[2 * k + 1] = UINT32_MAX; /* lives to the end (sy_onnx_trace_value_life) */
        }
    }
    if (!st && !opts->concrete) st = simplify_values(t);
    if (st) {
        if (st == SY_ENOMEM && sy_ctx_last_error(ctx) != SY_ENOMEM) sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        if (failed && t->top) *failed = t;
        else sy_onnx_trace_free(t);
        return st;
    }
    *out = t;
    return SY_OK;
}

size_t sy_onnx_trace_nvalues(const sy_onnx_trace *t) { return t ? t->top->n : 0; }
const char *sy_onnx_trace_value_name(const sy_onnx_trace *t, size_t i)
{
    return t && i < t->top->n ? t->top->vals[i]->name : NULL;
}
const sy_tensor *sy_onnx_trace_value(const sy_onnx_trace *t, size_t i)
{
    return t && i < t->top->n ? t->top->vals[i]->t : NULL;
}
int sy_onnx_trace_value_role(const sy_onnx_trace *t, size_t i) { return t && i < t->top->n ? t->top->vals[i]->role : 0; }
size_t sy_onnx_trace_value_elem_bytes(const sy_onnx_trace *t, size_t i)
{
    if (!t || i >= t->top->n) return 0;
    int e = t->top->vals[i]->elem;
    return e == OX_STRING || e == OX_UNDEF || e > OX_BFLOAT16 ? 0 : ox_elem_size(e);
}
int sy_onnx_trace_value_life(const sy_onnx_trace *t, size_t i, size_t *born, size_t *last)
{
    if (!t || i >= t->top->n || !t->top->life) return 0;
    size_t nn = t->m->nnodes ? t->m->nnodes : 1, b = t->top->life[2 * i], l = t->top->life[2 * i + 1];
    if (born) *born = b < nn ? b : nn - 1;
    if (last) *last = l < nn ? l : nn - 1;
    return 1;
}
size_t sy_onnx_trace_noutputs(const sy_onnx_trace *t) { return t ? t->nout : 0; }
size_t sy_onnx_trace_output(const sy_onnx_trace *t, size_t i) { return t && i < t->nout ? t->outputs[i] : 0; }
const sy_graph_input *const *sy_onnx_trace_gset_inputs(const sy_onnx_trace *t, size_t *n)
{
    if (n) *n = t ? t->ngin : 0;
    return t ? t->ginp : NULL;
}

/* ------------------------------------------------------------------ value_info output */

/* dims[0..rank) (and the pointers dl) of value v: dim_value where a size is
 * constant, dim_param = the printed expression in display names otherwise.
 * *k: how many were filled (free_dims frees their dim_params, also on error). */
static sy_status fill_dims(sy_onnx_trace *t, const ox_val *v, Onnx__TensorShapeProto__Dimension *dims,
                           Onnx__TensorShapeProto__Dimension **dl, size_t *k)
{
    sy_ctx *ctx = t->ctx;
    size_t nd = v->t->ndim;
    for (*k = 0; *k < nd; (*k)++) {
        size_t i = *k;
        onnx__tensor_shape_proto__dimension__init(&dims[i]);
        dl[i] = &dims[i];
        int64_t c;
        if (sy_expr_get_si(v->t->sizes[i], &c) == SY_OK) {
            dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dims[i].dim_value = c;
            continue;
        }
        sy_ctx_reset_error(ctx);
        char *str = sy_expr_print(ctx, sy_onnx_trace_display(t, v->t->sizes[i]), SY_PRINT_CANONICAL);
        if (!str) return SY_ENOMEM; /* the error print recorded */
        dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        dims[i].dim_param = str;
    }
    return SY_OK;
}

static void free_dims(sy_ctx *ctx, Onnx__TensorShapeProto__Dimension *dims, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (dims[i].value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) sy_str_free(ctx, dims[i].dim_param);
}

/* Append value v's ValueInfoProto to *buf as GraphProto.value_info (tag,
 * length, bytes: what packing a GraphProto holding only it gives, so the
 * entries one after another are the GraphProto of all of them). dims holds at
 * least v's rank; the printed dim_params are freed before the return. */
static sy_status pack_value_info(sy_onnx_trace *t, const ox_val *v, Onnx__TensorShapeProto__Dimension *dims,
                                 Onnx__TensorShapeProto__Dimension **dl, unsigned char **buf, size_t *blen, size_t *bcap)
{
    sy_ctx *ctx = t->ctx;
    size_t nd = v->t->ndim, k = 0;
    sy_status st = fill_dims(t, v, dims, dl, &k);
    if (!st) {
        Onnx__TensorShapeProto sp;
        Onnx__TypeProto__Tensor tt;
        Onnx__TypeProto tp;
        Onnx__ValueInfoProto vi, *vis = &vi;
        Onnx__GraphProto g;
        onnx__tensor_shape_proto__init(&sp);
        onnx__type_proto__tensor__init(&tt);
        onnx__type_proto__init(&tp);
        onnx__value_info_proto__init(&vi);
        onnx__graph_proto__init(&g);
        sp.n_dim = nd;
        sp.dim = dl;
        tt.has_elem_type = 1;
        tt.elem_type = v->elem;
        tt.shape = &sp;
        tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        tp.tensor_type = &tt;
        vi.name = (char *)v->name;
        vi.type = &tp;
        g.n_value_info = 1;
        g.value_info = &vis;
        size_t n = onnx__graph_proto__get_packed_size(&g);
        if (*blen + n > *bcap) { /* grows by half: the slack is at most a third of the bytes */
            size_t nc = *bcap ? *bcap : 256;
            while (nc < *blen + n) nc += nc / 2;
            unsigned char *nb = sy_realloc(ctx, *buf, *bcap, nc);
            if (!nb) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            else {
                *buf = nb;
                *bcap = nc;
            }
        }
        if (!st) *blen += onnx__graph_proto__pack(&g, *buf + *blen);
    }
    free_dims(ctx, dims, k);
    return st;
}

/* ---- the written model: the original bytes, field by field (protobuf's
 * wire format), with the graph's outputs' shapes rewritten and the new
 * value_info appended to the graph; the external data copied beside it. */

/* a varint at p[*i..n): 0, or -1 when truncated */
static int pb_varint(const unsigned char *p, size_t n, size_t *i, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned sh = 0; sh < 64 && *i < n; sh += 7) {
        unsigned char c = p[(*i)++];
        r |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* the field at p[*i..n): its number and wire type, and for a length-delimited
 * one its payload p[*ps .. *ps + *pl); *i moves past it. -1: malformed. */
static int pb_field(const unsigned char *p, size_t n, size_t *i, uint64_t *num, int *wt, size_t *ps, size_t *pl)
{
    uint64_t key, v;
    if (pb_varint(p, n, i, &key)) return -1;
    *num = key >> 3;
    *wt = (int)(key & 7);
    switch (*wt) {
    case 0: return pb_varint(p, n, i, &v);
    case 1: return n - *i < 8 ? -1 : (*i += 8, 0);
    case 5: return n - *i < 4 ? -1 : (*i += 4, 0);
    case 2:
        if (pb_varint(p, n, i, &v) || v > n - *i) return -1;
        *ps = *i;
        *pl = (size_t)v;
        *i += (size_t)v;
        return 0;
    default: return -1; /* groups (3, 4) are not in onnx.proto */
    }
}

/* where bytes go: counted only (f NULL), or written to f */
typedef struct pb_sink {
    FILE *f;
    size_t len;
    int err;
} pb_sink;

static void sink_put(pb_sink *o, const void *p, size_t n)
{
    if (o->f && n && !o->err && fwrite(p, 1, n, o->f) != n) o->err = 1;
    o->len += n;
}

static void sink_tag_len(pb_sink *o, uint64_t num, uint64_t len)
{
    unsigned char b[20];
    size_t k = 0;
    for (uint64_t v = num << 3 | 2;; v >>= 7) {
        b[k++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (v <= 0x7f) break;
    }
    for (uint64_t v = len;; v >>= 7) {
        b[k++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        if (v <= 0x7f) break;
    }
    sink_put(o, b, k);
}

/* GraphProto.output (a ValueInfoProto at p, n bytes) with the shape of the
 * traced value of its name, as value_info gets it (dim_value or the display
 * expression as dim_param): the link between the input dims and the outputs'
 * survives in the written model. Anything else (a name the trace has not, a
 * non-tensor type) is kept as it was. */
static sy_status put_output(sy_onnx_trace *t, pb_sink *o, const unsigned char *p, size_t n,
                            Onnx__TensorShapeProto__Dimension *dims, Onnx__TensorShapeProto__Dimension **dl)
{
    sy_ctx *ctx = t->ctx;
    Onnx__ValueInfoProto *vi = onnx__value_info_proto__unpack(NULL, n, p);
    const ox_val *v = vi && vi->name ? scope_find1(t->top, vi->name) : NULL;
    Onnx__TypeProto__Tensor *tt = vi && vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? vi->type->tensor_type : NULL;
    if (!v || !v->t || !tt) {
        if (vi) onnx__value_info_proto__free_unpacked(vi, NULL);
        sink_tag_len(o, 12, n);
        sink_put(o, p, n);
        return SY_OK;
    }
    size_t k = 0;
    sy_status st = fill_dims(t, v, dims, dl, &k);
    if (!st) {
        Onnx__TensorShapeProto sp, *old = tt->shape;
        onnx__tensor_shape_proto__init(&sp);
        sp.n_dim = v->t->ndim;
        sp.dim = dl;
        tt->shape = &sp;
        size_t len = onnx__value_info_proto__get_packed_size(vi);
        unsigned char *b = sy_alloc(ctx, len ? len : 1);
        if (!b) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        else {
            onnx__value_info_proto__pack(vi, b);
            sink_tag_len(o, 12, len);
            sink_put(o, b, len);
            sy_dealloc(ctx, b, len ? len : 1);
        }
        tt->shape = old;
    }
    free_dims(ctx, dims, k);
    onnx__value_info_proto__free_unpacked(vi, NULL);
    return st;
}

/* the GraphProto at g (n bytes): its fields, the outputs rewritten, then the
 * value_info entries vi (already tagged as GraphProto.value_info) */
static sy_status put_graph(sy_onnx_trace *t, pb_sink *o, const unsigned char *g, size_t n, const unsigned char *vi,
                           size_t vilen, Onnx__TensorShapeProto__Dimension *dims, Onnx__TensorShapeProto__Dimension **dl)
{
    size_t i = 0;
    while (i < n) {
        size_t start = i, ps = 0, pl = 0;
        uint64_t num;
        int wt;
        if (pb_field(g, n, &i, &num, &wt, &ps, &pl)) return sy_fail_st(t->ctx, SY_EFORMAT, "malformed GraphProto");
        if (num == 12 && wt == 2) {
            sy_status st = put_output(t, o, g + ps, pl, dims, dl);
            if (st) return st;
        } else
            sink_put(o, g + start, i - start);
    }
    sink_put(o, vi, vilen);
    return SY_OK;
}

/* the external-data locations a message holds: TensorProto.external_data
 * (13) entries with key "location", in the graph's initializers, sparse
 * initializers, and its nodes' attribute tensors and subgraphs (recursively).
 * kind: 'g' GraphProto, 'n' NodeProto, 'a' AttributeProto, 't' TensorProto,
 * 's' SparseTensorProto, 'e' StringStringEntryProto of a tensor. */
typedef struct ext_list {
    sy_ctx *ctx;
    char **v;
    size_t n, cap;
    int oom;
} ext_list;

static void ext_add(ext_list *l, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == n && !memcmp(l->v[i], p, n)) return;
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 8;
        char **nv = sy_realloc(l->ctx, l->v, l->cap * sizeof *nv, nc * sizeof *nv);
        if (!nv) {
            l->oom = 1;
            return;
        }
        l->v = nv;
        l->cap = nc;
    }
    char *s = sy_alloc(l->ctx, n + 1);
    if (!s) {
        l->oom = 1;
        return;
    }
    memcpy(s, p, n);
    s[n] = 0;
    l->v[l->n++] = s;
}

static int ext_scan(ext_list *l, const unsigned char *p, size_t n, char kind, int depth)
{
    if (depth > 64) return -1;
    size_t i = 0, key = 0, keyl = 0, val = 0, vall = 0;
    int has_key = 0, has_val = 0;
    while (i < n) {
        size_t ps = 0, pl = 0;
        uint64_t num;
        int wt;
        if (pb_field(p, n, &i, &num, &wt, &ps, &pl)) return -1;
        if (wt != 2) continue;
        char sub = 0;
        switch (kind) {
        case 'g': sub = num == 1 ? 'n' : num == 5 ? 't' : num == 15 ? 's' : 0; break;
        case 'n': sub = num == 5 ? 'a' : 0; break;
        case 'a': sub = num == 5 || num == 10 ? 't' : num == 6 || num == 11 ? 'g' : num == 22 || num == 23 ? 's' : 0; break;
        case 's': sub = num == 1 || num == 2 ? 't' : 0; break;
        case 't': sub = num == 13 ? 'e' : 0; break;
        case 'e':
            if (num == 1) key = ps, keyl = pl, has_key = 1;
            if (num == 2) val = ps, vall = pl, has_val = 1;
            break;
        }
        if (sub && ext_scan(l, p + ps, pl, sub, depth + 1)) return -1;
    }
    if (kind == 'e' && has_key && has_val && keyl == 8 && !memcmp(p + key, "location", 8)) ext_add(l, p + val, vall);
    return 0;
}

/* the directory part of path ("." when it has none), in buf */
static const char *dir_of(const char *path, char *buf, size_t n)
{
    const char *sl = strrchr(path, '/');
    if (!sl) return ".";
    size_t k = sl == path ? 1 : (size_t)(sl - path);
    if (k >= n) k = n - 1;
    memcpy(buf, path, k);
    buf[k] = 0;
    return buf;
}

/* copy the external-data file loc of the model in dir src to dir dst (the
 * written model's): nothing when it is the same file, or when dst holds a
 * file with the same bytes; an error rather than overwriting another file */
static sy_status copy_external(sy_ctx *ctx, const char *src, const char *dst, const char *loc)
{
    size_t nl = strlen(loc);
    if (!*loc || loc[0] == '/' || !strcmp(loc, "..") || !strncmp(loc, "../", 3) || strstr(loc, "/../") ||
        (nl >= 3 && !strcmp(loc + nl - 3, "/..")))
        return sy_fail_st(ctx, SY_EFORMAT, "external data location '%s' is not a relative path inside the model's directory", loc);
    size_t ls = strlen(src) + strlen(loc) + 2, ld = strlen(dst) + strlen(loc) + 2;
    char *from = sy_alloc(ctx, ls), *to = sy_alloc(ctx, ld);
    sy_status st = SY_OK;
    if (!from || !to) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    FILE *in = NULL, *out = NULL;
    if (!st) {
        snprintf(from, ls, "%s/%s", src, loc);
        snprintf(to, ld, "%s/%s", dst, loc);
        struct stat a, b;
        if (stat(from, &a)) st = sy_fail_st(ctx, SY_EFORMAT, "cannot read the external data %s: %s", from, strerror(errno));
        else if (!stat(to, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            /* the output is beside the model: its data is there already */
        } else if (!stat(to, &b)) { /* a file of that name: the same bytes, or an error */
            in = fopen(from, "rb");
            out = fopen(to, "rb");
            int same = in && out && a.st_size == b.st_size;
            char x[65536], y[65536];
            size_t r;
            while (same && (r = fread(x, 1, sizeof x, in)) > 0) same = fread(y, 1, r, out) == r && !memcmp(x, y, r);
            if (!same)
                st = sy_fail_st(ctx, SY_EFORMAT, "%s exists and is not the model's external data %s: not overwritten (write the output elsewhere)",
                                to, from);
        } else {
            /* the location's subdirectories, then the bytes */
            for (char *sl = to + strlen(dst) + 1; (sl = strchr(sl, '/')); sl++) {
                *sl = 0;
                if (mkdir(to, 0777) && errno != EEXIST) st = sy_fail_st(ctx, SY_EFORMAT, "cannot create %s: %s", to, strerror(errno));
                *sl = '/';
                if (st) break;
            }
            if (!st && !(in = fopen(from, "rb"))) st = sy_fail_st(ctx, SY_EFORMAT, "cannot read the external data %s: %s", from, strerror(errno));
            if (!st && !(out = fopen(to, "wb"))) st = sy_fail_st(ctx, SY_EFORMAT, "cannot write %s: %s", to, strerror(errno));
            char chunk[65536];
            size_t r;
            while (!st && (r = fread(chunk, 1, sizeof chunk, in)) > 0)
                if (fwrite(chunk, 1, r, out) != r) st = sy_fail_st(ctx, SY_EFORMAT, "write to %s failed", to);
            if (!st && ferror(in)) st = sy_fail_st(ctx, SY_EFORMAT, "cannot read %s", from);
            if (out && fclose(out) && !st) st = sy_fail_st(ctx, SY_EFORMAT, "write to %s failed", to);
            out = NULL;
        }
    }
    if (in) fclose(in);
    if (out) fclose(out);
    if (from) sy_dealloc(ctx, from, ls);
    if (to) sy_dealloc(ctx, to, ld);
    return st;
}

/* path: the model at model_path (mapped, not copied) field by field, its
 * graph through put_graph; written to a temporary file renamed over path at
 * the end (path may be the model itself). Then its external data is copied
 * beside path. */
static sy_status write_model(sy_onnx_trace *t, const char *model_path, const char *path, const unsigned char *vi,
                             size_t vilen, Onnx__TensorShapeProto__Dimension *dims, Onnx__TensorShapeProto__Dimension **dl,
                             size_t maxnd)
{
    sy_ctx *ctx = t->ctx;
    (void)maxnd;
    int fd = open(model_path, O_RDONLY);
    if (fd < 0) return sy_fail_st(ctx, SY_EFORMAT, "cannot read %s: %s", model_path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb)) {
        close(fd);
        return sy_fail_st(ctx, SY_EFORMAT, "cannot read %s: %s", model_path, strerror(errno));
    }
    size_t n = (size_t)sb.st_size;
    const unsigned char *m = n ? mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0) : (const unsigned char *)"";
    close(fd);
    if (m == MAP_FAILED) return sy_fail_st(ctx, SY_EFORMAT, "cannot read %s: %s", model_path, strerror(errno));
    sy_status st = SY_OK;
    /* the rewritten graph's length first (counting), then the bytes */
    size_t glen = 0;
    int have_graph = 0;
    for (size_t i = 0; i < n && !st;) {
        size_t start = i, ps = 0, pl = 0;
        uint64_t num;
        int wt;
        if (pb_field(m, n, &i, &num, &wt, &ps, &pl)) st = sy_fail_st(ctx, SY_EFORMAT, "%s: malformed ModelProto", model_path);
        else if (num == 7 && wt == 2 && !have_graph) {
            pb_sink c = {NULL, 0, 0};
            st = put_graph(t, &c, m + ps, pl, vi, vilen, dims, dl);
            glen = c.len;
            have_graph = 1;
        }
        (void)start;
    }
    ext_list ext = {ctx, NULL, 0, 0, 0};
    for (size_t i = 0; i < n && !st;) {
        size_t ps = 0, pl = 0;
        uint64_t num;
        int wt;
        if (pb_field(m, n, &i, &num, &wt, &ps, &pl)) break;
        if (num == 7 && wt == 2 && ext_scan(&ext, m + ps, pl, 'g', 0))
            st = sy_fail_st(ctx, SY_EFORMAT, "%s: malformed GraphProto", model_path);
    }
    if (!st && ext.oom) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    size_t tl = strlen(path) + 16;
    char *tmp = sy_alloc(ctx, tl);
    if (!st && !tmp) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    FILE *o = NULL;
    if (!st) {
        snprintf(tmp, tl, "%s.symshape-tmp", path);
        if (!(o = fopen(tmp, "wb"))) st = sy_fail_st(ctx, SY_EFORMAT, "cannot write %s: %s", path, strerror(errno));
    }
    pb_sink w = {o, 0, 0};
    int done = 0;
    for (size_t i = 0; i < n && !st;) {
        size_t start = i, ps = 0, pl = 0;
        uint64_t num;
        int wt;
        if (pb_field(m, n, &i, &num, &wt, &ps, &pl)) st = sy_fail_st(ctx, SY_EFORMAT, "%s: malformed ModelProto", model_path);
        else if (num == 7 && wt == 2 && !done) {
            sink_tag_len(&w, 7, glen);
            st = put_graph(t, &w, m + ps, pl, vi, vilen, dims, dl);
            done = 1;
        } else
            sink_put(&w, m + start, i - start);
    }
    if (!st && !done && vilen) { /* no graph: the value_info alone (cannot be: the trace read one) */
        sink_tag_len(&w, 7, vilen);
        sink_put(&w, vi, vilen);
    }
    if (!st && w.err) st = sy_fail_st(ctx, SY_EFORMAT, "write to %s failed: %s", path, strerror(errno));
    if (o && fclose(o) && !st) st = sy_fail_st(ctx, SY_EFORMAT, "write to %s failed: %s", path, strerror(errno));
    if (n) munmap((void *)m, n);
    if (!st && rename(tmp, path)) st = sy_fail_st(ctx, SY_EFORMAT, "cannot write %s: %s", path, strerror(errno));
    if (st && o) remove(tmp);
    if (tmp) sy_dealloc(ctx, tmp, tl);
    /* the external data, beside the written model under the same relative locations */
    char sd[4096], dd[4096];
    const char *src = dir_of(model_path, sd, sizeof sd), *dst = dir_of(path, dd, sizeof dd);
    for (size_t i = 0; i < ext.n && !st; i++) st = copy_external(ctx, src, dst, ext.v[i]);
    for (size_t i = 0; i < ext.n; i++) sy_dealloc(ctx, ext.v[i], strlen(ext.v[i]) + 1);
    if (ext.v) sy_dealloc(ctx, ext.v, ext.cap * sizeof *ext.v);
    return st;
}

sy_status sy_onnx_write_value_info(sy_onnx_trace *t, const char *model_path, const char *path)
{
    if (!t) return SY_EINVAL;
    sy_ctx *ctx = t->ctx;
    if (!model_path || !path) return sy_fail_st(ctx, SY_EINVAL, "write_value_info: NULL argument");
    /* one value at a time: its protobuf structs on the stack, its dims in
     * arrays of the largest rank, its bytes appended to the GraphProto's */
    size_t n = t->top->n, maxnd = 1;
    for (size_t i = 0; i < n; i++)
        if (t->top->vals[i]->t->ndim > maxnd) maxnd = t->top->vals[i]->t->ndim;
    Onnx__TensorShapeProto__Dimension *dims = sy_alloc(ctx, maxnd * sizeof *dims);
    Onnx__TensorShapeProto__Dimension **dl = sy_alloc(ctx, maxnd * sizeof *dl);
    unsigned char *gb = NULL; /* the GraphProto's bytes */
    size_t glen = 0, gcap = 0;
    sy_status st = SY_OK;
    /* the values the graph's own value_info already describes are left out:
     * marked through the top scope's name table, O(values + value_info) */
    unsigned char *had = sy_alloc(ctx, n ? n : 1);
    if (!dims || !dl || !had) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    if (!st) {
        memset(had, 0, n ? n : 1);
        const Onnx__GraphProto *g = t->m->graph;
        for (size_t k = 0; k < g->n_value_info; k++) {
            const char *name = g->value_info[k]->name;
            size_t i = name ? scope_index1h(t->top, name, hstr(name)) : SIZE_MAX;
            if (i < n) had[i] = 1;
        }
    }
    for (size_t i = 0; i < n && !st; i++) {
        const ox_val *v = t->top->vals[i];
        if (v->role || had[i]) continue;
        st = pack_value_info(t, v, dims, dl, &gb, &glen, &gcap);
    }
    if (had) sy_dealloc(ctx, had, n ? n : 1);
    if (!st) st = write_model(t, model_path, path, gb, glen, dims, dl, maxnd);
    if (dims) sy_dealloc(ctx, dims, maxnd * sizeof *dims);
    if (dl) sy_dealloc(ctx, dl, maxnd * sizeof *dl);
    if (gb) sy_dealloc(ctx, gb, gcap);
    return st;
}
