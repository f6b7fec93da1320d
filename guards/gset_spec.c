/* Guard sets: violations of the dynamic-dim spec (torch.export's check): which
 * guards on declared dims the spec does not imply, and the fix for each. */
#include "guards/gset_private.h"

static const char *const viol_names[] = {"pinned", "narrowed", "equal", "function", "divisibility", "relation"};
const char *sy_violation_kind_name(sy_violation_kind k) { return (unsigned)k <= SY_VIOL_RELATION ? viol_names[k] : "?"; }

int sy_gset_source_spec(const sy_gset *gs, size_t i, const char **name, int64_t *min, int64_t *max, int64_t *example)
{
    if (!gs || !gs->decl || i >= gs->nsrc || !gs->decl[i].declared) return 0;
    const sdecl *d = &gs->decl[i];
    if (name) *name = d->name;
    if (min) *min = d->min;
    if (max) *max = d->max;
    if (example) *example = d->example;
    return 1;
}
size_t sy_gset_nviolations(const sy_gset *gs) { return gs ? gs->nviol : 0; }
const sy_gset_violation *sy_gset_violation_at(const sy_gset *gs, size_t i)
{
    return gs && i < gs->nviol ? &gs->viol[i] : NULL;
}

static bool reads_declared(const sy_gset *gs, const gguard *g)
{
    for (size_t k = 0; k < g->pub.nslots; k++)
        if (gs->decl[g->pub.slots[k]].declared) return true;
    return false;
}

/* Every recording of g was a limit of symshape's own formula (sy_env_evaluate_limit: the range where
 * the exact formula of a float product is proven), none a requirement of the model: the model does
 * not impose it, so the spec check does not report it (its reason names it as symshape's limit). */
static bool limit_only(const gguard *g)
{
    if (!g->pub.norigins) return false;
    for (size_t k = 0; k < g->pub.norigins; k++)
        if (!g->orig[k].limit || g->orig[k].required) return false;
    return true;
}

static bool has_mod(const sy_expr *e)
{
    if (sy_expr_kind_of(e) == SY_EXPR_MOD) return true;
    for (size_t i = 0; i < sy_expr_nargs(e); i++)
        if (has_mod(sy_expr_arg(e, i))) return true;
    return false;
}

/* the label of a declared slot: its Dim name, or its source */
static const char *decl_label(const sy_gset *gs, size_t sl) { return gs->decl[sl].name ? gs->decl[sl].name : gs->sources[sl]; }

static void range_str(char *b, size_t n, int64_t lo, int64_t hi)
{
    if (hi < 0) snprintf(b, n, "[%lld, oo)", (long long)lo);
    else snprintf(b, n, "[%lld, %lld]", (long long)lo, (long long)hi);
}

/* print e with named declared sources renamed to their Dim names */
static char *named_text(sy_gset *gs, const sy_expr *e)
{
    sy_ctx *ctx = gs->ctx;
    const sy_expr *ks[64], *vs[64];
    size_t n = 0;
    for (size_t sl = 0; sl < gs->nsrc && n < 64; sl++)
        if (gs->decl[sl].declared && gs->decl[sl].name) {
            const sy_expr *sym = sy_expr_sym(ctx, gs->decl[sl].name);
            if (!sym) return NULL;
            ks[n] = gs->vars[sl];
            vs[n++] = sym;
        }
    const sy_expr *r = n ? sy_expr_subs(ctx, e, n, ks, vs) : e;
    return r ? print_show(ctx, r) : NULL;
}

static bool int_of(const sy_expr *e, int64_t *v) { return e && sy_expr_is_int(e) && sy_expr_get_si(e, v) == SY_OK; }

/* A guard without a Mod that says "these dims are multiples": h == 2*CeilDiv(h, 2),
 * FloorDiv(h, 2) == CeilDiv(h, 2), batch*h*w == 4*batch*FloorDiv(h, 2)*FloorDiv(w, 2).
 * Candidates: each declared dim v that a FloorDiv/CeilDiv by a constant m >= 2 reads alone, its
 * modulus L the lcm of those m (L <= 64, at most 64 residue cases in all). The proof is by cases on
 * the residues, each decided, never assumed: with Mod(v, L) == r added to F for every v (a
 * congruence fact: v := L*t + r), sy_decide(F, G) must be TRUE or FALSE, or the case infeasible.
 * K = the dims whose residue is 0 in every TRUE case; G <=> AND_{v in K} Mod(v, L_v) == 0 under F
 * exactly when every case is TRUE iff its K residues are all 0 (else: not recognized, NULL).
 * Returns the number of dims in K (their slots in ks, moduli in ms), 0 when not proved. */
typedef struct {
    sy_gset *gs;
    size_t n, slot[4];
    int64_t mod[4];
    bool bad;
} divcand;

static int64_t lcm64(int64_t a, int64_t b)
{
    int64_t x = a, y = b;
    while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

static void div_collect(divcand *c, const sy_expr *e)
{
    sy_expr_kind k = sy_expr_kind_of(e);
    int64_t m;
    if ((k == SY_EXPR_FLOORDIV || k == SY_EXPR_CEILDIV) && int_of(sy_expr_arg(e, 1), &m) && m >= 2 && m <= 64) {
        const sy_expr **fs = NULL;
        size_t nf = 0;
        if (sy_expr_free_symbols(c->gs->ctx, sy_expr_arg(e, 0), &fs, &nf) != SY_OK) {
            sy_ctx_reset_error(c->gs->ctx);
            c->bad = true;
            return;
        }
        size_t sl = c->gs->nsrc;
        if (nf == 1)
            for (size_t s = 0; s < c->gs->nsrc; s++)
                if (c->gs->decl[s].declared && c->gs->vars[s] == fs[0]) sl = s;
        sy_mem_free(c->gs->ctx, fs);
        if (sl < c->gs->nsrc) {
            size_t q = 0;
            while (q < c->n && c->slot[q] != sl) q++;
            if (q == c->n) {
                if (c->n == 4) {
                    c->bad = true;
                    return;
                }
                c->slot[c->n] = sl;
                c->mod[c->n++] = m;
            } else if ((c->mod[q] = lcm64(c->mod[q], m)) > 64)
                c->bad = true;
        }
    }
    for (size_t i = 0; i < sy_expr_nargs(e) && !c->bad; i++) div_collect(c, sy_expr_arg(e, i));
}

static sy_status divisibility_of(sy_gset *gs, sy_facts *f0, const sy_expr *e, size_t *nk, size_t ks[4], int64_t ms[4])
{
    sy_ctx *ctx = gs->ctx;
    divcand c = {.gs = gs};
    *nk = 0;
    if (sy_expr_kind_of(e) != SY_EXPR_EQ) return SY_OK;
    div_collect(&c, e);
    if (c.bad || !c.n) return SY_OK;
    size_t ncase = 1;
    for (size_t i = 0; i < c.n; i++)
        if ((ncase *= (size_t)c.mod[i]) > 64) return SY_OK;
    /* truth[k]: 1 TRUE, 0 FALSE, -1 infeasible, for the residue tuple k (mixed radix) */
    signed char truth[64];
    for (size_t k = 0; k < ncase; k++) {
        sy_facts *f = sy_facts_copy(f0);
        if (!f) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        sy_status st = SY_OK;
        size_t rest = k;
        for (size_t i = 0; i < c.n && !st; i++) {
            int64_t r = (int64_t)(rest % (size_t)c.mod[i]);
            rest /= (size_t)c.mod[i];
            st = sy_facts_add(f, sy_expr_eq(ctx, sy_expr_mod(ctx, gs->vars[c.slot[i]], sy_expr_int_si(ctx, c.mod[i])),
                                            sy_expr_int_si(ctx, r)));
        }
        sy_truth t = SY_TRUTH_UNKNOWN;
        if (!st && sy_facts_consistent(f) == SY_FALSE) truth[k] = -1;
        else if (!st && (st = sy_decide(f, e, &t)) == SY_OK) truth[k] = t == SY_TRUTH_TRUE ? 1 : t == SY_TRUTH_FALSE ? 0 : 2;
        sy_facts_free(f);
        if (st == SY_EQUOTA) { /* a case the budget did not reach: not recognized */
            sy_ctx_reset_error(ctx);
            return SY_OK;
        }
        if (st) return st;
        if (truth[k] == 2) return SY_OK;
    }
    /* K: the dims at residue 0 in every TRUE case */
    bool ink[4] = {true, true, true, true};
    bool any = false;
    for (size_t k = 0; k < ncase; k++) {
        if (truth[k] != 1) continue;
        any = true;
        size_t rest = k;
        for (size_t i = 0; i < c.n; i++) {
            if (rest % (size_t)c.mod[i]) ink[i] = false;
            rest /= (size_t)c.mod[i];
        }
    }
    if (!any) return SY_OK;
    for (size_t k = 0; k < ncase; k++) {
        if (truth[k] < 0) continue;
        bool zero = true;
        size_t rest = k;
        for (size_t i = 0; i < c.n; i++) {
            if (ink[i] && rest % (size_t)c.mod[i]) zero = false;
            rest /= (size_t)c.mod[i];
        }
        if ((truth[k] == 1) != zero) return SY_OK;
    }
    for (size_t i = 0; i < c.n; i++)
        if (ink[i]) {
            ks[*nk] = c.slot[i];
            ms[(*nk)++] = c.mod[i];
        }
    return SY_OK;
}

/* The state of classifying one violation (classify_violation), shared by its steps. */
typedef struct {
    sy_gset *gs;
    sy_facts *f0;              /* the spec's facts */
    const gguard *g;           /* the guard */
    const sy_expr *e;          /* its expression */
    size_t grp[8], ngrp;       /* the declared groups it reads (one per name; an unnamed dim is its own group) */
    size_t nother;             /* the other free (not constant) dims it reads */
    char dims[256];            /* the groups' labels: "h and w" */
    char examples[256];        /* their examples: "h = 224, w = 224" */
    char why[400];             /* "; the model itself requires it: ..." or "" */
    char *gt;                  /* the guard over the dims' names */
    /* the fix: what, kd and decl (256 each), why (400) and the text around them fit */
    char buf[2048];
} vclass;

/* Step 1: the declared groups the guard reads and the other free dims, with their labels. */
static void violation_groups(vclass *V)
{
    sy_gset *gs = V->gs;
    const gguard *g = V->g;
    for (size_t k = 0; k < g->pub.nslots; k++) {
        size_t sl = g->pub.slots[k];
        if (gs->decl[sl].declared) {
            bool seen = false;
            for (size_t q = 0; q < V->ngrp; q++)
                if (V->grp[q] == sl || (gs->decl[V->grp[q]].name && gs->decl[sl].name && !strcmp(gs->decl[V->grp[q]].name, gs->decl[sl].name)))
                    seen = true;
            if (!seen && V->ngrp < 8) V->grp[V->ngrp++] = sl;
        } else {
            const sy_expr *lo, *hi;
            if (sy_bound(V->f0, gs->vars[sl], &lo, &hi) != SY_OK) sy_ctx_reset_error(gs->ctx);
            else if (!(lo && hi && lo == hi)) V->nother++;
        }
    }
    for (size_t q = 0; q < V->ngrp; q++) {
        size_t l = strlen(V->dims);
        snprintf(V->dims + l, sizeof V->dims - l, "%s%s", q ? (q + 1 == V->ngrp ? " and " : ", ") : "", decl_label(gs, V->grp[q]));
    }
    for (size_t q = 0; q < V->ngrp; q++) {
        size_t l = strlen(V->examples);
        snprintf(V->examples + l, sizeof V->examples - l, "%s%s = %lld", q ? ", " : "", decl_label(gs, V->grp[q]),
                 (long long)gs->decl[V->grp[q]].example);
    }
}

/* Step 2: the model's own requirement, if an op's validity check or an _assert recorded the guard
 * (a captured branch, guard_bool/int, is the trace's, not a requirement): V->why says which. */
static const sy_guard_origin *model_requirement(vclass *V)
{
    const gguard *g = V->g;
    const sy_guard_origin *req = NULL;
    for (size_t k = 0; k < g->pub.norigins && !req; k++)
        if (g->orig[k].required && !(g->orig[k].op && !strncmp(g->orig[k].op, "guard_", 6))) req = &g->orig[k];
    if (req) {
        if (req->op && !strcmp(req->op, "_assert"))
            snprintf(V->why, sizeof V->why, "; the model itself requires it: _assert at node '%s'", req->node ? req->node : "?");
        else
            snprintf(V->why, sizeof V->why, "; the model itself requires it: %s at node '%s' checks it", req->op ? req->op : "an op",
                     req->node ? req->node : "?");
        if (req->loc.file) {
            size_t l = strlen(V->why);
            snprintf(V->why + l, sizeof V->why - l, " (%s:%ld)", req->loc.file, req->loc.line);
        }
    }
    return req;
}

/* The fix of a guard that pins one declared dim to l: a 0/1 specialization of the example, an ONNX
 * dim_param equality with a dim left out of its input's spec, or static. */
static void fix_pinned(vclass *V, const sdecl *d0, int64_t l)
{
    sy_gset *gs = V->gs;
    const gguard *g = V->g;
    char *buf = V->buf;
    size_t n = sizeof V->buf;
    if ((l == 0 || l == 1) && l < d0->min && !g->pub.norigins) { /* 0/1 specialization of the example */
        if (d0->name)
            snprintf(buf, n, "%s = Dim('%s', min=%lld) keeps size %lld dynamic (or --no-specialize-01); else static %lld",
                     d0->name, d0->name, (long long)l, (long long)l, (long long)l);
        else /* a Dim's name is an identifier: the unnamed form, as for a narrowed range below */
            snprintf(buf, n, "%s: Dim(min=%lld) keeps size %lld dynamic (or --no-specialize-01); else static %lld",
                     gs->sources[V->grp[0]], (long long)l, (long long)l, (long long)l);
        return;
    }
    /* pinned by an ONNX dim_param equality with a dim left out of its input's spec (static): declare that dim */
    const sy_guard_origin *dp = NULL;
    for (size_t k = 0; k < g->pub.norigins && !dp; k++)
        if (g->orig[k].op && !strcmp(g->orig[k].op, "dim_param") && g->orig[k].node && g->orig[k].reason) dp = &g->orig[k];
    char needle[300];
    const char *at = NULL;
    if (dp && d0->name) {
        snprintf(needle, sizeof needle, " and input '%s' dim ", dp->node); /* onnx_trace.c declare_equal's reason */
        at = strstr(dp->reason, needle);
    }
    if (at) {
        long dim = strtol(at + strlen(needle), NULL, 10);
        const char *eqs = strstr(dp->reason, "equal: ");
        snprintf(buf, n,
                 "add %ld:%s to the --dynamic spec of %s: ONNX declares its dim %ld equal to %s (%s), and a dim left "
                 "out of a spec is static (%lld here); else static %lld",
                 dim, d0->name, dp->node, dim, d0->name, eqs ? eqs + 7 : dp->reason, (long long)l, (long long)l);
    } else
        snprintf(buf, n, "static %lld%s", (long long)l, V->why);
}

/* Step 3a, a guard on one declared dim and nothing else free: pinned to one value, or exactly a
 * narrower range (the guard holds everywhere in its bounds). Leaves V->buf empty otherwise. */
static sy_status fix_one_dim(vclass *V, sy_gset_violation *out)
{
    sy_ctx *ctx = V->gs->ctx;
    const sdecl *d0 = &V->gs->decl[V->grp[0]];
    const sy_expr *v = V->gs->vars[V->grp[0]], *e = V->e;
    sy_status st = SY_OK;
    sy_facts *f1 = sy_facts_copy(V->f0);
    if (!f1) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    const sy_expr *lo = NULL, *hi = NULL;
    if ((st = sy_facts_add(f1, e)) == SY_OK && sy_facts_consistent(f1) == SY_FALSE) {
        /* the guard excludes the whole declared range (a 0/1 specialization of the example): its own bound */
        sy_facts_free(f1);
        if (!(f1 = sy_facts_new(ctx))) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        st = sy_facts_add(f1, e);
    }
    if (st == SY_OK && sy_bound(f1, v, &lo, &hi) != SY_OK) {
        sy_ctx_reset_error(ctx);
        lo = hi = NULL;
    }
    sy_facts_free(f1);
    if (st) return st;
    int64_t l = 0, h = -1;
    bool hl = int_of(lo, &l), hh = int_of(hi, &h);
    if (hl && hh && l == h) {
        out->kind = SY_VIOL_PINNED;
        fix_pinned(V, d0, l);
        return SY_OK;
    }
    if (!hl && !hh) return SY_OK;
    /* exactly a narrower range? g must hold everywhere in [l, h] */
    sy_facts *f2 = sy_facts_copy(V->f0);
    if (!f2) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    sy_truth t = SY_TRUTH_UNKNOWN;
    st = sy_facts_set_range(f2, v, hl ? lo : NULL, hh ? hi : NULL);
    if (!st) st = sy_decide(f2, e, &t);
    sy_facts_free(f2);
    if (st || t != SY_TRUTH_TRUE) return st;
    out->kind = SY_VIOL_NARROWED;
    int64_t nl = hl && l > d0->min ? l : d0->min, nh = hh && (d0->max < 0 || h < d0->max) ? h : d0->max;
    char args[96] = "";
    if (nl != 2 || d0->min != 2) snprintf(args, sizeof args, ", min=%lld", (long long)nl);
    if (nh >= 0) {
        size_t k = strlen(args);
        snprintf(args + k, sizeof args - k, ", max=%lld", (long long)nh);
    }
    if (d0->name) snprintf(V->buf, sizeof V->buf, "%s = Dim('%s'%s)%s", d0->name, d0->name, args, V->why);
    else snprintf(V->buf, sizeof V->buf, "%s: Dim(%s)%s", V->gs->sources[V->grp[0]], args[0] ? args + 2 : "", V->why);
    return SY_OK;
}

/* Step 3b, an equality on two declared dims and nothing else free that makes them equal: one name. */
static sy_status fix_equal_pair(vclass *V, sy_gset_violation *out)
{
    sy_gset *gs = V->gs;
    sy_facts *f1 = sy_facts_copy(V->f0);
    if (!f1) return sy_fail_st(gs->ctx, SY_ENOMEM, "out of memory");
    sy_truth t = SY_TRUTH_UNKNOWN;
    sy_status st = sy_facts_add(f1, V->e);
    if (!st) st = sy_decide(f1, sy_expr_eq(gs->ctx, gs->vars[V->grp[0]], gs->vars[V->grp[1]]), &t);
    sy_facts_free(f1);
    if (st) return st;
    if (t == SY_TRUTH_TRUE) {
        out->kind = SY_VIOL_EQUAL;
        snprintf(V->buf, sizeof V->buf, "%s and %s must be equal: give them one name%s", decl_label(gs, V->grp[0]),
                 decl_label(gs, V->grp[1]), V->why);
    }
    return SY_OK;
}

/* Step 4, every other guard: a divisibility (proved, or read off a Mod), a function of other dims,
 * or a relation no Dim range expresses. */
static sy_status fix_general(vclass *V, sy_gset_violation *out)
{
    sy_gset *gs = V->gs;
    sy_ctx *ctx = gs->ctx;
    const sy_expr *e = V->e;
    char *buf = V->buf;
    size_t n = sizeof V->buf;
    const char *why = V->why;
    const sy_expr *a0 = sy_expr_nargs(e) ? sy_expr_arg(e, 0) : NULL;
    size_t nk = 0, ks[4];
    int64_t ms[4];
    sy_status st;
    if (!has_mod(e) && (st = divisibility_of(gs, V->f0, e, &nk, ks, ms))) return st;
    if (nk) {
        /* proved equivalent to Mod(v, m) == 0 for each v in K: h only has to be even */
        out->kind = SY_VIOL_DIVISIBILITY;
        char what[256] = "", decl[256] = "", kd[256] = "";
        for (size_t i = 0; i < nk; i++) {
            const char *lab = decl_label(gs, ks[i]);
            size_t l = strlen(what), l2 = strlen(decl), l3 = strlen(kd);
            const char *sep = i ? (i + 1 == nk ? " and " : ", ") : "";
            snprintf(what + l, sizeof what - l, "%s%s%s a multiple of %lld", sep, lab, i ? "" : " must be", (long long)ms[i]);
            snprintf(decl + l2, sizeof decl - l2, "%s%s = %lld*Dim('%s_k')", i ? ", " : "", lab, (long long)ms[i], lab);
            snprintf(kd + l3, sizeof kd - l3, "%s%s", sep, lab);
        }
        snprintf(buf, n,
                 "%s (the guard holds exactly then): no Dim range expresses this; make %s static, or declare %s (%s) "
                 "where the model allows it%s",
                 what, kd, nk > 1 ? "each a multiple" : "it a multiple", decl, why);
        out->dims = gstrdup(gs, kd);
    } else if (has_mod(e)) {
        out->kind = SY_VIOL_DIVISIBILITY;
        if (sy_expr_kind_of(e) == SY_EXPR_EQ && a0 && sy_expr_kind_of(a0) == SY_EXPR_MOD) {
            char *x = named_text(gs, sy_expr_arg(a0, 0)), *m = named_text(gs, sy_expr_arg(a0, 1));
            snprintf(buf, n,
                     "%s must be a multiple of %s: no Dim range expresses this; make a dim static, or declare one a multiple "
                     "(%s = %s*Dim('%s_k')) where the model allows it%s",
                     x ? x : "?", m ? m : "?", decl_label(gs, V->grp[0]), m ? m : "?", decl_label(gs, V->grp[0]), why);
            sy_str_free(ctx, x);
            sy_str_free(ctx, m);
        } else
            snprintf(buf, n, "%s must hold (a divisibility condition): no Dim range expresses this; make %s static%s",
                     V->gt, V->dims, why);
    } else if (sy_expr_kind_of(e) == SY_EXPR_EQ && V->ngrp > 1) {
        /* several declared dims tied together (ViT's FloorDiv(h, 16)*FloorDiv(w, 16) == 196): static at the example */
        out->kind = SY_VIOL_FUNCTION;
        snprintf(buf, n, "%s are tied by %s: make them static (%s at the example), or declare one as that function of the others%s",
                 V->dims, V->gt, V->examples, why);
    } else if (sy_expr_kind_of(e) == SY_EXPR_EQ) {
        out->kind = SY_VIOL_FUNCTION;
        snprintf(buf, n, "%s is determined by other dims (%s): make it static, or declare it as that function of them%s",
                 V->dims, V->gt, why);
    } else
        snprintf(buf, n, "no Dim range expresses %s: make %s static (%s at the example)%s", V->gt, V->dims, V->examples, why);
    return SY_OK;
}

/* The violation of the spec by guard gi, in steps: 1 the declared groups it reads and its other
 * free dims, the message; 2 whether the model itself requires it; 3 a fix by a Dim (pinned, a
 * narrower range, two names made one), else 4 the general fix (divisibility, function, static). */
static sy_status classify_violation(sy_gset *gs, sy_facts *f0, size_t gi, sy_gset_violation *out)
{
    sy_ctx *ctx = gs->ctx;
    vclass vc = {0}, *V = &vc;
    V->gs = gs;
    V->f0 = f0;
    V->g = &gs->g[gi];
    V->e = V->g->pub.expr;
    violation_groups(V);
    out->guard = gi;
    out->dims = gstrdup(gs, V->dims);
    const sdecl *d0 = &gs->decl[V->grp[0]];
    char rng[64];
    range_str(rng, sizeof rng, d0->min, d0->max);
    sy_status st = SY_OK;
    if (!(V->gt = named_text(gs, V->e)) || !tx_format(gs, V->g->tx)) {
        st = sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ENOMEM;
        goto done;
    }
    if (V->ngrp == 1) snprintf(V->buf, sizeof V->buf, "not all values of %s in %s satisfy %s", V->dims, rng, V->g->tx->text);
    else snprintf(V->buf, sizeof V->buf, "not all values of %s in their declared ranges satisfy %s", V->dims, V->g->tx->text);
    out->message = gstrdup(gs, V->buf);
    out->model_requires = model_requirement(V) != NULL;
    out->kind = SY_VIOL_RELATION;
    V->buf[0] = 0;
    if (V->ngrp == 1 && V->nother == 0) st = fix_one_dim(V, out);
    else if (V->ngrp == 2 && V->nother == 0 && sy_expr_kind_of(V->e) == SY_EXPR_EQ) st = fix_equal_pair(V, out);
    if (!st && !V->buf[0]) st = fix_general(V, out);
    if (!st) out->fix = gstrdup(gs, V->buf);
done:
    sy_str_free(ctx, V->gt);
    return st;
}

/* torch.export's check: a guard on a declared dim must follow from the spec
 * (declared ranges, same-name equalities) and the guards on other sources. */
sy_status find_violations(sy_gset *gs)
{
    gs->nviol = 0;
    if (!gs->decl) return SY_OK;
    sy_ctx *ctx = gs->ctx;
    sy_facts *f0 = sy_facts_new(ctx);
    if (!f0) return sy_ctx_last_error(ctx);
    sy_status st = SY_OK;
    const sy_expr *zero = sy_expr_int_si(ctx, 0);
    for (size_t sl = 0; sl < gs->nsrc && !st; sl++) {
        const sdecl *d = &gs->decl[sl];
        if (!d->declared) st = sy_facts_set_range(f0, gs->vars[sl], zero, NULL);
        else st = sy_facts_set_range(f0, gs->vars[sl], sy_expr_int_si(ctx, d->min), d->max >= 0 ? sy_expr_int_si(ctx, d->max) : NULL);
        for (size_t t = sl + 1; t < gs->nsrc && !st && d->declared && d->name; t++)
            if (gs->decl[t].declared && gs->decl[t].name && !strcmp(gs->decl[t].name, d->name))
                st = sy_facts_add(f0, sy_expr_eq(ctx, gs->vars[sl], gs->vars[t]));
    }
    for (size_t i = 0; i < gs->n && !st; i++)
        if (gs->g[i].pub.kind != SY_GK_RUNTIME_ASSERT && !reads_declared(gs, &gs->g[i])) st = sy_facts_add(f0, gs->g[i].pub.expr);
    if (!st && gs->n && !(gs->viol = galloc(gs, gs->n * sizeof *gs->viol))) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    for (size_t i = 0; i < gs->n && !st; i++) {
        const gguard *g = &gs->g[i];
        if (g->pub.kind == SY_GK_RUNTIME_ASSERT || !reads_declared(gs, g) || limit_only(g)) continue;
        sy_truth t = SY_TRUTH_UNKNOWN;
        if ((st = sy_decide(f0, g->pub.expr, &t))) break;
        if (t == SY_TRUTH_TRUE) continue; /* restates the spec */
        st = classify_violation(gs, f0, i, &gs->viol[gs->nviol]);
        if (!st) gs->nviol++;
    }
    sy_facts_free(f0);
    return st;
}
