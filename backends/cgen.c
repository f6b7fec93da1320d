/* The C backend ("c"): renders a guard set as one self-contained C99
 * translation unit (include/symshape/cgen.h documents the generated API).
 *
 * Each checked guard becomes a static function returning 1 (holds), 0 (fails)
 * or a negative fail-closed code; the body is straight-line code over the
 * checked helpers of algebra/sy_int64.h, which are copied verbatim (the test
 * suite compares the copy with the header). Relations `d op 0` are rendered as
 * a comparison between the sum of the positive terms of d and the sum of the
 * negative ones, so that equalities, bounds and constants beyond int64 never
 * need an overflowing subtraction. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/internal.h"
#include "backends/backends_private.h"
#include "symshape/backend.h"
#include "symshape/cgen.h"

/* algebra/sy_int64.h, verbatim. */
static const char sy_int64_h_text[] =
    "/* Checked int64 arithmetic with Python floor semantics, shared by exact\n"
    " * evaluation's fast path, the bytecode VM and (verbatim) the generated C of\n"
    " * the C backend, so that all three agree. Each helper returns 0 on success,\n"
    " * SY_I64_OVERFLOW when the exact result does not fit int64, SY_I64_DIVZERO\n"
    " * for a zero divisor. INT64_MIN // -1 reports overflow instead of trapping.\n"
    " * C99: add/sub/mul use __builtin_*_overflow under __GNUC__ (GCC, Clang) and a\n"
    " * portable fallback otherwise (or when SY_INT64_PORTABLE is defined). */\n"
    "#ifndef SY_INT64_H\n"
    "#define SY_INT64_H\n"
    "#include <stdint.h>\n"
    "\n"
    "#define SY_I64_OK 0\n"
    "#define SY_I64_OVERFLOW 1\n"
    "#define SY_I64_DIVZERO 2\n"
    "\n"
    "#if defined(__GNUC__) && !defined(SY_INT64_PORTABLE)\n"
    "static inline int sy_i64_add(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r) \? SY_I64_OVERFLOW : 0; }\n"
    "static inline int sy_i64_sub(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r) \? SY_I64_OVERFLOW : 0; }\n"
    "static inline int sy_i64_mul(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r) \? SY_I64_OVERFLOW : 0; }\n"
    "#else\n"
    "/* portable C99 (any compiler; also selected by defining SY_INT64_PORTABLE):\n"
    " * the operands are checked before the operation, which never overflows */\n"
    "static inline int sy_i64_add(int64_t a, int64_t b, int64_t *r)\n"
    "{\n"
    "    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return SY_I64_OVERFLOW;\n"
    "    *r = a + b;\n"
    "    return 0;\n"
    "}\n"
    "static inline int sy_i64_sub(int64_t a, int64_t b, int64_t *r)\n"
    "{\n"
    "    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return SY_I64_OVERFLOW;\n"
    "    *r = a - b;\n"
    "    return 0;\n"
    "}\n"
    "static inline int sy_i64_mul(int64_t a, int64_t b, int64_t *r)\n"
    "{\n"
    "    if (a > 0 \? (b > 0 \? a > INT64_MAX / b : b < INT64_MIN / a) : (b > 0 \? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a))\n"
    "        return SY_I64_OVERFLOW;\n"
    "    *r = a * b;\n"
    "    return 0;\n"
    "}\n"
    "#endif\n"
    "\n"
    "/* floor(a / b) */\n"
    "static inline int sy_i64_floordiv(int64_t a, int64_t b, int64_t *r)\n"
    "{\n"
    "    if (b == 0) return SY_I64_DIVZERO;\n"
    "    if (b == -1) return sy_i64_sub(0, a, r);\n"
    "    int64_t q = a / b;\n"
    "    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;\n"
    "    *r = q;\n"
    "    return 0;\n"
    "}\n"
    "/* a - b*floor(a/b): the sign of the divisor */\n"
    "static inline int sy_i64_mod(int64_t a, int64_t b, int64_t *r)\n"
    "{\n"
    "    if (b == 0) return SY_I64_DIVZERO;\n"
    "    if (b == -1) {\n"
    "        *r = 0;\n"
    "        return 0;\n"
    "    }\n"
    "    int64_t m = a % b;\n"
    "    if (m != 0 && ((m < 0) != (b < 0))) m += b;\n"
    "    *r = m;\n"
    "    return 0;\n"
    "}\n"
    "/* ceil(a / b) = -floor(-a / b) */\n"
    "static inline int sy_i64_ceildiv(int64_t a, int64_t b, int64_t *r)\n"
    "{\n"
    "    if (b == 0) return SY_I64_DIVZERO;\n"
    "    if (b == -1) return sy_i64_sub(0, a, r);\n"
    "    int64_t q = a / b;\n"
    "    if ((a % b != 0) && ((a < 0) == (b < 0))) q++;\n"
    "    *r = q;\n"
    "    return 0;\n"
    "}\n"
    "#endif\n";
/* String literals longer than this become char arrays: C99 only guarantees
 * 4095 characters and -pedantic warns past it. */
#define LONG_STRING 4000
/* messages and comments past this many tree nodes show the let-form */
#define SY_CGEN_LET_NODES 100000u

typedef struct {
    char s[192];
} opnd;

typedef struct {
    int fits;   /* 1: v holds the value */
    int64_t v;
    int sign;   /* -1, 0, 1 */
    int two63;  /* the value is exactly 2**63 */
} kval;

typedef struct {
    sy_ctx *ctx;
    const sy_gset *gs;
    sy_output *out;
    const char *pfx;
    unsigned nt, nb; /* int64 temporaries tN and int temporaries bN of the current function */
    int have_rc;     /* `int rc;` declared in the current function */
    int dead;        /* an unconditional return was emitted: skip the rest of the function */
    unsigned *bdecl; /* the int temporaries bN declared so far in the current function, and the
                        tN copies of a Min/Max (SY_CGEN_TDECL set) */
    size_t nbdecl, capbdecl;
    /* the operand of each integer node computed so far in the current
     * function (open addressing by node hash): a function is straight-line
     * code, so a shared subterm is computed once and its temporary reused,
     * and the file is linear in the guard's DAG, not in its printed tree */
    const sy_expr **mk;
    opnd *mv;
    size_t mcap, mn;
    sy_status st;    /* sticky */
} cg;

static void emitv(cg *g, const char *fmt, va_list ap)
{
    char tmp[1024];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, aq);
    va_end(aq);
    if (n < 0) {
        g->st = sy_fail_st(g->ctx, SY_EINVAL, "c backend: formatting failed");
        return;
    }
    if ((size_t)n < sizeof tmp) {
        if (sy_output_write(g->out, tmp, (size_t)n) != SY_OK) g->st = SY_ENOMEM;
        return;
    }
    char *big = sy_alloc(g->ctx, (size_t)n + 1);
    if (!big) {
        g->st = sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    if (sy_output_write(g->out, big, (size_t)n) != SY_OK) g->st = SY_ENOMEM;
    sy_dealloc(g->ctx, big, (size_t)n + 1);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void emit(cg *g, const char *fmt, ...)
{
    if (g->st || g->dead) return;
    va_list ap;
    va_start(ap, fmt);
    emitv(g, fmt, ap);
    va_end(ap);
}

/* unconditional output (top-level parts, not subject to `dead`) */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(cg *g, const char *fmt, ...)
{
    if (g->st) return;
    va_list ap;
    va_start(ap, fmt);
    emitv(g, fmt, ap);
    va_end(ap);
}

static void put_raw(cg *g, const char *s, size_t n)
{
    if (g->st) return;
    if (sy_output_write(g->out, s, n) != SY_OK) g->st = SY_ENOMEM;
}

static void fail(cg *g, sy_status st, const char *what, const sy_expr *e)
{
    if (g->st) return;
    char *s = e ? sy_expr_print_bounded(g->ctx, e, SY_PRINT_CANONICAL, SY_CGEN_LET_NODES) : NULL;
    g->st = sy_fail_st(g->ctx, st, "c backend: %s%s%s", what, s ? ": " : "", s ? s : "");
    sy_str_free(g->ctx, s);
}

/* ------------------------------------------------------------------ text */

/* Text inside a block comment: printable ASCII only, and no sequence that
 * ends or nests a comment or forms a trigraph. */
static void put_comment_text(cg *g, const char *s)
{
    char buf[256];
    size_t k = 0;
    char prev = 0;
    for (; s && *s; s++) {
        char c = *s;
        if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e) c = '.';
        if ((prev == '*' && c == '/') || (prev == '/' && c == '*')) buf[k++] = ' ';
        if (prev == '?' && c == '?') c = '.';
        buf[k++] = c;
        prev = c;
        if (k >= sizeof buf - 2) {
            put_raw(g, buf, k);
            k = 0;
        }
    }
    put_raw(g, buf, k);
}

/* A C string literal with the bytes of @p s. */
static void put_cstring(cg *g, const char *s)
{
    char buf[256];
    size_t k = 0;
    buf[k++] = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (k >= sizeof buf - 8) {
            put_raw(g, buf, k);
            k = 0;
        }
        if (c == '"' || c == '\\' || c == '?') {
            buf[k++] = '\\';
            buf[k++] = (char)c;
        } else if (c == '\n') {
            buf[k++] = '\\';
            buf[k++] = 'n';
        } else if (c < 0x20 || c > 0x7e) {
            k += (size_t)snprintf(buf + k, sizeof buf - k, "\\%03o", (unsigned)c);
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k++] = '"';
    put_raw(g, buf, k);
}

/* Strings too long for a literal: a char array of octal character constants. */
static void put_char_array(cg *g, const char *name, size_t i, const char *s)
{
    put(g, "static const char %s_%s_%zu[] = {", g->pfx, name, i);
    size_t n = strlen(s);
    for (size_t j = 0; j <= n && !g->st; j++) {
        if (j % 12 == 0) put(g, "\n   ");
        put(g, " '\\%03o',", (unsigned)(unsigned char)s[j]);
    }
    put(g, "\n};\n");
}

static void put_string_table(cg *g, const char *name, const char *count, size_t n, const char *(*get)(const sy_gset *, size_t))
{
    for (size_t i = 0; i < n; i++) {
        const char *s = get(g->gs, i);
        if (s && strlen(s) > LONG_STRING) put_char_array(g, name, i, s);
    }
    put(g, "const char *const %s_%s[] = {", g->pfx, name);
    if (!n) {
        put(g, "NULL}; /* empty */\nconst size_t %s_%s = 0;\n\n", g->pfx, count);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = get(g->gs, i);
        put(g, "\n    ");
        if (s && strlen(s) > LONG_STRING) put(g, "%s_%s_%zu", g->pfx, name, i);
        else put_cstring(g, s ? s : "");
        put(g, ",");
    }
    put(g, "\n};\nconst size_t %s_%s = %zu;\n\n", g->pfx, count, n);
}

static const char *guard_text(const sy_gset *gs, size_t i) { return sy_gset_at(gs, i)->text; }

/* ------------------------------------------------------------------ constants */

static void kval_of(cg *g, const sy_expr *c, kval *k)
{
    memset(k, 0, sizeof *k);
    if (g->st) return;
    if (!c) {
        g->st = sy_ctx_last_error(g->ctx) ? sy_ctx_last_error(g->ctx) : SY_ENOMEM;
        return;
    }
    sy_status st = sy_expr_get_si(c, &k->v);
    if (st == SY_OK) {
        k->fits = 1;
        k->sign = (k->v > 0) - (k->v < 0);
        return;
    }
    if (st != SY_EOVERFLOW) {
        fail(g, SY_EINVAL, "expected an integer constant", c);
        return;
    }
    char *s = sy_expr_print(g->ctx, c, SY_PRINT_CANONICAL);
    if (!s) {
        g->st = sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
        return;
    }
    k->sign = s[0] == '-' ? -1 : 1;
    k->two63 = !strcmp(s, "9223372036854775808");
    sy_str_free(g->ctx, s);
}

static kval kneg(kval k)
{
    kval r = k;
    r.sign = -k.sign;
    r.two63 = 0;
    if (k.fits && k.v == INT64_MIN) {
        r.fits = 0;
        r.two63 = 1;
    } else if (k.fits) {
        r.v = -k.v;
    } else if (k.two63) {
        r.fits = 1;
        r.v = INT64_MIN;
    }
    return r;
}

static void lit(opnd *o, int64_t v)
{
    if (v == INT64_MIN) snprintf(o->s, sizeof o->s, "(-INT64_MAX - 1)");
    else snprintf(o->s, sizeof o->s, "INT64_C(%" PRId64 ")", v);
}

static void set(opnd *o, const char *s) { snprintf(o->s, sizeof o->s, "%s", s); }

/* o := formatted operand (a side-effect-free C expression) */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void fmt_op(cg *g, opnd *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->s, sizeof o->s, fmt, ap);
    va_end(ap);
    if ((n < 0 || (size_t)n >= sizeof o->s) && !g->st)
        g->st = sy_fail_st(g->ctx, SY_EUNSUPPORTED, "c backend: operand too long");
}

#define SY_CGEN_TDECL 0x80000000u

/* Record that bN (or tN: a Min/Max accumulator; the name in o) is declared in the current
 * function. */
static void declared_b(cg *g, const opnd *o)
{
    if (g->st) return;
    if (g->nbdecl == g->capbdecl) {
        size_t nc = g->capbdecl ? 2 * g->capbdecl : 16;
        unsigned *p = sy_realloc(g->ctx, g->bdecl, g->capbdecl * sizeof *p, nc * sizeof *p);
        if (!p) {
            g->st = sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
            return;
        }
        g->bdecl = p;
        g->capbdecl = nc;
    }
    g->bdecl[g->nbdecl++] = (unsigned)strtoul(o->s + 1, NULL, 10) | (o->s[0] == 't' ? SY_CGEN_TDECL : 0u);
}

/* Fail closed from here on: the rest of the function is unreachable. The
 * int temporaries declared so far (an And/Or accumulator, a relation's
 * result, a Min/Max accumulator) are then never read: they are cast to void, so that the file stays
 * clean under -Wall -Wextra -Werror (cgen.h). */
static void fail_closed(cg *g, int code, const char *why, const sy_expr *e)
{
    if (g->st || g->dead) return;
    char *s = e ? sy_expr_print_bounded(g->ctx, e, SY_PRINT_CANONICAL, SY_CGEN_LET_NODES) : NULL;
    if (e && !s) {
        g->st = sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < g->nbdecl; i++)
        emit(g, "    (void)%c%u;\n", g->bdecl[i] & SY_CGEN_TDECL ? 't' : 'b', g->bdecl[i] & ~SY_CGEN_TDECL);
    emit(g, "    return %d; /* %s", code, why);
    if (s) {
        put(g, ": ");
        put_comment_text(g, s);
    }
    put(g, " */\n");
    sy_str_free(g->ctx, s);
    g->dead = 1;
}

static unsigned new_t(cg *g, opnd *o)
{
    unsigned t = g->nt++;
    snprintf(o->s, sizeof o->s, "t%u", t);
    return t;
}

static void need_rc(cg *g)
{
    if (g->have_rc) return;
    emit(g, "    int rc;\n");
    g->have_rc = 1;
}

/* ------------------------------------------------------------------ integer expressions */

static void gen_int(cg *g, const sy_expr *e, opnd *o);

/* out := a OP b with an overflow check; op is "add", "sub" or "mul" */
static void checked(cg *g, const char *op, const opnd *a, const opnd *b, opnd *out)
{
    opnd r;
    new_t(g, &r);
    emit(g, "    int64_t %s = 0;\n    if (sy_i64_%s(%s, %s, &%s)) return %d;\n", r.s, op, a->s, b->s, r.s, SY_CGEN_EOVERFLOW);
    *out = r;
}

/* The terms of a polynomial d = c0 + sum c_i*m_i, split by the sign of c_i:
 * *L = sum of c_i*m_i over c_i > 0, *R = sum of |c_i|*m_i over c_i < 0
 * (empty sides are flagged by *hasL / *hasR). */
static void gen_sides(cg *g, const sy_expr *d, kval *c0, opnd *L, int *hasL, opnd *R, int *hasR)
{
    *hasL = *hasR = 0;
    set(L, "0");
    set(R, "0");
    sy_expr_kind k = sy_expr_kind_of(d);
    if (k == SY_EXPR_INT) {
        kval_of(g, d, c0);
        return;
    }
    if (k != SY_EXPR_ADD) {
        memset(c0, 0, sizeof *c0);
        c0->fits = 1;
        gen_int(g, d, L);
        *hasL = 1;
        return;
    }
    kval_of(g, sy_expr_add_const(g->ctx, d), c0);
    for (size_t i = 0; i < sy_expr_nargs(d) && !g->st && !g->dead; i++) {
        kval c;
        kval_of(g, sy_expr_add_coeff(g->ctx, d, i), &c);
        opnd m, term;
        gen_int(g, sy_expr_arg(d, i), &m);
        if (g->st || g->dead) return;
        if (!(c.fits && c.v != INT64_MIN)) {
            /* |c| > INT64_MAX: c*m fits int64 only when m = 0 */
            emit(g, "    if (%s != 0) return %d; /* |coefficient| * value does not fit int64 */\n", m.s, SY_CGEN_EOVERFLOW);
            continue; /* the term is 0 */
        } else if (c.v == 1 || c.v == -1) {
            term = m;
        } else {
            opnd cc;
            lit(&cc, c.v < 0 ? -c.v : c.v);
            checked(g, "mul", &cc, &m, &term);
        }
        opnd *side = c.sign > 0 ? L : R;
        int *has = c.sign > 0 ? hasL : hasR;
        if (!*has) *side = term;
        else checked(g, "add", side, &term, side);
        *has = 1;
    }
}

static void gen_add(cg *g, const sy_expr *e, opnd *o)
{
    kval c0;
    opnd L, R;
    int hasL, hasR;
    gen_sides(g, e, &c0, &L, &hasL, &R, &hasR);
    if (g->st || g->dead) return;
    opnd k;
    if (!c0.fits) {
        if (hasL || hasR) {
            const sy_expr *c = sy_expr_add_const(g->ctx, e);
            if (!c) g->st = sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
            fail_closed(g, SY_CGEN_EOVERFLOW, "a constant term does not fit int64", c);
        } else {
            fail_closed(g, SY_CGEN_EOVERFLOW, "the constant does not fit int64", e);
        }
        return;
    }
    lit(&k, c0.v);
    if (hasL && hasR) {
        checked(g, "sub", &L, &R, o);
        if (c0.v) checked(g, "add", o, &k, o);
    } else if (hasL) {
        if (c0.v) checked(g, "add", &L, &k, o);
        else *o = L;
    } else if (hasR) {
        checked(g, "sub", &k, &R, o);
    } else {
        *o = k;
    }
}

static void gen_minmax(cg *g, const sy_expr *e, opnd *o)
{
    int ismin = sy_expr_kind_of(e) == SY_EXPR_MIN;
    int have = 0;
    opnd r;
    for (size_t i = 0; i < sy_expr_nargs(e) && !g->st && !g->dead; i++) {
        const sy_expr *a = sy_expr_arg(e, i);
        if (sy_expr_kind_of(a) == SY_EXPR_INT) {
            /* a constant beyond int64 on the far side never wins */
            kval k;
            kval_of(g, a, &k);
            if (!k.fits && ((ismin && k.sign > 0) || (!ismin && k.sign < 0))) continue;
        }
        opnd x;
        gen_int(g, a, &x);
        if (g->st || g->dead) return;
        if (!have) {
            new_t(g, &r);
            emit(g, "    int64_t %s = %s;\n", r.s, x.s);
            /* read only by the next operand's comparison: when that operand fails closed
             * (Min(c, CeilDiv(b, 2**70)), attack38e), fail_closed casts it to void */
            declared_b(g, &r);
            have = 1;
        } else {
            emit(g, "    if (%s %s %s) %s = %s;\n", x.s, ismin ? "<" : ">", r.s, r.s, x.s);
        }
    }
    if (g->st || g->dead) return;
    if (!have) fail_closed(g, SY_CGEN_EOVERFLOW, "no operand fits int64", e);
    else *o = r;
}

static void gen_int_node(cg *g, const sy_expr *e, opnd *o);

/* The memo slot of e (found or free), growing first; SIZE_MAX: out of memory. */
static size_t memo_slot(cg *g, const sy_expr *e)
{
    if ((g->mn + 1) * 2 > g->mcap) {
        size_t nc = g->mcap ? g->mcap * 2 : 64;
        if (!sy_etab_grow(g->ctx, &g->mk, (void **)&g->mv, sizeof *g->mv, g->mcap, nc)) {
            g->st = sy_fail_st(g->ctx, SY_ENOMEM, "out of memory");
            return SIZE_MAX;
        }
        g->mcap = nc;
    }
    size_t m = g->mcap - 1, j = (size_t)sy_expr_hash(e) & m;
    while (g->mk[j] && g->mk[j] != e) j = (j + 1) & m;
    return j;
}

static void gen_int(cg *g, const sy_expr *e, opnd *o)
{
    set(o, "0");
    if (g->st || g->dead) return;
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k == SY_EXPR_INT || k == SY_EXPR_SYM) {
        gen_int_node(g, e, o);
        return;
    }
    size_t j = memo_slot(g, e);
    if (j == SIZE_MAX) return;
    if (g->mk[j]) {
        *o = g->mv[j];
        return;
    }
    gen_int_node(g, e, o);
    if (g->st || g->dead) return;
    j = memo_slot(g, e); /* the table may have grown meanwhile */
    if (j == SIZE_MAX) return;
    g->mk[j] = e;
    g->mv[j] = *o;
    g->mn++;
}

static void gen_int_node(cg *g, const sy_expr *e, opnd *o)
{
    set(o, "0");
    if (g->st || g->dead) return;
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_INT: {
        kval k;
        kval_of(g, e, &k);
        if (g->st) return;
        if (k.fits) lit(o, k.v);
        else fail_closed(g, SY_CGEN_EOVERFLOW, "the constant does not fit int64", e);
        return;
    }
    case SY_EXPR_SYM: {
        for (size_t i = 0; i < sy_gset_nsources(g->gs); i++)
            if (sy_gset_source_var(g->gs, i) == e) {
                snprintf(o->s, sizeof o->s, "s[%zu]", i);
                return;
            }
        for (size_t i = 0; i < sy_gset_nunbacked(g->gs); i++) /* runtime asserts: unbacked values */
            if (sy_gset_unbacked_var(g->gs, i) == e) {
                snprintf(o->s, sizeof o->s, "u[%zu]", i);
                return;
            }
        fail(g, SY_EINVAL, "a guard reads a variable that is not a source of the set", e);
        return;
    }
    case SY_EXPR_ADD: gen_add(g, e, o); return;
    case SY_EXPR_MUL: {
        opnd acc;
        gen_int(g, sy_expr_arg(e, 0), &acc);
        for (size_t i = 1; i < sy_expr_nargs(e) && !g->st && !g->dead; i++) {
            opnd f;
            gen_int(g, sy_expr_arg(e, i), &f);
            if (g->st || g->dead) return;
            checked(g, "mul", &acc, &f, &acc);
        }
        *o = acc;
        return;
    }
    case SY_EXPR_POW: {
        opnd a, r;
        uint64_t k = sy_expr_pow_exp(e);
        gen_int(g, sy_expr_arg(e, 0), &a);
        if (g->st || g->dead) return;
        new_t(g, &r);
        if (k <= 4) {
            emit(g, "    int64_t %s = %s;\n", r.s, a.s);
            for (uint64_t i = 1; i < k; i++)
                emit(g, "    if (sy_i64_mul(%s, %s, &%s)) return %d;\n", r.s, a.s, r.s, SY_CGEN_EOVERFLOW);
        } else {
            emit(g, "    int64_t %s = 1;\n", r.s);
            emit(g, "    {\n        uint64_t k;\n        for (k = 0; k < UINT64_C(%" PRIu64 "); k++)\n"
                    "            if (sy_i64_mul(%s, %s, &%s)) return %d;\n    }\n",
                 k, r.s, a.s, r.s, SY_CGEN_EOVERFLOW);
        }
        *o = r;
        return;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV: {
        opnd a, b, r;
        sy_expr_kind k = sy_expr_kind_of(e);
        gen_int(g, sy_expr_arg(e, 0), &a);
        gen_int(g, sy_expr_arg(e, 1), &b);
        if (g->st || g->dead) return;
        need_rc(g);
        new_t(g, &r);
        emit(g, "    int64_t %s = 0;\n    if ((rc = sy_i64_%s(%s, %s, &%s)) != 0) return -1 - rc;\n", r.s,
             k == SY_EXPR_FLOORDIV ? "floordiv" : k == SY_EXPR_MOD ? "mod" : "ceildiv", a.s, b.s, r.s);
        *o = r;
        return;
    }
    case SY_EXPR_MIN:
    case SY_EXPR_MAX: gen_minmax(g, e, o); return;
    default: fail(g, SY_EINVAL, "boolean expression where an integer is expected", e); return;
    }
}

/* ------------------------------------------------------------------ booleans */

static const char *rel_op(sy_expr_kind k) { return k == SY_EXPR_EQ ? "==" : k == SY_EXPR_NE ? "!=" : "<="; }

/* x op y where y is beyond int64 with sign ysign: x < y when ysign > 0 */
static int rel_vs_huge(sy_expr_kind k, int ysign)
{
    if (k == SY_EXPR_EQ) return 0;
    if (k == SY_EXPR_NE) return 1;
    return ysign > 0; /* x <= y */
}

/* d op 0, with d = c0 + L - R: L - R op K for K = -c0 */
static void gen_rel(cg *g, sy_expr_kind k, const sy_expr *d, opnd *o)
{
    kval c0;
    opnd L, R, c;
    int hasL, hasR;
    gen_sides(g, d, &c0, &L, &hasL, &R, &hasR);
    if (g->st || g->dead) return;
    kval K = kneg(c0);
    const char *op = rel_op(k);
    /* a side computed into a temporary but not compared below is still used */
    int decided = !(hasL && hasR) && ((!hasR && hasL && !K.fits) || (!hasL && hasR && !c0.fits));
    if (decided) emit(g, "    (void)%s;\n", hasL ? L.s : R.s);
    if (!hasL && !hasR) { /* a constant relation */
        int s = c0.sign;
        set(o, (k == SY_EXPR_EQ ? s == 0 : k == SY_EXPR_NE ? s != 0 : s <= 0) ? "1" : "0");
    } else if (!hasR) { /* L op K */
        if (K.fits) {
            lit(&c, K.v);
            fmt_op(g, o, "(%s %s %s)", L.s, op, c.s);
        } else {
            set(o, rel_vs_huge(k, K.sign) ? "1" : "0");
        }
    } else if (!hasL) { /* c0 - R op 0: R == c0, R != c0, c0 <= R */
        if (c0.fits) {
            lit(&c, c0.v);
            if (k == SY_EXPR_LE) fmt_op(g, o, "(%s <= %s)", c.s, R.s);
            else fmt_op(g, o, "(%s %s %s)", R.s, op, c.s);
        } else {
            /* R vs c0 beyond int64: R < c0 when c0 > 0; c0 <= R holds iff c0 < 0 */
            set(o, k == SY_EXPR_EQ ? "0" : k == SY_EXPR_NE ? "1" : c0.sign < 0 ? "1" : "0");
        }
    } else if (K.fits && K.v == 0) {
        fmt_op(g, o, "(%s %s %s)", L.s, op, R.s);
    } else if (K.fits) {
        /* D = L - R; when it overflows, its sign is that of L and it lies
         * beyond every int64 K */
        opnd D, b;
        new_t(g, &D);
        snprintf(b.s, sizeof b.s, "b%u", g->nb++);
        lit(&c, K.v);
        int pos = k == SY_EXPR_NE, neg = k != SY_EXPR_EQ; /* results for D = +oo and D = -oo */
        emit(g, "    int64_t %s = 0;\n    int %s;\n", D.s, b.s);
        declared_b(g, &b);
        if (pos == neg)
            emit(g, "    if (sy_i64_sub(%s, %s, &%s)) %s = %d;\n", L.s, R.s, D.s, b.s, pos);
        else
            emit(g, "    if (sy_i64_sub(%s, %s, &%s)) %s = %s >= 0 ? %d : %d;\n", L.s, R.s, D.s, b.s, L.s, pos, neg);
        emit(g, "    else %s = %s %s %s;\n", b.s, D.s, op, c.s);
        *o = b;
    } else {
        /* K beyond int64: decided once L - R is known to fit */
        opnd D;
        new_t(g, &D);
        emit(g, "    int64_t %s = 0;\n    if (sy_i64_sub(%s, %s, &%s)) return %d;\n", D.s, L.s, R.s, D.s, SY_CGEN_EOVERFLOW);
        set(o, rel_vs_huge(k, K.sign) ? "1" : "0");
    }
}

static void gen_bool(cg *g, const sy_expr *e, opnd *o)
{
    set(o, "0");
    if (g->st || g->dead) return;
    sy_expr_kind k = sy_expr_kind_of(e);
    switch (k) {
    case SY_EXPR_TRUE: set(o, "1"); return;
    case SY_EXPR_FALSE: set(o, "0"); return;
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: gen_rel(g, k, sy_expr_arg(e, 0), o); return;
    case SY_EXPR_AND:
    case SY_EXPR_OR: {
        /* every operand is evaluated, as the reference checker does */
        opnd acc;
        snprintf(acc.s, sizeof acc.s, "b%u", g->nb++);
        for (size_t i = 0; i < sy_expr_nargs(e) && !g->st && !g->dead; i++) {
            opnd x;
            gen_bool(g, sy_expr_arg(e, i), &x);
            if (i == 0) {
                emit(g, "    int %s = %s;\n", acc.s, x.s);
                declared_b(g, &acc);
            }
            else emit(g, "    %s %s= %s;\n", acc.s, k == SY_EXPR_AND ? "&" : "|", x.s);
        }
        *o = acc;
        return;
    }
    default: fail(g, SY_EINVAL, "integer expression where a boolean is expected", e); return;
    }
}

/* ------------------------------------------------------------------ the file */

static int is_identifier(const char *p)
{
    if (!p || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')) return 0;
    if (p[0] == '_' && (p[1] == '_' || (p[1] >= 'A' && p[1] <= 'Z'))) return 0; /* reserved */
    for (const char *q = p; *q; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_')) return 0;
    return 1;
}

static void put_header(cg *g)
{
    const sy_gset *gs = g->gs;
    size_t n = sy_gset_size(gs), ns = sy_gset_nsources(gs), nra = 0;
    put(g, "/* Guards of model ");
    put_comment_text(g, sy_gset_model(gs) ? sy_gset_model(gs) : "?");
    put(g, ", generated by the symshape C backend: a self-contained C99 file.\n"
           " *\n"
           " *   int %s_check(const int64_t *sizes, size_t n, int32_t *failed);\n"
           " *   int %s_check_runtime(const int64_t *sizes, size_t n, const int64_t *unbacked,\n"
           " *                        size_t m, int32_t *failed);\n"
           " *\n"
           " * sizes[i] is the value of source %s_sources[i] (n = %zu):\n",
        g->pfx, g->pfx, g->pfx, ns);
    for (size_t i = 0; i < ns; i++) {
        put(g, " *   %3zu  ", i);
        put_comment_text(g, sy_gset_source(gs, i));
        put(g, "\n");
    }
    put(g, " * Returns 1 accept (*failed = -1); 0 reject (*failed = the failing guard);\n"
           " * fail closed: -1 n is not %zu or sizes is NULL (*failed = -1), -2 an int64\n"
           " * overflow, -3 a division by zero, in guard *failed (SY_CGEN_* in\n"
           " * symshape/cgen.h). failed may be NULL. Guards are checked in this order:\n",
        ns);
    for (size_t i = 0; i < n; i++) {
        const sy_gset_guard *x = sy_gset_at(gs, i);
        if (x->kind == SY_GK_RUNTIME_ASSERT) nra++;
        put(g, " *   %3zu  %-14s ", i, sy_gset_kind_name(x->kind));
        put_comment_text(g, x->text);
        put(g, "\n");
    }
    if (nra) {
        put(g, " * Runtime asserts, not checked by %s_check (the data they read does not\n"
               " * exist before the run): %s_check_runtime checks them with the unbacked values:", g->pfx, g->pfx);
        for (size_t i = 0; i < n; i++)
            if (sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT) {
                put(g, "\n *   %3zu  ", i);
                put_comment_text(g, sy_gset_at(gs, i)->text);
            }
        put(g, "\n");
    }
    put(g, " */\n#include <stddef.h>\n#include <stdint.h>\n\n");
    put_raw(g, sy_int64_h_text, sizeof sy_int64_h_text - 1);
    put(g, "\nint %s_check(const int64_t *sizes, size_t n, int32_t *failed);\n"
           "int %s_check_runtime(const int64_t *sizes, size_t n, const int64_t *unbacked, size_t m, int32_t *failed);\n"
           "extern const char *const %s_unbacked[];\n"
           "extern const size_t %s_nunbacked;\n"
           "extern const char *const %s_sources[];\n"
           "extern const size_t %s_nsources;\n"
           "extern const char *const %s_guards[];\n"
           "extern const size_t %s_nguards;\n\n",
        g->pfx, g->pfx, g->pfx, g->pfx, g->pfx, g->pfx, g->pfx, g->pfx);
}

static void put_guard_fn(cg *g, size_t i)
{
    const sy_gset_guard *x = sy_gset_at(g->gs, i);
    int rt = x->kind == SY_GK_RUNTIME_ASSERT;
    put(g, "/* %zu (%s): ", i, sy_gset_kind_name(x->kind));
    put_comment_text(g, x->text);
    if (rt) put(g, " */\nstatic int %s_guard_%zu(const int64_t *s, const int64_t *u)\n{\n    (void)s;\n    (void)u;\n", g->pfx, i);
    else put(g, " */\nstatic int %s_guard_%zu(const int64_t *s)\n{\n    (void)s;\n", g->pfx, i);
    g->nt = g->nb = 0;
    g->nbdecl = 0;
    g->have_rc = 0;
    g->dead = 0;
    if (g->mk) memset(g->mk, 0, g->mcap * sizeof *g->mk); /* temporaries are per function */
    g->mn = 0;
    opnd r;
    gen_bool(g, x->expr, &r);
    emit(g, "    return %s;\n", r.s);
    g->dead = 0;
    put(g, "}\n\n");
}

static sy_status render_c(const sy_backend *self, const sy_gset *gs, const sy_backend_options *opts, sy_output *out)
{
    (void)self;
    sy_ctx *ctx = sy_gset_ctx(gs);
    const char *pfx = opts && opts->prefix ? opts->prefix : SY_CGEN_DEFAULT_PREFIX;
    if (!is_identifier(pfx))
        return sy_fail_st(ctx, SY_EINVAL, "c backend: prefix '%s' is not a C identifier (or is reserved)", pfx);
    cg g;
    memset(&g, 0, sizeof g);
    g.ctx = ctx;
    g.gs = gs;
    g.out = out;
    g.pfx = pfx;
    size_t n = sy_gset_size(gs), ns = sy_gset_nsources(gs);
    put_header(&g);
    put_string_table(&g, "sources", "nsources", ns, sy_gset_source);
    put_string_table(&g, "guards", "nguards", n, guard_text);
    size_t nchecked = 0;
    for (size_t i = 0; i < n && !g.st; i++) {
        if (sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT) continue;
        put_guard_fn(&g, i);
        nchecked++;
    }
    if (nchecked) {
        put(&g, "/* one per guard, for callers that check guards individually; NULL: a\n"
                " * runtime assert, not checked here */\n"
                "extern int (*const %s_fns[%zu])(const int64_t *);\n"
                "int (*const %s_fns[%zu])(const int64_t *) = {", pfx, n, pfx, n);
        for (size_t i = 0; i < n; i++) {
            if (sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT) put(&g, "\n    NULL,");
            else put(&g, "\n    %s_guard_%zu,", pfx, i);
        }
        put(&g, "\n};\n\n");
    }
    put(&g, "int %s_check(const int64_t *sizes, size_t n, int32_t *failed)\n{\n", pfx);
    if (nchecked) put(&g, "    int r;\n");
    put(&g, "    if (failed) *failed = -1;\n");
    if (ns) put(&g, "    if (n != %zu || !sizes) return %d;\n", ns, SY_CGEN_EARG);
    else put(&g, "    if (n != 0) return %d;\n", SY_CGEN_EARG);
    if (nchecked) {
        /* direct calls in order: the compiler inlines each guard */
        for (size_t i = 0; i < n && !g.st; i++) {
            if (sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT) continue;
            put(&g, "    if ((r = %s_guard_%zu(sizes)) != 1) {\n"
                    "        if (failed) *failed = %zu;\n"
                    "        return r;\n"
                    "    }\n",
                pfx, i, i);
        }
    } else {
        put(&g, "    (void)sizes;\n");
    }
    put(&g, "    return %d;\n}\n", SY_CGEN_ACCEPT);
    /* the run-time check: every guard, runtime asserts with the unbacked values */
    size_t nu = sy_gset_nunbacked(gs);
    put_string_table(&g, "unbacked", "nunbacked", nu, sy_gset_unbacked_source);
    for (size_t i = 0; i < n && !g.st; i++)
        if (sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT) put_guard_fn(&g, i);
    put(&g, "\nint %s_check_runtime(const int64_t *sizes, size_t n, const int64_t *unbacked, size_t m, int32_t *failed)\n{\n", pfx);
    if (n) put(&g, "    int r;\n");
    put(&g, "    if (failed) *failed = -1;\n");
    put(&g, "    if (n != %zu || (n && !sizes) || m != %zu || (m && !unbacked)) return %d;\n", ns, nu, SY_CGEN_EARG);
    put(&g, "    (void)sizes;\n    (void)unbacked;\n");
    for (size_t i = 0; i < n && !g.st; i++) {
        int rt = sy_gset_at(gs, i)->kind == SY_GK_RUNTIME_ASSERT;
        put(&g, "    if ((r = %s_guard_%zu(sizes%s)) != 1) {\n"
                "        if (failed) *failed = %zu;\n"
                "        return r;\n"
                "    }\n",
            pfx, i, rt ? ", unbacked" : "", i);
    }
    put(&g, "    return %d;\n}\n", SY_CGEN_ACCEPT);
    if (g.bdecl) sy_dealloc(ctx, g.bdecl, g.capbdecl * sizeof *g.bdecl);
    if (g.mk) sy_dealloc(ctx, g.mk, g.mcap * sizeof *g.mk);
    if (g.mv) sy_dealloc(ctx, g.mv, g.mcap * sizeof *g.mv);
    return g.st;
}

static const sy_backend c_backend = {"c", "a self-contained C99 file with an int64 check function (fails closed on overflow)",
                                     render_c, NULL};

sy_status sy_backend_register_c(void) { return sy_backend_register(&c_backend); }
