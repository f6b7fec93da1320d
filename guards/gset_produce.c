/* Guard sets: production of a guard set over the input sources from an env
 * (sy_gset_produce, sy_gset_produce_inputs). See docs/guards.md, "Production". */
#include "guards/gset_private.h"

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
 * (stride(), is_contiguous()), the contiguous stride (product of Max(size, 1)
 * over the sizes after d: sy_tensor_contig_stride); NULL when neither (no stride guard) */
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
        const sy_expr *pair[2] = {acc, sz}; /* the factor of sz: Max(sz, 1), the env's rule */
        const sy_expr *f = sy_tensor_contig_stride(ctx, 2, pair, 0);
        acc = f ? sy_expr_mul(ctx, acc, f) : NULL;
    }
    return acc;
}

static sy_status produce(sy_env *env, const char *model, const sy_graph *g, size_t nin,
                         const sy_graph_input *const *ins, sy_gset **out);

sy_status sy_gset_produce(sy_env *env, const sy_graph *g, sy_gset **out)
{
    if (out) *out = NULL;
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
 * snprintf(buf, n, "%s.size()[%zu]", ...) makes, without its cost (a few
 * sources per input, each formatted). The producer's buffer holds the
 * longest input name with any suffix (src_cap): a source is never cut, where
 * a fixed 1024 bytes made a 1013-byte name's "NAME.dim()" another input's
 * "N.size()[0]", its rank and dtype guards that input's (attack38g). */
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

/* The state of one production, shared by its steps (produce). */
typedef struct {
    sy_env *env;
    sy_ctx *ctx;
    sy_gset *gs;
    const sy_graph *g;                /* the graph the inputs belong to, or NULL */
    size_t nin;                       /* the graph's (or frontend's) inputs ins[0..nin) */
    const sy_graph_input *const *ins;
    size_t nsrc_in;                   /* inputs that get sources: nin, or without any the env's */
    bool any_stride;                  /* some input has stride sources (step 6) */
    size_t nsym;                      /* the context's symbols when production started */
    const sy_expr **symvar;           /* per symbol id: the source variable that represents it, or NULL */
    sy_memo reps;                     /* the values of symvar, as a set */
    const sy_expr **byid;             /* the substitution env symbols -> source variables, by symbol id (nsym) */
    char *buf;                        /* source texts (src_text), bufcap bytes: src_cap of the inputs */
    size_t bufcap;
} producer;

/* bytes for the source texts of the producer's inputs: the longest name, a suffix
 * (".stride()[" is the longest, 10 bytes), 20 digits, "]" and the NUL */
static size_t src_cap(const producer *P)
{
    size_t m = 0;
    for (size_t i = 0; i < P->nsrc_in; i++) {
        const char *nm = P->nin ? P->ins[i]->name : sy_env_input_info_at(P->env, i)->name;
        size_t n = nm ? strlen(nm) : 0;
        if (n > m) m = n;
    }
    return m + 32;
}

static size_t nsym_cap(const producer *P) { return P->nsym ? P->nsym : 1; }

static void producer_clear(producer *P)
{
    sy_ctx *ctx = P->ctx;
    if (P->byid) sy_dealloc(ctx, P->byid, nsym_cap(P) * sizeof *P->byid);
    if (P->symvar) sy_dealloc(ctx, P->symvar, nsym_cap(P) * sizeof *P->symvar);
    if (P->reps.keys) sy_memo_clear(ctx, &P->reps);
    if (P->buf) sy_dealloc(ctx, P->buf, P->bufcap);
    P->byid = P->symvar = NULL;
    P->reps.keys = NULL;
    P->buf = NULL;
}

/* Step 1: the sources of each input (NAME.dim(), NAME.dtype, NAME.size()[d], and NAME.stride()[d]
 * when strides are declared or read) and its tensor-match guards (rank, dtype) when a node reads it.
 * false: out of memory. */
static bool input_sources(producer *P)
{
    sy_gset *gs = P->gs;
    for (size_t i = 0; i < P->nsrc_in; i++) {
        sy_env_input_info ei = {0};
        int read = 1;
        if (P->nin) {
            const sy_graph_input *gi = P->ins[i];
            ei = (sy_env_input_info){gi->name, gi->dtype, gi->ndim, NULL};
            read = input_read(P->g, gi);
        } else {
            ei = *sy_env_input_info_at(P->env, i);
        }
        const sy_env_input_info *in = &ei;
        long sd = add_source(gs, src_text(P->buf, P->bufcap, in->name, ".dim()", -1));
        long st_ = add_source(gs, src_text(P->buf, P->bufcap, in->name, ".dtype", -1));
        if (sd < 0 || st_ < 0) return false;
        gs->example[sd] = (int64_t)in->ndim;
        gs->has_example[sd] = 1;
        gs->example[st_] = (int64_t)in->dtype;
        gs->has_example[st_] = 1;
        for (size_t d = 0; d < in->ndim; d++)
            if (add_source(gs, src_text(P->buf, P->bufcap, in->name, ".size()[", (long)d)) < 0) return false;
        if (!read) continue; /* nothing reads it: no guard (PyTorch #106067), see step 2 */
        if (stride_expr(P->env, in->name, in->ndim, 0)) { /* stride sources: declared strides, or strides were read */
            P->any_stride = true;
            for (size_t d = 0; d < in->ndim; d++)
                if (add_source(gs, src_text(P->buf, P->bufcap, in->name, ".stride()[", (long)d)) < 0) return false;
        }
        if (!add_match_guards(gs, sd, in->name, in->ndim, in->dtype)) return false;
    }
    return true;
}

/* Step 2, one input dim d (source slot s): a constant dim gets its specialization guard; the first
 * source of a symbol represents it (symvar); a later one gets an equality with it (duck sizing, a
 * declared name, or a symbol the frontend shared). false: out of memory. */
static bool dim_guard(producer *P, const sy_input_dim *d, long s)
{
    sy_gset *gs = P->gs;
    sy_ctx *ctx = P->ctx;
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
        return gg != NULL;
    }
    uint32_t id = sy_expr_sym_id(d->expr);
    if (id >= P->nsym) return true;
    const sy_expr **symvar = P->symvar;
    if (!symvar[id]) {
        symvar[id] = v;
        return sy_memo_put(ctx, &P->reps, v, v);
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
    return gg != NULL;
}

/* Step 2: the input dims: duck equalities and specializations; the first source of each symbol.
 * An input no node reads (PyTorch #106067) gets no 0/1, static or duck guard: pass 0 takes the
 * read inputs' dims, pass 1 the unread ones, which only become the representative of a
 * symbol no read dim has and that a decision touched (e.g. a user fact on it).
 * false: out of memory. */
static bool dim_sources(producer *P)
{
    sy_ctx *ctx = P->ctx;
    const sy_graph *g = P->g;
    unsigned char *is_input = NULL; /* per node index: an input of g (unread_source) */
    size_t n_is_input = 0;
    for (size_t i = 0; g && i < sy_graph_ninputs(g); i++)
        if (sy_graph_input_at(g, i)->node + 1 > n_is_input) n_is_input = sy_graph_input_at(g, i)->node + 1;
    is_input = n_is_input ? sy_alloc(ctx, n_is_input) : NULL; /* NULL: the scan */
    if (is_input) {
        memset(is_input, 0, n_is_input);
        for (size_t i = 0; i < sy_graph_ninputs(g); i++) is_input[sy_graph_input_at(g, i)->node] = 1;
    }
    size_t ndims = sy_env_ninput_dims(P->env);
    bool ok = sy_memo_init(ctx, &P->reps);
    if (ok) P->symvar = sy_alloc(ctx, nsym_cap(P) * sizeof *P->symvar);
    ok = ok && P->symvar;
    if (ok) memset(P->symvar, 0, nsym_cap(P) * sizeof *P->symvar);
    unsigned char *unread_at = ok ? sy_alloc(ctx, ndims ? ndims : 1) : NULL; /* pass 0's answers for pass 1 (NULL: asked again) */
    for (int pass = 0; pass < 2 && ok; pass++)
        for (size_t i = 0; i < ndims && ok; i++) {
            const sy_input_dim *d = sy_env_input_dim(P->env, i);
            bool unread = pass && unread_at ? unread_at[i] : unread_source(g, is_input, n_is_input, d->source);
            if (!pass && unread_at) unread_at[i] = unread;
            if (unread != (pass == 1)) continue;
            if (unread && (sy_expr_is_int(d->expr) || !sy_env_symbol_touched(P->env, d->expr) ||
                           (sy_expr_sym_id(d->expr) < P->nsym && P->symvar[sy_expr_sym_id(d->expr)])))
                continue;
            long s = sy_gset_find_source(P->gs, d->source);
            if (s < 0 && (s = add_source(P->gs, d->source)) < 0) ok = false;
            else ok = dim_guard(P, d, s);
        }
    if (unread_at) sy_dealloc(ctx, unread_at, ndims ? ndims : 1);
    if (is_input) sy_dealloc(ctx, is_input, n_is_input);
    return ok;
}

/* Step 2b: an unread input one of whose dims represents a symbol keeps its rank and dtype guards.
 * false: out of memory. */
static bool unread_match_guards(producer *P)
{
    for (size_t i = 0; i < P->nin; i++) {
        const sy_graph_input *in = P->ins[i];
        if (input_read(P->g, in)) continue;
        bool used = false;
        for (size_t d = 0; d < in->ndim && !used; d++) {
            long sl = sy_gset_find_source(P->gs, src_text(P->buf, P->bufcap, in->name, ".size()[", (long)d));
            used = sl >= 0 && sy_memo_get(&P->reps, P->gs->vars[sl]) != NULL; /* some symvar[k] is it */
        }
        if (!used) continue;
        long sd = sy_gset_find_source(P->gs, src_text(P->buf, P->bufcap, in->name, ".dim()", -1));
        if (!add_match_guards(P->gs, sd, in->name, in->ndim, in->dtype)) return false;
    }
    return true;
}

/* Step 3: the substitution env symbols -> source variables, and the unbacked symbols (values known
 * only at run time: sy_gset_check_runtime) with their sources. false: out of memory. */
static bool substitution(producer *P)
{
    sy_ctx *ctx = P->ctx;
    sy_env *env = P->env;
    sy_gset *gs = P->gs;
    P->byid = sy_alloc(ctx, nsym_cap(P) * sizeof *P->byid);
    if (!P->byid) return false;
    memset(P->byid, 0, nsym_cap(P) * sizeof *P->byid);
    for (size_t i = 0; i < sy_env_nsymbols(env); i++) {
        uint32_t id = sy_expr_sym_id(sy_env_symbol(env, i)->sym);
        if (id < P->nsym && P->symvar[id]) P->byid[id] = P->symvar[id];
    }
    size_t nu = 0;
    for (size_t i = 0; i < sy_env_nsymbols(env); i++) nu += sy_env_symbol(env, i)->unbacked != 0;
    gs->ub = nu ? galloc(gs, nu * sizeof *gs->ub) : NULL;
    gs->ubsrc = nu ? galloc(gs, nu * sizeof *gs->ubsrc) : NULL;
    if (nu && (!gs->ub || !gs->ubsrc)) return false;
    for (size_t i = 0; i < sy_env_nsymbols(env); i++) {
        const sy_symbol_info *si = sy_env_symbol(env, i);
        if (!si->unbacked) continue;
        gs->ub[gs->nub] = si->sym;
        gs->ubsrc[gs->nub++] = gstrdup(gs, si->nsources ? si->sources[0] : sy_expr_sym_name(si->sym));
    }
    return true;
}

/* Step 4, one recorded guard r: translated to the sources; one still reading env symbols
 * (unbacked) cannot be checked from sizes and becomes a runtime assert, with a legend naming
 * what produced them: "  [u0 = nz.size()[0] (from nonzero at node nz)]". */
static sy_status recorded_guard(producer *P, const sy_guard_record *r)
{
    sy_ctx *ctx = P->ctx;
    sy_gset *gs = P->gs;
    gs->recorded += r->count;
    gs->dedup++;
    const sy_expr *e = sy_expr_subs_ids(ctx, r->expr, P->nsym, P->byid);
    if (!e) /* never a set without one of its recorded guards: that set would accept sizes the trace did not */
        return sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx)
                                      : sy_fail_st(ctx, SY_ERROR, "produce: a recorded guard cannot be written over the sources");
    if (sy_expr_kind_of(e) == SY_EXPR_TRUE) return SY_OK;
    bool unresolved = false;
    const sy_expr **fs = NULL;
    size_t nf = 0;
    char legend[1024];
    size_t ll = 0;
    legend[0] = 0;
    if (sy_expr_free_symbols(ctx, e, &fs, &nf) == SY_OK) {
        for (size_t k = 0; k < nf; k++)
            if (slot_of_var(gs, fs[k]) < 0) {
                unresolved = true;
                const sy_symbol_info *ui = sy_env_symbol_of(P->env, fs[k]);
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
    if (!gg) return sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ENOMEM;
    gg->tx->wk = WHY_STR;
    gg->tx->s[0] = "recorded during tracing";
    if (ll && !(gg->tx->legend = gstrdup(gs, legend))) return SY_ENOMEM;
    gg->pub.count = r->count;
    sy_status st = SY_OK;
    for (size_t k = 0; k < r->norigins; k++)
        if (!add_origin(gs, gg, &r->origins[k])) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    if (r->norigins && !st) { /* the decision of the first recording, in the set's copies of its strings */
        gg->tx->wk = WHY_RECORDED;
        gg->tx->s[0] = gg->orig[0].op;
        gg->tx->s[1] = gg->orig[0].reason;
        gg->tx->n[0] = r->origins[0].required;
    }
    return st;
}

/* Step 4: the guards the trace recorded, translated. */
static sy_status recorded_guards(producer *P)
{
    sy_status st = SY_OK;
    for (size_t i = 0; i < sy_env_nguards(P->env) && st == SY_OK; i++) st = recorded_guard(P, sy_env_guard(P->env, i));
    return st;
}

/* Step 5: stride guards (PyTorch's tensor match on strides; produce_guards'
 * TensorPropertySource STRIDE == its expression in the sizes) */
static sy_status stride_guards(producer *P)
{
    sy_ctx *ctx = P->ctx;
    sy_env *env = P->env;
    sy_gset *gs = P->gs;
    sy_status st = SY_OK;
    for (size_t i = 0; i < P->nsrc_in && st == SY_OK && P->any_stride; i++) {
        const char *iname = P->nin ? P->ins[i]->name : sy_env_input_info_at(env, i)->name;
        size_t ndim = P->nin ? P->ins[i]->ndim : sy_env_input_info_at(env, i)->ndim;
        for (size_t d = 0; d < ndim && st == SY_OK; d++) {
            long sl = sy_gset_find_source(gs, src_text(P->buf, P->bufcap, iname, ".stride()[", (long)d));
            const sy_expr *se = sl >= 0 ? stride_expr(env, iname, ndim, d) : NULL;
            if (!se) continue;
            const sy_expr *e = sy_expr_subs_ids(ctx, se, P->nsym, P->byid);
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
    return st;
}

/* Step 6: the ranges of the symbols decisions relied on: a declared range, which the trace
 * assumed (torch.export checks it on the inputs too), or >= 2 under 0/1 specialization. */
static sy_status range_guards(producer *P)
{
    sy_ctx *ctx = P->ctx;
    sy_env *env = P->env;
    sy_gset *gs = P->gs;
    sy_status st = SY_OK;
    for (size_t i = 0; i < sy_env_nsymbols(env) && st == SY_OK; i++) {
        const sy_symbol_info *si = sy_env_symbol(env, i);
        uint32_t id = sy_expr_sym_id(si->sym);
        if (si->unbacked || id >= P->nsym || !P->symvar[id] || !sy_env_symbol_touched(env, si->sym)) continue;
        const sy_expr *v = P->symvar[id];
        if (si->declared) {
            const char *dn = si->dim_name ? gstrdup(gs, si->dim_name) : NULL, *s0 = si->dim_name ? NULL : gstrdup(gs, si->sources[0]);
            if (!dn && !s0) return SY_ENOMEM;
            if (si->dim_min > 0 && !add_guard_why(gs, SY_GK_RANGE, sy_expr_ge(ctx, v, sy_expr_int_si(ctx, si->dim_min)),
                                                  WHY_DECL_RANGE, dn, s0, NULL, si->dim_min, si->dim_max, 0))
                st = SY_ENOMEM;
            if (si->dim_max >= 0 && !add_guard_why(gs, SY_GK_RANGE, sy_expr_le(ctx, v, sy_expr_int_si(ctx, si->dim_max)),
                                                   WHY_DECL_RANGE, dn, s0, NULL, si->dim_min, si->dim_max, 0))
                st = SY_ENOMEM;
            continue;
        }
        if (!sy_env_opts(env)->specialize_zero_one) continue; /* sizes >= 0 need no guard */
        const char *nm = gstrdup(gs, si->nsources ? si->sources[0] : sy_expr_sym_name(si->sym));
        if (!nm || !add_guard_why(gs, SY_GK_RANGE, sy_expr_ge(ctx, v, sy_expr_int_si(ctx, 2)), WHY_01_RANGE, nm, NULL, NULL,
                                  0, 0, 0))
            st = SY_ENOMEM;
    }
    return st;
}

/* Step 7: the declared spec of each source (for violations of the spec). */
static sy_status declared_specs(producer *P)
{
    sy_env *env = P->env;
    sy_gset *gs = P->gs;
    for (size_t i = 0; i < sy_env_ninput_dims(env); i++) {
        const sy_input_dim *d = sy_env_input_dim(env, i);
        long sl = d->spec ? sy_gset_find_source(gs, d->source) : -1;
        if (sl < 0) continue;
        if (!gs->decl && !(gs->decl = galloc(gs, gs->nsrc * sizeof *gs->decl)))
            return sy_fail_st(P->ctx, SY_ENOMEM, "out of memory");
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
    return SY_OK;
}

/* A guard set over the sources of the inputs (the graph's, or without any the env's), in steps:
 * 1 sources and tensor-match guards of each input, 2 the input dims (specializations, duck and
 * declared equalities; 2b rank and dtype of an unread input that represents a symbol), 3 the
 * substitution of env symbols by sources, 4 the recorded guards translated, 5 stride guards,
 * 6 the ranges decisions relied on, 7 the declared spec of each source. */
static sy_status produce(sy_env *env, const char *model, const sy_graph *g, size_t nin,
                         const sy_graph_input *const *ins, sy_gset **out)
{
    if (out) *out = NULL;
    if (!env) return SY_EINVAL;
    sy_ctx *ctx = sy_env_ctx(env);
    if (!out) return sy_fail_st(ctx, SY_EINVAL, "produce_guards: NULL argument");
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
    producer P = {.env = env, .ctx = ctx, .gs = gs, .g = g, .nin = nin, .ins = ins,
                  .nsrc_in = nin ? nin : sy_env_ninputs(env), .nsym = sy_ctx_nsyms(ctx)};
    P.bufcap = src_cap(&P);
    P.buf = sy_alloc(ctx, P.bufcap);
    if (!P.buf || !input_sources(&P) || !dim_sources(&P) || !unread_match_guards(&P) || !substitution(&P)) {
        producer_clear(&P);
        sy_gset_free(gs);
        return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    sy_status st = recorded_guards(&P);
    if (!st) st = stride_guards(&P);
    if (!st) st = range_guards(&P);
    producer_clear(&P);
    if (!st) st = declared_specs(&P);
    if (!st) st = texts_make(gs);
    if (st) {
        sy_gset_free(gs);
        return st;
    }
    *out = gs;
    return SY_OK;
}

/* ------------------------------------------------------------------ minimization */
