/* Op dispatch, argument helpers, values, tensors, broadcasting. */
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "algebra/sy_int64.h"
#include "shapeenv/env_private.h"
#include "shapeenv/rules.h"

/* ------------------------------------------------------------------ dtypes */

static const char *const dtype_names[SY_DT_COUNT] = {"float32", "float64", "float16", "bfloat16", "complex64",
                                                     "complex128", "int64", "int32", "int16", "int8", "uint8", "bool"};

const char *sy_dtype_name(sy_dtype d) { return (unsigned)d < SY_DT_COUNT ? dtype_names[d] : "?"; }

sy_status sy_dtype_parse(const char *name, sy_dtype *out)
{
    if (!name || !out) return SY_EINVAL;
    if (!strncmp(name, "torch.", 6)) name += 6;
    static const struct { const char *alias; sy_dtype d; } aliases[] = {
        {"float", SY_DT_FLOAT32}, {"double", SY_DT_FLOAT64}, {"half", SY_DT_FLOAT16}, {"long", SY_DT_INT64},
        {"int", SY_DT_INT32}, {"short", SY_DT_INT16}, {"cfloat", SY_DT_COMPLEX64}, {"cdouble", SY_DT_COMPLEX128}};
    for (int i = 0; i < SY_DT_COUNT; i++)
        if (!strcmp(name, dtype_names[i])) {
            *out = (sy_dtype)i;
            return SY_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].alias)) {
            *out = aliases[i].d;
            return SY_OK;
        }
    return SY_EINVAL;
}

/* ------------------------------------------------------------------ values */

sy_value sy_value_none(void)
{
    sy_value v;
    memset(&v, 0, sizeof v);
    return v;
}
sy_value sy_value_int(const sy_expr *e)
{
    sy_value v = sy_value_none();
    v.kind = SY_V_INT;
    v.u.i = e;
    return v;
}
sy_value sy_value_int_si(sy_env *env, int64_t x) { return sy_value_int(sy_expr_int_si(env->ctx, x)); }
sy_value sy_value_bool(const sy_expr *e)
{
    sy_value v = sy_value_none();
    v.kind = SY_V_BOOL;
    v.u.i = e;
    return v;
}
sy_value sy_value_float(double f)
{
    sy_value v = sy_value_none();
    v.kind = SY_V_FLOAT;
    v.u.f = f;
    return v;
}
sy_value sy_value_tensor(const sy_tensor *t)
{
    sy_value v = sy_value_none();
    v.kind = SY_V_TENSOR;
    v.u.t = t;
    return v;
}
sy_value sy_value_list(sy_env *env, size_t n, const sy_value *items)
{
    sy_value v = sy_value_none();
    v.kind = SY_V_LIST;
    sy_value *copy = n ? sy_env_alloc(env, n * sizeof *copy) : NULL;
    if (n && !copy) {
        v.kind = SY_V_NONE;
        return v;
    }
    if (n) memcpy(copy, items, n * sizeof *copy);
    v.u.list.n = n;
    v.u.list.items = copy;
    return v;
}
sy_value sy_value_str(sy_env *env, const char *s)
{
    sy_value v = sy_value_none();
    v.kind = SY_V_STR;
    v.u.s = sy_env_strdup(env, s);
    return v;
}

/* ------------------------------------------------------------------ tensors */

/* ------------------------------------------------------------------ contiguous strides
 * Memoized per env by the sizes (compared by identity: hash-consed, equal
 * sizes are the same nodes). A contiguous tensor shares the array, and
 * sy_tensor_is_contiguous knows such a tensor by one lookup instead of
 * redoing the products (inception_v3: 1400 tensors, 6500 sy_env_mul calls
 * a trace). Constant sizes multiply in int64 (checked): the same node as
 * sy_expr_mul of the constants, without building the product. */

static uint64_t cstr_hash(size_t ndim, const sy_expr *const *sizes)
{
    uint64_t h = 0x9e3779b97f4a7c15ull * (ndim + 1);
    for (size_t i = 0; i < ndim; i++) {
        h = (h ^ (uint64_t)(uintptr_t)sizes[i]) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

static size_t cstr_slot(const sy_env *env, uint64_t h, size_t ndim, const sy_expr *const *sizes)
{
    size_t m = env->cstrcap - 1, j = (size_t)h & m;
    for (;; j = (j + 1) & m) {
        const struct sy_env_cstr *e = &env->cstr[j];
        if (!e->strides) return j;
        if (e->h == h && e->ndim == ndim) {
            size_t i = 0;
            while (i < ndim && e->sizes[i] == sizes[i]) i++;
            if (i == ndim) return j;
        }
    }
}

static bool cstr_used(const void *e) { return ((const struct sy_env_cstr *)e)->strides != NULL; }
static size_t cstr_reslot(const void *env, const void *e)
{
    const struct sy_env_cstr *c = e;
    return cstr_slot(env, c->h, c->ndim, c->sizes);
}

/* the memo's entry for sizes, or NULL */
static const struct sy_env_cstr *cstr_find(const sy_env *env, size_t ndim, const sy_expr *const *sizes, uint64_t h)
{
    if (!env->cstrcap) return NULL;
    const struct sy_env_cstr *e = &env->cstr[cstr_slot(env, h, ndim, sizes)];
    return e->strides ? e : NULL;
}

/* the strides made without a memo entry (a failed allocation only loses the entry) */
static const sy_expr *const *st_only(const struct sy_env_cstr **entry, const sy_expr *const *st)
{
    *entry = NULL;
    return st;
}

/* The row-major strides of sizes (NULL when out of memory) and in *entry
 * the memo's entry holding them, made when missing (its key is sizes itself
 * when sizes_owned, else an env-owned copy), NULL when it could not be
 * stored. */
/* The factor a size contributes to the contiguous strides of the dims before it: Max(size, 1).
 * c10/core/Contiguity.h / TensorImpl's empty_tensor_restride (c10/core/TensorImpl.h,
 * MemoryFormat::Contiguous: `stride[i] = stride[i + 1] * max_or_1(size[i + 1])`, the same in
 * at::detail::computeStorageNbytes's callers) and TensorUtils.cpp computeStride_impl's numel 0
 * case multiply `std::max<int64_t>(size, 1)`: torch.empty(2, 3, 0, 5).stride() is (15, 5, 5, 1),
 * not (0, 0, 5, 1) (measured on 1.13 and 2.14.1). A constant folds; a symbolic size stays
 * Max(s, 1), equal to s wherever the tensor has elements, so the decisions that need s (a view's,
 * a stride comparison's) rewrite it under the facts and touch the symbols they relied on. */
static const sy_expr *stride_factor(sy_ctx *ctx, const sy_expr *s)
{
    int64_t v;
    if (!s) return NULL;
    if (sy_expr_get_si(s, &v) == SY_OK) return v >= 1 ? s : sy_expr_int_si(ctx, 1);
    return sy_expr_max(ctx, s, sy_expr_int_si(ctx, 1));
}

const sy_expr *sy_tensor_contig_stride(sy_ctx *ctx, size_t ndim, const sy_expr *const *sizes, size_t d)
{
    if (!ctx) return NULL;
    if (d >= ndim || !sizes) return SY_NFAIL(ctx, SY_EINVAL, "contiguous stride: dim %zu of a %zu-D tensor", d, ndim);
    const sy_expr *acc = sy_expr_int_si(ctx, 1);
    for (size_t k = ndim; k-- > d + 1 && acc;) acc = sy_expr_mul(ctx, stride_factor(ctx, sizes[k]), acc);
    return acc;
}

static const sy_expr *const *contig_entry(sy_env *env, size_t ndim, const sy_expr *const *sizes, bool sizes_owned,
                                          const struct sy_env_cstr **entry)
{
    uint64_t h = cstr_hash(ndim, sizes);
    const struct sy_env_cstr *hit = cstr_find(env, ndim, sizes, h);
    *entry = hit;
    if (hit) return hit->strides;
    sy_ctx *ctx = env->ctx;
    const sy_expr **st = sy_env_alloc(env, (ndim ? ndim : 1) * sizeof *st);
    if (!st) return NULL;
    const sy_expr *acc = sy_expr_int_si(ctx, 1);
    int64_t ai = 1, v;
    bool isconst = true;
    for (size_t i = ndim; i-- > 0;) {
        st[i] = acc;
        if (!i) break; /* the product of all sizes is no stride */
        if (isconst && sy_expr_get_si(sizes[i], &v) == SY_OK && !sy_i64_mul(ai, v >= 1 ? v : 1, &ai)) {
            acc = sy_expr_int_si(ctx, ai);
        } else {
            isconst = false;
            acc = sy_env_mul(env, acc, stride_factor(ctx, sizes[i]));
        }
        if (!acc) return NULL;
    }
    /* grow: 8 slots first (an ONNX trace has one contiguous tensor per graph
     * input), on the heap, the old table freed (sy_env_free frees the last);
     * a failed allocation only loses the entry */
    if ((env->ncstr + 1) * 2 > env->cstrcap &&
        !sy_otab_grow(env->ctx, (void **)&env->cstr, &env->cstrcap, sizeof *env->cstr, env->cstrcap ? env->cstrcap * 2 : 8,
                      cstr_used, cstr_reslot, env))
        return st_only(entry, st);
    const sy_expr *const *key = sizes;
    if (!sizes_owned) {
        const sy_expr **kc = sy_env_alloc(env, (ndim ? ndim : 1) * sizeof *kc);
        if (!kc) return st_only(entry, st);
        if (ndim) memcpy(kc, sizes, ndim * sizeof *kc);
        key = kc;
    }
    struct sy_env_cstr *e = &env->cstr[cstr_slot(env, h, ndim, key)];
    *e = (struct sy_env_cstr){h, ndim, key, st};
    env->ncstr++;
    *entry = e;
    return st;
}

const sy_expr *const *sy_env_contig_strides(sy_env *env, size_t ndim, const sy_expr *const *sizes, bool sizes_owned)
{
    const struct sy_env_cstr *e;
    return contig_entry(env, ndim, sizes, sizes_owned, &e);
}

/* ------------------------------------------------------------------ expression memo (env_private.h) */

static uint64_t xm_hash(const uint64_t *k)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < SY_XMEMO_KEY; i++) {
        h = (h ^ k[i]) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* the slot of key: its entry, or the empty slot where it goes */
static size_t xm_slot(const sy_env *env, const uint64_t *k)
{
    size_t m = env->xmcap - 1, j = (size_t)xm_hash(k) & m;
    while (env->xm[j].k[0] && memcmp(env->xm[j].k, k, sizeof env->xm[j].k)) j = (j + 1) & m;
    return j;
}

const sy_expr *const *sy_env_xmemo_get(sy_env *env, const uint64_t key[SY_XMEMO_KEY])
{
    if (!env->xmcap || !key[0]) return NULL;
    const struct sy_env_xm *e = &env->xm[xm_slot(env, key)];
    return e->k[0] && e->gen == sy_ctx_generation(env->ctx) ? e->r : NULL;
}

void sy_env_xmemo_put(sy_env *env, const uint64_t key[SY_XMEMO_KEY], const sy_expr *const vals[SY_XMEMO_VALS])
{
    if (!key[0]) return; /* tag 0 marks an empty slot */
    if ((env->nxm + 1) * 2 > env->xmcap) { /* grow (the old table stays in the arena) */
        size_t nc = env->xmcap ? env->xmcap * 2 : 64, oc = env->xmcap;
        struct sy_env_xm *nt = sy_env_alloc(env, nc * sizeof *nt), *ot = env->xm;
        if (!nt) {
            sy_ctx_reset_error(env->ctx); /* only the entry is lost */
            return;
        }
        env->xm = nt; /* zeroed by sy_env_alloc */
        env->xmcap = nc;
        for (size_t i = 0; i < oc; i++)
            if (ot[i].k[0]) env->xm[xm_slot(env, ot[i].k)] = ot[i];
    }
    struct sy_env_xm *e = &env->xm[xm_slot(env, key)];
    if (!e->k[0]) env->nxm++;
    memcpy(e->k, key, sizeof e->k);
    e->gen = sy_ctx_generation(env->ctx);
    memcpy(e->r, vals, sizeof e->r);
}

static const sy_tensor *tensor_make(sy_env *env, sy_dtype dtype, size_t ndim, const sy_expr *const *sizes,
                                    const sy_expr *const *strides, int contiguous);

const sy_tensor *sy_tensor_new(sy_env *env, sy_dtype dtype, size_t ndim, const sy_expr *const *sizes)
{
    return tensor_make(env, dtype, ndim, sizes, NULL, 1);
}

const sy_tensor *sy_tensor_new_strided(sy_env *env, sy_dtype dtype, size_t ndim, const sy_expr *const *sizes,
                                       const sy_expr *const *strides)
{
    if (env && strides)
        for (size_t i = 0; i < ndim; i++) {
            if (!strides[i]) return NULL;
            if (sy_expr_is_bool(strides[i])) return SY_NFAIL(env->ctx, SY_EINVAL, "tensor: stride %zu is a boolean", i);
        }
    return tensor_make(env, dtype, ndim, sizes, strides, 0);
}

static const sy_tensor *tensor_make(sy_env *env, sy_dtype dtype, size_t ndim, const sy_expr *const *sizes,
                                    const sy_expr *const *strides, int contiguous)
{
    if (!env) return NULL;
    if ((unsigned)dtype >= SY_DT_COUNT) return SY_NFAIL(env->ctx, SY_EINVAL, "unknown dtype %d", (int)dtype);
    if (ndim && !sizes) return SY_NFAIL(env->ctx, SY_EINVAL, "tensor: NULL sizes");
    for (size_t i = 0; i < ndim; i++) {
        if (!sizes[i]) return NULL;
        if (sy_expr_is_bool(sizes[i])) return SY_NFAIL(env->ctx, SY_EINVAL, "tensor: size %zu is a boolean", i);
    }
    /* every dim is an int64 at run time: a guard where it may not fit, an error where it never does
     * (issue 38; the ONNX frontend's output dims use the same sy_env_require_int64) */
    for (size_t i = 0; i < ndim; i++) {
        if (sy_expr_kind_of(sizes[i]) == SY_EXPR_SYM) continue;
        char what[32] = "dim ", *w = what + 4, dig[24]; /* "dim %zu" without snprintf (hot: every dim of every tensor) */
        size_t nd = 0, v = i;
        do dig[nd++] = (char)('0' + v % 10);
        while ((v /= 10) != 0);
        while (nd) *w++ = dig[--nd];
        *w = '\0';
        if (sy_env_require_int64(env, sizes[i], what, NULL) != SY_OK) return NULL;
    }
    sy_tensor *t = sy_env_alloc(env, sizeof *t);
    if (!t) return NULL;
    t->dtype = dtype;
    t->ndim = ndim;
    /* Contiguous (or given the row-major strides): the sizes and strides are
     * the contiguous-strides memo's arrays, env-owned and never changed, so
     * tensors of equal sizes share them instead of copies. */
    const struct sy_env_cstr *e = NULL;
    if (contiguous) {
        e = cstr_find(env, ndim, sizes, cstr_hash(ndim, sizes));
        if (!e) {
            const sy_expr **sz = sy_env_alloc(env, (ndim ? ndim : 1) * sizeof *sz);
            if (!sz) return NULL;
            for (size_t i = 0; i < ndim; i++) sz[i] = sizes[i];
            t->strides = contig_entry(env, ndim, sz, true, &e);
            if (!t->strides) return NULL;
            if (!e) { /* not memoized: the tensor's own arrays */
                t->sizes = sz;
                return t;
            }
        }
    } else if (strides && env->cstrcap) {
        e = cstr_find(env, ndim, sizes, cstr_hash(ndim, sizes));
        if (e && e->strides != strides && memcmp(e->strides, strides, ndim * sizeof *strides)) e = NULL;
    }
    if (e) {
        t->sizes = e->sizes;
        t->strides = e->strides;
        return t;
    }
    const sy_expr **sz = sy_env_alloc(env, (ndim ? ndim : 1) * sizeof *sz);
    if (!sz) return NULL;
    for (size_t i = 0; i < ndim; i++) sz[i] = sizes[i];
    t->sizes = sz;
    t->strides = NULL; /* layout not modelled */
    if (strides) {
        const sy_expr **st = sy_env_alloc(env, (ndim ? ndim : 1) * sizeof *st);
        if (!st) return NULL;
        for (size_t i = 0; i < ndim; i++) st[i] = strides[i];
        t->strides = st;
    }
    return t;
}

int sy_tensor_is_contiguous(sy_env *env, const sy_tensor *t)
{
    if (!env || !t || !t->strides) return 0;
    const struct sy_env_cstr *e = cstr_find(env, t->ndim, t->sizes, cstr_hash(t->ndim, t->sizes));
    if (e && (e->strides == t->strides || !memcmp(e->strides, t->strides, t->ndim * sizeof *t->strides)))
        return 1; /* the row-major strides: contiguous (the check below passes them) */
    /* c10 TensorImpl::compute_contiguous: true when numel is 0, else dims of size 1 are
     * skipped and the other strides must be the products of the later sizes. Where numel > 0
     * every size is >= 1, so a stride may be either product, of the sizes or of their
     * Max(size, 1) (the contiguous strides'); where numel is 0 any strides are contiguous.
     * Expressions are hash-consed and canonical, so equal products are the same node. */
    const sy_expr *acc = sy_expr_int_si(env->ctx, 1), *one = acc, *accm = acc;
    for (size_t i = t->ndim; i-- > 0;) {
        if (t->sizes[i] == one) continue;
        if (t->strides[i] != acc && t->strides[i] != accm) return 0;
        if (!i) break;
        acc = sy_env_mul(env, acc, t->sizes[i]);
        accm = sy_env_mul(env, accm, stride_factor(env->ctx, t->sizes[i]));
        if (!acc || !accm) return 0;
    }
    return 1;
}

const sy_tensor *sy_env_input(sy_env *env, const char *name, sy_dtype dtype, size_t ndim, const int64_t *shape,
                              const sy_dim_policy *policies)
{
    return sy_env_input_spec(env, name, dtype, ndim, shape, policies, NULL);
}

static size_t tin_hash_of(const char *t)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *t; t++) h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return (size_t)h;
}

/* The input named name: its slot in env->tin_hash (an empty one when none) */
static size_t tin_find(const sy_env *env, const char *name)
{
    size_t m = env->tin_hcap - 1, j = tin_hash_of(name) & m;
    while (env->tin_hash[j] && strcmp(env->tins[env->tin_hash[j] - 1].name, name)) j = (j + 1) & m;
    return j;
}

/* Room in the name index for one more input; false when out of memory. */
static bool tin_reserve(sy_env *env)
{
    if ((env->ntins + 1) * 2 <= env->tin_hcap) return true;
    size_t nc = env->tin_hcap ? env->tin_hcap * 2 : 32;
    size_t *nh = sy_alloc(env->ctx, nc * sizeof *nh);
    if (!nh) return false;
    memset(nh, 0, nc * sizeof *nh);
    for (size_t i = 0; i < env->ntins; i++) {
        size_t j = tin_hash_of(env->tins[i].name) & (nc - 1);
        while (nh[j]) j = (j + 1) & (nc - 1);
        nh[j] = i + 1;
    }
    if (env->tin_hash) sy_dealloc(env->ctx, env->tin_hash, env->tin_hcap * sizeof *env->tin_hash);
    env->tin_hash = nh;
    env->tin_hcap = nc;
    return true;
}

/* A new zeroed entry at the end of env->inputs (grown by doubling), or NULL
 * when out of memory. */
static sy_input_dim *input_dim_push(sy_env *env)
{
    if (env->ninputs == env->inputcap) {
        size_t nc = env->inputcap ? env->inputcap * 2 : 16;
        sy_input_dim *ni = sy_realloc(env->ctx, env->inputs, env->inputcap * sizeof *ni, nc * sizeof *ni);
        if (!ni) return NULL;
        env->inputs = ni;
        env->inputcap = nc;
    }
    sy_input_dim *d = &env->inputs[env->ninputs++];
    memset(d, 0, sizeof *d);
    return d;
}

const sy_tensor *sy_env_input_spec(sy_env *env, const char *name, sy_dtype dtype, size_t ndim, const int64_t *shape,
                                   const sy_dim_policy *policies, const sy_dim_spec *const *specs)
{
    if (!env) return NULL;
    if (!name || (ndim && !shape)) return SY_NFAIL(env->ctx, SY_EINVAL, "input: NULL argument");
    if (!tin_reserve(env)) return SY_NOOM(env->ctx);
    if (env->tin_hash[tin_find(env, name)]) return SY_NFAIL(env->ctx, SY_EINVAL, "input '%s' is already defined", name);
    if (env->ntins == env->tincap) {
        size_t nc = env->tincap ? env->tincap * 2 : 8;
        sy_env_input_info *nt = sy_realloc(env->ctx, env->tins, env->tincap * sizeof *nt, nc * sizeof *nt);
        if (!nt) return SY_NOOM(env->ctx);
        env->tins = nt;
        env->tincap = nc;
    }
    const char *iname = sy_env_strdup(env, name);
    if (!iname) return NULL;
    const sy_expr **sz = sy_env_alloc(env, (ndim ? ndim : 1) * sizeof *sz);
    if (!sz) return NULL;
    size_t srccap = strlen(name) + 32; /* ".size()[" + 20 digits + "]" */
    char *src = sy_env_alloc(env, srccap);
    if (!src) return NULL;
    for (size_t i = 0; i < ndim; i++) {
        snprintf(src, srccap, "%s.size()[%zu]", name, i);
        sy_dim_policy p = policies ? policies[i] : SY_DIM_DUCK;
        const sy_dim_spec *sp = specs && sy_dim_spec_declared(specs[i]) ? specs[i] : NULL;
        if (sp) p = SY_DIM_DYNAMIC;
        sz[i] = sp ? sy_env_create_symbol_spec(env, shape[i], src, sp) : sy_env_create_symbol(env, shape[i], src, p);
        if (!sz[i]) return NULL;
        sy_dim_spec *spc = NULL;
        if (sp) {
            if (!(spc = sy_env_alloc(env, sizeof *spc))) return NULL;
            *spc = *sp;
            spc->dim = i;
            if (sp->name && !(spc->name = sy_env_strdup(env, sp->name))) return NULL;
        }
        sy_input_dim *d = input_dim_push(env);
        if (!d) return SY_NOOM(env->ctx);
        d->source = sy_env_strdup(env, src);
        d->expr = sz[i];
        d->policy = p;
        d->example = shape[i];
        d->spec = spc;
    }
    const sy_tensor *t = sy_tensor_new(env, dtype, ndim, sz);
    if (t) {
        size_t j = tin_find(env, iname); /* room was reserved above */
        env->tins[env->ntins++] = (sy_env_input_info){iname, dtype, ndim, NULL};
        env->tin_hash[j] = env->ntins;
        if (sy_env_note_input_sizes(env, ndim, t->sizes) != SY_OK) return NULL;
    }
    return t;
}

const sy_tensor *sy_env_input_set_strides(sy_env *env, const char *name, const sy_expr *const *strides)
{
    if (!env) return NULL;
    if (!name || !strides) return SY_NFAIL(env->ctx, SY_EINVAL, "input strides: NULL argument");
    for (size_t i = 0; i < env->ntins; i++) {
        sy_env_input_info *in = &env->tins[i];
        if (strcmp(in->name, name)) continue;
        if (in->strides) return SY_NFAIL(env->ctx, SY_EINVAL, "input '%s': strides declared twice", name);
        const sy_expr **st = sy_env_alloc(env, (in->ndim ? in->ndim : 1) * sizeof *st);
        const sy_expr **sz = sy_env_alloc(env, (in->ndim ? in->ndim : 1) * sizeof *sz);
        if (!st || !sz) return NULL;
        size_t k = 0;
        for (size_t j = 0; j < env->ninputs && k < in->ndim; j++) { /* the input's dims, in order */
            size_t nl = strlen(name);
            if (!strncmp(env->inputs[j].source, name, nl) && !strncmp(env->inputs[j].source + nl, ".size()[", 8)) sz[k++] = env->inputs[j].expr;
        }
        if (k != in->ndim) return SY_NFAIL(env->ctx, SY_EINVAL, "input '%s': its dims are not registered", name);
        for (size_t d = 0; d < in->ndim; d++) st[d] = strides[d];
        const sy_tensor *t = sy_tensor_new_strided(env, in->dtype, in->ndim, sz, st);
        if (!t) return NULL;
        in->strides = t->strides;
        return t;
    }
    return SY_NFAIL(env->ctx, SY_EINVAL, "input strides: no input named '%s'", name);
}

size_t sy_env_ninputs(const sy_env *env) { return env ? env->ntins : 0; }
const sy_env_input_info *sy_env_input_info_at(const sy_env *env, size_t i)
{
    return env && i < env->ntins ? &env->tins[i] : NULL;
}
const sy_env_input_info *sy_env_input_info_find(const sy_env *env, const char *name)
{
    if (!env || !name || !env->tin_hcap) return NULL;
    size_t j = tin_find(env, name);
    return env->tin_hash[j] ? &env->tins[env->tin_hash[j] - 1] : NULL;
}

const sy_tensor *sy_env_input_exprs(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                    const sy_expr *const *dims)
{
    return sy_env_input_exprs_spec(env, name, dtype, ndim, dims, NULL);
}

const sy_tensor *sy_env_input_exprs_spec(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                         const sy_expr *const *dims, const sy_dim_spec *const *specs)
{
    return sy_env_input_exprs_policy(env, name, dtype, ndim, dims, specs, NULL);
}

const sy_tensor *sy_env_input_exprs_policy(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                           const sy_expr *const *dims, const sy_dim_spec *const *specs,
                                           const sy_dim_policy *policies)
{
    if (!env) return NULL;
    if (!name || (ndim && !dims)) return SY_NFAIL(env->ctx, SY_EINVAL, "input: NULL argument");
    /* the whole name, however long: a source cut to a fixed buffer made every dim of a
     * 250-byte name one source (attack38g); sy_env_input_spec sizes its buffer the same way */
    size_t srccap = strlen(name) + 32; /* ".size()[" + 20 digits + "]" */
    char *src = sy_env_alloc(env, srccap);
    if (!src) return NULL;
    for (size_t i = 0; i < ndim; i++) {
        snprintf(src, srccap, "%s.size()[%zu]", name, i);
        int64_t ex = 0;
        sy_dim_policy p = SY_DIM_STATIC;
        if (!dims[i]) return SY_NFAIL(env->ctx, SY_EINVAL, "input %s: dim %zu is NULL", name, i);
        if (sy_expr_get_si(dims[i], &ex) != SY_OK) {
            const sy_symbol_info *si = sy_env_symbol_of(env, dims[i]);
            if (!si || si->unbacked)
                return SY_NFAIL(env->ctx, SY_EINVAL, "input %s: dim %zu is neither an int64 constant nor a backed symbol of the env",
                                name, i);
            if (!sy_env_symbol_add_source(env, dims[i], src)) return NULL; /* SY_EINVAL: another symbol's source; SY_ENOMEM */
            ex = si->hint;
            p = SY_DIM_DYNAMIC;
        } else if (ex < 0) {
            return SY_NFAIL(env->ctx, SY_EINVAL, "input %s: dim %zu is negative (%lld)", name, i, (long long)ex);
        } else if (policies && policies[i] != SY_DIM_STATIC) {
            p = policies[i]; /* a dynamic dim the env made a constant (0/1 specialization) */
        }
        sy_input_dim *d = input_dim_push(env);
        if (!d) return SY_NOOM(env->ctx);
        d->source = sy_env_strdup(env, src);
        if (!d->source) return NULL;
        d->expr = dims[i];
        d->policy = p;
        d->example = ex;
        if (specs && sy_dim_spec_declared(specs[i])) {
            sy_dim_spec *spc = sy_env_alloc(env, sizeof *spc);
            if (!spc) return NULL;
            *spc = *specs[i];
            spc->dim = i;
            if (specs[i]->name && !(spc->name = sy_env_strdup(env, specs[i]->name))) return NULL;
            d->spec = spc;
            d->policy = SY_DIM_DYNAMIC;
        }
    }
    const sy_tensor *t = sy_tensor_new(env, dtype, ndim, dims);
    if (t && sy_env_note_input_sizes(env, ndim, t->sizes) != SY_OK) return NULL;
    return t;
}

size_t sy_env_ninput_dims(const sy_env *env) { return env ? env->ninputs : 0; }
const sy_input_dim *sy_env_input_dim(const sy_env *env, size_t i)
{
    return env && i < env->ninputs ? &env->inputs[i] : NULL;
}

/* ------------------------------------------------------------------ argument helpers */

const sy_expr *KI(opcall *c, int64_t v) { return sy_expr_int_si(c->env->ctx, v); }

sy_status op_err(opcall *c, sy_status st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* a message that names the op already (op_require's reasons, "cat: sizes of dim ...")
     * is not prefixed again: "cat: cat: ..." */
    size_t n = strlen(c->op);
    if (!strncmp(msg, c->op, n) && msg[n] == ':' && msg[n + 1] == ' ') return sy_fail_st(c->env->ctx, st, "%s", msg);
    return sy_fail_st(c->env->ctx, st, "%s: %s", c->op, msg);
}

const sy_value *op_arg(opcall *c, size_t pos, const char *kw)
{
    if (kw)
        for (size_t i = 0; i < c->nkw; i++)
            if (c->kwnames[i][0] == kw[0] && !strcmp(c->kwnames[i], kw)) { /* the first character first: most names differ there */
                if (pos != (size_t)-1 && pos < c->nargs && !c->dup_kw) { /* Python: multiple values */
                    c->dup_kw = kw;
                    c->dup_pos = pos;
                }
                return &c->kwvals[i];
            }
    if (pos != (size_t)-1 && pos < c->nargs) return &c->args[pos];
    return NULL;
}

static const char *argdesc(size_t pos, const char *kw, char *buf, size_t n)
{
    if (kw) snprintf(buf, n, "'%s'", kw);
    else snprintf(buf, n, "#%zu", pos);
    return buf;
}

sy_status op_tensor(opcall *c, size_t pos, const char *kw, const sy_tensor **out)
{
    const sy_value *v = op_arg(c, pos, kw);
    char b[64];
    if (!v || v->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "argument %s must be a tensor", argdesc(pos, kw, b, sizeof b));
    *out = v->u.t;
    return SY_OK;
}

sy_status op_opt_tensor(opcall *c, size_t pos, const char *kw, const sy_tensor **out)
{
    const sy_value *v = op_arg(c, pos, kw);
    *out = NULL;
    if (!v || v->kind == SY_V_NONE) return SY_OK;
    char b[64];
    if (v->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "argument %s must be a tensor or None", argdesc(pos, kw, b, sizeof b));
    *out = v->u.t;
    return SY_OK;
}

/* v as a symbolic int (Python bool is an int); 0 when it is not one */
static int int_value(opcall *c, const sy_value *v, const sy_expr **out)
{
    if (v->kind == SY_V_INT) {
        *out = v->u.i;
        return 1;
    }
    if (v->kind == SY_V_BOOL) {
        const sy_expr *b = v->u.i;
        if (sy_expr_kind_of(b) == SY_EXPR_TRUE || sy_expr_kind_of(b) == SY_EXPR_FALSE) {
            *out = KI(c, sy_expr_kind_of(b) == SY_EXPR_TRUE);
            return 1;
        }
    }
    return 0;
}

static sy_status as_int(opcall *c, const sy_value *v, const sy_expr **out, const char *what)
{
    return int_value(c, v, out) ? SY_OK : op_err(c, SY_EINVAL, "%s must be an integer", what);
}

/* as_int for argument pos / kw, its name formatted only for the error */
static sy_status as_int_arg(opcall *c, const sy_value *v, const sy_expr **out, size_t pos, const char *kw)
{
    if (int_value(c, v, out)) return SY_OK;
    char b[64];
    return as_int(c, v, out, argdesc(pos, kw, b, sizeof b));
}

sy_status op_int(opcall *c, size_t pos, const char *kw, const sy_expr **out)
{
    const sy_value *v = op_arg(c, pos, kw);
    char b[64];
    if (!v) return op_err(c, SY_EINVAL, "missing integer argument %s", argdesc(pos, kw, b, sizeof b));
    return as_int_arg(c, v, out, pos, kw);
}

sy_status op_int_def(opcall *c, size_t pos, const char *kw, int64_t def, const sy_expr **out)
{
    const sy_value *v = op_arg(c, pos, kw);
    if (!v || v->kind == SY_V_NONE) {
        *out = KI(c, def);
        return SY_OK;
    }
    return as_int_arg(c, v, out, pos, kw);
}

sy_status op_const_int(opcall *c, size_t pos, const char *kw, int64_t def, int64_t *out)
{
    const sy_expr *e = NULL;
    sy_status st = op_int_def(c, pos, kw, def, &e);
    if (st) return st;
    char b[64];
    if (sy_expr_get_si(e, out) != SY_OK) {
        /* a symbolic value used where PyTorch needs a Python int: guard_int */
        const sy_expr *v = NULL;
        sy_provenance why = {c->where ? c->where->node : NULL, c->op, "argument specialized to a constant"};
        if ((st = sy_env_evaluate_expr(c->env, e, &why, &v))) return st;
        if (sy_expr_get_si(v, out) != SY_OK) return op_err(c, SY_EINVAL, "argument %s out of range", argdesc(pos, kw, b, sizeof b));
    }
    return SY_OK;
}

sy_status op_bool_def(opcall *c, size_t pos, const char *kw, int def, int *out)
{
    const sy_value *v = op_arg(c, pos, kw);
    *out = def;
    if (!v || v->kind == SY_V_NONE) return SY_OK;
    char b[64];
    if (v->kind == SY_V_BOOL || v->kind == SY_V_INT) {
        const sy_expr *e = v->u.i, *r;
        if (v->kind == SY_V_INT) e = sy_expr_ne(c->env->ctx, e, KI(c, 0));
        sy_provenance why = {c->where ? c->where->node : NULL, c->op, "boolean argument"};
        sy_status st = sy_env_evaluate_expr(c->env, e, &why, &r);
        if (st) return st;
        *out = sy_expr_kind_of(r) == SY_EXPR_TRUE;
        return SY_OK;
    }
    return op_err(c, SY_EINVAL, "argument %s must be a bool", argdesc(pos, kw, b, sizeof b));
}

sy_status op_int_list(opcall *c, size_t pos, const char *kw, size_t n, const int64_t *def, int64_t *out)
{
    const sy_value *v = op_arg(c, pos, kw);
    char b[64];
    if (!v || v->kind == SY_V_NONE) {
        if (!def) return op_err(c, SY_EINVAL, "missing argument %s", argdesc(pos, kw, b, sizeof b));
        for (size_t i = 0; i < n; i++) out[i] = def[i];
        return SY_OK;
    }
    if (v->kind == SY_V_LIST) {
        if (v->u.list.n != n && v->u.list.n != 1)
            return op_err(c, SY_EINVAL, "argument %s must have %zu elements, got %zu", argdesc(pos, kw, b, sizeof b), n,
                          v->u.list.n);
        for (size_t i = 0; i < n; i++) {
            const sy_value *x = &v->u.list.items[v->u.list.n == 1 ? 0 : i];
            const sy_expr *e = NULL;
            sy_status st = as_int_arg(c, x, &e, pos, kw);
            if (st) return st;
            if (sy_expr_get_si(e, &out[i]) != SY_OK)
                return op_err(c, SY_EINVAL, "argument %s must be constant integers", argdesc(pos, kw, b, sizeof b));
        }
        return SY_OK;
    }
    const sy_expr *e = NULL;
    sy_status st = as_int_arg(c, v, &e, pos, kw);
    if (st) return st;
    int64_t x;
    if (sy_expr_get_si(e, &x) != SY_OK) return op_err(c, SY_EINVAL, "argument %s must be a constant integer", argdesc(pos, kw, b, sizeof b));
    for (size_t i = 0; i < n; i++) out[i] = x;
    return SY_OK;
}

sy_status op_sym_list(opcall *c, size_t pos, const char *kw, size_t n, const sy_expr **out)
{
    const sy_value *v = op_arg(c, pos, kw);
    char b[64];
    if (!v || v->kind == SY_V_NONE) return op_err(c, SY_EINVAL, "missing argument %s", argdesc(pos, kw, b, sizeof b));
    if (v->kind != SY_V_LIST) {
        sy_status st = as_int_arg(c, v, &out[0], pos, kw);
        for (size_t i = 1; i < n && !st; i++) out[i] = out[0];
        return st;
    }
    if (v->u.list.n != n && v->u.list.n != 1)
        return op_err(c, SY_EINVAL, "argument %s must have %zu elements, got %zu", argdesc(pos, kw, b, sizeof b), n, v->u.list.n);
    for (size_t i = 0; i < n; i++) {
        sy_status st = as_int_arg(c, &v->u.list.items[v->u.list.n == 1 ? 0 : i], &out[i], pos, kw);
        if (st) return st;
    }
    return SY_OK;
}

sy_status op_shape_args(opcall *c, size_t pos, const char *kw, const sy_expr ***out, size_t *n)
{
    const sy_value *v = op_arg(c, pos, kw);
    const sy_value *items;
    size_t cnt;
    if (v && v->kind == SY_V_LIST && (c->nargs <= pos + 1 || kw)) {
        items = v->u.list.items;
        cnt = v->u.list.n;
    } else if (pos < c->nargs) {
        items = &c->args[pos];
        cnt = c->nargs - pos;
    } else {
        return op_err(c, SY_EINVAL, "missing shape");
    }
    const sy_expr **e = sy_env_alloc(c->env, (cnt ? cnt : 1) * sizeof *e);
    if (!e) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < cnt; i++) {
        sy_status st = as_int(c, &items[i], &e[i], "shape entry");
        if (st) return st;
    }
    *out = e;
    *n = cnt;
    return SY_OK;
}

int sy_opc_torch1(const opcall *c) { return c->env->torch_version > 0 && c->env->torch_version < 200; }

sy_status sy_opc_require(opcall *c, const sy_expr *rel, const char *fmt, ...)
{
    if (!rel) return sy_ctx_last_error(c->env->ctx);
    if (sy_expr_kind_of(rel) == SY_EXPR_TRUE) return SY_OK; /* nothing to record: skip formatting */
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, msg};
    sy_status st = sy_env_require(c->env, rel, &why);
    if (st == SY_EINVAL && !strcmp(sy_ctx_last_error_msg(c->env->ctx), msg)) return op_err(c, st, "%s", msg);
    return st;
}

sy_status op_decide_bool(opcall *c, const sy_expr *rel, const char *reason, int *out)
{
    if (!rel) return sy_ctx_last_error(c->env->ctx);
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, reason};
    const sy_expr *v;
    sy_status st = sy_env_evaluate_expr(c->env, rel, &why, &v);
    if (st) return st;
    *out = sy_expr_kind_of(v) == SY_EXPR_TRUE;
    return SY_OK;
}

sy_status op_decide_limit(opcall *c, const sy_expr *rel, const char *reason, int *out)
{
    if (!rel) return sy_ctx_last_error(c->env->ctx);
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, reason};
    const sy_expr *v;
    sy_status st = sy_env_evaluate_limit(c->env, rel, &why, &v);
    if (st) return st;
    *out = sy_expr_kind_of(v) == SY_EXPR_TRUE;
    return SY_OK;
}

sy_status op_known_true(opcall *c, const sy_expr *rel, int *out)
{
    /* sy_env_try_decide marks the symbols relied upon when the facts decide it */
    int known = 0, val = 0;
    sy_status st = sy_env_try_decide(c->env, rel, &known, &val);
    *out = known && val;
    return st;
}

const sy_tensor *op_new_tensor(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes)
{
    return sy_tensor_new(c->env, dt, ndim, sizes);
}

sy_status op_set_tensor(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes)
{
    const sy_tensor *t = op_new_tensor(c, dt, ndim, sizes);
    if (!t) return sy_ctx_last_error(c->env->ctx);
    *c->out = sy_value_tensor(t);
    return SY_OK;
}

sy_status op_wrap_dim(opcall *c, int64_t dim, size_t ndim, size_t *out)
{
    if (ndim == 0) return op_err(c, SY_EINVAL, "dimension specified as %lld but tensor has no dimensions", (long long)dim);
    int64_t n = (int64_t)ndim;
    if (dim < -n || dim >= n)
        return op_err(c, SY_EINVAL, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                      (long long)-n, (long long)(n - 1), (long long)dim);
    *out = (size_t)(dim < 0 ? dim + n : dim);
    return SY_OK;
}

/* infer_size (aten/src/ATen/ExpandUtils.cpp): align right; each pair of dims
 * by the rule both frontends share (shapeenv/rules.c sy_rule_bcast_dim). */
typedef struct {
    opcall *c;
    const sy_expr *x, *y;
    size_t i;
    char msg[768];
} bcast_arg;

static const char *bcast_reason(void *arg, int which)
{
    (void)which;
    bcast_arg *b = arg;
    snprintf(b->msg, sizeof b->msg, "The size of tensor a (%s) must match the size of tensor b (%s) at non-singleton dimension %zu",
             sy_env_show(b->c->env, b->x), sy_env_show(b->c->env, b->y), b->i);
    return b->msg;
}

sy_status op_broadcast(opcall *c, const sy_expr *const *a, size_t na, const sy_expr *const *b, size_t nb,
                       const sy_expr ***out, size_t *nout)
{
    size_t n = na > nb ? na : nb;
    const sy_expr **r = sy_env_alloc(c->env, (n ? n : 1) * sizeof *r);
    if (!r) return sy_ctx_last_error(c->env->ctx);
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, NULL};
    bcast_arg ba = {.c = c};
    for (size_t i = 0; i < n; i++) {
        const sy_expr *x = i < n - na ? NULL : a[i - (n - na)];
        const sy_expr *y = i < n - nb ? NULL : b[i - (n - nb)];
        if (!x) { r[i] = y; continue; }
        if (!y) { r[i] = x; continue; }
        ba.x = x;
        ba.y = y;
        ba.i = i;
        ba.msg[0] = 0;
        sy_status st = sy_rule_bcast_dim(c->env, &why, x, y, bcast_reason, &ba, &r[i]);
        if (st == SY_EINVAL && ba.msg[0] && !strcmp(sy_ctx_last_error_msg(c->env->ctx), ba.msg)) return op_err(c, st, "%s", ba.msg);
        if (st) return st;
        if (!r[i]) return op_err(c, SY_EINVAL, "%s", bcast_reason(&ba, 0));
    }
    *out = r;
    *nout = n;
    return SY_OK;
}

/* ------------------------------------------------------------------ dispatch */

const opentry *const sy_op_tables[] = {sy_ops_elementwise, sy_ops_nn,    sy_ops_shape, sy_ops_scalar, sy_ops_dynamic,
                                      sy_ops_rnn,         sy_ops_reduce, sy_ops_index, sy_ops_misc,   sy_ops_pointwise,
                                      sy_ops_extra,       sy_ops_advindex, sy_ops_torchvision, NULL};

/* op lookup: an index by name over the rows of every table (sy_strindex), built once
 * (pthread_once: the tables are shared by every thread and context). A name in two rows keeps
 * the first (test shapeenv_optable fails on it). */
#define OPHASH 2048 /* a power of two; at most OPHASH/2 ops */
static const void *op_slots[OPHASH];
static sy_strindex op_index = SY_STRINDEX_INIT(op_slots);
static pthread_once_t op_index_once = PTHREAD_ONCE_INIT;

static void build_op_index(void)
{
    for (int t = 0; sy_op_tables[t]; t++)
        for (const opentry *e = sy_op_tables[t]; e->name; e++) (void)sy_strindex_add(&op_index, e);
}

const opentry *sy_env_op_row(const char *name)
{
    if (!name) return NULL;
    pthread_once(&op_index_once, build_op_index);
    return sy_strindex_find(&op_index, name);
}

int sy_env_op_memoizable(const char *name)
{
    const opentry *e = sy_env_op_row(name);
    return e && (e->flags & (OP_MEMO | OP_IMPURE)) == OP_MEMO;
}

/* the op's function (NULL: unknown) and, when found and layout is not NULL, *layout its layout class */
static opfn find_op(const char *name, int *layout)
{
    const opentry *e = sy_env_op_row(name);
    if (!e) return NULL;
    if (layout) *layout = e->layout;
    return e->fn;
}

int sy_env_has_op(const char *op) { return op && find_op(op, NULL) != NULL; }

/* every op name of the tables, built once; the index above holds at most
 * OPHASH/2 ops, so OPHASH slots hold them all and the NULL */
static const char *op_names[OPHASH];
static pthread_once_t op_names_once = PTHREAD_ONCE_INIT;

static void build_op_names(void)
{
    size_t n = 0;
    for (int t = 0; sy_op_tables[t]; t++)
        for (const opentry *e = sy_op_tables[t]; e->name && n < OPHASH - 1; e++) op_names[n++] = e->name;
    op_names[n] = NULL;
}

const char *const *sy_env_op_names(void)
{
    pthread_once(&op_names_once, build_op_names);
    return op_names;
}

sy_status sy_env_call(sy_env *env, const char *op, size_t nargs, const sy_value *args, size_t nkw,
                      const char *const *kwnames, const sy_value *kwvals, const sy_provenance *where, sy_value *out)
{
    if (!env) return SY_EINVAL;
    if (!op || !out || (nargs && !args) || (nkw && (!kwnames || !kwvals)))
        return sy_env_fail(env, SY_EINVAL, "call: NULL argument");
    int layout = 0;
    opfn fn = find_op(op, &layout);
    if (!fn) return sy_env_fail(env, SY_EUNSUPPORTED, "unknown op '%s'", op);
    /* dtype="bool": a dtype spelled as its torch name (a plain string in a graph, as the dtype
     * comparisons read it) is that dtype for every op, never ignored (issue 32: a factory fell
     * back to float32); a string that names no dtype is an error */
    for (size_t i = 0; i < nkw; i++) {
        if (!kwnames[i] || strcmp(kwnames[i], "dtype") || kwvals[i].kind != SY_V_STR) continue;
        sy_dtype d;
        if (sy_dtype_parse(kwvals[i].u.s, &d))
            return sy_env_fail(env, SY_EINVAL, "%s: dtype '%s' names no dtype (torch names such as bool, float32, torch.int64, long)",
                               op, kwvals[i].u.s);
        sy_value *kv = sy_env_alloc(env, nkw * sizeof *kv);
        if (!kv) return sy_ctx_last_error(env->ctx);
        memcpy(kv, kwvals, nkw * sizeof *kv);
        kv[i].kind = SY_V_DTYPE;
        kv[i].u.dtype = d;
        kwvals = kv;
    }
    opcall c = {env, op, nargs, args, nkw, kwnames, kwvals, where, out, NULL, 0, NULL, 0, SY_OK, layout};
    *out = sy_value_none();
    sy_ctx_reset_error(env->ctx);
    int owned = env->layout_owned;
    const char *cop = env->cur_op, *cnode = env->cur_node;
    env->layout_owned = 0;
    env->cur_op = op;
    env->cur_node = where ? where->node : NULL;
    sy_status st = sy_layout_force_args(&c); /* deferred strides the op observes: decided now */
    if (st == SY_OK) st = fn(&c);
    if (st == SY_OK) st = sy_layout_after_call(&c);
    if (st == SY_OK) st = sy_layout_defer_results(&c);
    if (st == SY_OK) st = sy_env_values_after_call(&c);
    else env->vpend = 0;
    env->layout_owned = owned;
    env->cur_op = cop;
    env->cur_node = cnode;
    if (st == SY_OK && c.dup_kw) { /* as Python: f() got multiple values for argument */
        *out = sy_value_none();
        return op_err(&c, SY_EINVAL, "got multiple values for argument '%s' (positional #%zu and keyword)", c.dup_kw,
                      c.dup_pos);
    }
    return st;
}

/* ------------------------------------------------------------------ typed shortcuts */

static const sy_tensor *call_t(sy_env *env, const char *op, size_t n, const sy_value *args, size_t nkw,
                               const char *const *kwn, const sy_value *kwv)
{
    sy_value out;
    /* the provenance of sy_env_set_provenance, with this call's op */
    const sy_provenance *tw = &env->typed_where;
    sy_provenance w = {tw->node, op, tw->reason};
    int have = tw->node || tw->reason;
    if (sy_env_call(env, op, n, args, nkw, kwn, kwv, have ? &w : NULL, &out) != SY_OK) return NULL;
    if (out.kind != SY_V_TENSOR) return SY_NFAIL(env->ctx, SY_ERROR, "%s did not return a tensor", op);
    return out.u.t;
}

const sy_tensor *sy_op_matmul(sy_env *env, const sy_tensor *a, const sy_tensor *b)
{
    if (!env) return NULL;
    if (!a || !b) return SY_NFAIL(env->ctx, SY_EINVAL, "matmul: NULL argument");
    sy_value v[2] = {sy_value_tensor(a), sy_value_tensor(b)};
    return call_t(env, "matmul", 2, v, 0, NULL, NULL);
}

const sy_tensor *sy_op_add(sy_env *env, const sy_tensor *a, const sy_tensor *b)
{
    if (!env) return NULL;
    if (!a || !b) return SY_NFAIL(env->ctx, SY_EINVAL, "add: NULL argument");
    sy_value v[2] = {sy_value_tensor(a), sy_value_tensor(b)};
    return call_t(env, "add", 2, v, 0, NULL, NULL);
}

const sy_tensor *sy_op_cat(sy_env *env, size_t n, const sy_tensor *const *ts, int64_t dim)
{
    if (!env) return NULL;
    if (n && !ts) return SY_NFAIL(env->ctx, SY_EINVAL, "cat: NULL argument");
    sy_value *items = sy_env_alloc(env, (n ? n : 1) * sizeof *items);
    if (!items) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!ts[i]) return SY_NFAIL(env->ctx, SY_EINVAL, "cat: NULL tensor %zu", i);
        items[i] = sy_value_tensor(ts[i]);
    }
    sy_value v[2] = {sy_value_list(env, n, items), sy_value_int_si(env, dim)};
    return call_t(env, "cat", 2, v, 0, NULL, NULL);
}

const sy_tensor *sy_op_view(sy_env *env, const sy_tensor *x, size_t n, const sy_expr *const *shape)
{
    if (!env) return NULL;
    if (!x || (n && !shape)) return SY_NFAIL(env->ctx, SY_EINVAL, "view: NULL argument");
    sy_value *items = sy_env_alloc(env, (n + 1) * sizeof *items);
    if (!items) return NULL;
    items[0] = sy_value_tensor(x);
    for (size_t i = 0; i < n; i++) {
        if (!shape[i]) return SY_NFAIL(env->ctx, SY_EINVAL, "view: NULL size %zu", i);
        items[i + 1] = sy_value_int(shape[i]);
    }
    return call_t(env, "view", n + 1, items, 0, NULL, NULL);
}

const sy_tensor *sy_op_conv2d(sy_env *env, const sy_tensor *x, const sy_tensor *w, const sy_tensor *bias,
                              const int64_t stride[2], const int64_t padding[2], const int64_t dilation[2],
                              int64_t groups)
{
    if (!env) return NULL;
    if (!x || !w || !stride || !padding || !dilation) return SY_NFAIL(env->ctx, SY_EINVAL, "conv2d: NULL argument");
    sy_value s[2] = {sy_value_int_si(env, stride[0]), sy_value_int_si(env, stride[1])};
    sy_value p[2] = {sy_value_int_si(env, padding[0]), sy_value_int_si(env, padding[1])};
    sy_value d[2] = {sy_value_int_si(env, dilation[0]), sy_value_int_si(env, dilation[1])};
    sy_value v[7] = {sy_value_tensor(x), sy_value_tensor(w), bias ? sy_value_tensor(bias) : sy_value_none(),
                     sy_value_list(env, 2, s), sy_value_list(env, 2, p), sy_value_list(env, 2, d),
                     sy_value_int_si(env, groups)};
    return call_t(env, "conv2d", 7, v, 0, NULL, NULL);
}
