/* Value bounds of integer tensors whose values are a known function of sizes
 * (GPT-2's `wpe(torch.arange(T))` was accepted at T past the table's rows,
 * where the CPU raises "index out of range in self").
 *
 * A private side table of the env maps a result tensor to bounds [lo, hi]
 * (integer expressions): when the tensor has an element, lo and hi are its
 * least and greatest elements (attained, not just bounds), so a requirement
 * built from them is the model's own condition, never a limit of ours.
 * Source: `arange` with integer arguments and an integer result (ops_shape.c):
 * int64, int32, int16, int8 or uint8, whose values wrap modulo 2^bits of the
 * dtype (RangeFactories.cpp computes start + i * step in int64 and casts:
 * torch.arange(300, dtype=torch.uint8) ends 41, 42, 43 and
 * torch.arange(70000, dtype=torch.int16) passes 32767, -32768 on the CPU, 1.13
 * and 2.x), the bounds then kept as exact integers with `ring` set (below);
 * and a constant integer tensor whose least and greatest elements the graph
 * gives (a param with "values": sy_env_values_set_const).
 * Propagation (sy_env_values_after_call, on the op's final result): ops whose
 * integer result holds exactly the same set of values as their first argument
 * whenever it has an element (views, copies, broadcasts, repeats, integer
 * conversions, indexing with only None / Ellipsis / `:`) keep its bounds;
 * `add`/`sub` with an integer scalar (times a constant alpha) and `rsub` (s - alpha*x) shift
 * them. Any op that may write into a tensor (a name ending in '_', setitem,
 * the augmented assignments, an `out=` argument, `inplace` true or maybe true)
 * empties the table: an alias
 * of a bounded tensor may change its values. A tensor not in the table holds
 * data values: nothing is checked (docs/ops.md, embedding). */
#include <string.h>
#include "algebra/internal.h"
#include "shapeenv/env_private.h"

sy_status sy_slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                       int64_t *step);

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

int sy_env_values_get(const sy_env *env, const sy_tensor *t, sy_vbounds *b)
{
    size_t p = 0;
    if (!env || !t || !vb_find(env, t, &p)) return 0;
    *b = env->vb[p].b;
    return 1;
}

sy_status sy_env_values_set(sy_env *env, const sy_tensor *t, const sy_vbounds *b)
{
    if (!b->n || b->n > SY_VB_PARTS) return SY_OK; /* nothing known: not recorded */
    for (size_t i = 0; i < b->n; i++)
        if (!b->part[i].lo || !b->part[i].hi || !b->part[i].cnt) return sy_ctx_last_error(env->ctx);
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
    env->vb[p].b = *b;
    return SY_OK;
}

sy_vbounds sy_vbounds_seq(sy_ctx *ctx, const sy_expr *first, int64_t step, const sy_expr *n)
{
    sy_vbounds b;
    memset(&b, 0, sizeof b);
    const sy_expr *last = sy_expr_add(ctx, first, sy_expr_mul(ctx, sy_expr_sub(ctx, n, sy_expr_int_si(ctx, 1)), sy_expr_int_si(ctx, step)));
    b.n = 1;
    b.part[0].lo = step > 0 ? first : last;
    b.part[0].hi = step > 0 ? last : first;
    b.part[0].cnt = n;
    b.part[0].dense = step == 1 || step == -1;
    b.first = first;
    b.step = step;
    return b;
}

/* A constant index tensor (a buffer, a parameter, a tensor attribute, torch.tensor([0, 3]) or
 * torch.arange(4) made in forward: the exporter writes its least and greatest elements) is checked
 * as an index from sizes is: its values are the same at every input size, and lo and hi are
 * elements, so the part's bounds are attained and a requirement built from them is the model's
 * own condition. Not dense (gaps unknown), not a sequence. */
sy_status sy_env_values_set_const(sy_env *env, const sy_tensor *t, int64_t lo, int64_t hi, int64_t step)
{
    int64_t n = 1;
    if (!sy_vb_int_dtype(t->dtype, NULL, NULL, NULL)) return SY_OK;
    for (size_t i = 0; i < t->ndim; i++) {
        int64_t d;
        if (sy_expr_get_si(t->sizes[i], &d) || __builtin_mul_overflow(n, d, &n)) return SY_OK;
    }
    if (n <= 0 || lo > hi) return SY_OK;
    sy_ctx *ctx = env->ctx;
    sy_vbounds b;
    memset(&b, 0, sizeof b);
    b.n = 1;
    b.part[0].lo = sy_expr_int_si(ctx, lo);
    b.part[0].hi = sy_expr_int_si(ctx, hi);
    b.part[0].cnt = sy_expr_int_si(ctx, n);
    if (step && step != INT64_MIN) { /* an arange written as a constant (the exporter): exact again */
        b = sy_vbounds_seq(ctx, sy_expr_int_si(ctx, step > 0 ? lo : hi), step, sy_expr_int_si(ctx, n));
        if (!b.first) return sy_ctx_last_error(ctx);
    }
    return sy_env_values_set(env, t, &b);
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

static void convert(sy_ctx *ctx, sy_vbounds *b, sy_dtype from, sy_dtype to);

/* a tracked tensor t: its bounds in *b, converted to the result's dtype (convert); a failed
 * conversion (an error recorded in the context) sets env->vfail: the call fails */
static int bounded(const opcall *c, const sy_tensor *t, sy_vbounds *b)
{
    if (!sy_env_values_get(c->env, t, b)) return 0;
    b->rows = 0; /* the same set of values, but no longer one part per row */
    convert(c->env->ctx, b, t->dtype, c->out->u.t->dtype);
    if (!b->n) c->env->vfail = 1;
    return b->n > 0;
}

static int bounded_arg(const opcall *c, size_t i, sy_vbounds *b)
{
    return i < c->nargs && c->args[i].kind == SY_V_TENSOR && bounded(c, c->args[i].u.t, b);
}

/* alpha of add/sub/rsub (#2 or keyword) as *v: absent (1) or a constant integer; 0 for anything else */
static int alpha_of(const opcall *c, int64_t *v)
{
    const sy_value *a = c->nargs > 2 ? &c->args[2] : NULL;
    for (size_t i = 0; i < c->nkw; i++)
        if (c->kwnames[i] && !strcmp(c->kwnames[i], "alpha")) a = &c->kwvals[i];
    *v = 1;
    return !a || a->kind == SY_V_NONE || (a->kind == SY_V_INT && !sy_expr_get_si(a->u.i, v));
}

/* argument #pos or keyword kw; NULL when absent */
static const sy_value *arg(const opcall *c, size_t pos, const char *kw)
{
    for (size_t i = 0; kw && i < c->nkw; i++)
        if (c->kwnames[i] && !strcmp(c->kwnames[i], kw)) return &c->kwvals[i];
    return pos < c->nargs ? &c->args[pos] : NULL;
}

static int const_int(const sy_value *v, int64_t *k) { return v && v->kind == SY_V_INT && !sy_expr_get_si(v->u.i, k); }

/* How an op's int64 result's values follow its tracked argument's (one row per op; an op not
 * listed forgets: its result's values are data). Every rule keeps lo and hi attained: */
typedef enum {
    VK_SAME,     /* the same set of values (views, copies, broadcasts, repeats): order lost */
    VK_ORDER,    /* the same values in the same order when 1-D to 1-D (a 1-D sequence kept) */
    VK_FLIP,     /* flip: a 1-D sequence reversed, else the same set */
    VK_ADD,      /* x + s, s + x (integer s, alpha 1), x + y of two tracked tensors broadcast as an outer sum */
    VK_SUB,      /* x - s, s - x, x - y (outer) */
    VK_RSUB,     /* rsub(x, s) = s - x */
    VK_MUL,      /* x * s, s * x (integer s, any sign: Min/Max of the ends), x * y (outer) */
    VK_NEG,      /* -x */
    VK_FLOORDIV, /* x // k, floor_divide(x, k), div(x, k, rounding_mode='floor'): constant k != 0 (monotone) */
    VK_MOD,      /* x % k, remainder(x, k): constant k > 0, each part dense (every integer of [lo, hi]) */
    VK_CLAMP,    /* clamp/clip(x, min, max) with integer or None bounds (monotone) */
    VK_CLAMP_MIN,
    VK_CLAMP_MAX,
    VK_CAT,      /* cat/stack of tracked tensors: the union of their parts (an empty input's parts absent) */
    VK_GETITEM   /* x[:] / None / ...: the same set; a 1-D sequence's slice x[a:b:s]: a sequence; its
                  * element x[i] (select(x, 0, i)): a 0-d tensor of one value */
} vkind;

static const struct vrow {
    const char *op;
    vkind k;
} vrows[] = {
    {"unsqueeze", VK_SAME}, {"squeeze", VK_SAME}, {"expand", VK_SAME}, {"expand_as", VK_SAME}, {"repeat", VK_SAME},
    {"roll", VK_SAME}, {"fliplr", VK_SAME}, {"flipud", VK_SAME}, {"view", VK_ORDER}, {"reshape", VK_ORDER},
    {"flatten", VK_ORDER}, {"view_as", VK_ORDER}, {"reshape_as", VK_ORDER}, {"clone", VK_ORDER},
    {"contiguous", VK_ORDER}, {"detach", VK_ORDER}, {"to", VK_ORDER}, {"long", VK_ORDER}, {"int", VK_ORDER},
    {"short", VK_ORDER}, {"char", VK_ORDER}, {"byte", VK_ORDER}, {"type_as", VK_ORDER}, {"transpose", VK_ORDER},
    {"permute", VK_ORDER}, {"t", VK_ORDER}, {"flip", VK_FLIP}, {"add", VK_ADD}, {"sub", VK_SUB}, {"rsub", VK_RSUB},
    {"mul", VK_MUL}, {"neg", VK_NEG}, {"floordiv", VK_FLOORDIV}, {"floor_divide", VK_FLOORDIV}, {"div", VK_FLOORDIV},
    {"mod", VK_MOD}, {"remainder", VK_MOD}, {"clamp", VK_CLAMP}, {"clip", VK_CLAMP}, {"clamp_min", VK_CLAMP_MIN},
    {"clamp_max", VK_CLAMP_MAX}, {"cat", VK_CAT}, {"concat", VK_CAT}, {"concatenate", VK_CAT}, {"stack", VK_CAT},
    {"getitem", VK_GETITEM}, {"select", VK_GETITEM}, {NULL, VK_SAME}};

static int is_one(const sy_expr *e)
{
    int64_t v;
    return !sy_expr_get_si(e, &v) && v == 1;
}

/* x op y broadcast as an outer product: at every dim one of them has the constant size 1 (or
 * no such dim), so every pair (x_i, y_j) is an element of the result when it has one */
static int outer(const sy_tensor *x, const sy_tensor *y)
{
    size_t n = x->ndim > y->ndim ? x->ndim : y->ndim;
    for (size_t i = 0; i < n; i++) {
        int xo = i >= x->ndim || is_one(x->sizes[x->ndim - 1 - i]);
        int yo = i >= y->ndim || is_one(y->sizes[y->ndim - 1 - i]);
        if (!xo && !yo) return 0;
    }
    return 1;
}

/* the bounds of x op y for two tracked tensors broadcast as an outer product: each pair of parts */
static int cross(sy_ctx *ctx, vkind k, const sy_vbounds *x, const sy_vbounds *y, sy_vbounds *r)
{
    if (x->n * y->n > SY_VB_PARTS) return 0;
    memset(r, 0, sizeof *r);
    r->fits = x->fits && y->fits ? sy_expr_and(ctx, x->fits, y->fits) : x->fits ? x->fits : y->fits;
    if ((x->fits || y->fits) && !r->fits) return 0;
    r->ring = 1;
    for (size_t i = 0; i < x->n; i++)
        for (size_t j = 0; j < y->n; j++) {
            const struct sy_vpart *a = &x->part[i], *b = &y->part[j];
            struct sy_vpart *o = &r->part[r->n++];
            o->cnt = sy_expr_min(ctx, a->cnt, b->cnt); /* present when both are */
            if (k == VK_ADD) {
                o->lo = sy_expr_add(ctx, a->lo, b->lo);
                o->hi = sy_expr_add(ctx, a->hi, b->hi);
                o->dense = a->dense && b->dense;
            } else if (k == VK_SUB) {
                o->lo = sy_expr_sub(ctx, a->lo, b->hi);
                o->hi = sy_expr_sub(ctx, a->hi, b->lo);
                o->dense = a->dense && b->dense;
            } else { /* mul: the ends of a product of two intervals are products of ends */
                const sy_expr *p[4] = {sy_expr_mul(ctx, a->lo, b->lo), sy_expr_mul(ctx, a->lo, b->hi),
                                       sy_expr_mul(ctx, a->hi, b->lo), sy_expr_mul(ctx, a->hi, b->hi)};
                o->lo = sy_expr_min_n(ctx, 4, p);
                o->hi = sy_expr_max_n(ctx, 4, p);
                o->dense = 0;
            }
        }
    return 1;
}

/* map every part of b through a scalar rule; 0: the rule does not apply (forget) */
static int map_scalar(sy_ctx *ctx, vkind k, const sy_expr *s, int64_t sv, int s_const, int scalar_first, sy_vbounds *b)
{
    int keep_seq = 0;
    for (size_t i = 0; i < b->n; i++) {
        struct sy_vpart *p = &b->part[i];
        const sy_expr *lo = p->lo, *hi = p->hi;
        switch (k) {
        case VK_ADD:
            p->lo = sy_expr_add(ctx, lo, s);
            p->hi = sy_expr_add(ctx, hi, s);
            keep_seq = 1;
            break;
        case VK_SUB:
            if (scalar_first) { /* s - x */
                p->lo = sy_expr_sub(ctx, s, hi);
                p->hi = sy_expr_sub(ctx, s, lo);
            } else {
                p->lo = sy_expr_sub(ctx, lo, s);
                p->hi = sy_expr_sub(ctx, hi, s);
            }
            keep_seq = 1;
            break;
        case VK_NEG:
            p->lo = sy_expr_neg(ctx, hi);
            p->hi = sy_expr_neg(ctx, lo);
            keep_seq = 1;
            break;
        case VK_MUL: /* sign of s unknown: the least and greatest of the two ends */
            p->lo = sy_expr_min(ctx, sy_expr_mul(ctx, lo, s), sy_expr_mul(ctx, hi, s));
            p->hi = sy_expr_max(ctx, sy_expr_mul(ctx, lo, s), sy_expr_mul(ctx, hi, s));
            p->dense = p->dense && s_const && (sv == 1 || sv == -1);
            keep_seq = s_const;
            break;
        case VK_FLOORDIV: /* floor(v / k): nondecreasing for k > 0, nonincreasing for k < 0; consecutive
                           * integers give consecutive quotients (dense kept) */
            if (!s_const || sv == 0 || scalar_first) return 0;
            p->lo = sy_expr_floordiv(ctx, sv > 0 ? lo : hi, s);
            p->hi = sy_expr_floordiv(ctx, sv > 0 ? hi : lo, s);
            keep_seq = sv != -1 && b->step % sv == 0; /* INT64_MIN % -1 traps */
            break;
        case VK_MOD: { /* Python's v % k, k > 0, over every integer of [lo, hi]: a = lo % k; it wraps past k - 1
                        * when a + (hi - lo) >= k: then [0, k - 1], else [a, a + hi - lo] */
            if (!s_const || sv <= 0 || scalar_first || !p->dense) return 0;
            const sy_expr *a = sy_expr_mod(ctx, lo, s), *top = sy_expr_add(ctx, a, sy_expr_sub(ctx, hi, lo));
            const sy_expr *wrap = sy_expr_max(ctx, sy_expr_int_si(ctx, 0),
                                              sy_expr_min(ctx, sy_expr_int_si(ctx, 1), sy_expr_sub(ctx, top, sy_expr_int_si(ctx, sv - 1))));
            p->lo = sy_expr_max(ctx, sy_expr_int_si(ctx, 0), sy_expr_sub(ctx, a, sy_expr_mul_si(ctx, wrap, sv)));
            p->hi = sy_expr_min(ctx, sy_expr_int_si(ctx, sv - 1), top);
            p->dense = 0; /* 8..11 % 10: 8, 9, 0, 1 */
            break;
        }
        default:
            return 0;
        }
    }
    if (k == VK_ADD || k == VK_SUB || k == VK_NEG || k == VK_MUL) b->ring = 1;
    if (!keep_seq || b->step == INT64_MIN) b->first = NULL; /* -step must exist */
    else if (b->first) {
        if (k == VK_ADD) b->first = sy_expr_add(ctx, b->first, s);
        else if (k == VK_SUB && !scalar_first) b->first = sy_expr_sub(ctx, b->first, s);
        else if (k == VK_SUB || k == VK_NEG) {
            b->first = k == VK_NEG ? sy_expr_neg(ctx, b->first) : sy_expr_sub(ctx, s, b->first);
            b->step = -b->step;
        } else if (k == VK_MUL) {
            b->first = sy_expr_mul(ctx, b->first, s);
            if (__builtin_mul_overflow(b->step, sv, &b->step) || !b->step) b->first = NULL;
        } else if (k == VK_FLOORDIV) {
            b->first = sy_expr_floordiv(ctx, b->first, s);
            b->step /= sv;
            if (!b->step) b->first = NULL;
        }
    }
    return 1;
}

int sy_vb_int_dtype(sy_dtype dt, int64_t *mn, int64_t *mx, int *bits)
{
    static const struct { sy_dtype dt; int64_t mn, mx; int bits; } r[] = {
        {SY_DT_INT64, INT64_MIN, INT64_MAX, 64}, {SY_DT_INT32, INT32_MIN, INT32_MAX, 32},
        {SY_DT_INT16, INT16_MIN, INT16_MAX, 16}, {SY_DT_INT8, INT8_MIN, INT8_MAX, 8}, {SY_DT_UINT8, 0, UINT8_MAX, 8}};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (r[i].dt == dt) {
            if (mn) *mn = r[i].mn;
            if (mx) *mx = r[i].mx;
            if (bits) *bits = r[i].bits;
            return 1;
        }
    return 0;
}

/* before //, % or clamp, which do not commute with the wrap of dtype dt (an integer dtype), and
 * before an index check or a widening conversion: the exact bounds must fit dt */
static void need_fit(sy_ctx *ctx, sy_vbounds *b, sy_dtype dt)
{
    if (!b->ring) return; /* arange's int64 values, and those of //, %, clamp of values that fit */
    int64_t mn = INT64_MIN, mx = INT64_MAX;
    sy_vb_int_dtype(dt, &mn, &mx, NULL);
    b->ring = 0;
    const sy_expr *f = b->fits ? b->fits : sy_expr_true(ctx);
    for (size_t i = 0; i < b->n; i++)
        f = sy_expr_and(ctx, f, sy_expr_and(ctx, sy_expr_ge(ctx, b->part[i].lo, sy_expr_int_si(ctx, mn)),
                                            sy_expr_le(ctx, b->part[i].hi, sy_expr_int_si(ctx, mx))));
    b->fits = f;
    if (!f) b->n = 0; /* an error (recorded): nothing is kept */
}

/* the values a tensor of the integer dtype dt holds, from ring bounds: each exact integer v is
 * wrap(v) = Mod(v - min, 2^bits) + min on the CPU (two's complement). Below int64, every part
 * dense: a = wrap(lo) and top = a + (hi - lo); the part is [a, top] when top <= max, else it
 * crossed max (every integer from lo to hi is an element), so max and min are both elements and
 * the part is [min, max]. Otherwise (int64, or a part with gaps): need_fit, exact where they fit */
static int wrap_stepped(sy_ctx *ctx, sy_vbounds *b, int64_t mn, int bits);

static void fit_or_wrap(sy_ctx *ctx, sy_vbounds *b, sy_dtype dt)
{
    int64_t mn = INT64_MIN, mx = INT64_MAX;
    int bits = 64, dense = 1;
    if (!b->ring) return;
    sy_vb_int_dtype(dt, &mn, &mx, &bits);
    for (size_t i = 0; i < b->n; i++) dense &= b->part[i].dense;
    if (bits < 64 && !dense && wrap_stepped(ctx, b, mn, bits)) return;
    if (bits == 64 || !dense) {
        need_fit(ctx, b, dt);
        return;
    }
    const sy_expr *m = sy_expr_int_si(ctx, (int64_t)1 << bits), *emn = sy_expr_int_si(ctx, mn), *emx = sy_expr_int_si(ctx, mx);
    for (size_t i = 0; i < b->n; i++) {
        struct sy_vpart *p = &b->part[i];
        const sy_expr *a = sy_expr_add(ctx, sy_expr_mod(ctx, sy_expr_sub(ctx, p->lo, emn), m), emn);
        const sy_expr *top = sy_expr_add(ctx, a, sy_expr_sub(ctx, p->hi, p->lo));
        const sy_expr *wrap = sy_expr_max(ctx, sy_expr_int_si(ctx, 0), sy_expr_min(ctx, sy_expr_int_si(ctx, 1), sy_expr_sub(ctx, top, emx)));
        p->lo = sy_expr_max(ctx, emn, sy_expr_sub(ctx, a, sy_expr_mul(ctx, wrap, m)));
        p->hi = sy_expr_min(ctx, emx, top);
        p->dense = 0; /* 250..259 in uint8: 250, ..., 255, 0, ..., 3 */
        if (!p->lo || !p->hi) {
            b->n = 0; /* an error (recorded): nothing is kept */
            return;
        }
    }
    b->first = NULL;
    b->ring = 0;
}

/* A 1-D sequence first + k * step, k < n (n = part 0's cnt, may be symbolic), first a constant,
 * |step| >= 2, at a dtype of bits < 64 whose least value is mn: the CPU holds
 * wrap(v) = Mod(v - mn, M) + mn, M = 2^bits (arange(0, n, 3, dtype=torch.int8) passes 126, -127,
 * -124, ...). In offsets u_k = Mod(first - mn + k * step, M) (step > 0; a negative step is the
 * same walk reflected, u -> M - 1 - u), the walk is runs ("segments") of consecutive k: segment j
 * starts at k = K_j with offset a_j (< step for j >= 1) and climbs by step to its top below M. Its
 * values repeat after P = M / gcd(step, M) elements, so the segments with K_j < P are all there
 * are. With n elements:
 *   greatest offset = Max_j (a_j + step * Min(n - 1 - K_j, len_j - 1)), each term of j >= 1 below
 *     0 while n <= K_j (so it does not count), the term of j = 0 >= 0 for n >= 1;
 *   least offset = Min_j (a_j + M * [n <= K_j]), [n <= K_j] = Max(0, Min(1, K_j + 1 - n)).
 * Both ends are elements (attained) for n >= 1. At most 64 segments, else 0 (need_fit: refused past
 * the dtype as before). Measured against the CPU (1.13 and 2.14) in test_index_values.py. */
static int wrap_stepped(sy_ctx *ctx, sy_vbounds *b, int64_t mn, int bits)
{
    int64_t f, M = (int64_t)1 << bits, step = b->step;
    if (b->n != 1 || !b->first || sy_expr_get_si(b->first, &f) || step == 0 || step == INT64_MIN) return 0;
    int neg = step < 0;
    if (neg) step = -step;
    if (step >= M) return 0;
    int64_t g = M, t = step;
    while (t) { /* gcd(step, M) */
        int64_t r = g % t;
        g = t;
        t = r;
    }
    int64_t P = M / g;
    /* u0 = Mod(f - mn, M) without overflow: f and mn are int64, M <= 2^32 */
    int64_t u0 = ((f % M) - (mn % M)) % M;
    if (u0 < 0) u0 += M;
    if (neg) u0 = M - 1 - u0;
    const sy_expr *n = b->part[0].cnt, *one = sy_expr_int_si(ctx, 1), *zero = sy_expr_int_si(ctx, 0);
    const sy_expr *lo = NULL, *hi = NULL;
    int64_t K = 0, a = u0;
    for (int j = 0; K < P; j++) {
        if (j == 64) return 0;
        int64_t len = (M - 1 - a) / step + 1; /* a, a + step, ..., below M */
        const sy_expr *Ke = sy_expr_int_si(ctx, K);
        const sy_expr *top = sy_expr_add(ctx, sy_expr_int_si(ctx, a),
                                         sy_expr_mul_si(ctx, sy_expr_min(ctx, sy_expr_sub(ctx, sy_expr_sub(ctx, n, one), Ke),
                                                                         sy_expr_int_si(ctx, len - 1)), step));
        const sy_expr *absent = sy_expr_max(ctx, zero, sy_expr_min(ctx, one, sy_expr_sub(ctx, sy_expr_add(ctx, Ke, one), n)));
        const sy_expr *low = sy_expr_add(ctx, sy_expr_int_si(ctx, a), sy_expr_mul_si(ctx, absent, M));
        hi = j ? sy_expr_max(ctx, hi, top) : top;
        lo = j ? sy_expr_min(ctx, lo, low) : low;
        if (!hi || !lo) {
            b->n = 0; /* an error (recorded): nothing is kept */
            return 1;
        }
        K += len;
        a = a + len * step - M; /* the first offset past the top, wrapped: in [0, step) */
    }
    const sy_expr *emn = sy_expr_int_si(ctx, mn);
    struct sy_vpart *p = &b->part[0];
    if (neg) { /* offsets were reflected: u = M - 1 - u' */
        const sy_expr *top = sy_expr_int_si(ctx, M - 1 + mn);
        p->lo = sy_expr_sub(ctx, top, hi);
        p->hi = sy_expr_sub(ctx, top, lo);
    } else {
        p->lo = sy_expr_add(ctx, lo, emn);
        p->hi = sy_expr_add(ctx, hi, emn);
    }
    p->dense = 0;
    if (!p->lo || !p->hi) b->n = 0;
    b->first = NULL;
    b->ring = 0;
    return 1;
}

/* a tracked tensor of dtype from read into a result of dtype to (both integer): a wider result
 * (int32 -> int64, uint8 -> int16) keeps the values, which must then be exact (fit_or_wrap at from:
 * the wider dtype no longer wraps where from did); one as wide or narrower (int64 -> int32,
 * int8 <-> uint8) wraps them modulo 2^bits of to, which the ring bounds already are */
static void convert(sy_ctx *ctx, sy_vbounds *b, sy_dtype from, sy_dtype to)
{
    int bf = 64, bt = 64;
    if (from == to || !sy_vb_int_dtype(from, NULL, NULL, &bf) || !sy_vb_int_dtype(to, NULL, NULL, &bt)) return;
    if (bt > bf) fit_or_wrap(ctx, b, from);
    else b->ring = 1;
}

/* clamp bounds: an integer (its expression), None (NULL, *ok 1), else *ok 0 */
static const sy_expr *clamp_bound(const sy_value *v, int *ok)
{
    if (!v || v->kind == SY_V_NONE) return NULL;
    if (v->kind == SY_V_INT) return v->u.i;
    *ok = 0;
    return NULL;
}

/* x[i] of a 1-D sequence (the op checked -n <= i < n, so n >= 1): first + Mod(i, n) * step, Python's
 * Mod wrapping a negative i */
static sy_status element(opcall *c, const sy_tensor *in, const sy_tensor *out, const sy_vbounds *b, const sy_expr *i)
{
    sy_ctx *ctx = c->env->ctx;
    if (out->ndim != 0) return SY_OK;
    const sy_expr *v = sy_expr_add(ctx, b->first, sy_expr_mul_si(ctx, sy_expr_mod(ctx, i, in->sizes[0]), b->step));
    sy_vbounds r;
    memset(&r, 0, sizeof r);
    r.n = 1;
    r.part[0].lo = r.part[0].hi = v;
    r.part[0].cnt = sy_expr_int_si(ctx, 1);
    r.part[0].dense = 1;
    r.fits = b->fits;
    r.ring = b->ring;
    return sy_env_values_set(c->env, out, &r);
}

/* a row: at least 1-D, every dim but the last the constant 1 ([n], [1, n], [1, 1, n]): its
 * elements in row-major order are those of its last dim, so a sequence (first, step) of a 1-D
 * tensor is one of a row as well (pyexp47: an arange buffer expanded to [1, L], HF position ids) */
static int is_row(const sy_tensor *t)
{
    int64_t d;
    if (!t || !t->ndim) return 0;
    for (size_t i = 0; i + 1 < t->ndim; i++)
        if (sy_expr_get_si(t->sizes[i], &d) || d != 1) return 0;
    return 1;
}

/* the items of a row's index but the last (x[:, a:b], x[0, a:b]): each a full slice or a constant
 * int (of a dim of size 1: 0 or -1, the op checked it), so the last item alone selects elements */
static int lead_keeps_row(const sy_value *ix)
{
    int64_t k;
    for (size_t i = 0; i + 1 < ix->u.list.n; i++) {
        const sy_value *it = &ix->u.list.items[i];
        if (it->kind == SY_V_INT && !sy_expr_get_si(it->u.i, &k)) continue;
        if (!index_keeps_all(it) || it->kind == SY_V_NONE || it->kind == SY_V_ELLIPSIS) return 0;
    }
    return 1;
}

/* keep_order: 1 an op that keeps the elements and their row-major order (views, copies,
 * conversions, unsqueeze, squeeze: numel unchanged), 2 expand (the same order only where nothing is
 * broadcast: the same length expression); a sequence stays one when in and out are rows */
static sy_status set(opcall *c, const sy_tensor *in, const sy_tensor *out, sy_vbounds *b, int keep_order)
{
    if (!keep_order || !is_row(in) || !is_row(out) ||
        (keep_order == 2 && in->sizes[in->ndim - 1] != out->sizes[out->ndim - 1]))
        b->first = NULL;
    return sy_env_values_set(c->env, out, b);
}

/* t[k] or select(t, 0, k) of a tensor with one part per row (sy_vbounds.rows), k a constant in
 * [-n, n - 1] (the op checked it): part k, exactly (its cnt, the row's length, >= 1 when the row has
 * an element), *st the status; 0: not such a call (the other rules apply) */
static int row_of(opcall *c, sy_status *st)
{
    sy_vbounds b;
    const sy_value *ix = NULL;
    int64_t k, d = 0;
    if (!c->nargs || c->args[0].kind != SY_V_TENSOR || !sy_env_values_get(c->env, c->args[0].u.t, &b) || !b.rows ||
        c->args[0].u.t->ndim != 2 || c->out->u.t->ndim != 1)
        return 0;
    if (!strcmp(c->op, "select")) {
        if (!const_int(arg(c, 1, "dim"), &d) || (d != 0 && d != -2)) return 0;
        ix = arg(c, 2, "index");
    } else if (c->nargs == 2) {
        ix = &c->args[1];
        if (ix->kind == SY_V_LIST && ix->u.list.n == 1) ix = &ix->u.list.items[0];
    }
    if (!const_int(ix, &k) || k < -(int64_t)b.n || k >= (int64_t)b.n) return 0;
    if (k < 0) k += (int64_t)b.n;
    sy_vbounds r;
    memset(&r, 0, sizeof r);
    r.n = 1;
    r.part[0] = b.part[k];
    *st = sy_env_values_set(c->env, c->out->u.t, &r);
    return 1;
}

static sy_status after_call(opcall *c);

sy_status sy_env_values_after_call(opcall *c)
{
    c->env->vfail = 0;
    sy_status st = after_call(c);
    if (st == SY_OK && c->env->vfail) st = sy_ctx_last_error(c->env->ctx);
    c->env->vfail = 0;
    return st;
}

static sy_status after_call(opcall *c)
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
    if (c->out->kind != SY_V_TENSOR || !sy_vb_int_dtype(c->out->u.t->dtype, NULL, NULL, NULL)) return SY_OK;
    const sy_tensor *out = c->out->u.t;
    sy_ctx *ctx = env->ctx;
    if (pend) return sy_env_values_set(env, out, &env->vpend_b); /* arange */
    const struct vrow *r = vrows;
    while (r->op && strcmp(r->op, c->op)) r++;
    if (!r->op) return SY_OK;
    sy_vbounds b, y;
    sy_status rst;
    const sy_tensor *in = c->nargs && c->args[0].kind == SY_V_TENSOR ? c->args[0].u.t : NULL;
    switch (r->k) {
    case VK_SAME:
    case VK_ORDER: /* unsqueeze, squeeze, expand of a row to a row of the same length keep its order */
        return bounded_arg(c, 0, &b) ? set(c, in, out, &b, (r->k == VK_ORDER || !strcmp(c->op, "unsqueeze") || !strcmp(c->op, "squeeze")) ? 1
                                                           : (!strcmp(c->op, "expand") || !strcmp(c->op, "expand_as")) ? 2 : 0)
                                     : SY_OK;
    case VK_FLIP: {
        if (!bounded_arg(c, 0, &b)) return SY_OK;
        if (b.first && b.step != INT64_MIN && in->ndim == 1 && out->ndim == 1) { /* flip(x, dims): dims name dim 0 (reversed) or none */
            const sy_value *d = arg(c, 1, "dims");
            size_t nd = d && d->kind == SY_V_LIST ? d->u.list.n : 1;
            if (nd >= 1) {
                b.first = sy_expr_add(ctx, b.first, sy_expr_mul_si(ctx, sy_expr_sub(ctx, b.part[0].cnt, sy_expr_int_si(ctx, 1)), b.step));
                b.step = -b.step;
                if (!b.first) return sy_ctx_last_error(ctx);
            }
            return sy_env_values_set(env, out, &b);
        }
        return set(c, in, out, &b, 0);
    }
    case VK_CAT: {
        const sy_value *l = arg(c, 0, "tensors");
        if (!l || l->kind != SY_V_LIST || !l->u.list.n) return SY_OK;
        memset(&b, 0, sizeof b);
        for (size_t i = 0; i < l->u.list.n; i++) {
            const sy_value *v = &l->u.list.items[i];
            if (v->kind != SY_V_TENSOR || !bounded(c, v->u.t, &y) || b.n + y.n > SY_VB_PARTS) return SY_OK;
            b.ring |= y.ring;
            if (y.fits && !(b.fits = b.fits ? sy_expr_and(ctx, b.fits, y.fits) : y.fits)) return sy_ctx_last_error(ctx);
            const sy_expr *numel = sy_expr_int_si(ctx, 1);
            for (size_t j = 0; j < v->u.t->ndim; j++) numel = sy_expr_mul(ctx, numel, v->u.t->sizes[j]);
            for (size_t j = 0; j < y.n; j++) { /* an empty input holds none of its parts */
                b.part[b.n] = y.part[j];
                b.part[b.n++].cnt = sy_expr_min(ctx, y.part[j].cnt, numel);
            }
        }
        b.first = NULL;
        return sy_env_values_set(env, out, &b);
    }
    case VK_GETITEM: {
        if (row_of(c, &rst)) return rst;
        if (!strcmp(c->op, "select")) { /* select(x, dim, i) of a 1-D sequence: x[i] */
            const sy_value *d = arg(c, 1, "dim");
            int64_t dv;
            if (!bounded_arg(c, 0, &b) || !b.first || in->ndim != 1 || !const_int(d, &dv) || (dv != 0 && dv != -1)) return SY_OK;
            const sy_value *iv = arg(c, 2, "index");
            return iv && iv->kind == SY_V_INT ? element(c, in, out, &b, iv->u.i) : SY_OK;
        }
        if (c->nargs != 2 || !bounded_arg(c, 0, &b)) return SY_OK;
        const sy_value *ix = &c->args[1];
        if (ix->kind == SY_V_LIST && ix->u.list.n == 1 && ix->u.list.items[0].kind == SY_V_INT) ix = &ix->u.list.items[0];
        if (ix->kind == SY_V_INT) return b.first && in->ndim == 1 ? element(c, in, out, &b, ix->u.i) : SY_OK;
        if (index_keeps_all(ix)) return set(c, in, out, &b, 1);
        if (ix->kind == SY_V_LIST && ix->u.list.n == 1) ix = &ix->u.list.items[0];
        /* x[:, a:b:s] of a row [1, n] (every item but the last a full slice): the slice of its last
         * dim, a row again */
        if (ix->kind == SY_V_LIST && in->ndim >= 2 && ix->u.list.n == in->ndim && is_row(in) && is_row(out) && b.first &&
            lead_keeps_row(ix))
            ix = &ix->u.list.items[in->ndim - 1];
        else if (in->ndim != 1)
            return SY_OK;
        if (ix->kind != SY_V_SLICE || !b.first) return SY_OK;
        /* a slice of a 1-D sequence: first + start * step, step * s, n elements (sy_slice_len: Python's
         * clamps, exact, no guard) */
        const sy_expr *st0, *n;
        int64_t s, step;
        sy_status st = sy_slice_len(c, ix, in->sizes[in->ndim - 1], &st0, &n, &s);
        if (st) return st;
        if (__builtin_mul_overflow(b.step, s, &step)) return SY_OK;
        sy_vbounds r2 = sy_vbounds_seq(ctx, sy_expr_add(ctx, b.first, sy_expr_mul_si(ctx, st0, b.step)), step, n);
        if (!r2.first) return sy_ctx_last_error(ctx);
        r2.fits = b.fits;
        r2.ring = b.ring;
        return sy_env_values_set(env, out, &r2);
    }
    case VK_CLAMP:
    case VK_CLAMP_MIN:
    case VK_CLAMP_MAX: { /* clamp(v, a, b) = min(max(v, a), b) (ATen clamp: a > b gives b everywhere) */
        if (!bounded_arg(c, 0, &b)) return SY_OK;
        int ok = 1;
        const sy_expr *mn = r->k == VK_CLAMP_MAX ? NULL : clamp_bound(arg(c, 1, "min"), &ok);
        const sy_expr *mx = r->k == VK_CLAMP_MIN ? NULL : clamp_bound(arg(c, r->k == VK_CLAMP ? 2 : 1, "max"), &ok);
        if (!ok || (!mn && !mx)) return SY_OK;
        fit_or_wrap(ctx, &b, out->dtype);
        if (!b.n) return sy_ctx_last_error(ctx);
        for (size_t i = 0; i < b.n; i++) {
            struct sy_vpart *p = &b.part[i];
            if (mn) p->lo = sy_expr_max(ctx, p->lo, mn), p->hi = sy_expr_max(ctx, p->hi, mn);
            if (mx) p->lo = sy_expr_min(ctx, p->lo, mx), p->hi = sy_expr_min(ctx, p->hi, mx);
        }
        return set(c, in, out, &b, 0);
    }
    default:
        break;
    }
    /* arithmetic with an integer scalar or (outer) another tracked tensor */
    /* alpha scales the second operand: x + alpha*s, s - alpha*x (rsub(x, s, alpha), sub(s, x, alpha));
     * tracked where the scaled operand is the tensor, else (x + alpha*s with alpha != 1) dropped.
     * rsub's alpha was read as 1 (verify38: rsub(arange(T), 15, alpha=2) got T <= 32, true T <= 16) */
    int64_t alpha = 1;
    if ((r->k == VK_ADD || r->k == VK_SUB || r->k == VK_RSUB) && !alpha_of(c, &alpha)) return SY_OK;
    if (r->k == VK_NEG) return bounded_arg(c, 0, &b) && map_scalar(ctx, VK_NEG, NULL, 0, 0, 0, &b) ? set(c, in, out, &b, 1) : SY_OK;
    if (r->k == VK_FLOORDIV && !strcmp(c->op, "div")) { /* div(x, k, rounding_mode='floor') only */
        const sy_value *m = arg(c, 2, "rounding_mode");
        if (!m || m->kind != SY_V_STR || strcmp(m->u.s, "floor")) return SY_OK;
    }
    if (c->nargs < 2) return SY_OK;
    vkind k = r->k == VK_RSUB ? VK_SUB : r->k;
    int first_scalar = r->k == VK_RSUB;
    const sy_value *sv = NULL;
    const sy_tensor *tin = NULL;
    if (bounded_arg(c, 0, &b) && c->args[1].kind == SY_V_INT) {
        sv = &c->args[1];
        tin = c->args[0].u.t;
    } else if (r->k != VK_RSUB && c->args[0].kind == SY_V_INT && bounded_arg(c, 1, &b)) {
        sv = &c->args[0];
        tin = c->args[1].u.t;
        first_scalar = 1;
    } else if (r->k != VK_RSUB && alpha == 1 && (k == VK_ADD || k == VK_SUB || k == VK_MUL) && bounded_arg(c, 0, &b) &&
               bounded_arg(c, 1, &y) && outer(c->args[0].u.t, c->args[1].u.t)) {
        sy_vbounds o;
        if (!cross(ctx, k, &b, &y, &o)) return SY_OK;
        return sy_env_values_set(env, out, &o);
    } else {
        return SY_OK;
    }
    int64_t s = 0;
    int s_const = const_int(sv, &s);
    const sy_expr *se = sv->u.i;
    if (alpha != 1 && (r->k == VK_RSUB || first_scalar)) { /* s - alpha*x: the tensor is scaled */
        if (!map_scalar(ctx, VK_MUL, sy_expr_int_si(ctx, alpha), alpha, 1, 0, &b)) return SY_OK;
    } else if (alpha != 1) { /* x + alpha*s, x - alpha*s: the scalar is */
        se = sy_expr_mul_si(ctx, se, alpha);
        if (!se) return sy_ctx_last_error(ctx);
        if (s_const && __builtin_mul_overflow(s, alpha, &s)) s_const = 0;
    }
    if (k == VK_SUB && first_scalar) { /* s - x */
    } else if (first_scalar && k != VK_ADD && k != VK_MUL) {
        return SY_OK; /* s // x, s % x: not tracked */
    }
    if (k == VK_FLOORDIV || k == VK_MOD) {
        fit_or_wrap(ctx, &b, out->dtype);
        if (!b.n) return sy_ctx_last_error(ctx);
    }
    if (!map_scalar(ctx, k, se, s, s_const, first_scalar && k == VK_SUB, &b)) return SY_OK;
    return set(c, tin, out, &b, 1);
}

/* The one check of tracked index values (env_private.h). */
sy_status sy_env_values_require_in(opcall *c, const sy_tensor *idx, const sy_expr *skip, const sy_expr *a,
                                   const sy_expr *b, const char *what)
{
    sy_vbounds vb;
    if (!idx || !sy_env_values_get(c->env, idx, &vb)) return SY_OK;
    sy_ctx *ctx = c->env->ctx;
    /* bounds that may have wrapped at a dtype narrower than int64 (an int32 arange's): the values
     * it holds (an int64 index in range of a size is within int64 already) */
    if (idx->dtype != SY_DT_INT64) fit_or_wrap(ctx, &vb, idx->dtype);
    if (!vb.n) return sy_ctx_last_error(ctx);
    const sy_expr *ok = sy_expr_true(ctx), *zero = sy_expr_int_si(ctx, 0);
    for (size_t i = 0; i < vb.n; i++) {
        const struct sy_vpart *p = &vb.part[i];
        const sy_expr *in = sy_expr_and(ctx, sy_expr_ge(ctx, p->lo, a), sy_expr_le(ctx, p->hi, b));
        ok = sy_expr_and(ctx, ok, vb.n == 1 ? in : sy_expr_or(ctx, sy_expr_le(ctx, p->cnt, zero), in));
    }
    if (vb.fits) ok = sy_expr_and(ctx, vb.fits, ok);
    const sy_expr *rel = skip ? sy_expr_or(ctx, skip, ok) : ok;
    if (!rel) return sy_ctx_last_error(ctx);
    if (vb.n == 1)
        return op_require(c, rel, "%s (index values from %s to %s, valid from %s to %s)", what, sy_env_show(c->env, vb.part[0].lo),
                          sy_env_show(c->env, vb.part[0].hi), sy_env_show(c->env, a), sy_env_show(c->env, b));
    return op_require(c, rel, "%s (index values in %zu parts, the first from %s to %s; valid from %s to %s)", what, vb.n,
                      sy_env_show(c->env, vb.part[0].lo), sy_env_show(c->env, vb.part[0].hi), sy_env_show(c->env, a),
                      sy_env_show(c->env, b));
}
