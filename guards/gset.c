/* Guard sets: the set itself (arena, sources, adding a guard, origins), its accessors
 * and freeing. The jobs are one file each: gset_produce.c (production over input
 * sources), gset_minimize.c and gset_witness.c (minimization), gset_normalize.c,
 * gset_text.c (the texts, made by produce and minimize), gset_spec.c (violations of the
 * dynamic-dim spec), gset_check.c, gset_json.c; gset_private.h is their shared
 * layout. See include/symshape/gset.h and docs/guards.md. */
#include "guards/gset_private.h"

static const char *const kind_names[] = {"tensor_match", "equality", "specialization", "range", "relation", "runtime_assert"};
const char *sy_gset_kind_name(sy_gset_kind k) { return (unsigned)k <= SY_GK_RUNTIME_ASSERT ? kind_names[k] : "?"; }

void *galloc(sy_gset *gs, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    gchunk *c = gs->chunks;
    if (!c || c->size - c->used < size) {
        /* SY_ARENA_CHUNK (2 KiB) chunks: the newest one's slack is part of the peak (see arena_alloc, expr.c) */
        size_t cs = SY_ARENA_CHUNK;
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

const char *gstrdup(sy_gset *gs, const char *s)
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

long add_source(sy_gset *gs, const char *text)
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
long slot_of_var(const sy_gset *gs, const sy_expr *v)
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
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k == SY_EXPR_TRUE || k == SY_EXPR_FALSE) return true;
    if (k != SY_EXPR_EQ && k != SY_EXPR_NE && k != SY_EXPR_LE) return false;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) == SY_EXPR_SYM) {
        buf[(*n)++] = d;
        return true;
    }
    size_t nt = sy_expr_nargs(d);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || nt > cap) return false;
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = sy_expr_arg(d, i);
        if (sy_expr_kind_of(m) != SY_EXPR_SYM) return false;
        buf[(*n)++] = m;
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
char *print_show(sy_ctx *ctx, const sy_expr *e)
{
    return sy_expr_print_bounded(ctx, e, SY_PRINT_CANONICAL, SY_SHOW_LET_NODES);
}

/* A new guard; its why (tx->wk) is WHY_NONE until the caller sets it. Its
 * texts are not made here (texts_make, when the set is built). fs/nfs: e's free symbols if known
 * (else NULL). */
gguard *add_guard_fs(sy_gset *gs, sy_gset_kind kind, const sy_expr *e, const sy_expr *const *fs, size_t nfs)
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
gguard *add_guard_why(sy_gset *gs, sy_gset_kind kind, const sy_expr *e, why_kind wk, const char *s0,
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
bool add_origin(sy_gset *gs, gguard *gg, const sy_guard_origin *o)
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
            x->limit &= o->limit; /* a limit only while every recording of it was one */
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
    x->limit = o->limit;
    x->loc.file = gstrdup(gs, o->loc.file);
    x->loc.line = o->loc.file ? o->loc.line : 0;
    x->loc.function = o->loc.file ? gstrdup(gs, o->loc.function) : NULL;
    gg->pub.origins = gg->orig;
    if ((o->loc.file && !x->loc.file) || (o->loc.file && o->loc.function && !x->loc.function)) return false;
    return true;
}

/* ------------------------------------------------------------------ access */

size_t sy_gset_size(const sy_gset *gs) { return gs ? gs->n : 0; }
sy_ctx *sy_gset_ctx(const sy_gset *gs) { return gs ? gs->ctx : NULL; }
const sy_gset_guard *sy_gset_at(const sy_gset *gs, size_t i) { return gs && i < gs->n ? &gs->g[i].pub : NULL; }
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

/* ---- deploy (issue 36): the example size of a source */
int sy_gset_source_example(const sy_gset *gs, size_t i, int64_t *value)
{
    if (!gs || i >= gs->nsrc || !gs->has_example[i]) return 0;
    if (value) *value = gs->example[i];
    return 1;
}
