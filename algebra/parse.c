/* Parser for the Python-like expression syntax of docs/algebra.md and
 * ../shared/cases/README.md. Recursive descent with Python precedence:
 *   or_test  := and_test ('or' and_test)*
 *   and_test := not_test ('and' not_test)*
 *   not_test := 'not' not_test | comparison
 *   comparison := arith (compop arith)*        (chained: a < b < c)
 *   arith    := term (('+'|'-') term)*          (n-ary, linear in length)
 *   term     := factor (('*'|'//'|'%') factor)*
 *   factor   := ('+'|'-') factor | power
 *   power    := primary ['**' factor]           (non-negative integer exponent)
 *   primary  := INT | NAME | NAME '(' args ')' | '(' or_test ')' | true | false
 * Errors carry the byte offset. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "algebra/expr_private.h"

/* 400 levels of nesting (parentheses, calls, unary signs, not, **) below the
 * top level, which counts 1 (docs/algebra.md) */
#define MAX_DEPTH 401

typedef enum {
    T_EOF, T_INT, T_NAME, T_PLUS, T_MINUS, T_STAR, T_POW, T_FDIV, T_MOD, T_LP, T_RP, T_COMMA,
    T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_AND, T_OR, T_NOT, T_TRUE, T_FALSE, T_BAD
} tok;

typedef struct {
    sy_ctx *ctx;
    const char *s;
    size_t len, pos;
    tok t;          /* current token */
    size_t tstart;  /* offset of current token */
    size_t tlen;
    int depth;
    bool failed;
} parser;

static const char *tok_name(tok t)
{
    static const char *names[] = {"end of input", "integer", "name", "'+'", "'-'", "'*'", "'**'", "'//'", "'%'",
                                  "'('", "')'", "','", "'=='", "'!='", "'<'", "'<='", "'>'", "'>='", "'and'",
                                  "'or'", "'not'", "'true'", "'false'", "invalid character"};
    return names[t];
}

static void next(parser *p)
{
    while (p->pos < p->len && isspace((unsigned char)p->s[p->pos])) p->pos++;
    p->tstart = p->pos;
    if (p->pos >= p->len) {
        p->t = T_EOF;
        p->tlen = 0;
        return;
    }
    char c = p->s[p->pos];
    char d = p->pos + 1 < p->len ? p->s[p->pos + 1] : '\0';
    size_t n = 1;
    if (isdigit((unsigned char)c)) {
        while (p->pos + n < p->len && isdigit((unsigned char)p->s[p->pos + n])) n++;
        p->t = T_INT;
    } else if (isalpha((unsigned char)c) || c == '_') {
        while (p->pos + n < p->len && (isalnum((unsigned char)p->s[p->pos + n]) || p->s[p->pos + n] == '_')) n++;
        p->t = T_NAME;
        const char *w = p->s + p->pos;
        if (n == 3 && !memcmp(w, "and", 3)) p->t = T_AND;
        else if (n == 2 && !memcmp(w, "or", 2)) p->t = T_OR;
        else if (n == 3 && !memcmp(w, "not", 3)) p->t = T_NOT;
        else if (n == 4 && !memcmp(w, "true", 4)) p->t = T_TRUE;
        else if (n == 5 && !memcmp(w, "false", 5)) p->t = T_FALSE;
    } else {
        switch (c) {
        case '+': p->t = T_PLUS; break;
        case '-': p->t = T_MINUS; break;
        case '*': if (d == '*') { p->t = T_POW; n = 2; } else p->t = T_STAR; break;
        case '/': if (d == '/') { p->t = T_FDIV; n = 2; } else p->t = T_BAD; break;
        case '%': p->t = T_MOD; break;
        case '(': p->t = T_LP; break;
        case ')': p->t = T_RP; break;
        case ',': p->t = T_COMMA; break;
        case '=': if (d == '=') { p->t = T_EQ; n = 2; } else p->t = T_BAD; break;
        case '!': if (d == '=') { p->t = T_NE; n = 2; } else p->t = T_BAD; break;
        case '<': if (d == '=') { p->t = T_LE; n = 2; } else p->t = T_LT; break;
        case '>': if (d == '=') { p->t = T_GE; n = 2; } else p->t = T_GT; break;
        default: p->t = T_BAD; break;
        }
    }
    p->tlen = n;
    p->pos += n;
}

static const sy_expr *perr(parser *p, size_t off, const char *fmt, const char *arg)
{
    if (p->failed) return NULL;
    p->failed = true;
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg);
    sy_fail(p->ctx, SY_EFORMAT, "at byte %zu: %s", off, msg);
    sy_set_error_offset(p->ctx, (long)off);
    return NULL;
}

static const sy_expr *expected(parser *p, const char *what)
{
    char found[64];
    if (p->t == T_NAME || p->t == T_INT)
        snprintf(found, sizeof found, "'%.*s'", (int)(p->tlen > 40 ? 40 : p->tlen), p->s + p->tstart);
    else if (p->t == T_BAD) {
        unsigned char ch = (unsigned char)p->s[p->tstart];
        if (ch >= 0x20 && ch < 0x7f) /* printable ASCII as itself; anything else as a byte value */
            snprintf(found, sizeof found, "invalid character '%c'%s", ch,
                     ch == '/' ? " (true division is not supported: use //)" : "");
        else
            snprintf(found, sizeof found, "invalid byte 0x%02x%s", ch, ch >= 0x80 ? " (only ASCII is accepted)" : "");
    }
    else
        snprintf(found, sizeof found, "%s", tok_name(p->t));
    char msg[200];
    snprintf(msg, sizeof msg, "expected %s, found %s", what, found);
    return perr(p, p->tstart, "%s", msg);
}

/* A constructor failed: keep its status, prefix the offset. */
static const sy_expr *cfail(parser *p, size_t off)
{
    if (p->failed) return NULL;
    p->failed = true;
    char msg[512];
    snprintf(msg, sizeof msg, "at byte %zu: %s", off, sy_ctx_last_error_msg(p->ctx));
    sy_status st = sy_ctx_last_error(p->ctx);
    sy_fail(p->ctx, st == SY_OK ? SY_ERROR : st, "%s", msg);
    sy_set_error_offset(p->ctx, (long)off);
    return NULL;
}

#define CHECK(p, e, off) ((e) ? (e) : cfail((p), (off)))

static const sy_expr *or_test(parser *p);
static const sy_expr *factor(parser *p);

static bool type_int(parser *p, const sy_expr *e, size_t off, const char *op)
{
    if (!e->isbool) return true;
    char msg[100];
    snprintf(msg, sizeof msg, "operand of %s must be an integer expression, not a boolean", op);
    perr(p, off, "%s", msg);
    return false;
}
static bool type_bool(parser *p, const sy_expr *e, size_t off, const char *op)
{
    if (e->isbool) return true;
    char msg[100];
    snprintf(msg, sizeof msg, "operand of %s must be a boolean expression, not an integer", op);
    perr(p, off, "%s", msg);
    return false;
}

typedef struct {
    const char *name;
    int min, max; /* arity; max -1: unbounded */
} fninfo;
static const fninfo fns[] = {{"FloorDiv", 2, 2}, {"Mod", 2, 2}, {"CeilDiv", 2, 2}, {"Min", 1, -1}, {"Max", 1, -1},
                             {"Eq", 2, 2},       {"Ne", 2, 2},  {"Lt", 2, 2},      {"Le", 2, 2},  {"Gt", 2, 2},
                             {"Ge", 2, 2},       {"And", 0, -1}, {"Or", 0, -1},    {"Not", 1, 1}, {NULL, 0, 0}};

static const sy_expr *call(parser *p, const fninfo *f, size_t off)
{
    /* current token is '(' */
    next(p);
    const sy_expr *stackbuf[8];
    const sy_expr **args = stackbuf;
    size_t n = 0, cap = 8;
    const sy_expr *res = NULL;
    size_t argoff[8] = {0};
    if (p->t != T_RP) {
        for (;;) {
            size_t aoff = p->tstart;
            const sy_expr *a = or_test(p);
            if (!a) goto done;
            if (n == cap) {
                size_t nc = cap * 2;
                const sy_expr **na = sy_alloc(p->ctx, nc * sizeof *na);
                if (!na) {
                    sy_oom(p->ctx);
                    p->failed = true;
                    goto done;
                }
                memcpy(na, args, n * sizeof *na);
                if (args != stackbuf) sy_dealloc(p->ctx, args, cap * sizeof *args);
                args = na;
                cap = nc;
            }
            if (n < 8) argoff[n] = aoff;
            args[n++] = a;
            if (p->t == T_COMMA) {
                next(p);
                continue;
            }
            if (p->t == T_RP) break;
            expected(p, "',' or ')'");
            goto done;
        }
    }
    next(p); /* ')' */
    if ((int)n < f->min || (f->max >= 0 && (int)n > f->max)) {
        char msg[128];
        if (f->min == f->max)
            snprintf(msg, sizeof msg, "%s expects %d argument%s, got %zu", f->name, f->min, f->min == 1 ? "" : "s", n);
        else
            snprintf(msg, sizeof msg, "%s expects at least %d argument%s, got %zu", f->name, f->min,
                     f->min == 1 ? "" : "s", n);
        perr(p, off, "%s", msg);
        goto done;
    }
    const char *nm = f->name;
    bool boolfn = !strcmp(nm, "And") || !strcmp(nm, "Or") || !strcmp(nm, "Not");
    for (size_t i = 0; i < n; i++) {
        size_t ao = i < 8 ? argoff[i] : off;
        if (boolfn ? !type_bool(p, args[i], ao, nm) : !type_int(p, args[i], ao, nm)) goto done;
    }
    sy_ctx *c = p->ctx;
    if (!strcmp(nm, "FloorDiv")) res = sy_expr_floordiv(c, args[0], args[1]);
    else if (!strcmp(nm, "Mod")) res = sy_expr_mod(c, args[0], args[1]);
    else if (!strcmp(nm, "CeilDiv")) res = sy_expr_ceildiv(c, args[0], args[1]);
    else if (!strcmp(nm, "Min")) res = sy_expr_min_n(c, n, args);
    else if (!strcmp(nm, "Max")) res = sy_expr_max_n(c, n, args);
    else if (!strcmp(nm, "Eq")) res = sy_expr_eq(c, args[0], args[1]);
    else if (!strcmp(nm, "Ne")) res = sy_expr_ne(c, args[0], args[1]);
    else if (!strcmp(nm, "Lt")) res = sy_expr_lt(c, args[0], args[1]);
    else if (!strcmp(nm, "Le")) res = sy_expr_le(c, args[0], args[1]);
    else if (!strcmp(nm, "Gt")) res = sy_expr_gt(c, args[0], args[1]);
    else if (!strcmp(nm, "Ge")) res = sy_expr_ge(c, args[0], args[1]);
    else if (!strcmp(nm, "And")) res = sy_expr_and_n(c, n, args);
    else if (!strcmp(nm, "Or")) res = sy_expr_or_n(c, n, args);
    else res = sy_expr_not(c, args[0]);
    res = CHECK(p, res, off);
done:
    if (args != stackbuf) sy_dealloc(p->ctx, args, cap * sizeof *args);
    return res;
}

static const sy_expr *primary(parser *p)
{
    size_t off = p->tstart;
    switch (p->t) {
    case T_INT: {
        char stackbuf[64];
        char *tmp = p->tlen < sizeof stackbuf ? stackbuf : sy_alloc(p->ctx, p->tlen + 1);
        if (!tmp) return cfail(p, off);
        memcpy(tmp, p->s + p->tstart, p->tlen);
        tmp[p->tlen] = '\0';
        size_t tl = p->tlen;
        const sy_expr *e = sy_expr_int_str(p->ctx, tmp);
        if (tmp != stackbuf) sy_dealloc(p->ctx, tmp, tl + 1);
        next(p);
        if (p->t == T_NAME && p->tstart == off + tl) return expected(p, "an operator");
        return CHECK(p, e, off);
    }
    case T_TRUE: next(p); return sy_expr_true(p->ctx);
    case T_FALSE: next(p); return sy_expr_false(p->ctx);
    case T_NAME: {
        const char *w = p->s + p->tstart;
        size_t n = p->tlen;
        next(p);
        if (p->t == T_LP) {
            for (const fninfo *f = fns; f->name; f++)
                if (strlen(f->name) == n && !memcmp(f->name, w, n)) return call(p, f, off);
            char nm[80];
            snprintf(nm, sizeof nm, "%.*s", (int)(n > 60 ? 60 : n), w);
            return perr(p, off, "unknown function '%s' (known: FloorDiv Mod CeilDiv Min Max Eq Ne Lt Le Gt Ge And Or Not)", nm);
        }
        if (sy_reserved_name(w, n)) {
            char nm[80];
            snprintf(nm, sizeof nm, "%.*s", (int)(n > 60 ? 60 : n), w);
            if (n == 2 && !memcmp(w, "oo", 2)) return perr(p, off, "'%s' (infinity) is not an expression", nm);
            return perr(p, off, "'%s' is a function: expected '(' after it", nm);
        }
        char stackbuf[64];
        char *tmp = n < sizeof stackbuf ? stackbuf : sy_alloc(p->ctx, n + 1);
        if (!tmp) return cfail(p, off);
        memcpy(tmp, w, n);
        tmp[n] = '\0';
        const sy_expr *e = sy_expr_sym(p->ctx, tmp);
        if (tmp != stackbuf) sy_dealloc(p->ctx, tmp, n + 1);
        return CHECK(p, e, off);
    }
    case T_LP: {
        next(p);
        const sy_expr *e = or_test(p);
        if (!e) return NULL;
        if (p->t != T_RP) return expected(p, "')'");
        next(p);
        return e;
    }
    default: return expected(p, "an expression");
    }
}

static const sy_expr *power(parser *p)
{
    const sy_expr *base = primary(p);
    if (!base || p->t != T_POW) return base;
    size_t off = p->tstart;
    next(p);
    size_t eoff = p->tstart;
    if (++p->depth > MAX_DEPTH) return perr(p, eoff, "%s", "expression nested too deeply");
    const sy_expr *ex = factor(p); /* right-associative, binds unary minus */
    p->depth--;
    if (!ex) return NULL;
    if (!type_int(p, base, off, "'**'")) return NULL;
    if (ex->kind != SY_EXPR_INT || fmpz_sgn(&ex->u.value) < 0)
        return perr(p, eoff, "%s", "the exponent of ** must be a non-negative integer constant");
    if (!fmpz_fits_si(&ex->u.value)) {
        sy_fail(p->ctx, SY_EQUOTA, "exponent too large");
        return cfail(p, eoff);
    }
    return CHECK(p, sy_expr_pow_ui(p->ctx, base, (uint64_t)fmpz_get_si(&ex->u.value)), off);
}

static const sy_expr *factor(parser *p)
{
    if (p->t == T_MINUS || p->t == T_PLUS) {
        bool neg = p->t == T_MINUS;
        size_t off = p->tstart;
        if (++p->depth > MAX_DEPTH) return perr(p, off, "%s", "expression nested too deeply");
        next(p);
        const sy_expr *e = factor(p);
        p->depth--;
        if (!e) return NULL;
        if (!type_int(p, e, off, neg ? "unary '-'" : "unary '+'")) return NULL;
        return neg ? CHECK(p, sy_expr_neg(p->ctx, e), off) : e;
    }
    return power(p); /* a parenthesis or call inside counts once, in or_test */
}

/* A growable operand list for the n-ary constructors (context allocator). */
typedef struct {
    const sy_expr **v;
    size_t n, cap;
    const sy_expr *inl[16];
} oplist;

static void ops_init(oplist *o)
{
    o->v = o->inl;
    o->n = 0;
    o->cap = 16;
}
static void ops_clear(parser *p, oplist *o)
{
    if (o->v != o->inl) sy_dealloc(p->ctx, o->v, o->cap * sizeof *o->v);
    ops_init(o);
}
static bool ops_push(parser *p, oplist *o, const sy_expr *e, size_t off)
{
    if (o->n == o->cap) {
        size_t nc = o->cap * 2;
        const sy_expr **nv = sy_alloc(p->ctx, nc * sizeof *nv);
        if (!nv) {
            sy_oom(p->ctx);
            cfail(p, off);
            return false;
        }
        memcpy(nv, o->v, o->n * sizeof *nv);
        if (o->v != o->inl) sy_dealloc(p->ctx, o->v, o->cap * sizeof *o->v);
        o->v = nv;
        o->cap = nc;
    }
    o->v[o->n++] = e;
    return true;
}

/* term := factor (('*' | '//' | '%') factor)*, left-associative. A run of '*'
 * is built by one n-ary product (sy_expr_mul_n), not by n binary products;
 * a failure in it is reported at the run's first '*'. */
static const sy_expr *term(parser *p)
{
    const sy_expr *e = factor(p);
    if (!e) return NULL;
    oplist run;
    ops_init(&run);
    size_t run_off = 0;
    bool ok = ops_push(p, &run, e, p->tstart);
    while (ok && (p->t == T_STAR || p->t == T_FDIV || p->t == T_MOD)) {
        tok op = p->t;
        size_t off = p->tstart;
        next(p);
        const sy_expr *r = factor(p);
        if (!r) {
            ok = false;
            break;
        }
        const char *opn = op == T_STAR ? "'*'" : op == T_FDIV ? "'//'" : "'%'";
        if (!type_int(p, run.v[run.n - 1], off, opn) || !type_int(p, r, off, opn)) {
            ok = false;
            break;
        }
        if (op == T_STAR) {
            if (run.n == 1) run_off = off;
            ok = ops_push(p, &run, r, off);
            continue;
        }
        const sy_expr *l = run.n == 1 ? run.v[0] : CHECK(p, sy_expr_mul_n(p->ctx, run.n, run.v), run_off);
        if (!l) {
            ok = false;
            break;
        }
        l = op == T_FDIV ? sy_expr_floordiv(p->ctx, l, r) : sy_expr_mod(p->ctx, l, r);
        l = CHECK(p, l, off);
        run.n = 0;
        ok = l && ops_push(p, &run, l, off);
    }
    e = !ok ? NULL : run.n == 1 ? run.v[0] : CHECK(p, sy_expr_mul_n(p->ctx, run.n, run.v), run_off);
    ops_clear(p, &run);
    return e;
}

static const sy_expr *arith(parser *p)
{
    size_t off0 = p->tstart;
    const sy_expr *e = term(p);
    if (!e || (p->t != T_PLUS && p->t != T_MINUS)) return e;
    if (!type_int(p, e, off0, "'+'")) return NULL;
    /* n-ary: collect every operand into one term list */
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t one, mone;
    fmpz_init_set_si(one, 1);
    fmpz_init_set_si(mone, -1);
    if (!sy_terms_add_expr(p->ctx, &ts, one, e)) goto fail_c;
    while (p->t == T_PLUS || p->t == T_MINUS) {
        bool minus = p->t == T_MINUS;
        size_t off = p->tstart;
        next(p);
        const sy_expr *r = term(p);
        if (!r) goto fail;
        if (!type_int(p, r, off, minus ? "'-'" : "'+'")) goto fail;
        if (!sy_terms_add_expr(p->ctx, &ts, minus ? mone : one, r)) {
            off0 = off;
            goto fail_c;
        }
    }
    e = sy_terms_build(p->ctx, &ts);
    sy_terms_clear(p->ctx, &ts);
    return CHECK(p, e, off0);
fail_c:
    sy_terms_clear(p->ctx, &ts);
    return cfail(p, off0);
fail:
    sy_terms_clear(p->ctx, &ts);
    return NULL;
}

static bool is_cmp(tok t) { return t >= T_EQ && t <= T_GE; }

/* A chain a < b < c is the conjunction of its links, built once by
 * sy_expr_and_n (no re-sorting per link). */
static const sy_expr *comparison(parser *p)
{
    size_t off0 = p->tstart;
    const sy_expr *left = arith(p);
    if (!left || !is_cmp(p->t)) return left;
    oplist rels;
    ops_init(&rels);
    bool ok = true;
    size_t off_last = off0;
    while (ok && is_cmp(p->t)) {
        tok op = p->t;
        size_t off = p->tstart;
        next(p);
        const sy_expr *right = arith(p);
        if (!right) {
            ok = false;
            break;
        }
        if (!type_int(p, left, off0, "a comparison") || !type_int(p, right, off, "a comparison")) {
            ok = false;
            break;
        }
        sy_rel_op r = op == T_EQ ? SY_REL_EQ : op == T_NE ? SY_REL_NE : op == T_LT ? SY_REL_LT
                    : op == T_LE ? SY_REL_LE : op == T_GT ? SY_REL_GT : SY_REL_GE;
        const sy_expr *rel = CHECK(p, sy_expr_rel(p->ctx, r, left, right), off);
        ok = rel && ops_push(p, &rels, rel, off);
        left = right;
        off0 = off;
        off_last = off;
    }
    const sy_expr *acc = !ok ? NULL : rels.n == 1 ? rels.v[0] : CHECK(p, sy_expr_and_n(p->ctx, rels.n, rels.v), off_last);
    ops_clear(p, &rels);
    return acc;
}

static const sy_expr *not_test(parser *p)
{
    if (p->t == T_NOT) {
        size_t off = p->tstart;
        if (++p->depth > MAX_DEPTH) return perr(p, off, "%s", "expression nested too deeply");
        next(p);
        const sy_expr *e = not_test(p);
        p->depth--;
        if (!e) return NULL;
        if (!type_bool(p, e, off, "'not'")) return NULL;
        return CHECK(p, sy_expr_not(p->ctx, e), off);
    }
    return comparison(p);
}

/* and/or: every operand of a run is collected and the connective built once
 * (sy_expr_and_n / sy_expr_or_n), not re-sorted per binary step. */
static const sy_expr *and_test(parser *p)
{
    size_t off0 = p->tstart;
    const sy_expr *e = not_test(p);
    if (!e || p->t != T_AND) return e;
    oplist v;
    ops_init(&v);
    bool ok = ops_push(p, &v, e, off0);
    size_t off_last = off0;
    while (ok && p->t == T_AND) {
        size_t off = p->tstart;
        next(p);
        const sy_expr *r = not_test(p);
        if (!r) {
            ok = false;
            break;
        }
        if (!type_bool(p, e, off0, "'and'") || !type_bool(p, r, off, "'and'")) {
            ok = false;
            break;
        }
        ok = ops_push(p, &v, r, off);
        off_last = off;
    }
    e = ok ? CHECK(p, sy_expr_and_n(p->ctx, v.n, v.v), off_last) : NULL;
    ops_clear(p, &v);
    return e;
}

static const sy_expr *or_test(parser *p)
{
    if (++p->depth > MAX_DEPTH) return perr(p, p->tstart, "%s", "expression nested too deeply");
    size_t off0 = p->tstart;
    const sy_expr *e = and_test(p);
    if (e && p->t == T_OR) {
        oplist v;
        ops_init(&v);
        bool ok = ops_push(p, &v, e, off0);
        size_t off_last = off0;
        while (ok && p->t == T_OR) {
            size_t off = p->tstart;
            next(p);
            const sy_expr *r = and_test(p);
            if (!r) {
                ok = false;
                break;
            }
            if (!type_bool(p, e, off0, "'or'") || !type_bool(p, r, off, "'or'")) {
                ok = false;
                break;
            }
            ok = ops_push(p, &v, r, off);
            off_last = off;
        }
        e = ok ? CHECK(p, sy_expr_or_n(p->ctx, v.n, v.v), off_last) : NULL;
        ops_clear(p, &v);
    }
    p->depth--;
    return e;
}

static sy_status sy_expr_parse_work(sy_ctx *ctx, const char *text, size_t len, const sy_expr **out)
{
    if (!ctx) return SY_EINVAL;
    if (!text || !out) return sy_fail_st(ctx, SY_EINVAL, "parse: NULL argument");
    *out = NULL;
    parser p = {ctx, text, len == (size_t)-1 ? strlen(text) : len, 0, T_EOF, 0, 0, 0, false};
    next(&p);
    if (p.t == T_EOF) {
        perr(&p, 0, "%s", "empty expression");
        return SY_EFORMAT;
    }
    const sy_expr *e = or_test(&p);
    if (e && p.t != T_EOF) {
        expected(&p, "an operator or end of input");
        e = NULL;
    }
    if (!e) {
        sy_status st = sy_ctx_last_error(ctx);
        return st == SY_OK ? SY_ERROR : st;
    }
    *out = e;
    return SY_OK;
}

sy_status sy_expr_parse(sy_ctx *ctx, const char *text, size_t len, const sy_expr **out)
{
    if (!ctx) return SY_EINVAL;
    sy_op_begin(ctx, true);
    sy_status st = sy_op_end_st(ctx, sy_expr_parse_work(ctx, text, len, out));
    if (st != SY_OK && out) *out = NULL; /* a spent budget fails a parse that got through */
    return st;
}
