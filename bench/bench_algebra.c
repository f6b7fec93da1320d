/* bench_algebra: construction, parsing and decision figures for symshape.
 *
 *   bench_algebra [--quick] [--corpus FILE] [--queries FILE] [--cases FILE]...
 *                 [--python PATH] [--sympy-script FILE] [--no-sympy]
 *                 [--batches N] [--reps N] [--sympy-budget SECONDS]
 *
 * 1. Construction + canonicalisation. Every expression text of the corpus
 *    (bench/algebra_corpus.txt) is compiled ONCE by a small parser in this file
 *    into a recipe: a postfix program of sy_expr_* constructor calls. A timed
 *    construction replays one recipe, so what is measured is the canonicalising
 *    constructors, not a parser. "cold": a fresh context per batch (one pass
 *    over the corpus), so nodes are really created and interned; "warm": the
 *    same expressions again in a context that already holds them. cold/warm
 *    recipes have integer-only sub-expressions folded at compile time, as
 *    Python folds them before sympy sees them; "as-written" recipes send every
 *    constant through the constructors too. The same texts through
 *    sy_expr_parse are timed as well. Each recipe is checked once to give the
 *    very node sy_expr_parse gives.
 * 2. Decisions. sy_decide / sy_bound over recorded queries
 *    (bench/algebra_queries.txt) and over every decide/bound line of the case
 *    files; per query a fresh context and fact set, then the first call and
 *    repeated calls are timed; the layer counters come from sy_facts_get_stats
 *    after the first call.
 * 3. sympy. When a python3 that can `import sympy` is found, sympy_bench.py
 *    builds the same corpus with sympy and its figures are printed beside
 *    symshape's with the ratio.
 *
 * Figures are nanoseconds (construction) or microseconds (decisions) per
 * call, measured one call at a time with CLOCK_MONOTONIC; the median cost of
 * an empty timed region is subtracted. Percentiles are nearest-rank. The
 * program never aborts: every failure is reported and counted.
 *
 * Length (about 1,640 lines, over the tree's 1,200): one self-contained
 * program (its own corpus parser and SymPy driver), not part of the library. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <symshape/symshape.h>

#ifndef SY_BENCH_DIR
#define SY_BENCH_DIR "bench"
#endif
#ifndef SY_CASES_DIR
#define SY_CASES_DIR "tests/algebra"
#endif
#ifndef SY_BENCH_PYTHON
#define SY_BENCH_PYTHON ""
#endif

#define MAX_STACK 64
#define MAX_SYMS 64
#define MAX_CATS 32
#define MAX_NARY 16
#define MAX_CASE_FILES 16
#define MAX_ASSUME 32

/* ================================================================ utilities */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

typedef struct {
    int64_t *v;
    size_t n, cap;
    int oom;
} samples;

static void s_push(samples *s, int64_t x)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1024;
        int64_t *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) {
            s->oom = 1;
            return;
        }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = x;
}

static void s_free(samples *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Summary of a sample set (sorts it). Nearest-rank percentiles, the same
 * definition sympy_bench.py uses. */
typedef struct {
    size_t n;
    int64_t median, p99, max;
    double mean;
} summary;

static int64_t pct_sorted(const int64_t *v, size_t n, unsigned q)
{
    if (!n) return 0;
    size_t k = (q * n + 99) / 100;
    k = k ? k - 1 : 0;
    if (k >= n) k = n - 1;
    return v[k];
}

static summary summarize(samples *s)
{
    summary r = {0, 0, 0, 0, 0.0};
    if (!s->n) return r;
    qsort(s->v, s->n, sizeof *s->v, cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) sum += (double)s->v[i];
    r.n = s->n;
    r.median = pct_sorted(s->v, s->n, 50);
    r.p99 = pct_sorted(s->v, s->n, 99);
    r.max = s->v[s->n - 1];
    r.mean = sum / (double)s->n;
    return r;
}

/* Median cost of an empty timed region. */
static int64_t timer_overhead(void)
{
    samples s = {0};
    for (int i = 0; i < 20001; i++) {
        int64_t t0 = now_ns();
        int64_t t1 = now_ns();
        s_push(&s, t1 - t0);
    }
    summary r = summarize(&s);
    s_free(&s);
    return r.median;
}

static int64_t net(int64_t dt, int64_t overhead)
{
    dt -= overhead;
    return dt < 0 ? 0 : dt;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (n + 1 < cap) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = '\0';
    return s;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* ================================================================ recipes */

/* A recipe is a postfix program over a value stack; each op but OP_SYM is one
 * constructor call. */
enum {
    OP_INT,
    OP_SYM,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_NEG,
    OP_POW,
    OP_FLOORDIV,
    OP_MOD,
    OP_CEILDIV,
    OP_MIN,
    OP_MAX,
    OP_REL,
    OP_AND,
    OP_OR,
    OP_NOT
};

typedef struct {
    uint8_t op;
    uint8_t rel;  /* sy_rel_op for OP_REL */
    uint32_t n;   /* arity of OP_MIN/OP_MAX/OP_AND/OP_OR */
    int64_t v;    /* OP_INT value, OP_SYM index, OP_POW exponent */
} rop;

typedef struct {
    rop *ops;
    size_t nops;
    size_t calls; /* constructor calls per replay */
} recipe;

typedef struct {
    char *names[MAX_SYMS];
    size_t n;
} symtab;

typedef struct {
    const char *s;
    size_t pos;
    rop *ops;
    size_t nops, cap;
    int depth, maxdepth;
    int fold; /* fold integer-only sub-expressions, as Python does */
    symtab *syms;
    char err[200];
} rparser;

static int rp_fail(rparser *P, const char *msg)
{
    if (!P->err[0]) snprintf(P->err, sizeof P->err, "%s at offset %zu", msg, P->pos);
    return 0;
}

static int fits31(int64_t v) { return v > -(INT64_C(1) << 31) && v < (INT64_C(1) << 31); }

static int64_t py_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t py_mod(int64_t a, int64_t b)
{
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

/* The op just emitted, if all its operands are integer literals, is replaced
 * by its value: what Python does with `2*3 - 1*(7 - 1)` before sympy sees it.
 * Only operations Python performs on ints are folded (not Min/Max/relations,
 * which are sympy calls there too). */
static void rp_fold(rparser *P)
{
    rop *o = &P->ops[P->nops - 1];
    size_t nin;
    switch (o->op) {
    case OP_NEG:
    case OP_POW: nin = 1; break;
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_FLOORDIV:
    case OP_MOD:
    case OP_CEILDIV: nin = 2; break;
    default: return;
    }
    if (P->nops < nin + 1) return;
    const rop *in = o - nin;
    for (size_t i = 0; i < nin; i++)
        if (in[i].op != OP_INT || !fits31(in[i].v)) return;
    int64_t a = in[0].v, b = nin > 1 ? in[1].v : 0, r;
    switch (o->op) {
    case OP_NEG: r = -a; break;
    case OP_POW:
        r = 1;
        for (int64_t k = 0; k < o->v; k++) {
            r *= a;
            if (!fits31(r)) return;
        }
        break;
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_FLOORDIV:
        if (!b) return;
        r = py_floordiv(a, b);
        break;
    case OP_MOD:
        if (!b) return;
        r = py_mod(a, b);
        break;
    default: /* OP_CEILDIV */
        if (!b) return;
        r = -py_floordiv(-a, b);
        break;
    }
    P->nops -= nin + 1;
    P->ops[P->nops++] = (rop){OP_INT, 0, 0, r};
}

static int rp_emit(rparser *P, int op, int rel, uint32_t n, int64_t v, int delta)
{
    if (P->nops == P->cap) {
        size_t nc = P->cap ? 2 * P->cap : 32;
        rop *no = realloc(P->ops, nc * sizeof *no);
        if (!no) return rp_fail(P, "out of memory");
        P->ops = no;
        P->cap = nc;
    }
    P->ops[P->nops++] = (rop){(uint8_t)op, (uint8_t)rel, n, v};
    P->depth += delta;
    if (P->depth > P->maxdepth) P->maxdepth = P->depth;
    if (P->maxdepth > MAX_STACK) return rp_fail(P, "expression too deep for the recipe stack");
    if (P->fold) rp_fold(P);
    return 1;
}

static void rp_skip(rparser *P)
{
    while (P->s[P->pos] == ' ' || P->s[P->pos] == '\t') P->pos++;
}

/* Consume @p tok if it comes next (after blanks). "*" does not match "**",
 * "<" does not match "<=" and so on. */
static int rp_accept(rparser *P, const char *tok)
{
    rp_skip(P);
    size_t n = strlen(tok);
    if (strncmp(P->s + P->pos, tok, n) != 0) return 0;
    char next = P->s[P->pos + n];
    if ((!strcmp(tok, "*") && next == '*') || (!strcmp(tok, "/") && next == '/') ||
        ((!strcmp(tok, "<") || !strcmp(tok, ">") || !strcmp(tok, "=")) && next == '='))
        return 0;
    P->pos += n;
    return 1;
}

static int is_ident0(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int rp_cmp(rparser *P);

static const struct {
    const char *name;
    int op, rel;
    unsigned min_args, max_args;
} FUNCS[] = {
    {"FloorDiv", OP_FLOORDIV, 0, 2, 2}, {"CeilDiv", OP_CEILDIV, 0, 2, 2},   {"Mod", OP_MOD, 0, 2, 2},
    {"Min", OP_MIN, 0, 1, MAX_NARY},    {"Max", OP_MAX, 0, 1, MAX_NARY},    {"Eq", OP_REL, SY_REL_EQ, 2, 2},
    {"Ne", OP_REL, SY_REL_NE, 2, 2},    {"Lt", OP_REL, SY_REL_LT, 2, 2},    {"Le", OP_REL, SY_REL_LE, 2, 2},
    {"Gt", OP_REL, SY_REL_GT, 2, 2},    {"Ge", OP_REL, SY_REL_GE, 2, 2},    {"And", OP_AND, 0, 1, MAX_NARY},
    {"Or", OP_OR, 0, 1, MAX_NARY},      {"Not", OP_NOT, 0, 1, 1},
};

static int rp_atom(rparser *P)
{
    rp_skip(P);
    char c = P->s[P->pos];
    if (is_digit(c)) {
        int64_t v = 0;
        while (is_digit(P->s[P->pos])) {
            int d = P->s[P->pos] - '0';
            if (v > (INT64_MAX - d) / 10) return rp_fail(P, "integer too large for a recipe");
            v = v * 10 + d;
            P->pos++;
        }
        return rp_emit(P, OP_INT, 0, 0, v, +1);
    }
    if (is_ident0(c)) {
        size_t start = P->pos;
        while (is_ident0(P->s[P->pos]) || is_digit(P->s[P->pos])) P->pos++;
        size_t len = P->pos - start;
        char name[64];
        if (len >= sizeof name) return rp_fail(P, "name too long");
        memcpy(name, P->s + start, len);
        name[len] = '\0';
        if (rp_accept(P, "(")) {
            size_t f;
            for (f = 0; f < sizeof FUNCS / sizeof FUNCS[0]; f++)
                if (!strcmp(FUNCS[f].name, name)) break;
            if (f == sizeof FUNCS / sizeof FUNCS[0]) return rp_fail(P, "unknown function");
            unsigned nargs = 0;
            if (!rp_accept(P, ")")) {
                do {
                    if (!rp_cmp(P)) return 0;
                    nargs++;
                } while (rp_accept(P, ","));
                if (!rp_accept(P, ")")) return rp_fail(P, "expected ')'");
            }
            if (nargs < FUNCS[f].min_args || nargs > FUNCS[f].max_args) return rp_fail(P, "wrong number of arguments");
            int delta = 1 - (int)nargs;
            return rp_emit(P, FUNCS[f].op, FUNCS[f].rel, nargs, 0, delta);
        }
        for (size_t f = 0; f < sizeof FUNCS / sizeof FUNCS[0]; f++)
            if (!strcmp(FUNCS[f].name, name)) return rp_fail(P, "function name used as a symbol");
        size_t k;
        for (k = 0; k < P->syms->n; k++)
            if (!strcmp(P->syms->names[k], name)) break;
        if (k == P->syms->n) {
            if (k == MAX_SYMS) return rp_fail(P, "too many symbols");
            if (!(P->syms->names[k] = xstrdup(name))) return rp_fail(P, "out of memory");
            P->syms->n++;
        }
        return rp_emit(P, OP_SYM, 0, 0, (int64_t)k, +1);
    }
    if (rp_accept(P, "(")) {
        if (!rp_cmp(P)) return 0;
        if (!rp_accept(P, ")")) return rp_fail(P, "expected ')'");
        return 1;
    }
    return rp_fail(P, "expected a number, a name or '('");
}

static int rp_unary(rparser *P);

static int rp_power(rparser *P)
{
    if (!rp_atom(P)) return 0;
    if (rp_accept(P, "**")) {
        rp_skip(P);
        if (!is_digit(P->s[P->pos])) return rp_fail(P, "a recipe exponent must be a non-negative integer literal");
        int64_t k = 0;
        while (is_digit(P->s[P->pos])) {
            k = k * 10 + (P->s[P->pos] - '0');
            if (k > 1000000) return rp_fail(P, "exponent too large");
            P->pos++;
        }
        return rp_emit(P, OP_POW, 0, 0, k, 0);
    }
    return 1;
}

static int rp_unary(rparser *P)
{
    if (rp_accept(P, "-")) return rp_unary(P) && rp_emit(P, OP_NEG, 0, 0, 0, 0);
    if (rp_accept(P, "+")) return rp_unary(P);
    return rp_power(P);
}

static int rp_term(rparser *P)
{
    if (!rp_unary(P)) return 0;
    for (;;) {
        int op;
        if (rp_accept(P, "*")) op = OP_MUL;
        else if (rp_accept(P, "//")) op = OP_FLOORDIV;
        else if (rp_accept(P, "%")) op = OP_MOD;
        else if (rp_accept(P, "/")) return rp_fail(P, "true division '/' is not an integer operation");
        else return 1;
        if (!rp_unary(P) || !rp_emit(P, op, 0, 0, 0, -1)) return 0;
    }
}

static int rp_arith(rparser *P)
{
    if (!rp_term(P)) return 0;
    for (;;) {
        int op;
        if (rp_accept(P, "+")) op = OP_ADD;
        else if (rp_accept(P, "-")) op = OP_SUB;
        else return 1;
        if (!rp_term(P) || !rp_emit(P, op, 0, 0, 0, -1)) return 0;
    }
}

static int rp_relop(rparser *P, int *rel)
{
    if (rp_accept(P, "==")) *rel = SY_REL_EQ;
    else if (rp_accept(P, "!=")) *rel = SY_REL_NE;
    else if (rp_accept(P, "<=")) *rel = SY_REL_LE;
    else if (rp_accept(P, ">=")) *rel = SY_REL_GE;
    else if (rp_accept(P, "<")) *rel = SY_REL_LT;
    else if (rp_accept(P, ">")) *rel = SY_REL_GT;
    else return 0;
    return 1;
}

static int rp_cmp(rparser *P)
{
    if (!rp_arith(P)) return 0;
    int rel;
    if (!rp_relop(P, &rel)) return 1;
    if (!rp_arith(P) || !rp_emit(P, OP_REL, rel, 0, 0, -1)) return 0;
    if (rp_relop(P, &rel)) return rp_fail(P, "chained comparisons are not in the recipe language");
    return 1;
}

/* Compile @p text into @p out; @p fold: fold integer-only sub-expressions.
 * Returns 1, or 0 with a message in err. */
static int recipe_compile(const char *text, symtab *syms, int fold, recipe *out, char *err, size_t errlen)
{
    rparser P;
    memset(&P, 0, sizeof P);
    P.s = text;
    P.fold = fold;
    P.syms = syms;
    int ok = rp_cmp(&P);
    rp_skip(&P);
    if (ok && P.s[P.pos]) ok = rp_fail(&P, "unexpected text");
    if (ok && P.depth != 1) ok = rp_fail(&P, "internal: unbalanced recipe");
    if (!ok) {
        snprintf(err, errlen, "%s", P.err);
        free(P.ops);
        return 0;
    }
    out->ops = P.ops;
    out->nops = P.nops;
    out->calls = 0;
    for (size_t i = 0; i < P.nops; i++)
        if (P.ops[i].op != OP_SYM) out->calls++;
    return 1;
}

static int any_null(const sy_expr *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!v[i]) return 1;
    return 0;
}

/* Replay a recipe: one canonicalising constructor call per op. The recipe's
 * stack depth was checked at compile time. NULL on failure (the context holds
 * the error); constructors propagate NULL operands. */
static const sy_expr *recipe_run(sy_ctx *ctx, const recipe *r, const sy_expr *const *symv)
{
    const sy_expr *st[MAX_STACK];
    size_t sp = 0;
    for (size_t i = 0; i < r->nops; i++) {
        const rop *o = &r->ops[i];
        const sy_expr **a;
        switch (o->op) {
        case OP_INT: st[sp++] = sy_expr_int_si(ctx, o->v); break;
        case OP_SYM: st[sp++] = symv[o->v]; break;
        case OP_ADD: sp--; st[sp - 1] = sy_expr_add(ctx, st[sp - 1], st[sp]); break;
        case OP_SUB: sp--; st[sp - 1] = sy_expr_sub(ctx, st[sp - 1], st[sp]); break;
        case OP_MUL: sp--; st[sp - 1] = sy_expr_mul(ctx, st[sp - 1], st[sp]); break;
        case OP_NEG: st[sp - 1] = sy_expr_neg(ctx, st[sp - 1]); break;
        case OP_POW: st[sp - 1] = sy_expr_pow_ui(ctx, st[sp - 1], (uint64_t)o->v); break;
        case OP_FLOORDIV: sp--; st[sp - 1] = sy_expr_floordiv(ctx, st[sp - 1], st[sp]); break;
        case OP_MOD: sp--; st[sp - 1] = sy_expr_mod(ctx, st[sp - 1], st[sp]); break;
        case OP_CEILDIV: sp--; st[sp - 1] = sy_expr_ceildiv(ctx, st[sp - 1], st[sp]); break;
        case OP_REL: sp--; st[sp - 1] = sy_expr_rel(ctx, (sy_rel_op)o->rel, st[sp - 1], st[sp]); break;
        case OP_NOT: st[sp - 1] = sy_expr_not(ctx, st[sp - 1]); break;
        case OP_MIN:
        case OP_MAX:
        case OP_AND:
        case OP_OR:
            sp -= o->n;
            a = &st[sp];
            if (any_null(a, o->n)) {
                st[sp++] = NULL;
                break;
            }
            if (o->n == 2) {
                st[sp] = o->op == OP_MIN   ? sy_expr_min(ctx, a[0], a[1])
                         : o->op == OP_MAX ? sy_expr_max(ctx, a[0], a[1])
                         : o->op == OP_AND ? sy_expr_and(ctx, a[0], a[1])
                                           : sy_expr_or(ctx, a[0], a[1]);
            } else {
                st[sp] = o->op == OP_MIN   ? sy_expr_min_n(ctx, o->n, a)
                         : o->op == OP_MAX ? sy_expr_max_n(ctx, o->n, a)
                         : o->op == OP_AND ? sy_expr_and_n(ctx, o->n, a)
                                           : sy_expr_or_n(ctx, o->n, a);
            }
            sp++;
            break;
        default: return NULL;
        }
    }
    return sp == 1 ? st[0] : NULL;
}

/* ================================================================ corpus */

typedef struct {
    char *text;
    size_t len;
    int cat;
    recipe r;      /* as written: every constant through the constructors */
    recipe rf;     /* integer sub-expressions folded first (as Python does) */
    samples cold;  /* cold samples of rf, for the slowest-expressions list */
    int live;      /* compiled, built and checked: part of the timed set */
} item;

typedef struct {
    item *items;
    size_t n;
    char *cats[MAX_CATS];
    size_t ncats;
    symtab syms;
} corpus;

static int corpus_load(const char *path, corpus *C)
{
    size_t len;
    char *buf = read_file(path, &len);
    if (!buf) {
        printf("error: cannot read corpus %s: %s\n", path, strerror(errno));
        return 0;
    }
    int cat = -1, ok = 1;
    size_t cap = 0;
    for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line && ok; line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        line = trim(line);
        if (!*line) continue;
        size_t n = strlen(line);
        if (line[0] == '[' && line[n - 1] == ']') {
            line[n - 1] = '\0';
            if (C->ncats == MAX_CATS) {
                printf("error: corpus: too many categories\n");
                ok = 0;
                break;
            }
            if (!(C->cats[C->ncats] = xstrdup(trim(line + 1)))) ok = 0;
            cat = (int)C->ncats++;
            continue;
        }
        if (cat < 0) {
            if (C->ncats == MAX_CATS || !(C->cats[C->ncats] = xstrdup("misc"))) {
                ok = 0;
                break;
            }
            cat = (int)C->ncats++;
        }
        if (C->n == cap) {
            size_t nc = cap ? 2 * cap : 128;
            item *ni = realloc(C->items, nc * sizeof *ni);
            if (!ni) {
                ok = 0;
                break;
            }
            C->items = ni;
            cap = nc;
        }
        item *it = &C->items[C->n];
        memset(it, 0, sizeof *it);
        if (!(it->text = xstrdup(line))) {
            ok = 0;
            break;
        }
        it->len = n;
        it->cat = cat;
        C->n++;
    }
    free(buf);
    if (!ok) printf("error: corpus %s: out of memory or malformed\n", path);
    return ok;
}

static void corpus_free(corpus *C)
{
    for (size_t i = 0; i < C->n; i++) {
        free(C->items[i].text);
        free(C->items[i].r.ops);
        free(C->items[i].rf.ops);
        s_free(&C->items[i].cold);
    }
    free(C->items);
    for (size_t i = 0; i < C->ncats; i++) free(C->cats[i]);
    for (size_t i = 0; i < C->syms.n; i++) free(C->syms.names[i]);
    memset(C, 0, sizeof *C);
}

/* Create the corpus symbols in @p ctx (not timed). */
static int make_symbols(sy_ctx *ctx, const symtab *T, const sy_expr **symv)
{
    for (size_t k = 0; k < T->n; k++)
        if (!(symv[k] = sy_expr_sym(ctx, T->names[k]))) return 0;
    return 1;
}

/* ================================================================ construction */

/* PH_COLD / PH_WARM replay the folded recipes (the same symbolic work sympy
 * does); PH_RAW_COLD the recipes as written; PH_PARSE_* run sy_expr_parse. */
enum { PH_COLD, PH_WARM, PH_RAW_COLD, PH_PARSE_COLD, PH_PARSE_WARM, NPHASES };
static const char *const PHASE_NAME[NPHASES] = {"cold", "warm", "as-written cold", "parse cold", "parse warm"};

typedef struct {
    samples s[NPHASES][MAX_CATS + 1]; /* [phase][cat], index ncats = ALL */
    summary sum[NPHASES][MAX_CATS + 1];
    size_t exprs_per_cat[MAX_CATS + 1];
    double calls_per_cat[MAX_CATS + 1], raw_calls_per_cat[MAX_CATS + 1];
    size_t errors[NPHASES];
    sy_ctx_stats base_stats, cold_stats, parse_stats; /* empty context + symbols; after one batch */
    size_t warm_nodes_before, warm_nodes_after;
    int64_t cold_batch_total_ns, raw_batch_total_ns;
    long batches;
    size_t live, total_calls, total_raw_calls;
} cons_result;

/* One pass over the corpus in @p ctx, timing each expression. */
static void timed_pass(cons_result *R, corpus *C, sy_ctx *ctx, const sy_expr *const *symv, int ph, int64_t oh,
                       int64_t *total)
{
    for (size_t i = 0; i < C->n; i++) {
        item *it = &C->items[i];
        if (!it->live) continue;
        const sy_expr *e = NULL;
        int64_t t0 = now_ns();
        switch (ph) {
        case PH_COLD:
        case PH_WARM: e = recipe_run(ctx, &it->rf, symv); break;
        case PH_RAW_COLD: e = recipe_run(ctx, &it->r, symv); break;
        default:
            if (sy_expr_parse(ctx, it->text, it->len, &e) != SY_OK) e = NULL;
            break;
        }
        int64_t t1 = now_ns();
        if (!e) {
            R->errors[ph]++;
            sy_ctx_reset_error(ctx);
            continue;
        }
        if (total) *total += t1 - t0;
        int64_t dt = net(t1 - t0, oh);
        s_push(&R->s[ph][it->cat], dt);
        s_push(&R->s[ph][C->ncats], dt);
        if (ph == PH_COLD) s_push(&it->cold, dt);
    }
}

/* Compile every text (as written and folded), build it once, compare with
 * sy_expr_parse: both recipes must give the very node the parser gives. */
static void check_corpus(corpus *C, size_t *mismatches)
{
    *mismatches = 0;
    sy_ctx *ctx = NULL;
    const sy_expr *symv[MAX_SYMS];
    for (size_t i = 0; i < C->n; i++) {
        item *it = &C->items[i];
        char err[200];
        if (!recipe_compile(it->text, &C->syms, 0, &it->r, err, sizeof err) ||
            !recipe_compile(it->text, &C->syms, 1, &it->rf, err, sizeof err)) {
            printf("  skipped (recipe): %s: %s\n", it->text, err);
            continue;
        }
        it->live = 1;
    }
    if (sy_ctx_new(NULL, &ctx) != SY_OK || !make_symbols(ctx, &C->syms, symv)) {
        printf("error: cannot create a context and the symbols: %s\n", ctx ? sy_ctx_last_error_msg(ctx) : "");
        for (size_t i = 0; i < C->n; i++) C->items[i].live = 0;
        sy_ctx_free(ctx);
        return;
    }
    for (size_t i = 0; i < C->n; i++) {
        item *it = &C->items[i];
        if (!it->live) continue;
        const sy_expr *a = recipe_run(ctx, &it->r, symv), *af = a ? recipe_run(ctx, &it->rf, symv) : NULL;
        if (!a || !af) {
            printf("  skipped (constructors failed: %s): %s\n", sy_ctx_last_error_msg(ctx), it->text);
            sy_ctx_reset_error(ctx);
            it->live = 0;
            continue;
        }
        const sy_expr *b = NULL;
        if (sy_expr_parse(ctx, it->text, it->len, &b) != SY_OK) {
            printf("  skipped (sy_expr_parse failed: %s): %s\n", sy_ctx_last_error_msg(ctx), it->text);
            sy_ctx_reset_error(ctx);
            it->live = 0;
            continue;
        }
        if (a != b || af != b) {
            const sy_expr *bad = a != b ? a : af;
            char *pa = sy_expr_print(ctx, bad, SY_PRINT_CANONICAL), *pb = sy_expr_print(ctx, b, SY_PRINT_CANONICAL);
            printf("  MISMATCH %s recipe gives %s, sy_expr_parse %s, for %s\n", a != b ? "as-written" : "folded",
                   pa ? pa : "?", pb ? pb : "?", it->text);
            sy_str_free(ctx, pa);
            sy_str_free(ctx, pb);
            (*mismatches)++;
        }
    }
    sy_ctx_free(ctx);
}

/* Build every live expression once in @p ctx (not timed). */
static void fill(sy_ctx *ctx, const corpus *C, const sy_expr *const *symv)
{
    for (size_t i = 0; i < C->n; i++)
        if (C->items[i].live && !recipe_run(ctx, &C->items[i].rf, symv)) sy_ctx_reset_error(ctx);
}

static int bench_construction(corpus *C, long batches, int64_t oh, cons_result *R)
{
    const sy_expr *symv[MAX_SYMS];
    sy_ctx *ctx = NULL;
    R->batches = batches;
    for (size_t i = 0; i < C->n; i++) {
        const item *it = &C->items[i];
        if (!it->live) continue;
        R->live++;
        R->total_calls += it->rf.calls;
        R->total_raw_calls += it->r.calls;
        for (int k = 0; k < 2; k++) {
            size_t c = k ? C->ncats : (size_t)it->cat;
            R->exprs_per_cat[c]++;
            R->calls_per_cat[c] += (double)it->rf.calls;
            R->raw_calls_per_cat[c] += (double)it->r.calls;
        }
    }
    if (!R->live) return 0;

    /* warm-up (instruction and data caches, page faults, branch predictors) */
    for (int w = 0; w < 3; w++) {
        if (sy_ctx_new(NULL, &ctx) != SY_OK) return 0;
        if (make_symbols(ctx, &C->syms, symv)) fill(ctx, C, symv);
        ctx = sy_ctx_free(ctx);
    }

    /* cold: a fresh context per batch; the phases interleave batch by batch
     * so that drifts of the machine hit them alike */
    static const int cold_phases[3] = {PH_COLD, PH_RAW_COLD, PH_PARSE_COLD};
    for (long b = 0; b < batches; b++)
        for (int pi = 0; pi < 3; pi++) {
            int ph = cold_phases[pi];
            if (sy_ctx_new(NULL, &ctx) != SY_OK) {
                printf("error: sy_ctx_new failed\n");
                return 0;
            }
            if (!make_symbols(ctx, &C->syms, symv)) {
                printf("error: cannot create symbols: %s\n", sy_ctx_last_error_msg(ctx));
                sy_ctx_free(ctx);
                return 0;
            }
            if (b == 0 && ph == PH_COLD) sy_ctx_get_stats(ctx, &R->base_stats);
            timed_pass(R, C, ctx, symv, ph, oh,
                       ph == PH_COLD ? &R->cold_batch_total_ns : ph == PH_RAW_COLD ? &R->raw_batch_total_ns : NULL);
            if (b == 0 && ph == PH_COLD) sy_ctx_get_stats(ctx, &R->cold_stats);
            if (b == 0 && ph == PH_PARSE_COLD) sy_ctx_get_stats(ctx, &R->parse_stats);
            ctx = sy_ctx_free(ctx);
        }

    /* warm: everything already interned */
    static const int warm_phases[2] = {PH_WARM, PH_PARSE_WARM};
    for (int pi = 0; pi < 2; pi++) {
        int ph = warm_phases[pi];
        if (sy_ctx_new(NULL, &ctx) != SY_OK) return 0;
        if (!make_symbols(ctx, &C->syms, symv)) {
            sy_ctx_free(ctx);
            return 0;
        }
        fill(ctx, C, symv);
        sy_ctx_stats st;
        sy_ctx_get_stats(ctx, &st);
        if (ph == PH_WARM) R->warm_nodes_before = st.nodes;
        for (long b = 0; b < batches; b++) timed_pass(R, C, ctx, symv, ph, oh, NULL);
        sy_ctx_get_stats(ctx, &st);
        if (ph == PH_WARM) R->warm_nodes_after = st.nodes;
        ctx = sy_ctx_free(ctx);
    }

    for (int ph = 0; ph < NPHASES; ph++)
        for (size_t c = 0; c <= C->ncats; c++) {
            if (R->s[ph][c].oom) {
                printf("error: out of memory recording samples\n");
                return 0;
            }
            R->sum[ph][c] = summarize(&R->s[ph][c]);
        }
    return 1;
}

static void print_construction(corpus *C, const cons_result *R, int64_t oh)
{
    printf("\n== Construction + canonicalisation: %zu expressions x %ld batches ==\n", R->live, R->batches);
    printf("ns per expression, one sy_expr_* call per recipe op; cold = fresh context per batch,\n"
           "warm = already interned; timer overhead %" PRId64 " ns subtracted.\n"
           "cold/warm: integer-only sub-expressions folded first, as Python folds them before sympy\n"
           "sees them (same symbolic work as the sympy column below); as-written: every constant\n"
           "through the constructors too. calls = constructor calls per expression.\n\n",
           oh);
    printf("%-10s %5s | %5s %8s %8s | %8s %8s | %5s %8s %8s | %8s %8s | %8s\n", "", "", "calls", "cold", "",
           "warm", "", "calls", "as-writ.", "", "parse", "", "parse");
    printf("%-10s %5s | %5s %8s %8s | %8s %8s | %5s %8s %8s | %8s %8s | %8s\n", "category", "exprs", "", "median",
           "p99", "median", "p99", "", "median", "p99", "cold med", "p99", "warm med");
    for (size_t c = 0; c <= C->ncats; c++) {
        if (!R->exprs_per_cat[c]) continue;
        if (c == C->ncats)
            printf("-----------------+------------------------+-------------------+------------------------+"
                   "-------------------+---------\n");
        double ne = (double)R->exprs_per_cat[c];
        printf("%-10s %5zu | %5.1f %8" PRId64 " %8" PRId64 " | %8" PRId64 " %8" PRId64 " | %5.1f %8" PRId64
               " %8" PRId64 " | %8" PRId64 " %8" PRId64 " | %8" PRId64 "\n",
               c < C->ncats ? C->cats[c] : "ALL", R->exprs_per_cat[c], R->calls_per_cat[c] / ne,
               R->sum[PH_COLD][c].median, R->sum[PH_COLD][c].p99, R->sum[PH_WARM][c].median, R->sum[PH_WARM][c].p99,
               R->raw_calls_per_cat[c] / ne, R->sum[PH_RAW_COLD][c].median, R->sum[PH_RAW_COLD][c].p99,
               R->sum[PH_PARSE_COLD][c].median, R->sum[PH_PARSE_COLD][c].p99, R->sum[PH_PARSE_WARM][c].median);
    }
    const summary *all = R->sum[PH_COLD] + C->ncats;
    printf("\ncold: mean %.0f ns per expression, %.1f ns per constructor call (batch time / calls);\n"
           "as-written cold: %.1f ns per constructor call\n",
           all->mean, (double)R->cold_batch_total_ns / (double)R->batches / (double)R->total_calls,
           (double)R->raw_batch_total_ns / (double)R->batches / (double)R->total_raw_calls);
    printf("errors:");
    for (int ph = 0; ph < NPHASES; ph++) printf("%s %s %zu", ph ? "," : "", PHASE_NAME[ph], R->errors[ph]);
    printf("\n");

    /* slowest expressions by cold median */
    int64_t *med = malloc(C->n * sizeof *med);
    if (med) {
        for (size_t i = 0; i < C->n; i++) {
            item *it = &C->items[i];
            med[i] = it->live && it->cold.n ? summarize(&it->cold).median : -1;
        }
        printf("\nslowest expressions (cold median ns, constructor calls):\n");
        for (int k = 0; k < 8; k++) {
            size_t best = 0;
            for (size_t i = 1; i < C->n; i++)
                if (med[i] > med[best]) best = i;
            if (med[best] < 0) break;
            const item *it = &C->items[best];
            printf("  %6" PRId64 "  %3zu  [%s] %.80s%s\n", med[best], it->rf.calls, C->cats[it->cat], it->text,
                   strlen(it->text) > 80 ? "..." : "");
            med[best] = -1;
        }
        free(med);
    }

    const sy_ctx_stats *s = &R->cold_stats, *b0 = &R->base_stats;
    size_t dn = s->nodes - b0->nodes, db = s->node_bytes - b0->node_bytes;
    printf("\nIntern table after one cold batch (sy_ctx_get_stats):\n");
    printf("  nodes interned   %zu by the corpus (%.1f per expression), %zu in all: a fresh context\n"
           "                   pre-interns %zu (small integers, true/false, the %zu symbols)\n",
           dn, (double)dn / (double)R->live, s->nodes, b0->nodes, s->symbols);
    printf("  bytes per node   %.1f for the corpus's nodes (%zu bytes), %.1f overall\n"
           "                   (node arena; bignum limbs excluded)\n",
           dn ? (double)db / (double)dn : 0.0, db, s->nodes ? (double)s->node_bytes / (double)s->nodes : 0.0);
    printf("  table slots      %zu; live allocator blocks %zu\n", s->table_slots, s->live_blocks);
    printf("  same texts through sy_expr_parse: %zu nodes, %zu bytes in all\n", R->parse_stats.nodes,
           R->parse_stats.node_bytes);
    printf("  warm rebuilds x %ld: nodes %zu -> %zu (%s)\n", R->batches, R->warm_nodes_before, R->warm_nodes_after,
           R->warm_nodes_before == R->warm_nodes_after ? "no growth" : "GREW");
}

/* ================================================================ decisions */

enum { Q_DECIDE, Q_BOUND };

typedef struct {
    int kind;
    char *lhs;
    char *assume[MAX_ASSUME];
    int nassume;
    char *expect; /* text after "=>", or NULL */
    int line;
} query;

typedef struct {
    char *name;
    query *q;
    size_t n;
} qset;

static void qset_free(qset *S)
{
    for (size_t i = 0; i < S->n; i++) {
        free(S->q[i].lhs);
        free(S->q[i].expect);
        for (int k = 0; k < S->q[i].nassume; k++) free(S->q[i].assume[k]);
    }
    free(S->q);
    free(S->name);
    memset(S, 0, sizeof *S);
}

/* Read the decide/bound lines of a .cases-format file:
 *   decide REL [| A; B ...] [=> ANSWER]      bound EXPR [| A; ...] [=> [LO, HI]] */
static int qset_load(const char *path, const char *name, qset *S)
{
    size_t len;
    char *buf = read_file(path, &len);
    if (!buf) {
        printf("error: cannot read %s: %s\n", path, strerror(errno));
        return 0;
    }
    S->name = xstrdup(name);
    size_t cap = 0;
    int lineno = 0, ok = S->name != NULL;
    char *p = buf;
    while (ok && *p) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        char *line = p;
        p = nl ? nl + 1 : p + strlen(p);
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        line = trim(line);
        int kind;
        if (!strncmp(line, "decide", 6) && (line[6] == ' ' || line[6] == '\t')) kind = Q_DECIDE, line += 6;
        else if (!strncmp(line, "bound", 5) && (line[5] == ' ' || line[5] == '\t')) kind = Q_BOUND, line += 5;
        else continue;
        char *arrow = NULL;
        for (char *a = strstr(line, "=>"); a; a = strstr(a + 2, "=>")) arrow = a;
        char *expect = NULL;
        if (arrow) {
            *arrow = '\0';
            expect = trim(arrow + 2);
        }
        char *bar = strchr(line, '|');
        char *assume = NULL;
        if (bar) {
            *bar = '\0';
            assume = bar + 1;
        }
        if (S->n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            query *nq = realloc(S->q, nc * sizeof *nq);
            if (!nq) {
                ok = 0;
                break;
            }
            S->q = nq;
            cap = nc;
        }
        query *q = &S->q[S->n];
        memset(q, 0, sizeof *q);
        q->kind = kind;
        q->line = lineno;
        q->lhs = xstrdup(trim(line));
        q->expect = expect && *expect ? xstrdup(expect) : NULL;
        S->n++;
        if (!q->lhs || (expect && *expect && !q->expect)) {
            ok = 0;
            break;
        }
        if (assume) {
            char *save = NULL;
            for (char *tok = strtok_r(assume, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
                tok = trim(tok);
                if (!*tok) continue;
                if (q->nassume == MAX_ASSUME) {
                    printf("warning: %s:%d: more than %d assumptions, extra ones ignored\n", name, lineno,
                           MAX_ASSUME);
                    break;
                }
                if (!(q->assume[q->nassume] = xstrdup(tok))) {
                    ok = 0;
                    break;
                }
                q->nassume++;
            }
        }
    }
    free(buf);
    if (!ok) printf("error: %s: out of memory\n", path);
    return ok;
}

typedef struct {
    samples first[2], repeat[2]; /* [kind] */
    size_t nq[2];
    sy_decide_stats layers;       /* summed after the first call of each decide query */
    size_t answers[3];            /* decide: false/true/unknown (first call) */
    size_t agree, weaker, wrong;  /* decide: vs the "=> answer" of the file */
    size_t bound_finite, bound_half, bound_open, bound_divzero;
    size_t setup_errors, call_errors;
} qresult;

static void run_query(const qset *S, const query *q, long reps, int64_t oh, qresult *R)
{
    sy_ctx *ctx = NULL;
    sy_facts *f = NULL;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) {
        R->setup_errors++;
        return;
    }
    const sy_expr *e = NULL;
    if (sy_expr_parse(ctx, q->lhs, (size_t)-1, &e) != SY_OK || sy_expr_is_bool(e) != (q->kind == Q_DECIDE)) {
        printf("  %s:%d: skipped: cannot use '%s': %s\n", S->name, q->line, q->lhs,
               e ? "wrong type" : sy_ctx_last_error_msg(ctx));
        R->setup_errors++;
        goto done;
    }
    if (!(f = sy_facts_new(ctx))) {
        R->setup_errors++;
        goto done;
    }
    for (int k = 0; k < q->nassume; k++) {
        const sy_expr *a = NULL;
        sy_status st = sy_expr_parse(ctx, q->assume[k], (size_t)-1, &a);
        if (st == SY_OK) st = sy_facts_add(f, a);
        if (st != SY_OK) {
            printf("  %s:%d: skipped: assumption '%s': %s\n", S->name, q->line, q->assume[k],
                   sy_ctx_last_error_msg(ctx));
            R->setup_errors++;
            goto done;
        }
    }
    R->nq[q->kind]++;
    for (long r = 0; r < reps; r++) {
        sy_truth t = SY_TRUTH_UNKNOWN;
        const sy_expr *lo = NULL, *hi = NULL;
        sy_status st;
        int64_t t0 = now_ns();
        if (q->kind == Q_DECIDE) st = sy_decide(f, e, &t);
        else st = sy_bound(f, e, &lo, &hi);
        int64_t t1 = now_ns();
        if (st != SY_OK && !(q->kind == Q_BOUND && st == SY_EDIVZERO)) {
            printf("  %s:%d: %s failed: %s: %s\n", S->name, q->line, q->kind == Q_DECIDE ? "decide" : "bound",
                   sy_status_name(st), sy_ctx_last_error_msg(ctx));
            R->call_errors++;
            break;
        }
        sy_ctx_reset_error(ctx);
        int64_t dt = net(t1 - t0, oh);
        s_push(r == 0 ? &R->first[q->kind] : &R->repeat[q->kind], dt);
        if (r) continue;
        if (q->kind == Q_DECIDE) {
            sy_decide_stats ds;
            sy_facts_get_stats(f, &ds);
            R->layers.queries += ds.queries;
            R->layers.by_canonical += ds.by_canonical;
            R->layers.by_interval += ds.by_interval;
            R->layers.by_simplify += ds.by_simplify;
            R->layers.by_linear += ds.by_linear;
            R->layers.unknown += ds.unknown;
            R->layers.budget_hits += ds.budget_hits;
            R->answers[t]++;
            if (q->expect) {
                int want = !strcmp(q->expect, "true") ? SY_TRUTH_TRUE
                           : !strcmp(q->expect, "false") ? SY_TRUTH_FALSE
                           : !strcmp(q->expect, "unknown") ? SY_TRUTH_UNKNOWN : -1;
                if (want < 0) continue;
                if ((int)t == want) R->agree++;
                else if (t == SY_TRUTH_UNKNOWN) R->weaker++;
                else {
                    R->wrong++;
                    printf("  %s:%d: decide %s answered %s, file says %s\n", S->name, q->line, q->lhs,
                           t == SY_TRUTH_TRUE ? "true" : "false", q->expect);
                }
            }
        } else if (st == SY_EDIVZERO) {
            R->bound_divzero++;
        } else if (lo && hi) {
            R->bound_finite++;
        } else if (lo || hi) {
            R->bound_half++;
        } else {
            R->bound_open++;
        }
    }
done:
    sy_facts_free(f);
    sy_ctx_free(ctx);
}

static void run_qset(const qset *S, long reps, int64_t oh, qresult *R)
{
    for (size_t i = 0; i < S->n; i++) run_query(S, &S->q[i], reps, oh, R);
}

static void qresult_free(qresult *R)
{
    for (int k = 0; k < 2; k++) {
        s_free(&R->first[k]);
        s_free(&R->repeat[k]);
    }
}

static void merge(samples *dst, const samples *src)
{
    for (size_t i = 0; i < src->n; i++) s_push(dst, src->v[i]);
}

static void print_qrow(const char *set, const char *kind, size_t nq, samples *first, samples *repeat)
{
    samples all = {0};
    merge(&all, first);
    merge(&all, repeat);
    summary a = summarize(&all), f = summarize(first), r = summarize(repeat);
    s_free(&all);
    printf("%-16s %-6s %5zu | %7.2f %7.2f | %7.2f %7.2f | %7.2f %7.2f %8.1f\n", set, kind, nq, f.median / 1e3,
           f.p99 / 1e3, r.median / 1e3, r.p99 / 1e3, a.median / 1e3, a.p99 / 1e3, a.max / 1e3);
}

/* ================================================================ sympy */

typedef struct {
    int have;
    char version[32], pyversion[32];
    size_t errors;
    struct {
        char cat[40];
        int64_t median, p99, n;
    } rows[2][MAX_CATS + 1];
    size_t nrows[2];
    long passes[2];
} sympy_result;

static char *shell_quote(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++) n += *p == '\'' ? 4 : 1;
    char *q = malloc(n), *o = q;
    if (!q) return NULL;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

static int python_has_sympy(const char *py)
{
    char *q = shell_quote(py);
    if (!q) return 0;
    size_t n = strlen(q) + 64;
    char *cmd = malloc(n);
    int ok = 0;
    if (cmd) {
        snprintf(cmd, n, "%s -c 'import sympy' >/dev/null 2>&1", q);
        int rc = system(cmd);
        ok = rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
    }
    free(cmd);
    free(q);
    return ok;
}

/* Value of "key=" in a token line, copied into out. */
static int token(const char *line, const char *key, char *out, size_t outlen)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p += kl) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " \n\r");
            if (n >= outlen) n = outlen - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return 1;
        }
    }
    return 0;
}

static int64_t token_i64(const char *line, const char *key)
{
    char buf[32];
    return token(line, key, buf, sizeof buf) ? strtoll(buf, NULL, 10) : -1;
}

static void run_sympy(const char *python, const char *script, const char *corpus_path, int quick, double budget,
                      sympy_result *Y)
{
    char *qp = shell_quote(python), *qs = shell_quote(script), *qc = shell_quote(corpus_path);
    size_t n = (qp ? strlen(qp) : 0) + (qs ? strlen(qs) : 0) + (qc ? strlen(qc) : 0) + 128;
    char *cmd = malloc(n);
    FILE *pp = NULL;
    if (qp && qs && qc && cmd) {
        char b[48] = "";
        if (budget > 0) snprintf(b, sizeof b, " --budget %.3f", budget);
        snprintf(cmd, n, "%s %s --corpus %s%s%s 2>&1", qp, qs, qc, quick ? " --quick" : "", b);
        fflush(stdout);
        pp = popen(cmd, "r");
    }
    if (!pp) {
        printf("sympy: cannot run %s\n", script);
    } else {
        char line[4096];
        while (fgets(line, sizeof line, pp)) {
            if (strncmp(line, "SYMPY_BENCH ", 12) != 0) {
                printf("  sympy: %s", line);
                if (!strchr(line, '\n')) putchar('\n');
                continue;
            }
            const char *body = line + 12;
            if (!strncmp(body, "info ", 5)) {
                token(body, "sympy", Y->version, sizeof Y->version);
                token(body, "python", Y->pyversion, sizeof Y->pyversion);
            } else if (!strncmp(body, "error ", 6)) {
                Y->errors++;
                printf("  sympy could not build one expression: %s", body + 6);
            } else if (!strncmp(body, "result ", 7)) {
                char phase[16], cat[40];
                if (!token(body, "phase", phase, sizeof phase) || !token(body, "cat", cat, sizeof cat)) continue;
                int ph = !strcmp(phase, "cold") ? 0 : !strcmp(phase, "warm") ? 1 : -1;
                if (ph < 0 || Y->nrows[ph] > MAX_CATS) continue;
                size_t k = Y->nrows[ph]++;
                snprintf(Y->rows[ph][k].cat, sizeof Y->rows[ph][k].cat, "%s", cat);
                Y->rows[ph][k].median = token_i64(body, "median_ns");
                Y->rows[ph][k].p99 = token_i64(body, "p99_ns");
                Y->rows[ph][k].n = token_i64(body, "n");
                Y->passes[ph] = (long)token_i64(body, "passes");
                Y->have = 1;
            } else {
                printf("  sympy: %s", body);
            }
        }
        int rc = pclose(pp);
        if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
            printf("sympy: %s exited abnormally (status %d)\n", script, rc);
        }
    }
    free(cmd);
    free(qp);
    free(qs);
    free(qc);
}

static const int64_t *sympy_row(const sympy_result *Y, int ph, const char *cat)
{
    for (size_t k = 0; k < Y->nrows[ph]; k++)
        if (!strcmp(Y->rows[ph][k].cat, cat)) return &Y->rows[ph][k].median;
    return NULL;
}

/* " SYMPY RATIO" (or just " RATIO" when !show_sympy) for the side-by-side table. */
static void print_ratio(int64_t sympy_ns, int64_t ours, int show_sympy)
{
    if (show_sympy) {
        if (sympy_ns <= 0) printf(" %9s", "-");
        else printf(" %9" PRId64, sympy_ns);
    }
    if (sympy_ns <= 0) printf(" %7s", "-");
    else if (ours <= 0) printf(" %7s", "inf");
    else printf(" %6.0fx", (double)sympy_ns / (double)ours);
}

/* ================================================================ main */

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: bench_algebra [--quick] [--batches N] [--reps N] [--corpus FILE] [--queries FILE]\n"
            "                     [--cases FILE]... [--python PATH] [--sympy-script FILE]\n"
            "                     [--sympy-budget SECONDS] [--no-sympy]\n"
            "  --quick        fewer repetitions (a few seconds)\n"
            "  --batches N    construction batches (default 1000, quick 100)\n"
            "  --reps N       calls per decide/bound query (default 200, quick 20)\n"
            "  --cases FILE   case file(s) whose decide/bound lines are timed (repeatable;\n"
            "                 default %s/algebra.cases and own.cases)\n"
            "  --python PATH  interpreter for the sympy comparison (default: $SY_BENCH_PYTHON,\n"
            "                 /usr/bin/python3, python3 - the first that can import sympy)\n",
            SY_CASES_DIR);
}

static long parse_long(const char *s, long dflt)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (errno || *end || v <= 0) ? dflt : v;
}

int main(int argc, char **argv)
{
    int quick = 0, no_sympy = 0;
    long batches = 0, reps = 0;
    double sympy_budget = 0;
    const char *corpus_path = SY_BENCH_DIR "/algebra_corpus.txt";
    const char *queries_path = SY_BENCH_DIR "/algebra_queries.txt";
    const char *script = SY_BENCH_DIR "/sympy_bench.py";
    const char *python = NULL;
    const char *cases[MAX_CASE_FILES];
    int ncases = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--no-sympy")) no_sympy = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (v && !strcmp(a, "--batches")) batches = parse_long(v, 0), i++;
        else if (v && !strcmp(a, "--reps")) reps = parse_long(v, 0), i++;
        else if (v && !strcmp(a, "--corpus")) corpus_path = v, i++;
        else if (v && !strcmp(a, "--queries")) queries_path = v, i++;
        else if (v && !strcmp(a, "--sympy-script")) script = v, i++;
        else if (v && !strcmp(a, "--python")) python = v, i++;
        else if (v && !strcmp(a, "--sympy-budget")) sympy_budget = strtod(v, NULL), i++;
        else if (v && !strcmp(a, "--cases")) {
            if (ncases < MAX_CASE_FILES) cases[ncases++] = v;
            i++;
        } else {
            fprintf(stderr, "bench_algebra: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!batches) batches = quick ? 100 : 1000;
    if (!reps) reps = quick ? 20 : 200;
    if (!ncases) {
        cases[ncases++] = SY_CASES_DIR "/algebra.cases";
        cases[ncases++] = SY_CASES_DIR "/own.cases";
    }
    int status = 0;

    printf("symshape %s bench_algebra%s\n", sy_version_string(), quick ? " (--quick)" : "");
    int64_t oh = timer_overhead();

    /* ---------------------------------------------------------- construction */
    corpus C;
    memset(&C, 0, sizeof C);
    cons_result *R = calloc(1, sizeof *R);
    size_t mismatches = 0;
    int have_cons = 0;
    if (!R) {
        printf("error: out of memory\n");
        return 1;
    }
    if (corpus_load(corpus_path, &C)) {
        check_corpus(&C, &mismatches);
        printf("corpus %s: %zu expressions, %zu categories, %zu symbols\n", corpus_path, C.n, C.ncats, C.syms.n);
        size_t live = 0;
        for (size_t i = 0; i < C.n; i++) live += (size_t)C.items[i].live;
        printf("recipes checked against sy_expr_parse: %zu/%zu give the identical node (%zu mismatches)\n",
               live - mismatches, C.n, mismatches);
        if (mismatches) status = 1;
        have_cons = bench_construction(&C, batches, oh, R);
        if (have_cons) print_construction(&C, R, oh);
        else {
            printf("error: construction benchmark did not run\n");
            status = 1;
        }
    } else {
        status = 1;
    }

    /* ---------------------------------------------------------- decisions */
    qset sets[MAX_CASE_FILES + 1];
    qresult qres[MAX_CASE_FILES + 1];
    int nsets = 0;
    memset(sets, 0, sizeof sets);
    memset(qres, 0, sizeof qres);
    if (qset_load(queries_path, "recorded", &sets[nsets])) nsets++;
    else {
        qset_free(&sets[nsets]);
        status = 1;
    }
    for (int k = 0; k < ncases; k++) {
        if (qset_load(cases[k], base_name(cases[k]), &sets[nsets])) nsets++;
        else {
            qset_free(&sets[nsets]);
            status = 1;
        }
    }
    printf("\n== Decision procedure: sy_decide / sy_bound, %ld calls per query ==\n", reps);
    printf("us per call; first = first call on a fresh context and fact set, repeat = calls 2..%ld on it\n", reps);
    for (int k = 0; k < nsets; k++) run_qset(&sets[k], reps, oh, &qres[k]);
    printf("\n%-16s %-6s %5s | %7s %7s | %7s %7s | %7s %7s %8s\n", "set", "kind", "n", "1st med", "1st p99",
           "rep med", "rep p99", "all med", "all p99", "max");
    samples tot_first[2] = {{0}}, tot_rep[2] = {{0}};
    size_t tot_n[2] = {0, 0};
    for (int k = 0; k < nsets; k++)
        for (int kind = 0; kind < 2; kind++) {
            if (!qres[k].nq[kind]) continue;
            print_qrow(sets[k].name, kind == Q_DECIDE ? "decide" : "bound", qres[k].nq[kind], &qres[k].first[kind],
                       &qres[k].repeat[kind]);
            merge(&tot_first[kind], &qres[k].first[kind]);
            merge(&tot_rep[kind], &qres[k].repeat[kind]);
            tot_n[kind] += qres[k].nq[kind];
        }
    printf("%.16s-%.6s-%.5s-+-%.7s-%.7s-+-%.7s-%.7s-+-%.7s-%.7s-%.8s\n", "----------------", "------", "-----",
           "-------", "-------", "-------", "-------", "-------", "-------", "--------");
    samples both_first = {0}, both_rep = {0};
    for (int kind = 0; kind < 2; kind++) {
        print_qrow("ALL", kind == Q_DECIDE ? "decide" : "bound", tot_n[kind], &tot_first[kind], &tot_rep[kind]);
        merge(&both_first, &tot_first[kind]);
        merge(&both_rep, &tot_rep[kind]);
    }
    print_qrow("ALL", "both", tot_n[0] + tot_n[1], &both_first, &both_rep);

    printf("\nLayers that answered (sy_facts_get_stats after the first call of each decide query):\n");
    printf("%-16s %7s %9s %8s %8s %6s %7s %7s | %5s %5s %7s | %5s %6s %5s\n", "set", "queries", "canonical",
           "interval", "simplify", "linear", "unknown", "budget", "true", "false", "unknown", "agree", "weaker",
           "wrong");
    size_t setup_err = 0, call_err = 0;
    for (int k = 0; k < nsets; k++) {
        const qresult *q = &qres[k];
        const sy_decide_stats *l = &q->layers;
        printf("%-16s %7zu %9zu %8zu %8zu %6zu %7zu %7zu | %5zu %5zu %7zu | %5zu %6zu %5zu\n", sets[k].name,
               l->queries, l->by_canonical, l->by_interval, l->by_simplify, l->by_linear, l->unknown, l->budget_hits,
               q->answers[SY_TRUTH_TRUE], q->answers[SY_TRUTH_FALSE], q->answers[SY_TRUTH_UNKNOWN], q->agree,
               q->weaker, q->wrong);
        setup_err += q->setup_errors;
        call_err += q->call_errors;
        if (q->wrong) status = 1;
    }
    printf("(agree/weaker/wrong: first answer vs the file's '=> answer'; weaker = unknown where the file\n"
           " has true/false, a sound precision miss)\n");
    printf("\nbound answers:\n");
    for (int k = 0; k < nsets; k++)
        if (qres[k].nq[Q_BOUND])
            printf("  %-16s %3zu finite, %3zu half-open, %3zu unbounded, %3zu no range (a divisor may be 0)\n",
                   sets[k].name, qres[k].bound_finite, qres[k].bound_half, qres[k].bound_open, qres[k].bound_divzero);
    printf("skipped queries (setup errors) %zu, failed calls %zu\n", setup_err, call_err);
    if (call_err) status = 1;
    summary dec_first = summarize(&both_first), dec_rep = summarize(&both_rep);

    /* ---------------------------------------------------------- sympy */
    sympy_result *Y = calloc(1, sizeof *Y);
    const char *py_used = NULL;
    if (!Y) {
        printf("error: out of memory\n");
        status = 1;
    } else if (no_sympy) {
        printf("\n== sympy comparison skipped (--no-sympy) ==\n");
    } else if (!have_cons) {
        printf("\n== sympy comparison skipped (no symshape figures) ==\n");
    } else {
        const char *cand[4];
        int nc = 0;
        if (python) cand[nc++] = python;
        else {
            const char *env = getenv("SY_BENCH_PYTHON");
            if (env && *env) cand[nc++] = env;
            cand[nc++] = "/usr/bin/python3";
            if (*SY_BENCH_PYTHON) cand[nc++] = SY_BENCH_PYTHON;
            cand[nc++] = "python3";
        }
        for (int k = 0; k < nc && !py_used; k++)
            if (python_has_sympy(cand[k])) py_used = cand[k];
        if (!py_used) {
            printf("\n== sympy comparison ==\nsympy not installed (apt-get install python3-sympy)\n");
        } else {
            printf("\n== symshape vs sympy: same corpus, median ns per expression ==\n");
            printf("running %s %s ...\n", py_used, script);
            run_sympy(py_used, script, corpus_path, quick, sympy_budget, Y);
            if (!Y->have) {
                printf("sympy produced no figures\n");
            } else {
                printf("sympy %s (python %s), %ld cold / %ld warm passes; cold = sympy caches cleared\n"
                       "before each pass, warm = caches full (bench/sympy_bench.py documents the modelling)\n\n",
                       Y->version, Y->pyversion, Y->passes[0], Y->passes[1]);
                printf("%-10s %5s | %9s %9s %7s | %9s %7s | %9s %9s %7s\n", "", "", "cold", "sympy", "", "as-writ.",
                       "", "warm", "sympy", "");
                printf("%-10s %5s | %9s %9s %7s | %9s %7s | %9s %9s %7s\n", "category", "exprs", "symshape", "cold",
                       "ratio", "symshape", "ratio", "symshape", "warm", "ratio");
                for (size_t k = 0; k <= C.ncats; k++) {
                    const char *cat = k < C.ncats ? C.cats[k] : "ALL";
                    if (!R->exprs_per_cat[k]) continue;
                    const int64_t *yc = sympy_row(Y, 0, cat), *yw = sympy_row(Y, 1, cat);
                    if (k == C.ncats)
                        printf("-----------------+-----------------------------+-------------------+"
                               "----------------------------\n");
                    printf("%-10s %5zu | %9" PRId64, cat, R->exprs_per_cat[k], R->sum[PH_COLD][k].median);
                    print_ratio(yc ? *yc : -1, R->sum[PH_COLD][k].median, 1);
                    printf(" | %9" PRId64, R->sum[PH_RAW_COLD][k].median);
                    print_ratio(yc ? *yc : -1, R->sum[PH_RAW_COLD][k].median, 0);
                    printf(" | %9" PRId64, R->sum[PH_WARM][k].median);
                    print_ratio(yw ? *yw : -1, R->sum[PH_WARM][k].median, 1);
                    putchar('\n');
                }
                printf("(ratio = sympy median / symshape median; the as-written ratio compares symshape doing\n"
                       " the integer arithmetic through its constructors with sympy not doing it)\n");
                if (Y->errors) printf("(sympy could not build %zu expressions: they are missing from its figures)\n",
                                      Y->errors);
            }
        }
    }

    /* ---------------------------------------------------------- goals */
    printf("\n== Goals ==\n");
    if (have_cons) {
        int64_t cold = R->sum[PH_COLD][C.ncats].median, raw = R->sum[PH_RAW_COLD][C.ncats].median;
        printf("construction median <= 500 ns:  cold %6" PRId64 " ns %-7s (as written %" PRId64 " ns %s)\n", cold,
               cold <= 500 ? "met" : "NOT met", raw, raw <= 500 ? "met" : "NOT met");
        const int64_t *yc = Y && Y->have ? sympy_row(Y, 0, "ALL") : NULL;
        if (yc && *yc > 0 && cold > 0 && raw > 0) {
            double ratio = (double)*yc / (double)cold, rr = (double)*yc / (double)raw;
            printf(">= 300x faster than sympy:      cold %6.0fx    %-7s (as written %.0fx %s)\n", ratio,
                   ratio >= 300 ? "met" : "NOT met", rr, rr >= 300 ? "met" : "NOT met");
        } else {
            printf(">= 300x faster than sympy:      not measured\n");
        }
    }
    if (dec_first.n) {
        printf("decide+bound median <= 5 us:    first %6.2f us %s, repeat %6.2f us %s\n", dec_first.median / 1e3,
               dec_first.median <= 5000 ? "met" : "NOT met", dec_rep.median / 1e3,
               dec_rep.median <= 5000 ? "met" : "NOT met");
        printf("decide+bound p99 <= 50 us:      first %6.2f us %s, repeat %6.2f us %s\n", dec_first.p99 / 1e3,
               dec_first.p99 <= 50000 ? "met" : "NOT met", dec_rep.p99 / 1e3, dec_rep.p99 <= 50000 ? "met" : "NOT met");
    }

    for (int kind = 0; kind < 2; kind++) {
        s_free(&tot_first[kind]);
        s_free(&tot_rep[kind]);
    }
    s_free(&both_first);
    s_free(&both_rep);
    for (int k = 0; k < nsets; k++) {
        qresult_free(&qres[k]);
        qset_free(&sets[k]);
    }
    for (int ph = 0; ph < NPHASES; ph++)
        for (size_t c = 0; c <= MAX_CATS; c++) s_free(&R->s[ph][c]);
    free(R);
    free(Y);
    corpus_free(&C);
    return status;
}
