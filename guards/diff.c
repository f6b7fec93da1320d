/* A semantic diff of two guard sets: include/symshape/diff.h and
 * docs/guards.md section 8. Reads the sets only through their public
 * accessors (or their JSON form) and decides with the public decision
 * procedure (sy_decide); every "false" carries a witness that exact
 * evaluation confirms.
 * Length (about 1,340 lines, over the tree's 1,200): one job, the diff: deciding both
 * implications, the witness searches, pairing narrowed/widened guards and the text/JSON
 * renderings share the per-guard state that this file keeps private. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/internal.h"
#include "symshape/diff.h"

#define WITNESS_TRIES 2000 /* candidate points per guard not proved implied */
#define MAX_CONSTS 64      /* constants of the guards used as candidate values */
#define LET_PAST 100000    /* texts of larger trees are printed in let-form */
#define SEARCH_BUDGET 2000000u /* guard evaluations of all the witness searches together */
#define SMALL_SIDE 256u         /* a side with more checked guards is searched without Not(g) in its facts */
#define PAIR_BUDGET 4096u       /* decisions spent pairing dropped and added guards */


typedef struct dguard {
    sy_diff_guard pub;
    const sy_expr *raw;  /* over the side's slot symbols _sK */
    const sy_expr *expr; /* over the merged source variables (after sy_diff_run) */
    size_t nslots;
    size_t *slots;       /* merged indices, ascending */
} dguard;

typedef struct dside {
    int set;
    const char *model;
    size_t nsrc;
    const char **src;  /* source texts as read */
    size_t *merged;    /* slot -> merged index */
    size_t ng;
    dguard *g;
    sy_facts *f;       /* domain + checked guards */
    int empty;         /* the facts are contradictory: the side accepts nothing */
    sy_memo checked;   /* expr -> index + 1 of its first checked guard */
    size_t nconsts;
    int64_t *consts;   /* constants of its checked guards (at most MAX_CONSTS), for the witness searches */
} dside;

struct sy_diff {
    sy_ctx *ctx;
    sy_block *blocks;
    dside s[2];
    size_t nmap;
    const char **mold, **mnew;
    int ran;
    size_t nm;
    const char **msrc;
    const sy_expr **mvar;
    int64_t *mlo, *mhi; /* domain of each merged source (mhi < mlo: no upper bound) */
    size_t ne, ecap;
    sy_diff_entry *e;
    sy_truth sub[2];
    const int64_t *wit[2];
    long wrej[2];
    uint64_t rng;
    sy_diff_prover prover;
    void *prover_ud;
    uint64_t evals;    /* guard evaluations (the witness searches count them) */
    uint64_t evk[2];   /* evaluations of the searches over side k's region (half the budget each) */
    int budget_hit;    /* a search stopped on SEARCH_BUDGET (or pairing on PAIR_BUDGET) */
    unsigned pairs;
    size_t nz;         /* the size sources NAME.size()[I], each input's next to each other (numel rule) */
    const char **zsrc;
    size_t *zidx;      /* their merged indices */
    long *zrank;       /* the merged index of their input's NAME.dim() source, -1 when no side reads it */
    size_t *zdim;      /* their I */
    int64_t *zval;     /* scratch: their values at a candidate */
};

static const char *const change_names[] = {"restated", "added", "dropped", "narrowed", "widened"};

const char *sy_diff_change_name(sy_diff_change c) { return (unsigned)c <= SY_DIFF_WIDENED ? change_names[c] : "?"; }

/* ---- memory: everything the diff makes lives until sy_diff_free */

static void *dalloc(sy_diff *d, size_t n) { return sy_blocks_alloc(d->ctx, &d->blocks, n); }

static void *dcalloc(sy_diff *d, size_t n, size_t el) { return sy_blocks_array(d->ctx, &d->blocks, n, el); }

static char *dstrdup(sy_diff *d, const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s);
    char *r = dalloc(d, n + 1);
    if (r) memcpy(r, s, n + 1);
    return r;
}

static char *dprintf_(sy_diff *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static char *dprintf_(sy_diff *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *r = dalloc(d, (size_t)n + 1);
    if (!r) return NULL;
    va_start(ap, fmt);
    vsnprintf(r, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return r;
}

sy_status sy_diff_new(sy_ctx *ctx, sy_diff **out)
{
    if (out) *out = NULL;
    if (!ctx || !out) return ctx ? sy_fail_st(ctx, SY_EINVAL, "diff: NULL argument") : SY_EINVAL;
    sy_diff *d = sy_alloc(ctx, sizeof *d);
    if (!d) return sy_oom(ctx), SY_ENOMEM;
    memset(d, 0, sizeof *d);
    d->ctx = ctx;
    d->sub[0] = d->sub[1] = SY_TRUTH_UNKNOWN;
    d->wrej[0] = d->wrej[1] = -1;
    d->rng = 0x9e3779b97f4a7c15u;
    *out = d;
    return SY_OK;
}

sy_diff *sy_diff_free(sy_diff *d)
{
    if (!d) return NULL;
    sy_ctx *ctx = d->ctx;
    for (int k = 0; k < 2; k++) {
        sy_facts_free(d->s[k].f);
        sy_memo_clear(ctx, &d->s[k].checked);
    }
    sy_blocks_free(ctx, d->blocks);
    sy_dealloc(ctx, d, sizeof *d);
    return NULL;
}

static const sy_expr *slot_sym(sy_ctx *ctx, size_t k)
{
    char nm[32];
    snprintf(nm, sizeof nm, "_s%zu", k);
    return sy_expr_sym(ctx, nm);
}

static sy_status side_check(sy_diff *d, sy_diff_side side)
{
    if (!d) return SY_EINVAL;
    if ((unsigned)side > SY_DIFF_B) return sy_fail_st(d->ctx, SY_EINVAL, "diff: side %d is neither A (0) nor B (1)", (int)side);
    if (d->s[side].set) return sy_fail_st(d->ctx, SY_EINVAL, "diff: side %c is already set", side ? 'B' : 'A');
    if (d->ran) return sy_fail_st(d->ctx, SY_EINVAL, "diff: already run");
    return SY_OK;
}

static char *origin_text(sy_diff *d, const char *node, const char *op, const char *reason, int required,
                         const char *file, long line)
{
    char loc[512] = "";
    if (file && *file) snprintf(loc, sizeof loc, " at %s:%ld", file, line);
    return dprintf_(d, "%s (%s): %s%s%s", node ? node : "?", op ? op : "?", reason ? reason : "", required ? " [required]" : "",
                    loc);
}

/* Parse the canonical text of one guard (over _sK) into the diff's context. */
static sy_status parse_guard(sy_diff *d, const char *what, size_t i, const char *text, size_t nsrc, const sy_expr **out)
{
    const sy_expr *e = NULL;
    sy_status st = sy_expr_parse(d->ctx, text, (size_t)-1, &e);
    if (st != SY_OK) {
        if (st == SY_ENOMEM) return st;
        return sy_fail_st(d->ctx, SY_EFORMAT, "%s: guard %zu: expr does not parse: %s", what, i, sy_ctx_last_error_msg(d->ctx));
    }
    if (!sy_expr_is_bool(e)) return sy_fail_st(d->ctx, SY_EFORMAT, "%s: guard %zu: expr is not a relation", what, i);
    /* every _sK it reads must be a slot of the set */
    const sy_expr **syms = NULL;
    size_t n = 0;
    if ((st = sy_expr_free_symbols(d->ctx, e, &syms, &n)) != SY_OK) return st;
    for (size_t k = 0; k < n; k++) {
        const char *nm = sy_expr_sym_name(syms[k]);
        if (nm[0] == '_' && nm[1] == 's') {
            char *endp;
            unsigned long v = strtoul(nm + 2, &endp, 10);
            if (!*endp && nm[2] >= '0' && nm[2] <= '9' && v >= nsrc) {
                sy_mem_free(d->ctx, syms);
                return sy_fail_st(d->ctx, SY_EFORMAT, "%s: guard %zu: expr reads slot %lu, the set has %zu sources", what, i, v,
                                  nsrc);
            }
        }
    }
    sy_mem_free(d->ctx, syms);
    *out = e;
    return SY_OK;
}

sy_status sy_diff_set_gset(sy_diff *d, sy_diff_side side, const sy_gset *gs)
{
    sy_status st = side_check(d, side);
    if (st != SY_OK) return st;
    if (!gs) return sy_fail_st(d->ctx, SY_EINVAL, "diff: NULL guard set");
    dside *s = &d->s[side];
    s->model = dstrdup(d, sy_gset_model(gs));
    s->nsrc = sy_gset_nsources(gs);
    s->ng = sy_gset_size(gs);
    s->src = dcalloc(d, s->nsrc, sizeof *s->src);
    s->g = dcalloc(d, s->ng, sizeof *s->g);
    if (!s->model || !s->src || !s->g) return SY_ENOMEM;
    for (size_t i = 0; i < s->nsrc; i++)
        if (!(s->src[i] = dstrdup(d, sy_gset_source(gs, i)))) return SY_ENOMEM;
    sy_ctx *gctx = sy_gset_ctx(gs);
    for (size_t i = 0; i < s->ng; i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        dguard *q = &s->g[i];
        q->pub.kind = sy_gset_kind_name(g->kind);
        q->pub.checked = g->kind != SY_GK_RUNTIME_ASSERT;
        q->pub.why = dstrdup(d, g->why);
        if (g->norigins) {
            const sy_guard_origin *o = &g->origins[0];
            q->pub.origin = origin_text(d, o->node, o->op, o->reason, o->required, o->loc.file, (long)o->loc.line);
        } else
            q->pub.origin = dstrdup(d, "");
        if (!q->pub.why || !q->pub.origin) return SY_ENOMEM;
        char *canon = sy_gset_guard_canonical(gs, i);
        if (!canon) {
            sy_status e = sy_ctx_last_error(gctx);
            if (gctx != d->ctx) sy_fail_st(d->ctx, e, "diff: guard %zu: %s", i, sy_ctx_last_error_msg(gctx));
            return e == SY_OK ? SY_ENOMEM : e;
        }
        st = parse_guard(d, "guard set", i, canon, s->nsrc, &q->raw);
        sy_str_free(gctx, canon);
        if (st != SY_OK) return st;
    }
    s->set = 1;
    return SY_OK;
}

static const char *jstr(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

sy_status sy_diff_set_json(sy_diff *d, sy_diff_side side, const char *text, size_t len, const char *name)
{
    sy_status st = side_check(d, side);
    if (st != SY_OK) return st;
    if (!text) return sy_fail_st(d->ctx, SY_EINVAL, "diff: NULL text");
    if (!name) name = "<json>";
    if (len == (size_t)-1) len = strlen(text);
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) return sy_fail_st(d->ctx, SY_EFORMAT, "%s:%d:%d: %s", name, err.line, err.column, err.text);
    dside *s = &d->s[side];
    json_t *srcs = json_object_get(root, "sources"), *gs = json_object_get(root, "guards");
    const char *fmt = jstr(root, "format");
    json_t *ver = json_object_get(root, "version");
    if (!json_is_object(root) || !fmt || strcmp(fmt, "symshape.guards") || !json_is_integer(ver) || json_integer_value(ver) != 1) {
        st = sy_fail_st(d->ctx, SY_EFORMAT, "%s: not a guard set (\"format\": \"symshape.guards\", \"version\": 1)", name);
        goto done;
    }
    if (!json_is_array(srcs) || !json_is_array(gs)) {
        st = sy_fail_st(d->ctx, SY_EFORMAT, "%s: \"sources\" and \"guards\" must be arrays", name);
        goto done;
    }
    s->model = dstrdup(d, jstr(root, "model") ? jstr(root, "model") : "model");
    s->nsrc = json_array_size(srcs);
    s->ng = json_array_size(gs);
    s->src = dcalloc(d, s->nsrc, sizeof *s->src);
    s->g = dcalloc(d, s->ng, sizeof *s->g);
    if (!s->model || !s->src || !s->g) {
        st = SY_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < s->nsrc; i++) {
        json_t *v = json_array_get(srcs, i);
        if (!json_is_string(v)) {
            st = sy_fail_st(d->ctx, SY_EFORMAT, "%s: sources[%zu] is not a string", name, i);
            goto done;
        }
        if (!(s->src[i] = dstrdup(d, json_string_value(v)))) {
            st = SY_ENOMEM;
            goto done;
        }
    }
    for (size_t i = 0; i < s->ng; i++) {
        json_t *g = json_array_get(gs, i);
        dguard *q = &s->g[i];
        const char *kind = json_is_object(g) ? jstr(g, "kind") : NULL, *expr = json_is_object(g) ? jstr(g, "expr") : NULL;
        if (!kind || !expr) {
            st = sy_fail_st(d->ctx, SY_EFORMAT, "%s: guards[%zu] needs string fields \"kind\" and \"expr\"", name, i);
            goto done;
        }
        int known = 0;
        for (int k = 0; k <= SY_GK_RUNTIME_ASSERT; k++) known |= !strcmp(kind, sy_gset_kind_name((sy_gset_kind)k));
        if (!known) {
            st = sy_fail_st(d->ctx, SY_EFORMAT, "%s: guards[%zu]: unknown kind '%s'", name, i, kind);
            goto done;
        }
        q->pub.kind = sy_gset_kind_name(SY_GK_TENSOR_MATCH);
        for (int k = 0; k <= SY_GK_RUNTIME_ASSERT; k++)
            if (!strcmp(kind, sy_gset_kind_name((sy_gset_kind)k))) q->pub.kind = sy_gset_kind_name((sy_gset_kind)k);
        q->pub.checked = strcmp(kind, "runtime_assert") != 0;
        q->pub.why = dstrdup(d, jstr(g, "why"));
        json_t *os = json_object_get(g, "origins");
        json_t *o = json_is_array(os) ? json_array_get(os, 0) : NULL;
        if (json_is_object(o)) {
            json_t *loc = json_object_get(o, "loc");
            json_t *line = json_is_object(loc) ? json_object_get(loc, "line") : NULL;
            q->pub.origin = origin_text(d, jstr(o, "node"), jstr(o, "op"), jstr(o, "reason"),
                                        json_is_true(json_object_get(o, "required")), json_is_object(loc) ? jstr(loc, "file") : NULL,
                                        json_is_integer(line) ? (long)json_integer_value(line) : 0);
        } else
            q->pub.origin = dstrdup(d, "");
        if (!q->pub.why || !q->pub.origin) {
            st = SY_ENOMEM;
            goto done;
        }
        if ((st = parse_guard(d, name, i, expr, s->nsrc, &q->raw)) != SY_OK) goto done;
    }
    s->set = 1;
done:
    json_decref(root);
    return st;
}

sy_status sy_diff_set_prover(sy_diff *d, sy_diff_prover fn, void *ud)
{
    if (!d) return SY_EINVAL;
    if (d->ran) return sy_fail_st(d->ctx, SY_EINVAL, "diff: prover after run");
    d->prover = fn;
    d->prover_ud = ud;
    return SY_OK;
}

sy_status sy_diff_map(sy_diff *d, const char *old_name, const char *new_name)
{
    if (!d) return SY_EINVAL;
    if (!old_name || !new_name || !*old_name || !*new_name) return sy_fail_st(d->ctx, SY_EINVAL, "diff: map needs two non-empty input names");
    if (d->ran) return sy_fail_st(d->ctx, SY_EINVAL, "diff: map after run");
    for (size_t i = 0; i < d->nmap; i++)
        if (!strcmp(d->mold[i], old_name)) {
            if (!(d->mnew[i] = dstrdup(d, new_name))) return SY_ENOMEM;
            return SY_OK;
        }
    const char **o = dcalloc(d, d->nmap + 1, sizeof *o), **n = dcalloc(d, d->nmap + 1, sizeof *n);
    if (!o || !n) return SY_ENOMEM;
    if (d->nmap) {
        memcpy(o, d->mold, d->nmap * sizeof *o);
        memcpy(n, d->mnew, d->nmap * sizeof *n);
    }
    if (!(o[d->nmap] = dstrdup(d, old_name)) || !(n[d->nmap] = dstrdup(d, new_name))) return SY_ENOMEM;
    d->mold = o;
    d->mnew = n;
    d->nmap++;
    return SY_OK;
}

/* A's source text after the renames (the input name is the source's prefix, sy_gset_source_parse). */
static const char *renamed(sy_diff *d, const char *src)
{
    size_t nl = 0;
    if (sy_gset_source_parse(src, &nl, NULL) < 0) return src;
    for (size_t i = 0; i < d->nmap; i++)
        if (strlen(d->mold[i]) == nl && !strncmp(src, d->mold[i], nl)) return dprintf_(d, "%s%s", d->mnew[i], src + nl);
    return src;
}

/* index of a checked guard of s equal to e, or -1 (one lookup) */
static long in_side(const dside *s, const sy_expr *e)
{
    const sy_expr *v = s->checked.keys ? sy_memo_get(&s->checked, e) : NULL;
    return v ? (long)((uintptr_t)v - 1) : -1;
}

/* ---- evaluation at a point */

/* 1 the guard holds at vals, 0 it fails (a division by zero or any evaluation error fails it, as sy_gset_check) */
static int holds(sy_diff *d, const sy_expr *e, const int64_t *vals)
{
    int64_t v = 0;
    d->evals++;
    sy_status st = sy_expr_eval_si(d->ctx, e, d->nm, d->mvar, vals, &v);
    if (st != SY_OK) {
        sy_ctx_reset_error(d->ctx);
        return 0;
    }
    return v != 0;
}

/* 1 when an input cannot exist at vals: its numel is past int64 (sy_gset_check rejects it on
 * either side, after the guards; so a point with such an input is no witness: attack47n, A with
 * `x1.size()[1] <= 2**63 - 2` and B without it differ only at x1 = [2, 2**63 - 1]) */
static int no_input_at(sy_diff *d, const int64_t *vals)
{
    if (!d->nz) return 0;
    /* a size source at or past the input's rank at vals is no dim of it (A reads x of rank 4, B of rank 3:
     * x.size()[3] is free where x.dim() == 3, and its 0 made the numel 0; verify47n: a witness
     * x = [5, 2^63 - 1, 241] that B was said to accept, where B rejects it as an input that cannot exist) */
    for (size_t i = 0; i < d->nz; i++) {
        int64_t r = d->zrank[i] >= 0 ? vals[d->zrank[i]] : INT64_MAX;
        d->zval[i] = r >= 0 && (uint64_t)d->zdim[i] >= (uint64_t)r ? 1 : vals[d->zidx[i]];
    }
    sy_gset_result res = SY_GSET_RESULT_INIT;
    return sy_gset_numel_check_si(d->zsrc, d->zval, d->nz, &res) == 1;
}

/* index of the first checked guard of side k failing at vals, -1 when it accepts */
static long first_failing(sy_diff *d, int k, const int64_t *vals)
{
    dside *s = &d->s[k];
    for (size_t i = 0; i < s->ng; i++)
        if (s->g[i].pub.checked && !holds(d, s->g[i].expr, vals)) return (long)i;
    return -1;
}

static uint64_t rnd(sy_diff *d)
{
    uint64_t z = (d->rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* ---- collecting constants and divisors */

typedef struct collect {
    sy_diff *d;
    int64_t *consts;
    size_t nconsts;
    const sy_expr **divs;
    size_t ndivs, capdivs;
    int want_divs;
    sy_memo seen; /* nodes already visited (a DAG is walked once) */
} collect;

static void add_const(collect *c, int64_t v)
{
    for (size_t i = 0; i < c->nconsts; i++)
        if (c->consts[i] == v) return;
    if (c->nconsts < MAX_CONSTS) c->consts[c->nconsts++] = v;
}

static sy_status visit_collect(void *ud, const sy_expr *e)
{
    collect *c = ud;
    sy_expr_kind k = sy_expr_kind_of(e);
    int64_t v;
    if (k == SY_EXPR_INT && sy_expr_get_si(e, &v) == SY_OK) {
        add_const(c, v);
        if (v != INT64_MIN) add_const(c, -v);
    } else if (k == SY_EXPR_ADD) {
        const sy_expr *k0 = sy_expr_add_const(c->d->ctx, e);
        if (k0 && sy_expr_get_si(k0, &v) == SY_OK && v != INT64_MIN) {
            add_const(c, v);
            add_const(c, -v);
        }
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            const sy_expr *ci = sy_expr_add_coeff(c->d->ctx, e, i);
            if (ci && sy_expr_get_si(ci, &v) == SY_OK && v != INT64_MIN) add_const(c, v < 0 ? -v : v);
        }
        sy_ctx_reset_error(c->d->ctx);
    } else if (c->want_divs && (k == SY_EXPR_FLOORDIV || k == SY_EXPR_MOD || k == SY_EXPR_CEILDIV)) {
        const sy_expr *dv = sy_expr_arg(e, 1);
        if (!sy_expr_is_int(dv)) {
            for (size_t i = 0; i < c->ndivs; i++)
                if (c->divs[i] == dv) return SY_OK;
            if (c->ndivs == c->capdivs) {
                size_t nc = c->capdivs ? 2 * c->capdivs : 8;
                const sy_expr **nd = dcalloc(c->d, nc, sizeof *nd);
                if (!nd) return SY_ENOMEM;
                if (c->ndivs) memcpy(nd, c->divs, c->ndivs * sizeof *nd);
                c->divs = nd;
                c->capdivs = nc;
            }
            c->divs[c->ndivs++] = dv;
        }
    }
    return SY_OK;
}

static int skip_seen(void *ud, const sy_expr *e)
{
    collect *c = ud;
    if (sy_memo_get(&c->seen, e)) return 1;
    return !sy_memo_put(c->d->ctx, &c->seen, e, e); /* out of memory: skip; the walk's caller sees SY_ENOMEM */
}

/* each distinct node once, over all the roots given to one collect */
static sy_status collect_from(collect *c, const sy_expr *e)
{
    sy_status st = sy_expr_walk_postorder(c->d->ctx, e, skip_seen, visit_collect, c);
    if (st == SY_OK && sy_ctx_last_error(c->d->ctx) == SY_ENOMEM) st = SY_ENOMEM;
    return st;
}

/* ---- deciding one implication */

/* Facts of side k: the domain and its checked guards. A guard the facts
 * cannot take (a budget) is left out: fewer premises only weaken them. */
static sy_status side_facts(sy_diff *d, int k)
{
    dside *s = &d->s[k];
    s->f = sy_facts_new(d->ctx);
    if (!s->f) return SY_ENOMEM;
    for (size_t i = 0; i < d->nm; i++) {
        const sy_expr *lo = sy_expr_int_si(d->ctx, d->mlo[i]);
        const sy_expr *hi = d->mhi[i] >= d->mlo[i] ? sy_expr_int_si(d->ctx, d->mhi[i]) : NULL;
        if (!lo) return SY_ENOMEM;
        sy_status st = sy_facts_set_range(s->f, d->mvar[i], lo, hi);
        if (st != SY_OK) return st;
    }
    for (size_t i = 0; i < s->ng; i++) {
        if (!s->g[i].pub.checked) continue;
        sy_status st = sy_facts_add(s->f, s->g[i].expr);
        if (st == SY_ENOMEM) return st;
        if (st != SY_OK) sy_ctx_reset_error(d->ctx);
    }
    s->empty = sy_facts_consistent(s->f) == SY_FALSE;
    /* the constants of its guards, once (not per search) */
    int64_t cbuf[MAX_CONSTS];
    collect c = {d, cbuf, 0, NULL, 0, 0, 0, {0}};
    if (!sy_memo_init(d->ctx, &c.seen)) return SY_ENOMEM;
    sy_status st = SY_OK;
    for (size_t i = 0; st == SY_OK && i < s->ng && c.nconsts < MAX_CONSTS; i++)
        if (s->g[i].pub.checked) st = collect_from(&c, s->g[i].expr);
    sy_memo_clear(d->ctx, &c.seen);
    if (st != SY_OK) return st;
    if (!(s->consts = dcalloc(d, c.nconsts + 1, sizeof *s->consts))) return SY_ENOMEM;
    memcpy(s->consts, cbuf, c.nconsts * sizeof *cbuf);
    s->nconsts = c.nconsts;
    return SY_OK;
}

/* Every symbolic divisor of e is proved non-zero under f (else sy_decide's
 * TRUE, which reasons where divisions are defined, is not a proof that the
 * check accepts). */
static sy_status divisors_nonzero(sy_diff *d, sy_facts *f, const sy_expr *e, int *ok)
{
    int64_t cbuf[MAX_CONSTS];
    collect c = {d, cbuf, 0, NULL, 0, 0, 1, {0}};
    *ok = 1;
    if (!sy_memo_init(d->ctx, &c.seen)) return SY_ENOMEM;
    sy_status st = collect_from(&c, e);
    sy_memo_clear(d->ctx, &c.seen);
    if (st != SY_OK) return st;
    for (size_t i = 0; *ok && i < c.ndivs; i++) {
        sy_truth t = SY_TRUTH_UNKNOWN;
        const sy_expr *ne = sy_expr_ne(d->ctx, c.divs[i], sy_expr_int_si(d->ctx, 0));
        if (!ne) return sy_ctx_last_error(d->ctx);
        if ((st = sy_decide(f, ne, &t)) != SY_OK) return st;
        *ok = t == SY_TRUTH_TRUE;
    }
    return SY_OK;
}

/* Look for a point accepted by side k (its checked guards, the domain) at
 * which g fails. Candidates: the facts of k plus Not(g) solve some sources
 * as functions of others (replacements); the remaining free symbols take
 * values near their bounds, near the guards' constants, and random ones.
 * *found = 1 with vals filled: preferably a point where g is the only
 * guard of the other side that fails (when @p other), else any witness;
 * 0 when none was found (*refuted_empty = 1 when the facts with Not(g) are
 * contradictory). At most WITNESS_TRIES points. */
static sy_status find_witness(sy_diff *d, int k, const sy_expr *g, int other, int divok, int64_t *vals, int *found,
                              int *refuted_empty)
{
    dside *s = &d->s[k];
    *found = 0;
    *refuted_empty = 0;
    int64_t cbuf[MAX_CONSTS];
    collect c = {d, cbuf, 0, NULL, 0, 0, 0, {0}};
    uint64_t start = d->evals;
    /* Not(g) narrows the candidates (a replacement, a bound) but adding it to a
     * copy of k's facts costs a pass over all of them: only for small sides */
    size_t nchecked = 0;
    for (size_t i = 0; i < s->ng; i++) nchecked += s->g[i].pub.checked;
    int use_not = nchecked <= SMALL_SIDE;
    sy_facts *f = use_not ? sy_facts_copy(s->f) : s->f; /* a large side's own facts, read only */
    if (!f) return SY_ENOMEM;
    sy_status st = SY_OK;
    const sy_expr *ng = use_not ? sy_expr_not(d->ctx, g) : NULL;
    if (ng) {
        st = sy_facts_add(f, ng);
        if (st == SY_ENOMEM) goto out;
        if (st != SY_OK) sy_ctx_reset_error(d->ctx);
        st = SY_OK;
    } else if (use_not)
        sy_ctx_reset_error(d->ctx);
    if (use_not && sy_facts_consistent(f) == SY_FALSE) {
        /* k and Not(g) have no common point where every division is defined:
         * a witness can only be where g divides by zero */
        *refuted_empty = 1;
        if (divok) goto out;
        sy_facts_free(f);
        if (!(f = sy_facts_copy(s->f))) return SY_ENOMEM;
    }
    const sy_expr **rep = dcalloc(d, d->nm, sizeof *rep);
    if (!sy_memo_init(d->ctx, &c.seen)) {
        st = SY_ENOMEM;
        goto out;
    }
    if (!rep) {
        st = SY_ENOMEM;
        goto out;
    }
    /* the free symbols: of every replacement (a source not replaced is its own) */
    size_t nfree = 0, capfree = d->nm + 8;
    const sy_expr **fsym = dcalloc(d, capfree, sizeof *fsym);
    if (!fsym) {
        st = SY_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < d->nm; i++) {
        rep[i] = sy_facts_apply(f, d->mvar[i]);
        if (!rep[i]) {
            sy_ctx_reset_error(d->ctx);
            rep[i] = d->mvar[i];
        }
        const sy_expr **syms = NULL;
        size_t n = 0;
        if ((st = sy_expr_free_symbols(d->ctx, rep[i], &syms, &n)) != SY_OK) goto out;
        for (size_t j = 0; j < n; j++) {
            size_t q = 0;
            while (q < nfree && fsym[q] != syms[j]) q++;
            if (q < nfree) continue;
            if (nfree == capfree) {
                const sy_expr **nf = dcalloc(d, 2 * capfree, sizeof *nf);
                if (!nf) {
                    sy_mem_free(d->ctx, syms);
                    st = SY_ENOMEM;
                    goto out;
                }
                memcpy(nf, fsym, nfree * sizeof *nf);
                fsym = nf;
                capfree *= 2;
            }
            fsym[nfree++] = syms[j];
        }
        sy_mem_free(d->ctx, syms);
    }
    /* ranges of the free symbols, and the constants of the guards */
    int64_t *flo = dcalloc(d, nfree + 1, sizeof *flo), *fhi = dcalloc(d, nfree + 1, sizeof *fhi), *fv = dcalloc(d, nfree + 1, sizeof *fv);
    if (!flo || !fhi || !fv) {
        st = SY_ENOMEM;
        goto out;
    }
    for (size_t j = 0; j < nfree; j++) {
        const sy_expr *lo = NULL, *hi = NULL;
        int64_t l = -64, h = INT64_MAX;
        if (sy_facts_get_range(f, fsym[j], &lo, &hi) == SY_OK) {
            if (lo && sy_expr_get_si(lo, &l) != SY_OK) l = INT64_MAX;
            if (hi && sy_expr_get_si(hi, &h) != SY_OK) h = INT64_MAX;
            if (!lo) l = hi && h < 64 ? (h < INT64_MIN + 128 ? INT64_MIN : h - 128) : -64;
        }
        sy_ctx_reset_error(d->ctx);
        flo[j] = l;
        fhi[j] = h;
    }
    if ((st = collect_from(&c, g)) != SY_OK) goto out;
    size_t ngconst = c.nconsts; /* g's own constants first: the values where it changes */
    for (size_t i = 0; i < s->nconsts && c.nconsts < MAX_CONSTS; i++) add_const(&c, s->consts[i]);
    static const int64_t small[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 17, 31, 32, 33, 64, 100, 127, 128, 224, 255, 256, 512, 1024};
    int64_t *best = dcalloc(d, d->nm + 1, sizeof *best);
    if (!best) {
        st = SY_ENOMEM;
        goto out;
    }
    for (unsigned t = 0; t < WITNESS_TRIES && *found != 1; t++) {
        if (d->evk[k] + (d->evals - start) > SEARCH_BUDGET / 2) { /* bounded work: past it, what is open stays unknown */
            d->budget_hit = 1;
            break;
        }
        for (size_t j = 0; j < nfree; j++) {
            int64_t l = flo[j], h = fhi[j], v;
            if (l > h) l = h;
            uint64_t r = rnd(d);
            unsigned pick = t == 0 ? 0 : t == 1 ? 1 : (unsigned)(r % 6);
            uint64_t uspan = (uint64_t)h - (uint64_t)l;
            int64_t span = uspan > ((uint64_t)1 << 40) ? (int64_t)1 << 40 : (int64_t)uspan;
            switch (pick) {
            case 0: v = l; break;
            case 1: v = l < h ? l + 1 : l; break;
            case 2: v = h; break;
            case 3: {
                size_t nc = ngconst && (r >> 60) % 2 ? ngconst : c.nconsts;
                /* a constant +- 1, saturated: a constant at an end of int64 has no neighbour there
                 * (signed overflow, UBSan, attack47n: 2**63 - 2 + 2 - 1) */
                int64_t c0 = nc ? c.consts[(r >> 8) % nc] : l, dl = nc ? (int64_t)((r >> 20) % 3) - 1 : 0;
                v = (dl > 0 && c0 == INT64_MAX) || (dl < 0 && c0 == INT64_MIN) ? c0 : c0 + dl;
                break;
            }
            case 4: v = small[(r >> 8) % (sizeof small / sizeof small[0])]; break;
            default: {
                int sh = (int)((r >> 8) % 13);
                int64_t lim = span < ((int64_t)1 << sh) ? span : ((int64_t)1 << sh);
                v = l + (int64_t)((r >> 16) % (uint64_t)(lim + 1));
            }
            }
            if (h == INT64_MAX && pick == 2) v = l > INT64_MAX - 300 ? l : l + (int64_t)((r >> 16) % 300);
            if (v < l) v = l;
            if (v > h) v = h;
            fv[j] = v;
        }
        int ok = 1;
        for (size_t i = 0; ok && i < d->nm; i++) {
            sy_status es = sy_expr_eval_si(d->ctx, rep[i], nfree, fsym, fv, &vals[i]);
            if (es != SY_OK) {
                sy_ctx_reset_error(d->ctx);
                ok = 0;
            } else if (vals[i] < d->mlo[i] || (d->mhi[i] >= d->mlo[i] && vals[i] > d->mhi[i]))
                ok = 0;
        }
        if (!ok) continue;
        if (holds(d, g, vals) || first_failing(d, k, vals) >= 0 || no_input_at(d, vals)) continue; /* g first: it rarely fails */
        /* a witness; the best one fails g alone among the other side's guards */
        int alone = 1;
        if (other) {
            const dside *y = &d->s[1 - k];
            for (size_t i = 0; alone && i < y->ng; i++)
                if (y->g[i].pub.checked && y->g[i].expr != g && !holds(d, y->g[i].expr, vals)) alone = 0;
        }
        if (alone) {
            *found = 1;
            break;
        }
        if (!*found) memcpy(best, vals, d->nm * sizeof *vals);
        *found = 2;
    }
    if (*found == 2) {
        memcpy(vals, best, d->nm * sizeof *vals);
        *found = 1;
    }
out:
    sy_memo_clear(d->ctx, &c.seen);
    if (f != s->f) sy_facts_free(f);
    d->evk[k] += d->evals - start;
    return st;
}

/* The prover's point "NAME = V, ..." read into vals (a source it does not
 * name keeps its domain's least value); 1 when it is a witness: side k
 * accepts it and g fails there, by exact evaluation. */
static int read_point(sy_diff *d, int k, const sy_expr *g, const char *pt, int64_t *vals)
{
    for (size_t i = 0; i < d->nm; i++) vals[i] = d->mlo[i] < 0 && d->mhi[i] < d->mlo[i] ? 0 : d->mlo[i];
    for (const char *p = pt; p && *p;) {
        while (*p == ' ' || *p == ',') p++;
        if (p[0] != '_' || p[1] != 'd') {
            p = strchr(p, ',');
            continue;
        }
        char *endp;
        unsigned long m = strtoul(p + 2, &endp, 10);
        const char *q = endp;
        while (*q == ' ') q++;
        if (*q != '=' || m >= d->nm) {
            p = strchr(p, ',');
            continue;
        }
        long long v = strtoll(q + 1, &endp, 10);
        vals[m] = (int64_t)v;
        p = endp;
    }
    for (size_t i = 0; i < d->nm; i++)
        if (vals[i] < d->mlo[i] || (d->mhi[i] >= d->mlo[i] && vals[i] > d->mhi[i])) return 0;
    return first_failing(d, k, vals) < 0 && !holds(d, g, vals) && !no_input_at(d, vals);
}

/* What the prover says of "side k implies g" (after sy_decide and the search left it open). */
static sy_status ask_prover(sy_diff *d, int k, const sy_expr *g, int divok, int64_t *vals, sy_truth *out)
{
    dside *s = &d->s[k];
    size_t na = 0;
    const sy_expr **as = dcalloc(d, 2 * d->nm + s->ng + 1, sizeof *as);
    if (!as) return SY_ENOMEM;
    for (size_t i = 0; i < d->nm; i++) {
        const sy_expr *lo = sy_expr_int_si(d->ctx, d->mlo[i]);
        as[na++] = sy_expr_le(d->ctx, lo, d->mvar[i]);
        if (d->mhi[i] >= d->mlo[i]) as[na++] = sy_expr_le(d->ctx, d->mvar[i], sy_expr_int_si(d->ctx, d->mhi[i]));
    }
    for (size_t i = 0; i < s->ng; i++)
        if (s->g[i].pub.checked) as[na++] = s->g[i].expr;
    for (size_t i = 0; i < na; i++)
        if (!as[i]) return sy_ctx_last_error(d->ctx);
    sy_truth t = SY_TRUTH_UNKNOWN;
    char *pt = NULL;
    sy_status st = d->prover(d->prover_ud, d->ctx, na, as, g, &t, &pt);
    if (st == SY_ENOMEM) {
        sy_str_free(d->ctx, pt);
        return st;
    }
    sy_ctx_reset_error(d->ctx);
    if (st == SY_OK && t == SY_TRUTH_TRUE) {
        /* the prover reasons where g is defined: g's divisors must be non-zero too */
        int ok = divok;
        if (!ok) {
            int64_t cbuf[MAX_CONSTS];
            collect c = {d, cbuf, 0, NULL, 0, 0, 1, {0}};
            if (!sy_memo_init(d->ctx, &c.seen)) return SY_ENOMEM;
            st = collect_from(&c, g);
            sy_memo_clear(d->ctx, &c.seen);
            if (st != SY_OK) return st;
            ok = 1;
            for (size_t i = 0; ok && i < c.ndivs; i++) {
                sy_truth u = SY_TRUTH_UNKNOWN;
                char *p2 = NULL;
                const sy_expr *ne = sy_expr_ne(d->ctx, c.divs[i], sy_expr_int_si(d->ctx, 0));
                if (!ne || d->prover(d->prover_ud, d->ctx, na, as, ne, &u, &p2) != SY_OK) u = SY_TRUTH_UNKNOWN;
                sy_str_free(d->ctx, p2);
                sy_ctx_reset_error(d->ctx);
                ok = u == SY_TRUTH_TRUE;
            }
        }
        if (ok) *out = SY_TRUTH_TRUE;
    } else if (st == SY_OK && t == SY_TRUTH_FALSE && pt && read_point(d, k, g, pt, vals))
        *out = SY_TRUTH_FALSE;
    sy_str_free(d->ctx, pt);
    return SY_OK;
}

/* Does side k imply g? TRUE (proved), FALSE (vals holds a witness accepted
 * by k at which g fails), UNKNOWN. */
static sy_status implied(sy_diff *d, int k, const sy_expr *g, int other, sy_truth *out, int64_t *vals)
{
    dside *s = &d->s[k];
    *out = SY_TRUTH_UNKNOWN;
    if (in_side(s, g) >= 0) {
        *out = SY_TRUTH_TRUE;
        return SY_OK;
    }
    int divok = 0;
    sy_status st = divisors_nonzero(d, s->f, g, &divok);
    if (st != SY_OK) return st;
    if (s->empty) {
        /* the side accepts nothing (its facts are contradictory): every implication holds */
        *out = SY_TRUTH_TRUE;
        return SY_OK;
    }
    sy_truth t = SY_TRUTH_UNKNOWN;
    if ((st = sy_decide(s->f, g, &t)) != SY_OK) return st;
    if (t == SY_TRUTH_TRUE && divok) {
        *out = SY_TRUTH_TRUE;
        return SY_OK;
    }
    int found = 0, contra = 0;
    if ((st = find_witness(d, k, g, other, divok, vals, &found, &contra)) != SY_OK) return st;
    if (found) *out = SY_TRUTH_FALSE;
    else if (contra && divok)
        *out = SY_TRUTH_TRUE;
    else if (d->prover)
        return ask_prover(d, k, g, divok, vals, out);
    return SY_OK;
}

static sy_status add_entry(sy_diff *d, const sy_diff_entry *e)
{
    if (d->ne == d->ecap) {
        size_t nc = d->ecap ? 2 * d->ecap : 16;
        sy_diff_entry *ne = dcalloc(d, nc, sizeof *ne);
        if (!ne) return SY_ENOMEM;
        if (d->ne) memcpy(ne, d->e, d->ne * sizeof *ne);
        d->e = ne;
        d->ecap = nc;
    }
    d->e[d->ne++] = *e;
    return SY_OK;
}

static sy_status guard_slots(sy_diff *d, dguard *q)
{
    const sy_expr **syms = NULL;
    size_t n = 0;
    sy_status st = sy_expr_free_symbols(d->ctx, q->expr, &syms, &n);
    if (st != SY_OK) return st;
    q->slots = dcalloc(d, n + 1, sizeof *q->slots);
    if (!q->slots) {
        sy_mem_free(d->ctx, syms);
        return SY_ENOMEM;
    }
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < d->nm; i++)
            if (d->mvar[i] == syms[j]) {
                size_t p = q->nslots++;
                while (p && q->slots[p - 1] > i) {
                    q->slots[p] = q->slots[p - 1];
                    p--;
                }
                q->slots[p] = i;
            }
    sy_mem_free(d->ctx, syms);
    return SY_OK;
}

static int same_slots(const dguard *a, const dguard *b)
{
    return a->nslots == b->nslots && (!a->nslots || !memcmp(a->slots, b->slots, a->nslots * sizeof *a->slots));
}

/* p implies q over the domain alone (both read the same sources) */
static sy_status implies_alone(sy_diff *d, const sy_expr *p, const sy_expr *q, int *yes)
{
    *yes = 0;
    sy_facts *f = sy_facts_new(d->ctx);
    if (!f) return SY_ENOMEM;
    sy_status st = SY_OK;
    for (size_t i = 0; i < d->nm && st == SY_OK; i++)
        st = sy_facts_set_range(f, d->mvar[i], sy_expr_int_si(d->ctx, d->mlo[i]),
                                d->mhi[i] >= d->mlo[i] ? sy_expr_int_si(d->ctx, d->mhi[i]) : NULL);
    if (st == SY_OK && (st = sy_facts_add(f, p)) != SY_OK && st != SY_ENOMEM) {
        sy_ctx_reset_error(d->ctx);
        st = SY_OK;
        goto out; /* not proved */
    }
    if (st == SY_OK && sy_facts_consistent(f) != SY_FALSE) {
        sy_truth t = SY_TRUTH_UNKNOWN;
        int divok = 0;
        if ((st = sy_decide(f, q, &t)) == SY_OK && t == SY_TRUTH_TRUE && (st = divisors_nonzero(d, f, q, &divok)) == SY_OK)
            *yes = divok;
    }
out:
    sy_facts_free(f);
    return st;
}

static int ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* The text with every merged variable _dK (a whole identifier) written as
 * its source's text, as the guard sets print them. */
static char *source_names(sy_diff *d, const char *t)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        char *out = pass ? dalloc(d, n + 1) : NULL;
        if (pass && !out) return NULL;
        size_t w = 0;
        for (const char *p = t; *p;) {
            if (p[0] == '_' && p[1] == 'd' && p[2] >= '0' && p[2] <= '9' && (p == t || !ident_char(p[-1]))) {
                const char *q = p + 2;
                size_t k = 0;
                int big = 0;
                while (*q >= '0' && *q <= '9') {
                    if (k > SIZE_MAX / 16) big = 1;
                    k = k * 10 + (size_t)(*q++ - '0');
                }
                if (!ident_char(*q) && !big && k < d->nm) {
                    size_t l = strlen(d->msrc[k]);
                    if (pass) memcpy(out + w, d->msrc[k], l);
                    w += l;
                    p = q;
                    continue;
                }
            }
            if (pass) out[w] = *p;
            w++;
            p++;
        }
        if (pass) {
            out[w] = '\0';
            return out;
        }
        n = w;
    }
    return NULL;
}

/* side s reads input @p name: a source of it is NAME or NAME.xxx (a prefix of a real input is not it) */
static int side_reads(const dside *s, const char *name)
{
    size_t ol = strlen(name), nl = 0;
    for (size_t k = 0; k < s->nsrc; k++)
        if (sy_gset_source_parse(s->src[k], &nl, NULL) >= 0 && nl == ol && !strncmp(s->src[k], name, ol)) return 1;
    return 0;
}

typedef struct {
    const char *src;
    size_t nl; /* length of its input name */
    size_t m;  /* merged index */
} zsrc_key;
static int zsrc_cmp(const void *pa, const void *pb)
{
    const zsrc_key *a = pa, *b = pb;
    size_t n = a->nl < b->nl ? a->nl : b->nl;
    int c = memcmp(a->src, b->src, n);
    if (c) return c;
    if (a->nl != b->nl) return a->nl < b->nl ? -1 : 1;
    return a->m < b->m ? -1 : a->m > b->m;
}

static sy_status merge_sources(sy_diff *d)
{
    dside *a = &d->s[0], *b = &d->s[1];
    /* a rename of an input A does not read would be ignored silently: the diff would then
     * compare the unrenamed sets and say so as if the mapping had been applied; a rename to an
     * input B does not read (a typo) would compare A's renamed input with nothing of B's */
    for (size_t i = 0; i < d->nmap; i++) {
        if (!side_reads(a, d->mold[i]))
            return sy_fail_st(d->ctx, SY_EINVAL, "diff: map renames input '%.200s', which A does not read (A reads %zu sources%s%.200s)",
                              d->mold[i], a->nsrc, a->nsrc ? ", the first " : "", a->nsrc ? a->src[0] : "");
        if (!side_reads(b, d->mnew[i]))
            return sy_fail_st(d->ctx, SY_EINVAL,
                              "diff: map renames input '%.200s' of A to '%.200s', which B does not read (B reads %zu sources%s%.200s)",
                              d->mold[i], d->mnew[i], b->nsrc, b->nsrc ? ", the first " : "", b->nsrc ? b->src[0] : "");
    }
    size_t cap = a->nsrc + b->nsrc;
    d->msrc = dcalloc(d, cap + 1, sizeof *d->msrc);
    d->mvar = dcalloc(d, cap + 1, sizeof *d->mvar);
    d->mlo = dcalloc(d, cap + 1, sizeof *d->mlo);
    d->mhi = dcalloc(d, cap + 1, sizeof *d->mhi);
    a->merged = dcalloc(d, a->nsrc + 1, sizeof *a->merged);
    b->merged = dcalloc(d, b->nsrc + 1, sizeof *b->merged);
    long *from_a = dcalloc(d, cap + 1, sizeof *from_a); /* merged index -> A's source + 1 that took it */
    if (!d->msrc || !d->mvar || !d->mlo || !d->mhi || !a->merged || !b->merged || !from_a) return SY_ENOMEM;
    for (int k = 1; k >= 0; k--) {
        dside *s = &d->s[k];
        for (size_t i = 0; i < s->nsrc; i++) {
            const char *t = k == 0 ? renamed(d, s->src[i]) : s->src[i];
            if (!t) return SY_ENOMEM;
            size_t m = 0;
            while (m < d->nm && strcmp(d->msrc[m], t)) m++;
            if (m == d->nm)
                d->msrc[d->nm++] = t;
            else if (k == 1) /* twice in B */
                return sy_fail_st(d->ctx, SY_EFORMAT, "diff: B lists source %s twice", t);
            if (k == 0) {
                /* two sources of A on one variable: a map onto another input A reads, or two
                 * inputs mapped onto one, would compare A with those inputs forced equal
                 * (attack47n: --map x0=x1 with A reading x0 and x1 answered silently) */
                if (from_a[m])
                    return sy_fail_st(d->ctx, SY_EINVAL,
                                      "diff: A's sources %.200s and %.200s are both %.200s after the map: map an input of A "
                                      "onto an input of B that no other input of A takes, and not onto another input A reads",
                                      s->src[from_a[m] - 1], s->src[i], t);
                from_a[m] = (long)i + 1;
            }
            s->merged[i] = m;
        }
    }
    for (size_t m = 0; m < d->nm; m++) {
        char nm[32];
        snprintf(nm, sizeof nm, "_d%zu", m);
        if (!(d->mvar[m] = sy_expr_sym(d->ctx, nm))) return sy_ctx_last_error(d->ctx);
        int kind = sy_gset_source_parse(d->msrc[m], NULL, NULL);
        /* a source sy_gset_source_parse does not know: no bound (mhi < mlo) */
        d->mlo[m] = kind < 0 ? INT64_MIN / 4 : 0;
        d->mhi[m] = kind == SY_SOURCE_DTYPE ? 11 : d->mlo[m] - 1;
    }
    /* the size sources, each input's in a run (sorted by input name, then merged index) */
    d->zsrc = dcalloc(d, d->nm + 1, sizeof *d->zsrc);
    d->zidx = dcalloc(d, d->nm + 1, sizeof *d->zidx);
    d->zval = dcalloc(d, d->nm + 1, sizeof *d->zval);
    zsrc_key *zk = dcalloc(d, d->nm + 1, sizeof *zk);
    if (!d->zsrc || !d->zidx || !d->zval || !zk) return SY_ENOMEM;
    for (size_t m = 0; m < d->nm; m++) {
        size_t nl = 0;
        if (sy_gset_source_parse(d->msrc[m], &nl, NULL) == SY_SOURCE_SIZE) zk[d->nz++] = (zsrc_key){d->msrc[m], nl, m};
    }
    qsort(zk, d->nz, sizeof *zk, zsrc_cmp);
    /* each input's NAME.dim() source (sorted the same way: a merge with the runs) */
    d->zrank = dcalloc(d, d->nz + 1, sizeof *d->zrank);
    d->zdim = dcalloc(d, d->nz + 1, sizeof *d->zdim);
    zsrc_key *rk = dcalloc(d, d->nm + 1, sizeof *rk);
    if (!d->zrank || !d->zdim || !rk) return SY_ENOMEM;
    size_t nr = 0;
    for (size_t m = 0; m < d->nm; m++) {
        size_t nl = 0;
        if (sy_gset_source_parse(d->msrc[m], &nl, NULL) == SY_SOURCE_DIM) rk[nr++] = (zsrc_key){d->msrc[m], nl, m};
    }
    qsort(rk, nr, sizeof *rk, zsrc_cmp);
    for (size_t i = 0, r = 0; i < d->nz; i++) {
        d->zsrc[i] = zk[i].src;
        d->zidx[i] = zk[i].m;
        sy_gset_source_parse(zk[i].src, NULL, &d->zdim[i]);
        zsrc_key key = {zk[i].src, zk[i].nl, 0}; /* m 0: before every key of its name */
        while (r < nr && zsrc_cmp(&rk[r], &key) < 0) r++;
        d->zrank[i] = r < nr && rk[r].nl == zk[i].nl && !memcmp(rk[r].src, zk[i].src, zk[i].nl) ? (long)rk[r].m : -1;
    }
    /* the guards over the merged variables */
    for (int k = 0; k < 2; k++) {
        dside *s = &d->s[k];
        const sy_expr **from = dcalloc(d, s->nsrc + 1, sizeof *from), **to = dcalloc(d, s->nsrc + 1, sizeof *to);
        if (!from || !to) return SY_ENOMEM;
        for (size_t i = 0; i < s->nsrc; i++) {
            if (!(from[i] = slot_sym(d->ctx, i))) return sy_ctx_last_error(d->ctx);
            to[i] = d->mvar[s->merged[i]];
        }
        for (size_t i = 0; i < s->ng; i++) {
            dguard *q = &s->g[i];
            q->expr = sy_expr_subs(d->ctx, q->raw, s->nsrc, from, to);
            if (!q->expr) return sy_ctx_last_error(d->ctx);
            char *txt = sy_expr_print_bounded(d->ctx, q->expr, SY_PRINT_CANONICAL, LET_PAST);
            if (!txt) return sy_ctx_last_error(d->ctx);
            q->pub.text = source_names(d, txt);
            sy_str_free(d->ctx, txt);
            if (!q->pub.text) return SY_ENOMEM;
            sy_status st = guard_slots(d, q);
            if (st != SY_OK) return st;
        }
        if (!sy_memo_init(d->ctx, &s->checked)) return SY_ENOMEM;
        for (size_t i = 0; i < s->ng; i++)
            if (s->g[i].pub.checked && !sy_memo_get(&s->checked, s->g[i].expr) &&
                !sy_memo_put(d->ctx, &s->checked, s->g[i].expr, (const sy_expr *)(uintptr_t)(i + 1)))
                return SY_ENOMEM;
    }
    return SY_OK;
}

sy_status sy_diff_run(sy_diff *d)
{
    if (!d) return SY_EINVAL;
    if (d->ran) return sy_fail_st(d->ctx, SY_EINVAL, "diff: already run");
    if (!d->s[0].set || !d->s[1].set) return sy_fail_st(d->ctx, SY_EINVAL, "diff: side %c is not set", d->s[0].set ? 'B' : 'A');
    sy_status st = merge_sources(d);
    if (st != SY_OK) return st;
    for (int k = 0; k < 2; k++)
        if ((st = side_facts(d, k)) != SY_OK) return st;
    /* guards of B not in A (narrowing when A does not imply them), then of A not in B (widening) */
    int undecided[2] = {0, 0};
    for (int k = 1; k >= 0; k--) {
        dside *s = &d->s[k], *o = &d->s[1 - k];
        for (size_t i = 0; i < s->ng; i++) {
            dguard *q = &s->g[i];
            if (!q->pub.checked || in_side(o, q->expr) >= 0) continue;
            int64_t *vals = dcalloc(d, d->nm + 1, sizeof *vals);
            if (!vals) return SY_ENOMEM;
            sy_truth t;
            if ((st = implied(d, 1 - k, q->expr, 1, &t, vals)) != SY_OK) return st;
            sy_diff_entry e = {.change = t == SY_TRUTH_TRUE ? SY_DIFF_RESTATED : k == 1 ? SY_DIFF_ADDED : SY_DIFF_DROPPED,
                               .a = k == 0 ? (long)i : -1,
                               .b = k == 1 ? (long)i : -1,
                               .implied = t,
                               .witness = t == SY_TRUTH_FALSE ? vals : NULL,
                               .accepts = (sy_diff_side)(1 - k),
                               .rejected_by = t == SY_TRUTH_FALSE ? first_failing(d, k, vals) : -1};
            if (t == SY_TRUTH_UNKNOWN) undecided[1 - k] = 1;
            if (t == SY_TRUTH_FALSE && !d->wit[1 - k]) {
                d->wit[1 - k] = vals;
                d->wrej[1 - k] = e.rejected_by;
            }
            if ((st = add_entry(d, &e)) != SY_OK) return st;
        }
    }
    /* side k ⊆ other: every guard of the other side is implied by k */
    for (int k = 0; k < 2; k++) d->sub[k] = d->wit[k] ? SY_TRUTH_FALSE : undecided[k] ? SY_TRUTH_UNKNOWN : SY_TRUTH_TRUE;
    /* pair guards on the same sources: an added B guard that implies an
     * A-only one (dropped or restated) narrowed it; a dropped A guard that
     * implies a B-only one (added or restated) was widened to it. The pair
     * becomes one entry with the evidence of the added / dropped side. */
    unsigned char *gone = dcalloc(d, d->ne + 1, 1);
    if (!gone) return SY_ENOMEM;
    for (int pass = 0; pass < 2; pass++) {
        sy_diff_change want = pass ? SY_DIFF_DROPPED : SY_DIFF_ADDED;
        for (size_t i = 0; i < d->ne; i++) {
            sy_diff_entry *ei = &d->e[i];
            if (gone[i] || ei->change != want) continue;
            const dguard *gi = pass ? &d->s[0].g[ei->a] : &d->s[1].g[ei->b];
            for (size_t j = 0; j < d->ne; j++) {
                sy_diff_entry *ej = &d->e[j];
                /* the partner: a guard of the other side only, not yet paired */
                if (gone[j] || j == i || (pass ? ej->b < 0 || ej->a >= 0 : ej->a < 0 || ej->b >= 0)) continue;
                if (ej->change != SY_DIFF_RESTATED && ej->change != (pass ? SY_DIFF_ADDED : SY_DIFF_DROPPED)) continue;
                const dguard *gj = pass ? &d->s[1].g[ej->b] : &d->s[0].g[ej->a];
                if (!same_slots(gi, gj)) continue;
                if (++d->pairs > PAIR_BUDGET) { /* bounded: the rest stay added / dropped */
                    d->budget_hit = 1;
                    break;
                }
                int yes = 0;
                if ((st = implies_alone(d, gi->expr, gj->expr, &yes)) != SY_OK) return st;
                if (!yes) continue;
                ei->change = pass ? SY_DIFF_WIDENED : SY_DIFF_NARROWED;
                if (pass) ei->b = ej->b;
                else ei->a = ej->a;
                gone[j] = 1;
                break;
            }
        }
    }
    size_t w = 0;
    for (size_t i = 0; i < d->ne; i++)
        if (!gone[i]) d->e[w++] = d->e[i];
    d->ne = w;
    d->ran = 1;
    return SY_OK;
}

/* ---- readers */

sy_truth sy_diff_subset(const sy_diff *d, sy_diff_side side)
{
    return d && d->ran && (unsigned)side <= SY_DIFF_B ? d->sub[side] : SY_TRUTH_UNKNOWN;
}
size_t sy_diff_nsources(const sy_diff *d) { return d && d->ran ? d->nm : 0; }
const char *sy_diff_source(const sy_diff *d, size_t i) { return d && d->ran && i < d->nm ? d->msrc[i] : NULL; }
size_t sy_diff_nguards(const sy_diff *d, sy_diff_side side)
{
    return d && (unsigned)side <= SY_DIFF_B ? d->s[side].ng : 0;
}
const sy_diff_guard *sy_diff_guard_at(const sy_diff *d, sy_diff_side side, size_t i)
{
    if (!d || !d->ran || (unsigned)side > SY_DIFF_B || i >= d->s[side].ng) return NULL;
    return &d->s[side].g[i].pub;
}
size_t sy_diff_nentries(const sy_diff *d) { return d && d->ran ? d->ne : 0; }
const sy_diff_entry *sy_diff_entry_at(const sy_diff *d, size_t i) { return d && d->ran && i < d->ne ? &d->e[i] : NULL; }
const int64_t *sy_diff_witness(const sy_diff *d, sy_diff_side side, long *rejected_by)
{
    if (rejected_by) *rejected_by = -1;
    if (!d || !d->ran || (unsigned)side > SY_DIFF_B) return NULL;
    if (rejected_by) *rejected_by = d->wrej[side];
    return d->wit[side];
}

/* ---- JSON */

static const char *truth_name(sy_truth t) { return t == SY_TRUTH_TRUE ? "true" : t == SY_TRUTH_FALSE ? "false" : "unknown"; }

static json_t *jguard(const sy_diff *d, int k, long i)
{
    if (i < 0) return json_null();
    const sy_diff_guard *g = &d->s[k].g[i].pub;
    return json_pack("{s:I, s:s, s:s, s:s, s:s}", "index", (json_int_t)i, "kind", g->kind, "text", g->text, "why", g->why,
                     "origin", g->origin);
}

/* source s is the input named by the nl bytes at in, followed by suffix */
static int src_is(const char *s, const char *in, size_t nl, const char *suffix)
{
    return !strncmp(s, in, nl) && !strcmp(s + nl, suffix);
}

/* the witness: every source's value, and each input's shape (NAME.dim() sizes NAME.size()[i]) and dtype code */
static json_t *jwitness(const sy_diff *d, const int64_t *v, int accepts, long rej)
{
    if (!v) return json_null();
    json_t *w = json_object(), *sizes = json_object(), *ins = json_object();
    if (!w || !sizes || !ins) goto fail;
    for (size_t i = 0; i < d->nm; i++) json_object_set_new(sizes, d->msrc[i], json_integer((json_int_t)v[i]));
    for (size_t i = 0; i < d->nm; i++) {
        size_t nl = 0;
        if (sy_gset_source_parse(d->msrc[i], &nl, NULL) != SY_SOURCE_DIM) continue;
        int64_t r = v[i];
        if (r < 0 || r > 64) continue;
        json_t *shape = json_array(), *in = json_object();
        if (!shape || !in) {
            json_decref(shape);
            json_decref(in);
            goto fail;
        }
        /* compared in place: names of any length (a 600-byte buffer cut a longer name, and the
         * witness's shape was then all zeros; issue 38, fourth pass) */
        for (int64_t q = 0; q < r; q++) {
            char sfx[48];
            snprintf(sfx, sizeof sfx, ".size()[%lld]", (long long)q);
            int64_t sv = 0;
            for (size_t m = 0; m < d->nm; m++)
                if (src_is(d->msrc[m], d->msrc[i], nl, sfx)) sv = v[m];
            json_array_append_new(shape, json_integer((json_int_t)sv));
        }
        json_object_set_new(in, "shape", shape);
        for (size_t m = 0; m < d->nm; m++)
            if (src_is(d->msrc[m], d->msrc[i], nl, ".dtype")) json_object_set_new(in, "dtype", json_integer((json_int_t)v[m]));
        char *name = sy_alloc(d->ctx, nl + 1);
        if (!name) {
            json_decref(in);
            goto fail;
        }
        memcpy(name, d->msrc[i], nl);
        name[nl] = '\0';
        json_object_set_new(ins, name, in);
        sy_dealloc(d->ctx, name, nl + 1);
    }
    json_object_set_new(w, "sources", sizes);
    json_object_set_new(w, "inputs", ins);
    json_object_set_new(w, "accepted_by", json_string(accepts ? "b" : "a"));
    json_object_set_new(w, "rejected_by", jguard(d, 1 - accepts, rej));
    return w;
fail:
    json_decref(w);
    json_decref(sizes);
    json_decref(ins);
    return NULL;
}

/* "equal", "narrows" (B rejects a size A accepts), "widens" (only), "unknown" */
static const char *verdict(const sy_diff *d)
{
    if (d->sub[0] == SY_TRUTH_FALSE) return "narrows";
    if (d->sub[0] == SY_TRUTH_TRUE && d->sub[1] == SY_TRUTH_TRUE) return "equal";
    if (d->sub[0] == SY_TRUTH_TRUE && d->sub[1] == SY_TRUTH_FALSE) return "widens";
    return "unknown";
}

/* s is valid UTF-8 (sy_str_is_utf8, RFC 3629), as a JSON string must be: jansson refuses
 * other bytes, and a name it refused was left out without a word (a side listed with 0 guards) */
static int utf8_ok(const char *s)
{
    return sy_str_is_utf8(s) == SY_TRUE;
}

char *sy_diff_to_json(const sy_diff *d)
{
    if (!d) return NULL;
    if (!d->ran) return SY_NFAIL(d->ctx, SY_EINVAL, "diff: not run");
    for (size_t i = 0; i < d->nm; i++)
        if (!utf8_ok(d->msrc[i])) return SY_NFAIL(d->ctx, SY_EFORMAT, "source %zu is not valid UTF-8, which JSON cannot carry", i);
    for (int k = 0; k < 2; k++) {
        if (!utf8_ok(d->s[k].model)) return SY_NFAIL(d->ctx, SY_EFORMAT, "the model name of side %c is not valid UTF-8", k ? 'B' : 'A');
        for (size_t i = 0; i < d->s[k].ng; i++) {
            const sy_diff_guard *g = &d->s[k].g[i].pub;
            if (!utf8_ok(g->kind) || !utf8_ok(g->text) || !utf8_ok(g->why) || !utf8_ok(g->origin))
                return SY_NFAIL(d->ctx, SY_EFORMAT, "guard %zu of side %c is not valid UTF-8, which JSON cannot carry", i,
                                k ? 'B' : 'A');
        }
    }
    json_t *root = json_object(), *srcs = json_array(), *ch = json_array(), *sides = json_object();
    if (!root || !srcs || !ch || !sides) goto oom;
    for (size_t i = 0; i < d->nm; i++) json_array_append_new(srcs, json_string(d->msrc[i]));
    for (int k = 0; k < 2; k++) {
        json_t *gl = json_array();
        for (size_t i = 0; gl && i < d->s[k].ng; i++) {
            json_t *g = jguard(d, k, (long)i);
            if (g) json_object_set_new(g, "checked", json_boolean(d->s[k].g[i].pub.checked));
            json_array_append_new(gl, g);
        }
        json_object_set_new(sides, k ? "b" : "a",
                            json_pack("{s:s, s:b, s:o*}", "model", d->s[k].model, "empty", d->s[k].empty, "guards", gl));
    }
    for (size_t i = 0; i < d->ne; i++) {
        const sy_diff_entry *e = &d->e[i];
        json_t *o = json_object();
        if (!o) goto oom;
        json_object_set_new(o, "change", json_string(sy_diff_change_name(e->change)));
        json_object_set_new(o, "a", jguard(d, 0, e->a));
        json_object_set_new(o, "b", jguard(d, 1, e->b));
        json_object_set_new(o, "implied_by_other", json_string(truth_name(e->implied)));
        json_object_set_new(o, "witness", jwitness(d, e->witness, (int)e->accepts, e->rejected_by));
        json_array_append_new(ch, o);
    }
    json_object_set_new(root, "format", json_string("symshape.diff"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "verdict", json_string(verdict(d)));
    json_object_set_new(root, "a_subset_b", json_string(truth_name(d->sub[0])));
    json_object_set_new(root, "b_subset_a", json_string(truth_name(d->sub[1])));
    json_object_set_new(root, "budget_exhausted", json_boolean(d->budget_hit));
    json_object_set_new(root, "sources", srcs);
    srcs = NULL;
    json_object_set_new(root, "sides", sides);
    sides = NULL;
    json_object_set_new(root, "narrowing_witness", jwitness(d, d->wit[0], 0, d->wrej[0]));
    json_object_set_new(root, "widening_witness", jwitness(d, d->wit[1], 1, d->wrej[1]));
    json_object_set_new(root, "changes", ch);
    ch = NULL;
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s) return SY_NOOM(d->ctx);
    size_t n = strlen(s);
    char *r = sy_alloc(d->ctx, n + 1);
    if (r) memcpy(r, s, n + 1);
    free(s);
    if (!r) return SY_NOOM(d->ctx);
    return r;
oom:
    json_decref(root);
    json_decref(srcs);
    json_decref(ch);
    json_decref(sides);
    return SY_NOOM(d->ctx);
}
