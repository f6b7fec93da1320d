/* Expression nodes: interning, ordering, polynomial arithmetic (+, *, pow),
 * intrinsic bounds. Division-like nodes are in div.c, Min/Max in minmax.c,
 * relations and connectives in rel.c.
 *
 * Length (about 1,450 lines, over the tree's 1,200): interning, the canonical
 * order and the polynomial constructors maintain one invariant together (a
 * node is interned only in canonical form, ordered by kind, content, serial),
 * which is easiest to check when they are read side by side. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/expr_private.h"
#include "algebra/ival.h"

/* ------------------------------------------------------------------ hashing */

uint64_t sy_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}

uint64_t sy_hash_fmpz(const fmpz_t v)
{
    if (!COEFF_IS_MPZ(*v)) return sy_mix(0x1234567ull, (uint64_t)*v);
    const __mpz_struct *z = COEFF_TO_PTR(*v);
    uint64_t h = sy_mix(0x7654321ull, (uint64_t)(int64_t)z->_mp_size);
    size_t n = (size_t)(z->_mp_size < 0 ? -z->_mp_size : z->_mp_size);
    for (size_t i = 0; i < n; i++) h = sy_mix(h, (uint64_t)z->_mp_d[i]);
    return h;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

uint64_t sy_hash_node(const sy_expr *c)
{
    uint64_t h = sy_mix(0xabcdefull, c->kind);
    switch (c->kind) {
    case SY_EXPR_INT: return sy_mix(h, sy_hash_fmpz(&c->u.value));
    case SY_EXPR_SYM: return sy_mix(h, hash_str(c->u.sym.name));
    case SY_EXPR_ADD:
        h = sy_mix(h, sy_hash_fmpz(&c->u.c0));
        for (uint32_t i = 0; i < c->n; i++) {
            h = sy_mix(h, sy_hash_fmpz(&SY_CTERMS(c)[i].coef));
            h = sy_mix(h, SY_CTERMS(c)[i].mono->hash);
        }
        return h;
    case SY_EXPR_POW: return sy_mix(sy_mix(h, c->args[0]->hash), c->u.exp);
    default:
        h = sy_mix(h, c->n);
        for (uint32_t i = 0; i < c->n; i++) h = sy_mix(h, c->args[i]->hash);
        return h;
    }
}

static bool node_equal(const sy_expr *a, const sy_expr *b)
{
    if (a->hash != b->hash || a->kind != b->kind || a->n != b->n) return false;
    switch (a->kind) {
    case SY_EXPR_INT: return fmpz_equal(&a->u.value, &b->u.value);
    case SY_EXPR_SYM: return strcmp(a->u.sym.name, b->u.sym.name) == 0;
    case SY_EXPR_ADD:
        if (!fmpz_equal(&a->u.c0, &b->u.c0)) return false;
        for (uint32_t i = 0; i < a->n; i++) {
            if (SY_CTERMS(a)[i].mono != SY_CTERMS(b)[i].mono) return false;
            if (!fmpz_equal(&SY_CTERMS(a)[i].coef, &SY_CTERMS(b)[i].coef)) return false;
        }
        return true;
    case SY_EXPR_POW: return a->args[0] == b->args[0] && a->u.exp == b->u.exp;
    default:
        for (uint32_t i = 0; i < a->n; i++)
            if (a->args[i] != b->args[i]) return false;
        return true;
    }
}

/* ------------------------------------------------------------------ arena */

static void *arena_alloc(sy_ctx *ctx, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    sy_arena_chunk *c = ctx->chunks;
    if (!c || c->size - c->used < size) {
        /* SY_ARENA_FIRST (4 KiB) first, then SY_ARENA_CHUNK (2 KiB) chunks:
         * the arena holds every node until the context is freed, so the
         * newest chunk's slack is part of the peak (growing by a quarter,
         * the chunk opened for a few nodes late in a run was up to a fifth
         * of the arena: 10 KB of 50) */
        size_t csize = c ? SY_ARENA_CHUNK : SY_ARENA_FIRST;
        if (csize < size) csize = size;
        c = sy_alloc(ctx, sizeof *c + csize);
        if (!c) return NULL;
        c->size = csize;
        c->used = 0;
        c->next = ctx->chunks;
        ctx->chunks = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    ctx->arena_bytes += size;
    return p;
}

/* ------------------------------------------------------------------ interning */

sy_expr *sy_scratch(sy_ctx *ctx, size_t n)
{
    if (n > ctx->scratch_cap || !ctx->scratch) {
        size_t cap = ctx->scratch_cap ? ctx->scratch_cap : 16;
        while (cap < n) cap *= 2;
        sy_expr *s = sy_realloc(ctx, ctx->scratch, sizeof(sy_expr) + ctx->scratch_cap * sizeof(sy_term),
                                sizeof(sy_expr) + cap * sizeof(sy_term));
        if (!s) return NULL;
        ctx->scratch = s;
        ctx->scratch_cap = cap;
    }
    memset(ctx->scratch, 0, sizeof(sy_expr));
    return ctx->scratch;
}

static bool table_grow(sy_ctx *ctx)
{
    size_t ncap = ctx->cap * 2;
    const sy_expr **nt = sy_alloc(ctx, ncap * sizeof *nt);
    if (!nt) return false;
    memset(nt, 0, ncap * sizeof *nt);
    for (size_t i = 0; i < ctx->cap; i++) {
        const sy_expr *e = ctx->table[i];
        if (!e) continue;
        size_t j = (size_t)e->hash & (ncap - 1);
        while (nt[j]) j = (j + 1) & (ncap - 1);
        nt[j] = e;
    }
    sy_dealloc(ctx, ctx->table, ctx->cap * sizeof *ctx->table);
    ctx->table = nt;
    ctx->cap = ncap;
    return true;
}

static size_t node_size(const sy_expr *c)
{
    return sizeof(sy_expr) + c->n * (c->kind == SY_EXPR_ADD ? sizeof(sy_term) : sizeof(const sy_expr *));
}

/* 1 + the deepest child's depth (0 for a leaf). */
static unsigned cand_depth(const sy_expr *c)
{
    unsigned d = 0;
    switch (c->kind) {
    case SY_EXPR_INT:
    case SY_EXPR_SYM: return 0;
    case SY_EXPR_ADD:
        for (uint32_t i = 0; i < c->n; i++)
            if (SY_CTERMS(c)[i].mono->depth > d) d = SY_CTERMS(c)[i].mono->depth;
        return d + 1;
    case SY_EXPR_POW: return c->args[0]->depth + 1u;
    default:
        for (uint32_t i = 0; i < c->n; i++)
            if (c->args[i]->depth > d) d = c->args[i]->depth;
        return c->n ? d + 1 : 0;
    }
}

const sy_expr *sy_intern(sy_ctx *ctx, const sy_expr *cand)
{
    if (!sy_step(ctx)) return NULL;
    size_t mask = ctx->cap - 1;
    size_t j = (size_t)cand->hash & mask;
    while (ctx->table[j]) {
        if (node_equal(ctx->table[j], cand)) return ctx->table[j];
        j = (j + 1) & mask;
    }
    /* A new node: within the nesting and constant-size limits (expr_private.h,
     * sy_ctx_options.max_const_bits), so that no recursive pass can run out of
     * stack and no chain of constant arithmetic grows without bound. */
    unsigned depth = cand_depth(cand);
    if (depth > SY_MAX_DEPTH)
        return sy_fail(ctx, SY_EQUOTA, "expression nested deeper than %d levels", SY_MAX_DEPTH);
    if (cand->kind == SY_EXPR_INT && (uint64_t)fmpz_bits(&cand->u.value) > ctx->opts.max_const_bits)
        return sy_fail(ctx, SY_EQUOTA, "constant of %llu bits exceeds max_const_bits (%llu)",
                       (unsigned long long)fmpz_bits(&cand->u.value), (unsigned long long)ctx->opts.max_const_bits);
    if (cand->kind == SY_EXPR_ADD) {
        if ((uint64_t)fmpz_bits(&cand->u.c0) > ctx->opts.max_const_bits)
            return sy_fail(ctx, SY_EQUOTA, "constant of %llu bits exceeds max_const_bits (%llu)",
                           (unsigned long long)fmpz_bits(&cand->u.c0), (unsigned long long)ctx->opts.max_const_bits);
        for (uint32_t i = 0; i < cand->n; i++)
            if ((uint64_t)fmpz_bits(&SY_CTERMS(cand)[i].coef) > ctx->opts.max_const_bits)
                return sy_fail(ctx, SY_EQUOTA, "coefficient of %llu bits exceeds max_const_bits (%llu)",
                               (unsigned long long)fmpz_bits(&SY_CTERMS(cand)[i].coef),
                               (unsigned long long)ctx->opts.max_const_bits);
    }
    if ((ctx->count + 1) * 2 > ctx->cap) {
        if (!table_grow(ctx)) return sy_oom(ctx);
        mask = ctx->cap - 1;
        j = (size_t)cand->hash & mask;
        while (ctx->table[j]) j = (j + 1) & mask;
    }
    size_t sz = node_size(cand);
    sy_expr *e = arena_alloc(ctx, sz);
    if (!e) return sy_oom(ctx);
    memcpy(e, cand, sz);
    e->depth = (uint16_t)depth;
    switch (cand->kind) {
    case SY_EXPR_INT:
        fmpz_init(&e->u.value);
        fmpz_set(&e->u.value, &cand->u.value);
        break;
    case SY_EXPR_SYM: {
        size_t len = strlen(cand->u.sym.name) + 1;
        char *nm = arena_alloc(ctx, len);
        if (!nm) return sy_oom(ctx);
        memcpy(nm, cand->u.sym.name, len);
        e->u.sym.name = nm;
        if (ctx->nsyms == ctx->symcap) {
            size_t ncap = ctx->symcap ? ctx->symcap * 2 : 64;
            const sy_expr **ns = sy_realloc(ctx, ctx->syms, ctx->symcap * sizeof *ns, ncap * sizeof *ns);
            if (!ns) return sy_oom(ctx);
            ctx->syms = ns;
            ctx->symcap = ncap;
        }
        e->u.sym.id = (uint32_t)ctx->nsyms;
        ctx->syms[ctx->nsyms++] = e;
        break;
    }
    case SY_EXPR_ADD:
        fmpz_init(&e->u.c0);
        fmpz_set(&e->u.c0, &cand->u.c0);
        for (uint32_t i = 0; i < cand->n; i++) {
            fmpz_init(&SY_TERMS(e)[i].coef);
            fmpz_set(&SY_TERMS(e)[i].coef, &SY_CTERMS(cand)[i].coef);
        }
        break;
    default: break;
    }
    e->serial = ctx->next_serial++;
    sy_compute_bounds(e);
#if !defined(NDEBUG) || defined(SY_EXPR_CHECK)
    { /* every new node is canonical (algebra/check.c); a violation is a bug of a constructor */
        const char *bad = sy_expr_check(ctx, e);
        if (bad) {
            fprintf(stderr, "symshape: non-canonical node (kind %d, serial %llu): %s\n", e->kind,
                    (unsigned long long)e->serial, bad);
            abort();
        }
    }
#endif
    ctx->table[j] = e;
    ctx->count++;
    if (ctx->op_depth && ctx->op_pure) sy_ilog_push(ctx, j);
    return e;
}

/* ------------------------------------------------------------------ leaves */

/* the cached node of v (not a bignum), or NULL */
static inline const sy_expr *icache_get(const sy_ctx *ctx, int64_t v)
{
    const sy_expr *e = ctx->icache[sy_icache_slot(v)];
    return e && !COEFF_IS_MPZ(e->u.value) && e->u.value == v ? e : NULL;
}

const sy_expr *sy_int_fmpz(sy_ctx *ctx, const fmpz_t v)
{
    if (!COEFF_IS_MPZ(*v)) {
        const sy_expr *s = icache_get(ctx, *v);
        if (s) return s;
    }
    sy_expr *c = sy_scratch(ctx, 0);
    if (!c) return sy_oom(ctx);
    c->kind = SY_EXPR_INT;
    c->u.value = *v; /* shallow: sy_intern deep-copies */
    c->hash = sy_hash_node(c);
    const sy_expr *e = sy_intern(ctx, c);
    if (e && !COEFF_IS_MPZ(*v)) ctx->icache[sy_icache_slot(*v)] = e;
    return e;
}

const sy_expr *sy_expr_int_si(sy_ctx *ctx, int64_t v)
{
    if (!ctx) return NULL;
    const sy_expr *s = icache_get(ctx, v);
    if (s) return s;
    fmpz_t t;
    fmpz_init(t);
    fmpz_set_si(t, v);
    const sy_expr *e = sy_int_fmpz(ctx, t);
    fmpz_clear(t);
    return e;
}

const sy_expr *sy_expr_int_str(sy_ctx *ctx, const char *text)
{
    if (!ctx) return NULL;
    if (!text) return sy_fail(ctx, SY_EINVAL, "NULL integer text");
    const char *p = text;
    if (*p == '-') p++;
    if (!*p) return sy_fail(ctx, SY_EFORMAT, "'%s' is not an integer", text);
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q)) return sy_fail(ctx, SY_EFORMAT, "'%s' is not an integer", text);
    fmpz_t t;
    fmpz_init(t);
    fmpz_set_str(t, text, 10);
    const sy_expr *e = sy_int_fmpz(ctx, t);
    fmpz_clear(t);
    return e;
}

static const char *const reserved[] = {"FloorDiv", "Mod", "CeilDiv", "Min", "Max", "Eq", "Ne", "Lt", "Le",
                                       "Gt", "Ge", "And", "Or", "Not", "true", "false", "oo",
                                       "and", "or", "not", NULL};

bool sy_reserved_name(const char *name, size_t len)
{
    for (int i = 0; reserved[i]; i++)
        if (strlen(reserved[i]) == len && memcmp(reserved[i], name, len) == 0) return true;
    return false;
}

const sy_expr *sy_expr_sym(sy_ctx *ctx, const char *name)
{
    if (!ctx) return NULL;
    if (!name || !*name) return sy_fail(ctx, SY_EINVAL, "empty symbol name");
    if (!(isalpha((unsigned char)name[0]) || name[0] == '_'))
        return sy_fail(ctx, SY_EINVAL, "invalid symbol name '%s'", name);
    for (const char *p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return sy_fail(ctx, SY_EINVAL, "invalid symbol name '%s'", name);
    if (sy_reserved_name(name, strlen(name)))
        return sy_fail(ctx, SY_EINVAL, "'%s' is reserved and cannot name a symbol", name);
    sy_expr *c = sy_scratch(ctx, 0);
    if (!c) return sy_oom(ctx);
    c->kind = SY_EXPR_SYM;
    c->deg = 1;
    c->u.sym.name = name;
    c->hash = sy_hash_node(c);
    return sy_intern(ctx, c);
}

const sy_expr *sy_sym_internal(sy_ctx *ctx, const char *name)
{
    sy_expr *c = sy_scratch(ctx, 0);
    if (!c) return sy_oom(ctx);
    c->kind = SY_EXPR_SYM;
    c->deg = 1;
    c->u.sym.name = name;
    c->hash = sy_hash_node(c);
    return sy_intern(ctx, c);
}

static const sy_expr *make_const_bool(sy_ctx *ctx, sy_expr_kind k)
{
    sy_expr *c = sy_scratch(ctx, 0);
    if (!c) return sy_oom(ctx);
    c->kind = (uint8_t)k;
    c->isbool = 1;
    c->hash = sy_hash_node(c);
    return sy_intern(ctx, c);
}

const sy_expr *sy_expr_true(sy_ctx *ctx)
{
    if (!ctx) return NULL;
    return ctx->etrue ? ctx->etrue : make_const_bool(ctx, SY_EXPR_TRUE);
}
const sy_expr *sy_expr_false(sy_ctx *ctx)
{
    if (!ctx) return NULL;
    return ctx->efalse ? ctx->efalse : make_const_bool(ctx, SY_EXPR_FALSE);
}
const sy_expr *sy_expr_bool(sy_ctx *ctx, int v) { return v ? sy_expr_true(ctx) : sy_expr_false(ctx); }

/* Generic node with n children (not ADD/POW/INT/SYM). Children are copied. */
const sy_expr *sy_node_n(sy_ctx *ctx, sy_expr_kind kind, size_t n, const sy_expr *const *args)
{
    sy_expr *c = sy_scratch(ctx, n);
    if (!c) return sy_oom(ctx);
    c->kind = (uint8_t)kind;
    c->n = (uint32_t)n;
    c->isbool = (kind >= SY_EXPR_EQ);
    c->deg = (kind >= SY_EXPR_FLOORDIV && kind <= SY_EXPR_MAX) ? 1 : 0;
    for (size_t i = 0; i < n; i++) c->args[i] = args[i];
    c->hash = sy_hash_node(c);
    return sy_intern(ctx, c);
}

const sy_expr *sy_node2(sy_ctx *ctx, sy_expr_kind kind, const sy_expr *a, const sy_expr *b)
{
    const sy_expr *args[2] = {a, b};
    return sy_node_n(ctx, kind, b ? 2 : 1, args);
}

/* ------------------------------------------------------------------ predicates */

bool sy_is_int(const sy_expr *e) { return e->kind == SY_EXPR_INT; }
bool sy_is_zero(const sy_expr *e) { return e->kind == SY_EXPR_INT && fmpz_is_zero(&e->u.value); }
bool sy_is_one(const sy_expr *e) { return e->kind == SY_EXPR_INT && fmpz_is_one(&e->u.value); }
bool sy_is_atom(const sy_expr *e)
{
    return e->kind == SY_EXPR_SYM || (e->kind >= SY_EXPR_FLOORDIV && e->kind <= SY_EXPR_MAX);
}
bool sy_is_monomial(const sy_expr *e)
{
    return sy_is_atom(e) || e->kind == SY_EXPR_POW || e->kind == SY_EXPR_MUL;
}

bool sy_check_int(sy_ctx *ctx, const sy_expr *e, const char *what)
{
    if (e->isbool) {
        sy_fail(ctx, SY_EINVAL, "%s: expected an integer expression, got a boolean", what);
        return false;
    }
    return true;
}
bool sy_check_bool(sy_ctx *ctx, const sy_expr *e, const char *what)
{
    if (!e->isbool) {
        sy_fail(ctx, SY_EINVAL, "%s: expected a boolean expression, got an integer", what);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ ordering */

/* Natural order of names: digit runs compare numerically (s2 < s10). */
static int name_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *a0 = a, *b0 = b;
            while (*a0 == '0' && isdigit((unsigned char)a0[1])) a0++;
            while (*b0 == '0' && isdigit((unsigned char)b0[1])) b0++;
            const char *a1 = a0, *b1 = b0;
            while (isdigit((unsigned char)*a1)) a1++;
            while (isdigit((unsigned char)*b1)) b1++;
            if (a1 - a0 != b1 - b0) return (a1 - a0) < (b1 - b0) ? -1 : 1;
            int c = strncmp(a0, b0, (size_t)(a1 - a0));
            if (c) return c < 0 ? -1 : 1;
            a = a1;
            b = b1;
        } else {
            if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    if (*a) return 1;
    if (*b) return -1;
    return 0;
}

/* natural order, then plain byte order (s2 and s02 differ) */
static int name_order(const char *a, const char *b)
{
    int c = name_cmp(a, b);
    return c ? c : strcmp(a, b) < 0 ? -1 : strcmp(a, b) > 0;
}

static int serial_cmp(const sy_expr *a, const sy_expr *b)
{
    return a->serial < b->serial ? -1 : (a->serial > b->serial ? 1 : 0);
}

int sy_atom_cmp(const sy_expr *a, const sy_expr *b)
{
    if (a == b) return 0;
    bool as = a->kind == SY_EXPR_SYM, bs = b->kind == SY_EXPR_SYM;
    if (as != bs) return as ? -1 : 1;
    if (as) {
        int c = name_order(a->u.sym.name, b->u.sym.name);
        return c ? c : serial_cmp(a, b);
    }
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    for (uint32_t i = 0; i < a->n && i < b->n; i++) {
        int c = sy_expr_cmp(a->args[i], b->args[i]);
        if (c) return c;
    }
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    return serial_cmp(a, b);
}

/* Factor i of a monomial: base atom and exponent. */
static const sy_expr *factor_at(const sy_expr *m, uint32_t i, uint64_t *exp)
{
    const sy_expr *f = (m->kind == SY_EXPR_MUL) ? m->args[i] : m;
    if (f->kind == SY_EXPR_POW) {
        *exp = f->u.exp;
        return f->args[0];
    }
    *exp = 1;
    return f;
}
static uint32_t nfactors(const sy_expr *m) { return m->kind == SY_EXPR_MUL ? m->n : 1; }

int sy_mono_cmp(const sy_expr *a, const sy_expr *b)
{
    if (a == b) return 0;
    if (a->deg != b->deg) return a->deg > b->deg ? -1 : 1; /* higher degree first */
    uint32_t na = nfactors(a), nb = nfactors(b);
    for (uint32_t i = 0; i < na && i < nb; i++) {
        uint64_t ea, eb;
        const sy_expr *fa = factor_at(a, i, &ea), *fb = factor_at(b, i, &eb);
        int c = sy_atom_cmp(fa, fb);
        if (c) return c;
        if (ea != eb) return ea > eb ? -1 : 1;
    }
    if (na != nb) return na < nb ? -1 : 1;
    return serial_cmp(a, b);
}

static int group_of(const sy_expr *e)
{
    switch (e->kind) {
    case SY_EXPR_INT: return 0;
    case SY_EXPR_ADD: return 2;
    case SY_EXPR_EQ: case SY_EXPR_NE: case SY_EXPR_LE: return 3;
    case SY_EXPR_AND: case SY_EXPR_OR: return 4;
    case SY_EXPR_TRUE: case SY_EXPR_FALSE: return 5;
    default: return 1; /* monomials */
    }
}

int sy_expr_cmp(const sy_expr *a, const sy_expr *b)
{
    if (a == b) return 0;
    int ga = group_of(a), gb = group_of(b);
    if (ga != gb) return ga < gb ? -1 : 1;
    switch (ga) {
    case 0: {
        int c = fmpz_cmp(&a->u.value, &b->u.value);
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 1: return sy_mono_cmp(a, b);
    case 2:
        for (uint32_t i = 0; i < a->n && i < b->n; i++) {
            int c = sy_mono_cmp(SY_CTERMS(a)[i].mono, SY_CTERMS(b)[i].mono);
            if (c) return c;
            c = fmpz_cmp(&SY_CTERMS(a)[i].coef, &SY_CTERMS(b)[i].coef);
            if (c) return c < 0 ? -1 : 1;
        }
        if (a->n != b->n) return a->n < b->n ? -1 : 1;
        {
            int c = fmpz_cmp(&a->u.c0, &b->u.c0);
            if (c) return c < 0 ? -1 : 1;
        }
        return serial_cmp(a, b);
    case 3:
    case 4:
        if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
        for (uint32_t i = 0; i < a->n && i < b->n; i++) {
            int c = sy_expr_cmp(a->args[i], b->args[i]);
            if (c) return c;
        }
        if (a->n != b->n) return a->n < b->n ? -1 : 1;
        return serial_cmp(a, b);
    default: return a->kind < b->kind ? -1 : (a->kind > b->kind ? 1 : 0);
    }
}

/* ------------------------------------------------------------------ monomials */

static const sy_expr *make_pow(sy_ctx *ctx, const sy_expr *base, uint64_t k)
{
    if (k == 1) return base;
    if (k > ctx->opts.max_exponent)
        return sy_fail(ctx, SY_EQUOTA, "exponent %llu exceeds the limit %llu", (unsigned long long)k,
                       (unsigned long long)ctx->opts.max_exponent);
    sy_expr *c = sy_scratch(ctx, 1);
    if (!c) return sy_oom(ctx);
    c->kind = SY_EXPR_POW;
    c->n = 1;
    c->args[0] = base;
    c->u.exp = k;
    c->deg = (uint32_t)k;
    c->hash = sy_hash_node(c);
    return sy_intern(ctx, c);
}

typedef struct { const sy_expr *base; uint64_t exp; } factor;

/* Build a monomial from sorted, merged factors. */
static const sy_expr *build_mono(sy_ctx *ctx, factor *fs, size_t n)
{
    if (n == 1) return make_pow(ctx, fs[0].base, fs[0].exp);
    const sy_expr *stackbuf[16];
    const sy_expr **args = n <= 16 ? stackbuf : sy_alloc(ctx, n * sizeof *args);
    if (!args) return sy_oom(ctx);
    uint64_t deg = 0;
    const sy_expr *res = NULL;
    size_t i;
    for (i = 0; i < n; i++) {
        args[i] = make_pow(ctx, fs[i].base, fs[i].exp);
        if (!args[i]) break;
        deg += fs[i].exp;
    }
    if (i == n) {
        if (deg > ctx->opts.max_exponent * 64u) {
            res = sy_fail(ctx, SY_EQUOTA, "monomial degree %llu too large", (unsigned long long)deg);
        } else {
            sy_expr *c = sy_scratch(ctx, n);
            if (!c) {
                res = sy_oom(ctx);
            } else {
                c->kind = SY_EXPR_MUL;
                c->n = (uint32_t)n;
                c->deg = (uint32_t)deg;
                for (size_t j = 0; j < n; j++) c->args[j] = args[j];
                c->hash = sy_hash_node(c);
                res = sy_intern(ctx, c);
            }
        }
    }
    if (args != stackbuf) sy_dealloc(ctx, args, n * sizeof *args);
    return res;
}

const sy_expr *sy_mono_mul(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    uint32_t na = nfactors(a), nb = nfactors(b);
    factor stackbuf[32];
    size_t cap = (size_t)na + nb;
    factor *fs = cap <= 32 ? stackbuf : sy_alloc(ctx, cap * sizeof *fs);
    if (!fs) return sy_oom(ctx);
    size_t n = 0;
    uint32_t i = 0, j = 0;
    while (i < na || j < nb) {
        uint64_t ea = 0, eb = 0;
        const sy_expr *fa = i < na ? factor_at(a, i, &ea) : NULL;
        const sy_expr *fb = j < nb ? factor_at(b, j, &eb) : NULL;
        int c = !fa ? 1 : (!fb ? -1 : sy_atom_cmp(fa, fb));
        if (c < 0) {
            fs[n].base = fa; fs[n].exp = ea; n++; i++;
        } else if (c > 0) {
            fs[n].base = fb; fs[n].exp = eb; n++; j++;
        } else {
            fs[n].base = fa; fs[n].exp = ea + eb; n++; i++; j++;
        }
    }
    const sy_expr *r = build_mono(ctx, fs, n);
    if (fs != stackbuf) sy_dealloc(ctx, fs, cap * sizeof *fs);
    return r;
}

static const sy_expr *mono_pow(sy_ctx *ctx, const sy_expr *m, uint64_t k)
{
    uint32_t n = nfactors(m);
    factor stackbuf[32];
    factor *fs = n <= 32 ? stackbuf : sy_alloc(ctx, n * sizeof *fs);
    if (!fs) return sy_oom(ctx);
    const sy_expr *r = NULL;
    bool ok = true;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t e;
        fs[i].base = factor_at(m, i, &e);
        if (e > ctx->opts.max_exponent / k + 1 || e * k > ctx->opts.max_exponent) {
            r = sy_fail(ctx, SY_EQUOTA, "exponent %llu exceeds the limit %llu", (unsigned long long)e * k,
                        (unsigned long long)ctx->opts.max_exponent);
            ok = false;
            break;
        }
        fs[i].exp = e * k;
    }
    if (ok) r = build_mono(ctx, fs, n);
    if (fs != stackbuf) sy_dealloc(ctx, fs, n * sizeof *fs);
    return r;
}

/* ------------------------------------------------------------------ term lists */

void sy_terms_init(sy_terms *ts)
{
    ts->t = ts->inl;
    ts->n = 0;
    ts->cap = SY_TERMS_INLINE;
    fmpz_init(ts->c0);
}

void sy_terms_clear(sy_ctx *ctx, sy_terms *ts)
{
    for (size_t i = 0; i < ts->n; i++) fmpz_clear(&ts->t[i].coef);
    if (ts->t && ts->t != ts->inl) sy_dealloc(ctx, ts->t, ts->cap * sizeof *ts->t);
    ts->t = ts->inl;
    ts->n = 0;
    ts->cap = SY_TERMS_INLINE;
    fmpz_clear(ts->c0);
}

bool sy_terms_push(sy_ctx *ctx, sy_terms *ts, const fmpz_t c, const sy_expr *mono)
{
    if (!sy_charge_terms(ctx, 1)) return false;
    if (ts->n == ts->cap) {
        size_t ncap = ts->cap ? ts->cap * 2 : 8;
        if (ts->n >= ctx->opts.max_terms * 4 + 64) {
            sy_fail(ctx, SY_EQUOTA, "expression exceeds the term budget (%zu terms)", ctx->opts.max_terms);
            return false;
        }
        sy_term *nt;
        if (ts->t == ts->inl) {
            nt = sy_alloc(ctx, ncap * sizeof *nt);
            if (nt) memcpy(nt, ts->inl, ts->n * sizeof *nt);
        } else {
            nt = sy_realloc(ctx, ts->t, ts->cap * sizeof *nt, ncap * sizeof *nt);
        }
        if (!nt) {
            sy_oom(ctx);
            return false;
        }
        ts->t = nt;
        ts->cap = ncap;
    }
    fmpz_init(&ts->t[ts->n].coef);
    fmpz_set(&ts->t[ts->n].coef, c);
    ts->t[ts->n].mono = mono;
    ts->n++;
    return true;
}

bool sy_terms_add_expr(sy_ctx *ctx, sy_terms *ts, const fmpz_t c, const sy_expr *e)
{
    if (fmpz_is_zero(c)) return true;
    if (e->kind == SY_EXPR_INT) {
        fmpz_addmul(ts->c0, c, &e->u.value);
        return true;
    }
    if (e->kind == SY_EXPR_ADD) {
        fmpz_addmul(ts->c0, c, &e->u.c0);
        fmpz_t t;
        fmpz_init(t);
        for (uint32_t i = 0; i < e->n; i++) {
            fmpz_mul(t, c, &SY_CTERMS(e)[i].coef);
            if (!sy_terms_push(ctx, ts, t, SY_CTERMS(e)[i].mono)) {
                fmpz_clear(t);
                return false;
            }
        }
        fmpz_clear(t);
        return true;
    }
    return sy_terms_push(ctx, ts, c, e);
}

static int term_cmp(const void *x, const void *y)
{
    return sy_mono_cmp(((const sy_term *)x)->mono, ((const sy_term *)y)->mono);
}

const sy_expr *sy_terms_build(sy_ctx *ctx, sy_terms *ts)
{
    const sy_expr *res = NULL;
    size_t n = ts->n;
    /* sort: insertion sort for short lists, qsort otherwise */
    if (n < 12) {
        for (size_t i = 1; i < n; i++) {
            sy_term t = ts->t[i];
            size_t j = i;
            while (j > 0 && sy_mono_cmp(ts->t[j - 1].mono, t.mono) > 0) {
                ts->t[j] = ts->t[j - 1];
                j--;
            }
            ts->t[j] = t;
        }
    } else {
        qsort(ts->t, n, sizeof *ts->t, term_cmp);
    }
    /* merge equal monomials (adjacent after sorting); slots in [m, i) hold
     * consumed coefficients, still initialised, cleared with the list */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && ts->t[m - 1].mono == ts->t[i].mono) {
            fmpz_add(&ts->t[m - 1].coef, &ts->t[m - 1].coef, &ts->t[i].coef);
        } else {
            if (m != i) {
                fmpz_swap(&ts->t[m].coef, &ts->t[i].coef);
                ts->t[m].mono = ts->t[i].mono;
            }
            m++;
        }
    }
    /* drop zero coefficients */
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (fmpz_is_zero(&ts->t[i].coef)) continue;
        if (k != i) {
            fmpz_swap(&ts->t[k].coef, &ts->t[i].coef);
            ts->t[k].mono = ts->t[i].mono;
        }
        k++;
    }
    int hv = k >= 2 ? sy_terms_halves(ctx, ts, k, &res) : 0; /* rule ADD_HALVES (div.c) */
    if (hv != 0) {
        if (hv < 0) res = NULL;
    } else if (k > ctx->opts.max_terms) {
        res = sy_fail(ctx, SY_EQUOTA, "expression has %zu terms, more than the budget of %zu", k,
                      ctx->opts.max_terms);
    } else if (k == 0) {
        res = sy_int_fmpz(ctx, ts->c0);
    } else if (k == 1 && fmpz_is_one(&ts->t[0].coef) && fmpz_is_zero(ts->c0)) {
        res = ts->t[0].mono;
    } else {
        sy_expr *c = sy_scratch(ctx, k);
        if (!c) {
            res = sy_oom(ctx);
        } else {
            c->kind = SY_EXPR_ADD;
            c->n = (uint32_t)k;
            c->u.c0 = *ts->c0; /* shallow copies; intern deep-copies */
            for (size_t i = 0; i < k; i++) SY_TERMS(c)[i] = ts->t[i];
            c->hash = sy_hash_node(c);
            res = sy_intern(ctx, c);
        }
    }
    sy_terms_clear(ctx, ts);
    sy_terms_init(ts);
    return res;
}

/* ------------------------------------------------------------------ + - * */

const sy_expr *sy_expr_add_n(sy_ctx *ctx, size_t n, const sy_expr *const *args)
{
    if (!ctx) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!args[i]) return NULL;
        if (!sy_check_int(ctx, args[i], "add")) return NULL;
    }
    if (n == 1) return args[0];
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t one;
    fmpz_init_set_ui(one, 1);
    for (size_t i = 0; i < n; i++) {
        if (!sy_terms_add_expr(ctx, &ts, one, args[i])) {
            sy_terms_clear(ctx, &ts);
            return NULL;
        }
    }
    return sy_terms_build(ctx, &ts);
}

const sy_expr *sy_expr_add(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!a || !b) return NULL;
    if (sy_is_zero(a) && !b->isbool) return b;
    if (sy_is_zero(b) && !a->isbool) return a;
    const sy_expr *args[2] = {a, b};
    return sy_expr_add_n(ctx, 2, args);
}

const sy_expr *sy_scale_fmpz(sy_ctx *ctx, const sy_expr *e, const fmpz_t c)
{
    if (!e) return NULL;
    if (fmpz_is_one(c)) return e;
    if (e->kind == SY_EXPR_INT) { /* what the term list builds */
        fmpz_t p;
        fmpz_init(p);
        fmpz_mul(p, &e->u.value, c);
        const sy_expr *r = sy_int_fmpz(ctx, p);
        fmpz_clear(p);
        return r;
    }
    sy_terms ts;
    sy_terms_init(&ts);
    if (!sy_terms_add_expr(ctx, &ts, c, e)) {
        sy_terms_clear(ctx, &ts);
        return NULL;
    }
    return sy_terms_build(ctx, &ts);
}

const sy_expr *sy_add_fmpz(sy_ctx *ctx, const sy_expr *e, const fmpz_t c)
{
    if (!e) return NULL;
    if (fmpz_is_zero(c)) return e;
    if (e->kind == SY_EXPR_INT) { /* what the term list builds */
        fmpz_t p;
        fmpz_init(p);
        fmpz_add(p, &e->u.value, c);
        const sy_expr *r = sy_int_fmpz(ctx, p);
        fmpz_clear(p);
        return r;
    }
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t one;
    fmpz_init_set_ui(one, 1);
    if (!sy_terms_add_expr(ctx, &ts, one, e)) {
        sy_terms_clear(ctx, &ts);
        return NULL;
    }
    fmpz_add(ts.c0, ts.c0, c);
    return sy_terms_build(ctx, &ts);
}

const sy_expr *sy_divexact_fmpz(sy_ctx *ctx, const sy_expr *e, const fmpz_t c)
{
    if (!e) return NULL;
    if (fmpz_is_one(c)) return e;
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t one;
    fmpz_init_set_ui(one, 1);
    if (!sy_terms_add_expr(ctx, &ts, one, e)) {
        sy_terms_clear(ctx, &ts);
        return NULL;
    }
    for (size_t i = 0; i < ts.n; i++) fmpz_divexact(&ts.t[i].coef, &ts.t[i].coef, c);
    fmpz_divexact(ts.c0, ts.c0, c);
    return sy_terms_build(ctx, &ts);
}

const sy_expr *sy_nonconst_part(sy_ctx *ctx, const sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) return sy_expr_int_si(ctx, 0);
    if (e->kind != SY_EXPR_ADD || fmpz_is_zero(&e->u.c0)) return e;
    fmpz_t c;
    fmpz_init(c);
    fmpz_neg(c, &e->u.c0);
    const sy_expr *r = sy_add_fmpz(ctx, e, c);
    fmpz_clear(c);
    return r;
}

const sy_expr *sy_expr_add_si(sy_ctx *ctx, const sy_expr *a, int64_t c)
{
    if (!ctx || !a) return NULL;
    if (!sy_check_int(ctx, a, "add")) return NULL;
    fmpz_t t;
    fmpz_init(t);
    fmpz_set_si(t, c);
    const sy_expr *r = sy_add_fmpz(ctx, a, t);
    fmpz_clear(t);
    return r;
}

const sy_expr *sy_expr_mul_si(sy_ctx *ctx, const sy_expr *a, int64_t c)
{
    if (!ctx || !a) return NULL;
    if (!sy_check_int(ctx, a, "mul")) return NULL;
    fmpz_t t;
    fmpz_init(t);
    fmpz_set_si(t, c);
    const sy_expr *r = sy_scale_fmpz(ctx, a, t);
    fmpz_clear(t);
    return r;
}

const sy_expr *sy_expr_neg(sy_ctx *ctx, const sy_expr *a) { return sy_expr_mul_si(ctx, a, -1); }

const sy_expr *sy_expr_sub(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!sy_check_int(ctx, a, "sub") || !sy_check_int(ctx, b, "sub")) return NULL;
    /* the results the term list builds, without building it: constant
     * operands (most checks of an op on static sizes), b = 0, a = b */
    if (a->kind == SY_EXPR_INT && b->kind == SY_EXPR_INT) {
        fmpz_t d;
        fmpz_init(d);
        fmpz_sub(d, &a->u.value, &b->u.value);
        const sy_expr *r = sy_int_fmpz(ctx, d);
        fmpz_clear(d);
        return r;
    }
    if (a == b) return sy_expr_int_si(ctx, 0);
    if (b->kind == SY_EXPR_INT && fmpz_is_zero(&b->u.value)) return a;
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t one, mone;
    fmpz_init_set_si(one, 1);
    fmpz_init_set_si(mone, -1);
    if (!sy_terms_add_expr(ctx, &ts, one, a) || !sy_terms_add_expr(ctx, &ts, mone, b)) {
        sy_terms_clear(ctx, &ts);
        return NULL;
    }
    return sy_terms_build(ctx, &ts);
}

static size_t nterms_with_const(const sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) return 1;
    if (e->kind == SY_EXPR_ADD) return e->n + (fmpz_is_zero(&e->u.c0) ? 0 : 1);
    return 1;
}

/* i-th term of e including the constant (mono NULL means 1). */
static void term_at(const sy_expr *e, size_t i, const fmpz **coef, const sy_expr **mono)
{
    static const fmpz one = 1;
    if (e->kind == SY_EXPR_INT) {
        *coef = &e->u.value;
        *mono = NULL;
    } else if (e->kind == SY_EXPR_ADD) {
        if (i < e->n) {
            *coef = &SY_CTERMS(e)[i].coef;
            *mono = SY_CTERMS(e)[i].mono;
        } else {
            *coef = &e->u.c0;
            *mono = NULL;
        }
    } else {
        *coef = &one;
        *mono = e;
    }
}

static const sy_expr *sy_expr_mul_work(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!sy_check_int(ctx, a, "mul") || !sy_check_int(ctx, b, "mul")) return NULL;
    if (a->kind == SY_EXPR_INT) return sy_scale_fmpz(ctx, b, &a->u.value);
    if (b->kind == SY_EXPR_INT) return sy_scale_fmpz(ctx, a, &b->u.value);
    if (sy_is_monomial(a) && sy_is_monomial(b)) return sy_mono_mul(ctx, a, b);
    size_t na = nterms_with_const(a), nb = nterms_with_const(b);
    if (na > ctx->opts.max_terms / nb + 1 || na * nb > ctx->opts.max_terms * 4)
        return sy_fail(ctx, SY_EQUOTA, "product of %zu and %zu terms exceeds the term budget (%zu)", na, nb,
                       ctx->opts.max_terms);
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t c;
    fmpz_init(c);
    bool ok = true;
    for (size_t i = 0; i < na && ok; i++) {
        const fmpz *ca;
        const sy_expr *ma;
        term_at(a, i, &ca, &ma);
        for (size_t j = 0; j < nb && ok; j++) {
            const fmpz *cb;
            const sy_expr *mb;
            term_at(b, j, &cb, &mb);
            fmpz_mul(c, ca, cb);
            if (!ma && !mb) {
                fmpz_add(ts.c0, ts.c0, c);
            } else {
                const sy_expr *m = !ma ? mb : (!mb ? ma : sy_mono_mul(ctx, ma, mb));
                ok = m && sy_terms_push(ctx, &ts, c, m);
            }
        }
    }
    fmpz_clear(c);
    if (!ok) {
        sy_terms_clear(ctx, &ts);
        return NULL;
    }
    return sy_terms_build(ctx, &ts);
}

const sy_expr *sy_expr_mul(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    return sy_op_end_e(ctx, sy_expr_mul_work(ctx, a, b));
}

static int factor_cmp(const void *x, const void *y)
{
    return sy_atom_cmp(((const factor *)x)->base, ((const factor *)y)->base);
}

/* n-ary product: the constants are multiplied together, the factors of every
 * monomial operand (and of single-term sums c*m) are gathered, sorted once and
 * merged into one monomial, and only the sums with two or more terms are
 * expanded (smallest first). A product of n symbols costs O(n log n), where
 * folding binary products built and interned n monomials of growing size. */
static const sy_expr *sy_expr_mul_n_work(sy_ctx *ctx, size_t n, const sy_expr *const *args)
{
    if (!ctx) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!args[i]) return NULL;
        if (!sy_check_int(ctx, args[i], "mul")) return NULL;
    }
    if (n == 0) return sy_expr_int_si(ctx, 1);
    if (n == 1) return args[0];
    if (n == 2) return sy_expr_mul(ctx, args[0], args[1]);
    size_t nf = 0, np = 0;
    for (size_t i = 0; i < n; i++) {
        const sy_expr *a = args[i];
        if (a->kind == SY_EXPR_ADD && a->n == 1 && fmpz_is_zero(&a->u.c0)) a = SY_CTERMS(a)[0].mono;
        if (sy_is_monomial(a)) nf += nfactors(a);
        else if (a->kind == SY_EXPR_ADD) np++;
    }
    factor *fs = nf ? sy_alloc(ctx, nf * sizeof *fs) : NULL;
    const sy_expr **polys = np ? sy_alloc(ctx, np * sizeof *polys) : NULL;
    const sy_expr *res = NULL;
    fmpz_t c;
    fmpz_init_set_ui(c, 1);
    if ((nf && !fs) || (np && !polys)) {
        res = sy_oom(ctx);
        goto done;
    }
    size_t k = 0, kp = 0;
    for (size_t i = 0; i < n; i++) {
        const sy_expr *a = args[i];
        if (a->kind == SY_EXPR_INT) {
            fmpz_mul(c, c, &a->u.value);
            continue;
        }
        if (a->kind == SY_EXPR_ADD && a->n == 1 && fmpz_is_zero(&a->u.c0)) {
            fmpz_mul(c, c, &SY_CTERMS(a)[0].coef);
            a = SY_CTERMS(a)[0].mono;
        }
        if (sy_is_monomial(a)) {
            for (uint32_t j = 0; j < nfactors(a); j++) {
                fs[k].base = factor_at(a, j, &fs[k].exp);
                k++;
            }
        } else {
            polys[kp++] = a;
        }
    }
    if (fmpz_is_zero(c)) {
        res = sy_expr_int_si(ctx, 0);
        goto done;
    }
    const sy_expr *mono = NULL;
    if (k) {
        qsort(fs, k, sizeof *fs, factor_cmp);
        size_t m = 0;
        for (size_t i = 0; i < k; i++) {
            if (m && sy_atom_cmp(fs[m - 1].base, fs[i].base) == 0) {
                if (fs[i].exp > UINT64_MAX - fs[m - 1].exp) {
                    res = sy_fail(ctx, SY_EQUOTA, "exponent exceeds the limit %llu", (unsigned long long)ctx->opts.max_exponent);
                    goto done;
                }
                fs[m - 1].exp += fs[i].exp;
            } else {
                fs[m++] = fs[i];
            }
        }
        mono = build_mono(ctx, fs, m);
        if (!mono) goto done;
    }
    /* expand the sums, fewest terms first (the intermediate products stay small) */
    for (size_t i = 1; i < kp; i++) {
        const sy_expr *t = polys[i];
        size_t j = i;
        while (j > 0 && polys[j - 1]->n > t->n) {
            polys[j] = polys[j - 1];
            j--;
        }
        polys[j] = t;
    }
    const sy_expr *acc = mono;
    for (size_t i = 0; i < kp; i++) {
        acc = acc ? sy_expr_mul(ctx, acc, polys[i]) : polys[i];
        if (!acc) goto done;
    }
    res = acc ? sy_scale_fmpz(ctx, acc, c) : sy_int_fmpz(ctx, c);
done:
    fmpz_clear(c);
    if (fs) sy_dealloc(ctx, fs, nf * sizeof *fs);
    if (polys) sy_dealloc(ctx, polys, np * sizeof *polys);
    return res;
}

const sy_expr *sy_expr_mul_n(sy_ctx *ctx, size_t n, const sy_expr *const *args)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    return sy_op_end_e(ctx, sy_expr_mul_n_work(ctx, n, args));
}

/* Upper bound on the number of terms of a t-term polynomial to the k-th power:
 * C(t + k - 1, k), saturating at limit + 1. */
static size_t pow_terms_bound(size_t t, uint64_t k, size_t limit)
{
    /* C(t+k-1, t-1) computed incrementally */
    double v = 1.0;
    for (size_t i = 1; i < t; i++) {
        v = v * (double)(k + i) / (double)i;
        if (v > (double)limit) return limit + 1;
    }
    return (size_t)v;
}

static const sy_expr *sy_expr_pow_ui_work(sy_ctx *ctx, const sy_expr *a, uint64_t k)
{
    if (!ctx || !a) return NULL;
    if (!sy_check_int(ctx, a, "pow")) return NULL;
    if (k == 0) return sy_expr_int_si(ctx, 1);
    if (k == 1) return a;
    if (a->kind == SY_EXPR_INT) {
        if (fmpz_is_zero(&a->u.value) || fmpz_is_pm1(&a->u.value)) {
            fmpz_t r;
            fmpz_init(r);
            fmpz_pow_ui(r, &a->u.value, k % 2 ? 1 : 2);
            if (fmpz_is_zero(&a->u.value)) fmpz_zero(r);
            const sy_expr *e = sy_int_fmpz(ctx, r);
            fmpz_clear(r);
            return e;
        }
        /* k <= max_const_bits first: the power then has at most (bits(a) - 1) * k + k bits,
         * computed only when its lower bound is within the limit (sy_intern checks the result) */
        uint64_t lo = sy_pow_bits_lo(&a->u.value, k);
        if (k > ctx->opts.max_const_bits || lo > ctx->opts.max_const_bits)
            return sy_fail(ctx, SY_EQUOTA, "constant power has at least %llu bits, more than the limit of %llu",
                           (unsigned long long)(k > ctx->opts.max_const_bits ? k : lo),
                           (unsigned long long)ctx->opts.max_const_bits);
        fmpz_t r;
        fmpz_init(r);
        fmpz_pow_ui(r, &a->u.value, k);
        if ((uint64_t)fmpz_bits(r) > ctx->opts.max_const_bits) {
            unsigned long long got = (unsigned long long)fmpz_bits(r);
            fmpz_clear(r);
            return sy_fail(ctx, SY_EQUOTA, "constant power has %llu bits, more than the limit of %llu", got,
                           (unsigned long long)ctx->opts.max_const_bits);
        }
        const sy_expr *e = sy_int_fmpz(ctx, r);
        fmpz_clear(r);
        return e;
    }
    if (k > ctx->opts.max_exponent)
        return sy_fail(ctx, SY_EQUOTA, "exponent %llu exceeds the limit %llu", (unsigned long long)k,
                       (unsigned long long)ctx->opts.max_exponent);
    if (sy_is_monomial(a)) return mono_pow(ctx, a, k);
    size_t t = nterms_with_const(a);
    if (t == 1) { /* c * m */
        const fmpz *c;
        const sy_expr *m;
        term_at(a, 0, &c, &m);
        if (!fmpz_is_pm1(c) && (k > ctx->opts.max_const_bits || sy_pow_bits_lo(c, k) > ctx->opts.max_const_bits))
            return sy_fail(ctx, SY_EQUOTA, "coefficient power too large");
        fmpz_t ck;
        fmpz_init(ck);
        fmpz_pow_ui(ck, c, k);
        const sy_expr *r = sy_scale_fmpz(ctx, mono_pow(ctx, m, k), ck);
        fmpz_clear(ck);
        return r;
    }
    if (pow_terms_bound(t, k, ctx->opts.max_terms) > ctx->opts.max_terms)
        return sy_fail(ctx, SY_EQUOTA,
                       "expanding a %zu-term polynomial to the power %llu exceeds the term budget (%zu)", t,
                       (unsigned long long)k, ctx->opts.max_terms);
    /* binary powering */
    const sy_expr *result = sy_expr_int_si(ctx, 1), *base = a;
    while (k && result && base) {
        if (k & 1) result = sy_expr_mul(ctx, result, base);
        k >>= 1;
        if (k) base = sy_expr_mul(ctx, base, base);
    }
    return (result && base) ? result : NULL;
}

const sy_expr *sy_expr_pow_ui(sy_ctx *ctx, const sy_expr *a, uint64_t k)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    return sy_op_end_e(ctx, sy_expr_pow_ui_work(ctx, a, k));
}

/* ------------------------------------------------------------------ helpers */

void sy_const_term(fmpz_t c, const sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) fmpz_set(c, &e->u.value);
    else if (e->kind == SY_EXPR_ADD) fmpz_set(c, &e->u.c0);
    else fmpz_zero(c);
}

void sy_content_nonconst(fmpz_t g, const sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) {
        fmpz_zero(g);
    } else if (e->kind == SY_EXPR_ADD) {
        fmpz_zero(g);
        for (uint32_t i = 0; i < e->n; i++) fmpz_gcd(g, g, &SY_CTERMS(e)[i].coef);
    } else {
        fmpz_one(g);
    }
}

void sy_content(fmpz_t g, const sy_expr *e)
{
    sy_content_nonconst(g, e);
    if (e->kind == SY_EXPR_INT) fmpz_abs(g, &e->u.value);
    else if (e->kind == SY_EXPR_ADD) fmpz_gcd(g, g, &e->u.c0);
}

int sy_leading_sign(const sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) return fmpz_sgn(&e->u.value);
    if (e->kind == SY_EXPR_ADD) return fmpz_sgn(&SY_CTERMS(e)[0].coef);
    return 1;
}

/* ------------------------------------------------------------------ bounds */

static void node_ival(sy_ival *r, const sy_expr *e) { sy_ival_set_bounds64(r, e->lo, e->hi); }

/* floor division of int64 by a positive int64 (no overflow possible) */
static int64_t fdiv64(int64_t a, int64_t k)
{
    int64_t q = a / k;
    return (a % k != 0 && a < 0) ? q - 1 : q;
}

/* int64 fast paths for the common node kinds; returns false to fall back to
 * the bignum interval code. Sentinels: INT64_MIN = -oo, INT64_MAX = +oo. */
static bool fast_bounds(sy_expr *e)
{
    switch (e->kind) {
    case SY_EXPR_INT:
        if (COEFF_IS_MPZ(e->u.value) || e->u.value == INT64_MIN || e->u.value == INT64_MAX) return false;
        e->lo = e->hi = e->u.value;
        return true;
    case SY_EXPR_ADD: {
        if (COEFF_IS_MPZ(e->u.c0)) return false;
        __int128 lo = e->u.c0, hi = e->u.c0;
        bool lo_inf = false, hi_inf = false;
        for (uint32_t i = 0; i < e->n; i++) {
            const sy_term *t = &SY_CTERMS(e)[i];
            if (COEFF_IS_MPZ(t->coef)) return false;
            __int128 c = t->coef;
            int64_t ml = t->mono->lo, mh = t->mono->hi;
            int64_t a = c > 0 ? ml : mh, b = c > 0 ? mh : ml; /* lower uses a, upper uses b */
            bool a_inf = c > 0 ? ml == SY_NEG_INF : mh == SY_POS_INF;
            bool b_inf = c > 0 ? mh == SY_POS_INF : ml == SY_NEG_INF;
            if (a_inf) lo_inf = true; else lo += c * a;
            if (b_inf) hi_inf = true; else hi += c * b;
            if (lo > INT64_MAX / 2 || lo < INT64_MIN / 2 || hi > INT64_MAX / 2 || hi < INT64_MIN / 2) return false;
        }
        e->lo = lo_inf ? SY_NEG_INF : (int64_t)lo;
        e->hi = hi_inf ? SY_POS_INF : (int64_t)hi;
        return true;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD: {
        const sy_expr *a = e->args[0], *k = e->args[1];
        if (k->kind != SY_EXPR_INT || COEFF_IS_MPZ(k->u.value) || k->u.value <= 0) return false;
        int64_t kv = k->u.value;
        if (e->kind == SY_EXPR_FLOORDIV) {
            e->lo = a->lo == SY_NEG_INF ? SY_NEG_INF : fdiv64(a->lo, kv);
            e->hi = a->hi == SY_POS_INF ? SY_POS_INF : fdiv64(a->hi, kv);
        } else if (a->lo != SY_NEG_INF && a->hi != SY_POS_INF && fdiv64(a->lo, kv) == fdiv64(a->hi, kv)) {
            e->lo = a->lo - fdiv64(a->lo, kv) * kv;
            e->hi = a->hi - fdiv64(a->hi, kv) * kv;
        } else {
            e->lo = 0;
            e->hi = kv - 1;
            if (a->lo != SY_NEG_INF && a->lo >= 0 && a->hi < e->hi) e->hi = a->hi;
        }
        return true;
    }
    case SY_EXPR_MUL: {
        /* a factor unbounded on both sides makes the product unbounded on
         * both sides unless another factor is exactly 0 (then fall back) */
        bool full = false;
        for (uint32_t i = 0; i < e->n; i++) {
            const sy_expr *a = e->args[i];
            if (a->lo == 0 && a->hi == 0) return false;
            if (a->lo == SY_NEG_INF && a->hi == SY_POS_INF) full = true;
        }
        if (!full) return false;
        e->lo = SY_NEG_INF;
        e->hi = SY_POS_INF;
        return true;
    }
    default: return false;
    }
}

void sy_compute_bounds(sy_expr *e)
{
    e->lo = SY_NEG_INF;
    e->hi = SY_POS_INF;
    if (!e->isbool && fast_bounds(e)) return;
    if (e->isbool) {
        e->lo = 0;
        e->hi = 1;
        if (e->kind == SY_EXPR_TRUE) e->lo = 1;
        if (e->kind == SY_EXPR_FALSE) e->hi = 0;
        return;
    }
    if (e->kind == SY_EXPR_SYM) return;
    sy_ival r, a, b;
    sy_ival_init(&r);
    sy_ival_init(&a);
    sy_ival_init(&b);
    switch (e->kind) {
    case SY_EXPR_INT: sy_ival_set_fmpz(&r, &e->u.value); break;
    case SY_EXPR_ADD:
        sy_ival_set_fmpz(&r, &e->u.c0);
        for (uint32_t i = 0; i < e->n; i++) {
            node_ival(&a, SY_CTERMS(e)[i].mono);
            sy_ival_scale(&a, &a, &SY_CTERMS(e)[i].coef);
            sy_ival_add(&r, &r, &a);
        }
        break;
    case SY_EXPR_POW:
        node_ival(&a, e->args[0]);
        sy_ival_pow(&r, &a, e->u.exp);
        break;
    case SY_EXPR_MUL:
        node_ival(&r, e->args[0]);
        for (uint32_t i = 1; i < e->n; i++) {
            node_ival(&a, e->args[i]);
            sy_ival_mul(&r, &r, &a);
        }
        break;
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
    case SY_EXPR_MOD:
        node_ival(&a, e->args[0]);
        node_ival(&b, e->args[1]);
        if (e->kind == SY_EXPR_FLOORDIV) sy_ival_floordiv(&r, &a, &b, false);
        else if (e->kind == SY_EXPR_CEILDIV) sy_ival_ceildiv(&r, &a, &b, false);
        else sy_ival_mod(&r, &a, &b, false);
        break;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        node_ival(&r, e->args[0]);
        for (uint32_t i = 1; i < e->n; i++) {
            node_ival(&a, e->args[i]);
            if (e->kind == SY_EXPR_MIN) sy_ival_min(&r, &r, &a); else sy_ival_max(&r, &r, &a);
        }
        break;
    default: break;
    }
    sy_ival_get_bounds64(&r, &e->lo, &e->hi);
    sy_ival_clear(&r);
    sy_ival_clear(&a);
    sy_ival_clear(&b);
}

/* ------------------------------------------------------------------ inspection */

sy_expr_kind sy_expr_kind_of(const sy_expr *e) { return (sy_expr_kind)e->kind; }
int sy_expr_is_bool(const sy_expr *e) { return e->isbool; }
int sy_expr_is_int(const sy_expr *e) { return e->kind == SY_EXPR_INT; }
size_t sy_expr_nargs(const sy_expr *e) { return e->kind == SY_EXPR_INT || e->kind == SY_EXPR_SYM ? 0 : e->n; }
const sy_expr *sy_expr_arg(const sy_expr *e, size_t i)
{
    if (i >= sy_expr_nargs(e)) return NULL;
    if (e->kind == SY_EXPR_ADD) return SY_CTERMS(e)[i].mono;
    return e->args[i];
}
const sy_expr *sy_expr_add_coeff(sy_ctx *ctx, const sy_expr *e, size_t i)
{
    if (!ctx || !e) return NULL;
    if (e->kind != SY_EXPR_ADD || i >= e->n) return sy_fail(ctx, SY_EINVAL, "not a term of a sum");
    return sy_int_fmpz(ctx, &SY_CTERMS(e)[i].coef);
}
const sy_expr *sy_expr_add_const(sy_ctx *ctx, const sy_expr *e)
{
    if (!ctx || !e) return NULL;
    if (e->kind != SY_EXPR_ADD) return sy_fail(ctx, SY_EINVAL, "not a sum");
    return sy_int_fmpz(ctx, &e->u.c0);
}
uint64_t sy_expr_pow_exp(const sy_expr *e) { return e->kind == SY_EXPR_POW ? e->u.exp : 0; }
const char *sy_expr_sym_name(const sy_expr *e) { return e->kind == SY_EXPR_SYM ? e->u.sym.name : NULL; }
uint32_t sy_expr_sym_id(const sy_expr *e) { return e->kind == SY_EXPR_SYM ? e->u.sym.id : UINT32_MAX; }
sy_status sy_expr_get_si(const sy_expr *e, int64_t *out)
{
    if (!e || e->kind != SY_EXPR_INT) return SY_EINVAL;
    if (!fmpz_fits_si(&e->u.value)) return SY_EOVERFLOW;
    *out = fmpz_get_si(&e->u.value);
    return SY_OK;
}
uint64_t sy_expr_hash(const sy_expr *e) { return e->hash; }
/* the FLINT values and context fields of algebra/internal.h */
const fmpz *sy_expr_int_ref(const sy_expr *e) { return e->kind == SY_EXPR_INT ? &e->u.value : NULL; }
const fmpz *sy_expr_add_coef_ref(const sy_expr *e, size_t i)
{
    return e->kind == SY_EXPR_ADD && i < e->n ? &SY_CTERMS(e)[i].coef : NULL;
}
const fmpz *sy_expr_add_c0_ref(const sy_expr *e) { return e->kind == SY_EXPR_ADD ? &e->u.c0 : NULL; }
size_t sy_ctx_nsyms(const sy_ctx *ctx) { return ctx->nsyms; }
const sy_ctx_options *sy_ctx_opts(const sy_ctx *ctx) { return &ctx->opts; }
uint64_t sy_expr_serial(const sy_expr *e) { return e->serial; }
