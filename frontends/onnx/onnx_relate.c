/* Related inputs (issue 32): a model whose input dims are related (a KV-cache decoder's
 * total_seq == past_seq + seq, a Linear after a Flatten of [N, C, H, W] needing C*H*W == 297, a
 * positional embedding of 16 rows needing seq <= 16) does not run at the default example (224 for
 * every dim), where every dim has the same value. sy_onnx_trace_relate traces again at an example
 * that satisfies what the failed trace needed: the relation of the failed requirement
 * (sy_env_failed_relation, recorded by shapeenv where the requirement is made: one rule in one
 * place), solved for the dims no example fixes. Sound whatever it picks: the trace at the new
 * example records its own guards, so the relation becomes a guard over the dim names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/internal.h"
#include "frontends/onnx/onnx_private.h"

#define RL_ROUNDS 8    /* traces after the first */
#define RL_SYMS 8      /* dims of one relation solved for */
#define RL_CONSTS 32   /* constants of the relation looked at */
#define RL_CANDS 256   /* values tried per dim */
#define RL_MAXVAL ((int64_t)1 << 31)
#define RL_NODES 4096  /* nodes of the relation visited for its constants */

/* the state across rounds: every input's example, which dims may move and which moved */
typedef struct {
    size_t nin;
    size_t *ndim;
    int64_t **shape;
    unsigned char **fixed; /* a dim_value, a user example, a declared Dim, a static dim */
    unsigned char **moved;
    sy_onnx_example *ex;
    size_t ndefault; /* dims whose example is the default, SY_ONNX_DEFAULT_EXAMPLE: no example names them */
} rl_state;

/* one symbol of the failed trace: its hint and whether it may move */
typedef struct {
    const sy_expr *sym;
    int64_t hint;
    int movable, moved;
} rl_sym;

static void rl_free(sy_ctx *ctx, rl_state *s)
{
    for (size_t i = 0; i < s->nin; i++) {
        size_t n = s->ndim[i] ? s->ndim[i] : 1;
        if (s->shape) sy_dealloc(ctx, s->shape[i], n * sizeof **s->shape);
        if (s->fixed) sy_dealloc(ctx, s->fixed[i], n);
        if (s->moved) sy_dealloc(ctx, s->moved[i], n);
    }
    size_t n = s->nin ? s->nin : 1;
    sy_dealloc(ctx, s->shape, n * sizeof *s->shape);
    sy_dealloc(ctx, s->fixed, n * sizeof *s->fixed);
    sy_dealloc(ctx, s->moved, n * sizeof *s->moved);
    sy_dealloc(ctx, s->ndim, n * sizeof *s->ndim);
    sy_dealloc(ctx, s->ex, n * sizeof *s->ex);
}

/* the last example @p opts gives input @p name, or NULL */
static const sy_onnx_example *user_ex(const sy_onnx_trace_options *opts, const char *name)
{
    const sy_onnx_example *r = NULL;
    for (size_t e = 0; opts && e < opts->nexamples; e++)
        if (opts->examples[e].input && !strcmp(opts->examples[e].input, name)) r = &opts->examples[e];
    return r;
}

/* the input tensor of input @p i of the (failed) trace, or NULL */
static const sy_tensor *input_tensor(const sy_onnx_trace *t, const sy_onnx_model *m, size_t i)
{
    const char *name = sy_onnx_input_at(m, i)->name;
    for (size_t v = 0; v < sy_onnx_trace_nvalues(t); v++)
        if (sy_onnx_trace_value_role(t, v) == 1 && !strcmp(sy_onnx_trace_value_name(t, v), name)) return sy_onnx_trace_value(t, v);
    return NULL;
}

static int hint_of(sy_env *env, const sy_expr *e, int64_t *v)
{
    const sy_expr *h;
    if (sy_env_hint(env, e, &h) != SY_OK || sy_expr_get_si(h, v) != SY_OK) {
        sy_ctx_reset_error(sy_env_ctx(env));
        return 0;
    }
    return 1;
}

/* the examples of the first failed trace (its hints: the user's, dim_values, the default) */
static sy_status rl_init(sy_ctx *ctx, rl_state *s, const sy_onnx_model *m, const sy_onnx_trace *ft, sy_env *env,
                         const sy_onnx_trace_options *opts)
{
    s->nin = sy_onnx_ninputs(m);
    size_t n = s->nin ? s->nin : 1;
    s->ndim = sy_alloc(ctx, n * sizeof *s->ndim);
    s->shape = sy_alloc(ctx, n * sizeof *s->shape);
    s->fixed = sy_alloc(ctx, n * sizeof *s->fixed);
    s->moved = sy_alloc(ctx, n * sizeof *s->moved);
    s->ex = sy_alloc(ctx, n * sizeof *s->ex);
    if (!s->ndim || !s->shape || !s->fixed || !s->moved || !s->ex) {
        s->nin = 0;
        return SY_ENOMEM;
    }
    memset(s->ndim, 0, n * sizeof *s->ndim);
    memset(s->shape, 0, n * sizeof *s->shape);
    memset(s->fixed, 0, n * sizeof *s->fixed);
    memset(s->moved, 0, n * sizeof *s->moved);
    for (size_t i = 0; i < s->nin; i++) {
        const sy_onnx_input *in = sy_onnx_input_at(m, i);
        const sy_tensor *x = input_tensor(ft, m, i);
        if (!x || x->ndim != in->ndim) return SY_EINVAL; /* the trace failed before its inputs: no retry */
        size_t nd = in->ndim ? in->ndim : 1;
        s->ndim[i] = in->ndim;
        s->shape[i] = sy_alloc(ctx, nd * sizeof **s->shape);
        s->fixed[i] = sy_alloc(ctx, nd);
        s->moved[i] = sy_alloc(ctx, nd);
        if (!s->shape[i] || !s->fixed[i] || !s->moved[i]) return SY_ENOMEM;
        memset(s->moved[i], 0, nd);
        const sy_onnx_example *ue = user_ex(opts, in->name);
        for (size_t d = 0; d < in->ndim; d++) {
            if (!hint_of(env, x->sizes[d], &s->shape[i][d])) return SY_EINVAL;
            const sy_symbol_info *si = sy_expr_kind_of(x->sizes[d]) == SY_EXPR_SYM ? sy_env_symbol_of(env, x->sizes[d]) : NULL;
            s->fixed[i][d] = ue || in->dims[d] >= 0 || !si || si->declared;
        }
        s->ex[i].input = in->name;
        s->ex[i].ndim = in->ndim;
        s->ex[i].shape = s->shape[i];
    }
    /* a dim_param another input's example fixes: the symbol is shared, so fix it everywhere */
    for (size_t i = 0; i < s->nin; i++) {
        const sy_tensor *x = input_tensor(ft, m, i);
        for (size_t d = 0; d < s->ndim[i]; d++) {
            if (!s->fixed[i][d]) continue;
            for (size_t j = 0; j < s->nin; j++) {
                const sy_tensor *y = input_tensor(ft, m, j);
                for (size_t k = 0; k < s->ndim[j]; k++)
                    if (y->sizes[k] == x->sizes[d]) s->fixed[j][k] = 1;
            }
        }
    }
    s->ndefault = 0;
    for (size_t i = 0; i < s->nin; i++)
        for (size_t d = 0; d < s->ndim[i]; d++) s->ndefault += !s->fixed[i][d];
    return SY_OK;
}

/* rel with syms[i] := vals[i] at the failed trace's example: 1 true, 0 false, -1 not decidable */
static int holds(sy_env *env, const sy_expr *rel, size_t n, const sy_expr *const *syms, const int64_t *vals)
{
    sy_ctx *ctx = sy_env_ctx(env);
    const sy_expr *to[RL_SYMS];
    for (size_t i = 0; i < n; i++)
        if (!(to[i] = sy_expr_int_si(ctx, vals[i]))) {
            sy_ctx_reset_error(ctx);
            return -1;
        }
    const sy_expr *r = sy_expr_subs(ctx, rel, n, syms, to), *h;
    if (!r || sy_env_hint(env, r, &h) != SY_OK) {
        sy_ctx_reset_error(ctx);
        return -1;
    }
    return sy_expr_kind_of(h) == SY_EXPR_TRUE ? 1 : sy_expr_kind_of(h) == SY_EXPR_FALSE ? 0 : -1;
}

/* the integer constants of e (Add's coefficients and constant term too), absolute, at most RL_CONSTS;
 * *budget: nodes left to visit (a shared subexpression is visited each time it is reached: bounded) */
static void constants(sy_ctx *ctx, const sy_expr *e, int64_t *out, size_t *n, int depth, size_t *budget)
{
    if (!e || depth > 32 || *n >= RL_CONSTS || !*budget) return;
    --*budget;
    int64_t v;
    const sy_expr *c[2] = {NULL, NULL};
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k == SY_EXPR_INT) c[0] = e;
    if (k == SY_EXPR_ADD) c[0] = sy_expr_add_const(ctx, e);
    if (k == SY_EXPR_POW) c[1] = sy_expr_int_si(ctx, (int64_t)sy_expr_pow_exp(e));
    for (int j = 0; j < 2; j++) {
        if (!c[j] || sy_expr_get_si(c[j], &v) != SY_OK || v == INT64_MIN) continue;
        if (v < 0) v = -v;
        size_t i = 0;
        while (i < *n && out[i] != v) i++;
        if (i == *n && *n < RL_CONSTS) out[(*n)++] = v;
    }
    sy_ctx_reset_error(ctx);
    for (size_t i = 0; i < sy_expr_nargs(e); i++) {
        if (k == SY_EXPR_ADD) constants(ctx, sy_expr_add_coeff(ctx, e, i), out, n, depth + 1, budget);
        constants(ctx, sy_expr_arg(e, i), out, n, depth + 1, budget);
    }
    sy_ctx_reset_error(ctx);
}

static void add_cand(int64_t *c, size_t *n, int64_t v)
{
    if (v < 1 || v > RL_MAXVAL || *n >= RL_CANDS) return;
    for (size_t i = 0; i < *n; i++)
        if (c[i] == v) return;
    c[(*n)++] = v;
}

/* the value of the relation's polynomial (d of d == 0, d <= 0, d != 0) at s := v, others at the hints */
static int poly_at(sy_env *env, const sy_expr *d, const sy_expr *s, int64_t v, int64_t *out)
{
    sy_ctx *ctx = sy_env_ctx(env);
    const sy_expr *to = sy_expr_int_si(ctx, v);
    const sy_expr *r = to ? sy_expr_subs(ctx, d, 1, &s, &to) : NULL;
    if (!r) {
        sy_ctx_reset_error(ctx);
        return 0;
    }
    return hint_of(env, r, out);
}

/* Values to try for symbol s (hint h): the roots of rel's polynomial where it is linear in s (any
 * nonzero slope: Split's sizes, a divisor's multiple), the constants of rel and their neighbours
 * (a bound's value, a weight's features), the multiples of each constant next to h (divisibility) */
static size_t candidates(sy_env *env, const sy_expr *rel, const sy_expr *s, int64_t h, const int64_t *cs, size_t ncs, int64_t *c)
{
    size_t n = 0;
    sy_expr_kind k = sy_expr_kind_of(rel);
    if ((k == SY_EXPR_EQ || k == SY_EXPR_LE || k == SY_EXPR_NE) && sy_expr_nargs(rel) == 1) {
        const sy_expr *d = sy_expr_arg(rel, 0);
        int64_t base[3] = {h, 2, 64};
        for (int b = 0; b < 3; b++) {
            int64_t x0 = base[b], d0, d1, d2;
            if (!poly_at(env, d, s, x0, &d0) || !poly_at(env, d, s, x0 + 1, &d1) || !poly_at(env, d, s, x0 + 2, &d2)) continue;
            int64_t sl = d1 - d0;
            if (sl == 0 || d2 - d1 != sl || d0 == INT64_MIN) continue;
            int64_t q = d0 / sl, x = x0 - q; /* the root, and its neighbours (a bound, an inexact root) */
            add_cand(c, &n, x);
            add_cand(c, &n, x - 1);
            add_cand(c, &n, x + 1);
        }
    }
    for (size_t i = 0; i < ncs; i++) {
        int64_t v = cs[i];
        if (v < 1 || v > RL_MAXVAL) continue;
        add_cand(c, &n, v);
        add_cand(c, &n, v - 1);
        add_cand(c, &n, v + 1);
        if (v >= 2) {
            add_cand(c, &n, v * (h / v));
            add_cand(c, &n, v * (h / v + 1));
        }
        for (size_t j = 0; j < ncs; j++) /* a product of two constants (heads * head_dim) */
            if (cs[j] >= 2 && v >= 2 && v <= RL_MAXVAL / cs[j]) add_cand(c, &n, v * cs[j]);
    }
    /* the order tried: >= 2 first (1 specializes the dim), then nearest to the hint, then smaller */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            int64_t a = c[j - 1], b = c[j];
            int ka = a < 2, kb = b < 2;
            int64_t da = a > h ? a - h : h - a, db = b > h ? b - h : h - b;
            if (ka < kb || (ka == kb && (da < db || (da == db && a <= b)))) break;
            c[j - 1] = b, c[j] = a;
        }
    return n;
}

/* Choose new values for the movable symbols of rel. Single dims first (each symbol, its
 * candidates in order); then a product equal to a constant: the constant's prime factors spread
 * over the symbols, largest first onto the smallest product (values >= 2 where there are enough
 * factors). Bounded: at most RL_SYMS * RL_CANDS + RL_CONSTS * RL_SYMS evaluations. 1 with
 * *nout pairs in syms/vals, 0 when none satisfies rel. */
static int solve(sy_env *env, const sy_expr *rel, const rl_sym *ss, size_t nss, const sy_expr **syms, int64_t *vals, size_t *nout)
{
    sy_ctx *ctx = sy_env_ctx(env);
    int64_t cs[RL_CONSTS];
    size_t ncs = 0;
    size_t budget = RL_NODES;
    constants(ctx, rel, cs, &ncs, 0, &budget);
    /* single dims: the ones not moved before first, then the last created first */
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = nss; k-- > 0;) {
            if (!ss[k].movable || ss[k].moved != pass) continue;
            int64_t c[RL_CANDS];
            size_t nc = candidates(env, rel, ss[k].sym, ss[k].hint, cs, ncs, c);
            for (size_t i = 0; i < nc; i++) {
                if (c[i] == ss[k].hint) continue;
                if (holds(env, rel, 1, &ss[k].sym, &c[i]) == 1) {
                    syms[0] = ss[k].sym, vals[0] = c[i];
                    *nout = 1;
                    return 1;
                }
            }
        }
    /* a product of dims equal to a constant: factor it */
    size_t m = 0;
    for (size_t k = 0; k < nss; k++)
        if (ss[k].movable) syms[m++] = ss[k].sym;
    if (m < 2) return 0;
    for (size_t i = 0; i < ncs; i++) {
        if (cs[i] < 2) continue;
        uint64_t p[64]; /* their product is cs[i]: each slot below fits int64 */
        size_t np = sy_factor_u64((uint64_t)cs[i], p, 64); /* algebra/factor.c, shared with the .cases runner */
        for (size_t j = 0; j < m; j++) vals[j] = 1;
        for (size_t f = np; f-- > 0;) { /* p ascending: the largest first onto the smallest slot */
            size_t lo = 0;
            for (size_t j = 1; j < m; j++)
                if (vals[j] < vals[lo]) lo = j;
            vals[lo] *= (int64_t)p[f];
        }
        if (holds(env, rel, m, syms, vals) == 1) {
            *nout = m;
            return 1;
        }
    }
    return 0;
}

/* the text of e with display names (the failed trace's), for messages; GIVE (sy_str_free) or NULL */
static char *show_display(sy_ctx *ctx, sy_onnx_trace *ft, const sy_expr *e)
{
    const sy_expr *d = sy_onnx_trace_display(ft, e);
    char *s = d ? sy_expr_print(ctx, d, SY_PRINT_CANONICAL) : NULL;
    if (!s) sy_ctx_reset_error(ctx);
    return s;
}

/* facts with only the ranges of rel's dims: a declared dim's declared range, any other's
 * [0, INT64_MAX] (ONNX dims are int64: docs/onnx.md). Not the env's facts: after the failed
 * trace they hold its example's decisions too. GIVE, or NULL. */
static sy_facts *rel_ranges(sy_env *env, const sy_expr *rel)
{
    sy_ctx *ctx = sy_env_ctx(env);
    sy_facts *f = sy_facts_new(ctx);
    const sy_expr **fs = NULL;
    size_t nfs = 0;
    sy_status st = f ? sy_expr_free_symbols(ctx, rel, &fs, &nfs) : SY_ENOMEM;
    for (size_t i = 0; i < nfs && st == SY_OK; i++) {
        const sy_symbol_info *si = sy_env_symbol_of(env, fs[i]);
        bool decl = si && si->declared; /* an undeclared dim's dim_min / dim_max are not a range */
        int64_t lo = decl ? si->dim_min : 0, hi = decl && si->dim_max >= 0 ? si->dim_max : INT64_MAX;
        const sy_expr *l = sy_expr_int_si(ctx, lo), *h = sy_expr_int_si(ctx, hi);
        st = l && h ? sy_facts_set_range(f, fs[i], l, h) : SY_ENOMEM;
    }
    sy_mem_free(ctx, fs);
    if (st != SY_OK) f = sy_facts_free(f);
    sy_ctx_reset_error(ctx);
    return f;
}

/* rel simplified under its dims' ranges, for the note: `x_1 == Min(16, x_1)` is `x_1 <= 16`
 * (issue 38); rel itself when the simplifier fails or decides it */
static const sy_expr *rel_simplified(sy_env *env, const sy_expr *rel)
{
    sy_facts *f = rel_ranges(env, rel);
    const sy_expr *r = f ? sy_simplify(f, rel) : NULL;
    sy_facts_free(f);
    if (!r) sy_ctx_reset_error(sy_env_ctx(env));
    sy_expr_kind k = r ? sy_expr_kind_of(r) : SY_EXPR_FALSE;
    return k == SY_EXPR_TRUE || k == SY_EXPR_FALSE ? rel : r; /* `false` names nothing: the relation as made */
}

/* 1 when no size satisfies rel: false under its dims' ranges; 0 when it may hold or the question fails */
static int rel_unsat(sy_env *env, const sy_expr *rel)
{
    sy_facts *f = rel_ranges(env, rel);
    sy_truth t = SY_TRUTH_UNKNOWN;
    int r = f && sy_decide(f, rel, &t) == SY_OK && t == SY_TRUTH_FALSE;
    sy_facts_free(f);
    sy_ctx_reset_error(sy_env_ctx(env));
    return r;
}

/* append to buf (cap bytes), truncating */
static void cat(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < cap) snprintf(buf + n, cap - n, "%s", s);
}

sy_status sy_onnx_trace_relate(sy_ctx *ctx, const sy_onnx_model *m, const sy_env_options *eo, const sy_onnx_trace_options *opts,
                               sy_env **envp, sy_onnx_trace **out)
{
    if (envp) *envp = NULL;
    if (out) *out = NULL;
    if (!ctx) return SY_EINVAL;
    if (!m || !envp || !out) return sy_fail_st(ctx, SY_EINVAL, "onnx trace: NULL argument");
    sy_env *env = sy_env_new(ctx, eo);
    if (!env) return sy_ctx_last_error(ctx);
    sy_onnx_trace *ft = NULL, *t = NULL;
    sy_status st = ox_trace_keep(env, m, opts, &t, &ft);
    if (st == SY_OK) {
        *envp = env, *out = t;
        return SY_OK;
    }
    if (st != SY_EINVAL || (opts && opts->concrete) || !ft || !sy_env_failed_relation(env)) {
        sy_onnx_trace_free(ft);
        sy_env_free(env);
        return st;
    }
    /* the first error, kept for when no example works */
    char *first = NULL;
    {
        const char *msg = sy_ctx_last_error_msg(ctx);
        size_t n = strlen(msg) + 1;
        if ((first = sy_alloc(ctx, n))) memcpy(first, msg, n);
    }
    char note[1024] = "", needs[1024] = "", why[600] = "", why0[600] = "";
    rl_state s;
    memset(&s, 0, sizeof s);
    sy_onnx_trace_options o2 = opts ? *opts : (sy_onnx_trace_options)SY_ONNX_TRACE_OPTIONS_INIT;
    sy_status fst = first ? rl_init(ctx, &s, m, ft, env, opts) : SY_ENOMEM;
    int done = 0, unsat = 0;
    for (int round = 0; round < RL_ROUNDS && fst == SY_OK && !done; round++) {
        const sy_expr *rel = sy_env_failed_relation(env);
        if (!rel) break;
        char *rs = show_display(ctx, ft, rel_simplified(env, rel));
        snprintf(why, sizeof why, "%s", rs ? rs : "?");
        if (!round) snprintf(why0, sizeof why0, "%s", why);
        sy_str_free(ctx, rs);
        if (!round && rel_unsat(env, rel)) { /* no example to look for: no size runs the model */
            unsat = 1;
            break;
        }
        /* the movable symbols of rel and their input dims */
        const sy_expr **fs = NULL;
        size_t nfs = 0;
        if (sy_expr_free_symbols(ctx, rel, &fs, &nfs) != SY_OK) {
            sy_ctx_reset_error(ctx);
            break;
        }
        rl_sym ss[RL_SYMS];
        size_t nss = 0;
        for (size_t k = 0; k < nfs && nss < RL_SYMS; k++) {
            rl_sym r = {fs[k], 0, 0, 0};
            int seen = 0;
            for (size_t i = 0; i < s.nin; i++) {
                const sy_tensor *x = input_tensor(ft, m, i);
                for (size_t d = 0; x && d < s.ndim[i]; d++) {
                    if (x->sizes[d] != fs[k]) continue;
                    if (!seen) r.movable = 1;
                    seen = 1;
                    r.hint = s.shape[i][d];
                    if (s.fixed[i][d]) r.movable = 0;
                    if (s.moved[i][d]) r.moved = 1;
                }
            }
            if (seen) ss[nss++] = r;
        }
        sy_mem_free(ctx, fs);
        const sy_expr *syms[RL_SYMS];
        int64_t vals[RL_SYMS];
        size_t nv = 0;
        if (!solve(env, rel, ss, nss, syms, vals, &nv)) break;
        if (needs[0]) cat(needs, sizeof needs, "; ");
        cat(needs, sizeof needs, why);
        for (size_t j = 0; j < nv; j++) {
            char *nm = show_display(ctx, ft, syms[j]), line[400];
            for (size_t i = 0; i < s.nin; i++) {
                const sy_tensor *x = input_tensor(ft, m, i);
                for (size_t d = 0; x && d < s.ndim[i]; d++)
                    if (x->sizes[d] == syms[j]) {
                        snprintf(line, sizeof line, "%s%s = %lld instead of %lld", note[0] ? ", " : "", nm ? nm : "?",
                                 (long long)vals[j], (long long)s.shape[i][d]);
                        s.shape[i][d] = vals[j];
                        s.moved[i][d] = 1;
                    }
            }
            cat(note, sizeof note, line);
            sy_str_free(ctx, nm);
        }
        /* trace again at the new example, over a new env */
        sy_onnx_trace_free(ft);
        sy_env_free(env);
        ft = NULL;
        t = NULL;
        sy_ctx_reset_error(ctx);
        if (!(env = sy_env_new(ctx, eo))) {
            fst = sy_ctx_last_error(ctx);
            break;
        }
        o2.nexamples = s.nin;
        o2.examples = s.ex;
        st = ox_trace_keep(env, m, &o2, &t, &ft);
        if (st == SY_OK) done = 1;
        else if (st != SY_EINVAL || !ft) break;
    }
    if (done) {
        char full[2100]; /* note and needs, 1023 bytes each, and the words between */
        snprintf(full, sizeof full, "%s (the model needs %s)", note, needs);
        fst = ox_trace_set_related(t, full);
        if (fst == SY_OK) {
            *envp = env, *out = t;
            sy_dealloc(ctx, first, strlen(first) + 1);
            rl_free(ctx, &s);
            return SY_OK;
        }
        sy_onnx_trace_free(t);
    }
    sy_onnx_trace_free(ft);
    sy_env_free(env);
    rl_free(ctx, &s);
    if (fst == SY_ENOMEM || !first) {
        if (first) sy_dealloc(ctx, first, strlen(first) + 1);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    if (!why0[0]) /* no relation to name (the trace failed before its inputs were made): the error as it was */
        sy_fail_st(ctx, SY_EINVAL, "%s", first);
    else if (unsat) /* never suggest examples that do not exist */
        sy_fail_st(ctx, SY_EINVAL,
                   "%s; the model needs %s, which no size satisfies (every dim is an int64 within its range): no "
                   "input size can run the model", first, why0);
    else {
        char dflt[64] = ""; /* name the default only where a dim took it */
        if (s.ndefault) snprintf(dflt, sizeof dflt, " (%d for a dim without one)", SY_ONNX_DEFAULT_EXAMPLE);
        sy_fail_st(ctx, SY_EINVAL,
                   "%s; the model needs %s%s%s, which the example%s does not satisfy and no "
                   "example symshape tried did (at most %d retraces): give example sizes that satisfy it (--example) or "
                   "make those dims static",
                   first, why0, strcmp(why, why0) ? ", then " : "", strcmp(why, why0) ? why : "", dflt, RL_ROUNDS);
    }
    sy_dealloc(ctx, first, strlen(first) + 1);
    return SY_EINVAL;
}
