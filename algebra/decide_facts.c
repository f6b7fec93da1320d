/* Adding facts (sy_facts_add): ranges, replacements, congruences, their
 * cascades; sy_facts_set_range/get_range and sy_solve. See docs/decision.md. */
#include "algebra/decide_private.h"

/* ------------------------------------------------------------------ adding facts */

static sy_status add_fact(sy_facts *f, const sy_expr *e, int depth);

static sy_status range_changed(sy_facts *f, uint32_t id, int depth)
{
    sy_ival *r = &f->range[id];
    if (sy_ival_is_empty(r)) {
        f->inconsistent = true;
        return SY_OK;
    }
    (void)depth;
    /* NE facts at the boundary tighten it */
    bool again = true;
    while (again && !sy_ival_is_empty(r)) {
        again = false;
        for (size_t i = 0; i < f->nrels; i++) {
            const sy_expr *x = f->rels[i];
            if (x->kind != SY_EXPR_NE) continue;
            const sy_expr *d = x->args[0]; /* s + c != 0 */
            const sy_expr *s = d->kind == SY_EXPR_ADD && d->n == 1 && fmpz_is_one(&SY_CTERMS(d)[0].coef)
                                   ? SY_CTERMS(d)[0].mono : d;
            if (s->kind != SY_EXPR_SYM || s->u.sym.id != id) continue;
            fmpz_t v;
            fmpz_init(v);
            sy_const_term(v, d);
            fmpz_neg(v, v);
            if (!r->lo_inf && fmpz_equal(v, r->lo)) { fmpz_add_ui(r->lo, r->lo, 1); again = true; }
            if (!r->hi_inf && fmpz_equal(v, r->hi)) { fmpz_sub_ui(r->hi, r->hi, 1); again = true; }
            fmpz_clear(v);
        }
    }
    if (sy_ival_is_empty(r)) f->inconsistent = true;
    return SY_OK;
}

static const sy_expr *single_symbol(const sy_expr *d, fmpz_t a, fmpz_t c)
{
    /* d = a*s + c */
    if (d->kind == SY_EXPR_SYM) {
        fmpz_one(a);
        fmpz_zero(c);
        return d;
    }
    if (d->kind == SY_EXPR_ADD && d->n == 1 && SY_CTERMS(d)[0].mono->kind == SY_EXPR_SYM) {
        fmpz_set(a, &SY_CTERMS(d)[0].coef);
        fmpz_set(c, &d->u.c0);
        return SY_CTERMS(d)[0].mono;
    }
    return NULL;
}

/* occurrences of s in e other than as the polynomial-level linear term */
static bool occurs_inside(sy_ctx *ctx, const sy_expr *e, const sy_expr *s)
{
    size_t nt = e->kind == SY_EXPR_ADD ? e->n : (e->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e;
        if (m == s) continue;
        const sy_expr **fs;
        size_t k;
        if (sy_expr_free_symbols(ctx, m, &fs, &k) != SY_OK) return true;
        bool hit = false;
        for (size_t j = 0; j < k; j++) hit = hit || fs[j] == s;
        sy_mem_free(ctx, fs);
        if (hit) return true;
    }
    return false;
}

/* Pick the symbol to solve d == 0 for: unit coefficient, linear, occurring
 * nowhere else; the largest in canonical order (the newest symbol). */
static const sy_expr *pick_unit(sy_ctx *ctx, const sy_expr *d, int *sign, bool need_unit)
{
    const sy_expr *best = NULL;
    size_t nt = d->kind == SY_EXPR_ADD ? d->n : (d->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = d->kind == SY_EXPR_ADD ? SY_CTERMS(d)[i].mono : d;
        const fmpz *c = NULL;
        fmpz one = 1;
        c = d->kind == SY_EXPR_ADD ? &SY_CTERMS(d)[i].coef : &one;
        if (m->kind != SY_EXPR_SYM) continue;
        if (need_unit && !fmpz_is_pm1(c)) continue;
        if (occurs_inside(ctx, d, m)) continue;
        /* prefer user symbols over internal parameters, then the newest */
        bool internal = m->u.sym.name[0] == '#';
        bool best_internal = best && best->u.sym.name[0] == '#';
        if (!best || (best_internal && !internal) ||
            (internal == best_internal && sy_expr_cmp(m, best) > 0)) {
            best = m;
            *sign = fmpz_sgn(c);
        }
    }
    return best;
}

/* list repl entry i under symbol t (decide_private.h rd_head) */
static bool reader_push(sy_facts *f, uint32_t t, uint32_t i)
{
    if (!ensure(f, t)) return false;
    if (f->rd_n == f->rd_cap) {
        size_t nc = f->rd_cap ? 2 * f->rd_cap : 64;
        if (nc > UINT32_MAX - 1) return false;
        struct rd_entry *np = sy_realloc(f->ctx, f->rd_pool, f->rd_cap * sizeof *np, nc * sizeof *np);
        if (!np) return false;
        f->rd_pool = np;
        f->rd_cap = nc;
    }
    f->rd_pool[f->rd_n] = (struct rd_entry){i, f->rd_head[t]};
    f->rd_head[t] = (uint32_t)++f->rd_n;
    return true;
}

/* list repl entry i under every symbol of v */
static sy_status readers_add(sy_facts *f, const sy_expr *v, uint32_t i)
{
    if (v->kind == SY_EXPR_INT) return SY_OK;
    if (v->kind == SY_EXPR_SYM) return reader_push(f, v->u.sym.id, i) ? SY_OK : sy_fail_st(f->ctx, SY_ENOMEM, "out of memory");
    const sy_expr **fs = NULL;
    size_t k = 0;
    sy_status st = sy_expr_free_symbols(f->ctx, v, &fs, &k);
    for (size_t j = 0; st == SY_OK && j < k; j++)
        if (!reader_push(f, fs[j]->u.sym.id, i)) st = sy_fail_st(f->ctx, SY_ENOMEM, "out of memory");
    if (fs) sy_mem_free(f->ctx, fs);
    return st;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static sy_status install_replacement(sy_facts *f, const sy_expr *s, const sy_expr *v, int depth)
{
    sy_ctx *ctx = f->ctx;
    uint32_t id = s->u.sym.id;
    if (!ensure(f, id)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    /* the entries that read s: its list of readers, each once, in id order (the order of the walk
     * over every id this replaced); the list is dropped, as no entry reads s after this */
    size_t nl = 0;
    for (uint32_t k = f->rd_head[id]; k; k = f->rd_pool[k - 1].next) nl++;
    uint32_t *list = NULL;
    if (nl) {
        list = sy_alloc(ctx, nl * sizeof *list);
        if (!list) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        nl = 0;
        for (uint32_t k = f->rd_head[id]; k; k = f->rd_pool[k - 1].next) list[nl++] = f->rd_pool[k - 1].id;
        qsort(list, nl, sizeof *list, cmp_u32);
    }
    size_t nalloc = nl;
    f->rd_head[id] = 0;
    sy_ival old;
    sy_ival_init(&old);
    sy_ival_set(&old, &f->range[id]);
    sy_ival_set_full(&f->range[id]);
    sy_status st = SY_OK;
    /* rewrite them: the symbols of the result are those of the entry but s (listed already) and
     * those of v */
    for (size_t j = 0; j < nl && st == SY_OK; j++) {
        if (j && list[j] == list[j - 1]) continue;
        const sy_expr *r = f->repl[list[j]];
        if (!r || r->kind == SY_EXPR_INT || (r->kind == SY_EXPR_SYM && r != s)) continue;
        const sy_expr *nr = sy_expr_subs(ctx, r, 1, &s, &v);
        if (!nr) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        if (nr == r) continue; /* listed, but rewritten since: it no longer reads s */
        f->repl[list[j]] = nr;
        st = readers_add(f, v, list[j]);
    }
    if (list) sy_dealloc(ctx, list, nalloc * sizeof *list);
    if (st == SY_OK) st = readers_add(f, v, id);
    if (st) {
        sy_ival_clear(&old);
        return st;
    }
    f->repl[id] = v;
    f->nrepl++;
    /* re-add the old relations and the old range of s as facts about v */
    size_t n = f->nrels;
    const sy_expr **old_rels = NULL;
    if (n) {
        old_rels = sy_alloc(ctx, n * sizeof *old_rels);
        if (!old_rels) {
            sy_ival_clear(&old);
            return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        }
        memcpy(old_rels, f->rels, n * sizeof *old_rels);
    }
    f->nrels = 0;
    memset(f->taint, 0, f->cap); /* recomputed as the relations are re-added */
    f->rels_epoch++; /* the relations are re-added: the symbol index starts over */
    if (f->relset.keys) sy_memo_clear(ctx, &f->relset);
    if (!old.lo_inf) st = add_fact(f, sy_expr_ge(ctx, v, sy_int_fmpz(ctx, old.lo)), depth + 1);
    if (st == SY_OK && !old.hi_inf) st = add_fact(f, sy_expr_le(ctx, v, sy_int_fmpz(ctx, old.hi)), depth + 1);
    for (size_t i = 0; i < n && st == SY_OK; i++) st = add_fact(f, old_rels[i], depth + 1);
    if (old_rels) sy_dealloc(ctx, old_rels, n * sizeof *old_rels);
    sy_ival_clear(&old);
    return st;
}

static sy_status add_congruence(sy_facts *f, const sy_expr *e, const fmpz_t r_in, const fmpz_t k, int depth)
{
    /* e == r (mod k), k >= 2 */
    sy_ctx *ctx = f->ctx;
    fmpz_t r, a, inv, g;
    fmpz_init(r);
    fmpz_init(a);
    fmpz_init(inv);
    fmpz_init(g);
    fmpz_fdiv_r(r, r_in, k);
    sy_status st = SY_OK;
    const sy_expr *s = NULL;
    /* find a linear symbol whose coefficient is invertible mod k */
    size_t nt = e->kind == SY_EXPR_ADD ? e->n : (e->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e;
        if (m->kind != SY_EXPR_SYM || occurs_inside(ctx, e, m)) continue;
        const fmpz *c = e->kind == SY_EXPR_ADD ? &SY_CTERMS(e)[i].coef : NULL;
        fmpz_set(a, c ? c : (const fmpz *)&(fmpz){1});
        fmpz_gcd(g, a, k);
        if (!fmpz_is_one(g)) continue;
        if (!s || sy_expr_cmp(m, s) > 0) s = m;
    }
    if (!s) {
        /* keep as a relation: Mod(e, k) == r */
        const sy_expr *rel = sy_expr_eq(ctx, sy_expr_mod(ctx, e, sy_int_fmpz(ctx, k)), sy_int_fmpz(ctx, r));
        st = rel ? (push_rel(f, rel) ? SY_OK : SY_ENOMEM) : sy_ctx_last_error(ctx);
        goto done;
    }
    {
        /* a*s + rest == r (mod k)  =>  s == inv(a)*(r - rest) (mod k)  =>  s := k*t + X */
        fmpz_set(a, &(fmpz){0});
        fmpz one_c = 1;
        for (size_t i = 0; i < nt; i++) {
            const sy_expr *m = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e;
            if (m == s) fmpz_set(a, e->kind == SY_EXPR_ADD ? &SY_CTERMS(e)[i].coef : &one_c);
        }
        fmpz_invmod(inv, a, k);
        const sy_expr *as = sy_expr_mul(ctx, sy_int_fmpz(ctx, a), s);
        const sy_expr *rest = sy_expr_sub(ctx, e, as);
        const sy_expr *X = sy_scale_fmpz(ctx, sy_expr_sub(ctx, sy_int_fmpz(ctx, r), rest), inv);
        if (!X) { st = sy_ctx_last_error(ctx); goto done; }
        /* reduce X's coefficients modulo k (symmetric), valid since s - X must be a multiple of k */
        sy_terms ts;
        sy_terms_init(&ts);
        fmpz_t c;
        fmpz_init(c);
        size_t xn = X->kind == SY_EXPR_ADD ? X->n : (X->kind == SY_EXPR_INT ? 0 : 1);
        bool ok = true;
        for (size_t i = 0; i < xn && ok; i++) {
            const sy_expr *m = X->kind == SY_EXPR_ADD ? SY_CTERMS(X)[i].mono : X;
            fmpz_set(c, X->kind == SY_EXPR_ADD ? &SY_CTERMS(X)[i].coef : &one_c);
            fmpz_smod(c, c, k);
            if (!fmpz_is_zero(c)) ok = sy_terms_push(ctx, &ts, c, m);
        }
        sy_const_term(c, X);
        fmpz_fdiv_r(ts.c0, c, k);
        fmpz_clear(c);
        if (!ok) {
            sy_terms_clear(ctx, &ts);
            st = sy_ctx_last_error(ctx);
            goto done;
        }
        X = sy_terms_build(ctx, &ts);
        sy_terms_clear(ctx, &ts);
        if (!X) { st = sy_ctx_last_error(ctx); goto done; }
        char name[32];
        snprintf(name, sizeof name, "#t%zu", f->nfresh);
        const sy_expr *t = sy_sym_internal(ctx, name);
        if (!t) { st = sy_ctx_last_error(ctx); goto done; }
        if (f->nfresh == f->freshcap) {
            size_t nc = f->freshcap ? f->freshcap * 2 : 4;
            fresh_sym *nf = sy_realloc(ctx, f->fresh, f->freshcap * sizeof *nf, nc * sizeof *nf);
            if (!nf) { st = sy_fail_st(ctx, SY_ENOMEM, "out of memory"); goto done; }
            f->fresh = nf;
            f->freshcap = nc;
        }
        f->fresh[f->nfresh].t = t;
        f->fresh[f->nfresh].s = s;
        fmpz_init_set(&f->fresh[f->nfresh].k, k);
        f->fresh[f->nfresh].x = X;
        f->nfresh++;
        if (!ensure(f, t->u.sym.id)) { st = sy_fail_st(ctx, SY_ENOMEM, "out of memory"); goto done; }
        const sy_expr *v = sy_expr_add(ctx, sy_expr_mul(ctx, sy_int_fmpz(ctx, k), t), X);
        st = v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
    }
done:
    fmpz_clear(r);
    fmpz_clear(a);
    fmpz_clear(inv);
    fmpz_clear(g);
    return st;
}

static sy_status add_fact(sy_facts *f, const sy_expr *e, int depth)
{
    sy_ctx *ctx = f->ctx;
    if (!e) return sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ERROR;
    if (depth > FACT_CASCADE_MAX) return SY_OK; /* re-adding cascades are bounded; dropping a fact is sound (weaker) */
    e = apply_raw(f, e);
    if (!e) return sy_ctx_last_error(ctx);
    fmpz_t a, c;
    sy_status st = SY_OK;
    switch (e->kind) {
    case SY_EXPR_TRUE: return SY_OK;
    case SY_EXPR_FALSE: f->inconsistent = true; return SY_OK;
    case SY_EXPR_AND:
        for (uint32_t i = 0; i < e->n && st == SY_OK; i++) st = add_fact(f, e->args[i], depth + 1);
        return st;
    case SY_EXPR_OR:
    case SY_EXPR_NE:
        if (!push_rel(f, e)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        if (e->kind == SY_EXPR_NE) {
            fmpz_init(a);
            fmpz_init(c);
            const sy_expr *s = single_symbol(e->args[0], a, c);
            if (s && ensure(f, s->u.sym.id)) range_changed(f, s->u.sym.id, depth);
            fmpz_clear(a);
            fmpz_clear(c);
        }
        return SY_OK;
    case SY_EXPR_LE: {
        fmpz_init(a);
        fmpz_init(c);
        const sy_expr *s = single_symbol(e->args[0], a, c);
        if (s && fmpz_is_pm1(a)) {
            if (!ensure(f, s->u.sym.id)) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            else {
                sy_ival *r = &f->range[s->u.sym.id];
                fmpz_neg(c, c);
                if (fmpz_sgn(a) > 0) { /* s + c0 <= 0 -> s <= -c0 */
                    if (r->hi_inf || fmpz_cmp(c, r->hi) < 0) fmpz_set(r->hi, c);
                    r->hi_inf = false;
                } else { /* -s + c0 <= 0 -> s >= c0 */
                    fmpz_neg(c, c);
                    if (r->lo_inf || fmpz_cmp(c, r->lo) > 0) fmpz_set(r->lo, c);
                    r->lo_inf = false;
                }
                range_changed(f, s->u.sym.id, depth);
                /* a point range becomes a replacement */
                if (!f->inconsistent && sy_ival_is_point(r)) {
                    const sy_expr *v = sy_int_fmpz(ctx, r->lo);
                    st = v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
                }
            }
        } else if ((s = chain_sym(e->args[0])) != NULL) {
            /* a chain: the relation is exactly a half-line of s. Kept as a
             * relation (as before) and intersected into s's range, so that
             * intervals see it and s stays free of other facts (taint). */
            if (!ensure(f, s->u.sym.id) || !push_rel_as(f, e, true)) {
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            } else {
                bool s_le;
                fmpz_zero(c);
                chain_invert(e->args[0], c, true, &s_le, a);
                sy_ival *r = &f->range[s->u.sym.id];
                ival_cut(r, s_le, a);
                range_changed(f, s->u.sym.id, depth);
                if (!f->inconsistent && sy_ival_is_point(r)) {
                    const sy_expr *v = sy_int_fmpz(ctx, r->lo);
                    st = v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
                }
            }
        } else if (!push_rel(f, e)) {
            st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        }
        fmpz_clear(a);
        fmpz_clear(c);
        return st;
    }
    case SY_EXPR_EQ: {
        const sy_expr *d = e->args[0];
        int sign = 0;
        const sy_expr *s = pick_unit(ctx, d, &sign, true);
        if (s) {
            /* d = sign*s + rest == 0  ->  s := -sign*rest */
            const sy_expr *rest = sy_expr_sub(ctx, d, sy_expr_mul_si(ctx, s, sign));
            const sy_expr *v = sy_expr_mul_si(ctx, rest, -sign);
            return v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
        }
        /* congruence: Mod(E, k) + c == 0 */
        if (d->kind == SY_EXPR_ADD && d->n == 1 && fmpz_is_one(&SY_CTERMS(d)[0].coef) &&
            SY_CTERMS(d)[0].mono->kind == SY_EXPR_MOD && SY_CTERMS(d)[0].mono->args[1]->kind == SY_EXPR_INT) {
            const sy_expr *m = SY_CTERMS(d)[0].mono;
            fmpz_init(c);
            fmpz_neg(c, &d->u.c0);
            if (fmpz_sgn(c) < 0 || fmpz_cmp(c, &m->args[1]->u.value) >= 0) f->inconsistent = true;
            else st = add_congruence(f, m->args[0], c, &m->args[1]->u.value, depth);
            fmpz_clear(c);
            return st;
        }
        if (d->kind == SY_EXPR_MOD && d->args[1]->kind == SY_EXPR_INT) {
            fmpz_init(c);
            st = add_congruence(f, d->args[0], c, &d->args[1]->u.value, depth);
            fmpz_clear(c);
            return st;
        }
        /* no unit-coefficient symbol: kept as a relation for the linear layer */
        return push_rel(f, e) ? SY_OK : sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    default: return sy_fail_st(ctx, SY_EINVAL, "facts: expected a boolean expression");
    }
}

static sy_status sy_facts_add_work(sy_facts *f, const sy_expr *fact)
{
    if (!f) return SY_EINVAL;
    f->version++; /* counted before anything can fail: a failed add may have changed the set too */
    memset(f->dc_key, 0, sizeof f->dc_key); /* answers depend on the facts */
    caches_clear(f);
    if (!fact) return sy_fail_st(f->ctx, SY_EINVAL, "facts: NULL fact");
    if (!fact->isbool) return sy_fail_st(f->ctx, SY_EINVAL, "facts: expected a boolean expression, got an integer");
    if (!ensure(f, f->ctx->nsyms)) return sy_fail_st(f->ctx, SY_ENOMEM, "out of memory");
    return add_fact(f, fact, 0);
}

sy_status sy_facts_add(sy_facts *f, const sy_expr *fact)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    facts_sync(f);
    sy_op_begin(ctx, false);
    sy_status st = sy_op_end_st(ctx, sy_facts_add_work(f, fact));
    return st;
}

uint64_t sy_facts_version(const sy_facts *f) { return f ? f->version : 0; }

sy_status sy_facts_set_range(sy_facts *f, const sy_expr *sym, const sy_expr *lo, const sy_expr *hi)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    if (!sym || sym->kind != SY_EXPR_SYM) return sy_fail_st(ctx, SY_EINVAL, "set_range: not a symbol");
    if ((lo && lo->kind != SY_EXPR_INT) || (hi && hi->kind != SY_EXPR_INT))
        return sy_fail_st(ctx, SY_EINVAL, "set_range: bounds must be integer constants");
    /* a comparison that could not be built (out of memory) is its error, not a "NULL fact" */
    sy_status st = SY_OK;
    const sy_expr *c;
    if (lo) st = (c = sy_expr_ge(ctx, sym, lo)) ? sy_facts_add(f, c) : sy_ctx_last_error(ctx);
    if (st == SY_OK && hi) st = (c = sy_expr_le(ctx, sym, hi)) ? sy_facts_add(f, c) : sy_ctx_last_error(ctx);
    return st;
}

sy_status sy_facts_get_range(sy_facts *f, const sy_expr *sym, const sy_expr **lo, const sy_expr **hi)
{
    if (!f) return SY_EINVAL;
    if (!sym || sym->kind != SY_EXPR_SYM || !lo || !hi) return sy_fail_st(f->ctx, SY_EINVAL, "get_range: bad argument");
    return sy_bound(f, sym, lo, hi);
}

sy_status sy_solve(sy_facts *f, const sy_expr *eq, const sy_expr **sym, const sy_expr **value,
                   const sy_expr **divisibility)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    if (!eq || !sym || !value || !divisibility) return sy_fail_st(ctx, SY_EINVAL, "solve: NULL argument");
    *sym = *value = *divisibility = NULL;
    facts_sync(f);
    const sy_expr *e = apply_raw(f, eq);
    if (!e) return sy_ctx_last_error(ctx);
    if (e->kind != SY_EXPR_EQ) return e->isbool ? SY_OK : sy_fail_st(ctx, SY_EINVAL, "solve: expected an equality");
    const sy_expr *d = e->args[0];
    int sign = 0;
    const sy_expr *s = pick_unit(ctx, d, &sign, true);
    const sy_expr *v = NULL, *div = NULL;
    if (s) {
        v = sy_expr_mul_si(ctx, sy_expr_sub(ctx, d, sy_expr_mul_si(ctx, s, sign)), -sign);
    } else {
        /* k*s + rest == 0: s := FloorDiv(-rest, k) with divisibility Mod(rest, k) == 0 */
        s = pick_unit(ctx, d, &sign, false);
        if (s) {
            const sy_expr *k = sy_expr_coeff(ctx, d, s, 1);
            const sy_expr *rest = sy_expr_sub(ctx, d, sy_expr_mul(ctx, k, s));
            v = sy_expr_floordiv(ctx, sy_expr_neg(ctx, rest), k);
            div = sy_expr_eq(ctx, sy_expr_mod(ctx, rest, k), sy_expr_int_si(ctx, 0));
        }
    }
    if (!s || !v) return SY_OK;
    /* the solution must keep the symbol's range */
    sy_ival r, vb;
    sy_ival_init(&r);
    sy_ival_init(&vb);
    if (s->u.sym.id < f->cap) sy_ival_set(&r, &f->range[s->u.sym.id]);
    bctx B = {f, NULL, NULL};
    bound_rec(&B, v, &vb);
    sy_ival_intersect(&vb, &vb, &r);
    bool ok = !sy_ival_is_empty(&vb);
    sy_ival_clear(&r);
    sy_ival_clear(&vb);
    if (!ok) return SY_OK;
    if (f->nfresh) { /* never hand out internal parameters */
        v = unfresh(f, v);
        if (div) div = unfresh(f, div);
        if (!v || s->u.sym.name[0] == '#') return sy_ctx_last_error(f->ctx);
    }
    *sym = s;
    *value = v;
    *divisibility = div;
    return SY_OK;
}
