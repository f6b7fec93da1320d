/* Guard sets: normalization, replacing the guards on one source by its exact
 * range guards (part of minimization). */
#include "guards/gset_private.h"

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
sy_status normalize(sy_gset *gs)
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
