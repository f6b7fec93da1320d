/* The shape rules both frontends share (shapeenv/rules.c), by random evaluation:
 * each rule's expression against the integer formula it replaced (PyTorch's
 * pooling_output_shape_pad_lr, the ONNX frontend's ceil(num / s) + 1; numpy
 * broadcasting; exact division), at every point of a grid where the guards
 * it recorded hold; and broadcasting's guards against both question orders it
 * replaced (the torch frontend's a == 1, b == 1, require a == b; the ONNX
 * frontend's a == b, a == 1, b == 1): every point either old set accepted the
 * new one accepts too, except where the example has both sides 1 (then the
 * rule keeps Eq(a, 1), as the torch order did). */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"
#include "shapeenv/rules.h"

SY_TEST_ENV_FIXTURE

#define CASE(name) Test(shapeenv_rules, name, .init = env_setup, .fini = env_teardown, .timeout = SY_TIMEOUT(120))

static int64_t floordiv64(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* PyTorch pooling_output_shape_pad_lr (aten/src/ATen/native/Pool.h) */
static int64_t torch_window(int64_t d, int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe, int ceil)
{
    int64_t out = floordiv64(d + pb + pe - dil * (k - 1) - 1 + (ceil ? s - 1 : 0), s) + 1;
    if (ceil && (out - 1) * s >= d + pb) out--;
    return out;
}

/* the ONNX frontend's old form: ceil(num / s) + 1, minus one when the last window starts in the padding */
static int64_t onnx_window(int64_t d, int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe, int ceil)
{
    int64_t num = d + pb + pe - dil * (k - 1) - 1;
    if (!ceil) return floordiv64(num, s) + 1;
    int64_t o = -floordiv64(-num, s) + 1;
    if ((o - 1) * s >= d + pb) o--;
    return o;
}

static int guards_hold(sy_env *e, size_t from, size_t n, const sy_expr *const *syms, const int64_t *vals)
{
    for (size_t i = from; i < sy_env_nguards(e); i++) {
        int64_t v;
        sy_status st = sy_expr_eval_si(ctx, sy_env_guard(e, i)->expr, n, syms, vals, &v);
        cr_assert(eq(int, st, SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        if (!v) return 0;
    }
    return 1;
}

static int64_t eval1(const sy_expr *e, size_t n, const sy_expr *const *syms, const int64_t *vals)
{
    int64_t v = 0;
    sy_status st = sy_expr_eval_si(ctx, e, n, syms, vals, &v);
    cr_assert(eq(int, st, SY_OK), "%s: %s", S(e), sy_ctx_last_error_msg(ctx));
    return v;
}

CASE(window_out_matches_both_old_formulas_where_its_guards_hold)
{
    srand(34);
    size_t checked = 0;
    for (int it = 0; it < 400; it++) {
        int64_t k = 1 + rand() % 5, s = 1 + rand() % 4, dil = 1 + rand() % 3, pb = rand() % 3, pe = rand() % 3;
        int ceil = rand() % 2;
        int64_t ex = 2 + rand() % 40;
        sy_env *e = sy_env_new(ctx, NULL);
        cr_assert(e != NULL);
        const sy_expr *d = sy_env_create_symbol(e, ex, "x.size()[2]", SY_DIM_DYNAMIC);
        const sy_expr *ext = sy_expr_int_si(ctx, dil * (k - 1) + 1), *r = NULL;
        sy_provenance why = {"pool", "max_pool2d", NULL};
        cr_assert(eq(int, sy_rule_window_out(e, &why, d, ext, s, pb, pe, ceil, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        cr_assert(eq(i64, eval1(r, 1, &d, &ex), torch_window(ex, k, s, dil, pb, pe, ceil)));
        for (int64_t v = 2; v <= 60; v++) {
            if (!guards_hold(e, 0, 1, &d, &v)) continue;
            int64_t want = torch_window(v, k, s, dil, pb, pe, ceil);
            cr_assert(eq(i64, want, onnx_window(v, k, s, dil, pb, pe, ceil)));
            cr_assert(eq(i64, eval1(r, 1, &d, &v), want), "d=%lld k=%lld s=%lld dil=%lld pads %lld,%lld ceil %d: %s",
                      (long long)v, (long long)k, (long long)s, (long long)dil, (long long)pb, (long long)pe, ceil, S(r));
            checked++;
        }
        sy_env_free(e);
    }
    cr_assert(gt(sz, checked, 5000));
}

/* ceil_mode with pad_r < ext (every torch pool, ONNX pads below the window): the drop of a
 * last window that starts outside is one expression, exact at every size, no guard needed */
CASE(window_out_ceil_mode_is_one_expression_where_pad_r_is_below_the_window)
{
    size_t checked = 0, cases = 0;
    for (int64_t k = 1; k <= 6; k++)
        for (int64_t s = 1; s <= 5; s++)
            for (int64_t dil = 1; dil <= 3; dil++)
                for (int64_t pb = 0; pb <= 3; pb++)
                    for (int64_t pe = 0; pe < dil * (k - 1) + 1 && pe <= 4; pe++) {
                        sy_env *e = sy_env_new(ctx, NULL);
                        cr_assert(e != NULL);
                        int64_t ex = 29;
                        const sy_expr *d = sy_env_create_symbol(e, ex, "x.size()[2]", SY_DIM_DYNAMIC);
                        const sy_expr *ext = sy_expr_int_si(ctx, dil * (k - 1) + 1), *r = NULL;
                        sy_provenance why = {"pool", "max_pool2d", NULL};
                        cr_assert(eq(int, sy_rule_window_out(e, &why, d, ext, s, pb, pe, 1, &r), SY_OK));
                        for (int64_t v = 1; v <= 100; v++, checked++)
                            cr_assert(eq(i64, eval1(r, 1, &d, &v), torch_window(v, k, s, dil, pb, pe, 1)),
                                      "d=%lld k=%lld s=%lld dil=%lld pads %lld,%lld: %s", (long long)v, (long long)k,
                                      (long long)s, (long long)dil, (long long)pb, (long long)pe, S(r));
                        cases++;
                        sy_env_free(e);
                    }
    cr_assert(gt(sz, cases, 500));
    cr_assert(gt(sz, checked, 50000));
}

static const char *reason(void *arg, int which)
{
    (void)arg;
    return which ? "not divisible" : "zero";
}

/* the old question orders, recording into their own env: 1 broadcasts, 0 the example does not */
static int old_torch_bcast(sy_env *e, const sy_expr *a, const sy_expr *b)
{
    sy_provenance w = {"n", "add", "old"};
    const sy_expr *one = sy_expr_int_si(ctx, 1), *v;
    if (a == b || a == one || b == one) return 1;
    cr_assert(eq(int, sy_env_evaluate_expr(e, sy_expr_eq(ctx, a, one), &w, &v), SY_OK));
    if (sy_expr_kind_of(v) == SY_EXPR_TRUE) return 1;
    cr_assert(eq(int, sy_env_evaluate_expr(e, sy_expr_eq(ctx, b, one), &w, &v), SY_OK));
    if (sy_expr_kind_of(v) == SY_EXPR_TRUE) return 1;
    return sy_env_require(e, sy_expr_eq(ctx, a, b), &w) == SY_OK;
}

static int old_onnx_bcast(sy_env *e, const sy_expr *a, const sy_expr *b)
{
    sy_provenance w = {"n", "Add", "old"};
    const sy_expr *one = sy_expr_int_si(ctx, 1), *v;
    if (a == b || a == one || b == one) return 1;
    const sy_expr *q[3] = {sy_expr_eq(ctx, a, b), sy_expr_eq(ctx, a, one), sy_expr_eq(ctx, b, one)};
    for (int i = 0; i < 3; i++) {
        cr_assert(eq(int, sy_env_evaluate_expr(e, q[i], &w, &v), SY_OK));
        if (sy_expr_kind_of(v) == SY_EXPR_TRUE) return 1;
    }
    return 0;
}

CASE(bcast_dim_is_right_where_its_guards_hold_and_no_narrower_than_either_old_order)
{
    srand(3402);
    size_t checked = 0, wider = 0;
    for (int it = 0; it < 600; it++) {
        int64_t ex[2] = {2 + rand() % 5, 2 + rand() % 5};
        int64_t ca = -(rand() % 6), cb = -(rand() % 6);
        int same_sym = rand() % 4 == 0;
        sy_env *e = sy_env_new(ctx, NULL), *et = sy_env_new(ctx, NULL), *eo = sy_env_new(ctx, NULL);
        cr_assert(e && et && eo);
        /* each env its own symbols x, y (s0, s1) and sizes a = x + ca, b = y + cb (or of x alone) */
        sy_env *all[3] = {e, et, eo};
        const sy_expr *xs[3], *ys[3], *as[3], *bs[3], *r = NULL;
        for (int j = 0; j < 3; j++) {
            xs[j] = sy_env_create_symbol(all[j], ex[0], "x.size()[0]", SY_DIM_DYNAMIC);
            ys[j] = same_sym ? xs[j] : sy_env_create_symbol(all[j], ex[1], "y.size()[0]", SY_DIM_DYNAMIC);
            as[j] = sy_expr_add_si(ctx, xs[j], ca);
            bs[j] = sy_expr_add_si(ctx, ys[j], cb);
        }
        const sy_expr *a = as[0], *b = bs[0], *syms[2] = {xs[0], ys[0]};
        int64_t exv[2] = {ex[0], same_sym ? ex[0] : ex[1]};
        int64_t ha = eval1(a, 2, syms, exv), hb = eval1(b, 2, syms, exv);
        if (ha < 0 || hb < 0) {
            sy_env_free(e), sy_env_free(et), sy_env_free(eo);
            continue;
        }
        sy_provenance why = {"n", "add", NULL};
        cr_assert(eq(int, sy_rule_bcast_dim(e, &why, a, b, reason, NULL, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        int ok = ha == hb || ha == 1 || hb == 1;
        cr_assert(eq(int, r != NULL, ok), "a=%lld b=%lld", (long long)ha, (long long)hb);
        int ot = old_torch_bcast(et, as[1], bs[1]), oo = old_onnx_bcast(eo, as[2], bs[2]);
        sy_ctx_reset_error(ctx);
        cr_assert(eq(int, ot, ok));
        cr_assert(eq(int, oo, ok));
        if (!ok) {
            sy_env_free(e), sy_env_free(et), sy_env_free(eo);
            continue;
        }
        for (int64_t u = 2; u <= 9; u++)
            for (int64_t v = 2; v <= 9; v++) {
                int64_t pv[2] = {u, same_sym ? u : v};
                if (same_sym && v > 2) continue;
                int64_t av = eval1(a, 2, syms, pv), bv = eval1(b, 2, syms, pv);
                if (av < 0 || bv < 0) continue;
                const sy_expr *st_[2] = {xs[1], ys[1]}, *so[2] = {xs[2], ys[2]};
                int nw = guards_hold(e, 0, 2, syms, pv), tw = guards_hold(et, 0, 2, st_, pv), on = guards_hold(eo, 0, 2, so, pv);
                if (nw) { /* the guard set accepts it: it broadcasts, to the rule's answer */
                    cr_assert(av == bv || av == 1 || bv == 1, "accepts a=%lld b=%lld, which do not broadcast", (long long)av,
                              (long long)bv);
                    cr_assert(eq(i64, eval1(r, 2, syms, pv), av == 1 ? bv : av));
                    checked++;
                }
                if (!(ha == 1 && hb == 1)) /* no narrower than either old order */
                    cr_assert(nw || (!tw && !on), "example a=%lld b=%lld: point a=%lld b=%lld accepted by the old %s order only",
                              (long long)ha, (long long)hb, (long long)av, (long long)bv, tw ? "torch" : "ONNX");
                if (nw && (!tw || !on)) wider++;
            }
        sy_env_free(e), sy_env_free(et), sy_env_free(eo);
    }
    cr_assert(gt(sz, checked, 1000));
    cr_assert(gt(sz, wider, 0));
    cr_log_info("bcast: %zu points checked, %zu accepted now and by an old order not", checked, wider);
}

/* lost46: without 0/1 specialization (sizes [0, oo)) the rule requires infer_size's whole condition,
 * Or(a == 1, b == 1, a == b), whatever branch the example takes: a point is accepted exactly when it
 * broadcasts, and the answer is infer_size's there, 0 and 1 included (Max(a, b) alone gives 1 for
 * 1 and 0); against a constant c, Or(a == 1, a == c) and c */
CASE(bcast_dim_without_specialization_accepts_exactly_the_pairs_that_broadcast)
{
    srand(3406);
    const sy_env_options relaxed = {SY_ENV_OPTIONS_VERSION, 0, 0};
    size_t checked = 0, cases = 0;
    for (int it = 0; it < 300; it++) {
        int64_t ex[2] = {rand() % 4, rand() % 4};
        int kind = rand() % 3; /* 0: two symbols, 1: b a constant, 2: a a constant */
        if (kind == 0 && ex[0] != ex[1] && ex[0] != 1 && ex[1] != 1) ex[1] = rand() % 2 ? 1 : ex[0];
        int64_t c = ex[kind == 2 ? 0 : 1];
        if (kind && c == 1) c = 3;
        if (kind == 1 && ex[0] != 1) ex[0] = c;
        if (kind == 2 && ex[1] != 1) ex[1] = c;
        sy_env *e = sy_env_new(ctx, &relaxed);
        cr_assert(e != NULL);
        const sy_expr *x = sy_env_create_symbol(e, ex[0], "x.size()[0]", SY_DIM_DYNAMIC);
        const sy_expr *y = sy_env_create_symbol(e, ex[1], "y.size()[0]", SY_DIM_DYNAMIC), *syms[2] = {x, y}, *r = NULL;
        const sy_expr *a = kind == 2 ? sy_expr_int_si(ctx, c) : x, *b = kind == 1 ? sy_expr_int_si(ctx, c) : y;
        sy_provenance why = {"n", "add", NULL};
        cr_assert(eq(int, sy_rule_bcast_dim(e, &why, a, b, reason, NULL, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        cr_assert(r != NULL);
        for (int64_t u = 0; u <= 9; u++)
            for (int64_t v = 0; v <= 9; v++) {
                int64_t pv[2] = {u, v}, av = kind == 2 ? c : u, bv = kind == 1 ? c : v;
                int bc = av == bv || av == 1 || bv == 1, acc = guards_hold(e, 0, 2, syms, pv);
                if (kind == 1 && v != ex[1]) continue; /* y is not read: its value is free */
                if (kind == 2 && u != ex[0]) continue;
                cr_assert(eq(int, acc, bc), "example %lld, %lld (kind %d): a=%lld b=%lld; guard 0 of %zu: %s", (long long)ex[0],
                          (long long)ex[1], kind, (long long)av, (long long)bv, sy_env_nguards(e),
                          sy_env_nguards(e) ? S(sy_env_guard(e, 0)->expr) : "-");
                if (acc) cr_assert(eq(i64, eval1(r, 2, syms, pv), av == 1 ? bv : av), "a=%lld b=%lld: %s", (long long)av,
                                   (long long)bv, S(r));
                checked++;
            }
        cases++;
        sy_env_free(e);
    }
    cr_assert(gt(sz, checked, 10000));
    cr_log_info("bcast without specialization: %zu cases, %zu points", cases, checked);
}

/* bcast47: sides that share a symbol (x[1:] against x, a cat against one of its parts, a
 * flatten against a column, a table's Min(k, x) against x, ...): the rule requires the kernel's
 * whole condition, the branches that imply another dropped, not the example's branch. Without
 * 0/1 specialization, at every example that broadcasts, a point of [0, 9]^2 is accepted exactly
 * when it broadcasts, and the answer is infer_size's there; with it (sizes >= 2), every accepted
 * point broadcasts to the answer. */
static const sy_expr *shared_side(int k, const sy_expr *x, const sy_expr *y)
{
    switch (k) {
    case 0: return x;
    case 1: return sy_expr_max(ctx, sy_expr_int_si(ctx, 0), sy_expr_add_si(ctx, x, -1)); /* x[1:] */
    case 2: return sy_expr_mul_si(ctx, x, 2);                                            /* cat([x, x]) */
    case 3: return sy_expr_add(ctx, x, y);                                               /* cat([x, y]) */
    case 4: return sy_expr_min(ctx, sy_expr_int_si(ctx, 4), x);                          /* table[:x] */
    case 5: return sy_expr_floordiv(ctx, sy_expr_add_si(ctx, x, 1), sy_expr_int_si(ctx, 2)); /* x[::2] */
    case 6: return sy_expr_mul(ctx, x, y);                                               /* flatten */
    case 7: return sy_expr_min(ctx, x, y);                                               /* x[:y] */
    case 8: return sy_expr_max(ctx, sy_expr_int_si(ctx, 0), sy_expr_sub(ctx, x, sy_expr_min(ctx, x, y))); /* x[y:] */
    default: return sy_expr_add_si(ctx, x, 1); /* pad */
    }
}

CASE(bcast_dim_with_a_shared_symbol_keeps_every_branch)
{
    size_t checked = 0, cases = 0, examples = 0;
    for (int spec = 0; spec < 2; spec++)
        for (int ka = 0; ka <= 9; ka++) /* every pair reads x */
            for (int kb = 0; kb <= 9; kb++) {
                if (ka == kb) continue;
                for (int64_t ex0 = spec ? 2 : 0; ex0 <= 5; ex0++)
                    for (int64_t ex1 = spec ? 2 : 0; ex1 <= 4; ex1 += 2) {
                        const sy_env_options relaxed = {SY_ENV_OPTIONS_VERSION, 0, 0};
                        sy_env *e = sy_env_new(ctx, spec ? NULL : &relaxed);
                        cr_assert(e != NULL);
                        const sy_expr *x = sy_env_create_symbol(e, ex0, "x.size()[0]", SY_DIM_DYNAMIC);
                        const sy_expr *y = sy_env_create_symbol(e, ex1, "y.size()[0]", SY_DIM_DYNAMIC);
                        const sy_expr *syms[2] = {x, y}, *a = shared_side(ka, x, y), *b = shared_side(kb, x, y), *r = NULL;
                        int64_t exv[2] = {ex0, ex1}, ha = eval1(a, 2, syms, exv), hb = eval1(b, 2, syms, exv);
                        if (x == y || !(ha == hb || ha == 1 || hb == 1)) { /* duck-sized, or no broadcast at the example */
                            sy_env_free(e);
                            continue;
                        }
                        examples++;
                        sy_provenance why = {"n", "add", NULL};
                        cr_assert(eq(int, sy_rule_bcast_dim(e, &why, a, b, reason, NULL, &r), SY_OK), "%s",
                                  sy_ctx_last_error_msg(ctx));
                        cr_assert(r != NULL);
                        for (int64_t u = 0; u <= 9; u++)
                            for (int64_t v = 0; v <= 9; v++) {
                                int64_t pv[2] = {u, v}, av = eval1(a, 2, syms, pv), bv = eval1(b, 2, syms, pv);
                                int bc = av == bv || av == 1 || bv == 1, acc = guards_hold(e, 0, 2, syms, pv);
                                if (acc) cr_assert(eq(i64, eval1(r, 2, syms, pv), av == 1 ? bv : av), "sides %d vs %d at %lld, %lld: %s",
                                                   ka, kb, (long long)u, (long long)v, S(r));
                                cr_assert(acc <= bc, "sides %d vs %d accepts %lld, %lld", ka, kb, (long long)u, (long long)v);
                                if (!spec)
                                    cr_assert(eq(int, acc, bc), "sides %d vs %d, example %lld, %lld: %lld, %lld broadcasts, rejected by %s",
                                              ka, kb, (long long)ex0, (long long)ex1, (long long)u, (long long)v,
                                              sy_env_nguards(e) ? S(sy_env_guard(e, sy_env_nguards(e) - 1)->expr) : "-");
                                checked++;
                            }
                        cases++;
                        sy_env_free(e);
                    }
            }
    cr_assert(eq(sz, examples, cases));
    cr_assert(gt(sz, checked, 30000));
    cr_log_info("bcast with a shared symbol: %zu cases, %zu points", cases, checked);
}

CASE(infer_size_is_the_quotient_where_its_guards_hold)
{
    srand(3403);
    size_t checked = 0;
    for (int it = 0; it < 300; it++) {
        int64_t ex[2] = {2 + rand() % 6, 2 + rand() % 6}, c = 1 + rand() % 4;
        sy_env *e = sy_env_new(ctx, NULL);
        const sy_expr *x = sy_env_create_symbol(e, ex[0], "x.size()[0]", SY_DIM_DYNAMIC);
        const sy_expr *y = sy_env_create_symbol(e, ex[1], "x.size()[1]", SY_DIM_DYNAMIC), *syms[2] = {x, y};
        /* numel x*y*c against known: x, c, x*y, y + 1 (not a divisor as a polynomial) */
        const sy_expr *numel = sy_expr_mul_si(ctx, sy_expr_mul(ctx, x, y), c);
        const sy_expr *knowns[4] = {x, sy_expr_int_si(ctx, c), sy_expr_mul(ctx, x, y), sy_expr_add_si(ctx, y, 1)};
        const sy_expr *known = knowns[rand() % 4], *q = NULL;
        sy_provenance why = {"n", "view", NULL};
        int64_t kv = eval1(known, 2, syms, ex), nv = eval1(numel, 2, syms, ex);
        sy_status st = sy_rule_infer_size(e, &why, numel, known, reason, NULL, &q);
        sy_ctx_reset_error(ctx);
        cr_assert(eq(int, st == SY_OK, nv % kv == 0));
        if (st == SY_OK)
            for (int64_t u = 2; u <= 12; u++)
                for (int64_t v = 2; v <= 12; v++) {
                    int64_t pv[2] = {u, v};
                    if (!guards_hold(e, 0, 2, syms, pv)) continue;
                    int64_t n = eval1(numel, 2, syms, pv), k = eval1(known, 2, syms, pv);
                    cr_assert(k != 0 && n % k == 0, "accepts %lld / %lld", (long long)n, (long long)k);
                    cr_assert(eq(i64, eval1(q, 2, syms, pv), n / k));
                    checked++;
                }
        sy_env_free(e);
    }
    cr_assert(gt(sz, checked, 3000));
}

CASE(pad_dim_is_the_sum_and_the_cropped_extent)
{
    srand(3404);
    for (int it = 0; it < 200; it++) {
        int64_t ex = 2 + rand() % 9, l = rand() % 9 - 4, r = rand() % 9 - 4;
        sy_env *e = sy_env_new(ctx, NULL);
        const sy_expr *d = sy_env_create_symbol(e, ex, "x.size()[0]", SY_DIM_DYNAMIC), *out = NULL, *kept = NULL;
        cr_assert(eq(int, sy_rule_pad_dim(e, d, sy_expr_int_si(ctx, l), sy_expr_int_si(ctx, r), &out, &kept), SY_OK));
        for (int64_t v = 0; v <= 12; v++) {
            cr_assert(eq(i64, eval1(out, 1, &d, &v), v + l + r));
            cr_assert(eq(i64, eval1(kept, 1, &d, &v), v + (l < 0 ? l : 0) + (r < 0 ? r : 0)));
        }
        sy_env_free(e);
    }
}

/* Python's slice of a sequence of length L with step > 0 (CPython Objects/sliceobject.c
 * PySlice_AdjustIndices, and PySlice_GetIndicesEx's length), the ground truth of
 * sy_rule_slice_len: has = 0 for None */
static void py_slice(int64_t L, int hs, int64_t s, int he, int64_t e, int64_t step, int64_t *start, int64_t *len)
{
    if (!hs) s = 0;
    else if (s < 0) s = s + L < 0 ? 0 : s + L;
    else if (s >= L) s = L;
    if (!he) e = L;
    else if (e < 0) e = e + L < 0 ? 0 : e + L;
    else if (e >= L) e = L;
    *start = s;
    *len = e > s ? (e - s - 1) / step + 1 : 0;
}

/* A bound of kind 0 None, 1 a constant, 2 L + c, 3 M + c (another size, sign unknown), 4 c - M */
static const sy_expr *bound_of(int kind, int64_t cst, const sy_expr *L, const sy_expr *M)
{
    switch (kind) {
    case 1: return sy_expr_int_si(ctx, cst);
    case 2: return sy_expr_add_si(ctx, L, cst);
    case 3: return sy_expr_add_si(ctx, M, cst);
    case 4: return sy_expr_sub(ctx, sy_expr_int_si(ctx, cst), M);
    default: return NULL;
    }
}

static int64_t bound_val(int kind, int64_t cst, int64_t L, int64_t M)
{
    return kind == 1 ? cst : kind == 2 ? L + cst : kind == 3 ? M + cst : kind == 4 ? cst - M : 0;
}

/* issue 32: x[1:] is Max(L - 1, 0) with no guard (torch clamps), and every slice with a
 * positive step, bounds None, constants (negative, beyond the length), L + c or another
 * size M + c, c - M, equals Python's slicing at every L, M in [0, 16] (over 10,000 points),
 * under both policies' ranges, and records no guard */
CASE(slice_len_is_pythons_slicing_with_no_guard)
{
    srand(32);
    size_t checked = 0;
    for (int it = 0; it < 240; it++) {
        sy_env_options o = SY_ENV_OPTIONS_INIT;
        o.specialize_zero_one = it % 2; /* [2, oo) or [0, oo) */
        sy_env *e = sy_env_new(ctx, &o);
        cr_assert(e != NULL);
        const sy_expr *syms[2] = {sy_env_create_symbol(e, 5 + rand() % 9, "x.size()[1]", SY_DIM_DYNAMIC),
                                  sy_env_create_symbol(e, 3 + rand() % 7, "y.size()[0]", SY_DIM_DYNAMIC)};
        cr_assert(syms[0] && syms[1], "%s", sy_ctx_last_error_msg(ctx));
        int ks = rand() % 5, ke = rand() % 5;
        int64_t cs = rand() % 25 - 12, ce = rand() % 25 - 12, step = 1 + rand() % 4;
        if (it == 0) ks = 1, cs = 1, ke = 0, step = 1; /* x[1:] */
        const sy_expr *b0 = bound_of(ks, cs, syms[0], syms[1]), *b1 = bound_of(ke, ce, syms[0], syms[1]);
        const sy_expr *start = NULL, *n = NULL;
        cr_assert(eq(int, sy_rule_slice_len(e, b0, b1, step, syms[0], &start, &n), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        cr_assert(eq(sz, sy_env_nguards(e), 0), "slice %d/%lld:%d/%lld:%lld recorded a guard", ks, (long long)cs, ke, (long long)ce,
                  (long long)step);
        if (it == 0) /* x[1:]: Max(L - 1, 0) (L under [2, oo): L - 1) */
            cr_assert(n == (o.specialize_zero_one ? sy_expr_add_si(ctx, syms[0], -1)
                                                  : sy_expr_max(ctx, sy_expr_add_si(ctx, syms[0], -1), sy_expr_int_si(ctx, 0))),
                      "x[1:] is %s", S(n));
        int64_t lo = o.specialize_zero_one ? 2 : 0;
        for (int64_t L = lo; L <= 16; L++)
            for (int64_t M = lo; M <= 16; M++) {
                int64_t vals[2] = {L, M}, ws, wn;
                py_slice(L, ks != 0, bound_val(ks, cs, L, M), ke != 0, bound_val(ke, ce, L, M), step, &ws, &wn);
                cr_assert(eq(i64, eval1(n, 2, syms, vals), wn), "L=%lld M=%lld slice %d/%lld:%d/%lld:%lld: %s",
                          (long long)L, (long long)M, ks, (long long)cs, ke, (long long)ce, (long long)step, S(n));
                if (wn > 0) cr_assert(eq(i64, eval1(start, 2, syms, vals), ws), "start %s", S(start));
                checked++;
            }
        sy_env_free(e);
    }
    cr_log_info("%zu slices checked against Python's", checked);
    cr_assert(checked >= 10000);
}

/* Python's slice with step < 0 (PySlice_AdjustIndices): a negative bound + L, then clamped to
 * [-1, L - 1]; None: L - 1 for the start, -1 for the stop. onnx = 1: ONNX Slice-13's start clamp
 * [0, L - 1] instead (onnxruntime slice_helper.h), -1 on L = 0 (nothing taken). */
static void neg_slice(int64_t L, int onnx, int hs, int64_t s, int he, int64_t e, int64_t step, int64_t *start, int64_t *len)
{
    int64_t slo = onnx ? 0 : -1;
    if (!hs) s = L - 1;
    else {
        if (s < 0) s += L;
        if (s < slo) s = slo;
        if (s > L - 1) s = L - 1;
    }
    if (!he) e = -1;
    else {
        if (e < 0) e += L;
        if (e < -1) e = -1;
        if (e > L - 1) e = L - 1;
    }
    *start = s;
    *len = s > e ? (s - e - 1) / -step + 1 : 0;
}

/* issue 32: a negative step (ONNX Slice, a flip) by the shared rule, Python's and ONNX's clamps,
 * bounds None, constants, L + c, M + c, c - M: equal to the ground truth at every L, M in [0, 16]
 * (over 10,000 points per semantics) with no guard */
CASE(slice_len_negative_step_is_pythons_and_onnxs)
{
    srand(3232);
    size_t checked = 0;
    for (int it = 0; it < 480; it++) {
        int onnx = it % 2;
        sy_env_options o = SY_ENV_OPTIONS_INIT;
        o.specialize_zero_one = (it / 2) % 2;
        sy_env *e = sy_env_new(ctx, &o);
        cr_assert(e != NULL);
        const sy_expr *syms[2] = {sy_env_create_symbol(e, 5 + rand() % 9, "x.size()[1]", SY_DIM_DYNAMIC),
                                  sy_env_create_symbol(e, 3 + rand() % 7, "y.size()[0]", SY_DIM_DYNAMIC)};
        cr_assert(syms[0] && syms[1], "%s", sy_ctx_last_error_msg(ctx));
        int ks = rand() % 5, ke = rand() % 5;
        int64_t cs = rand() % 25 - 12, ce = rand() % 25 - 12, step = -1 - rand() % 4;
        if (it < 4) ks = 0, ke = 0, step = -1; /* x[::-1]: the flip, length L */
        const sy_expr *b0 = bound_of(ks, cs, syms[0], syms[1]), *b1 = bound_of(ke, ce, syms[0], syms[1]);
        const sy_expr *start = NULL, *n = NULL;
        sy_status st = onnx ? sy_rule_slice_len_onnx(e, b0, b1, step, syms[0], &start, &n)
                            : sy_rule_slice_len(e, b0, b1, step, syms[0], &start, &n);
        cr_assert(eq(int, st, SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        cr_assert(eq(sz, sy_env_nguards(e), 0), "slice %d/%lld:%d/%lld:%lld recorded a guard", ks, (long long)cs, ke, (long long)ce,
                  (long long)step);
        if (it < 4) cr_assert(n == syms[0], "x[::-1] is %s", S(n));
        int64_t lo = o.specialize_zero_one ? 2 : 0;
        for (int64_t L = lo; L <= 16; L++)
            for (int64_t M = lo; M <= 16; M++) {
                int64_t vals[2] = {L, M}, ws, wn;
                neg_slice(L, onnx, ks != 0, bound_val(ks, cs, L, M), ke != 0, bound_val(ke, ce, L, M), step, &ws, &wn);
                cr_assert(eq(i64, eval1(n, 2, syms, vals), wn), "%s L=%lld M=%lld slice %d/%lld:%d/%lld:%lld: %s",
                          onnx ? "onnx" : "python", (long long)L, (long long)M, ks, (long long)cs, ke, (long long)ce,
                          (long long)step, S(n));
                if (wn > 0) cr_assert(eq(i64, eval1(start, 2, syms, vals), ws), "start %s", S(start));
                checked++;
            }
        sy_env_free(e);
    }
    cr_log_info("%zu negative-step slices checked against Python's and ONNX's", checked);
    cr_assert(checked >= 20000);
    const sy_expr *st0 = NULL, *n0 = NULL;
    sy_env *e = sy_env_new(ctx, NULL);
    const sy_expr *L = sy_env_create_symbol(e, 7, "x.size()[0]", SY_DIM_DYNAMIC);
    cr_assert(eq(int, sy_rule_slice_len(e, NULL, NULL, 0, L, &st0, &n0), SY_EINVAL));
    sy_env_free(e);
}
