/* Printers: canonical text (re-parses to the same node), Python, C. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "algebra/buf.h"
#include "algebra/expr_private.h"

/* ------------------------------------------------------------------ buffer */

void sy_buf_init(sy_buf *b, sy_ctx *ctx)
{
    b->ctx = ctx;
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = false;
    b->let = NULL;
    b->defining = NULL;
}
static bool reserve(sy_buf *b, size_t extra)
{
    if (b->oom) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t nc = b->cap ? b->cap : 64;
    while (nc < b->len + extra + 1) nc *= 2;
    char *np = sy_realloc(b->ctx, b->p, b->cap, nc);
    if (!np) {
        b->oom = true;
        return false;
    }
    b->p = np;
    b->cap = nc;
    return true;
}
void sy_buf_putn(sy_buf *b, const char *s, size_t n)
{
    if (!reserve(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
void sy_buf_putc(sy_buf *b, char c) { sy_buf_putn(b, &c, 1); }
void sy_buf_puts(sy_buf *b, const char *s) { sy_buf_putn(b, s, strlen(s)); }
void sy_buf_printf(sy_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        sy_buf_putn(b, tmp, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
char *sy_buf_finish(sy_buf *b)
{
    if (b->oom || !reserve(b, 0)) {
        sy_buf_free(b);
        return NULL;
    }
    char *s = sy_realloc(b->ctx, b->p, b->cap, b->len + 1);
    if (!s) {
        sy_buf_free(b);
        return NULL;
    }
    b->p = NULL;
    b->cap = b->len = 0;
    return s;
}
void sy_buf_free(sy_buf *b)
{
    if (b->p) sy_dealloc(b->ctx, b->p, b->cap);
    b->p = NULL;
    b->cap = b->len = 0;
}

/* ------------------------------------------------------------------ printing */

static void put_fmpz(sy_buf *b, const fmpz_t v)
{
    if (!COEFF_IS_MPZ(*v)) {
        sy_buf_printf(b, "%lld", (long long)*v);
        return;
    }
    size_t n = fmpz_sizeinbase(v, 10) + 2;
    if (!reserve(b, n)) return;
    fmpz_get_str(b->p + b->len, 10, v);
    b->len += strlen(b->p + b->len);
}

static void put(sy_buf *b, const sy_expr *e, sy_print_style st);

static void put_c_int(sy_buf *b, const fmpz_t v)
{
    if (fmpz_fits_si(v) && fmpz_cmp_si(v, INT64_MIN) != 0) {
        if (fmpz_cmp_si(v, 2147483647) <= 0 && fmpz_cmp_si(v, -2147483647) >= 0) put_fmpz(b, v);
        else {
            sy_buf_puts(b, "INT64_C(");
            put_fmpz(b, v);
            sy_buf_putc(b, ')');
        }
    } else {
        /* not representable: a comment keeps the value readable */
        sy_buf_puts(b, "SY_BIGINT(\"");
        put_fmpz(b, v);
        sy_buf_puts(b, "\")");
    }
}

static void put_int(sy_buf *b, const fmpz_t v, sy_print_style st)
{
    if (st == SY_PRINT_C) put_c_int(b, v);
    else put_fmpz(b, v);
}

static void put_mono(sy_buf *b, const sy_expr *m, sy_print_style st)
{
    if (m->kind == SY_EXPR_MUL) {
        for (uint32_t i = 0; i < m->n; i++) {
            if (i) sy_buf_putc(b, '*');
            put_mono(b, m->args[i], st);
        }
    } else if (m->kind == SY_EXPR_POW) {
        if (st == SY_PRINT_C) {
            for (uint64_t i = 0; i < m->u.exp; i++) {
                if (i) sy_buf_putc(b, '*');
                put(b, m->args[0], st);
            }
        } else {
            put(b, m->args[0], st);
            sy_buf_printf(b, "**%llu", (unsigned long long)m->u.exp);
        }
    } else {
        put(b, m, st);
    }
}

/* print sum c0 + sum c_i m_i; terms with sign mask: which = 0 all,
 * 1 only positive-coefficient terms, -1 only negative ones (negated). */
static bool put_sum_part2(sy_buf *b, const sy_expr *e, int which, bool with_const, sy_print_style st)
{
    bool first = true;
    fmpz_t c;
    fmpz_init(c);
    size_t n = e->kind == SY_EXPR_ADD ? e->n : (e->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i <= n; i++) {
        const sy_expr *m = NULL;
        if (i < n) {
            if (e->kind == SY_EXPR_ADD) {
                fmpz_set(c, &SY_CTERMS(e)[i].coef);
                m = SY_CTERMS(e)[i].mono;
            } else {
                fmpz_one(c);
                m = e;
            }
        } else {
            sy_const_term(c, e);
            if (!with_const || fmpz_is_zero(c)) continue;
        }
        if (which < 0) {
            if (fmpz_sgn(c) >= 0) continue;
            fmpz_neg(c, c);
        } else if (which > 0 && fmpz_sgn(c) < 0) {
            continue;
        }
        bool neg = fmpz_sgn(c) < 0;
        if (first) {
            if (neg) sy_buf_putc(b, '-');
        } else {
            sy_buf_puts(b, neg ? " - " : " + ");
        }
        fmpz_abs(c, c);
        if (!m) {
            put_int(b, c, st);
        } else {
            if (!fmpz_is_one(c)) {
                put_int(b, c, st);
                sy_buf_putc(b, '*');
            }
            put_mono(b, m, st);
        }
        first = false;
    }
    fmpz_clear(c);
    return !first;
}

static bool put_sum_part(sy_buf *b, const sy_expr *e, int which, sy_print_style st)
{
    return put_sum_part2(b, e, which, true, st);
}

static void put_poly(sy_buf *b, const sy_expr *e, sy_print_style st)
{
    if (e->kind == SY_EXPR_INT) {
        put_int(b, &e->u.value, st);
        return;
    }
    put_sum_part(b, e, 0, st);
}

/* Parenthesised polynomial for operator contexts in Python/C. */
static void put_paren(sy_buf *b, const sy_expr *e, sy_print_style st)
{
    bool simple = e->kind == SY_EXPR_SYM || (e->kind == SY_EXPR_INT && fmpz_sgn(&e->u.value) >= 0) ||
                  (e->kind >= SY_EXPR_FLOORDIV && e->kind <= SY_EXPR_MAX && st != SY_PRINT_PYTHON);
    if (!simple) sy_buf_putc(b, '(');
    put(b, e, st);
    if (!simple) sy_buf_putc(b, ')');
}

/* lhs op rhs with lhs - rhs = d: positive terms on the left, negative ones
 * (negated) on the right; the constant goes where the text reads naturally:
 * "x <= -2", "3 <= x", "x + 1 <= y", "x <= y + 2". */
static void put_rel(sy_buf *b, const sy_expr *e, sy_print_style st)
{
    const char *op = e->kind == SY_EXPR_EQ ? " == " : e->kind == SY_EXPR_NE ? " != " : " <= ";
    const sy_expr *d = e->args[0];
    bool hasL = false, hasR = false;
    size_t n = d->kind == SY_EXPR_ADD ? d->n : (d->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < n; i++) {
        int sg = d->kind == SY_EXPR_ADD ? fmpz_sgn(&SY_CTERMS(d)[i].coef) : 1;
        if (sg > 0) hasL = true; else hasR = true;
    }
    fmpz_t c;
    fmpz_init(c);
    sy_const_term(c, d);
    int cs = fmpz_sgn(c);
    if (st != SY_PRINT_CANONICAL) sy_buf_putc(b, '(');
    if (!hasL) {
        put_int(b, c, st);
        sy_buf_puts(b, op);
        put_sum_part2(b, d, -1, false, st);
    } else if (!hasR) {
        put_sum_part2(b, d, 1, false, st);
        sy_buf_puts(b, op);
        fmpz_neg(c, c);
        put_int(b, c, st);
    } else {
        put_sum_part2(b, d, 1, cs > 0, st);
        sy_buf_puts(b, op);
        put_sum_part2(b, d, -1, cs < 0, st);
    }
    if (st != SY_PRINT_CANONICAL) sy_buf_putc(b, ')');
    fmpz_clear(c);
}

/* FloorDiv(N + k - 1, k) with k >= 2 constant prints as CeilDiv(N, k). */
static bool ceil_form(const sy_expr *e, fmpz_t c)
{
    const sy_expr *k = e->args[1], *n = e->args[0];
    if (k->kind != SY_EXPR_INT || n->kind != SY_EXPR_ADD) return false;
    fmpz_sub_ui(c, &k->u.value, 1);
    return fmpz_sgn(c) > 0 && fmpz_equal(c, &n->u.c0);
}

/* Names of the shared nodes in the let-form: node -> reference count, then
 * name number (0: printed inline). Open addressing on the node's hash. */
typedef struct sy_letnames {
    const sy_expr **keys;
    size_t *refs, *id;
    size_t cap, n;
} sy_letnames;

static size_t let_find(const sy_letnames *L, const sy_expr *e)
{
    size_t mask = L->cap - 1, j = (size_t)e->hash & mask;
    while (L->keys[j] && L->keys[j] != e) j = (j + 1) & mask;
    return j;
}

static void put_node(sy_buf *b, const sy_expr *e, sy_print_style st);
static void put(sy_buf *b, const sy_expr *e, sy_print_style st)
{
    if (b->oom) return;
    if (!sy_step(b->ctx)) { /* the budget's error is recorded */
        b->oom = true;
        return;
    }
    if (b->let && e != b->defining) {
        size_t j = let_find(b->let, e);
        if (b->let->keys[j] && b->let->id[j]) {
            sy_buf_printf(b, "$%zu", b->let->id[j]);
            return;
        }
    }
    put_node(b, e, st);
}

static void put_node(sy_buf *b, const sy_expr *e, sy_print_style st)
{
    switch (e->kind) {
    case SY_EXPR_INT: put_int(b, &e->u.value, st); return;
    case SY_EXPR_SYM: sy_buf_puts(b, e->u.sym.name); return;
    case SY_EXPR_ADD: put_poly(b, e, st); return;
    case SY_EXPR_MUL:
    case SY_EXPR_POW: put_mono(b, e, st); return;
    case SY_EXPR_TRUE: sy_buf_puts(b, st == SY_PRINT_PYTHON ? "True" : st == SY_PRINT_C ? "1" : "true"); return;
    case SY_EXPR_FALSE: sy_buf_puts(b, st == SY_PRINT_PYTHON ? "False" : st == SY_PRINT_C ? "0" : "false"); return;
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: put_rel(b, e, st); return;
    default: break;
    }
    const char *name = NULL;
    switch (e->kind) {
    case SY_EXPR_FLOORDIV: name = "FloorDiv"; break;
    case SY_EXPR_CEILDIV: name = "CeilDiv"; break;
    case SY_EXPR_MOD: name = "Mod"; break;
    case SY_EXPR_MIN: name = "Min"; break;
    case SY_EXPR_MAX: name = "Max"; break;
    case SY_EXPR_AND: name = "And"; break;
    case SY_EXPR_OR: name = "Or"; break;
    default: name = "?"; break;
    }
    if (st == SY_PRINT_CANONICAL) {
        fmpz_t c;
        fmpz_init(c);
        if (e->kind == SY_EXPR_FLOORDIV && ceil_form(e, c)) {
            fmpz_neg(c, c);
            sy_buf_puts(b, "CeilDiv(");
            put_sum_part2(b, e->args[0], 0, false, st);
            sy_buf_puts(b, ", ");
            put(b, e->args[1], st);
            sy_buf_putc(b, ')');
            fmpz_clear(c);
            return;
        }
        fmpz_clear(c);
        sy_buf_puts(b, name);
        sy_buf_putc(b, '(');
        for (uint32_t i = 0; i < e->n; i++) {
            if (i) sy_buf_puts(b, ", ");
            put(b, e->args[i], st);
        }
        sy_buf_putc(b, ')');
        return;
    }
    if (st == SY_PRINT_PYTHON) {
        switch (e->kind) {
        case SY_EXPR_FLOORDIV:
        case SY_EXPR_MOD:
            sy_buf_putc(b, '(');
            put_paren(b, e->args[0], st);
            sy_buf_puts(b, e->kind == SY_EXPR_MOD ? " % " : " // ");
            put_paren(b, e->args[1], st);
            sy_buf_putc(b, ')');
            return;
        case SY_EXPR_CEILDIV:
            sy_buf_puts(b, "(-((-");
            put_paren(b, e->args[0], st);
            sy_buf_puts(b, ") // ");
            put_paren(b, e->args[1], st);
            sy_buf_puts(b, "))");
            return;
        case SY_EXPR_MIN:
        case SY_EXPR_MAX:
            sy_buf_puts(b, e->kind == SY_EXPR_MIN ? "min(" : "max(");
            for (uint32_t i = 0; i < e->n; i++) {
                if (i) sy_buf_puts(b, ", ");
                put(b, e->args[i], st);
            }
            sy_buf_putc(b, ')');
            return;
        default: /* And / Or */
            sy_buf_putc(b, '(');
            for (uint32_t i = 0; i < e->n; i++) {
                if (i) sy_buf_puts(b, e->kind == SY_EXPR_AND ? " and " : " or ");
                put(b, e->args[i], st);
            }
            sy_buf_putc(b, ')');
            return;
        }
    }
    /* C */
    switch (e->kind) {
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV:
        sy_buf_puts(b, e->kind == SY_EXPR_FLOORDIV ? "sy_floordiv(" : e->kind == SY_EXPR_MOD ? "sy_mod(" : "sy_ceildiv(");
        put(b, e->args[0], st);
        sy_buf_puts(b, ", ");
        put(b, e->args[1], st);
        sy_buf_putc(b, ')');
        return;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        for (uint32_t i = 0; i + 1 < e->n; i++) sy_buf_puts(b, e->kind == SY_EXPR_MIN ? "sy_min(" : "sy_max(");
        put(b, e->args[0], st);
        for (uint32_t i = 1; i < e->n; i++) {
            sy_buf_puts(b, ", ");
            put(b, e->args[i], st);
            sy_buf_putc(b, ')');
        }
        return;
    default:
        sy_buf_putc(b, '(');
        for (uint32_t i = 0; i < e->n; i++) {
            if (i) sy_buf_puts(b, e->kind == SY_EXPR_AND ? " && " : " || ");
            put(b, e->args[i], st);
        }
        sy_buf_putc(b, ')');
        return;
    }
}

char *sy_expr_print(sy_ctx *ctx, const sy_expr *e, sy_print_style st)
{
    if (!ctx) return NULL;
    if (!e) {
        sy_fail(ctx, SY_EINVAL, "print: NULL expression");
        return NULL;
    }
    sy_op_begin(ctx, true);
    sy_buf b;
    sy_buf_init(&b, ctx);
    put(&b, e, st);
    char *s = sy_buf_finish(&b);
    if (!s) sy_oom(ctx);
    if (!sy_op_end(ctx, s != NULL)) s = sy_str_free(ctx, s);
    return s;
}

static bool let_composite(const sy_expr *e)
{
    return e->kind != SY_EXPR_INT && e->kind != SY_EXPR_SYM && e->kind != SY_EXPR_TRUE && e->kind != SY_EXPR_FALSE;
}

static size_t let_nargs(const sy_expr *e) { return e->kind == SY_EXPR_ADD ? e->n : let_composite(e) ? e->n : 0; }
static const sy_expr *let_arg(const sy_expr *e, size_t i)
{
    return e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e->args[i];
}

static bool let_grow(sy_ctx *ctx, sy_letnames *L)
{
    size_t nc = L->cap ? L->cap * 2 : 256;
    const sy_expr **nk = sy_alloc(ctx, nc * sizeof *nk);
    size_t *nr = sy_alloc(ctx, nc * sizeof *nr), *ni = sy_alloc(ctx, nc * sizeof *ni);
    if (!nk || !nr || !ni) {
        if (nk) sy_dealloc(ctx, nk, nc * sizeof *nk);
        if (nr) sy_dealloc(ctx, nr, nc * sizeof *nr);
        if (ni) sy_dealloc(ctx, ni, nc * sizeof *ni);
        return false;
    }
    memset(nk, 0, nc * sizeof *nk);
    for (size_t i = 0; i < L->cap; i++) {
        if (!L->keys[i]) continue;
        size_t j = (size_t)L->keys[i]->hash & (nc - 1);
        while (nk[j]) j = (j + 1) & (nc - 1);
        nk[j] = L->keys[i];
        nr[j] = L->refs[i];
        ni[j] = L->id[i];
    }
    if (L->keys) {
        sy_dealloc(ctx, L->keys, L->cap * sizeof *L->keys);
        sy_dealloc(ctx, L->refs, L->cap * sizeof *L->refs);
        sy_dealloc(ctx, L->id, L->cap * sizeof *L->id);
    }
    L->keys = nk;
    L->refs = nr;
    L->id = ni;
    L->cap = nc;
    return true;
}

char *sy_expr_print_let(sy_ctx *ctx, const sy_expr *e, sy_print_style st)
{
    if (!ctx) return NULL;
    if (!e) {
        sy_fail(ctx, SY_EINVAL, "print: NULL expression");
        return NULL;
    }
    sy_op_begin(ctx, true);
    sy_letnames L = {NULL, NULL, NULL, 0, 0};
    /* 1. distinct composite nodes in post-order (explicit stack: the DAG may
     *    be deep), counting each node's parents */
    const sy_expr **order = NULL, **stack = NULL;
    size_t *pos = NULL, norder = 0, ocap = 0, nstack = 0, scap = 0;
    bool ok = let_grow(ctx, &L);
    if (ok && let_composite(e)) {
        size_t j = let_find(&L, e);
        L.keys[j] = e;
        L.refs[j] = 1;
        L.id[j] = 0;
        L.n++;
        stack = sy_alloc(ctx, (scap = 64) * sizeof *stack);
        pos = sy_alloc(ctx, scap * sizeof *pos);
        ok = stack && pos;
        if (ok) {
            stack[0] = e;
            pos[0] = 0;
            nstack = 1;
        }
    }
    while (ok && nstack) {
        const sy_expr *top = stack[nstack - 1];
        if (!sy_step(ctx)) {
            ok = false;
            break;
        }
        if (pos[nstack - 1] == let_nargs(top)) {
            if (norder == ocap) {
                size_t nc = ocap ? ocap * 2 : 64;
                const sy_expr **no = sy_realloc(ctx, order, ocap * sizeof *no, nc * sizeof *no);
                if (!no) { ok = false; break; }
                order = no;
                ocap = nc;
            }
            order[norder++] = top;
            nstack--;
            continue;
        }
        const sy_expr *c = let_arg(top, pos[nstack - 1]++);
        if (!let_composite(c)) continue;
        if ((L.n + 1) * 2 > L.cap && !let_grow(ctx, &L)) { ok = false; break; }
        size_t j = let_find(&L, c);
        if (L.keys[j]) {
            L.refs[j]++;
            continue;
        }
        L.keys[j] = c;
        L.refs[j] = 1;
        L.id[j] = 0;
        L.n++;
        if (nstack == scap) {
            size_t nc = scap * 2;
            const sy_expr **ns = sy_realloc(ctx, stack, scap * sizeof *ns, nc * sizeof *ns);
            size_t *np = ns ? sy_realloc(ctx, pos, scap * sizeof *np, nc * sizeof *np) : NULL;
            if (ns) stack = ns;
            if (np) pos = np;
            if (!ns || !np) { ok = false; break; }
            scap = nc;
        }
        stack[nstack] = c;
        pos[nstack] = 0;
        nstack++;
    }
    /* 2. a name for each shared composite node, children first */
    sy_buf b;
    sy_buf_init(&b, ctx);
    b.let = &L;
    size_t next = 1;
    for (size_t i = 0; ok && i < norder; i++) {
        const sy_expr *n = order[i];
        size_t j = let_find(&L, n);
        if (n == e || L.refs[j] < 2) continue;
        b.defining = n;
        sy_buf_printf(&b, "let $%zu = ", next);
        put(&b, n, st);
        sy_buf_putc(&b, '\n');
        L.id[j] = next++;
    }
    b.defining = NULL;
    if (next > 1) sy_buf_puts(&b, "in ");
    if (ok) put(&b, e, st);
    char *s = ok ? sy_buf_finish(&b) : NULL;
    if (!s) {
        sy_buf_free(&b);
        if (ok) sy_oom(ctx);
    }
    if (order) sy_dealloc(ctx, order, ocap * sizeof *order);
    if (stack) sy_dealloc(ctx, stack, scap * sizeof *stack);
    if (pos) sy_dealloc(ctx, pos, scap * sizeof *pos);
    if (L.keys) {
        sy_dealloc(ctx, L.keys, L.cap * sizeof *L.keys);
        sy_dealloc(ctx, L.refs, L.cap * sizeof *L.refs);
        sy_dealloc(ctx, L.id, L.cap * sizeof *L.id);
    }
    if (!ok && ctx->err == SY_OK) sy_oom(ctx);
    if (!sy_op_end(ctx, s != NULL)) s = sy_str_free(ctx, s);
    return s;
}

/* Nodes of the tree e stands for (a shared node counted at each use),
 * memoized per node so the work is linear in the DAG; saturates at
 * UINT64_MAX. refs holds the size, id is unused. */
static bool tree_size(sy_ctx *ctx, sy_letnames *L, const sy_expr *e, uint64_t *out)
{
    if (!let_composite(e)) {
        *out = 1;
        return true;
    }
    size_t j = let_find(L, e);
    if (L->keys[j]) {
        *out = L->refs[j];
        return true;
    }
    if (!sy_step(ctx)) return false;
    uint64_t t = 1;
    for (size_t i = 0; i < let_nargs(e); i++) {
        uint64_t c;
        if (!tree_size(ctx, L, let_arg(e, i), &c)) return false;
        t = c > UINT64_MAX - t ? UINT64_MAX : t + c;
    }
    if ((L->n + 1) * 2 > L->cap && !let_grow(ctx, L)) return false;
    j = let_find(L, e);
    L->keys[j] = e;
    L->refs[j] = (size_t)(t > SIZE_MAX ? SIZE_MAX : t);
    L->n++;
    *out = t;
    return true;
}

sy_status sy_expr_tree_size(sy_ctx *ctx, const sy_expr *e, uint64_t *out)
{
    if (!ctx) return SY_EINVAL;
    if (!e || !out) return sy_fail_st(ctx, SY_EINVAL, "tree_size: NULL argument");
    sy_op_begin(ctx, true);
    sy_letnames L = {NULL, NULL, NULL, 0, 0};
    bool ok = let_grow(ctx, &L) && tree_size(ctx, &L, e, out);
    if (L.keys) {
        sy_dealloc(ctx, L.keys, L.cap * sizeof *L.keys);
        sy_dealloc(ctx, L.refs, L.cap * sizeof *L.refs);
        sy_dealloc(ctx, L.id, L.cap * sizeof *L.id);
    }
    if (!ok && ctx->err == SY_OK) sy_oom(ctx);
    return sy_op_end_st(ctx, ok ? SY_OK : ctx->err);
}

/* The tree size of e as tree_size counts it, by a plain walk while it has at
 * most *left nodes (false once it has more): a small expression's size needs
 * no memo table (guard texts and reasons are mostly a few dozen nodes). */
static bool tree_within(const sy_expr *e, uint64_t *left, uint64_t *out)
{
    if (*left == 0) return false;
    (*left)--;
    uint64_t t = 1;
    if (let_composite(e))
        for (size_t i = 0; i < let_nargs(e); i++) {
            uint64_t c;
            if (!tree_within(let_arg(e, i), left, &c)) return false;
            t += c;
        }
    *out = t;
    return true;
}

char *sy_expr_print_bounded(sy_ctx *ctx, const sy_expr *e, sy_print_style style, uint64_t let_past)
{
    uint64_t tree = 0, left = 1024;
    if (!ctx) return NULL;
    if (!e) {
        sy_fail(ctx, SY_EINVAL, "print: NULL expression");
        return NULL;
    }
    if (!tree_within(e, &left, &tree) && sy_expr_tree_size(ctx, e, &tree) != SY_OK) return NULL;
    return tree > let_past ? sy_expr_print_let(ctx, e, style) : sy_expr_print(ctx, e, style);
}
