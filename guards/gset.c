/* Guard sets: production over input sources, minimization, checking, JSON.
 * See include/symshape/gset.h and docs/guards.md. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "algebra/eval_private.h"
#include "symshape/env.h"
#include "symshape/tensor.h"
#include "symshape/graph.h"
#include "symshape/gset.h"

/* How a guard's why reads: the format and its arguments, kept so that the
 * text is made only when someone asks for it (tx_format). Strings are the
 * set's own (arena, sources), static, or symbol names (the context's). */
typedef enum {
    WHY_NONE = 0,   /* no why (NULL) */
    WHY_STR,        /* s[0] as it is */
    WHY_RANK,       /* "rank of input NAME": NAME = the first n[0] bytes of s[0] (its "NAME.dim()" source) */
    WHY_DTYPE,      /* NAME as for WHY_RANK, n[1] the dtype */
    WHY_01_DECL,    /* 0/1 specialization below a declared range: n[0] example, s[0] the Dim's name or source */
    WHY_01,         /* 0/1 specialization: n[0] example */
    WHY_DECL_EQ,    /* s[0] and s[1] (sources) named s[2] */
    WHY_DUCK,       /* duck sizing of s[0] and s[1] (sources), n[0] example */
    WHY_SHARED,     /* s[0] and s[1] (sources) given one symbol by the frontend (an ONNX dim_param), not by duck sizing */
    WHY_STRIDE,     /* stride n[0] of input NAME (the first n[1] bytes of s[0]), n[2] declared */
    WHY_DECL_RANGE, /* declared range [n[0], n[1]] (n[1] -1: oo) of Dim s[0] (NULL: unnamed, source s[1]) */
    WHY_01_RANGE,   /* s[0] >= 2 assumed */
    WHY_RECORDED,   /* op s[0], reason s[1], n[0] required; the sizes seen of the slots */
    WHY_NORM        /* exact range of source s[0], replacing the nm guards m */
} why_kind;

typedef struct gtext {
    const sy_expr *expr;  /* the text is its print */
    const char *legend;   /* appended to the text (unbacked symbols it reads), or NULL */
    int dtype;            /* >= 0: a dtype guard, displayed with the dtype by name */
    size_t dslot;         /* its source */
    why_kind wk;
    const char *s[3];
    int64_t n[3];
    const size_t *slots;  /* WHY_RECORDED: the guard's slots */
    size_t nslots;
    struct gtext **m;     /* WHY_NORM */
    size_t nm;
    bool done;
    const char *text, *display, *why; /* made by tx_format */
} gtext;

typedef struct gguard {
    sy_gset_guard pub;   /* text, display and why are filled from tx when asked for (guard_pub) */
    gtext *tx;
    sy_guard_origin *orig;
    size_t origcap;
    size_t cost; /* expr_cost, computed once per minimization */
    size_t uid;  /* stable identity (creation order), for the Implied list */
    bool dead;
} gguard;

enum { DREC_MAX = 16, DREC_VISITS = 256 };

/* A guard minimization dropped: implied by the guards imp (uids, alive when
 * it was dropped), or (normalized) replaced by its exact range guards imp. */
typedef struct drec {
    struct drec *next;
    size_t uid;
    bool normalized, partial;
    sy_gset_kind kind;
    const sy_expr *expr;
    gtext *tx;
    size_t nimp;
    size_t imp[DREC_MAX];
} drec;

typedef struct gchunk {
    struct gchunk *next;
    size_t size, used;
    max_align_t data[];
} gchunk;

typedef struct sdecl {
    bool declared;
    const char *name;
    int64_t min, max, example;
} sdecl;

struct sy_gset {
    sy_ctx *ctx;
    sdecl *decl; /* per source slot (nsrc entries) when some dim is declared, else NULL */
    sy_gset_violation *viol;
    size_t nviol;
    size_t norm_from, norm_into; /* normalization: guards replaced, exact range guards they became */
    const char *model;
    const char **sources;
    const sy_expr **vars;
    int64_t *example;          /* example value of each source (minimization's witness points) */
    unsigned char *has_example;
    size_t nsrc, srccap;
    size_t *sidx;              /* open-addressing index of sources by text: slot + 1, 0 empty */
    size_t sidx_cap;
    gguard *g;
    size_t n, cap;
    size_t recorded, dedup;
    gchunk *chunks;
    /* unbacked symbols of the env, in creation order, and their sources */
    const sy_expr **ub;
    const char **ubsrc;
    size_t nub;
    /* minimization's dropped guards (arena records), and the public Implied list built from them */
    size_t next_uid;
    drec *drops;
    sy_gset_implied *impl;
    gtext **impl_tx; /* the texts of impl[i] */
    size_t nimpl;
};

static const char *const kind_names[] = {"tensor_match", "equality", "specialization", "range", "relation", "runtime_assert"};
const char *sy_gset_kind_name(sy_gset_kind k) { return (unsigned)k <= SY_GK_RUNTIME_ASSERT ? kind_names[k] : "?"; }

static void *galloc(sy_gset *gs, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    gchunk *c = gs->chunks;
    if (!c || c->size - c->used < size) {
        /* 2 KiB chunks: the newest one's slack is part of the peak (see arena_alloc, expr.c) */
        size_t cs = 2048;
        if (cs < size) cs = size;
        c = sy_alloc(gs->ctx, sizeof *c + cs);
        if (!c) return NULL;
        c->size = cs;
        c->used = 0;
        c->next = gs->chunks;
        gs->chunks = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

static const char *gstrdup(sy_gset *gs, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = galloc(gs, n);
    if (p) memcpy(p, s, n);
    return p;
}

sy_gset *sy_gset_free(sy_gset *gs)
{
    if (!gs) return NULL;
    sy_ctx *ctx = gs->ctx;
    for (size_t i = 0; i < gs->n; i++)
        if (gs->g[i].orig) sy_dealloc(ctx, gs->g[i].orig, gs->g[i].origcap * sizeof *gs->g[i].orig);
    if (gs->g) sy_dealloc(ctx, gs->g, gs->cap * sizeof *gs->g);
    if (gs->sources) sy_dealloc(ctx, gs->sources, gs->srccap * sizeof *gs->sources);
    if (gs->sidx) sy_dealloc(ctx, gs->sidx, gs->sidx_cap * sizeof *gs->sidx);
    if (gs->vars) sy_dealloc(ctx, gs->vars, gs->srccap * sizeof *gs->vars);
    if (gs->example) sy_dealloc(ctx, gs->example, gs->srccap * sizeof *gs->example);
    if (gs->has_example) sy_dealloc(ctx, gs->has_example, gs->srccap);
    for (gchunk *c = gs->chunks, *n; c; c = n) {
        n = c->next;
        sy_dealloc(ctx, c, sizeof *c + c->size);
    }
    sy_dealloc(ctx, gs, sizeof *gs);
    return NULL;
}

static uint64_t src_hash(const char *t)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *t; t++) h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

/* Index the sources so that finding one by text is O(1), not a scan per
 * lookup (10^3 inputs: 10^6 strcmp). */
static bool index_source(sy_gset *gs, size_t slot)
{
    if ((gs->nsrc + 1) * 2 > gs->sidx_cap) {
        size_t nc = gs->sidx_cap ? gs->sidx_cap * 2 : 64;
        size_t *ni = sy_alloc(gs->ctx, nc * sizeof *ni);
        if (!ni) return false;
        memset(ni, 0, nc * sizeof *ni);
        for (size_t i = 0; i < gs->sidx_cap; i++) {
            if (!gs->sidx[i]) continue;
            size_t j = (size_t)src_hash(gs->sources[gs->sidx[i] - 1]) & (nc - 1);
            while (ni[j]) j = (j + 1) & (nc - 1);
            ni[j] = gs->sidx[i];
        }
        if (gs->sidx) sy_dealloc(gs->ctx, gs->sidx, gs->sidx_cap * sizeof *gs->sidx);
        gs->sidx = ni;
        gs->sidx_cap = nc;
    }
    size_t j = (size_t)src_hash(gs->sources[slot]) & (gs->sidx_cap - 1);
    while (gs->sidx[j]) {
        if (!strcmp(gs->sources[gs->sidx[j] - 1], gs->sources[slot])) return true; /* the first slot of a text stays */
        j = (j + 1) & (gs->sidx_cap - 1);
    }
    gs->sidx[j] = slot + 1;
    return true;
}

static long add_source(sy_gset *gs, const char *text)
{
    if (gs->nsrc == gs->srccap) {
        size_t nc = gs->srccap ? gs->srccap * 2 : 16;
        const char **ns = sy_realloc(gs->ctx, gs->sources, gs->srccap * sizeof *ns, nc * sizeof *ns);
        if (!ns) return -1;
        gs->sources = ns;
        const sy_expr **nv = sy_realloc(gs->ctx, gs->vars, gs->srccap * sizeof *nv, nc * sizeof *nv);
        if (!nv) return -1;
        gs->vars = nv;
        int64_t *ne = sy_realloc(gs->ctx, gs->example, gs->srccap * sizeof *ne, nc * sizeof *ne);
        if (!ne) return -1;
        gs->example = ne;
        unsigned char *nh = sy_realloc(gs->ctx, gs->has_example, gs->srccap, nc);
        if (!nh) return -1;
        gs->has_example = nh;
        gs->srccap = nc;
    }
    const char *t = gstrdup(gs, text);
    const sy_expr *v = t ? sy_sym_internal(gs->ctx, t) : NULL;
    if (!v) return -1;
    gs->sources[gs->nsrc] = t;
    gs->vars[gs->nsrc] = v;
    gs->example[gs->nsrc] = 0;
    gs->has_example[gs->nsrc] = 0;
    if (!index_source(gs, gs->nsrc)) return -1;
    return (long)gs->nsrc++;
}

long sy_gset_find_source(const sy_gset *gs, const char *text)
{
    if (!gs || !text || !gs->sidx) return -1;
    size_t j = (size_t)src_hash(text) & (gs->sidx_cap - 1);
    while (gs->sidx[j]) {
        if (!strcmp(gs->sources[gs->sidx[j] - 1], text)) return (long)(gs->sidx[j] - 1);
        j = (j + 1) & (gs->sidx_cap - 1);
    }
    return -1;
}

/* The slot of a source variable: vars[i] is the internal symbol named by
 * sources[i], so the text index finds it (the first slot of that text, as a
 * scan would). */
static long slot_of_var(const sy_gset *gs, const sy_expr *v)
{
    if (sy_expr_kind_of(v) != SY_EXPR_SYM) return -1;
    long s = sy_gset_find_source(gs, sy_expr_sym_name(v));
    return s >= 0 && gs->vars[s] == v ? s : -1;
}

/* The free symbols of e when it is a relation over a sum of symbols (or
 * true/false): the terms' monomials, distinct, into buf (cap entries); false
 * for any other form, which the general walk handles. Most derived guards
 * (x.dim() == 4, h == w, 2 <= h) have this form. */
static bool linear_symbols(const sy_expr *e, const sy_expr **buf, size_t cap, size_t *n)
{
    *n = 0;
    if (e->kind == SY_EXPR_TRUE || e->kind == SY_EXPR_FALSE) return true;
    if (e->kind != SY_EXPR_EQ && e->kind != SY_EXPR_NE && e->kind != SY_EXPR_LE) return false;
    const sy_expr *d = e->args[0];
    if (d->kind == SY_EXPR_SYM) {
        buf[(*n)++] = d;
        return true;
    }
    if (d->kind != SY_EXPR_ADD || d->n > cap) return false;
    for (uint32_t i = 0; i < d->n; i++) {
        if (SY_CTERMS(d)[i].mono->kind != SY_EXPR_SYM) return false;
        buf[(*n)++] = SY_CTERMS(d)[i].mono;
    }
    return true;
}

/* the slots read by e, sorted (in the set's arena: a guard's slots never
 * change); fs/nfs: e's free symbols when the caller has them, else NULL */
static sy_status set_slots(sy_gset *gs, gguard *gg, const sy_expr *const *fs0, size_t nfs)
{
    const sy_expr *lin[8], **fs = NULL;
    const sy_expr *const *use = fs0;
    size_t n = nfs;
    if (!use) {
        if (linear_symbols(gg->pub.expr, lin, 8, &n)) use = lin;
        else if (sy_expr_free_symbols(gs->ctx, gg->pub.expr, &fs, &n) != SY_OK) return sy_ctx_last_error(gs->ctx);
        else use = fs;
    }
    size_t *slots = galloc(gs, (n ? n : 1) * sizeof *slots);
    if (!slots) {
        if (fs) sy_mem_free(gs->ctx, fs);
        return sy_fail_st(gs->ctx, SY_ENOMEM, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        long s = slot_of_var(gs, use[i]);
        if (s >= 0) slots[k++] = (size_t)s;
    }
    if (fs) sy_mem_free(gs->ctx, fs);
    for (size_t i = 1; i < k; i++) /* insertion sort */
        for (size_t j = i; j > 0 && slots[j - 1] > slots[j]; j--) {
            size_t t = slots[j];
            slots[j] = slots[j - 1];
            slots[j - 1] = t;
        }
    gg->pub.nslots = k;
    gg->pub.slots = slots;
    return SY_OK;
}

/* The text of a guard: canonical, or the let-form when the tree has more
 * than SY_SHOW_LET_NODES nodes (shared subterms repeated: see sy_env_show).
 * GIVE: sy_str_free. */
static char *print_show(sy_ctx *ctx, const sy_expr *e)
{
    return sy_expr_print_bounded(ctx, e, SY_PRINT_CANONICAL, SY_SHOW_LET_NODES);
}

/* A new guard; its why (tx->wk) is WHY_NONE until the caller sets it. Its
 * texts are not made here (tx_format). fs/nfs: e's free symbols if known
 * (else NULL). */
static gguard *add_guard_fs(sy_gset *gs, sy_gset_kind kind, const sy_expr *e, const sy_expr *const *fs, size_t nfs)
{
    if (!e) return NULL;
    if (gs->n == gs->cap) {
        size_t nc = gs->cap ? gs->cap * 2 : 32;
        gguard *ng = sy_realloc(gs->ctx, gs->g, gs->cap * sizeof *ng, nc * sizeof *ng);
        if (!ng) return SY_NOOM(gs->ctx);
        gs->g = ng;
        gs->cap = nc;
    }
    gtext *tx = galloc(gs, sizeof *tx);
    if (!tx) return SY_NOOM(gs->ctx);
    gguard *gg = &gs->g[gs->n++];
    memset(gg, 0, sizeof *gg);
    gg->uid = gs->next_uid++;
    gg->pub.kind = kind;
    gg->pub.expr = e;
    gg->tx = tx;
    tx->expr = e;
    tx->dtype = -1;
    if (set_slots(gs, gg, fs, nfs) != SY_OK) return NULL;
    tx->slots = gg->pub.slots;
    tx->nslots = gg->pub.nslots;
    return gg;
}

static gguard *add_guard(sy_gset *gs, sy_gset_kind kind, const sy_expr *e) { return add_guard_fs(gs, kind, e, NULL, 0); }

/* add_guard with a why of kind wk and its arguments */
static gguard *add_guard_why(sy_gset *gs, sy_gset_kind kind, const sy_expr *e, why_kind wk, const char *s0,
                             const char *s1, const char *s2, int64_t n0, int64_t n1, int64_t n2)
{
    gguard *gg = add_guard(gs, kind, e);
    if (!gg) return NULL;
    gtext *t = gg->tx;
    t->wk = wk;
    t->s[0] = s0;
    t->s[1] = s1;
    t->s[2] = s2;
    t->n[0] = n0;
    t->n[1] = n1;
    t->n[2] = n2;
    return gg;
}

/* the tensor-match guards of input source slots sd ("NAME.dim()") and sd + 1 ("NAME.dtype"):
 * rank and dtype, the latter displayed with the dtype by name */
static const char *name_in(sy_gset *gs, const char *src, const char *name, size_t namelen);
static bool add_match_guards(sy_gset *gs, long sd, const char *name, size_t ndim, sy_dtype dt)
{
    sy_ctx *ctx = gs->ctx;
    size_t namelen = strlen(name);
    const char *nm = name_in(gs, gs->sources[sd], name, namelen);
    if (!nm || !add_guard_why(gs, SY_GK_TENSOR_MATCH, sy_expr_eq(ctx, gs->vars[sd], sy_expr_int_si(ctx, (int64_t)ndim)), WHY_RANK,
                              nm, NULL, NULL, (int64_t)namelen, 0, 0))
        return false;
    gguard *gg = add_guard_why(gs, SY_GK_TENSOR_MATCH, sy_expr_eq(ctx, gs->vars[sd + 1], sy_expr_int_si(ctx, (int64_t)dt)),
                               WHY_DTYPE, nm, NULL, NULL, (int64_t)namelen, (int64_t)dt, 0);
    if (!gg) return false;
    gg->tx->dtype = (int)dt;
    gg->tx->dslot = (size_t)sd + 1;
    return true;
}

static bool add_origin(sy_gset *gs, gguard *gg, const sy_guard_origin *o)
{
    for (size_t i = 0; i < gg->pub.norigins; i++) {
        sy_guard_origin *x = &gg->orig[i];
        bool same = (x->node == o->node || (x->node && o->node && !strcmp(x->node, o->node))) &&
                    (x->reason == o->reason || (x->reason && o->reason && !strcmp(x->reason, o->reason))) &&
                    (x->loc.file == o->loc.file || (x->loc.file && o->loc.file && !strcmp(x->loc.file, o->loc.file))) &&
                    x->loc.line == o->loc.line;
        if (same) {
            x->count += o->count;
            x->required |= o->required;
            return true;
        }
    }
    if (gg->pub.norigins == gg->origcap) {
        size_t nc = gg->origcap ? gg->origcap * 2 : 2;
        sy_guard_origin *no = sy_realloc(gs->ctx, gg->orig, gg->origcap * sizeof *no, nc * sizeof *no);
        if (!no) return false;
        gg->orig = no;
        gg->origcap = nc;
    }
    sy_guard_origin *x = &gg->orig[gg->pub.norigins++];
    x->node = gstrdup(gs, o->node);
    x->op = gstrdup(gs, o->op);
    x->reason = gstrdup(gs, o->reason);
    x->count = o->count;
    x->required = o->required;
    x->loc.file = gstrdup(gs, o->loc.file);
    x->loc.line = o->loc.file ? o->loc.line : 0;
    x->loc.function = o->loc.file ? gstrdup(gs, o->loc.function) : NULL;
    gg->pub.origins = gg->orig;
    if ((o->loc.file && !x->loc.file) || (o->loc.file && o->loc.function && !x->loc.function)) return false;
    return true;
}

/* classify a relation over source variables */
static sy_gset_kind classify(const sy_expr *e)
{
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k != SY_EXPR_EQ && k != SY_EXPR_LE) return SY_GK_RELATION;
    const sy_expr *d = sy_expr_arg(e, 0);
    size_t nt = sy_expr_kind_of(d) == SY_EXPR_ADD ? sy_expr_nargs(d) : 1;
    bool linear_vars = true;
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = sy_expr_kind_of(d) == SY_EXPR_ADD ? sy_expr_arg(d, i) : d;
        if (sy_expr_kind_of(m) != SY_EXPR_SYM) linear_vars = false;
    }
    if (!linear_vars) return SY_GK_RELATION;
    if (k == SY_EXPR_LE) return nt == 1 ? SY_GK_RANGE : SY_GK_RELATION;
    if (nt == 1) return SY_GK_SPECIALIZATION;
    if (nt == 2) return SY_GK_EQUALITY;
    return SY_GK_RELATION;
}

/* the source "NAME.size()[i]" of an input that no node and no output reads */
/* is_input: per node index (n entries), 1 for the graph's input nodes, or NULL */
static bool unread_source(const sy_graph *g, const unsigned char *is_input, size_t nis, const char *source)
{
    /* NAME.size()[D] of an input NAME: the node by name (hashed), else the scan */
    const char *p = strstr(source, ".size()["), *q;
    while (p && (q = strstr(p + 1, ".size()["))) p = q;
    if (g && is_input && p && (size_t)(p - source) < 1024) {
        char name[1024];
        memcpy(name, source, (size_t)(p - source));
        name[p - source] = '\0';
        long i = sy_graph_find(g, name);
        if (i >= 0 && (size_t)i < nis && is_input[i]) return !sy_graph_node_read(g, (size_t)i);
    }
    for (size_t i = 0; g && i < sy_graph_ninputs(g); i++) {
        const sy_graph_input *in = sy_graph_input_at(g, i);
        size_t n = strlen(in->name);
        if (!strncmp(source, in->name, n) && !strncmp(source + n, ".size()[", 8)) return !sy_graph_node_read(g, in->node);
    }
    return false;
}

/* the stride d of input name as the trace assumed it, in env symbols: its
 * declared strides (sy_env_input_set_strides), or, when an op read strides
 * (stride(), is_contiguous()), the contiguous stride (product of the sizes
 * after d); NULL when neither (no stride guard) */
static const sy_expr *stride_expr(sy_env *env, const char *name, size_t ndim, size_t d)
{
    sy_ctx *ctx = sy_env_ctx(env);
    const sy_env_input_info *in = sy_env_input_info_find(env, name);
    if (in && in->strides) return d < ndim ? in->strides[d] : NULL;
    if (!sy_env_strides_read(env) || d >= ndim) return NULL;
    const sy_expr *acc = sy_expr_int_si(ctx, 1);
    size_t nl = strlen(name);
    for (size_t k = d + 1; k < ndim && acc; k++) {
        const sy_expr *sz = NULL;
        for (size_t j = 0; j < sy_env_ninput_dims(env) && !sz; j++) {
            const char *src = sy_env_input_dim(env, j)->source;
            size_t dd;
            if (!strncmp(src, name, nl) && sy_gset_source_parse(src, NULL, &dd) == SY_SOURCE_SIZE && dd == k &&
                !strncmp(src + nl, ".size()[", 8))
                sz = sy_env_input_dim(env, j)->expr;
        }
        if (!sz) return NULL;
        acc = sy_expr_mul(ctx, acc, sz);
    }
    return acc;
}

static sy_status produce(sy_env *env, const char *model, const sy_graph *g, size_t nin,
                         const sy_graph_input *const *ins, sy_gset **out);

sy_status sy_gset_produce(sy_env *env, const sy_graph *g, sy_gset **out)
{
    if (!env) return SY_EINVAL;
    sy_ctx *ctx = sy_env_ctx(env);
    size_t nin = g ? sy_graph_ninputs(g) : 0;
    const sy_graph_input **ins = NULL;
    if (nin && !(ins = sy_alloc(ctx, nin * sizeof *ins))) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    for (size_t i = 0; i < nin; i++) ins[i] = sy_graph_input_at(g, i);
    sy_status st = produce(env, g ? sy_graph_name(g) : NULL, g, nin, ins, out);
    if (ins) sy_dealloc(ctx, ins, nin * sizeof *ins);
    return st;
}

sy_status sy_gset_produce_inputs(sy_env *env, const char *model, size_t nin, const sy_graph_input *const *ins,
                                 sy_gset **out)
{
    return produce(env, model, NULL, nin, ins, out);
}

/* buf = NAME SUFFIX, then IDX "]" when idx >= 0 ("x.size()[2]"): the text
 * snprintf(buf, n, "%s.size()[%zu]", ...) makes, truncated alike to n - 1
 * bytes, without its cost (a few sources per input, each formatted). */
static const char *src_text(char *buf, size_t n, const char *name, const char *suffix, long idx)
{
    size_t w = 0;
    for (const char *p = name; *p && w + 1 < n; p++) buf[w++] = *p;
    for (const char *p = suffix; *p && w + 1 < n; p++) buf[w++] = *p;
    if (idx >= 0) {
        char d[24];
        size_t k = 0;
        do d[k++] = (char)('0' + idx % 10);
        while ((idx /= 10) > 0);
        while (k > 0 && w + 1 < n) buf[w++] = d[--k];
        if (w + 1 < n) buf[w++] = ']';
    }
    buf[w] = '\0';
    return buf;
}

/* A why's input NAME as the first namelen bytes of its source src (which
 * starts with it unless the source was truncated), else the set's copy. */
static const char *name_in(sy_gset *gs, const char *src, const char *name, size_t namelen)
{
    return !strncmp(src, name, namelen) && src[namelen] ? src : gstrdup(gs, name);
}

/* g: the graph the inputs belong to, or NULL (then every input counts as read:
 * without a graph nothing says what is unread). */
static bool input_read(const sy_graph *g, const sy_graph_input *in) { return !g || sy_graph_node_read(g, in->node); }

static sy_status produce(sy_env *env, const char *model, const sy_graph *g, size_t nin,
                         const sy_graph_input *const *ins, sy_gset **out)
{
    if (!env) return SY_EINVAL;
    sy_ctx *ctx = sy_env_ctx(env);
    if (!out) return sy_fail_st(ctx, SY_EINVAL, "produce_guards: NULL argument");
    *out = NULL;
    /* The env's memos (products, touched nodes, and its facts' bounds,
     * simplifications, linear-layer answers) served the trace; produce and
     * minimize ask other questions. Released here, they are not part of the
     * guard phase's peak (a hit and a recomputation give the same answer:
     * they only cost time). */
    sy_env_drop_memos(env);
    sy_gset *gs = sy_alloc(ctx, sizeof *gs);
    if (!gs) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    memset(gs, 0, sizeof *gs);
    gs->ctx = ctx;
    gs->model = gstrdup(gs, model ? model : "model");
    char buf[1024];
    sy_status st = SY_OK;
    unsigned char *is_input = NULL; /* per node index: an input of g (unread_source) */
    size_t n_is_input = 0;
    sy_memo reps = {0}; /* the source variables that represent a symbol (the values of symvar) */
    bool any_stride = false; /* some input has stride sources (step 3b) */
    size_t ndims = sy_env_ninput_dims(env);
    unsigned char *unread_at = NULL; /* step 2: per input dim, unread_source's answer */
    /* 1. sources and tensor-match guards, per graph input */
    /* the graph's (or frontend's) inputs; without any, the inputs as sy_env_input registered them */
    size_t nsrc_in = nin ? nin : sy_env_ninputs(env);
    for (size_t i = 0; i < nsrc_in; i++) {
        sy_env_input_info ei = {0};
        int read = 1;
        if (nin) {
            const sy_graph_input *gi = ins[i];
            ei = (sy_env_input_info){gi->name, gi->dtype, gi->ndim, NULL};
            read = input_read(g, gi);
        } else {
            ei = *sy_env_input_info_at(env, i);
        }
        const sy_env_input_info *in = &ei;
        long sd = add_source(gs, src_text(buf, sizeof buf, in->name, ".dim()", -1));
        long st_ = add_source(gs, src_text(buf, sizeof buf, in->name, ".dtype", -1));
        if (sd < 0 || st_ < 0) goto oom;
        gs->example[sd] = (int64_t)in->ndim;
        gs->has_example[sd] = 1;
        gs->example[st_] = (int64_t)in->dtype;
        gs->has_example[st_] = 1;
        for (size_t d = 0; d < in->ndim; d++)
            if (add_source(gs, src_text(buf, sizeof buf, in->name, ".size()[", (long)d)) < 0) goto oom;
        if (!read) continue; /* nothing reads it: no guard (PyTorch #106067), see step 2 */
        if (stride_expr(env, in->name, in->ndim, 0)) { /* stride sources: declared strides, or strides were read */
            any_stride = true;
            for (size_t d = 0; d < in->ndim; d++)
                if (add_source(gs, src_text(buf, sizeof buf, in->name, ".stride()[", (long)d)) < 0) goto oom;
        }
        if (!add_match_guards(gs, sd, in->name, in->ndim, in->dtype)) goto oom;
    }
    /* 2. input dims: duck equalities and specializations; first source of each symbol */
    for (size_t i = 0; g && i < sy_graph_ninputs(g); i++)
        if (sy_graph_input_at(g, i)->node + 1 > n_is_input) n_is_input = sy_graph_input_at(g, i)->node + 1;
    is_input = n_is_input ? sy_alloc(ctx, n_is_input) : NULL; /* NULL: the scan */
    if (is_input) {
        memset(is_input, 0, n_is_input);
        for (size_t i = 0; i < sy_graph_ninputs(g); i++) is_input[sy_graph_input_at(g, i)->node] = 1;
    }
    size_t nsym = ctx->nsyms;
    if (!sy_memo_init(ctx, &reps)) goto oom;
    const sy_expr **symvar = sy_alloc(ctx, (nsym ? nsym : 1) * sizeof *symvar);
    if (!symvar) goto oom;
    memset(symvar, 0, (nsym ? nsym : 1) * sizeof *symvar);
    /* An input no node reads (PyTorch #106067) gets no 0/1, static or duck guard: pass 0 takes the
     * read inputs' dims, pass 1 the unread ones, which only become the representative of a
     * symbol no read dim has and that a decision touched (e.g. a user fact on it). */
    unread_at = sy_alloc(ctx, ndims ? ndims : 1); /* pass 0's answers for pass 1 (NULL: asked again) */
    for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < ndims; i++) {
        const sy_input_dim *d = sy_env_input_dim(env, i);
        bool unread = pass && unread_at ? unread_at[i] : unread_source(g, is_input, n_is_input, d->source);
        if (!pass && unread_at) unread_at[i] = unread;
        if (unread != (pass == 1)) continue;
        if (unread && (sy_expr_is_int(d->expr) || !sy_env_symbol_touched(env, d->expr) ||
                       (sy_expr_sym_id(d->expr) < nsym && symvar[sy_expr_sym_id(d->expr)])))
            continue;
        long s = sy_gset_find_source(gs, d->source);
        if (s < 0 && (s = add_source(gs, d->source)) < 0) {
            sy_dealloc(ctx, symvar, (nsym ? nsym : 1) * sizeof *symvar);
            goto oom;
        }
        const sy_expr *v = gs->vars[s];
        gs->example[s] = d->example;
        gs->has_example[s] = 1;
        if (sy_expr_is_int(d->expr)) {
            const sy_expr *e = sy_expr_eq(ctx, v, d->expr);
            gguard *gg;
            if (d->policy == SY_DIM_STATIC) gg = add_guard_why(gs, SY_GK_SPECIALIZATION, e, WHY_STR, "static dim (not listed as dynamic)", NULL, NULL, 0, 0, 0);
            else if (d->spec) {
                const char *nm = d->spec->name ? gstrdup(gs, d->spec->name) : gs->sources[s];
                gg = nm ? add_guard_why(gs, SY_GK_SPECIALIZATION, e, WHY_01_DECL, nm, NULL, NULL, d->example, 0, 0) : NULL;
            } else gg = add_guard_why(gs, SY_GK_SPECIALIZATION, e, WHY_01, NULL, NULL, NULL, d->example, 0, 0);
            if (!gg) goto oom_sv;
            continue;
        }
        uint32_t id = sy_expr_sym_id(d->expr);
        if (id >= nsym) continue;
        if (!symvar[id]) {
            symvar[id] = v;
            if (!sy_memo_put(ctx, &reps, v, v)) goto oom_sv;
            continue;
        }
        /* symvar[id] is a source variable: its name is the set's source text, which outlives the set's guards */
        const sy_expr *e = sy_expr_eq(ctx, v, symvar[id]);
        gguard *gg;
        if (d->spec && d->spec->name) {
            const char *nm = gstrdup(gs, d->spec->name);
            gg = nm ? add_guard_why(gs, SY_GK_EQUALITY, e, WHY_DECL_EQ, sy_expr_sym_name(symvar[id]), gs->sources[s], nm, 0, 0, 0)
                    : NULL;
        } else {
            /* only a SY_DIM_DUCK dim shares a symbol by its example (sy_env_create_symbol); a symbol the frontend passed
             * on (sy_env_input_exprs_spec, policy DYNAMIC) is a declared equality: ONNX dims with one dim_param */
            bool duck = d->policy == SY_DIM_DUCK;
            gg = add_guard_why(gs, SY_GK_EQUALITY, e, duck ? WHY_DUCK : WHY_SHARED, sy_expr_sym_name(symvar[id]), gs->sources[s],
                               NULL, d->example, 0, 0);
        }
        if (!gg) goto oom_sv;
    }
    if (unread_at) sy_dealloc(ctx, unread_at, ndims ? ndims : 1);
    unread_at = NULL;
    if (is_input) sy_dealloc(ctx, is_input, n_is_input);
    is_input = NULL;
    /* an unread input one of whose dims represents a symbol keeps its rank and dtype guards */
    for (size_t i = 0; i < nin; i++) {
        const sy_graph_input *in = ins[i];
        if (input_read(g, in)) continue;
        bool used = false;
        for (size_t d = 0; d < in->ndim && !used; d++) {
            long sl = sy_gset_find_source(gs, src_text(buf, sizeof buf, in->name, ".size()[", (long)d));
            used = sl >= 0 && sy_memo_get(&reps, gs->vars[sl]) != NULL; /* some symvar[k] is it */
        }
        if (!used) continue;
        long sd = sy_gset_find_source(gs, src_text(buf, sizeof buf, in->name, ".dim()", -1));
        if (!add_match_guards(gs, sd, in->name, in->ndim, in->dtype)) goto oom_sv;
    }
    /* substitution env symbols -> source variables */
    const sy_expr **ks = sy_alloc(ctx, (nsym ? nsym : 1) * sizeof *ks), **vs = sy_alloc(ctx, (nsym ? nsym : 1) * sizeof *vs);
    size_t nk = 0;
    if (!ks || !vs) {
        if (ks) sy_dealloc(ctx, ks, (nsym ? nsym : 1) * sizeof *ks);
        if (vs) sy_dealloc(ctx, vs, (nsym ? nsym : 1) * sizeof *vs);
        goto oom_sv;
    }
    for (size_t i = 0; i < sy_env_nsymbols(env); i++) {
        const sy_symbol_info *si = sy_env_symbol(env, i);
        uint32_t id = sy_expr_sym_id(si->sym);
        if (id < nsym && symvar[id]) {
            ks[nk] = si->sym;
            vs[nk++] = symvar[id];
        }
    }
    /* unbacked symbols (values known only at run time: sy_gset_check_runtime) */
    {
        size_t nu = 0;
        for (size_t i = 0; i < sy_env_nsymbols(env); i++) nu += sy_env_symbol(env, i)->unbacked != 0;
        gs->ub = nu ? galloc(gs, nu * sizeof *gs->ub) : NULL;
        gs->ubsrc = nu ? galloc(gs, nu * sizeof *gs->ubsrc) : NULL;
        if (nu && (!gs->ub || !gs->ubsrc)) {
            sy_dealloc(ctx, ks, (nsym ? nsym : 1) * sizeof *ks);
            sy_dealloc(ctx, vs, (nsym ? nsym : 1) * sizeof *vs);
            goto oom_sv;
        }
        for (size_t i = 0; i < sy_env_nsymbols(env); i++) {
            const sy_symbol_info *si = sy_env_symbol(env, i);
            if (!si->unbacked) continue;
            gs->ub[gs->nub] = si->sym;
            gs->ubsrc[gs->nub++] = gstrdup(gs, si->nsources ? si->sources[0] : sy_expr_sym_name(si->sym));
        }
    }
    /* 3. recorded guards, translated */
    for (size_t i = 0; i < sy_env_nguards(env) && st == SY_OK; i++) {
        const sy_guard_record *r = sy_env_guard(env, i);
        gs->recorded += r->count;
        gs->dedup++;
        const sy_expr *e = sy_expr_subs(ctx, r->expr, nk, ks, vs);
        if (!e) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        if (sy_expr_kind_of(e) == SY_EXPR_TRUE) continue;
        /* a guard still mentioning env symbols (unbacked) cannot be checked from sizes */
        bool unresolved = false;
        const sy_expr **fs = NULL;
        size_t nf = 0;
        /* the unbacked symbols it reads, named by what produced them:
         * "  [u0 = nz.size()[0] (from nonzero at node nz)]" */
        char legend[1024];
        size_t ll = 0;
        legend[0] = 0;
        if (sy_expr_free_symbols(ctx, e, &fs, &nf) == SY_OK) {
            for (size_t k = 0; k < nf; k++)
                if (slot_of_var(gs, fs[k]) < 0) {
                    unresolved = true;
                    const sy_symbol_info *ui = sy_env_symbol_of(env, fs[k]);
                    if (ui && ui->nsources && ll < sizeof legend)
                        ll += (size_t)snprintf(legend + ll, sizeof legend - ll, "%s%s = %s", ll ? "; " : "  [",
                                               sy_expr_sym_name(fs[k]), ui->sources[0]);
                }
        } else {
            fs = NULL; /* the guard's slots walk again */
        }
        if (ll && ll < sizeof legend - 1) snprintf(legend + ll, sizeof legend - ll, "]");
        sy_gset_kind kind = (r->kind == SY_GUARD_RUNTIME_ASSERT || unresolved) ? SY_GK_RUNTIME_ASSERT : classify(e);
        gguard *gg = add_guard_fs(gs, kind, e, fs, nf); /* the slots from the same free symbols */
        if (fs) sy_mem_free(ctx, fs);
        if (gg) {
            gg->tx->wk = WHY_STR;
            gg->tx->s[0] = "recorded during tracing";
        }
        if (!gg) {
            st = sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ENOMEM;
            break;
        }
        if (ll && !(gg->tx->legend = gstrdup(gs, legend))) {
            st = SY_ENOMEM;
            break;
        }
        gg->pub.count = r->count;
        for (size_t k = 0; k < r->norigins; k++)
            if (!add_origin(gs, gg, &r->origins[k])) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        if (r->norigins && !st) { /* the decision of the first recording, in the set's copies of its strings */
            gg->tx->wk = WHY_RECORDED;
            gg->tx->s[0] = gg->orig[0].op;
            gg->tx->s[1] = gg->orig[0].reason;
            gg->tx->n[0] = r->origins[0].required;
        }
    }
    /* 3b. stride guards (PyTorch's tensor match on strides; produce_guards'
     * TensorPropertySource STRIDE == its expression in the sizes) */
    for (size_t i = 0; i < nsrc_in && st == SY_OK && any_stride; i++) {
        const char *iname = nin ? ins[i]->name : sy_env_input_info_at(env, i)->name;
        size_t ndim = nin ? ins[i]->ndim : sy_env_input_info_at(env, i)->ndim;
        for (size_t d = 0; d < ndim && st == SY_OK; d++) {
            long sl = sy_gset_find_source(gs, src_text(buf, sizeof buf, iname, ".stride()[", (long)d));
            const sy_expr *se = sl >= 0 ? stride_expr(env, iname, ndim, d) : NULL;
            if (!se) continue;
            const sy_expr *e = sy_expr_subs(ctx, se, nk, ks, vs);
            const sy_env_input_info *tin = sy_env_input_info_find(env, iname);
            int declared = tin && tin->strides;
            size_t nl = strlen(iname);
            const char *nm = name_in(gs, gs->sources[sl], iname, nl);
            if (!e || !nm ||
                !add_guard_why(gs, SY_GK_TENSOR_MATCH, sy_expr_eq(ctx, gs->vars[sl], e), WHY_STRIDE, nm, NULL, NULL, (int64_t)d,
                               (int64_t)nl, declared))
                st = sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ENOMEM;
        }
    }
    /* 4. ranges of the symbols decisions relied on */
    for (size_t i = 0; i < sy_env_nsymbols(env) && st == SY_OK; i++) {
        const sy_symbol_info *si = sy_env_symbol(env, i);
        uint32_t id = sy_expr_sym_id(si->sym);
        if (si->unbacked || id >= nsym || !symvar[id] || !sy_env_symbol_touched(env, si->sym)) continue;
        if (si->declared) {
            /* the declared range, which the trace assumed (torch.export checks it on the inputs too) */
            const char *dn = si->dim_name ? gstrdup(gs, si->dim_name) : NULL, *s0 = si->dim_name ? NULL : gstrdup(gs, si->sources[0]);
            if (!dn && !s0) {
                st = SY_ENOMEM;
                break;
            }
            if (si->dim_min > 0 && !add_guard_why(gs, SY_GK_RANGE, sy_expr_ge(ctx, symvar[id], sy_expr_int_si(ctx, si->dim_min)),
                                                  WHY_DECL_RANGE, dn, s0, NULL, si->dim_min, si->dim_max, 0))
                st = SY_ENOMEM;
            if (si->dim_max >= 0 && !add_guard_why(gs, SY_GK_RANGE, sy_expr_le(ctx, symvar[id], sy_expr_int_si(ctx, si->dim_max)),
                                                   WHY_DECL_RANGE, dn, s0, NULL, si->dim_min, si->dim_max, 0))
                st = SY_ENOMEM;
            continue;
        }
        if (!sy_env_opts(env)->specialize_zero_one) continue; /* sizes >= 0 need no guard */
        const char *nm = gstrdup(gs, si->nsources ? si->sources[0] : sy_expr_sym_name(si->sym));
        if (!nm || !add_guard_why(gs, SY_GK_RANGE, sy_expr_ge(ctx, symvar[id], sy_expr_int_si(ctx, 2)), WHY_01_RANGE, nm, NULL, NULL,
                                  0, 0, 0))
            st = SY_ENOMEM;
    }
    sy_dealloc(ctx, ks, (nsym ? nsym : 1) * sizeof *ks);
    sy_dealloc(ctx, vs, (nsym ? nsym : 1) * sizeof *vs);
    sy_dealloc(ctx, symvar, (nsym ? nsym : 1) * sizeof *symvar);
    sy_memo_clear(ctx, &reps);
    reps.keys = NULL;
    /* 5. the declared spec of each source (for violations) */
    for (size_t i = 0; i < sy_env_ninput_dims(env) && st == SY_OK; i++) {
        const sy_input_dim *d = sy_env_input_dim(env, i);
        long sl = d->spec ? sy_gset_find_source(gs, d->source) : -1;
        if (sl < 0) continue;
        if (!gs->decl && !(gs->decl = galloc(gs, gs->nsrc * sizeof *gs->decl))) {
            st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            break;
        }
        sdecl *dc = &gs->decl[sl];
        dc->declared = true;
        dc->name = gstrdup(gs, d->spec->name);
        dc->example = d->example;
        const sy_symbol_info *si = sy_expr_is_int(d->expr) ? NULL : sy_env_symbol_of(env, d->expr);
        if (si && si->declared) {
            dc->min = si->dim_min;
            dc->max = si->dim_max;
        } else { /* 0/1-specialized: the range it was declared with */
            dc->min = d->spec->min != SY_DIM_SPEC_UNSET ? d->spec->min : (sy_env_opts(env)->specialize_zero_one ? 2 : 0);
            dc->max = d->spec->max;
        }
    }
    if (st) {
        sy_gset_free(gs);
        return st;
    }
    *out = gs;
    return SY_OK;
oom_sv:
    sy_dealloc(ctx, symvar, (nsym ? nsym : 1) * sizeof *symvar);
oom:
    if (unread_at) sy_dealloc(ctx, unread_at, ndims ? ndims : 1);
    if (is_input) sy_dealloc(ctx, is_input, n_is_input);
    if (reps.keys) sy_memo_clear(ctx, &reps);
    sy_gset_free(gs);
    return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
}

/* ------------------------------------------------------------------ minimization */

/* Tree size of e (every node counted once per occurrence, as a printer
 * would), saturating; memoized on node identity so that a guard over a
 * shared DAG (a nested FloorDiv chain) costs its number of distinct nodes
 * to measure, not its exponential tree size. */
typedef struct { sy_ctx *ctx; const sy_expr **k; size_t *v; size_t cap, n; bool off; } costmemo;

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX / 2 - b ? SIZE_MAX / 2 : a + b; }

static void cost_put(costmemo *m, const sy_expr *e, size_t n)
{
    if (m->off) return;
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        if (!sy_etab_grow(m->ctx, &m->k, (void **)&m->v, sizeof *m->v, m->cap, nc)) { /* no memo: the walk stays exact, only slower */
            if (sy_ctx_last_error(m->ctx) == SY_ENOMEM) sy_ctx_reset_error(m->ctx);
            m->off = true;
            return;
        }
        m->cap = nc;
    }
    size_t j = (size_t)sy_expr_hash(e) & (m->cap - 1);
    while (m->k[j]) j = (j + 1) & (m->cap - 1);
    m->k[j] = e;
    m->v[j] = n;
    m->n++;
}

static size_t expr_cost_rec(costmemo *m, const sy_expr *e)
{
    size_t na = sy_expr_nargs(e);
    if (na == 0) return 1;
    if (m->k) {
        size_t j = (size_t)sy_expr_hash(e) & (m->cap - 1);
        while (m->k[j]) {
            if (m->k[j] == e) return m->v[j];
            j = (j + 1) & (m->cap - 1);
        }
    }
    size_t n = 1;
    for (size_t i = 0; i < na; i++) n = sat_add(n, expr_cost_rec(m, sy_expr_arg(e, i)));
    cost_put(m, e, n);
    return n;
}

/* expr_cost_rec without the memo while the tree has at most *left nodes
 * (false once it has more): a small guard's count needs no table */
static bool cost_within(const sy_expr *e, size_t *left, size_t *n)
{
    if (*left == 0) return false;
    (*left)--;
    size_t na = sy_expr_nargs(e);
    size_t c = 1;
    for (size_t i = 0; i < na; i++) {
        size_t ci;
        if (!cost_within(sy_expr_arg(e, i), left, &ci)) return false;
        c += ci;
    }
    *n = c;
    return true;
}

static size_t expr_cost(sy_ctx *ctx, const sy_expr *e)
{
    size_t left = 1024, small;
    if (cost_within(e, &left, &small)) return small; /* at most 1024: no saturation either */
    costmemo m = {ctx, NULL, NULL, 0, 0, false};
    size_t c = expr_cost_rec(&m, e);
    if (m.k) {
        sy_dealloc(ctx, m.k, m.cap * sizeof *m.k);
        sy_dealloc(ctx, m.v, m.cap * sizeof *m.v);
    }
    return c;
}

static int guard_order(const void *x, const void *y)
{
    const gguard *a = x, *b = y;
    if (a->pub.kind != b->pub.kind) return a->pub.kind < b->pub.kind ? -1 : 1;
    size_t ca = a->cost, cb = b->cost;
    if (a->pub.kind >= SY_GK_RELATION && ca != cb) return ca < cb ? -1 : 1;
    size_t sa = a->pub.nslots ? a->pub.slots[0] : (size_t)-1, sb = b->pub.nslots ? b->pub.slots[0] : (size_t)-1;
    if (sa != sb) return sa < sb ? -1 : 1;
    return sy_expr_cmp(a->pub.expr, b->pub.expr);
}

/* single-variable bound: v <= c (upper) or c <= v (lower) */
static bool as_bound(const sy_expr *e, const sy_expr **v, int *upper, fmpz_t c)
{
    if (sy_expr_kind_of(e) != SY_EXPR_LE) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) == SY_EXPR_SYM) {
        *v = d;
        *upper = 1;
        fmpz_zero(c);
        return true;
    }
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) != 1 || sy_expr_kind_of(sy_expr_arg(d, 0)) != SY_EXPR_SYM)
        return false;
    *v = sy_expr_arg(d, 0);
    *upper = fmpz_sgn(&SY_CTERMS(d)[0].coef) > 0;
    /* d = a*v + c0 with a = +-1: upper v <= -c0; lower v >= c0 */
    if (*upper) fmpz_neg(c, &d->u.c0);
    else fmpz_set(c, &d->u.c0);
    return fmpz_is_pm1(&SY_CTERMS(d)[0].coef);
}

static void drop_guard(gguard *gg) { gg->dead = true; }

/* Non-constant divisors of e (check() fails a guard whose divisor is 0, while
 * the decision procedure reasons only where divisions are defined), in the
 * order of a tree walk, repeats included, at most cap (*n == cap: too many,
 * or the memo could not be allocated). Subtrees found to hold no divisor are
 * remembered (memo on node identity) and skipped, and the walk stops at cap:
 * the same list as the plain tree walk, without its exponential time on a
 * nested FloorDiv chain. */
static void collect_divisors_rec(const sy_expr *e, sy_ctx *ctx, sy_memo *nodiv, const sy_expr **out, size_t *n, size_t cap)
{
    if (*n >= cap || sy_memo_get(nodiv, e)) return;
    size_t before = *n;
    sy_expr_kind k = sy_expr_kind_of(e);
    if ((k == SY_EXPR_FLOORDIV || k == SY_EXPR_MOD || k == SY_EXPR_CEILDIV) && !sy_expr_is_int(sy_expr_arg(e, 1)))
        out[(*n)++] = sy_expr_arg(e, 1);
    for (size_t i = 0; i < sy_expr_nargs(e) && *n < cap; i++) collect_divisors_rec(sy_expr_arg(e, i), ctx, nodiv, out, n, cap);
    if (*n == before && !sy_memo_put(ctx, nodiv, e, e)) *n = cap;
}

static void collect_divisors(sy_ctx *ctx, const sy_expr *e, const sy_expr **out, size_t *n, size_t cap)
{
    sy_memo seen;
    if (!sy_memo_init(ctx, &seen)) {
        *n = cap;
        return;
    }
    collect_divisors_rec(e, ctx, &seen, out, n, cap);
    sy_memo_clear(ctx, &seen);
}

static size_t uf_find(size_t *parent, size_t x)
{
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

/* The guards that serve as facts for one another in minimization. */
static bool is_fact_guard(const gguard *g)
{
    return g->pub.kind != SY_GK_TENSOR_MATCH && g->pub.kind != SY_GK_RUNTIME_ASSERT;
}

/* Is the candidate certainly NOT implied by the other fact guards? True
 * when it is `d == 0` with d linear in symbols and some source of
 * coefficient +-1 in d is read by no other fact guard (nreaders[slot] == 1,
 * the candidate itself): from any point that satisfies the others, moving
 * that source alone keeps them satisfied and makes d non-zero. (If the
 * others are unsatisfiable, keeping the candidate is still sound.) Saves
 * building the facts of a large component for the leaves of duck-sizing
 * equalities. */
static bool surely_not_implied(const sy_gset *gs, const gguard *cand, const size_t *nreaders)
{
    const sy_expr *e = cand->pub.expr;
    if (e->kind != SY_EXPR_EQ) return false;
    const sy_expr *d = e->args[0];
    if (d->kind != SY_EXPR_ADD) return false;
    for (uint32_t i = 0; i < d->n; i++)
        if (SY_CTERMS(d)[i].mono->kind != SY_EXPR_SYM) return false;
    for (uint32_t i = 0; i < d->n; i++) {
        const sy_term *t = &SY_CTERMS(d)[i];
        if (!fmpz_is_pm1(&t->coef)) continue;
        for (size_t k = 0; k < cand->pub.nslots; k++)
            if (gs->vars[cand->pub.slots[k]] == t->mono && nreaders[cand->pub.slots[k]] == 1) return true;
    }
    return false;
}



/* Remove the dead guards (releasing their arrays), keeping the order. */
static void compact(sy_gset *gs)
{
    size_t m = 0;
    for (size_t i = 0; i < gs->n; i++) {
        if (gs->g[i].dead) {
            if (gs->g[i].orig) sy_dealloc(gs->ctx, gs->g[i].orig, gs->g[i].origcap * sizeof *gs->g[i].orig);
            continue;
        }
        gs->g[m++] = gs->g[i];
    }
    gs->n = m;
}

/* ------------------------------------------------------------------ the Implied list */

static drec *add_drop(sy_gset *gs, const gguard *g, bool normalized)
{
    drec *d = galloc(gs, sizeof *d);
    if (!d) return NULL;
    memset(d, 0, sizeof *d);
    d->uid = g->uid;
    d->normalized = normalized;
    d->kind = g->pub.kind;
    d->expr = g->pub.expr;
    d->tx = g->tx;
    d->next = gs->drops;
    gs->drops = d;
    return d;
}

static void drop_imp(drec *d, size_t uid)
{
    if (d->nimp < DREC_MAX) d->imp[d->nimp++] = uid;
    else d->partial = true;
}

static int size_cmp(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/* Resolve each implied guard's implying uids to kept guards (a uid dropped
 * later stands for the guards that implied it, breadth first, at most
 * DREC_VISITS records visited each), after the final order is set. */
static sy_status build_implied(sy_gset *gs)
{
    sy_ctx *ctx = gs->ctx;
    gs->impl = NULL;
    gs->nimpl = 0;
    size_t nd = 0, nu = gs->next_uid ? gs->next_uid : 1;
    for (drec *d = gs->drops; d; d = d->next) nd += !d->normalized;
    if (!nd) return SY_OK;
    size_t *at = sy_alloc(ctx, nu * sizeof *at), *seen = sy_alloc(ctx, nu * sizeof *seen);
    drec **byuid = sy_alloc(ctx, nu * sizeof *byuid);
    sy_gset_implied *out = galloc(gs, nd * sizeof *out);
    gtext **otx = galloc(gs, nd * sizeof *otx);
    sy_status st = at && seen && byuid && out && otx ? SY_OK : sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    if (!st) {
        for (size_t u = 0; u < nu; u++) {
            at[u] = SIZE_MAX;
            seen[u] = SIZE_MAX;
            byuid[u] = NULL;
        }
        for (size_t i = 0; i < gs->n; i++) at[gs->g[i].uid] = i;
        for (drec *d = gs->drops; d; d = d->next)
            if (!byuid[d->uid]) byuid[d->uid] = d;
        size_t k = 0, stamp = 0;
        /* the list in creation order of the dropped guards (drops is newest first) */
        drec **ord = sy_alloc(ctx, nd * sizeof *ord);
        if (!ord) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        size_t no = 0;
        for (drec *d = gs->drops; d && !st; d = d->next)
            if (!d->normalized) ord[no++] = d;
        for (size_t q = no; q-- > 0 && !st;) {
            drec *d = ord[q];
            size_t *by = galloc(gs, DREC_MAX * sizeof *by);
            if (!by) {
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                break;
            }
            size_t nby = 0, visits = 0;
            bool partial = d->partial;
            size_t queue[DREC_VISITS];
            size_t qh = 0, qt = 0;
            stamp++;
            seen[d->uid] = stamp;
            for (size_t j = 0; j < d->nimp && qt < DREC_VISITS; j++) queue[qt++] = d->imp[j];
            while (qh < qt) {
                size_t u = queue[qh++];
                if (u >= nu || seen[u] == stamp) continue;
                seen[u] = stamp;
                if (at[u] != SIZE_MAX) {
                    if (nby < DREC_MAX) by[nby++] = at[u];
                    else partial = true;
                } else if (byuid[u] && ++visits <= DREC_VISITS) {
                    partial |= byuid[u]->partial;
                    for (size_t j = 0; j < byuid[u]->nimp; j++) {
                        if (qt < DREC_VISITS) queue[qt++] = byuid[u]->imp[j];
                        else partial = true;
                    }
                } else {
                    partial = true;
                }
            }
            qsort(by, nby, sizeof *by, size_cmp);
            otx[k] = d->tx;
            out[k++] = (sy_gset_implied){d->kind, d->expr, NULL, NULL, NULL, nby, by, partial}; /* texts: implied_pub */
        }
        if (ord) sy_dealloc(ctx, ord, nd * sizeof *ord);
        if (!st) {
            gs->impl = out;
            gs->impl_tx = otx;
            gs->nimpl = k;
        }
    }
    if (at) sy_dealloc(ctx, at, nu * sizeof *at);
    if (seen) sy_dealloc(ctx, seen, nu * sizeof *seen);
    if (byuid) sy_dealloc(ctx, byuid, nu * sizeof *byuid);
    return st;
}


/* The why of a recorded guard states the decision the op made, in source
 * names (the env prints its messages so), with the sizes seen at the example:
 * "conv2d requires it (else: Given groups=1, ...); seen: x.size()[1] = 3". */
static const char *recorded_why(sy_gset *gs, const gtext *t)
{
    char seen[512];
    size_t sl = 0;
    seen[0] = 0;
    for (size_t k = 0; k < t->nslots && sl < sizeof seen; k++) {
        size_t s = t->slots[k];
        if (!gs->has_example[s]) continue;
        sl += (size_t)snprintf(seen + sl, sizeof seen - sl, "%s%s = %lld", sl ? ", " : "; seen: ", gs->sources[s],
                               (long long)gs->example[s]);
    }
    const char *op = t->s[0] ? t->s[0] : "the model", *msg = t->s[1] ? t->s[1] : "";
    size_t n = strlen(op) + strlen(msg) + strlen(seen) + 64;
    char *b = sy_alloc(gs->ctx, n);
    if (!b) return NULL;
    if (t->n[0]) snprintf(b, n, "%s requires it (else: %s)%s", op, msg, seen);
    else snprintf(b, n, "%s decided on it: %s%s", op, msg, seen);
    const char *r = gstrdup(gs, b);
    sy_dealloc(gs->ctx, b, n);
    return r;
}

static bool tx_format(sy_gset *gs, gtext *t);

/* the why of t (NULL: out of memory, or a member's texts could not be made) */
static const char *format_why(sy_gset *gs, gtext *t)
{
    char buf[1024];
    const long long n0 = (long long)t->n[0], n1 = (long long)t->n[1];
    switch (t->wk) {
    case WHY_NONE: return NULL;
    case WHY_STR: return t->s[0];
    case WHY_RECORDED: return recorded_why(gs, t);
    case WHY_RANK: snprintf(buf, sizeof buf, "rank of input %.*s", (int)n0, t->s[0]); break;
    case WHY_DTYPE:
        snprintf(buf, sizeof buf, "dtype of input %.*s is %s (code %d)", (int)n0, t->s[0], sy_dtype_name((sy_dtype)t->n[1]),
                 (int)t->n[1]);
        break;
    case WHY_01_DECL:
        snprintf(buf, sizeof buf,
                 "0/1 specialization: example size %lld, below the declared range of %s (declare min=%lld to keep it dynamic)", n0,
                 t->s[0], n0);
        break;
    case WHY_01:
        snprintf(buf, sizeof buf, "0/1 specialization: example size %lld; --no-specialize-01 or a spec with min=%lld avoids it",
                 n0, n0);
        break;
    case WHY_DECL_EQ:
        snprintf(buf, sizeof buf, "declared equal: %s and %s are both named '%s' (one Dim)", t->s[0], t->s[1], t->s[2]);
        break;
    case WHY_DUCK:
        snprintf(buf, sizeof buf,
                 "duck sizing: %s and %s had the same example size %lld, so they were traced as one size; --no-duck-sizing "
                 "or a spec naming them differently avoids it",
                 t->s[0], t->s[1], n0);
        break;
    case WHY_SHARED:
        snprintf(buf, sizeof buf,
                 "declared equal by the model: %s and %s were given one symbol by its frontend (ONNX: one dim_param on "
                 "both, which declares them equal; not duck sizing, which ONNX does not do: no policy flag avoids it)",
                 t->s[0], t->s[1]);
        break;
    case WHY_STRIDE:
        snprintf(buf, sizeof buf, "stride %zu of input %.*s: %s", (size_t)t->n[0], (int)n1, t->s[0],
                 t->n[2] ? "as declared by its \"strides\"" : "contiguous (the graph reads strides)");
        break;
    case WHY_DECL_RANGE: {
        char dim[160];
        if (t->s[0]) snprintf(dim, sizeof dim, "Dim('%s'", t->s[0]);
        else snprintf(dim, sizeof dim, "Dim(%s", t->s[1]);
        if (t->n[1] >= 0)
            snprintf(buf, sizeof buf, "declared range [%lld, %lld]: %s, min=%lld, max=%lld)", n0, n1, dim, n0, n1);
        else
            snprintf(buf, sizeof buf, "declared range [%lld, oo): %s, min=%lld)", n0, dim, n0);
        break;
    }
    case WHY_01_RANGE:
        snprintf(buf, sizeof buf,
                 "0/1 specialization: sizes 0 and 1 were traced as constants, so %s >= 2 was assumed; --no-specialize-01 or a "
                 "spec with min=1 avoids it",
                 t->s[0]);
        break;
    case WHY_NORM: {
        size_t w = (size_t)snprintf(buf, sizeof buf, "exact range of %s (proved equivalent): ", t->s[0]);
        for (size_t k = 0; k < t->nm && w < sizeof buf; k++) {
            if (!tx_format(gs, t->m[k])) return NULL;
            w += (size_t)snprintf(buf + w, sizeof buf - w, "%s%s (%s)", k ? "; " : "", t->m[k]->text,
                                  t->m[k]->why ? t->m[k]->why : "");
        }
        break;
    }
    }
    return gstrdup(gs, buf);
}

/* Make the texts of t once: its text (the print of its expression, then the
 * legend), display and why, exactly as produce made them when it made them
 * all; false (the error in the context) when one cannot be made. */
static bool tx_format(sy_gset *gs, gtext *t)
{
    if (t->done) return true;
    sy_ctx *ctx = gs->ctx;
    char *p = print_show(ctx, t->expr);
    if (!p) return false;
    const char *text;
    if (t->legend) {
        size_t a = strlen(p), b = strlen(t->legend);
        char *x = galloc(gs, a + b + 1);
        if (x) {
            memcpy(x, p, a);
            memcpy(x + a, t->legend, b + 1);
        }
        text = x;
    } else {
        text = gstrdup(gs, p);
    }
    sy_str_free(ctx, p);
    const char *display = text, *why = NULL;
    if (text && t->dtype >= 0) {
        char b[300];
        snprintf(b, sizeof b, "%s == %s", gs->sources[t->dslot], sy_dtype_name((sy_dtype)t->dtype));
        display = gstrdup(gs, b);
    }
    if (text && display && t->wk != WHY_NONE) why = format_why(gs, t);
    if (!text || !display || (t->wk != WHY_NONE && !why)) {
        sy_oom(ctx);
        return false;
    }
    t->text = text;
    t->display = display;
    t->why = why;
    t->done = true;
    return true;
}

static const char tx_unknown[] = "?";

/* The public record of guard gg with its texts made (on first use): a set
 * is read through this, so produce and minimize never format a text nobody
 * reads. A text that cannot be made reads "?" (the error stays in the
 * context). */
static const sy_gset_guard *guard_pub(const sy_gset *cgs, const gguard *cgg)
{
    gguard *gg = (gguard *)cgg; /* the set's own storage: the texts are a cache */
    if (!gg->pub.text) {
        gtext *t = gg->tx;
        if (tx_format((sy_gset *)cgs, t)) {
            gg->pub.text = t->text;
            gg->pub.display = t->display;
            gg->pub.why = t->why;
        } else {
            gg->pub.text = gg->pub.display = tx_unknown;
            gg->pub.why = t->wk != WHY_NONE ? tx_unknown : NULL;
        }
    }
    return &gg->pub;
}

/* the same for the Implied list's entry i */
static const sy_gset_implied *implied_pub(const sy_gset *cgs, size_t i)
{
    sy_gset_implied *x = &((sy_gset *)cgs)->impl[i];
    if (!x->text) {
        gtext *t = cgs->impl_tx[i];
        if (tx_format((sy_gset *)cgs, t)) {
            x->text = t->text;
            x->display = t->display;
            x->why = t->why;
        } else {
            x->text = x->display = tx_unknown;
            x->why = t->wk != WHY_NONE ? tx_unknown : NULL;
        }
    }
    return x;
}

size_t sy_gset_nimplied(const sy_gset *gs) { return gs ? gs->nimpl : 0; }
const sy_gset_implied *sy_gset_implied_at(const sy_gset *gs, size_t i) { return gs && i < gs->nimpl ? implied_pub(gs, i) : NULL; }

sy_status sy_gset_format(const sy_gset *gs)
{
    if (!gs) return SY_EINVAL;
    for (size_t i = 0; i < gs->n; i++)
        if (!tx_format((sy_gset *)gs, gs->g[i].tx)) return sy_ctx_last_error(gs->ctx) ? sy_ctx_last_error(gs->ctx) : SY_ENOMEM;
    for (size_t i = 0; i < gs->nimpl; i++)
        if (!tx_format((sy_gset *)gs, gs->impl_tx[i])) return sy_ctx_last_error(gs->ctx) ? sy_ctx_last_error(gs->ctx) : SY_ENOMEM;
    return SY_OK;
}

/* ------------------------------------------------------------------ normalization */

static bool plain_form(const sy_expr *e)
{
    const sy_expr *v;
    int up;
    fmpz_t c;
    fmpz_init(c);
    bool b = as_bound(e, &v, &up, c);
    fmpz_clear(c);
    if (b) return true;
    /* v == c */
    if (sy_expr_kind_of(e) != SY_EXPR_EQ) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) == SY_EXPR_SYM) return true;
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || sy_expr_nargs(d) != 1) return false;
    return sy_expr_kind_of(sy_expr_arg(d, 0)) == SY_EXPR_SYM;
}

/* every symbolic divisor of e is non-zero under f */
static sy_status divisors_nonzero(sy_ctx *ctx, sy_facts *f, const sy_expr *e, bool *ok)
{
    const sy_expr *divs[32];
    size_t nd = 0;
    collect_divisors(ctx, e, divs, &nd, 32);
    *ok = nd < 32;
    for (size_t k = 0; k < nd && *ok; k++) {
        sy_truth nz;
        sy_status st = sy_decide(f, sy_expr_ne(ctx, divs[k], sy_expr_int_si(ctx, 0)), &nz);
        if (st) return st;
        *ok = nz == SY_TRUTH_TRUE;
    }
    return SY_OK;
}

enum { NORM_STEPS = 64 };

/* Does the group of guards grp[0..ng) (all reading only v) accept v = val?
 * Exact evaluation, as sy_gset_check does: a division by zero fails the guard. */
static sy_status group_accepts(sy_gset *gs, const size_t *grp, size_t ng, const sy_expr *v, int64_t val, bool *acc)
{
    *acc = true;
    for (size_t k = 0; k < ng && *acc; k++) {
        int64_t r = 0;
        sy_status st = sy_expr_eval_si(gs->ctx, gs->g[grp[k]].pub.expr, 1, &v, &val, &r);
        if (st == SY_EDIVZERO) {
            sy_ctx_reset_error(gs->ctx);
            *acc = false;
        } else if (st) {
            return st; /* ENOMEM, or a value beyond int64/the quota: no exhaustion step */
        } else {
            *acc = r != 0;
        }
    }
    return SY_OK;
}

/* The guards reading only one size source become its exact range (lo <= v <= hi, or v == c)
 * when the decision procedure proves them equivalent over the integers v >= 0 (sizes): the
 * range is a sound bound of v under the guards (guards => range), and every guard is decided
 * TRUE, with its divisors non-zero, under the range (range => guards). Otherwise they stay. */
static sy_status normalize(sy_gset *gs)
{
    sy_ctx *ctx = gs->ctx;
    gs->norm_from = gs->norm_into = 0;
    size_t n0 = gs->n, ns = gs->nsrc;
    /* the guards on one source each, grouped by source once (ascending index within a group):
     * by_slot[at[sl] .. at[sl + 1]) */
    size_t *by_slot = sy_alloc(ctx, (n0 ? n0 : 1) * sizeof *by_slot), *at = sy_alloc(ctx, (ns + 2) * sizeof *at);
    if (!by_slot || !at) {
        if (by_slot) sy_dealloc(ctx, by_slot, (n0 ? n0 : 1) * sizeof *by_slot);
        if (at) sy_dealloc(ctx, at, (ns + 2) * sizeof *at);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    memset(at, 0, (ns + 2) * sizeof *at);
#define NORM_MEMBER(g) (!(g)->dead && (g)->pub.nslots == 1 && (g)->pub.kind != SY_GK_TENSOR_MATCH && \
                        (g)->pub.kind != SY_GK_RUNTIME_ASSERT)
    for (size_t i = 0; i < n0; i++)
        if (NORM_MEMBER(&gs->g[i])) at[gs->g[i].pub.slots[0] + 2]++;
    for (size_t sl = 0; sl < ns; sl++) at[sl + 2] += at[sl + 1];
    for (size_t i = 0; i < n0; i++)
        if (NORM_MEMBER(&gs->g[i])) by_slot[at[gs->g[i].pub.slots[0] + 1]++] = i;
#undef NORM_MEMBER
    sy_status st = SY_OK;
    const sy_expr *zero = sy_expr_int_si(ctx, 0);
    for (size_t sl = 0; sl < ns && !st; sl++) {
        if (!strstr(gs->sources[sl], ".size()[")) continue;
        const size_t *grp = by_slot + at[sl], ng = at[sl + 1] - at[sl];
        bool all_plain = true;
        for (size_t k = 0; k < ng; k++) all_plain &= plain_form(gs->g[grp[k]].pub.expr);
        if (!ng || all_plain) continue;
        const sy_expr *v = gs->vars[sl], *lo = NULL, *hi = NULL;
        sy_facts *f = sy_facts_new(ctx);
        if (!f) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        st = sy_facts_set_range(f, v, zero, NULL);
        for (size_t k = 0; k < ng && !st; k++) st = sy_facts_add(f, gs->g[grp[k]].pub.expr);
        bool ok = !st && sy_facts_consistent(f) == SY_TRUE;
        if (ok && sy_bound(f, v, &lo, &hi) != SY_OK) {
            sy_ctx_reset_error(ctx);
            ok = false;
        }
        sy_facts_free(f);
        if (st && st != SY_ENOMEM) { /* quota, unsupported: the group stays as it is */
            sy_ctx_reset_error(ctx);
            st = SY_OK;
            ok = false;
        }
        if (!ok || st) continue;
        if (!lo) lo = zero;
        /* Tighten the bounds by exhaustion: sy_bound does not see that CeilDiv(w, 2) != 1
         * excludes w = 2, so a bound that the group rejects when evaluated exactly
         * moves inward (at most NORM_STEPS values each side; every value skipped is
         * one the group rejects, so guards => [lo, hi] still holds). */
        int64_t lv, hv = 0;
        if (sy_expr_get_si(lo, &lv) != SY_OK || (hi && sy_expr_get_si(hi, &hv) != SY_OK)) {
            sy_ctx_reset_error(ctx);
            continue;
        }
        bool acc = false;
        for (int s = 0; s < NORM_STEPS && !acc && (!hi || lv <= hv) && !st; s++) {
            st = group_accepts(gs, grp, ng, v, lv, &acc);
            if (!acc) lv++;
        }
        acc = hi == NULL;
        for (int s = 0; s < NORM_STEPS && !acc && lv <= hv && !st; s++) {
            st = group_accepts(gs, grp, ng, v, hv, &acc);
            if (!acc) hv--;
        }
        if (st == SY_ENOMEM) break;
        if (st) {
            sy_ctx_reset_error(ctx);
            st = SY_OK;
            continue;
        }
        if (hi && lv > hv) continue; /* empty (the trace's own example is accepted: not expected) */
        lo = sy_expr_int_si(ctx, lv);
        if (hi) hi = sy_expr_int_si(ctx, hv);
        f = sy_facts_new(ctx);
        if (!f) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        st = sy_facts_set_range(f, v, lo, hi);
        for (size_t k = 0; k < ng && ok && !st; k++) {
            sy_truth t = SY_TRUTH_UNKNOWN;
            st = sy_decide(f, gs->g[grp[k]].pub.expr, &t);
            ok = t == SY_TRUTH_TRUE;
            if (ok && !st) st = divisors_nonzero(ctx, f, gs->g[grp[k]].pub.expr, &ok);
        }
        sy_facts_free(f);
        if (st && st != SY_ENOMEM) { /* quota, unsupported: the group stays as it is */
            sy_ctx_reset_error(ctx);
            st = SY_OK;
            ok = false;
        }
        if (!ok || st) continue;
        /* proved: replace the group by its exact range */
        const sy_expr *rel[2];
        sy_gset_kind kinds[2];
        int64_t outside[2][2]; /* per bound: the values just outside it (-1: none) */
        size_t nr = 0;
        if (hi && lo == hi) {
            rel[nr] = sy_expr_eq(ctx, v, lo);
            outside[nr][0] = lv - 1;
            outside[nr][1] = hv < INT64_MAX ? hv + 1 : -1;
            kinds[nr++] = SY_GK_SPECIALIZATION;
        } else {
            if (lo != zero) {
                rel[nr] = sy_expr_le(ctx, lo, v);
                outside[nr][0] = lv - 1;
                outside[nr][1] = -1;
                kinds[nr++] = SY_GK_RANGE;
            }
            if (hi) {
                rel[nr] = sy_expr_le(ctx, v, hi);
                outside[nr][0] = hv < INT64_MAX ? hv + 1 : -1;
                outside[nr][1] = -1;
                kinds[nr++] = SY_GK_RANGE;
            }
        }
        for (size_t r = 0; r < nr && !st; r++) {
            /* its why and origins are the group's guards that make this bound: those rejecting a value
             * just outside it (a declared max stays the spec's, not the op's whose guard made the min);
             * all of them when that cannot be told */
            gtext **members = galloc(gs, ng * sizeof *members);
            size_t *mk = sy_alloc(ctx, ng * sizeof *mk), nm = 0;
            if (!members || !mk) {
                if (mk) sy_dealloc(ctx, mk, ng * sizeof *mk);
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                break;
            }
            for (size_t k = 0; k < ng && !st; k++) {
                bool rej = false;
                for (int e = 0; e < 2 && !rej && !st; e++) {
                    if (outside[r][e] < 0) continue;
                    bool in = true;
                    st = group_accepts(gs, &grp[k], 1, v, outside[r][e], &in);
                    if (st && st != SY_ENOMEM) { /* a value past int64 or the quota: not told */
                        sy_ctx_reset_error(ctx);
                        st = SY_OK;
                        in = true;
                    }
                    rej = !in;
                }
                if (rej) mk[nm++] = k;
            }
            if (!st && !nm)
                for (size_t k = 0; k < ng; k++) mk[nm++] = k;
            gguard *ng_ = st ? NULL : add_guard_why(gs, kinds[r], rel[r], WHY_NORM, gs->sources[sl], NULL, NULL, 0, 0, 0);
            if (!ng_) {
                sy_dealloc(ctx, mk, ng * sizeof *mk);
                if (!st) st = sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ENOMEM;
                break;
            }
            for (size_t j = 0; j < nm; j++) members[j] = gs->g[grp[mk[j]]].tx;
            ng_->tx->m = members;
            ng_->tx->nm = nm;
            size_t ni = gs->n - 1;
            for (size_t j = 0; j < nm && !st; j++) {
                const gguard *src = &gs->g[grp[mk[j]]];
                gs->g[ni].pub.count += src->pub.count;
                for (size_t o = 0; o < src->pub.norigins && !st; o++)
                    if (!add_origin(gs, &gs->g[ni], &src->orig[o])) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            }
            sy_dealloc(ctx, mk, ng * sizeof *mk);
        }
        if (st) break;
        for (size_t k = 0; k < ng && !st; k++) {
            drec *d = add_drop(gs, &gs->g[grp[k]], true);
            if (!d) {
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                break;
            }
            for (size_t r = 0; r < nr; r++) drop_imp(d, gs->g[gs->n - nr + r].uid);
        }
        if (st) break;
        for (size_t k = 0; k < ng; k++) gs->g[grp[k]].dead = true;
        gs->norm_from += ng;
        gs->norm_into += nr;
    }
    sy_dealloc(ctx, by_slot, (n0 ? n0 : 1) * sizeof *by_slot);
    sy_dealloc(ctx, at, (ns + 2) * sizeof *at);
    if (st) return st;
    compact(gs);
    return SY_OK;
}

void sy_gset_normalized(const sy_gset *gs, size_t *replaced, size_t *into)
{
    if (replaced) *replaced = gs ? gs->norm_from : 0;
    if (into) *into = gs ? gs->norm_into : 0;
}

/* ------------------------------------------------------------------ violations of the spec */

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

static sy_status classify_violation(sy_gset *gs, sy_facts *f0, size_t gi, sy_gset_violation *out)
{
    sy_ctx *ctx = gs->ctx;
    const gguard *g = &gs->g[gi];
    const sy_expr *e = g->pub.expr;
    char buf[1024], dims[256] = "", rng[64];
    /* the declared groups (one per name; an unnamed dim is its own group) and the other free dims it reads */
    size_t grp[8], ngrp = 0, nother = 0;
    for (size_t k = 0; k < g->pub.nslots; k++) {
        size_t sl = g->pub.slots[k];
        if (gs->decl[sl].declared) {
            bool seen = false;
            for (size_t q = 0; q < ngrp; q++)
                if (grp[q] == sl || (gs->decl[grp[q]].name && gs->decl[sl].name && !strcmp(gs->decl[grp[q]].name, gs->decl[sl].name)))
                    seen = true;
            if (!seen && ngrp < 8) grp[ngrp++] = sl;
        } else {
            const sy_expr *lo, *hi;
            if (sy_bound(f0, gs->vars[sl], &lo, &hi) != SY_OK) sy_ctx_reset_error(ctx);
            else if (!(lo && hi && lo == hi)) nother++;
        }
    }
    for (size_t q = 0; q < ngrp; q++) {
        size_t l = strlen(dims);
        snprintf(dims + l, sizeof dims - l, "%s%s", q ? (q + 1 == ngrp ? " and " : ", ") : "", decl_label(gs, grp[q]));
    }
    char examples[256] = ""; /* "h = 224, w = 224" */
    for (size_t q = 0; q < ngrp; q++) {
        size_t l = strlen(examples);
        snprintf(examples + l, sizeof examples - l, "%s%s = %lld", q ? ", " : "", decl_label(gs, grp[q]),
                 (long long)gs->decl[grp[q]].example);
    }
    out->guard = gi;
    out->dims = gstrdup(gs, dims);
    const sdecl *d0 = &gs->decl[grp[0]];
    range_str(rng, sizeof rng, d0->min, d0->max);
    char *gt = named_text(gs, e);
    if (!gt) return sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ENOMEM;
    if (!tx_format(gs, g->tx)) {
        sy_str_free(ctx, gt);
        return sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ENOMEM;
    }
    if (ngrp == 1) snprintf(buf, sizeof buf, "not all values of %s in %s satisfy %s", dims, rng, g->tx->text);
    else snprintf(buf, sizeof buf, "not all values of %s in their declared ranges satisfy %s", dims, g->tx->text);
    out->message = gstrdup(gs, buf);
    /* the model's own requirement? */
    const sy_guard_origin *req = NULL;
    for (size_t k = 0; k < g->pub.norigins && !req; k++) /* a captured branch (guard_bool/int) is the trace's, not a requirement */
        if (g->orig[k].required && !(g->orig[k].op && !strncmp(g->orig[k].op, "guard_", 6))) req = &g->orig[k];
    char why[400] = "";
    if (req) {
        if (req->op && !strcmp(req->op, "_assert"))
            snprintf(why, sizeof why, "; the model itself requires it: _assert at node '%s'", req->node ? req->node : "?");
        else
            snprintf(why, sizeof why, "; the model itself requires it: %s at node '%s' checks it", req->op ? req->op : "an op",
                     req->node ? req->node : "?");
        if (req->loc.file) {
            size_t l = strlen(why);
            snprintf(why + l, sizeof why - l, " (%s:%ld)", req->loc.file, req->loc.line);
        }
    }
    out->model_requires = req != NULL;
    sy_status st = SY_OK;
    out->kind = SY_VIOL_RELATION;
    buf[0] = 0;
    const sy_expr *v = gs->vars[grp[0]];
    if (ngrp == 1 && nother == 0) {
        sy_facts *f1 = sy_facts_copy(f0);
        if (!f1) goto oom;
        const sy_expr *lo = NULL, *hi = NULL;
        if ((st = sy_facts_add(f1, e)) == SY_OK && sy_facts_consistent(f1) == SY_FALSE) {
            /* the guard excludes the whole declared range (a 0/1 specialization of the example): its own bound */
            sy_facts_free(f1);
            if (!(f1 = sy_facts_new(ctx))) goto oom;
            st = sy_facts_add(f1, e);
        }
        if (st == SY_OK && sy_bound(f1, v, &lo, &hi) != SY_OK) {
            sy_ctx_reset_error(ctx);
            lo = hi = NULL;
        }
        sy_facts_free(f1);
        if (st) goto done;
        int64_t l = 0, h = -1;
        bool hl = int_of(lo, &l), hh = int_of(hi, &h);
        if (hl && hh && l == h) {
            out->kind = SY_VIOL_PINNED;
            if ((l == 0 || l == 1) && l < d0->min && !g->pub.norigins) /* 0/1 specialization of the example */
                if (d0->name)
                    snprintf(buf, sizeof buf, "%s = Dim('%s', min=%lld) keeps size %lld dynamic (or --no-specialize-01); else static %lld",
                             d0->name, d0->name, (long long)l, (long long)l, (long long)l);
                else /* a Dim's name is an identifier: the unnamed form, as for a narrowed range below */
                    snprintf(buf, sizeof buf, "%s: Dim(min=%lld) keeps size %lld dynamic (or --no-specialize-01); else static %lld",
                             gs->sources[grp[0]], (long long)l, (long long)l, (long long)l);
            else {
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
                    snprintf(buf, sizeof buf,
                             "add %ld:%s to the --dynamic spec of %s: ONNX declares its dim %ld equal to %s (%s), and a dim left "
                             "out of a spec is static (%lld here); else static %lld",
                             dim, d0->name, dp->node, dim, d0->name, eqs ? eqs + 7 : dp->reason, (long long)l, (long long)l);
                } else
                    snprintf(buf, sizeof buf, "static %lld%s", (long long)l, why);
            }
        } else if (hl || hh) {
            /* exactly a narrower range? g must hold everywhere in [l, h] */
            sy_facts *f2 = sy_facts_copy(f0);
            if (!f2) goto oom;
            sy_truth t = SY_TRUTH_UNKNOWN;
            st = sy_facts_set_range(f2, v, hl ? lo : NULL, hh ? hi : NULL);
            if (!st) st = sy_decide(f2, e, &t);
            sy_facts_free(f2);
            if (st) goto done;
            if (t == SY_TRUTH_TRUE) {
                out->kind = SY_VIOL_NARROWED;
                int64_t nl = hl && l > d0->min ? l : d0->min, nh = hh && (d0->max < 0 || h < d0->max) ? h : d0->max;
                char args[96] = "";
                if (nl != 2 || d0->min != 2) snprintf(args, sizeof args, ", min=%lld", (long long)nl);
                if (nh >= 0) {
                    size_t k = strlen(args);
                    snprintf(args + k, sizeof args - k, ", max=%lld", (long long)nh);
                }
                if (d0->name) snprintf(buf, sizeof buf, "%s = Dim('%s'%s)%s", d0->name, d0->name, args, why);
                else snprintf(buf, sizeof buf, "%s: Dim(%s)%s", gs->sources[grp[0]], args[0] ? args + 2 : "", why);
            }
        }
    } else if (ngrp == 2 && nother == 0 && sy_expr_kind_of(e) == SY_EXPR_EQ) {
        sy_facts *f1 = sy_facts_copy(f0);
        if (!f1) goto oom;
        sy_truth t = SY_TRUTH_UNKNOWN;
        st = sy_facts_add(f1, e);
        if (!st) st = sy_decide(f1, sy_expr_eq(ctx, gs->vars[grp[0]], gs->vars[grp[1]]), &t);
        sy_facts_free(f1);
        if (st) goto done;
        if (t == SY_TRUTH_TRUE) {
            out->kind = SY_VIOL_EQUAL;
            snprintf(buf, sizeof buf, "%s and %s must be equal: give them one name%s", decl_label(gs, grp[0]),
                     decl_label(gs, grp[1]), why);
        }
    }
    if (!buf[0]) {
        const sy_expr *a0 = sy_expr_nargs(e) ? sy_expr_arg(e, 0) : NULL;
        size_t nk = 0, ks[4];
        int64_t ms[4];
        if (!has_mod(e) && (st = divisibility_of(gs, f0, e, &nk, ks, ms))) goto done;
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
            /* the return value is read: a message longer than buf is cut, as elsewhere (and gcc's
             * -Wformat-truncation at -O0 stays quiet) */
            if (snprintf(buf, sizeof buf,
                         "%s (the guard holds exactly then): no Dim range expresses this; make %s static, or declare %s (%s) "
                         "where the model allows it%s",
                         what, kd, nk > 1 ? "each a multiple" : "it a multiple", decl, why) < 0)
                buf[0] = 0;
            out->dims = gstrdup(gs, kd);
        } else if (has_mod(e)) {
            out->kind = SY_VIOL_DIVISIBILITY;
            if (sy_expr_kind_of(e) == SY_EXPR_EQ && a0 && sy_expr_kind_of(a0) == SY_EXPR_MOD) {
                char *x = named_text(gs, sy_expr_arg(a0, 0)), *m = named_text(gs, sy_expr_arg(a0, 1));
                snprintf(buf, sizeof buf,
                         "%s must be a multiple of %s: no Dim range expresses this; make a dim static, or declare one a multiple "
                         "(%s = %s*Dim('%s_k')) where the model allows it%s",
                         x ? x : "?", m ? m : "?", decl_label(gs, grp[0]), m ? m : "?", decl_label(gs, grp[0]), why);
                sy_str_free(ctx, x);
                sy_str_free(ctx, m);
            } else
                snprintf(buf, sizeof buf, "%s must hold (a divisibility condition): no Dim range expresses this; make %s static%s",
                         gt, dims, why);
        } else if (sy_expr_kind_of(e) == SY_EXPR_EQ && ngrp > 1) {
            /* several declared dims tied together (ViT's FloorDiv(h, 16)*FloorDiv(w, 16) == 196): static at the example */
            out->kind = SY_VIOL_FUNCTION;
            snprintf(buf, sizeof buf, "%s are tied by %s: make them static (%s at the example), or declare one as that function of the others%s",
                     dims, gt, examples, why);
        } else if (sy_expr_kind_of(e) == SY_EXPR_EQ) {
            out->kind = SY_VIOL_FUNCTION;
            snprintf(buf, sizeof buf, "%s is determined by other dims (%s): make it static, or declare it as that function of them%s",
                     dims, gt, why);
        } else
            snprintf(buf, sizeof buf, "no Dim range expresses %s: make %s static (%s at the example)%s", gt, dims, examples, why);
    }
    out->fix = gstrdup(gs, buf);
done:
    sy_str_free(ctx, gt);
    return st;
oom:
    sy_str_free(ctx, gt);
    return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
}

/* torch.export's check: a guard on a declared dim must follow from the spec
 * (declared ranges, same-name equalities) and the guards on other sources. */
static sy_status find_violations(sy_gset *gs)
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
        if (g->pub.kind == SY_GK_RUNTIME_ASSERT || !reads_declared(gs, g)) continue;
        sy_truth t = SY_TRUTH_UNKNOWN;
        if ((st = sy_decide(f0, g->pub.expr, &t))) break;
        if (t == SY_TRUTH_TRUE) continue; /* restates the spec */
        st = classify_violation(gs, f0, i, &gs->viol[gs->nviol]);
        if (!st) gs->nviol++;
    }
    sy_facts_free(f0);
    return st;
}

/* ---- witness points: proving cheaply that a guard is NOT implied.
 *
 * Every guard holds at the example point (the sizes the model was traced
 * with). Moving one source t alone to a value t* that violates the candidate
 * while every other fact guard still holds shows that the others do not
 * imply it; then the decision procedure, being sound, cannot prove the
 * implication either, so keeping the candidate without asking it gives the
 * same set. Per source the other guards are indexed once: a guard linear in
 * t (d = a*t + r, r free of t) allows, with the other sources at the example,
 * exactly t_ex (==), all but one value (!=), or a half-line (<=); any other
 * guard reading t is evaluated at the point. */
typedef enum { LIN_NONE = 0, LIN_EQ, LIN_NE, LIN_LE } lin_kind;

typedef struct {
    size_t guard, slot;
    lin_kind kind;
    int has_value; /* NE: the forbidden value exists (a divides r) */
    int64_t value; /* NE: forbidden t; LE: bound (upper when upper) */
    int upper;     /* LE: t <= value (else t >= value) */
} lin_entry;

/* Order of the entries of one slot: kind, then (NE) whether the forbidden
 * value exists, (LE) lower bounds before upper ones, then the value, so that
 * others_hold finds the entries a trial value violates by binary search. */
static int lin_key_cmp(const lin_entry *a, lin_kind kind, int has_value, int upper, int64_t value)
{
    if (a->kind != kind) return a->kind < kind ? -1 : 1;
    if (a->has_value != has_value) return a->has_value < has_value ? -1 : 1;
    if (a->upper != upper) return a->upper < upper ? -1 : 1;
    if (a->value != value) return a->value < value ? -1 : 1;
    return 0;
}

static int lin_cmp(const void *x, const void *y)
{
    const lin_entry *a = x, *b = y;
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    int c = lin_key_cmp(a, b->kind, b->has_value, b->upper, b->value);
    if (c) return c;
    return a->guard < b->guard ? -1 : (a->guard > b->guard);
}

/* first entry of lin[lo, hi) whose key is >= (kind, has_value, upper, value) */
static size_t lin_lower(const lin_entry *lin, size_t lo, size_t hi, lin_kind kind, int has_value, int upper, int64_t value)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lin_key_cmp(&lin[mid], kind, has_value, upper, value) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* does sym occur in e (outside the top-level term list)? bounded walk */
static int occurs(const sy_expr *e, const sy_expr *sym, int *budget)
{
    if (e == sym) return 1;
    if (--*budget < 0) return -1;
    for (size_t i = 0; i < sy_expr_nargs(e); i++) {
        int r = occurs(sy_expr_arg(e, i), sym, budget);
        if (r) return r;
    }
    return 0;
}

static int64_t fdiv_i(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static int64_t cdiv_i(int64_t a, int64_t b) { return -fdiv_i(-a, b); }

/* Classify guard g in source t: fills e (kind LIN_NONE when not linear or
 * not evaluable). R = value of d - a*t at the example (binding b). */
static void classify_lin(sy_ctx *ctx, const gguard *g, size_t gi, size_t slot, const sy_expr *t, sy_binding *b,
                         lin_entry *out)
{
    out->guard = gi;
    out->slot = slot;
    out->kind = LIN_NONE;
    out->has_value = 0;
    out->value = 0;
    out->upper = 0;
    const sy_expr *e = g->pub.expr;
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k != SY_EXPR_EQ && k != SY_EXPR_NE && k != SY_EXPR_LE) return;
    const sy_expr *d = e->args[0];
    int64_t a = 0;
    if (d == t) a = 1;
    else if (d->kind == SY_EXPR_ADD) {
        int budget = 256;
        for (uint32_t i = 0; i < d->n; i++) {
            const sy_term *tm = &SY_CTERMS(d)[i];
            if (tm->mono == t) {
                if (!fmpz_fits_si(&tm->coef)) return;
                a = fmpz_get_si(&tm->coef);
            } else if (occurs(tm->mono, t, &budget) != 0) {
                return; /* t also inside another term, or the walk ran out */
            }
        }
    }
    if (a == 0 || a == INT64_MIN || a > (1 << 30) || a < -(1 << 30)) return;
    /* R = d(example) - a * t_ex */
    fmpz_t v;
    fmpz_init(v);
    sy_status st = sy_eval_raw(ctx, d, b, v);
    if (st != SY_OK) {
        sy_ctx_reset_error(ctx);
        fmpz_clear(v);
        return;
    }
    uint32_t id = sy_expr_sym_id(t);
    if (id >= b->n || b->has[id] != 2) {
        fmpz_clear(v);
        return;
    }
    fmpz_submul_si(v, &b->vz[id], a); /* R = d(example) - a * t_ex */
    int64_t R = fmpz_fits_si(v) ? fmpz_get_si(v) : INT64_MAX;
    fmpz_clear(v);
    if (R > ((int64_t)1 << 62) || R < -((int64_t)1 << 62)) return;
    if (k == SY_EXPR_EQ) {
        out->kind = LIN_EQ;
    } else if (k == SY_EXPR_NE) { /* a*t + R == 0 forbidden */
        out->kind = LIN_NE;
        if (R % a == 0) {
            out->has_value = 1;
            out->value = -R / a;
        }
    } else { /* a*t + R <= 0 */
        out->kind = LIN_LE;
        if (a > 0) {
            out->upper = 1;
            out->value = fdiv_i(-R, a);
        } else {
            out->upper = 0;
            out->value = cdiv_i(R, -a);
        }
    }
}

typedef struct {
    sy_ctx *ctx;
    sy_gset *gs;
    sy_binding b;
    bool ready;
    lin_entry *lin;   /* every (fact guard, slot) pair, sorted by slot */
    size_t nlin;
    size_t *slot_at;  /* nsrc + 1: first entry of each slot */
    /* classes of sources equal by a fact guard `a - b == 0` (duck sizing), or NULL when there is no such guard:
     * per slot its class's root and the next slot of its class (SIZE_MAX: the last), and per root its first slot */
    size_t *cls, *cls_next, *cls_head;
} witness;

static void witness_clear(witness *w)
{
    if (w->ready) sy_binding_clear(w->ctx, &w->b);
    if (w->lin) sy_dealloc(w->ctx, w->lin, (w->nlin ? w->nlin : 1) * sizeof *w->lin);
    if (w->slot_at) sy_dealloc(w->ctx, w->slot_at, (w->gs->nsrc + 1) * sizeof *w->slot_at);
    size_t ns = w->gs->nsrc ? w->gs->nsrc : 1;
    if (w->cls) sy_dealloc(w->ctx, w->cls, ns * sizeof *w->cls);
    if (w->cls_next) sy_dealloc(w->ctx, w->cls_next, ns * sizeof *w->cls_next);
    if (w->cls_head) sy_dealloc(w->ctx, w->cls_head, ns * sizeof *w->cls_head);
    w->ready = false;
    w->lin = NULL;
    w->slot_at = NULL;
    w->cls = w->cls_next = w->cls_head = NULL;
}

/* e is `a - b == 0` for two sources a, b (coefficients 1 and -1, no constant) */
static bool pure_equality(const sy_expr *e)
{
    if (e->kind != SY_EXPR_EQ) return false;
    const sy_expr *d = e->args[0];
    if (d->kind != SY_EXPR_ADD || d->n != 2 || !fmpz_is_zero(&d->u.c0)) return false;
    const sy_term *t = SY_CTERMS(d);
    return t[0].mono->kind == SY_EXPR_SYM && t[1].mono->kind == SY_EXPR_SYM && fmpz_is_pm1(&t[0].coef) &&
           fmpz_is_pm1(&t[1].coef) && fmpz_sgn(&t[0].coef) != fmpz_sgn(&t[1].coef);
}

/* The classes of sources that the fact guards make equal two by two; no
 * classes (w->cls NULL) when there is no such guard or no memory. */
static void witness_classes(witness *w)
{
    sy_gset *gs = w->gs;
    size_t ns = gs->nsrc ? gs->nsrc : 1;
    bool any = false;
    for (size_t i = 0; i < gs->n && !any; i++)
        any = is_fact_guard(&gs->g[i]) && gs->g[i].pub.nslots == 2 && pure_equality(gs->g[i].pub.expr);
    if (!any) return;
    w->cls = sy_alloc(w->ctx, ns * sizeof *w->cls);
    w->cls_next = sy_alloc(w->ctx, ns * sizeof *w->cls_next);
    w->cls_head = sy_alloc(w->ctx, ns * sizeof *w->cls_head);
    if (!w->cls || !w->cls_next || !w->cls_head) {
        sy_ctx_reset_error(w->ctx);
        if (w->cls) sy_dealloc(w->ctx, w->cls, ns * sizeof *w->cls);
        if (w->cls_next) sy_dealloc(w->ctx, w->cls_next, ns * sizeof *w->cls_next);
        if (w->cls_head) sy_dealloc(w->ctx, w->cls_head, ns * sizeof *w->cls_head);
        w->cls = w->cls_next = w->cls_head = NULL;
        return;
    }
    for (size_t k = 0; k < gs->nsrc; k++) w->cls[k] = k;
    for (size_t i = 0; i < gs->n; i++) {
        const gguard *g = &gs->g[i];
        if (!is_fact_guard(g) || g->pub.nslots != 2 || !pure_equality(g->pub.expr)) continue;
        size_t ra = uf_find(w->cls, g->pub.slots[0]), rb = uf_find(w->cls, g->pub.slots[1]);
        if (ra != rb) w->cls[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
    for (size_t k = 0; k < gs->nsrc; k++) {
        w->cls[k] = uf_find(w->cls, k);
        w->cls_head[k] = SIZE_MAX;
    }
    for (size_t k = gs->nsrc; k-- > 0;) {
        w->cls_next[k] = w->cls_head[w->cls[k]];
        w->cls_head[w->cls[k]] = k;
    }
}

/* Build the index; false (no witnesses, no error) when some fact guard reads a
 * source without example, or does not hold at the example. */
static bool witness_init(witness *w, sy_gset *gs)
{
    sy_ctx *ctx = gs->ctx;
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->gs = gs;
    for (size_t i = 0; i < gs->nsrc; i++)
        if (!gs->has_example[i]) return false;
    if (!sy_binding_init(ctx, &w->b)) {
        sy_ctx_reset_error(ctx);
        return false;
    }
    w->ready = true;
    fmpz_t v;
    fmpz_init(v);
    for (size_t i = 0; i < gs->nsrc; i++) {
        fmpz_set_si(v, gs->example[i]);
        sy_binding_set(&w->b, sy_expr_sym_id(gs->vars[i]), v);
    }
    size_t n = 0;
    bool ok = true;
    for (size_t i = 0; i < gs->n && ok; i++) {
        if (!is_fact_guard(&gs->g[i])) continue;
        ok = sy_eval_raw(ctx, gs->g[i].pub.expr, &w->b, v) == SY_OK && fmpz_is_one(v);
        n += gs->g[i].pub.nslots;
    }
    fmpz_clear(v);
    if (!ok) {
        sy_ctx_reset_error(ctx);
        witness_clear(w);
        return false;
    }
    w->lin = sy_alloc(ctx, (n ? n : 1) * sizeof *w->lin);
    w->slot_at = sy_alloc(ctx, (gs->nsrc + 1) * sizeof *w->slot_at);
    if (!w->lin || !w->slot_at) {
        sy_ctx_reset_error(ctx);
        w->nlin = n;
        witness_clear(w);
        return false;
    }
    w->nlin = 0;
    for (size_t i = 0; i < gs->n; i++) {
        if (!is_fact_guard(&gs->g[i])) continue;
        for (size_t k = 0; k < gs->g[i].pub.nslots; k++) {
            size_t sl = gs->g[i].pub.slots[k];
            classify_lin(ctx, &gs->g[i], i, sl, gs->vars[sl], &w->b, &w->lin[w->nlin++]);
        }
    }
    qsort(w->lin, w->nlin, sizeof *w->lin, lin_cmp);
    size_t j = 0;
    for (size_t sl = 0; sl <= gs->nsrc; sl++) {
        while (j < w->nlin && w->lin[j].slot < sl) j++;
        w->slot_at[sl] = j;
    }
    witness_classes(w);
    return true;
}

/* Do all fact guards reading slot sl, except guard `skip`, hold with t = tv
 * (other sources at the example)? The entries a value can violate are found
 * by binary search (lin_cmp's order): any live (==) unless tv is the example,
 * the (!=) entries forbidding exactly tv, the upper bounds below tv and the
 * lower bounds above it; so a slot read by many guards costs a logarithm per
 * trial, not a scan (dead entries met on the way are skipped). */
static bool others_hold(witness *w, size_t sl, int64_t tv, size_t skip)
{
    sy_gset *gs = w->gs;
    const lin_entry *lin = w->lin;
    int64_t tex = gs->example[sl];
    size_t lo = w->slot_at[sl], hi = w->slot_at[sl + 1];
#define LIVE(j) (lin[j].guard != skip && !gs->g[lin[j].guard].dead)
    size_t eq = lin_lower(lin, lo, hi, LIN_EQ, 0, 0, INT64_MIN), ne = lin_lower(lin, eq, hi, LIN_NE, 0, 0, INT64_MIN),
           le = lin_lower(lin, ne, hi, LIN_LE, 0, 0, INT64_MIN), up = lin_lower(lin, le, hi, LIN_LE, 0, 1, INT64_MIN);
    if (tv != tex)
        for (size_t j = eq; j < ne; j++)
            if (LIVE(j)) return false;
    for (size_t j = lin_lower(lin, ne, le, LIN_NE, 1, 0, tv); j < le && lin[j].value == tv; j++)
        if (LIVE(j)) return false;
    for (size_t j = up; j > le && lin[j - 1].value > tv; j--) /* lower bounds t >= value */
        if (LIVE(j - 1)) return false;
    for (size_t j = up; j < hi && lin[j].value < tv; j++) /* upper bounds t <= value */
        if (LIVE(j)) return false;
    size_t nopaque = 0;
    for (size_t j = lo; j < eq && nopaque <= 16; j++) nopaque += LIVE(j);
#undef LIVE
    if (nopaque == 0) return true;
    if (nopaque > 16) return false;
    /* evaluate the others at the point */
    uint32_t id = sy_expr_sym_id(gs->vars[sl]);
    fmpz_t v;
    fmpz_init_set_si(v, tv);
    sy_binding_set(&w->b, id, v);
    bool ok = true;
    for (size_t j = lo; j < eq && ok; j++) {
        const lin_entry *L = &w->lin[j];
        if (L->guard == skip || gs->g[L->guard].dead) continue;
        ok = sy_eval_raw(w->ctx, gs->g[L->guard].pub.expr, &w->b, v) == SY_OK && fmpz_is_one(v);
    }
    if (!ok) sy_ctx_reset_error(w->ctx);
    fmpz_set_si(v, tex);
    sy_binding_set(&w->b, id, v);
    fmpz_clear(v);
    return ok;
}

enum { CLASS_EVALS = 64 };

/* The witness point with every source of sl's class at tv (the others at the
 * example; the class's sources are equal at the example, since its
 * equalities hold there), checked exactly: the candidate ci evaluates to
 * false and every other live fact guard reading the class to true, each
 * without an error (a division by zero is no witness). At most CLASS_EVALS
 * guards are evaluated (of a class of at most as many sources, scanning at
 * most 4 times as many index entries), else no witness. Moving the class together keeps
 * its equalities, which a move of one source alone breaks: `2 <= h` beside
 * `h == w` has the witness h = w = 1. */
static bool class_witness(witness *w, size_t sl, int64_t tv, size_t ci)
{
    sy_gset *gs = w->gs;
    if (!w->cls) return false;
    size_t root = w->cls[sl];
    size_t members = 0;
    for (size_t m = w->cls_head[root]; m != SIZE_MAX && members <= CLASS_EVALS; m = w->cls_next[m]) members++;
    if (members < 2 || members > CLASS_EVALS) return false; /* one: others_hold's case; many: not tried */
    fmpz_t v;
    fmpz_init_set_si(v, tv);
    for (size_t m = w->cls_head[root]; m != SIZE_MAX; m = w->cls_next[m]) sy_binding_set(&w->b, sy_expr_sym_id(gs->vars[m]), v);
    bool ok = sy_eval_raw(w->ctx, gs->g[ci].pub.expr, &w->b, v) == SY_OK && fmpz_is_zero(v);
    size_t evals = 0, scanned = 0;
    for (size_t m = w->cls_head[root]; m != SIZE_MAX && ok; m = w->cls_next[m])
        for (size_t j = w->slot_at[m]; j < w->slot_at[m + 1] && ok; j++) {
            if (++scanned > 4 * CLASS_EVALS) { /* bounded work per trial */
                ok = false;
                break;
            }
            const gguard *g = &gs->g[w->lin[j].guard];
            if (w->lin[j].guard == ci || g->dead) continue;
            size_t first = SIZE_MAX; /* the guard is evaluated once: at its first slot in the class */
            for (size_t k = 0; k < g->pub.nslots && first == SIZE_MAX; k++)
                if (w->cls[g->pub.slots[k]] == root) first = g->pub.slots[k];
            if (first != m) continue;
            ok = ++evals <= CLASS_EVALS && sy_eval_raw(w->ctx, g->pub.expr, &w->b, v) == SY_OK && fmpz_is_one(v);
        }
    if (!ok) sy_ctx_reset_error(w->ctx);
    for (size_t m = w->cls_head[root]; m != SIZE_MAX; m = w->cls_next[m]) {
        fmpz_set_si(v, gs->example[m]);
        sy_binding_set(&w->b, sy_expr_sym_id(gs->vars[m]), v);
    }
    fmpz_clear(v);
    return ok;
}

/* Is there a witness that candidate ci is not implied by the other fact guards? */
static bool has_witness(witness *w, size_t ci)
{
    if (!w->ready) return false;
    sy_gset *gs = w->gs;
    const gguard *c = &gs->g[ci];
    for (size_t k = 0; k < c->pub.nslots && k < 4; k++) {
        size_t sl = c->pub.slots[k];
        lin_entry self;
        classify_lin(w->ctx, c, ci, sl, gs->vars[sl], &w->b, &self);
        int64_t tex = gs->example[sl], cands[2];
        int nc = 0;
        switch (self.kind) {
        case LIN_EQ:
            if (tex < INT64_MAX) cands[nc++] = tex + 1;
            if (tex > INT64_MIN) cands[nc++] = tex - 1;
            break;
        case LIN_NE:
            if (self.has_value) cands[nc++] = self.value;
            break;
        case LIN_LE:
            if (self.upper && self.value < INT64_MAX) cands[nc++] = self.value + 1;
            if (!self.upper && self.value > INT64_MIN) cands[nc++] = self.value - 1;
            break;
        default: break;
        }
        for (int q = 0; q < nc; q++)
            if (others_hold(w, sl, cands[q], ci) || class_witness(w, sl, cands[q], ci)) return true;
    }
    return false;
}

/* ---- cheap implication: single-source monotone guards
 *
 * A fact guard `d <= 0` whose d reads one source v and is monotone in v
 * (sums with constant coefficients, FloorDiv by a positive constant, Min,
 * Max of such; CeilDiv by a constant is canonically -FloorDiv(-a, b)) holds
 * exactly on a half-line of the integers: v >= thr when d does not increase
 * with v (up), v <= thr when it does not decrease. Such a candidate is
 * implied by any other live guard on the same source and side with a
 * threshold at least as strong; that is an exact implication, so dropping it
 * without the decision procedure is sound. It is used only when every fact
 * guard holds at the example (the witness is ready): then the component is
 * consistent, as the decision procedure's own path requires. The threshold
 * is found by bisection over [-2^40, 2^40] with exact evaluation; a guard
 * whose half-line has no finite end inside that range is not used (it goes
 * to the decision procedure). Any range is exact, since d is monotone on all
 * integers; 2^40 keeps d's values, for coefficients below 2^21, within
 * FLINT's small integers (|x| < 2^62): the first bignum of a process makes
 * FLINT allocate a ~167 KB block, which was most of a small model's heap. */
typedef struct {
    size_t slot;
    int up; /* 1: v >= thr; 0: v <= thr */
    int64_t thr;
} halfline;

/* +1 non-decreasing in v, -1 non-increasing, 0 constant, 2 unknown */
static int mono_in(const sy_expr *e, const sy_expr *v, int depth)
{
    if (depth > 64) return 2;
    switch (e->kind) {
    case SY_EXPR_INT: return 0;
    case SY_EXPR_SYM: return e == v ? 1 : 2;
    case SY_EXPR_ADD: {
        int dir = 0;
        for (uint32_t i = 0; i < e->n; i++) {
            int m = mono_in(SY_CTERMS(e)[i].mono, v, depth + 1);
            if (m == 2) return 2;
            if (fmpz_sgn(&SY_CTERMS(e)[i].coef) < 0) m = -m;
            if (m && dir && m != dir) return 2;
            if (m) dir = m;
        }
        return dir;
    }
    case SY_EXPR_FLOORDIV: {
        const sy_expr *b = sy_expr_arg(e, 1);
        if (!sy_expr_is_int(b) || fmpz_sgn(&b->u.c0) <= 0) return 2;
        return mono_in(sy_expr_arg(e, 0), v, depth + 1);
    }
    case SY_EXPR_MIN:
    case SY_EXPR_MAX: {
        int dir = 0;
        for (size_t i = 0; i < sy_expr_nargs(e); i++) {
            int m = mono_in(sy_expr_arg(e, i), v, depth + 1);
            if (m == 2 || (m && dir && m != dir)) return 2;
            if (m) dir = m;
        }
        return dir;
    }
    default: return 2;
    }
}

/* d(x) <= 0 at v = x (other sources at the example); -1 on an error */
static int holds_at(witness *w, const sy_expr *d, uint32_t id, int64_t x, fmpz_t tmp)
{
    fmpz_set_si(tmp, x);
    sy_binding_set(&w->b, id, tmp);
    if (sy_eval_raw(w->ctx, d, &w->b, tmp) != SY_OK) {
        sy_ctx_reset_error(w->ctx);
        return -1;
    }
    return fmpz_sgn(tmp) <= 0;
}

/* D(y) = d(sg * y) as an int64 (sg = 1 or -1); false on an error or a value past int64 */
static bool dval_at(witness *w, const sy_expr *d, uint32_t id, int sg, int64_t y, fmpz_t tmp, int64_t *out)
{
    fmpz_set_si(tmp, sg * y);
    sy_binding_set(&w->b, id, tmp);
    if (sy_eval_raw(w->ctx, d, &w->b, tmp) != SY_OK) {
        sy_ctx_reset_error(w->ctx);
        return false;
    }
    if (!fmpz_fits_si(tmp)) return false;
    *out = fmpz_get_si(tmp);
    return true;
}

/* The end of a half-line from the values of d, not only their signs. With
 * y = sg*x (sg = 1 up, -1 down), D(y) = d(sg*y) is non-increasing and the
 * guard holds exactly for y >= T; T is wanted in [-R, R], given that it holds
 * at ey. A guard over floor divisions by constants is nearly linear, so the
 * line through D at ey and at a second point (half-way to 0, at least 64
 * away) predicts T within a few units; galloping from the prediction
 * brackets it and bisection ends it: ~6 evaluations instead of
 * ~2 log2|T - ey|. T is defined by the monotone D alone, so it is the end the
 * search from the example finds. Returns 1 (*T found), 0 (it holds at -R: no
 * finite end in range), -1 (an error or a value past int64: the caller
 * searches by signs). */
static int halfline_secant(witness *w, const sy_expr *d, uint32_t id, int sg, int64_t ey, int64_t R, fmpz_t tmp, int64_t *T)
{
    int64_t D0, D1, Dy;
    if (!dval_at(w, d, id, sg, ey, tmp, &D0) || D0 > 0) return -1;
    int64_t in = ey, fail = 0; /* in: holds; fail: fails, once hasfail */
    bool hasfail = false, held;
    int64_t step = (ey < 0 ? -(ey / 2) : ey / 2);
    if (step < 64) step = 64;
    int64_t y1 = ey - step < -R ? -R : ey - step;
    if (!dval_at(w, d, id, sg, y1, tmp, &D1)) return -1;
    if (D1 <= 0) {
        if (y1 == -R) return 0;
        in = y1;
    } else {
        fail = y1;
        hasfail = true;
    }
    /* the prediction, inside what is known: (fail, in] */
    int64_t y = in - 1;
    if (D1 != D0) {
        long double est = (long double)y1 + (long double)D1 * (long double)(ey - y1) / (long double)(D1 - D0);
        long double lo = hasfail ? (long double)fail + 1 : (long double)-R;
        if (est < lo) est = lo;
        if (est > (long double)in) est = (long double)in;
        y = (int64_t)est;
    }
    if (y < -R) y = -R;
    if (!dval_at(w, d, id, sg, y, tmp, &Dy)) return -1;
    if ((held = Dy <= 0)) {
        if (y == -R) return 0;
        in = y;
    } else {
        fail = y;
        hasfail = true;
    }
    /* gallop from the prediction toward the other side of the end */
    for (int64_t st = 1;; st *= 2) {
        int64_t x;
        if (held) {
            x = in - st < -R ? -R : in - st;
            if (hasfail && x <= fail) break;
        } else {
            x = fail + st;
            if (x >= in) break;
        }
        if (!dval_at(w, d, id, sg, x, tmp, &Dy)) return -1;
        if (Dy <= 0) {
            if (x == -R) return 0;
            in = x;
            if (!held) break;
        } else {
            fail = x;
            hasfail = true;
            if (held) break;
        }
    }
    while (in - fail > 1) {
        int64_t mid = fail + (in - fail) / 2;
        if (!dval_at(w, d, id, sg, mid, tmp, &Dy)) return -1;
        if (Dy <= 0) in = mid;
        else fail = mid;
    }
    *T = in;
    return 1;
}

/* The half-line of fact guard g, or false when it has none (see above). */
static bool guard_halfline(witness *w, const gguard *g, halfline *out)
{
    const sy_expr *e = g->pub.expr;
    if (!w->ready || e->kind != SY_EXPR_LE || g->pub.nslots != 1) return false;
    size_t sl = g->pub.slots[0];
    const sy_expr *v = w->gs->vars[sl], *d = e->args[0];
    int m = mono_in(d, v, 0);
    if (m != 1 && m != -1) return false;
    int up = m < 0; /* d non-increasing: d <= 0 from some v on */
    uint32_t id = sy_expr_sym_id(v);
    const int64_t R = (int64_t)1 << 40;
    fmpz_t tmp;
    fmpz_init(tmp);
    /* up: the least x with d(x) <= 0; down: the greatest. The guard holds at
     * the example (the witness is ready only then), so the end is bracketed
     * by galloping away from the example (steps 1, 2, 4, ...) until it fails
     * or reaches -R (up) / R (down), then found by bisection inside the
     * bracket: ~2 log2|thr - example| evaluations instead of 41 for the
     * whole range. d is monotone, so the end found is the same one bisection
     * over [-R, R] finds, and a guard that holds at -R (up) / R (down) has
     * no finite end in range either way; only the points evaluated differ. */
    int64_t lo = -R, hi = R, ex = w->gs->example[sl], T = 0;
    bool ok;
    int sec = ex > -R && ex < R ? halfline_secant(w, d, id, up ? 1 : -1, up ? ex : -ex, R, tmp, &T) : -1;
    if (sec >= 0) {
        ok = sec == 1;
        if (up) lo = T - 1, hi = T; /* the bracket the search below ends with */
        else lo = -T, hi = -T + 1;
    } else if (ex > -R && ex < R) {
        int64_t step = 1, in = ex, fail = ex; /* in: holds; fail: fails (once found) */
        int found = 0;
        ok = true;
        while (ok && !found) {
            int64_t x = up ? (in - step < -R ? -R : in - step) : (in + step > R ? R : in + step);
            int h = holds_at(w, d, id, x, tmp);
            if (h < 0) ok = false;
            else if (!h) fail = x, found = 1;
            else if (x == (up ? -R : R)) ok = false; /* holds at the range end: no finite end */
            else in = x, step *= 2;
        }
        if (up) lo = fail, hi = in;
        else lo = in, hi = fail;
    } else {
        int a = holds_at(w, d, id, lo, tmp), b = holds_at(w, d, id, hi, tmp);
        ok = a >= 0 && b >= 0 && (up ? (!a && b) : (a && !b));
    }
    while (ok && (uint64_t)hi - (uint64_t)lo > 1) { /* up: fails at lo, holds at hi; down: holds at lo, fails at hi */
        int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
        int h = holds_at(w, d, id, mid, tmp);
        if (h < 0) ok = false;
        else if (h == up) hi = mid;
        else lo = mid;
    }
    fmpz_set_si(tmp, w->gs->example[sl]);
    sy_binding_set(&w->b, id, tmp);
    fmpz_clear(tmp);
    if (!ok) return false;
    out->slot = sl;
    out->up = up;
    out->thr = up ? hi : lo;
    return true;
}

/* the half-lines of the fact guards, grouped by (source, side), strongest first */
typedef struct {
    halfline *hl;   /* per guard */
    bool *has;      /* per guard */
    size_t *ord;    /* guards with a half-line, grouped, strongest first */
    size_t *grp;    /* per guard: its group's first position in ord */
    size_t *cur;    /* per group start: first entry not known dead */
    size_t *end;    /* per group start: one past its last entry */
    size_t n, nord;
} hlindex;

/* strongest first within a (slot, side) group; ties by guard index */
static int hl_cmp(const hlindex *x, size_t i, size_t j)
{
    const halfline *a = &x->hl[i], *b = &x->hl[j];
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    if (a->up != b->up) return a->up < b->up ? -1 : 1;
    if (a->thr != b->thr) return (a->up ? a->thr > b->thr : a->thr < b->thr) ? -1 : 1;
    return i < j ? -1 : (i > j);
}

/* Sort x->ord[0..nord) by hl_cmp: a bottom-up merge sort through tmp (nord
 * entries). The comparator takes the index as an argument: a file-scope
 * pointer read by a qsort comparator was shared by every thread minimizing
 * with its own context (issue 38). */
static void hl_sort(const hlindex *x, size_t *tmp)
{
    size_t n = x->nord, *a = x->ord, *b = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) b[k++] = hl_cmp(x, a[j], a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        size_t *t = a;
        a = b;
        b = t;
    }
    if (a != x->ord) memcpy(x->ord, a, n * sizeof *a);
}

static void hl_clear(sy_ctx *ctx, hlindex *x)
{
    size_t n = x->n ? x->n : 1;
    if (x->hl) sy_dealloc(ctx, x->hl, n * sizeof *x->hl);
    if (x->has) sy_dealloc(ctx, x->has, n * sizeof *x->has);
    if (x->ord) sy_dealloc(ctx, x->ord, n * sizeof *x->ord);
    if (x->grp) sy_dealloc(ctx, x->grp, n * sizeof *x->grp);
    if (x->cur) sy_dealloc(ctx, x->cur, n * sizeof *x->cur);
    if (x->end) sy_dealloc(ctx, x->end, n * sizeof *x->end);
    memset(x, 0, sizeof *x);
}

/* false (no index, no error) when out of memory */
static bool hl_init(hlindex *x, witness *w)
{
    sy_gset *gs = w->gs;
    sy_ctx *ctx = gs->ctx;
    memset(x, 0, sizeof *x);
    x->n = gs->n;
    size_t n = gs->n ? gs->n : 1;
    x->hl = sy_alloc(ctx, n * sizeof *x->hl);
    x->has = sy_alloc(ctx, n * sizeof *x->has);
    x->ord = sy_alloc(ctx, n * sizeof *x->ord);
    x->grp = sy_alloc(ctx, n * sizeof *x->grp);
    x->cur = sy_alloc(ctx, n * sizeof *x->cur);
    x->end = sy_alloc(ctx, n * sizeof *x->end);
    if (!x->hl || !x->has || !x->ord || !x->grp || !x->cur || !x->end) {
        sy_ctx_reset_error(ctx);
        hl_clear(ctx, x);
        return false;
    }
    for (size_t i = 0; i < gs->n; i++) {
        x->has[i] = is_fact_guard(&gs->g[i]) && guard_halfline(w, &gs->g[i], &x->hl[i]);
        if (x->has[i]) x->ord[x->nord++] = i;
    }
    if (x->nord > 1) {
        size_t *tmp = sy_alloc(ctx, x->nord * sizeof *tmp);
        if (!tmp) {
            sy_ctx_reset_error(ctx);
            hl_clear(ctx, x);
            return false;
        }
        hl_sort(x, tmp);
        sy_dealloc(ctx, tmp, x->nord * sizeof *tmp);
    }
    for (size_t a = 0; a < x->nord;) {
        size_t b = a + 1;
        const halfline *h = &x->hl[x->ord[a]];
        while (b < x->nord && x->hl[x->ord[b]].slot == h->slot && x->hl[x->ord[b]].up == h->up) b++;
        for (size_t q = a; q < b; q++) x->grp[x->ord[q]] = a;
        x->cur[a] = a;
        x->end[a] = b;
        a = b;
    }
    return true;
}

/* Is candidate ci implied by another live guard's half-line? */
static bool hl_implied(hlindex *x, const sy_gset *gs, size_t ci)
{
    if (!x->hl || !x->has[ci]) return false;
    size_t g = x->grp[ci];
    while (x->cur[g] < x->end[g] && gs->g[x->ord[x->cur[g]]].dead) x->cur[g]++;
    for (size_t q = x->cur[g]; q < x->end[g]; q++) {
        size_t j = x->ord[q];
        if (j == ci || gs->g[j].dead) continue;
        const halfline *c = &x->hl[ci], *o = &x->hl[j]; /* o: the strongest live other */
        return c->up ? o->thr >= c->thr : o->thr <= c->thr;
    }
    return false;
}

/* ---- the pass */

typedef struct { uint64_t key; size_t i; } keyed;
static int keyed_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

/* Drop candidate i, implied by the live fact guards of its component; they
 * are recorded as its implying guards, those sharing a source with it first. */
static sy_status drop_implied(sy_gset *gs, size_t i, const size_t *comp, size_t *nreaders)
{
    gguard *cand = &gs->g[i];
    drec *d = add_drop(gs, cand, false);
    if (!d) return sy_fail_st(gs->ctx, SY_ENOMEM, "out of memory");
    for (int pass = 0; pass < 2 && !d->partial; pass++) /* past DREC_MAX the list is partial and complete */
        for (size_t j = 0; j < gs->n && !d->partial; j++) {
            if (j == i || comp[j] != comp[i] || gs->g[j].dead || !is_fact_guard(&gs->g[j])) continue;
            bool shares = false;
            for (size_t a = 0; a < gs->g[j].pub.nslots && !shares; a++)
                for (size_t b = 0; b < cand->pub.nslots && !shares; b++)
                    shares = gs->g[j].pub.slots[a] == cand->pub.slots[b];
            if (shares == (pass == 0)) drop_imp(d, gs->g[j].uid);
        }
    cand->dead = true;
    for (size_t k = 0; k < cand->pub.nslots; k++) nreaders[cand->pub.slots[k]]--;
    return SY_OK;
}

sy_status sy_gset_minimize(sy_gset *gs)
{
    if (!gs) return SY_EINVAL;
    sy_ctx *ctx = gs->ctx;
    size_t n0 = gs->n ? gs->n : 1;
    keyed *ks = sy_alloc(ctx, n0 * sizeof *ks);
    if (!ks) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    /* 1. duplicates: merge provenance into the first (in index order). Grouped
     * by the expression's creation serial (sorted once), not by an O(n^2) scan. */
    for (size_t i = 0; i < gs->n; i++) {
        ks[i].key = sy_expr_serial(gs->g[i].pub.expr);
        ks[i].i = i;
    }
    if (gs->n) qsort(ks, gs->n, sizeof *ks, keyed_cmp);
    for (size_t a = 0; a < gs->n;) {
        size_t b = a + 1;
        while (b < gs->n && ks[b].key == ks[a].key) b++;
        gguard *first = &gs->g[ks[a].i];
        for (size_t q = a + 1; q < b; q++) {
            gguard *dup = &gs->g[ks[q].i];
            for (size_t k = 0; k < dup->pub.norigins; k++)
                if (!add_origin(gs, first, &dup->orig[k])) {
                    sy_dealloc(ctx, ks, n0 * sizeof *ks);
                    return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                }
            first->pub.count += dup->pub.count;
            drop_guard(dup);
        }
        a = b;
    }
    /* 2. bounds per variable: keep only the tightest lower and upper (the
     * first in index order among equally tight ones). Grouped by (variable,
     * side), sorted once. */
    fmpz_t c, c2;
    fmpz_init(c);
    fmpz_init(c2);
    size_t nb = 0;
    for (size_t i = 0; i < gs->n; i++) {
        const sy_expr *v;
        int up;
        if (gs->g[i].dead || gs->g[i].pub.kind == SY_GK_RUNTIME_ASSERT || !as_bound(gs->g[i].pub.expr, &v, &up, c)) continue;
        ks[nb].key = sy_expr_serial(v) * 2 + (uint64_t)(up != 0);
        ks[nb].i = i;
        nb++;
    }
    if (nb) qsort(ks, nb, sizeof *ks, keyed_cmp);
    for (size_t a = 0; a < nb;) {
        size_t b = a + 1;
        while (b < nb && ks[b].key == ks[a].key) b++;
        const sy_expr *v;
        int up;
        size_t best = ks[a].i;
        as_bound(gs->g[best].pub.expr, &v, &up, c);
        for (size_t q = a + 1; q < b; q++) {
            as_bound(gs->g[ks[q].i].pub.expr, &v, &up, c2);
            if ((up && fmpz_cmp(c2, c) < 0) || (!up && fmpz_cmp(c2, c) > 0)) {
                best = ks[q].i;
                fmpz_set(c, c2);
            }
        }
        for (size_t q = a; q < b; q++)
            if (ks[q].i != best) {
                drec *d = add_drop(gs, &gs->g[ks[q].i], false);
                if (!d) {
                    fmpz_clear(c);
                    fmpz_clear(c2);
                    sy_dealloc(ctx, ks, n0 * sizeof *ks);
                    return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
                }
                drop_imp(d, gs->g[best].uid);
                drop_guard(&gs->g[ks[q].i]);
            }
        a = b;
    }
    fmpz_clear(c);
    fmpz_clear(c2);
    sy_dealloc(ctx, ks, n0 * sizeof *ks);
    /* 3. implication: from the least important guard upwards, drop each guard
     * the remaining ones imply */
    gguard *tmp = sy_alloc(ctx, (gs->n ? gs->n : 1) * sizeof *tmp);
    if (!tmp) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < gs->n; i++) {
        if (gs->g[i].dead) {
            if (gs->g[i].orig) sy_dealloc(ctx, gs->g[i].orig, gs->g[i].origcap * sizeof *gs->g[i].orig);
            continue;
        }
        tmp[m++] = gs->g[i];
    }
    if (m) memcpy(gs->g, tmp, m * sizeof *tmp); /* an empty set may have no array */
    sy_dealloc(ctx, tmp, (gs->n ? gs->n : 1) * sizeof *tmp);
    gs->n = m;
    for (size_t i = 0; i < gs->n; i++) gs->g[i].cost = expr_cost(ctx, gs->g[i].pub.expr);
    if (gs->n) qsort(gs->g, gs->n, sizeof *gs->g, guard_order);
    /* Only guards connected to the candidate through shared sources can
     * imply it: split the set into components (union-find over guards, joined
     * by each source slot they read) and give each candidate only its
     * component as facts. Sound: fewer facts imply less (and an inconsistent
     * component decides nothing); it makes the pass near-linear for many
     * independent inputs instead of quadratic in facts. nreaders[slot]
     * counts the live fact guards reading the slot, for surely_not_implied. */
    size_t nc = gs->n ? gs->n : 1, nsl = gs->nsrc ? gs->nsrc : 1;
    size_t *comp = sy_alloc(ctx, nc * sizeof *comp), *owner = sy_alloc(ctx, nsl * sizeof *owner),
           *nreaders = sy_alloc(ctx, nsl * sizeof *nreaders);
    sy_status cst = comp && owner && nreaders ? SY_OK : sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    if (!cst) {
        for (size_t k = 0; k < gs->nsrc; k++) {
            owner[k] = SIZE_MAX; /* the first guard reading slot k */
            nreaders[k] = 0;
        }
        for (size_t i = 0; i < gs->n; i++) {
            comp[i] = i;
            for (size_t k = 0; k < gs->g[i].pub.nslots; k++) {
                size_t sl = gs->g[i].pub.slots[k];
                if (is_fact_guard(&gs->g[i])) nreaders[sl]++;
                if (owner[sl] == SIZE_MAX) owner[sl] = i;
                else {
                    size_t ra = uf_find(comp, i), rb = uf_find(comp, owner[sl]);
                    if (ra != rb) comp[ra] = rb;
                }
            }
        }
        for (size_t i = 0; i < gs->n; i++) comp[i] = uf_find(comp, i);
    }
    witness w;
    bool have_w = cst == SY_OK && witness_init(&w, gs);
    hlindex hx = {0};
    if (have_w) hl_init(&hx, &w);
    for (size_t i = gs->n; i-- > 0 && cst == SY_OK;) {
        gguard *cand = &gs->g[i];
        if (!is_fact_guard(cand) || surely_not_implied(gs, cand, nreaders)) continue;
        if (have_w && has_witness(&w, i)) continue; /* certainly not implied: kept, as the decision would */
        if (hl_implied(&hx, gs, i)) { /* exactly implied by one other guard's half-line */
            cst = drop_implied(gs, i, comp, nreaders);
            continue;
        }
        sy_facts *f = sy_facts_new(ctx);
        if (!f) {
            cst = sy_ctx_last_error(ctx);
            break;
        }
        sy_status st = SY_OK;
        for (size_t j = 0; j < gs->n && st == SY_OK; j++)
            if (j != i && comp[j] == comp[i] && !gs->g[j].dead && is_fact_guard(&gs->g[j]))
                st = sy_facts_add(f, gs->g[j].pub.expr);
        sy_truth t = SY_TRUTH_UNKNOWN;
        if (st == SY_OK && sy_facts_consistent(f) == SY_TRUE) st = sy_decide(f, cand->pub.expr, &t);
        /* dropping is exact only if the other guards also keep every
         * symbolic divisor of the candidate non-zero */
        const sy_expr *divs[32];
        size_t nd = 0;
        collect_divisors(ctx, cand->pub.expr, divs, &nd, 32);
        if (nd == 32) t = SY_TRUTH_UNKNOWN;
        for (size_t k = 0; k < nd && st == SY_OK && t == SY_TRUTH_TRUE; k++) {
            sy_truth nz;
            st = sy_decide(f, sy_expr_ne(ctx, divs[k], sy_expr_int_si(ctx, 0)), &nz);
            if (nz != SY_TRUTH_TRUE) t = SY_TRUTH_UNKNOWN;
        }
        sy_facts_free(f);
        if (st) {
            cst = st;
            break;
        }
        if (t == SY_TRUTH_TRUE) cst = drop_implied(gs, i, comp, nreaders);
    }
    hl_clear(ctx, &hx);
    if (have_w) witness_clear(&w);
    if (comp) sy_dealloc(ctx, comp, nc * sizeof *comp);
    if (owner) sy_dealloc(ctx, owner, nsl * sizeof *owner);
    if (nreaders) sy_dealloc(ctx, nreaders, nsl * sizeof *nreaders);
    if (cst) return cst;
    compact(gs);
    sy_status nst = normalize(gs);
    if (nst) return nst;
    if (gs->n) qsort(gs->g, gs->n, sizeof *gs->g, guard_order);
    if ((nst = build_implied(gs))) return nst;
    return find_violations(gs);
}

/* ------------------------------------------------------------------ access */

size_t sy_gset_size(const sy_gset *gs) { return gs ? gs->n : 0; }
sy_ctx *sy_gset_ctx(const sy_gset *gs) { return gs ? gs->ctx : NULL; }
const sy_gset_guard *sy_gset_at(const sy_gset *gs, size_t i) { return gs && i < gs->n ? guard_pub(gs, &gs->g[i]) : NULL; }
size_t sy_gset_nsources(const sy_gset *gs) { return gs ? gs->nsrc : 0; }
const char *sy_gset_source(const sy_gset *gs, size_t i) { return gs && i < gs->nsrc ? gs->sources[i] : NULL; }
const sy_expr *sy_gset_source_var(const sy_gset *gs, size_t i) { return gs && i < gs->nsrc ? gs->vars[i] : NULL; }
const char *sy_gset_model(const sy_gset *gs) { return gs ? gs->model : NULL; }
void sy_gset_counts(const sy_gset *gs, size_t *recorded, size_t *dedup, size_t *kept)
{
    if (recorded) *recorded = gs ? gs->recorded : 0;
    if (dedup) *dedup = gs ? gs->dedup : 0;
    if (kept) *kept = gs ? gs->n : 0;
}

/* ------------------------------------------------------------------ checking */

static sy_status check_binding(const sy_gset *gs, sy_binding *b, int runtime, sy_gset_result *res)
{
    sy_ctx *ctx = gs->ctx;
    res->accept = 1;
    res->failed = -1;
    res->message[0] = '\0';
    fmpz_t v;
    fmpz_init(v);
    for (size_t i = 0; i < gs->n; i++) {
        const sy_gset_guard *g = &gs->g[i].pub;
        if (g->kind == SY_GK_RUNTIME_ASSERT && !runtime) continue;
        sy_status st = sy_eval_raw(ctx, g->expr, b, v);
        bool ok = st == SY_OK && !fmpz_is_zero(v);
        if (st != SY_OK) sy_ctx_reset_error(ctx);
        if (ok) continue;
        res->accept = 0;
        res->failed = (long)i;
        g = guard_pub(gs, &gs->g[i]);
        size_t pos = (size_t)snprintf(res->message, sizeof res->message, "%s failed%s: ", g->display ? g->display : g->text,
                                      st == SY_EDIVZERO ? " (division by zero)" : "");
        for (size_t k = 0; k < g->nslots && pos < sizeof res->message; k++) {
            size_t s = g->slots[k];
            const fmpz *x = &b->vz[sy_expr_sym_id(gs->vars[s])];
            char *val = fmpz_get_str(NULL, 10, x);
            /* a dtype source's value is a sy_dtype code: shown by name, as the guard's display is */
            size_t sl = strlen(gs->sources[s]);
            const char *dname = sl >= 6 && !strcmp(gs->sources[s] + sl - 6, ".dtype") && fmpz_sgn(x) >= 0 &&
                                        fmpz_cmp_si(x, SY_DT_COUNT) < 0
                                    ? sy_dtype_name((sy_dtype)fmpz_get_si(x))
                                    : NULL;
            pos += (size_t)snprintf(res->message + pos, sizeof res->message - pos, "%s%s = %s%s%s%s", k ? ", " : "",
                                    gs->sources[s], dname ? dname : val, dname ? " (code " : "", dname ? val : "",
                                    dname ? ")" : "");
            if (pos > sizeof res->message) pos = sizeof res->message;
            flint_free(val);
        }
        break;
    }
    fmpz_clear(v);
    return SY_OK;
}

static sy_status check_common(const sy_gset *gs, const sy_expr *const *values, const int64_t *v64, size_t n,
                              const int64_t *unbacked, size_t m, int runtime, sy_gset_result *res)
{
    if (!gs) return SY_EINVAL;
    sy_ctx *ctx = gs->ctx;
    if (!res || (!values && !v64)) return sy_fail_st(ctx, SY_EINVAL, "check: NULL argument");
    if (n != gs->nsrc) return sy_fail_st(ctx, SY_EINVAL, "check: expected %zu values (one per source), got %zu", gs->nsrc, n);
    sy_binding b;
    if (!sy_binding_init(ctx, &b)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    fmpz_t t;
    fmpz_init(t);
    for (size_t i = 0; i < n; i++) {
        if (values) {
            int64_t x;
            if (!values[i] || !sy_expr_is_int(values[i])) {
                fmpz_clear(t);
                sy_binding_clear(ctx, &b);
                return sy_fail_st(ctx, SY_EINVAL, "check: value %zu (%s) is not an integer", i, gs->sources[i]);
            }
            if (sy_expr_get_si(values[i], &x) == SY_OK) fmpz_set_si(t, x);
            else {
                char *s = sy_expr_print(ctx, values[i], SY_PRINT_CANONICAL);
                fmpz_set_str(t, s ? s : "0", 10);
                sy_str_free(ctx, s);
            }
        } else {
            fmpz_set_si(t, v64[i]);
        }
        sy_binding_set(&b, sy_expr_sym_id(gs->vars[i]), t);
    }
    if (runtime) {
        if (m != gs->nub || (m && !unbacked)) {
            fmpz_clear(t);
            sy_binding_clear(ctx, &b);
            return sy_fail_st(ctx, SY_EINVAL, "check_runtime: expected %zu unbacked values, got %zu", gs->nub, m);
        }
        for (size_t i = 0; i < m; i++) {
            fmpz_set_si(t, unbacked[i]);
            sy_binding_set(&b, sy_expr_sym_id(gs->ub[i]), t);
        }
    }
    fmpz_clear(t);
    sy_status st = check_binding(gs, &b, runtime, res);
    sy_binding_clear(ctx, &b);
    return st;
}

sy_status sy_gset_check(const sy_gset *gs, const sy_expr *const *values, size_t n, sy_gset_result *res)
{
    return check_common(gs, values, NULL, n, NULL, 0, 0, res);
}

sy_status sy_gset_check_si(const sy_gset *gs, const int64_t *values, size_t n, sy_gset_result *res)
{
    return check_common(gs, NULL, values, n, NULL, 0, 0, res);
}

sy_status sy_gset_check_runtime_si(const sy_gset *gs, const int64_t *values, size_t n, const int64_t *unbacked, size_t m,
                                   sy_gset_result *res)
{
    return check_common(gs, NULL, values, n, unbacked, m, 1, res);
}

size_t sy_gset_nunbacked(const sy_gset *gs) { return gs ? gs->nub : 0; }
const sy_expr *sy_gset_unbacked_var(const sy_gset *gs, size_t i) { return gs && i < gs->nub ? gs->ub[i] : NULL; }
const char *sy_gset_unbacked_source(const sy_gset *gs, size_t i) { return gs && i < gs->nub ? gs->ubsrc[i] : NULL; }


int sy_gset_source_parse(const char *src, size_t *namelen, size_t *dim)
{
    if (!src) return -1;
    size_t n = strlen(src), nl = 0, d = 0;
    int kind = -1;
    static const char *const tails[2] = {".dim()", ".dtype"};
    for (int k = 0; k < 2 && kind < 0; k++) {
        size_t t = strlen(tails[k]);
        if (n > t && !strcmp(src + n - t, tails[k])) {
            nl = n - t;
            kind = k;
        }
    }
    if (kind < 0 && n >= 2 && src[n - 1] == ']') {
        size_t open = n - 1; /* the last '[' */
        while (open > 0 && src[open - 1] != '[') open--;
        int is_stride = open > 0 && open - 1 >= 10 && !strncmp(src + open - 10, ".stride()[", 10);
        if (open > 0 && ((open - 1 >= 8 && !strncmp(src + open - 8, ".size()[", 8)) || is_stride) && open < n - 1) {
            int ok = 1;
            for (size_t i = open; i < n - 1 && ok; i++) {
                if (src[i] < '0' || src[i] > '9' || d > (SIZE_MAX - 9) / 10) ok = 0;
                else d = d * 10 + (size_t)(src[i] - '0');
            }
            if (ok) {
                nl = open - (is_stride ? 10 : 8);
                kind = is_stride ? SY_SOURCE_STRIDE : SY_SOURCE_SIZE;
            }
        }
    }
    if (kind < 0 || nl == 0) return -1;
    if (namelen) *namelen = nl;
    if (dim) *dim = kind == SY_SOURCE_SIZE || kind == SY_SOURCE_STRIDE ? d : 0;
    return kind;
}

sy_status sy_gset_values_from_tensors(const sy_gset *gs, size_t ninputs, const char *const *names, const size_t *ranks,
                                      const int64_t *const *shapes, const int64_t *const *strides, const sy_dtype *dtypes,
                                      int64_t *values)
{
    if (!gs) return SY_EINVAL;
    if (!values || (ninputs && (!names || !ranks || !shapes))) return sy_fail_st(gs->ctx, SY_EINVAL, "values_from_shapes: NULL argument");
    for (size_t s = 0; s < gs->nsrc; s++) {
        const char *src = gs->sources[s];
        size_t nl = 0, d = 0;
        int kind = sy_gset_source_parse(src, &nl, &d);
        if (kind < 0)
            return sy_fail_st(gs->ctx, SY_EUNSUPPORTED,
                              "unsupported source '%s' (expected NAME.dim(), NAME.dtype, NAME.size()[I] or NAME.stride()[I])", src);
        long in = -1;
        for (size_t i = 0; i < ninputs; i++)
            if (strlen(names[i]) == nl && !strncmp(names[i], src, nl)) in = (long)i;
        if (in < 0) return sy_fail_st(gs->ctx, SY_EINVAL, "no shape given for input %.*s", (int)nl, src);
        if (kind == SY_SOURCE_DIM) values[s] = (int64_t)ranks[in];
        else if (kind == SY_SOURCE_DTYPE) values[s] = dtypes ? (int64_t)dtypes[in] : -1;
        else if (kind == SY_SOURCE_SIZE) values[s] = d < ranks[in] ? shapes[in][d] : 0;
        else if (strides && strides[in]) values[s] = d < ranks[in] ? strides[in][d] : 0;
        else { /* no strides given: the contiguous ones */
            int64_t acc = 1;
            for (size_t k = d + 1; k < ranks[in]; k++) acc = shapes[in][k] && acc > INT64_MAX / shapes[in][k] ? INT64_MAX : acc * shapes[in][k];
            values[s] = d < ranks[in] ? acc : 0;
        }
    }
    return SY_OK;
}

sy_status sy_gset_values_from_shapes(const sy_gset *gs, size_t ninputs, const char *const *names, const size_t *ranks,
                                     const int64_t *const *shapes, const sy_dtype *dtypes, int64_t *values)
{
    return sy_gset_values_from_tensors(gs, ninputs, names, ranks, shapes, NULL, dtypes, values);
}

/* ------------------------------------------------------------------ JSON */

char *sy_gset_guard_canonical(const sy_gset *gs, size_t i)
{
    if (!gs) return NULL;
    sy_ctx *ctx = gs->ctx;
    if (i >= gs->n) return (char *)sy_fail(ctx, SY_EINVAL, "guard index %zu out of range (%zu guards)", i, gs->n);
    const sy_gset_guard *g = &gs->g[i].pub;
    /* a guard reads only its own slots, so only those are substituted */
    size_t nk = g->nslots ? g->nslots : 1;
    const sy_expr **ks = sy_alloc(ctx, nk * sizeof *ks), **vs = sy_alloc(ctx, nk * sizeof *vs);
    char *es = NULL;
    if (ks && vs) {
        char nm[32];
        size_t k = 0;
        for (; k < g->nslots; k++) {
            ks[k] = gs->vars[g->slots[k]];
            snprintf(nm, sizeof nm, "_s%zu", g->slots[k]);
            if (!(vs[k] = sy_expr_sym(ctx, nm))) break;
        }
        const sy_expr *e = k == g->nslots ? sy_expr_subs(ctx, g->expr, g->nslots, ks, vs) : NULL;
        es = e ? print_show(ctx, e) : NULL;
    } else {
        sy_oom(ctx);
    }
    if (ks) sy_dealloc(ctx, ks, nk * sizeof *ks);
    if (vs) sy_dealloc(ctx, vs, nk * sizeof *vs);
    return es;
}

char *sy_gset_to_json(const sy_gset *gs)
{
    if (!gs) return NULL;
    sy_ctx *ctx = gs->ctx;
    json_t *root = json_object(), *srcs = json_array(), *guards = json_array(), *codes = json_object();
    json_object_set_new(root, "format", json_string("symshape.guards"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "model", json_string(gs->model ? gs->model : ""));
    for (size_t i = 0; i < gs->nsrc; i++) json_array_append_new(srcs, json_string(gs->sources[i]));
    json_object_set_new(root, "sources", srcs);
    for (int d = 0; d < SY_DT_COUNT; d++) json_object_set_new(codes, sy_dtype_name((sy_dtype)d), json_integer(d));
    json_object_set_new(root, "dtype_codes", codes);
    for (size_t i = 0; i < gs->n; i++) {
        const sy_gset_guard *g = guard_pub(gs, &gs->g[i]);
        json_t *o = json_object(), *sl = json_array(), *orig = json_array();
        json_object_set_new(o, "kind", json_string(sy_gset_kind_name(g->kind)));
        json_object_set_new(o, "text", json_string(g->text));
        char *es = sy_gset_guard_canonical(gs, i);
        json_object_set_new(o, "expr", es ? json_string(es) : json_null());
        sy_str_free(ctx, es);
        for (size_t k = 0; k < g->nslots; k++) json_array_append_new(sl, json_integer((json_int_t)g->slots[k]));
        json_object_set_new(o, "slots", sl);
        json_object_set_new(o, "why", g->why ? json_string(g->why) : json_null());
        json_object_set_new(o, "count", json_integer(g->count));
        for (size_t k = 0; k < g->norigins; k++) {
            const sy_guard_origin *x = &g->origins[k];
            json_t *jo = json_pack("{s:s?, s:s?, s:s?, s:i}", "node", x->node, "op", x->op, "reason", x->reason, "count",
                                   (int)x->count);
            if (jo && x->required) json_object_set_new(jo, "required", json_true());
            if (jo && x->loc.file)
                json_object_set_new(jo, "loc", json_pack("{s:s, s:I, s:s?}", "file", x->loc.file, "line", (json_int_t)x->loc.line,
                                                         "function", x->loc.function));
            json_array_append_new(orig, jo);
        }
        json_object_set_new(o, "origins", orig);
        json_array_append_new(guards, o);
    }
    json_object_set_new(root, "guards", guards);
    if (gs->nimpl) {
        json_t *imp = json_array();
        for (size_t i = 0; i < gs->nimpl; i++) {
            const sy_gset_implied *x = implied_pub(gs, i);
            json_t *by = json_array();
            for (size_t k = 0; k < x->nby; k++) json_array_append_new(by, json_integer((json_int_t)x->by[k]));
            json_array_append_new(imp, json_pack("{s:s, s:s, s:o, s:o, s:b}", "kind", sy_gset_kind_name(x->kind), "text",
                                                 x->text, "why", x->why ? json_string(x->why) : json_null(), "implied_by", by,
                                                 "partial", x->partial));
        }
        json_object_set_new(root, "implied", imp);
    }
    if (gs->decl) {
        json_t *spec = json_array(), *viol = json_array();
        for (size_t i = 0; i < gs->nsrc; i++) {
            const sdecl *d = &gs->decl[i];
            if (!d->declared) continue;
            json_array_append_new(spec, json_pack("{s:s, s:i, s:s?, s:I, s:o}", "source", gs->sources[i], "slot", (int)i, "name",
                                                  d->name, "min", (json_int_t)d->min, "max",
                                                  d->max >= 0 ? json_integer((json_int_t)d->max) : json_null()));
        }
        for (size_t i = 0; i < gs->nviol; i++) {
            const sy_gset_violation *v = &gs->viol[i];
            json_array_append_new(viol, json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:b}", "guard", (int)v->guard, "text",
                                                  guard_pub(gs, &gs->g[v->guard])->text, "kind", sy_violation_kind_name(v->kind), "dims",
                                                  v->dims, "message", v->message, "fix", v->fix, "model_requires",
                                                  v->model_requires));
        }
        json_object_set_new(root, "spec", spec);
        json_object_set_new(root, "violations", viol);
    }
    json_object_set_new(root, "counts", json_pack("{s:i, s:i, s:i}", "recorded", (int)gs->recorded, "deduplicated",
                                                  (int)gs->dedup, "kept", (int)gs->n));
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s) return SY_NOOM(ctx);
    size_t n = strlen(s) + 1;
    char *r = sy_alloc(ctx, n);
    if (r) memcpy(r, s, n);
    free(s);
    if (!r) sy_oom(ctx);
    return r;
}
