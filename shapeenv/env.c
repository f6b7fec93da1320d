/* ShapeEnv core: symbols from example sizes, hints, evaluate_expr, guards.
 * Semantics follow torch/fx/experimental/symbolic_shapes.py (ShapeEnv.
 * create_symbol, evaluate_expr, produce_guards' inputs): duck sizing shares a
 * symbol between dims with equal example sizes; 0/1 specialization turns
 * example sizes 0 and 1 into constants and gives the other size symbols the
 * range [2, oo). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shapeenv/env_private.h"

/* ------------------------------------------------------------------ memory */

void *sy_env_alloc(sy_env *env, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    sy_env_chunk *c = env->chunks;
    if (!c || c->size - c->used < size) {
        /* SY_ARENA_CHUNK (2 KiB) chunks: the newest one's slack is part of the peak (see arena_alloc, expr.c) */
        size_t cs = SY_ARENA_CHUNK;
        if (cs < size) cs = size;
        c = sy_alloc(env->ctx, sizeof *c + cs);
        if (!c) {
            sy_oom(env->ctx);
            return NULL;
        }
        c->size = cs;
        c->used = 0;
        c->next = env->chunks;
        env->chunks = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    /* zeroed; the common small sizes by inline stores (a memset call cost
     * more than the rest of the allocation) */
    switch (size) {
    case 16: memset(p, 0, 16); break;
    case 32: memset(p, 0, 32); break;
    case 48: memset(p, 0, 48); break;
    case 64: memset(p, 0, 64); break;
    default: memset(p, 0, size); break;
    }
    return p;
}

const char *sy_env_strdup(sy_env *env, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = sy_env_alloc(env, n);
    if (p) memcpy(p, s, n);
    return p;
}

sy_status sy_env_fail(sy_env *env, sy_status st, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sy_fail_st(env->ctx, st, "%s", msg);
}

static symrec *find_symrec(const sy_env *env, const sy_expr *sym);

static size_t prod_slot(const sy_env *env, const sy_expr *a, const sy_expr *b)
{
    uint64_t h = sy_expr_hash(a) * 0x9E3779B97F4A7C15ull ^ sy_expr_hash(b);
    size_t m = env->prodcap - 1, j = (size_t)(h ^ h >> 31) & m;
    while (env->prod[j].a && !(env->prod[j].a == a && env->prod[j].b == b)) j = (j + 1) & m;
    return j;
}

static bool prod_used(const void *e) { return ((const struct sy_env_prod *)e)->a != NULL; }
static size_t prod_reslot(const void *env, const void *e)
{
    const struct sy_env_prod *p = e;
    return prod_slot(env, p->a, p->b);
}

const sy_expr *sy_env_mul(sy_env *env, const sy_expr *a, const sy_expr *b)
{
    if (!a || !b) return NULL;
    if (env->prod) {
        size_t j = prod_slot(env, a, b);
        if (env->prod[j].a) return env->prod[j].r;
    }
    const sy_expr *r = sy_expr_mul(env->ctx, a, b);
    if (!r) return NULL;
    /* grow; a failed allocation only loses the entry */
    if ((env->nprod + 1) * 2 > env->prodcap &&
        !sy_otab_grow(env->ctx, (void **)&env->prod, &env->prodcap, sizeof *env->prod,
                      env->prodcap ? env->prodcap * 2 : 32, prod_used, prod_reslot, env))
        return r;
    size_t j = prod_slot(env, a, b);
    env->prod[j] = (struct sy_env_prod){a, b, r};
    env->nprod++;
    return r;
}

/* In source names: a backed symbol prints as the first source it was created
 * for (s1 -> x.size()[2]), as PyTorch prints guards; unbacked ones keep u0. */
static const char *show_uncached(sy_env *env, const sy_expr *e, bool *ok);

/* Memoized by expression: reasons repeat the same sizes (a conv's kernel
 * extents, its padded input) and each text costs a free-symbol walk, a
 * substitution and a print. The text of e depends only on e and on the
 * symbols' records (their first sources), which change only when a symbol
 * is created: an entry is valid while env->nsyms equals its epoch. Texts
 * live in the env's arena, as without the memo. */
const char *sy_env_show(sy_env *env, const sy_expr *e)
{
    bool ok;
    if (!e || env->show_memo_off) return show_uncached(env, e, &ok);
    if (!env->shown) {
        env->shown = sy_env_alloc(env, SY_SHOW_MEMO * sizeof *env->shown);
        if (!env->shown) {
            sy_ctx_reset_error(env->ctx);
            return show_uncached(env, e, &ok);
        }
        memset(env->shown, 0, SY_SHOW_MEMO * sizeof *env->shown);
    }
    uintptr_t h = (uintptr_t)e;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    struct sy_env_shown *slot = &env->shown[(h >> 20) & (SY_SHOW_MEMO - 1)];
    if (slot->e == e && slot->epoch == env->nsyms) {
        env->show_hits++;
        return slot->text;
    }
    env->show_misses++;
    const char *t = show_uncached(env, e, &ok);
    if (ok) *slot = (struct sy_env_shown){e, env->nsyms, t}; /* a text made despite a failure is not kept */
    return t;
}

void sy_env_show_memo_stats(const sy_env *env, unsigned long *hits, unsigned long *misses)
{
    *hits = env->show_hits;
    *misses = env->show_misses;
}

void sy_env_show_memo_set_off(sy_env *env, int off) { env->show_memo_off = off != 0; }

/* *ok = false: something failed (out of memory), the text is partial or "?".
 * The text is exactly the one made before the memo, failures included. */
static const char *show_uncached(sy_env *env, const sy_expr *e, bool *ok)
{
    *ok = true;
    const sy_expr **fs = NULL, *ks[16], *vs[16];
    size_t nf = 0, nk = 0;
    if (e && sy_expr_free_symbols(env->ctx, e, &fs, &nf) == SY_OK) {
        for (size_t i = 0; i < nf && nk < 16; i++) {
            const symrec *r = find_symrec(env, fs[i]);
            if (!r || r->info.unbacked || !r->info.nsources) continue;
            const sy_expr *v = sy_sym_internal(env->ctx, r->info.sources[0]); /* the gset var of that source */
            if (!v) {
                *ok = false;
                break;
            }
            ks[nk] = fs[i];
            vs[nk++] = v;
        }
        sy_mem_free(env->ctx, fs);
    } else {
        *ok = false;
    }
    if (nk) {
        const sy_expr *named = sy_expr_subs(env->ctx, e, nk, ks, vs);
        if (named) e = named;
        else *ok = false;
    }
    /* a DAG whose canonical text repeats shared subterms exponentially often
     * (a nested FloorDiv chain: 20 million nodes as a tree at 6 layers) is
     * shown in the let-form, each shared subterm once */
    char *s = sy_expr_print_bounded(env->ctx, e, SY_PRINT_CANONICAL, SY_SHOW_LET_NODES);
    if (!s) return *ok = false, "?";
    const char *r = sy_env_strdup(env, s);
    sy_str_free(env->ctx, s);
    if (!r) *ok = false;
    return r ? r : "?";
}

/* ------------------------------------------------------------------ lifetime */

sy_env *sy_env_new(sy_ctx *ctx, const sy_env_options *opts)
{
    if (!ctx) return NULL;
    sy_env_options o = SY_ENV_OPTIONS_INIT;
    if (opts) {
        if (opts->version != SY_ENV_OPTIONS_VERSION) {
            sy_fail(ctx, SY_EVERSION, "unknown env options version %u", opts->version);
            return NULL;
        }
        o = *opts;
    }
    sy_env *env = sy_alloc(ctx, sizeof *env);
    if (!env) {
        sy_oom(ctx);
        return NULL;
    }
    memset(env, 0, sizeof *env);
    env->ctx = ctx;
    env->opts = o;
    env->facts = sy_facts_new(ctx);
    if (!env->facts) {
        sy_dealloc(ctx, env, sizeof *env);
        return NULL;
    }
    return env;
}

void sy_env_drop_memos(sy_env *env)
{
    if (!env) return;
    sy_facts_drop_memos(env->facts);
    if (env->prod) sy_dealloc(env->ctx, env->prod, env->prodcap * sizeof *env->prod);
    env->prod = NULL;
    env->nprod = env->prodcap = 0;
    if (env->touched_ready) sy_memo_clear(env->ctx, &env->touched_nodes);
    env->touched_ready = false;
}

sy_env *sy_env_free(sy_env *env)
{
    if (!env) return NULL;
    sy_ctx *ctx = env->ctx;
    sy_facts_free(env->facts);
    sy_facts_free(env->nf);
    for (size_t k = 0; k < env->nil; k++)
        if (env->il[k].a) {
            sy_dealloc(ctx, env->il[k].a, env->insz[k].ndim * sizeof *env->il[k].a);
            sy_dealloc(ctx, env->il[k].lo, env->insz[k].ndim * sizeof *env->il[k].lo);
        }
    if (env->il) sy_dealloc(ctx, env->il, env->ilcap * sizeof *env->il);
    if (env->insz) sy_dealloc(ctx, env->insz, env->inszcap * sizeof *env->insz);
    if (env->hints_ready) sy_binding_clear(ctx, &env->hints);
    for (size_t i = 0; i < env->nsyms; i++)
        if (env->syms[i].srcs) sy_dealloc(ctx, env->syms[i].srcs, env->syms[i].srccap * sizeof *env->syms[i].srcs);
    if (env->syms) sy_dealloc(ctx, env->syms, env->symcap * sizeof *env->syms);
    for (size_t i = 0; i < env->nguards; i++)
        if (env->guards[i].orig) sy_dealloc(ctx, env->guards[i].orig, env->guards[i].origcap * sizeof *env->guards[i].orig);
    if (env->guards) sy_dealloc(ctx, env->guards, env->guardcap * sizeof *env->guards);
    if (env->guard_hash) sy_dealloc(ctx, env->guard_hash, env->guard_hcap * sizeof *env->guard_hash);
    if (env->byid) sy_dealloc(ctx, env->byid, env->byidcap * sizeof *env->byid);
    if (env->srcown) sy_dealloc(ctx, env->srcown, env->srcowncap * sizeof *env->srcown);
    if (env->inputs) sy_dealloc(ctx, env->inputs, env->inputcap * sizeof *env->inputs);
    if (env->tins) sy_dealloc(ctx, env->tins, env->tincap * sizeof *env->tins);
    if (env->tin_hash) sy_dealloc(ctx, env->tin_hash, env->tin_hcap * sizeof *env->tin_hash);
    if (env->prod) sy_dealloc(ctx, env->prod, env->prodcap * sizeof *env->prod);
    if (env->cstr) sy_dealloc(ctx, env->cstr, env->cstrcap * sizeof *env->cstr);
    if (env->defer) sy_dealloc(ctx, env->defer, env->defercap * sizeof *env->defer);
    sy_env_values_free(env);
    if (env->touched_ready) sy_memo_clear(ctx, &env->touched_nodes);
    for (sy_env_chunk *c = env->chunks, *n; c; c = n) {
        n = c->next;
        sy_dealloc(ctx, c, sizeof *c + c->size);
    }
    sy_dealloc(ctx, env, sizeof *env);
    return NULL;
}

sy_ctx *sy_env_ctx(const sy_env *env) { return env ? env->ctx : NULL; }
const sy_env_options *sy_env_opts(const sy_env *env) { return env ? &env->opts : NULL; }
int sy_env_strides_read(const sy_env *env) { return env && env->strides_read; }
sy_facts *sy_env_facts(sy_env *env) { return env ? env->facts : NULL; }

/* ------------------------------------------------------------------ symbols */

/* Names are per environment (s0, s1, ... like each PyTorch ShapeEnv); two
 * environments over one context share the symbol nodes of equal names, each
 * with its own facts and hints. */
static symrec *find_symrec(const sy_env *env, const sy_expr *sym)
{
    if (!sym || sy_expr_kind_of(sym) != SY_EXPR_SYM) return NULL;
    uint32_t id = sy_expr_sym_id(sym);
    size_t k = id < env->byidcap ? env->byid[id] : 0;
    return k && env->syms[k - 1].info.sym == sym ? &env->syms[k - 1] : NULL;
}

sy_status sy_env_symbol_set_display(sy_env *env, const sy_expr *sym, const sy_expr *display)
{
    if (!env) return SY_EINVAL;
    symrec *r = find_symrec(env, sym);
    if (!r || !display || sy_expr_kind_of(display) != SY_EXPR_SYM)
        return sy_fail_st(env->ctx, SY_EINVAL, "symbol display: %s", r ? "the display is not a symbol" : "not a symbol of the env");
    r->info.display = sy_expr_sym_name(display);
    return SY_OK;
}

static bool add_source(sy_env *env, symrec *r, const char *source)
{
    if (!source) return true;
    if (r->info.nsources == r->srccap) {
        size_t nc = r->srccap ? r->srccap * 2 : 4;
        const char **ns = sy_realloc(env->ctx, r->srcs, r->srccap * sizeof *ns, nc * sizeof *ns);
        if (!ns) return false;
        r->srcs = ns;
        r->srccap = nc;
    }
    const char *s = sy_env_strdup(env, source);
    if (!s) return false;
    /* a symbol's first source is its shown name (sy_env_show): the texts kept
     * while it had none are stale */
    if (!r->info.nsources && env->shown) memset(env->shown, 0, SY_SHOW_MEMO * sizeof *env->shown);
    r->srcs[r->info.nsources++] = s;
    r->info.sources = r->srcs;
    if (!r->info.unbacked) { /* the first backed symbol given a source owns it */
        struct sy_env_srcown *o = sy_env_srcown_slot(env, s);
        if (!o) return false;
        if (!o->text) {
            *o = (struct sy_env_srcown){s, (size_t)(r - env->syms) + 1};
            env->srcownn++;
        }
    }
    return true;
}

static const sy_expr *new_symbol(sy_env *env, char prefix, unsigned *counter, int64_t hint, int unbacked,
                                 const char *source)
{
    /* the next name no env symbol has: symbols are interned by name, so the
     * symbol of that name is looked up by id (issue 14: a scan of every
     * symbol's name per new symbol, 499,500 strcmp for 1000 inputs) */
    char name[32];
    const sy_expr *s;
    do { /* snprintf(name, sizeof name, "%c%u", prefix, (*counter)++) without its ~700 instructions:
          * the digits from the end of the buffer backwards */
        char *p = name + sizeof name;
        *--p = 0;
        unsigned k = (*counter)++;
        do *--p = (char)('0' + k % 10);
        while (k /= 10);
        *--p = prefix;
        if (!(s = sy_expr_sym(env->ctx, p))) return NULL;
    } while (find_symrec(env, s));
    if (env->nsyms == env->symcap) {
        size_t nc = env->symcap ? env->symcap * 2 : 16;
        symrec *ns = sy_realloc(env->ctx, env->syms, env->symcap * sizeof *ns, nc * sizeof *ns);
        if (!ns) return sy_oom(env->ctx);
        env->syms = ns;
        env->symcap = nc;
    }
    uint32_t id = sy_expr_sym_id(s);
    if (id >= env->byidcap) {
        size_t nc = env->byidcap ? env->byidcap : 16;
        while (nc <= id) nc *= 2;
        size_t *nb = sy_realloc(env->ctx, env->byid, env->byidcap * sizeof *nb, nc * sizeof *nb);
        if (!nb) return sy_oom(env->ctx);
        memset(nb + env->byidcap, 0, (nc - env->byidcap) * sizeof *nb);
        env->byid = nb;
        env->byidcap = nc;
    }
    env->byid[id] = env->nsyms + 1;
    symrec *r = &env->syms[env->nsyms++];
    memset(r, 0, sizeof *r);
    r->info.sym = s;
    r->info.hint = hint;
    r->info.unbacked = unbacked;
    if (!add_source(env, r, source)) return sy_oom(env->ctx);
    /* the new symbol is bound on next use (ready_hints), the binding growing by doubling: it was
     * released here and rebuilt over every symbol, O(n^2) over n inputs (issue 38); before that it
     * leaked, 34 MB at 2,000 inputs with narrow (issue 10) */
    return s;
}

const sy_expr *sy_env_create_symbol(sy_env *env, int64_t example, const char *source, sy_dim_policy policy)
{
    if (!env) return NULL;
    sy_ctx *ctx = env->ctx;
    if (example < 0) return sy_fail(ctx, SY_EINVAL, "size of %s is negative (%lld)", source ? source : "?", (long long)example);
    if (policy == SY_DIM_STATIC || env->concrete) return sy_expr_int_si(ctx, example);
    if (env->opts.specialize_zero_one && (example == 0 || example == 1)) return sy_expr_int_si(ctx, example);
    if (policy == SY_DIM_DUCK && env->opts.duck_sizing) {
        for (size_t i = 0; i < env->nsyms; i++) {
            symrec *r = &env->syms[i];
            if (!r->info.unbacked && r->info.hint == example && r->duck) {
                if (!sy_env_source_ok(env, source, r)) return NULL;
                if (!add_source(env, r, source)) return sy_oom(ctx);
                return r->info.sym;
            }
        }
    }
    if (!sy_env_source_ok(env, source, NULL)) return NULL;
    const sy_expr *s = new_symbol(env, 's', &env->next_s, example, 0, source);
    if (!s) return NULL;
    env->syms[env->nsyms - 1].duck = (policy == SY_DIM_DUCK && env->opts.duck_sizing);
    const sy_expr *lo = sy_expr_int_si(ctx, env->opts.specialize_zero_one ? 2 : 0);
    if (sy_facts_set_range(env->facts, s, lo, NULL) != SY_OK) return NULL;
    return s;
}

int sy_dim_spec_declared(const sy_dim_spec *d)
{
    return d && (d->name || d->min != SY_DIM_SPEC_UNSET || d->max != SY_DIM_SPEC_UNSET);
}

static void range_text(char *buf, size_t n, int64_t lo, int64_t hi)
{
    if (hi < 0) snprintf(buf, n, "[%lld, oo)", (long long)lo);
    else snprintf(buf, n, "[%lld, %lld]", (long long)lo, (long long)hi);
}

/* torch.export's Dim: a named symbol, not duck-sized, range [min, max]
 * (torch/_export: Dim(name, min=2, max=int_oo) by default; a min <= 1 keeps
 * sizes 0/1 symbolic inside the range, as export's
 * specialize_zero_one=False for constrained dims). */
const sy_expr *sy_env_create_symbol_spec(sy_env *env, int64_t example, const char *source, const sy_dim_spec *spec)
{
    if (!env) return NULL;
    if (!sy_dim_spec_declared(spec)) return sy_env_create_symbol(env, example, source, SY_DIM_DUCK);
    sy_ctx *ctx = env->ctx;
    const char *src = source ? source : "?";
    if (example < 0) return sy_fail(ctx, SY_EINVAL, "size of %s is negative (%lld)", src, (long long)example);
    if (spec->min < SY_DIM_SPEC_UNSET || spec->max < SY_DIM_SPEC_UNSET ||
        (spec->max != SY_DIM_SPEC_UNSET && spec->min > spec->max))
        return sy_fail(ctx, SY_EINVAL, "%s: bad declared range (min %lld, max %lld)", src, (long long)spec->min,
                       (long long)spec->max);
    /* torch.export's Dim asserts max > min (torch/export/dynamic_shapes.py): one size is static */
    if (spec->max != SY_DIM_SPEC_UNSET && spec->min == spec->max)
        return sy_fail(ctx, SY_EINVAL, "%s: the declared range [%lld, %lld] holds one size: a dynamic dim needs min < max "
                       "(as torch.export's Dim); a dim of one size is static", src, (long long)spec->min, (long long)spec->max);
    if (env->concrete) return sy_expr_int_si(ctx, example);
    int64_t lo = spec->min != SY_DIM_SPEC_UNSET ? spec->min : (env->opts.specialize_zero_one ? 2 : 0), hi = spec->max;
    char label[160], rng[64];
    snprintf(label, sizeof label, "%s%s%s", spec->name ? "'" : "", spec->name ? spec->name : src, spec->name ? "'" : "");
    if (hi >= 0 && lo > hi) /* @..1: without a minimum the range starts at 2 (0/1 specialization) */
        return sy_fail(ctx, SY_EINVAL,
                       "%s's declared range @..%lld is empty: without a minimum a size symbol starts at 2 "
                       "(0/1 specialization); give the minimum (@0..%lld) or use --no-specialize-01",
                       label, (long long)hi, (long long)hi);
    if (hi >= 0 && example > hi) {
        range_text(rng, sizeof rng, lo, hi);
        return sy_fail(ctx, SY_EINVAL, "%s = %lld at the example is outside %s's declared range %s", src, (long long)example,
                       label, rng);
    }
    if (example < lo) {
        if (spec->min == SY_DIM_SPEC_UNSET && (example == 0 || example == 1)) return sy_expr_int_si(ctx, example); /* 0/1 specialized */
        range_text(rng, sizeof rng, lo, hi);
        return sy_fail(ctx, SY_EINVAL, "%s = %lld at the example is outside %s's declared range %s", src, (long long)example,
                       label, rng);
    }
    if (spec->name)
        for (size_t i = 0; i < env->nsyms; i++) {
            symrec *r = &env->syms[i];
            if (!r->info.dim_name || strcmp(r->info.dim_name, spec->name)) continue;
            if (r->info.hint != example)
                return sy_fail(ctx, SY_EINVAL,
                               "dims named '%s' are declared equal, but %s = %lld and %s = %lld at the example", spec->name,
                               r->info.sources[0], (long long)r->info.hint, src, (long long)example);
            if ((spec->min != SY_DIM_SPEC_UNSET && spec->min != r->info.dim_min) ||
                (spec->max != SY_DIM_SPEC_UNSET && spec->max != r->info.dim_max)) {
                char r2[64];
                range_text(rng, sizeof rng, r->info.dim_min, r->info.dim_max);
                range_text(r2, sizeof r2, lo, hi);
                return sy_fail(ctx, SY_EINVAL, "'%s' is declared with two ranges: %s (at %s) and %s (at %s)", spec->name, rng,
                               r->info.sources[0], r2, src);
            }
            if (!sy_env_source_ok(env, source, r)) return NULL;
            if (!add_source(env, r, source)) return sy_oom(ctx);
            return r->info.sym;
        }
    if (!sy_env_source_ok(env, source, NULL)) return NULL;
    const sy_expr *s = new_symbol(env, 's', &env->next_s, example, 0, source);
    if (!s) return NULL;
    symrec *r = &env->syms[env->nsyms - 1];
    r->duck = false;
    r->info.declared = 1;
    r->info.dim_name = spec->name ? sy_env_strdup(env, spec->name) : NULL;
    if (spec->name && !r->info.dim_name) return NULL;
    r->info.dim_min = lo;
    r->info.dim_max = hi;
    if (sy_facts_set_range(env->facts, s, sy_expr_int_si(ctx, lo), hi >= 0 ? sy_expr_int_si(ctx, hi) : NULL) != SY_OK)
        return NULL;
    return s;
}

bool sy_env_symbol_add_source(sy_env *env, const sy_expr *sym, const char *source)
{
    symrec *r = find_symrec(env, sym);
    if (!r) return false;
    for (size_t i = 0; i < r->info.nsources; i++)
        if (!strcmp(r->info.sources[i], source)) return true;
    if (!r->info.unbacked && !sy_env_source_ok(env, source, r)) return false;
    return add_source(env, r, source) || (sy_oom(env->ctx), false);
}

const sy_expr *sy_env_create_unbacked(sy_env *env, int size_like, const char *source)
{
    if (!env) return NULL;
    /* name the unbacked value by what produced it: the op and node of the
     * current sy_env_call (PyTorch names it by its FX node too) */
    char desc[512];
    const char *src = source ? source : "value";
    if (env->cur_op && env->cur_node) snprintf(desc, sizeof desc, "%s (from %s at node %s)", src, env->cur_op, env->cur_node);
    else if (env->cur_op) snprintf(desc, sizeof desc, "%s (from %s)", src, env->cur_op);
    else snprintf(desc, sizeof desc, "%s", src);
    const sy_expr *u = new_symbol(env, 'u', &env->next_u, 0, 1, desc);
    if (!u) return NULL;
    if (size_like && sy_facts_set_range(env->facts, u, sy_expr_int_si(env->ctx, 0), NULL) != SY_OK) return NULL;
    return u;
}

/* "u0 = SOURCE" for messages */
static const char *unbacked_desc(sy_env *env, const sy_expr *u)
{
    const sy_symbol_info *si = sy_env_symbol_of(env, u);
    if (!si || !si->nsources) return sy_env_show(env, u);
    const char *name = sy_env_show(env, u);
    size_t n = strlen(name) + strlen(si->sources[0]) + 4;
    char *d = sy_env_alloc(env, n);
    if (!d) return name;
    snprintf(d, n, "%s = %s", name, si->sources[0]);
    return d;
}

size_t sy_env_nsymbols(const sy_env *env) { return env ? env->nsyms : 0; }
const sy_symbol_info *sy_env_symbol(const sy_env *env, size_t i)
{
    return env && i < env->nsyms ? &env->syms[i].info : NULL;
}
const sy_symbol_info *sy_env_symbol_of(const sy_env *env, const sy_expr *sym)
{
    symrec *r = env ? find_symrec(env, sym) : NULL;
    return r ? &r->info : NULL;
}

/* ------------------------------------------------------------------ hints */

/* The hints of every backed symbol of env bound by id (a symbol of the context that is not env's,
 * or an id past the binding, is unbound: its expression has no hint). Symbols made since the last
 * call are added, the binding grown to the context's symbols when one's id is past it. */
static bool ready_hints(sy_env *env)
{
    if (!env->hints_ready) {
        if (!sy_binding_init(env->ctx, &env->hints)) return false;
        env->hints_ready = true;
        env->hints_nbound = 0;
    }
    if (env->hints_nbound == env->nsyms) return true;
    if (!sy_binding_reserve(env->ctx, &env->hints, sy_ctx_nsyms(env->ctx))) return false;
    fmpz_t v;
    fmpz_init(v);
    for (size_t i = env->hints_nbound; i < env->nsyms; i++) {
        if (env->syms[i].info.unbacked) continue;
        fmpz_set_si(v, env->syms[i].info.hint);
        sy_binding_set(&env->hints, sy_expr_sym_id(env->syms[i].info.sym), v);
    }
    fmpz_clear(v);
    env->hints_nbound = env->nsyms;
    return true;
}

static const sy_expr *first_unbacked(sy_env *env, const sy_expr *e)
{
    /* no unbacked symbol was ever made in this env (each one advances next_u): e reads none of its
     * unbacked symbols, and the free-symbol walk (a third of recording a guard) is not needed */
    if (!env->next_u) return NULL;
    const sy_expr **fs;
    size_t n;
    if (sy_expr_free_symbols(env->ctx, e, &fs, &n) != SY_OK) return NULL;
    const sy_expr *u = NULL;
    for (size_t i = 0; i < n && !u; i++) {
        symrec *r = find_symrec(env, fs[i]);
        if (r && r->info.unbacked) u = fs[i];
    }
    sy_mem_free(env->ctx, fs);
    return u;
}

/* Mark the symbols of e as relied upon by a decision. Every decision touches
 * its relation, and most are asked again and again: a node whose symbols are
 * all this env's is remembered once they are marked (a mark is never
 * cleared, so touching it again changes nothing). The nodes touch sees are
 * results of finished operations, which no later rollback releases. */
/* ------------------------------------------------------------------ equality classes
 * Duck sizing gives dims of equal example sizes one symbol; its 0/1 range is a fact of that symbol,
 * relied upon (touched) only when a decision reads the symbol. Without duck sizing each dim has its
 * own symbol and the model itself makes them equal: broadcasting x + y, cat, matmul's inner dims
 * record the guard s0 == s1, and the facts replace s1 by s0. That guard holds by itself at every
 * size the set accepts (it is one of the set's guards): deciding it reads no range, so it touches
 * neither symbol (link_equal), and afterwards the two are one class, like one duck-sized symbol.
 * A class is touched as a whole (mark): the facts hold the intersection of its members' ranges
 * on the class's representative, so a decision that relies on that range, which touches the
 * member it reads, makes guard production emit every member's range guard. Invariant: the
 * members of a class are all touched or all untouched; an untouched class appears in no fact but
 * its ranges and its replacements sK -> sJ (every other fact came from a decision that touched its
 * symbols). PyTorch's produce_guards emits a range guard for every symbol of an input, touched or
 * not (torch/fx/experimental/symbolic_shapes.py, "3. Every symbol must be within its value range");
 * after the replacement s1 -> s0 both dims are sources of s0 and one range guard 2 <= s0 is
 * emitted, under duck sizing or not; symshape leaves out the range no decision relied upon, and
 * this keeps the two policies alike (issue 32). */

static size_t eq_next_of(const sy_env *env, size_t i) { return env->syms[i].eq_next ? env->syms[i].eq_next - 1 : i; }

static size_t eq_root(sy_env *env, size_t i)
{
    while (env->syms[i].eq_up) { /* path halving */
        size_t p = env->syms[i].eq_up - 1, g = env->syms[p].eq_up;
        if (g) env->syms[i].eq_up = g;
        i = g ? g - 1 : p;
    }
    return i;
}

/* r and every member of its class marked touched */
static void mark(sy_env *env, symrec *r)
{
    if (r->touched) return;
    size_t i0 = (size_t)(r - env->syms), i = i0;
    do {
        env->syms[i].touched = true;
        i = eq_next_of(env, i);
    } while (i != i0);
}

/* the classes of a and b joined: the guard a == b was recorded without touching either */
static void link_equal(sy_env *env, symrec *a, symrec *b)
{
    size_t ia = (size_t)(a - env->syms), ib = (size_t)(b - env->syms);
    size_t ra = eq_root(env, ia), rb = eq_root(env, ib);
    if (ra == rb) return;
    if (a->touched != b->touched) mark(env, a->touched ? b : a);
    size_t na = eq_next_of(env, ia), nb = eq_next_of(env, ib); /* two rings spliced into one */
    env->syms[ia].eq_next = nb + 1;
    env->syms[ib].eq_next = na + 1;
    env->syms[rb].eq_up = ra + 1;
}

/* e is sym == sym over two backed symbols of the env: their records in *a and *b */
static bool sym_equality(sy_env *env, const sy_expr *e, symrec **a, symrec **b)
{
    if (!e || sy_expr_kind_of(e) != SY_EXPR_EQ) return false;
    const sy_expr **fs;
    size_t n;
    if (sy_expr_free_symbols(env->ctx, e, &fs, &n) != SY_OK) return false;
    bool ok = false;
    if (n == 2) {
        symrec *ra = find_symrec(env, fs[0]), *rb = find_symrec(env, fs[1]);
        ok = ra && rb && !ra->info.unbacked && !rb->info.unbacked &&
             (e == sy_expr_eq(env->ctx, fs[0], fs[1]) || e == sy_expr_eq(env->ctx, fs[1], fs[0]));
        if (ok) {
            *a = ra;
            *b = rb;
        }
    }
    sy_mem_free(env->ctx, fs);
    return ok;
}

/* A decision of e, q = e with the facts' replacements applied, that reads only equality classes:
 * 1 when e is sJ == sK of one class (true by the class's guards, q is true), 2 when e and q are
 * sym == sym and q's symbols are in the classes of e's (*a, *b: q's records), 0 otherwise. */
static int class_question(sy_env *env, const sy_expr *e, const sy_expr *q, symrec **a, symrec **b)
{
    symrec *ea, *eb;
    if (!sym_equality(env, e, &ea, &eb)) return 0;
    size_t ra = eq_root(env, (size_t)(ea - env->syms)), rb = eq_root(env, (size_t)(eb - env->syms));
    if (sy_expr_kind_of(q) == SY_EXPR_TRUE) return ra == rb;
    if (ra == rb || !sym_equality(env, q, a, b)) return 0;
    size_t qa = eq_root(env, (size_t)(*a - env->syms)), qb = eq_root(env, (size_t)(*b - env->syms));
    return ((qa == ra && qb == rb) || (qa == rb && qb == ra)) ? 2 : 0;
}

static void touch(sy_env *env, const sy_expr *e)
{
    if (!e) return;
    if (env->touched_ready && sy_memo_get(&env->touched_nodes, e)) return;
    const sy_expr **fs;
    size_t n;
    if (sy_expr_free_symbols(env->ctx, e, &fs, &n) != SY_OK) return;
    bool all = true;
    for (size_t i = 0; i < n; i++) {
        symrec *r = find_symrec(env, fs[i]);
        if (r) mark(env, r);
        else all = false;
    }
    sy_mem_free(env->ctx, fs);
    if (!all) return;
    if (!env->touched_ready) env->touched_ready = sy_memo_init(env->ctx, &env->touched_nodes);
    if (env->touched_ready) (void)sy_memo_put(env->ctx, &env->touched_nodes, e, e); /* false: only the entry is lost */
}

/* every replaced symbol of e is replaced by a symbol of its equality class */
static bool links_only(sy_env *env, const sy_expr *e)
{
    const sy_expr **fs;
    size_t n;
    if (sy_expr_free_symbols(env->ctx, e, &fs, &n) != SY_OK) return false;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const sy_expr *rep = sy_facts_replacement(env->facts, fs[i]);
        if (!rep) continue;
        symrec *a = find_symrec(env, fs[i]), *b = find_symrec(env, rep);
        ok = a && b && eq_root(env, (size_t)(a - env->syms)) == eq_root(env, (size_t)(b - env->syms));
    }
    sy_mem_free(env->ctx, fs);
    return ok;
}

const sy_expr *sy_env_simplify(sy_env *env, const sy_expr *e)
{
    if (!env || !e) return NULL;
    const sy_expr *r = sy_simplify(env->facts, e);
    /* a rewrite that is only the replacements of equality classes holds wherever their guards do */
    if (r && r != e && !(r == sy_facts_apply(env->facts, e) && links_only(env, e))) touch(env, e);
    return r;
}

sy_status sy_env_bound(sy_env *env, const sy_expr *e, const sy_expr **lo, const sy_expr **hi)
{
    if (!env) return SY_EINVAL;
    if (!e || !lo || !hi) return sy_env_fail(env, SY_EINVAL, "bound: NULL argument");
    sy_status st = sy_bound(env->facts, e, lo, hi);
    if (st == SY_OK && (*lo || *hi)) touch(env, e);
    return st;
}

int sy_env_symbol_touched(const sy_env *env, const sy_expr *sym)
{
    symrec *r = env ? find_symrec(env, sym) : NULL;
    return r ? r->touched : 0;
}

sy_status sy_env_hint(sy_env *env, const sy_expr *e, const sy_expr **out)
{
    if (!env) return SY_EINVAL;
    if (!e || !out) return sy_env_fail(env, SY_EINVAL, "hint: NULL argument");
    if (!ready_hints(env)) return sy_env_fail(env, SY_ENOMEM, "out of memory");
    const sy_expr *u = first_unbacked(env, e);
    if (u) return sy_env_fail(env, SY_EINVAL, "%s has no hint: it depends on the unbacked symbol %s",
                              sy_env_show(env, e), sy_env_show(env, u));
    fmpz_t v;
    fmpz_init(v);
    sy_status st = sy_eval_raw(env->ctx, e, &env->hints, v);
    if (st == SY_OK) {
        *out = sy_expr_is_bool(e) ? sy_expr_bool(env->ctx, !fmpz_is_zero(v)) : sy_int_fmpz(env->ctx, v);
        if (!*out) st = sy_ctx_last_error(env->ctx);
    }
    fmpz_clear(v);
    return st;
}

/* ------------------------------------------------------------------ guards */

/* The slot of guard expression g in env->guard_hash (an empty one when g is
 * not recorded yet); the table is never full (guard_reserve). */
static size_t guard_find(const sy_env *env, const sy_expr *g)
{
    size_t m = env->guard_hcap - 1, j = (size_t)sy_expr_hash(g) & m;
    while (env->guard_hash[j] && env->guards[env->guard_hash[j] - 1].rec.expr != g) j = (j + 1) & m;
    return j;
}

/* Room in the guard index for one more guard; false when out of memory. */
static bool guard_reserve(sy_env *env)
{
    if ((env->nguards + 1) * 2 <= env->guard_hcap) return true;
    size_t nc = env->guard_hcap ? env->guard_hcap * 2 : 32;
    size_t *nh = sy_alloc(env->ctx, nc * sizeof *nh);
    if (!nh) return false;
    memset(nh, 0, nc * sizeof *nh);
    for (size_t i = 0; i < env->nguards; i++) {
        size_t j = (size_t)sy_expr_hash(env->guards[i].rec.expr) & (nc - 1);
        while (nh[j]) j = (j + 1) & (nc - 1);
        nh[j] = i + 1;
    }
    if (env->guard_hash) sy_dealloc(env->ctx, env->guard_hash, env->guard_hcap * sizeof *env->guard_hash);
    env->guard_hash = nh;
    env->guard_hcap = nc;
    return true;
}

static sy_status record_guard(sy_env *env, const sy_expr *g, sy_guard_kind kind, const sy_provenance *why)
{
    env->recorded++;
    if (!guard_reserve(env)) return sy_env_fail(env, SY_ENOMEM, "out of memory");
    size_t slot = guard_find(env, g); /* guards are hash-consed: one record per expression */
    guardrec *r = env->guard_hash[slot] ? &env->guards[env->guard_hash[slot] - 1] : NULL;
    if (!r) {
        if (env->nguards == env->guardcap) {
            size_t nc = env->guardcap ? env->guardcap * 2 : 16;
            guardrec *ng = sy_realloc(env->ctx, env->guards, env->guardcap * sizeof *ng, nc * sizeof *ng);
            if (!ng) return sy_env_fail(env, SY_ENOMEM, "out of memory");
            env->guards = ng;
            env->guardcap = nc;
        }
        r = &env->guards[env->nguards++];
        env->guard_hash[slot] = env->nguards;
        memset(r, 0, sizeof *r);
        r->rec.expr = g;
        r->rec.kind = kind;
    }
    r->rec.count++;
    const char *node = why ? why->node : NULL, *op = why ? why->op : NULL, *reason = why ? why->reason : NULL;
    const sy_loc *loc = &env->loc;
    for (size_t i = 0; i < r->rec.norigins; i++) {
        sy_guard_origin *o = &r->orig[i];
        if ((o->node == node || (o->node && node && !strcmp(o->node, node))) &&
            (o->op == op || (o->op && op && !strcmp(o->op, op))) &&
            (o->reason == reason || (o->reason && reason && !strcmp(o->reason, reason))) &&
            (o->loc.file == loc->file || (o->loc.file && loc->file && !strcmp(o->loc.file, loc->file))) &&
            o->loc.line == loc->line && o->required == env->requiring && o->limit == env->limiting) {
            o->count++;
            return SY_OK;
        }
    }
    if (r->rec.norigins == r->origcap) {
        size_t nc = r->origcap ? r->origcap * 2 : 2;
        sy_guard_origin *no = sy_realloc(env->ctx, r->orig, r->origcap * sizeof *no, nc * sizeof *no);
        if (!no) return sy_env_fail(env, SY_ENOMEM, "out of memory");
        r->orig = no;
        r->origcap = nc;
    }
    sy_guard_origin *o = &r->orig[r->rec.norigins++];
    o->node = sy_env_strdup(env, node);
    o->op = sy_env_strdup(env, op);
    o->reason = sy_env_strdup(env, reason);
    o->count = 1;
    o->required = env->requiring;
    o->limit = env->limiting;
    o->loc.file = loc->file ? sy_env_strdup(env, loc->file) : NULL;
    o->loc.line = loc->file ? loc->line : 0;
    o->loc.function = loc->file && loc->function ? sy_env_strdup(env, loc->function) : NULL;
    r->rec.origins = r->orig;
    return SY_OK;
}

void sy_env_set_loc(sy_env *env, const sy_loc *loc)
{
    if (!env) return;
    if (loc && loc->file) env->loc = *loc;
    else memset(&env->loc, 0, sizeof env->loc);
}

void sy_env_set_provenance(sy_env *env, const sy_provenance *where)
{
    if (!env) return;
    if (where) env->typed_where = *where;
    else memset(&env->typed_where, 0, sizeof env->typed_where);
}

void sy_env_set_torch_version(sy_env *env, int version)
{
    if (env) env->torch_version = version < 0 ? 0 : version;
}
int sy_env_torch_version(const sy_env *env) { return env ? env->torch_version : 0; }

size_t sy_env_nguards(const sy_env *env) { return env ? env->nguards : 0; }
const sy_guard_record *sy_env_guard(const sy_env *env, size_t i)
{
    return env && i < env->nguards ? &env->guards[i].rec : NULL;
}
size_t sy_env_guards_recorded(const sy_env *env) { return env ? env->recorded : 0; }

static sy_status unbacked_error(sy_env *env, const sy_expr *e, const sy_expr *u, const sy_provenance *why)
{
    return sy_env_fail(env, SY_EINVAL, "data-dependent question %s cannot be decided: it depends on the unbacked symbol %s%s%s",
                       sy_env_show(env, e), unbacked_desc(env, u), why && why->node ? " at node " : "",
                       why && why->node ? why->node : "");
}

/* Size-oblivious decision (PyTorch's guard_size_oblivious): a question on
 * unbacked sizes that the facts cannot decide is decided as if every
 * size-like unbacked symbol in it were >= 2 (sizes 0 and 1 are the special
 * cases). When that decides it, the answer is recorded as a runtime assert,
 * so the run checks the branch taken once the data exists (sound: a value
 * for which the branch is wrong fails the assert). *known = 0: still
 * undecided. */
static sy_status decide_size_oblivious(sy_env *env, const sy_expr *e, const sy_expr *q, const sy_provenance *why,
                                       int *known, const sy_expr **out)
{
    *known = 0;
    const sy_expr **fs;
    size_t nf;
    sy_status st = sy_expr_free_symbols(env->ctx, q, &fs, &nf);
    if (st) return st;
    sy_facts *f = sy_facts_copy(env->facts);
    if (!f) {
        sy_mem_free(env->ctx, fs);
        return sy_ctx_last_error(env->ctx);
    }
    int any = 0;
    for (size_t i = 0; i < nf && st == SY_OK; i++) {
        const sy_symbol_info *si = sy_env_symbol_of(env, fs[i]);
        const sy_expr *lo, *hi;
        if (!si || !si->unbacked || sy_facts_get_range(f, fs[i], &lo, &hi) != SY_OK || !lo) continue;
        int64_t l;
        if (sy_expr_get_si(lo, &l) || l < 0 || l >= 2) continue; /* size-like: lower bound 0 or 1 */
        st = sy_facts_set_range(f, fs[i], sy_expr_int_si(env->ctx, 2), hi);
        any = 1;
    }
    sy_mem_free(env->ctx, fs);
    sy_truth t = SY_TRUTH_UNKNOWN;
    if (st == SY_OK && any) st = sy_decide(f, sy_facts_apply(f, q), &t);
    sy_facts_free(f);
    if (st) return st;
    if (t == SY_TRUTH_UNKNOWN) return SY_OK;
    const sy_expr *g = t == SY_TRUTH_TRUE ? q : sy_expr_not(env->ctx, q);
    (void)e;
    if ((st = sy_env_runtime_assert(env, g, why))) return st;
    *known = 1;
    *out = sy_expr_bool(env->ctx, t == SY_TRUTH_TRUE);
    return SY_OK;
}

/* The guard to record for g (already decided unknown): simplified under the
 * facts so that internal parameters of divisibility facts never appear and
 * replaced symbols are written through their replacement. */
static const sy_expr *guard_form(sy_env *env, const sy_expr *g)
{
    const sy_expr *r = sy_simplify(env->facts, g);
    if (!r) {
        sy_ctx_reset_error(env->ctx);
        r = g;
    }
    return r;
}

sy_status sy_env_evaluate_expr(sy_env *env, const sy_expr *e, const sy_provenance *why, const sy_expr **out)
{
    if (!env) return SY_EINVAL;
    sy_ctx *ctx = env->ctx;
    if (!e || !out) return sy_env_fail(env, SY_EINVAL, "evaluate_expr: NULL argument");
    if (sy_expr_kind_of(e) == SY_EXPR_TRUE || sy_expr_kind_of(e) == SY_EXPR_FALSE) { /* no symbol to apply or touch */
        *out = e;
        return SY_OK;
    }
    const sy_expr *q = sy_facts_apply(env->facts, e);
    if (!q) return sy_ctx_last_error(ctx);
    /* a question between equality classes touches nothing unless the facts answer it, or its
     * guard is not the plain sym == sym (class_question, link_equal) */
    symrec *la = NULL, *lb = NULL;
    int cls = class_question(env, e, q, &la, &lb);
    if (cls == 1) {
        *out = q;
        return SY_OK;
    }
    if (!cls) {
        touch(env, e);
        touch(env, q);
    }
    sy_status st;
    if (sy_expr_is_bool(q)) {
        if (sy_expr_kind_of(q) == SY_EXPR_TRUE || sy_expr_kind_of(q) == SY_EXPR_FALSE) {
            *out = q;
            return SY_OK;
        }
        sy_truth t;
        if ((st = sy_decide(env->facts, q, &t))) return st;
        if (t != SY_TRUTH_UNKNOWN) {
            if (cls) { /* the facts answered: ranges may have */
                touch(env, e);
                touch(env, q);
            }
            *out = sy_expr_bool(ctx, t == SY_TRUTH_TRUE);
            return SY_OK;
        }
    } else if (sy_expr_is_int(q)) {
        *out = q;
        return SY_OK;
    }
    /* hints are defined on the original symbols: evaluate e, not q */
    const sy_expr *u = first_unbacked(env, e);
    if (u) {
        int known = 0;
        if (sy_expr_is_bool(q) && (st = decide_size_oblivious(env, e, q, why, &known, out))) return st;
        return known ? SY_OK : unbacked_error(env, e, u, why);
    }
    const sy_expr *v;
    if ((st = sy_env_hint(env, e, &v))) return st;
    const sy_expr *g;
    if (sy_expr_is_bool(q)) {
        g = sy_expr_kind_of(v) == SY_EXPR_TRUE ? q : sy_expr_not(ctx, q);
    } else {
        g = sy_expr_eq(ctx, q, v);
        sy_truth t;
        if (g && (st = sy_decide(env->facts, g, &t))) return st;
        if (g && t == SY_TRUTH_TRUE) {
            *out = v;
            return SY_OK;
        }
    }
    if (!g) return sy_ctx_last_error(ctx);
    const sy_expr *g0 = g;
    g = guard_form(env, g);
    bool linked = cls && g == q && g0 == q; /* the guard is q itself: the classes join, nothing touched */
    if (cls && !linked) {
        touch(env, e);
        touch(env, q);
    }
    if (sy_expr_kind_of(g) != SY_EXPR_TRUE) {
        if ((st = record_guard(env, g, SY_GUARD_RELATION, why))) return st;
        if ((st = sy_facts_add(env->facts, g))) return st;
    }
    if (linked) link_equal(env, la, lb);
    *out = v;
    return SY_OK;
}

sy_status sy_env_runtime_assert(sy_env *env, const sy_expr *rel, const sy_provenance *why)
{
    if (!env) return SY_EINVAL;
    if (!rel || !sy_expr_is_bool(rel)) return sy_env_fail(env, SY_EINVAL, "runtime_assert: expected a relation");
    const sy_expr *q = sy_facts_apply(env->facts, rel);
    if (!q) return sy_ctx_last_error(env->ctx);
    touch(env, rel);
    touch(env, q);
    sy_truth t;
    sy_status st = sy_decide(env->facts, q, &t);
    if (st) return st;
    if (t == SY_TRUTH_TRUE) return SY_OK;
    if (t == SY_TRUTH_FALSE)
        return sy_env_fail(env, SY_EINVAL, "runtime assert %s can never hold%s%s", sy_env_show(env, q),
                           why && why->reason ? ": " : "", why && why->reason ? why->reason : "");
    q = guard_form(env, q);
    if (sy_expr_kind_of(q) == SY_EXPR_TRUE) return SY_OK;
    if ((st = record_guard(env, q, SY_GUARD_RUNTIME_ASSERT, why))) return st;
    return sy_facts_add(env->facts, q);
}

/* The passing case of sy_env_require without its reason: *done = 1 when the
 * facts prove rel (or rel is NULL: *st is the error), with exactly the side
 * effects sy_env_require has then (the symbols of the applied relation are
 * touched, nothing is recorded). *done = 0: anything else (false, unknown,
 * a guard or a runtime assert to record), left to sy_env_require, which needs
 * the reason. Lets op_require format its message only when it is used. */
void sy_env_require_passes(sy_env *env, const sy_expr *rel, int *done, sy_status *st)
{
    *done = 0;
    *st = SY_OK;
    if (!rel) {
        *done = 1;
        *st = sy_ctx_last_error(env->ctx);
        return;
    }
    if (sy_expr_kind_of(rel) == SY_EXPR_TRUE) {
        *done = 1; /* sy_opc_require skipped it before formatting too */
        return;
    }
    if (!sy_expr_is_bool(rel)) return;
    uintptr_t h = (uintptr_t)rel;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    struct sy_env_passed *slot = env->passed ? &env->passed[(h >> 20) & (SY_PASSED_MEMO - 1)] : NULL;
    uint64_t fv = sy_facts_version(env->facts), gen = sy_ctx_generation(env->ctx);
    if (slot && slot->rel == rel && slot->fv == fv && slot->gen == gen && slot->nsyms == env->nsyms) {
        env->passed_hits++;
        *done = 1; /* as below under the same facts: proven, and touched already */
        return;
    }
    const sy_expr *q = sy_facts_apply(env->facts, rel);
    if (!q || !sy_expr_is_bool(q) || sy_expr_kind_of(q) == SY_EXPR_TRUE || sy_expr_kind_of(q) == SY_EXPR_FALSE) {
        if (!q) sy_ctx_reset_error(env->ctx); /* sy_env_require reports it */
        return;
    }
    sy_truth t;
    if (sy_decide(env->facts, q, &t) != SY_OK) {
        sy_ctx_reset_error(env->ctx);
        return;
    }
    if (t != SY_TRUTH_TRUE) return;
    /* sy_env_require then runs sy_env_evaluate_expr(q): q2 = apply(q), touch
     * q and q2, decide q2. With q2 == q that decision is the one just made. */
    if (sy_facts_apply(env->facts, q) != q) {
        sy_ctx_reset_error(env->ctx);
        return;
    }
    touch(env, q);
    *done = 1;
    if (!env->passed) { /* a failed allocation only loses the memo */
        env->passed = sy_env_alloc(env, SY_PASSED_MEMO * sizeof *env->passed);
        if (!env->passed) {
            sy_ctx_reset_error(env->ctx);
            return;
        }
        slot = &env->passed[(h >> 20) & (SY_PASSED_MEMO - 1)];
    }
    *slot = (struct sy_env_passed){rel, fv, gen, env->nsyms};
}

sy_status sy_env_require(sy_env *env, const sy_expr *rel, const sy_provenance *why)
{
    if (!env) return SY_EINVAL;
    if (!rel || !sy_expr_is_bool(rel)) return sy_env_fail(env, SY_EINVAL, "require: expected a relation");
    const sy_expr *q = sy_facts_apply(env->facts, rel);
    if (!q) return sy_ctx_last_error(env->ctx);
    if (sy_expr_is_bool(q) && sy_expr_kind_of(q) != SY_EXPR_TRUE && sy_expr_kind_of(q) != SY_EXPR_FALSE) {
        sy_truth t;
        sy_status st = sy_decide(env->facts, q, &t);
        if (st) return st;
        if (t == SY_TRUTH_UNKNOWN && (first_unbacked(env, q) || first_unbacked(env, rel))) return sy_env_runtime_assert(env, q, why);
    }
    const sy_expr *v;
    int outer = env->requiring;
    env->requiring = 1;
    sy_status st = sy_env_evaluate_expr(env, q, why, &v);
    env->requiring = outer;
    if (st) return st;
    if (sy_expr_kind_of(v) == SY_EXPR_FALSE) {
        env->failed_rel = rel;
        return sy_env_fail(env, SY_EINVAL, "%s", why && why->reason ? why->reason : "a required condition is false");
    }
    return SY_OK;
}

void sy_env_set_failed_relation(sy_env *env, const sy_expr *rel)
{
    if (env) env->failed_rel = rel;
}

const sy_expr *sy_env_failed_relation(const sy_env *env) { return env ? env->failed_rel : NULL; }

sy_status sy_env_evaluate_limit(sy_env *env, const sy_expr *rel, const sy_provenance *why, const sy_expr **out)
{
    if (!env) return SY_EINVAL;
    int outer = env->limiting;
    env->limiting = 1;
    sy_status st = sy_env_evaluate_expr(env, rel, why, out);
    env->limiting = outer;
    return st;
}

sy_status sy_env_assume(sy_env *env, const sy_expr *rel, const sy_provenance *why)
{
    if (!env) return SY_EINVAL;
    if (!rel || !sy_expr_is_bool(rel)) return sy_env_fail(env, SY_EINVAL, "assume: expected a relation");
    const sy_expr *q = sy_facts_apply(env->facts, rel);
    if (!q) return sy_ctx_last_error(env->ctx);
    touch(env, rel);
    touch(env, q);
    if (sy_expr_kind_of(q) == SY_EXPR_TRUE) return SY_OK;
    if (sy_expr_kind_of(q) == SY_EXPR_FALSE) return sy_env_fail(env, SY_EINVAL, "assumption contradicts what is known");
    sy_truth t;
    sy_status st0 = sy_decide(env->facts, q, &t);
    if (st0) return st0;
    if (t == SY_TRUTH_TRUE) return SY_OK; /* already known: nothing to record */
    if (t == SY_TRUTH_FALSE) return sy_env_fail(env, SY_EINVAL, "assumption %s contradicts what is known", sy_env_show(env, q));
    /* the example must satisfy it, or the traced graph would not be valid there */
    if (!first_unbacked(env, rel)) {
        const sy_expr *h;
        if ((st0 = sy_env_hint(env, rel, &h))) return st0;
        if (sy_expr_kind_of(h) == SY_EXPR_FALSE)
            return sy_env_fail(env, SY_EINVAL, "assumption %s does not hold at the example sizes", sy_env_show(env, rel));
    }
    sy_provenance w = {why ? why->node : NULL, why && why->op ? why->op : "assume", why && why->reason ? why->reason : "user fact"};
    q = guard_form(env, q);
    sy_status st = record_guard(env, q, SY_GUARD_RELATION, &w);
    return st ? st : sy_facts_add(env->facts, q);
}

/* A decision from the facts alone (no hint, no guard): *known = 0 when the
 * facts do not decide the relation. The symbols are touched as by
 * evaluate_expr when decided (their ranges were relied upon). */
sy_status sy_env_try_decide(sy_env *env, const sy_expr *rel, int *known, int *val)
{
    return sy_env_try_decide_in(env, env->facts, rel, known, val);
}

sy_status sy_env_try_decide_in(sy_env *env, sy_facts *facts, const sy_expr *rel, int *known, int *val)
{
    *known = 0;
    *val = 0;
    if (!rel) return sy_ctx_last_error(env->ctx);
    const sy_expr *q = sy_facts_apply(facts, rel);
    if (!q) return sy_ctx_last_error(env->ctx);
    symrec *la, *lb;
    if (class_question(env, rel, q, &la, &lb) == 1) { /* true by the guards of one equality class */
        *known = 1;
        *val = 1;
        return SY_OK;
    }
    sy_truth t = SY_TRUTH_UNKNOWN;
    if (sy_expr_kind_of(q) == SY_EXPR_TRUE) t = SY_TRUTH_TRUE;
    else if (sy_expr_kind_of(q) == SY_EXPR_FALSE) t = SY_TRUTH_FALSE;
    else {
        sy_status st = sy_decide(facts, q, &t);
        if (st) return st;
    }
    if (t == SY_TRUTH_UNKNOWN) return SY_OK;
    touch(env, rel);
    touch(env, q);
    *known = 1;
    *val = t == SY_TRUTH_TRUE;
    return SY_OK;
}

int sy_env_mentions_unbacked(sy_env *env, const sy_expr *e) { return e && first_unbacked(env, e) != NULL; }
