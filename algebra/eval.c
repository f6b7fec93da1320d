/* Evaluation at a point (int64 fast path, exact bignum fallback),
 * substitution, free symbols. */
#include <string.h>

#include "algebra/expr_private.h"
#include "algebra/sy_int64.h"

/* ------------------------------------------------------------------ arrays handed to callers */

void *sy_alloc_array(sy_ctx *ctx, size_t bytes)
{
    size_t *p = sy_alloc(ctx, bytes + 16);
    if (!p) return NULL;
    p[0] = bytes + 16;
    return (char *)p + 16;
}

void *sy_mem_free(sy_ctx *ctx, void *p)
{
    if (!p || !ctx) return NULL;
    size_t *h = (size_t *)(void *)((char *)p - 16);
    sy_dealloc(ctx, h, h[0]);
    return NULL;
}

/* ------------------------------------------------------------------ bindings */

bool sy_binding_init(sy_ctx *ctx, sy_binding *b)
{
    b->n = ctx->nsyms;
    b->has = NULL;
    b->v64 = NULL;
    b->vz = NULL;
    size_t n = b->n ? b->n : 1;
    b->has = sy_alloc(ctx, n);
    b->v64 = sy_alloc(ctx, n * sizeof *b->v64);
    b->vz = sy_alloc(ctx, n * sizeof *b->vz);
    if (!b->has || !b->v64 || !b->vz) {
        sy_binding_clear(ctx, b);
        return false;
    }
    memset(b->has, 0, n);
    for (size_t i = 0; i < n; i++) fmpz_init(&b->vz[i]);
    return true;
}

bool sy_binding_reserve(sy_ctx *ctx, sy_binding *b, size_t n)
{
    if (n <= b->n) return true;
    size_t on = b->n ? b->n : 1, nn = b->n * 2 > n ? b->n * 2 : n;
    unsigned char *h = sy_alloc(ctx, nn);
    int64_t *v = sy_alloc(ctx, nn * sizeof *v);
    fmpz *z = sy_alloc(ctx, nn * sizeof *z);
    if (!h || !v || !z) {
        if (h) sy_dealloc(ctx, h, nn);
        if (v) sy_dealloc(ctx, v, nn * sizeof *v);
        if (z) sy_dealloc(ctx, z, nn * sizeof *z);
        return false;
    }
    memcpy(h, b->has, on);
    memset(h + on, 0, nn - on);
    memcpy(v, b->v64, on * sizeof *v);
    memcpy(z, b->vz, on * sizeof *z); /* moves the values: an fmpz is one word, owned by the new array */
    for (size_t i = on; i < nn; i++) fmpz_init(&z[i]);
    sy_dealloc(ctx, b->has, on);
    sy_dealloc(ctx, b->v64, on * sizeof *b->v64);
    sy_dealloc(ctx, b->vz, on * sizeof *b->vz);
    b->has = h;
    b->v64 = v;
    b->vz = z;
    b->n = nn;
    return true;
}

void sy_binding_clear(sy_ctx *ctx, sy_binding *b)
{
    size_t n = b->n ? b->n : 1;
    if (b->vz) {
        for (size_t i = 0; i < n; i++) fmpz_clear(&b->vz[i]);
        sy_dealloc(ctx, b->vz, n * sizeof *b->vz);
    }
    if (b->has) sy_dealloc(ctx, b->has, n);
    if (b->v64) sy_dealloc(ctx, b->v64, n * sizeof *b->v64);
    b->vz = NULL;
    b->has = NULL;
    b->v64 = NULL;
}

void sy_binding_set(sy_binding *b, uint32_t id, const fmpz_t v)
{
    if (id >= b->n) return;
    fmpz_set(&b->vz[id], v);
    b->has[id] = fmpz_fits_si(v) ? 2 : 1; /* 2: also valid in v64 */
    if (b->has[id] == 2) b->v64[id] = fmpz_get_si(v);
}

/* ------------------------------------------------------------------ int64 path */

/* Evaluation is memoized on node identity, so a DAG whose tree is exponential
 * (a nested FloorDiv chain) is evaluated in time linear in its distinct
 * nodes. The memo starts after EV_MEMO_AFTER visits, so that the common small
 * expression costs no table. */
#define EV_MEMO_AFTER 64
typedef struct {
    const sy_expr **keys;
    int64_t *v;  /* int64 path */
    fmpz *z;     /* exact path */
    size_t cap, n;
} evmemo;

static void evmemo_clear(sy_ctx *ctx, evmemo *m)
{
    if (!m->keys) return;
    if (m->z) {
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) fmpz_clear(&m->z[i]);
        sy_dealloc(ctx, m->z, m->cap * sizeof *m->z);
    }
    if (m->v) sy_dealloc(ctx, m->v, m->cap * sizeof *m->v);
    sy_dealloc(ctx, m->keys, m->cap * sizeof *m->keys);
    memset(m, 0, sizeof *m);
}

/* The slot of k (found or free); grows first. SIZE_MAX when out of memory
 * (the evaluation goes on without the memo entry). */
static size_t evmemo_slot(sy_ctx *ctx, evmemo *m, const sy_expr *k, bool exact)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 256;
        bool ok = exact ? sy_etab_grow(ctx, &m->keys, (void **)&m->z, sizeof *m->z, m->cap, nc)
                        : sy_etab_grow(ctx, &m->keys, (void **)&m->v, sizeof *m->v, m->cap, nc);
        if (!ok) return SIZE_MAX;
        m->cap = nc;
    }
    size_t mask = m->cap - 1, j = (size_t)k->hash & mask;
    while (m->keys[j] && m->keys[j] != k) j = (j + 1) & mask;
    return j;
}

static bool ev_leaf(const sy_expr *e)
{
    return e->kind == SY_EXPR_INT || e->kind == SY_EXPR_SYM || e->kind == SY_EXPR_TRUE || e->kind == SY_EXPR_FALSE;
}

typedef struct {
    sy_ctx *ctx;
    const sy_binding *b;
    int status; /* 0 ok, 1 overflow (retry exact), 2 div by zero, 3 unbound, 4 budget */
    const sy_expr *culprit;
    size_t visits;
    evmemo memo;
} ev64;

static int64_t e64_node(ev64 *ev, const sy_expr *e);
static int64_t e64(ev64 *ev, const sy_expr *e)
{
    if (ev->status) return 0;
    if (ev_leaf(e)) return e64_node(ev, e);
    if (!sy_step(ev->ctx)) {
        ev->status = 4;
        return 0;
    }
    if (++ev->visits <= EV_MEMO_AFTER) return e64_node(ev, e);
    if (ev->memo.keys) {
        size_t mask = ev->memo.cap - 1, j = (size_t)e->hash & mask;
        while (ev->memo.keys[j] && ev->memo.keys[j] != e) j = (j + 1) & mask;
        if (ev->memo.keys[j]) return ev->memo.v[j];
    }
    int64_t r = e64_node(ev, e);
    if (ev->status) return 0;
    size_t j = evmemo_slot(ev->ctx, &ev->memo, e, false);
    if (j != SIZE_MAX) {
        ev->memo.keys[j] = e;
        ev->memo.v[j] = r;
        ev->memo.n++;
    }
    return r;
}

static int64_t e64_node(ev64 *ev, const sy_expr *e)
{
    if (ev->status) return 0;
    int64_t r = 0, a, b;
    int st = 0;
    switch (e->kind) {
    case SY_EXPR_INT:
        if (!fmpz_fits_si(&e->u.value)) { ev->status = 1; return 0; }
        return fmpz_get_si(&e->u.value);
    case SY_EXPR_SYM:
        if (e->u.sym.id >= ev->b->n || !ev->b->has[e->u.sym.id]) { ev->status = 3; ev->culprit = e; return 0; }
        if (ev->b->has[e->u.sym.id] != 2) { ev->status = 1; return 0; }
        return ev->b->v64[e->u.sym.id];
    case SY_EXPR_ADD:
        if (!fmpz_fits_si(&e->u.c0)) { ev->status = 1; return 0; }
        r = fmpz_get_si(&e->u.c0);
        for (uint32_t i = 0; i < e->n && !st; i++) {
            const fmpz *c = &SY_CTERMS(e)[i].coef;
            if (!fmpz_fits_si(c)) { ev->status = 1; return 0; }
            a = e64(ev, SY_CTERMS(e)[i].mono);
            if (ev->status) return 0;
            st = sy_i64_mul(fmpz_get_si(c), a, &a) || sy_i64_add(r, a, &r);
        }
        break;
    case SY_EXPR_MUL:
        r = 1;
        for (uint32_t i = 0; i < e->n && !st; i++) {
            a = e64(ev, e->args[i]);
            if (ev->status) return 0;
            st = sy_i64_mul(r, a, &r);
        }
        break;
    case SY_EXPR_POW:
        a = e64(ev, e->args[0]);
        if (ev->status) return 0;
        r = 1;
        for (uint64_t i = 0; i < e->u.exp && !st; i++) {
            st = sy_i64_mul(r, a, &r);
            if (r == 0 || r == 1) break; /* stays */
            if (a == -1) { r = (e->u.exp % 2) ? -1 : 1; break; }
        }
        break;
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
    case SY_EXPR_MOD:
        a = e64(ev, e->args[0]);
        b = e64(ev, e->args[1]);
        if (ev->status) return 0;
        st = e->kind == SY_EXPR_FLOORDIV ? sy_i64_floordiv(a, b, &r)
           : e->kind == SY_EXPR_MOD ? sy_i64_mod(a, b, &r) : sy_i64_ceildiv(a, b, &r);
        if (st == SY_I64_DIVZERO) { ev->status = 2; ev->culprit = e; return 0; }
        break;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        r = e64(ev, e->args[0]);
        for (uint32_t i = 1; i < e->n && !ev->status; i++) {
            a = e64(ev, e->args[i]);
            if (e->kind == SY_EXPR_MIN ? a < r : a > r) r = a;
        }
        break;
    case SY_EXPR_EQ: a = e64(ev, e->args[0]); return a == 0;
    case SY_EXPR_NE: a = e64(ev, e->args[0]); return a != 0;
    case SY_EXPR_LE: a = e64(ev, e->args[0]); return a <= 0;
    case SY_EXPR_AND:
        /* evaluate all operands: a division by zero anywhere is reported */
        r = 1;
        for (uint32_t i = 0; i < e->n && !ev->status; i++) r &= (e64(ev, e->args[i]) != 0);
        return r;
    case SY_EXPR_OR:
        r = 0;
        for (uint32_t i = 0; i < e->n && !ev->status; i++) r |= (e64(ev, e->args[i]) != 0);
        return r;
    case SY_EXPR_TRUE: return 1;
    case SY_EXPR_FALSE: return 0;
    }
    if (st) ev->status = 1;
    return r;
}

/* ------------------------------------------------------------------ exact path */

typedef struct {
    sy_ctx *ctx;
    const sy_binding *b;
    sy_status status;
    const sy_expr *culprit;
    size_t visits;
    evmemo memo;
} evz;

static void ez_node(evz *ev, const sy_expr *e, fmpz_t out);
static void ez(evz *ev, const sy_expr *e, fmpz_t out)
{
    if (ev->status) return;
    if (ev_leaf(e)) {
        ez_node(ev, e, out);
        return;
    }
    if (!sy_step(ev->ctx)) {
        ev->status = SY_EQUOTA;
        return;
    }
    if (++ev->visits <= EV_MEMO_AFTER) {
        ez_node(ev, e, out);
        return;
    }
    if (ev->memo.keys) {
        size_t mask = ev->memo.cap - 1, j = (size_t)e->hash & mask;
        while (ev->memo.keys[j] && ev->memo.keys[j] != e) j = (j + 1) & mask;
        if (ev->memo.keys[j]) {
            fmpz_set(out, &ev->memo.z[j]);
            return;
        }
    }
    ez_node(ev, e, out);
    if (ev->status) return;
    size_t j = evmemo_slot(ev->ctx, &ev->memo, e, true);
    if (j != SIZE_MAX) {
        ev->memo.keys[j] = e;
        fmpz_init_set(&ev->memo.z[j], out);
        ev->memo.n++;
    }
}

static void ez_node(evz *ev, const sy_expr *e, fmpz_t out)
{
    if (ev->status) return;
    fmpz_t a, b;
    switch (e->kind) {
    case SY_EXPR_INT: fmpz_set(out, &e->u.value); return;
    case SY_EXPR_SYM:
        if (e->u.sym.id >= ev->b->n || !ev->b->has[e->u.sym.id]) {
            ev->status = SY_EINVAL;
            ev->culprit = e;
            return;
        }
        fmpz_set(out, &ev->b->vz[e->u.sym.id]);
        return;
    case SY_EXPR_TRUE: fmpz_one(out); return;
    case SY_EXPR_FALSE: fmpz_zero(out); return;
    default: break;
    }
    fmpz_init(a);
    fmpz_init(b);
    switch (e->kind) {
    case SY_EXPR_ADD:
        fmpz_set(a, &e->u.c0);
        for (uint32_t i = 0; i < e->n && !ev->status; i++) {
            ez(ev, SY_CTERMS(e)[i].mono, b);
            fmpz_addmul(a, &SY_CTERMS(e)[i].coef, b);
        }
        fmpz_set(out, a);
        break;
    case SY_EXPR_MUL:
        fmpz_one(a);
        for (uint32_t i = 0; i < e->n && !ev->status; i++) {
            ez(ev, e->args[i], b);
            fmpz_mul(a, a, b);
            if ((uint64_t)fmpz_bits(a) > ev->ctx->opts.max_const_bits) {
                ev->status = SY_EQUOTA;
                ev->culprit = e;
            }
        }
        fmpz_set(out, a);
        break;
    case SY_EXPR_POW:
        ez(ev, e->args[0], a);
        if (ev->status) break;
        /* refused on a lower bound of the power's bits (sy_pow_bits_lo), then on its bits: at most
         * (bits(a) - 1) * k + k, so at most twice the limit is ever computed */
        if (!fmpz_is_zero(a) && !fmpz_is_pm1(a) &&
            (e->u.exp > ev->ctx->opts.max_const_bits || sy_pow_bits_lo(a, e->u.exp) > ev->ctx->opts.max_const_bits)) {
            ev->status = SY_EQUOTA;
            ev->culprit = e;
            break;
        }
        fmpz_pow_ui(out, a, e->u.exp);
        if ((uint64_t)fmpz_bits(out) > ev->ctx->opts.max_const_bits) {
            ev->status = SY_EQUOTA;
            ev->culprit = e;
        }
        break;
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
    case SY_EXPR_MOD:
        ez(ev, e->args[0], a);
        ez(ev, e->args[1], b);
        if (ev->status) break;
        if (fmpz_is_zero(b)) {
            ev->status = SY_EDIVZERO;
            ev->culprit = e;
            break;
        }
        if (e->kind == SY_EXPR_FLOORDIV) fmpz_fdiv_q(out, a, b);
        else if (e->kind == SY_EXPR_CEILDIV) fmpz_cdiv_q(out, a, b);
        else fmpz_fdiv_r(out, a, b);
        break;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        ez(ev, e->args[0], a);
        for (uint32_t i = 1; i < e->n && !ev->status; i++) {
            ez(ev, e->args[i], b);
            int c = fmpz_cmp(b, a);
            if (e->kind == SY_EXPR_MIN ? c < 0 : c > 0) fmpz_set(a, b);
        }
        fmpz_set(out, a);
        break;
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: {
        ez(ev, e->args[0], a);
        int s = fmpz_sgn(a);
        int v = e->kind == SY_EXPR_EQ ? s == 0 : e->kind == SY_EXPR_NE ? s != 0 : s <= 0;
        fmpz_set_si(out, v);
        break;
    }
    case SY_EXPR_AND:
    case SY_EXPR_OR: {
        int v = e->kind == SY_EXPR_AND;
        for (uint32_t i = 0; i < e->n && !ev->status; i++) {
            ez(ev, e->args[i], a);
            if (e->kind == SY_EXPR_AND) v &= !fmpz_is_zero(a);
            else v |= !fmpz_is_zero(a);
        }
        fmpz_set_si(out, v);
        break;
    }
    default: break;
    }
    fmpz_clear(a);
    fmpz_clear(b);
}

static sy_status report(sy_ctx *ctx, sy_status st, const sy_expr *culprit)
{
    /* the culprit of a nested FloorDiv chain is a DAG with a huge tree: past
     * 100000 tree nodes the message shows the let-form */
    char *s = culprit ? sy_expr_print_bounded(ctx, culprit, SY_PRINT_CANONICAL, 100000u) : NULL;
    sy_status r;
    if (st == SY_EINVAL) r = sy_fail_st(ctx, st, "symbol '%s' has no value", s ? s : "?");
    else if (st == SY_EDIVZERO) r = sy_fail_st(ctx, st, "division by zero in %s", s ? s : "?");
    else if (st == SY_EQUOTA) r = sy_fail_st(ctx, st, "value of %s exceeds the size limit", s ? s : "?");
    else r = sy_fail_st(ctx, st, "evaluation failed");
    sy_str_free(ctx, s);
    return r;
}

sy_status sy_eval_raw(sy_ctx *ctx, const sy_expr *e, const sy_binding *b, fmpz_t out)
{
    ev64 ev = {ctx, b, 0, NULL, 0, {0}};
    int64_t v = e64(&ev, e);
    evmemo_clear(ctx, &ev.memo);
    if (ev.status == 0) {
        fmpz_set_si(out, v);
        return SY_OK;
    }
    if (ev.status == 2) return report(ctx, SY_EDIVZERO, ev.culprit);
    if (ev.status == 3) return report(ctx, SY_EINVAL, ev.culprit);
    if (ev.status == 4) return SY_EQUOTA; /* the budget's message is recorded */
    evz z = {ctx, b, SY_OK, NULL, 0, {0}};
    ez(&z, e, out);
    evmemo_clear(ctx, &z.memo);
    if (z.status && !z.culprit) return SY_EQUOTA;
    if (z.status) return report(ctx, z.status, z.culprit);
    return SY_OK;
}

static sy_status bind_args(sy_ctx *ctx, sy_binding *b, size_t n, const sy_expr *const *syms,
                           const sy_expr *const *vals, const int64_t *v64)
{
    if (n && !syms) return sy_fail_st(ctx, SY_EINVAL, "eval: NULL symbol array");
    if (!sy_binding_init(ctx, b)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    fmpz_t t;
    fmpz_init(t);
    for (size_t i = 0; i < n; i++) {
        if (!syms[i] || syms[i]->kind != SY_EXPR_SYM) {
            fmpz_clear(t);
            sy_binding_clear(ctx, b);
            return sy_fail_st(ctx, SY_EINVAL, "eval: key %zu is not a symbol", i);
        }
        if (vals) {
            if (!vals[i] || vals[i]->kind != SY_EXPR_INT) {
                fmpz_clear(t);
                sy_binding_clear(ctx, b);
                return sy_fail_st(ctx, SY_EINVAL, "eval: value %zu is not an integer constant", i);
            }
            fmpz_set(t, &vals[i]->u.value);
        } else {
            fmpz_set_si(t, v64[i]);
        }
        sy_binding_set(b, syms[i]->u.sym.id, t);
    }
    fmpz_clear(t);
    return SY_OK;
}

static sy_status sy_expr_eval_work(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                       const sy_expr *const *vals, const sy_expr **out)
{
    if (!ctx) return SY_EINVAL;
    if (!e || !out || (n && !vals)) return sy_fail_st(ctx, SY_EINVAL, "eval: NULL argument");
    sy_binding b;
    sy_status st = bind_args(ctx, &b, n, syms, vals, NULL);
    if (st) return st;
    fmpz_t r;
    fmpz_init(r);
    st = sy_eval_raw(ctx, e, &b, r);
    if (st == SY_OK) {
        *out = e->isbool ? sy_expr_bool(ctx, !fmpz_is_zero(r)) : sy_int_fmpz(ctx, r);
        if (!*out) st = sy_ctx_last_error(ctx);
    }
    fmpz_clear(r);
    sy_binding_clear(ctx, &b);
    return st;
}

sy_status sy_expr_eval(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                       const sy_expr *const *vals, const sy_expr **out)
{
    if (!ctx) return SY_EINVAL;
    sy_op_begin(ctx, true);
    sy_status st = sy_op_end_st(ctx, sy_expr_eval_work(ctx, e, n, syms, vals, out));
    if (st != SY_OK && out) *out = NULL;
    return st;
}

static sy_status sy_expr_eval_si_work(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                          const int64_t *vals, int64_t *out)
{
    if (!ctx) return SY_EINVAL;
    if (!e || !out || (n && !vals)) return sy_fail_st(ctx, SY_EINVAL, "eval: NULL argument");
    sy_binding b;
    sy_status st = bind_args(ctx, &b, n, syms, NULL, vals);
    if (st) return st;
    fmpz_t r;
    fmpz_init(r);
    st = sy_eval_raw(ctx, e, &b, r);
    if (st == SY_OK) {
        if (fmpz_fits_si(r)) *out = fmpz_get_si(r);
        else st = sy_fail_st(ctx, SY_EOVERFLOW, "value does not fit int64");
    }
    fmpz_clear(r);
    sy_binding_clear(ctx, &b);
    return st;
}

sy_status sy_expr_eval_si(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                          const int64_t *vals, int64_t *out)
{
    if (!ctx) return SY_EINVAL;
    sy_op_begin(ctx, true);
    return sy_op_end_st(ctx, sy_expr_eval_si_work(ctx, e, n, syms, vals, out));
}

/* ------------------------------------------------------------------ traversal with memo */

bool sy_memo_init(sy_ctx *ctx, sy_memo *m)
{
    m->cap = 64;
    m->n = 0;
    m->keys = sy_alloc(ctx, m->cap * sizeof *m->keys);
    m->vals = sy_alloc(ctx, m->cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        sy_memo_clear(ctx, m);
        return false;
    }
    memset(m->keys, 0, m->cap * sizeof *m->keys);
    return true;
}
void sy_memo_clear(sy_ctx *ctx, sy_memo *m)
{
    if (m->keys) sy_dealloc(ctx, m->keys, m->cap * sizeof *m->keys);
    if (m->vals) sy_dealloc(ctx, m->vals, m->cap * sizeof *m->vals);
    m->keys = NULL;
    m->vals = NULL;
}
const sy_expr *sy_memo_get(const sy_memo *m, const sy_expr *k)
{
    size_t mask = m->cap - 1, j = (size_t)k->hash & mask;
    while (m->keys[j]) {
        if (m->keys[j] == k) return m->vals[j];
        j = (j + 1) & mask;
    }
    return NULL;
}
bool sy_otab_grow(sy_ctx *ctx, void **tab, size_t *cap, size_t esize, size_t ncap, bool (*used)(const void *entry),
                  size_t (*slot)(const void *owner, const void *entry), const void *owner)
{
    unsigned char *nt = sy_alloc(ctx, ncap * esize);
    if (!nt) return false;
    memset(nt, 0, ncap * esize);
    unsigned char *old = *tab;
    size_t oc = *cap;
    *tab = nt;
    *cap = ncap;
    for (size_t i = 0; i < oc; i++)
        if (used(old + i * esize)) memcpy(nt + slot(owner, old + i * esize) * esize, old + i * esize, esize);
    if (old) sy_dealloc(ctx, old, oc * esize);
    return true;
}

bool sy_etab_grow(sy_ctx *ctx, const sy_expr ***keys, void **vals, size_t vsize, size_t cap, size_t ncap)
{
    const sy_expr **nk = sy_alloc(ctx, ncap * sizeof *nk);
    unsigned char *nv = vsize ? sy_alloc(ctx, ncap * vsize) : NULL;
    if (!nk || (vsize && !nv)) {
        if (nk) sy_dealloc(ctx, nk, ncap * sizeof *nk);
        return false;
    }
    memset(nk, 0, ncap * sizeof *nk);
    const sy_expr **ok = *keys;
    unsigned char *ov = vals ? *vals : NULL;
    for (size_t i = 0; i < cap; i++) {
        if (!ok[i]) continue;
        size_t j = (size_t)ok[i]->hash & (ncap - 1);
        while (nk[j]) j = (j + 1) & (ncap - 1);
        nk[j] = ok[i];
        if (vsize) memcpy(nv + j * vsize, ov + i * vsize, vsize);
    }
    if (ok) sy_dealloc(ctx, ok, cap * sizeof *ok);
    if (ov) sy_dealloc(ctx, ov, cap * vsize);
    *keys = nk;
    if (vsize) *vals = nv;
    return true;
}

size_t sy_etab_slot(sy_ctx *ctx, sy_etab *t, const sy_expr *e, size_t vsize, bool insert)
{
    if (insert && (t->n + 1) * 2 > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        if (!sy_etab_grow(ctx, &t->keys, &t->vals, vsize, t->cap, nc)) return SIZE_MAX;
        t->cap = nc;
    }
    if (!t->cap) return SIZE_MAX;
    size_t mask = t->cap - 1, j = (size_t)e->hash & mask;
    while (t->keys[j] && t->keys[j] != e) j = (j + 1) & mask;
    if (t->keys[j]) return j;
    if (!insert) return SIZE_MAX;
    t->keys[j] = e;
    t->n++;
    if (vsize) memset((unsigned char *)t->vals + j * vsize, 0, vsize);
    t->fresh = true;
    return j;
}

void sy_etab_clear(sy_ctx *ctx, sy_etab *t, size_t vsize)
{
    if (t->keys) sy_dealloc(ctx, t->keys, t->cap * sizeof *t->keys);
    if (t->vals) sy_dealloc(ctx, t->vals, t->cap * vsize);
    memset(t, 0, sizeof *t);
}

bool sy_memo_put(sy_ctx *ctx, sy_memo *m, const sy_expr *k, const sy_expr *v)
{
    if ((m->n + 1) * 2 > m->cap) {
        if (!sy_etab_grow(ctx, &m->keys, (void **)&m->vals, sizeof *m->vals, m->cap, m->cap * 2)) return false;
        m->cap *= 2;
    }
    size_t mask = m->cap - 1, j = (size_t)k->hash & mask;
    while (m->keys[j] && m->keys[j] != k) j = (j + 1) & mask;
    if (!m->keys[j]) m->n++;
    m->keys[j] = k;
    m->vals[j] = v;
    return true;
}

/* Rebuild e bottom-up, replacing each node for which leaf() returns non-NULL.
 * Canonicalisation happens through the constructors. */
const sy_expr *sy_rebuild(sy_ctx *ctx, const sy_expr *e, sy_memo *memo,
                          const sy_expr *(*leaf)(void *ud, const sy_expr *e), void *ud)
{
    if (!e) return NULL;
    const sy_expr *hit = sy_memo_get(memo, e);
    if (hit) return hit;
    if (!sy_step(ctx)) return NULL;
    const sy_expr *r = leaf(ud, e);
    if (!r && ctx->err != SY_OK && ctx->err != SY_EINVAL) { /* leaf may signal failure by error */
    }
    if (!r) {
        switch (e->kind) {
        case SY_EXPR_INT:
        case SY_EXPR_SYM:
        case SY_EXPR_TRUE:
        case SY_EXPR_FALSE: r = e; break;
        case SY_EXPR_ADD: {
            sy_terms ts;
            sy_terms_init(&ts);
            fmpz_set(ts.c0, &e->u.c0);
            bool ok = true;
            for (uint32_t i = 0; i < e->n && ok; i++) {
                const sy_expr *m = sy_rebuild(ctx, SY_CTERMS(e)[i].mono, memo, leaf, ud);
                ok = m && sy_terms_add_expr(ctx, &ts, &SY_CTERMS(e)[i].coef, m);
            }
            if (ok) r = sy_terms_build(ctx, &ts);
            sy_terms_clear(ctx, &ts);
            break;
        }
        case SY_EXPR_POW: r = sy_expr_pow_ui(ctx, sy_rebuild(ctx, e->args[0], memo, leaf, ud), e->u.exp); break;
        case SY_EXPR_MUL: { /* one n-ary product, not n binary ones */
            const sy_expr *stackbuf[16];
            const sy_expr **v = e->n <= 16 ? stackbuf : sy_alloc(ctx, e->n * sizeof *v);
            if (!v) { r = sy_oom(ctx); break; }
            bool ok = true, same = true;
            for (uint32_t i = 0; i < e->n && ok; i++) {
                v[i] = sy_rebuild(ctx, e->args[i], memo, leaf, ud);
                ok = v[i] != NULL;
                same = same && v[i] == e->args[i];
            }
            if (ok) r = same ? e : sy_expr_mul_n(ctx, e->n, v);
            if (v != stackbuf) sy_dealloc(ctx, v, e->n * sizeof *v);
            break;
        }
        case SY_EXPR_FLOORDIV:
        case SY_EXPR_MOD:
        case SY_EXPR_CEILDIV: {
            const sy_expr *a = sy_rebuild(ctx, e->args[0], memo, leaf, ud);
            const sy_expr *b = a ? sy_rebuild(ctx, e->args[1], memo, leaf, ud) : NULL;
            if (!a || !b) break;
            if (a == e->args[0] && b == e->args[1]) { r = e; break; }
            r = e->kind == SY_EXPR_FLOORDIV ? sy_expr_floordiv(ctx, a, b)
              : e->kind == SY_EXPR_MOD ? sy_expr_mod(ctx, a, b) : sy_expr_ceildiv(ctx, a, b);
            break;
        }
        case SY_EXPR_EQ: r = sy_expr_eq(ctx, sy_rebuild(ctx, e->args[0], memo, leaf, ud), sy_expr_int_si(ctx, 0)); break;
        case SY_EXPR_NE: r = sy_expr_ne(ctx, sy_rebuild(ctx, e->args[0], memo, leaf, ud), sy_expr_int_si(ctx, 0)); break;
        case SY_EXPR_LE: r = sy_expr_le(ctx, sy_rebuild(ctx, e->args[0], memo, leaf, ud), sy_expr_int_si(ctx, 0)); break;
        default: { /* Min Max And Or */
            const sy_expr *stackbuf[16];
            const sy_expr **v = e->n <= 16 ? stackbuf : sy_alloc(ctx, e->n * sizeof *v);
            if (!v) { r = sy_oom(ctx); break; }
            bool ok = true, same = true;
            for (uint32_t i = 0; i < e->n && ok; i++) {
                v[i] = sy_rebuild(ctx, e->args[i], memo, leaf, ud);
                ok = v[i] != NULL;
                same = same && v[i] == e->args[i];
            }
            if (ok) {
                if (same) r = e;
                else if (e->kind == SY_EXPR_MIN) r = sy_expr_min_n(ctx, e->n, v);
                else if (e->kind == SY_EXPR_MAX) r = sy_expr_max_n(ctx, e->n, v);
                else if (e->kind == SY_EXPR_AND) r = sy_expr_and_n(ctx, e->n, v);
                else r = sy_expr_or_n(ctx, e->n, v);
            }
            if (v != stackbuf) sy_dealloc(ctx, v, e->n * sizeof *v);
            break;
        }
        }
    }
    if (r && !sy_memo_put(ctx, memo, e, r)) return sy_oom(ctx);
    return r;
}

typedef struct {
    size_t n;
    const sy_expr *const *syms, *const *vals;
} subs_ud;

static const sy_expr *subs_leaf(void *ud, const sy_expr *e)
{
    subs_ud *s = ud;
    if (e->kind != SY_EXPR_SYM) return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (s->syms[i] == e) return s->vals[i];
    return NULL;
}

static const sy_expr *sy_expr_subs_work(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                            const sy_expr *const *vals)
{
    if (!ctx || !e) return NULL;
    if (n && (!syms || !vals)) return sy_fail(ctx, SY_EINVAL, "subs: NULL arrays");
    for (size_t i = 0; i < n; i++) {
        if (!syms[i] || !vals[i]) return NULL;
        if (syms[i]->kind != SY_EXPR_SYM) return sy_fail(ctx, SY_EINVAL, "subs: key %zu is not a symbol", i);
        if (vals[i]->isbool) return sy_fail(ctx, SY_EINVAL, "subs: value %zu is a boolean", i);
    }
    sy_memo m;
    if (!sy_memo_init(ctx, &m)) return sy_oom(ctx);
    subs_ud ud = {n, syms, vals};
    const sy_expr *r = sy_rebuild(ctx, e, &m, subs_leaf, &ud);
    sy_memo_clear(ctx, &m);
    return r;
}

const sy_expr *sy_expr_subs(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                            const sy_expr *const *vals)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    return sy_op_end_e(ctx, sy_expr_subs_work(ctx, e, n, syms, vals));
}

typedef struct {
    size_t nid;
    const sy_expr *const *byid;
} subs_ids_ud;

static const sy_expr *subs_ids_leaf(void *ud, const sy_expr *e)
{
    const subs_ids_ud *s = ud;
    return e->kind == SY_EXPR_SYM && e->u.sym.id < s->nid ? s->byid[e->u.sym.id] : NULL;
}

const sy_expr *sy_expr_subs_ids(sy_ctx *ctx, const sy_expr *e, size_t nid, const sy_expr *const *byid)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    const sy_expr *r = NULL;
    if (!e || (nid && !byid)) r = e ? sy_fail(ctx, SY_EINVAL, "subs: NULL array") : NULL;
    else {
        sy_memo m;
        if (!sy_memo_init(ctx, &m)) r = sy_oom(ctx);
        else {
            subs_ids_ud ud = {nid, byid};
            r = sy_rebuild(ctx, e, &m, subs_ids_leaf, &ud);
            sy_memo_clear(ctx, &m);
        }
    }
    return sy_op_end_e(ctx, r);
}

/* ------------------------------------------------------------------ free symbols */

static bool collect_syms(sy_ctx *ctx, const sy_expr *e, sy_memo *seen, const sy_expr ***v, size_t *n, size_t *cap)
{
    if (sy_memo_get(seen, e)) return true;
    if (!sy_memo_put(ctx, seen, e, e)) return false;
    if (e->kind == SY_EXPR_SYM) {
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 8;
            const sy_expr **nv = sy_realloc(ctx, *v, *cap * sizeof **v, nc * sizeof **v);
            if (!nv) return false;
            *v = nv;
            *cap = nc;
        }
        (*v)[(*n)++] = e;
        return true;
    }
    if (e->kind == SY_EXPR_INT) return true;
    for (uint32_t i = 0; i < sy_expr_nargs(e); i++)
        if (!collect_syms(ctx, sy_expr_arg(e, i), seen, v, n, cap)) return false;
    return true;
}

static int cmp_ptr(const void *x, const void *y)
{
    return sy_expr_cmp(*(const sy_expr *const *)x, *(const sy_expr *const *)y);
}

sy_status sy_expr_free_symbols(sy_ctx *ctx, const sy_expr *e, const sy_expr ***out, size_t *n)
{
    if (!ctx) return SY_EINVAL;
    if (!e || !out || !n) return sy_fail_st(ctx, SY_EINVAL, "free_symbols: NULL argument");
    *out = NULL;
    *n = 0;
    sy_memo seen;
    if (!sy_memo_init(ctx, &seen)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    const sy_expr **v = NULL;
    size_t cnt = 0, cap = 0;
    bool ok = collect_syms(ctx, e, &seen, &v, &cnt, &cap);
    sy_memo_clear(ctx, &seen);
    if (!ok) {
        if (v) sy_dealloc(ctx, v, cap * sizeof *v);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    if (cnt) {
        qsort(v, cnt, sizeof *v, cmp_ptr);
        const sy_expr **res = sy_alloc_array(ctx, cnt * sizeof *res);
        if (!res) {
            sy_dealloc(ctx, v, cap * sizeof *v);
            return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        }
        memcpy(res, v, cnt * sizeof *res);
        *out = res;
        *n = cnt;
    }
    if (v) sy_dealloc(ctx, v, cap * sizeof *v);
    return SY_OK;
}
